// nandlab_seq_decode: checks one op program instruction header (contract 1,
// hw/rtl/nandlab_ops_pkg.sv).
//
// Combinational. Given the header word at the head of the command stream (and
// whether it carries tlast), the sequencer's program state (a target selected
// by CE, a POWER window open) and the number of targets, it gives the
// instruction's error code (0 = the header is valid) and the number of
// trailing words to collect before the instruction runs. A header with tlast
// is TRUNCATED when trailing words or DIN data must still follow; END must
// carry tlast.
//
// Parameters: NUM_CE (targets 0..NUM_CE-1 exist). No clock.
`default_nettype none

module nandlab_seq_decode #(
    parameter int NUM_CE = 4             // chip enables (targets 0..NUM_CE-1)
) (
    input  wire [31:0] hdr,              // header: opcode [31:24], argument [23:0]
    input  wire        hdr_last,         // the header word carries tlast
    input  wire        ce_valid,         // a CE of this program selected a target
    input  wire        window_open,      // a POWER window is open
    output reg  [7:0]  err,              // ERROR code of the header, 0 = valid
    output reg  [1:0]  nargs             // trailing words after the header
);
    wire [7:0]  op = hdr[31:24];
    wire [23:0] arg = hdr[23:0];

    // always @(*) rather than always_comb: Icarus 11 cannot take part-selects in always_comb
    always @(*) begin
        err = 8'd0;
        nargs = 2'd0;
        case (op)
            nandlab_ops_pkg::OP_END:
                if (arg != 24'd0 || !hdr_last) err = nandlab_ops_pkg::ERR_BAD_ARG;
            nandlab_ops_pkg::OP_CE:
                if (arg[23:8] != 16'd0) err = nandlab_ops_pkg::ERR_BAD_ARG;
                else if ({24'd0, arg[7:0]} >= NUM_CE) err = nandlab_ops_pkg::ERR_NO_TARGET;
            nandlab_ops_pkg::OP_CMD:
                if (arg[23:8] != 16'd0) err = nandlab_ops_pkg::ERR_BAD_ARG;
                else if (!ce_valid) err = nandlab_ops_pkg::ERR_NO_TARGET;
            nandlab_ops_pkg::OP_ADDR: begin
                nargs = arg[3:0] > 4'd4 ? 2'd2 : 2'd1;
                if (arg[23:4] != 20'd0 || arg[3:0] == 4'd0 || arg[3:0] > 4'd8)
                    err = nandlab_ops_pkg::ERR_BAD_ARG;
                else if (!ce_valid) err = nandlab_ops_pkg::ERR_NO_TARGET;
            end
            nandlab_ops_pkg::OP_DIN, nandlab_ops_pkg::OP_DIN_PAT,
            nandlab_ops_pkg::OP_DOUT, nandlab_ops_pkg::OP_DOUT_CMP: begin
                nargs = op == nandlab_ops_pkg::OP_DIN_PAT ? 2'd2 :
                        op == nandlab_ops_pkg::OP_DOUT_CMP ? 2'd3 : 2'd0;
                if (arg == 24'd0) err = nandlab_ops_pkg::ERR_BAD_ARG;
                else if (!ce_valid) err = nandlab_ops_pkg::ERR_NO_TARGET;
            end
            nandlab_ops_pkg::OP_WAIT_RDY: begin
                nargs = 2'd1;
                if (arg != 24'd0) err = nandlab_ops_pkg::ERR_BAD_ARG;
                else if (!ce_valid) err = nandlab_ops_pkg::ERR_NO_TARGET;
            end
            nandlab_ops_pkg::OP_DELAY, nandlab_ops_pkg::OP_MARK: ;
            nandlab_ops_pkg::OP_POWER: begin
                nargs = {1'b0, arg[0]};
                if (arg[23:1] != 23'd0 || (!arg[0] && !window_open))
                    err = nandlab_ops_pkg::ERR_BAD_ARG;
            end
            nandlab_ops_pkg::OP_TIMING:
                // the modes with presets: SDR 0..5, NV-DDR2 and Toggle 0..7, NV-DDR3
                // 0..15, any warm-up code (an SDR interface has no bursts to warm up);
                // no NV-DDR (clocked)
                if (arg[23:12] != 12'd0 || arg[7] ||
                    (arg[6:4] == nandlab_ops_pkg::IF_SDR &&
                     arg[3:0] > 4'(nandlab_ops_pkg::MAX_SDR_MODE)) ||
                    ((arg[6:4] == nandlab_ops_pkg::IF_NV_DDR2 ||
                      arg[6:4] == nandlab_ops_pkg::IF_TOGGLE) && arg[3]) ||
                    arg[6:4] == nandlab_ops_pkg::IF_NV_DDR || arg[6:4] > nandlab_ops_pkg::IF_TOGGLE)
                    err = nandlab_ops_pkg::ERR_BAD_ARG;
            nandlab_ops_pkg::OP_GPIO:
                if (arg[23:16] != 8'd0) err = nandlab_ops_pkg::ERR_BAD_ARG;
            default: err = nandlab_ops_pkg::ERR_BAD_OPCODE;
        endcase
        if (err == 8'd0 && hdr_last && (nargs != 2'd0 || op == nandlab_ops_pkg::OP_DIN))
            err = nandlab_ops_pkg::ERR_TRUNCATED;
    end

endmodule

`default_nettype wire

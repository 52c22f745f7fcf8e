// nandlab_seq: op program sequencer (contract 1, hw/rtl/nandlab_ops_pkg.sv).
//
// Reads an op program from the 32-bit command stream, runs each instruction
// on the PHY as it arrives and writes the tagged result stream: DATA, BUSY,
// ERRCNT, POWER (0 samples: no current monitor), MARK, ERROR and END records,
// with tlast on the END record's last word. A program ends at its END
// instruction, whose word must carry tlast. Instruction headers are checked
// by nandlab_seq_decode; records go out through nandlab_seq_rsp, which also
// applies rsp_limit.
//
// Errors stop the program with one ERROR record (code, instruction index),
// then the rest of the program (up to tlast) is discarded and END follows, so
// the next program starts clean. TRUNCATED: tlast inside an instruction, or a
// complete instruction with tlast that is not END (the index is the missing
// END's). OVERFLOW: a record (DATA, ERRCNT, BUSY, MARK, POWER) that, with the
// closing ERROR and END, would pass `rsp_limit` words (0 = no limit). Times
// count core clock cycles of CLK_PERIOD_PS. Busy time is the length of the
// selected target's latest R/B# low period, timed from its falling edge
// whatever instruction was running then (the DELAY tWB a program puts before
// WAIT_RDY included), so BUSY is the die's whole busy time, as the die itself
// reports it.
//
// Clock / reset: clk, rst (active-high, synchronous; also aborts a program).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_seq #(
    parameter int NUM_CE = 4,             // chip enables (targets 0..NUM_CE-1)
    parameter int CLK_PERIOD_PS = 10000   // clock period, a whole number of ns
) (
    input  wire              clk,
    input  wire              rst,
    // op program in
    `NANDLAB_AXIS_IN(s_axis_cmd, 32),
    // result stream out
    `NANDLAB_AXIS_OUT(m_axis_rsp, 32),
    // PHY
    output wire              phy_req_valid,
    input  wire              phy_req_ready,
    output wire [1:0]        phy_req_kind,
    output wire [7:0]        phy_req_data,
    input  wire              phy_rd_valid,
    input  wire [7:0]        phy_rd_data,
    input  wire              phy_idle,
    output wire              phy_burst_hold,  // a data instruction has bytes to go (DDR burst stays open)
    output wire              phy_rd_ready,    // a read byte from the PHY can be taken now
    input  wire              phy_wb_done,
    output wire [3:0]        phy_warmup,      // DDR warm-up codes (TIMING): {data in, data out}
    output wire [NUM_CE-1:0] ce_sel,          // selected target, one-hot (0 between programs)
    input  wire [NUM_CE-1:0] rb_n,            // synchronised R/B# per target
    // control and status
    input  wire [31:0]       rsp_limit,       // most result words per program, 0 = no limit
    input  wire              clear_counters,
    output wire [4:0]        status_state,
    output wire              status_running,
    output wire [3:0]        status_timing_mode,
    output wire [2:0]        status_interface,  // nandlab_ops_pkg::interface_e
    output wire [7:0]        status_last_error,
    output wire [7:0]        gpio,            // bit 0 WP#, bits 7:1 supply enables
    output wire [31:0]       cnt_programs,
    output wire [31:0]       cnt_errors,
    output wire [63:0]       cnt_busy_cycles
);
    localparam logic [31:0] NS = 32'(CLK_PERIOD_PS / 1000);   // ns per clock cycle

    localparam logic [1:0] KIND_CMD = 2'd0;
    localparam logic [1:0] KIND_ADDR = 2'd1;
    localparam logic [1:0] KIND_DIN = 2'd2;
    localparam logic [1:0] KIND_DOUT = 2'd3;

    localparam logic [4:0] S_HDR = 5'd0;       // waiting for an instruction header
    localparam logic [4:0] S_ARGS = 5'd1;      // collecting trailing words
    localparam logic [4:0] S_EXEC = 5'd2;      // instruction with its words complete
    localparam logic [4:0] S_NEXT = 5'd3;      // instruction done
    localparam logic [4:0] S_CE = 5'd4;
    localparam logic [4:0] S_BUS = 5'd5;       // CMD / ADDR bytes
    localparam logic [4:0] S_DIN_WORD = 5'd6;
    localparam logic [4:0] S_DIN_BYTE = 5'd7;
    localparam logic [4:0] S_PAT = 5'd8;       // DIN_PAT bytes
    localparam logic [4:0] S_DOUT = 5'd9;
    localparam logic [4:0] S_DIV = 5'd10;      // DOUT_CMP chunk count
    localparam logic [4:0] S_CMP = 5'd11;      // DOUT_CMP bytes
    localparam logic [4:0] S_WB = 5'd12;       // WAIT_RDY: tWB
    localparam logic [4:0] S_RDY = 5'd13;      // WAIT_RDY: R/B#
    localparam logic [4:0] S_DELAY = 5'd14;
    localparam logic [4:0] S_TIMING = 5'd15;
    localparam logic [4:0] S_EMIT = 5'd16;     // result record words
    localparam logic [4:0] S_FAIL = 5'd17;     // build the ERROR record
    localparam logic [4:0] S_DRAIN = 5'd18;    // discard to tlast after an error
    localparam logic [4:0] S_END = 5'd19;      // build the END record
    localparam logic [4:0] S_DONE = 5'd20;     // program closed

    // ------------------------------------------------------------ state
    reg [4:0]  state_q;
    reg [7:0]  op_q;
    reg [23:0] arg_q;
    reg [23:0] index_q;
    reg [31:0] w1_q, w2_q, w3_q;      // trailing words
    reg [1:0]  args_left_q;
    reg [1:0]  arg_pos_q;
    reg        saw_last_q;            // a word of this program carried tlast
    reg        running_q;
    reg        ce_valid_q;
    reg [NUM_CE-1:0] ce_q;
    reg        window_q;              // POWER window open
    reg [31:0] period_q;
    reg [7:0]  err_code_q;
    reg [63:0] bus_q;                 // CMD / ADDR bytes, first in the low byte
    reg [1:0]  bus_kind_q;
    reg [3:0]  bus_cnt_q;
    reg [23:0] bytes_left_q;
    reg [31:0] word_q;                // DIN word / DOUT packing word
    reg [2:0]  word_bytes_q;
    reg [1:0]  pack_idx_q;
    reg [23:0] req_left_q;            // DOUT: read cycles not yet handed to the PHY
    reg [31:0] hold_q;                // DOUT: a packed word the result stream could not take yet
    reg        hold_valid_q;
    reg [23:0] creq_left_q;           // DOUT_CMP: read cycles of this chunk not yet handed to the PHY
    reg [23:0] chunk_left_q;
    reg [1:0]  pair_step_q;
    reg [4:0]  after_q;
    reg [31:0] elapsed_q;             // ns in the current WAIT_RDY / DELAY
    reg [31:0] busy_len_q [NUM_CE];   // ns of each target's latest R/B# low period
    reg [NUM_CE-1:0] rb_prev_q;
    reg [63:0] prog_ns_q;
    reg [3:0]  timing_mode_q;
    reg [2:0]  interface_q;
    reg [3:0]  warmup_q;
    reg [7:0]  gpio_q;
    reg [7:0]  last_error_q;
    reg [31:0] cnt_programs_q, cnt_errors_q;
    reg [63:0] cnt_busy_q;

    wire [7:0]  hdr_op = s_axis_cmd_tdata[31:24];
    wire [23:0] hdr_arg = s_axis_cmd_tdata[23:0];
    wire        in_fire = s_axis_cmd_tvalid && s_axis_cmd_tready;
    wire        phy_fire = phy_req_valid && phy_req_ready;
    wire        rb_ready = |(rb_n & ce_q);
    reg  [31:0] busy_sel;             // busy_len_q of the selected target

    // ------------------------------------------------------------ header check
    wire [7:0]  hdr_err;              // error code of the header on s_axis_cmd, 0 = none
    wire [1:0]  hdr_nargs;            // its trailing words

    nandlab_seq_decode #(.NUM_CE(NUM_CE)) u_decode (
        .hdr(s_axis_cmd_tdata), .hdr_last(s_axis_cmd_tlast),
        .ce_valid(ce_valid_q), .window_open(window_q),
        .err(hdr_err), .nargs(hdr_nargs)
    );

    // ------------------------------------------------------------ result stream
    reg         rec_offer;            // a record subject to RSP_LIMIT starts this cycle
    wire        rec_start, rec_fits, rec_emit, rec_done;
    reg  [31:0] rec_hdr, rec_w1, rec_w2;
    wire        word_valid, push_ready;
    wire [31:0] word_data;

    nandlab_seq_rsp u_rsp (
        .clk(clk), .rst(rst), .rsp_limit(rsp_limit),
        .rec_start(rec_start), .rec_hdr(rec_hdr), .rec_w1(rec_w1), .rec_w2(rec_w2),
        .rec_fits(rec_fits), .rec_emit(rec_emit), .rec_done(rec_done),
        .word_valid(word_valid), .word_data(word_data), .push_ready(push_ready),
        .m_axis_rsp_tdata(m_axis_rsp_tdata), .m_axis_rsp_tvalid(m_axis_rsp_tvalid),
        .m_axis_rsp_tready(m_axis_rsp_tready), .m_axis_rsp_tlast(m_axis_rsp_tlast)
    );

    always_comb begin
        busy_sel = 32'd0;
        for (int k = 0; k < NUM_CE; k++) if (ce_q[k]) busy_sel = busy_sel | busy_len_q[k];
    end

    // ------------------------------------------------------------ helpers
    wire [31:0] pat_word = w1_q;
    wire [7:0]  pat_byte;
    wire        pat_cfg_ok;
    wire        pat_load = state_q == S_EXEC;
    wire        pat_next = (state_q == S_PAT && phy_fire) || (state_q == S_CMP && phy_rd_valid);

    nandlab_pattern_gen u_pattern (
        .clk(clk), .rst(rst),
        .pattern(pat_word), .seed(w2_q), .load(pat_load), .next(pat_next),
        .pat_byte(pat_byte), .cfg_ok(pat_cfg_ok)
    );

    wire [31:0] cmp_0to1, cmp_1to0;
    wire        cmp_clear = state_q == S_DIV || (state_q == S_CMP && pair_step_q == 2'd2 && push_ready);

    nandlab_err_counter u_err_counter (
        .clk(clk), .rst(rst),
        .clear(cmp_clear), .valid(state_q == S_CMP && phy_rd_valid),
        .got(phy_rd_data), .expected(pat_byte),
        .cnt_0to1(cmp_0to1), .cnt_1to0(cmp_1to0)
    );

    wire [24:0] div_quotient;
    wire        div_done;

    nandlab_udiv #(.WIDTH(25)) u_chunks (
        .clk(clk), .rst(rst),
        .start(state_q == S_EXEC && op_q == nandlab_ops_pkg::OP_DOUT_CMP),
        .dividend({1'b0, arg_q} + {1'b0, w3_q[23:0]} - 25'd1),
        .divisor({1'b0, w3_q[23:0]}),
        .quotient(div_quotient), .done(div_done)
    );

    /* verilator lint_off UNUSEDSIGNAL */
    wire quotient_unused = div_quotient[24];   // ceil(n / chunk) <= n < 2^24
    /* verilator lint_on UNUSEDSIGNAL */

    function automatic [31:0] sat_add(input [31:0] a, input [31:0] b);
        reg [32:0] s;
        begin
            s = {1'b0, a} + {1'b0, b};
            sat_add = s[32] ? 32'hFFFFFFFF : s[31:0];
        end
    endfunction

    // ------------------------------------------------------------ outputs
    assign s_axis_cmd_tready = state_q == S_HDR || state_q == S_ARGS ||
                               state_q == S_DIN_WORD || state_q == S_DRAIN;

    assign phy_req_valid = state_q == S_BUS || state_q == S_DIN_BYTE || state_q == S_PAT ||
        (state_q == S_DOUT && dout_issue) ||
        (state_q == S_CMP && pair_step_q == 2'd0 && creq_left_q != 24'd0);
    assign phy_req_kind = state_q == S_BUS ? bus_kind_q :
                          (state_q == S_DOUT || state_q == S_CMP) ? KIND_DOUT : KIND_DIN;
    assign phy_req_data = state_q == S_BUS ? bus_q[7:0] :
                          state_q == S_PAT ? pat_byte : word_q[7:0];
    assign ce_sel = ce_q;

    assign status_state = state_q;
    assign status_running = running_q;
    assign status_timing_mode = timing_mode_q;
    assign status_interface = interface_q;
    assign phy_warmup = warmup_q;
    assign phy_burst_hold = state_q == S_DIN_WORD || state_q == S_DIN_BYTE || state_q == S_PAT ||
        (state_q == S_DOUT && req_left_q != 24'd0) || state_q == S_DIV || state_q == S_CMP;
    // a DOUT byte could complete a word while hold_q is taken: wait (DDR bytes queue in the PHY)
    assign phy_rd_ready = !(state_q == S_DOUT && hold_valid_q);
    assign status_last_error = last_error_q;
    assign gpio = gpio_q;
    assign cnt_programs = cnt_programs_q;
    assign cnt_errors = cnt_errors_q;
    assign cnt_busy_cycles = cnt_busy_q;

    // DOUT runs read cycles back to back: the next is handed to the PHY while
    // the previous one's byte is still on its way. A word completed while the
    // result stream stalls waits in hold_q; no cycle is started that could
    // complete a second word before hold_q is free (the byte in flight ends a
    // word and so would the next: only when the next is the last byte).
    wire [1:0]  dout_next_pos = arg_q[1:0] - req_left_q[1:0];   // next read cycle's byte in its word
    wire        dout_in_flight = req_left_q != bytes_left_q;
    wire        dout_issue = req_left_q != 24'd0 && !hold_valid_q &&
        !(dout_in_flight && dout_next_pos == 2'd0 && req_left_q == 24'd1);
    wire [31:0] dout_word = word_q | ({24'd0, phy_rd_data} << {pack_idx_q, 3'b000});
    wire        dout_word_done = phy_rd_valid && (pack_idx_q == 2'd3 || bytes_left_q == 24'd1);

    // Payload words: DATA (the held word first) and ERRCNT count pairs.
    assign word_valid = push_ready &&
        ((state_q == S_DOUT && (hold_valid_q || dout_word_done)) ||
         (state_q == S_CMP && pair_step_q != 2'd0));
    assign word_data = state_q == S_CMP ? (pair_step_q == 2'd1 ? cmp_0to1 : cmp_1to0) :
                       hold_valid_q ? hold_q : dout_word;

    // Records: the one this cycle offers (subject to RSP_LIMIT), ERROR and END.
    always @(*) begin
        rec_offer = 1'b0;
        rec_hdr = {nandlab_ops_pkg::RES_END, 24'd0};
        rec_w1 = prog_ns_q[31:0];
        rec_w2 = prog_ns_q[63:32];
        case (state_q)
            S_EXEC:
                case (op_q)
                    nandlab_ops_pkg::OP_DOUT: begin
                        rec_offer = 1'b1;
                        rec_hdr = {nandlab_ops_pkg::RES_DATA, arg_q};
                    end
                    nandlab_ops_pkg::OP_MARK: begin
                        rec_offer = 1'b1;
                        rec_hdr = {nandlab_ops_pkg::RES_MARK, arg_q};
                    end
                    nandlab_ops_pkg::OP_POWER: begin
                        rec_offer = !arg_q[0];
                        rec_hdr = {nandlab_ops_pkg::RES_POWER, 24'd0};
                        rec_w1 = period_q;
                    end
                    default: ;
                endcase
            S_DIV: begin
                rec_offer = div_done;
                rec_hdr = {nandlab_ops_pkg::RES_ERRCNT, div_quotient[23:0]};
                rec_w1 = w3_q;
            end
            S_RDY: begin
                rec_offer = rb_ready;
                rec_hdr = {nandlab_ops_pkg::RES_BUSY, index_q};
                rec_w1 = busy_sel;
            end
            S_FAIL: begin
                rec_hdr = {nandlab_ops_pkg::RES_ERROR, 16'd0, err_code_q};
                rec_w1 = {8'd0, index_q};
            end
            default: ;  // S_END: END
        endcase
    end
    assign rec_start = rec_offer || state_q == S_FAIL || (state_q == S_END && phy_idle);
    assign rec_emit = state_q == S_EMIT;

    // ------------------------------------------------------------ sequencer
    always_ff @(posedge clk) begin
        if (running_q) prog_ns_q <= prog_ns_q + {32'd0, NS};
        if (clear_counters) begin
            cnt_programs_q <= 32'd0;
            cnt_errors_q <= 32'd0;
            cnt_busy_q <= 64'd0;
        end

        case (state_q)
            S_HDR: if (in_fire) begin
                op_q <= hdr_op;
                arg_q <= hdr_arg;
                saw_last_q <= s_axis_cmd_tlast;
                args_left_q <= hdr_nargs;
                arg_pos_q <= 2'd1;
                if (!running_q) begin
                    running_q <= 1'b1;
                    prog_ns_q <= 64'd0;
                end
                if (hdr_err != 8'd0) begin
                    err_code_q <= hdr_err;
                    state_q <= S_FAIL;
                end else if (hdr_nargs != 2'd0) begin
                    state_q <= S_ARGS;
                end else begin
                    case (hdr_op)
                        nandlab_ops_pkg::OP_END: state_q <= S_END;
                        nandlab_ops_pkg::OP_CE: state_q <= S_CE;
                        nandlab_ops_pkg::OP_CMD: begin
                            bus_q <= {56'd0, hdr_arg[7:0]};
                            bus_kind_q <= KIND_CMD;
                            bus_cnt_q <= 4'd1;
                            state_q <= S_BUS;
                        end
                        nandlab_ops_pkg::OP_DIN: begin
                            bytes_left_q <= hdr_arg;
                            state_q <= S_DIN_WORD;
                        end
                        nandlab_ops_pkg::OP_DOUT: state_q <= S_EXEC;
                        nandlab_ops_pkg::OP_DELAY: begin
                            elapsed_q <= 32'd0;
                            state_q <= S_DELAY;
                        end
                        nandlab_ops_pkg::OP_MARK: state_q <= S_EXEC;
                        nandlab_ops_pkg::OP_POWER: state_q <= S_EXEC;
                        nandlab_ops_pkg::OP_TIMING: state_q <= S_TIMING;
                        default: begin  // GPIO
                            gpio_q <= (gpio_q & ~hdr_arg[15:8]) | (hdr_arg[7:0] & hdr_arg[15:8]);
                            state_q <= S_NEXT;
                        end
                    endcase
                end
            end

            S_ARGS: if (in_fire) begin
                saw_last_q <= s_axis_cmd_tlast;
                case (arg_pos_q)
                    2'd1: w1_q <= s_axis_cmd_tdata;
                    2'd2: w2_q <= s_axis_cmd_tdata;
                    default: w3_q <= s_axis_cmd_tdata;
                endcase
                arg_pos_q <= arg_pos_q + 2'd1;
                args_left_q <= args_left_q - 2'd1;
                if (args_left_q == 2'd1) begin
                    state_q <= S_EXEC;
                end else if (s_axis_cmd_tlast) begin
                    err_code_q <= nandlab_ops_pkg::ERR_TRUNCATED;
                    state_q <= S_FAIL;
                end
            end

            S_EXEC: begin
                after_q <= S_NEXT;
                case (op_q)
                    nandlab_ops_pkg::OP_ADDR: begin
                        bus_q <= {w2_q, w1_q};
                        bus_kind_q <= KIND_ADDR;
                        bus_cnt_q <= arg_q[3:0];
                        state_q <= S_BUS;
                    end
                    nandlab_ops_pkg::OP_DIN_PAT: begin
                        bytes_left_q <= arg_q;
                        if (pat_cfg_ok) begin
                            state_q <= S_PAT;
                        end else begin
                            err_code_q <= nandlab_ops_pkg::ERR_BAD_ARG;
                            state_q <= S_FAIL;
                        end
                    end
                    nandlab_ops_pkg::OP_DOUT: begin
                        bytes_left_q <= arg_q;
                        req_left_q <= arg_q;
                        word_q <= 32'd0;
                        pack_idx_q <= 2'd0;
                        hold_valid_q <= 1'b0;
                        after_q <= S_DOUT;
                    end
                    nandlab_ops_pkg::OP_DOUT_CMP: begin
                        bytes_left_q <= arg_q;
                        chunk_left_q <= w3_q[23:0];
                        creq_left_q <= w3_q[23:0] < arg_q ? w3_q[23:0] : arg_q;
                        pair_step_q <= 2'd0;
                        after_q <= S_CMP;
                        if (pat_cfg_ok && w3_q != 32'd0 && w3_q[31:24] == 8'd0) begin
                            state_q <= S_DIV;
                        end else begin
                            err_code_q <= nandlab_ops_pkg::ERR_BAD_ARG;
                            state_q <= S_FAIL;
                        end
                    end
                    nandlab_ops_pkg::OP_WAIT_RDY: begin
                        elapsed_q <= 32'd0;
                        state_q <= S_WB;
                    end
                    nandlab_ops_pkg::OP_MARK: ;
                    default: begin  // POWER
                        if (arg_q[0]) begin
                            window_q <= 1'b1;
                            period_q <= w1_q;
                            if (w1_q == 32'd0) begin
                                err_code_q <= nandlab_ops_pkg::ERR_BAD_ARG;
                                state_q <= S_FAIL;
                            end else begin
                                state_q <= S_NEXT;
                            end
                        end else begin
                            window_q <= 1'b0;
                        end
                    end
                endcase
            end

            S_NEXT: begin
                index_q <= index_q + 24'd1;
                if (saw_last_q) begin
                    err_code_q <= nandlab_ops_pkg::ERR_TRUNCATED;
                    state_q <= S_FAIL;
                end else begin
                    state_q <= S_HDR;
                end
            end

            S_CE: if (phy_idle) begin
                ce_q <= NUM_CE'(1) << arg_q[7:0];
                ce_valid_q <= 1'b1;
                state_q <= S_NEXT;
            end

            S_BUS: if (phy_fire) begin
                bus_q <= bus_q >> 8;
                bus_cnt_q <= bus_cnt_q - 4'd1;
                if (bus_cnt_q == 4'd1) state_q <= S_NEXT;
            end

            S_DIN_WORD: if (in_fire) begin
                saw_last_q <= s_axis_cmd_tlast;
                word_q <= s_axis_cmd_tdata;
                word_bytes_q <= bytes_left_q > 24'd4 ? 3'd4 : bytes_left_q[2:0];
                if (s_axis_cmd_tlast && bytes_left_q > 24'd4) begin
                    err_code_q <= nandlab_ops_pkg::ERR_TRUNCATED;
                    state_q <= S_FAIL;
                end else begin
                    state_q <= S_DIN_BYTE;
                end
            end

            S_DIN_BYTE: if (phy_fire) begin
                word_q <= word_q >> 8;
                bytes_left_q <= bytes_left_q - 24'd1;
                word_bytes_q <= word_bytes_q - 3'd1;
                if (bytes_left_q == 24'd1) state_q <= S_NEXT;
                else if (word_bytes_q == 3'd1) state_q <= S_DIN_WORD;
            end

            S_PAT: if (phy_fire) begin
                bytes_left_q <= bytes_left_q - 24'd1;
                if (bytes_left_q == 24'd1) state_q <= S_NEXT;
            end

            S_DOUT: begin
                if (phy_fire) req_left_q <= req_left_q - 24'd1;
                if (phy_rd_valid) begin
                    bytes_left_q <= bytes_left_q - 24'd1;
                    word_q <= dout_word_done ? 32'd0 : dout_word;
                    pack_idx_q <= dout_word_done ? 2'd0 : pack_idx_q + 2'd1;
                end
                // the held word goes first; a word completed meanwhile takes its place
                if (hold_valid_q && push_ready) begin
                    hold_q <= dout_word;
                    hold_valid_q <= dout_word_done;
                end else if (dout_word_done && !push_ready) begin
                    hold_q <= dout_word;
                    hold_valid_q <= 1'b1;
                end
                if (bytes_left_q == 24'd0 && !hold_valid_q) state_q <= S_NEXT;
            end

            S_DIV: ;  // the ERRCNT record is offered once the chunk count is known

            // DOUT_CMP runs the read cycles of a chunk back to back (as DOUT); the next
            // chunk's first cycle waits until this chunk's counts have been sent, so no
            // byte of it can reach the counter before its clear.
            S_CMP: begin
                if (phy_fire) creq_left_q <= creq_left_q - 24'd1;
                if (phy_rd_valid) begin
                    bytes_left_q <= bytes_left_q - 24'd1;
                    chunk_left_q <= chunk_left_q - 24'd1;
                    if (chunk_left_q == 24'd1 || bytes_left_q == 24'd1) pair_step_q <= 2'd1;
                end
                if (pair_step_q != 2'd0 && push_ready) begin
                    pair_step_q <= pair_step_q == 2'd1 ? 2'd2 : 2'd0;
                    if (pair_step_q == 2'd2) begin
                        chunk_left_q <= w3_q[23:0];
                        creq_left_q <= w3_q[23:0] < bytes_left_q ? w3_q[23:0] : bytes_left_q;
                        if (bytes_left_q == 24'd0) state_q <= S_NEXT;
                    end
                end
            end

            S_WB, S_RDY: begin
                elapsed_q <= sat_add(elapsed_q, NS);
                if (!rb_ready) cnt_busy_q <= cnt_busy_q + 64'd1;
                if (state_q == S_WB) begin
                    if (phy_idle && phy_wb_done) state_q <= S_RDY;
                end else if (!rb_ready && elapsed_q >= w1_q) begin
                    err_code_q <= nandlab_ops_pkg::ERR_TIMEOUT;
                    state_q <= S_FAIL;
                end
            end

            S_DELAY: if (phy_idle) begin
                if (elapsed_q >= {8'd0, arg_q}) state_q <= S_NEXT;
                else elapsed_q <= sat_add(elapsed_q, NS);
            end

            S_TIMING: if (phy_idle) begin
                timing_mode_q <= arg_q[3:0];
                interface_q <= arg_q[6:4];
                warmup_q <= arg_q[11:8];
                state_q <= S_NEXT;
            end

            S_EMIT: if (rec_done) state_q <= after_q;

            S_FAIL: begin
                after_q <= saw_last_q ? S_END : S_DRAIN;
                last_error_q <= err_code_q;
                cnt_errors_q <= cnt_errors_q + 32'd1;
                state_q <= S_EMIT;
            end

            S_DRAIN: if (in_fire && s_axis_cmd_tlast) state_q <= S_END;

            S_END: if (phy_idle) begin
                ce_q <= '0;
                after_q <= S_DONE;
                state_q <= S_EMIT;
            end

            default: begin  // S_DONE
                index_q <= 24'd0;
                ce_valid_q <= 1'b0;
                window_q <= 1'b0;
                saw_last_q <= 1'b0;
                running_q <= 1'b0;
                cnt_programs_q <= cnt_programs_q + 32'd1;
                state_q <= S_HDR;
            end
        endcase

        // RSP_LIMIT: an offered record starts if it fits, else the program stops
        if (rec_offer) begin
            if (rec_fits) begin
                state_q <= S_EMIT;
            end else begin
                err_code_q <= nandlab_ops_pkg::ERR_OVERFLOW;
                state_q <= S_FAIL;
            end
        end

        if (rst) begin
            state_q <= S_HDR;
            op_q <= 8'd0;
            arg_q <= 24'd0;
            index_q <= 24'd0;
            w1_q <= 32'd0;
            w2_q <= 32'd0;
            w3_q <= 32'd0;
            args_left_q <= 2'd0;
            arg_pos_q <= 2'd0;
            saw_last_q <= 1'b0;
            running_q <= 1'b0;
            ce_valid_q <= 1'b0;
            ce_q <= '0;
            window_q <= 1'b0;
            period_q <= 32'd0;
            err_code_q <= 8'd0;
            bus_q <= 64'd0;
            bus_kind_q <= KIND_CMD;
            bus_cnt_q <= 4'd0;
            bytes_left_q <= 24'd0;
            word_q <= 32'd0;
            word_bytes_q <= 3'd0;
            pack_idx_q <= 2'd0;
            req_left_q <= 24'd0;
            hold_q <= 32'd0;
            hold_valid_q <= 1'b0;
            creq_left_q <= 24'd0;
            chunk_left_q <= 24'd0;
            pair_step_q <= 2'd0;
            after_q <= S_HDR;
            elapsed_q <= 32'd0;
            prog_ns_q <= 64'd0;
            timing_mode_q <= 4'd0;
            interface_q <= 3'd0;
            warmup_q <= 4'd0;
            gpio_q <= 8'h01;
            last_error_q <= 8'd0;
            cnt_programs_q <= 32'd0;
            cnt_errors_q <= 32'd0;
            cnt_busy_q <= 64'd0;
        end
    end

    // ------------------------------------------------------------ busy timers
    // One per target, free-running: a falling R/B# restarts it, it counts while
    // R/B# is low and holds the length once R/B# is high again.
    always_ff @(posedge clk) begin
        for (int k = 0; k < NUM_CE; k++) begin
            if (!rb_n[k]) busy_len_q[k] <= rb_prev_q[k] ? NS : sat_add(busy_len_q[k], NS);
        end
        rb_prev_q <= rb_n;
        if (rst) begin
            for (int k = 0; k < NUM_CE; k++) busy_len_q[k] <= 32'd0;
            rb_prev_q <= '1;
        end
    end

endmodule

`default_nettype wire

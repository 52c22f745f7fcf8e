// nandlab_pattern_gen: byte stream of a DIN_PAT / DOUT_CMP pattern word.
//
// Produces exactly the bytes spec.yaml defines: CONST (param byte), CHECKER
// (0x55 / 0xAA by phase) or PRBS (xorshift32 from the seed, 4 bytes per step,
// LSB first), each optionally inverted. `load` starts a stream, `next` moves
// to the following byte; `pat_byte` is valid from the cycle after `load`.
// `cfg_ok` tells, combinationally, whether `pattern` is a legal pattern word.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_pattern_gen (
    input  wire        clk,
    input  wire        rst,
    input  wire [31:0] pattern,    // pattern word (kind, invert, param)
    input  wire [31:0] seed,       // PRBS seed, 0 = nandlab_ops_pkg::PRBS_DEFAULT_SEED
    input  wire        load,       // start the stream of `pattern` / `seed`
    input  wire        next,       // advance one byte
    output wire [7:0]  pat_byte,   // current byte
    output wire        cfg_ok      // `pattern` has a known kind and zero reserved bits
);
    function automatic [31:0] xorshift32(input [31:0] x);
        reg [31:0] v;
        begin
            v = x ^ (x << nandlab_ops_pkg::PRBS_SHIFT_0);
            v = v ^ (v >> nandlab_ops_pkg::PRBS_SHIFT_1);
            xorshift32 = v ^ (v << nandlab_ops_pkg::PRBS_SHIFT_2);
        end
    endfunction

    wire [7:0] kind  = pattern[7:0];
    wire [7:0] param = pattern[23:16];

    assign cfg_ok = pattern[31:24] == 8'd0 && pattern[15:9] == 7'd0 &&
        ((kind == nandlab_ops_pkg::PAT_CONST) ||
         (kind == nandlab_ops_pkg::PAT_CHECKER && param[7:1] == 7'd0) ||
         (kind == nandlab_ops_pkg::PAT_PRBS && param == 8'd0));

    reg [7:0]  kind_q;
    reg [7:0]  param_q;
    reg        invert_q;
    reg [31:0] state_q;     // current xorshift32 output word
    reg [1:0]  idx_q;       // byte of state_q being emitted

    always_ff @(posedge clk) begin
        if (rst) begin
            kind_q <= 8'd0;
            param_q <= 8'd0;
            invert_q <= 1'b0;
            state_q <= 32'd0;
            idx_q <= 2'd0;
        end else if (load) begin
            kind_q <= kind;
            param_q <= param;
            invert_q <= pattern[8];
            state_q <= xorshift32(seed == 32'd0 ? nandlab_ops_pkg::PRBS_DEFAULT_SEED : seed);
            idx_q <= 2'd0;
        end else if (next) begin
            idx_q <= idx_q + 2'd1;
            if (idx_q == 2'd3) begin
                state_q <= xorshift32(state_q);
            end
        end
    end

    wire [7:0] prbs_byte = 8'(state_q >> {idx_q, 3'b000});
    wire [7:0] checker_byte = 8'(param_q[0] ? nandlab_ops_pkg::CHECKER_BYTE_1
                                            : nandlab_ops_pkg::CHECKER_BYTE_0);
    wire [7:0] raw = kind_q == nandlab_ops_pkg::PAT_PRBS ? prbs_byte :
                     kind_q == nandlab_ops_pkg::PAT_CHECKER ? checker_byte : param_q;

    assign pat_byte = raw ^ {8{invert_q}};

endmodule

`default_nettype wire

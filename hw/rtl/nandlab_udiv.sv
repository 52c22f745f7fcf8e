// nandlab_udiv: sequential unsigned divider (restoring, one quotient bit per cycle).
//
// Used once per DOUT_CMP to count chunks before the ERRCNT header goes out.
// `start` latches the operands; `done` pulses WIDTH cycles later with
// `quotient` valid until the next start. Division by 0 gives all ones.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_udiv #(
    parameter int WIDTH = 25   // operand width in bits
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             start,      // latch dividend / divisor, begin
    input  wire [WIDTH-1:0] dividend,
    input  wire [WIDTH-1:0] divisor,
    output reg  [WIDTH-1:0] quotient,
    output reg              done        // one-cycle pulse: quotient valid
);
    localparam int CW = $clog2(WIDTH + 1);

    reg [WIDTH-1:0] rem_q;
    reg [WIDTH-1:0] div_q;
    reg [CW-1:0]    left_q;
    reg             busy_q;

    wire [WIDTH:0] shifted = {rem_q, quotient[WIDTH-1]};
    wire [WIDTH:0] diff = shifted - {1'b0, div_q};

    always_ff @(posedge clk) begin
        done <= 1'b0;
        if (rst) begin
            rem_q <= '0;
            div_q <= '0;
            quotient <= '0;
            left_q <= '0;
            busy_q <= 1'b0;
        end else if (start) begin
            rem_q <= '0;
            div_q <= divisor;
            quotient <= dividend;
            left_q <= CW'(WIDTH);
            busy_q <= 1'b1;
        end else if (busy_q) begin
            if (diff[WIDTH]) begin
                rem_q <= shifted[WIDTH-1:0];
                quotient <= {quotient[WIDTH-2:0], 1'b0};
            end else begin
                rem_q <= diff[WIDTH-1:0];
                quotient <= {quotient[WIDTH-2:0], 1'b1};
            end
            left_q <= left_q - 1'b1;
            if (left_q == CW'(1)) begin
                busy_q <= 1'b0;
                done <= 1'b1;
            end
        end
    end

endmodule

`default_nettype wire

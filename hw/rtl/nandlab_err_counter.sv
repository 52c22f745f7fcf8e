// nandlab_err_counter: bit error counts of bytes read against expected bytes.
//
// Accumulates, per chunk, bits expected 0 and read 1 (`cnt_0to1`) and bits
// expected 1 and read 0 (`cnt_1to0`). The sequencer decides where chunks end
// and reads the counts before pulsing `clear`.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_err_counter (
    input  wire        clk,
    input  wire        rst,
    input  wire        clear,      // start a new chunk (counts to 0)
    input  wire        valid,      // one byte to compare this cycle
    input  wire [7:0]  got,        // byte read from the chip
    input  wire [7:0]  expected,   // byte of the generated pattern
    output reg  [31:0] cnt_0to1,   // bits expected 0, read 1, this chunk
    output reg  [31:0] cnt_1to0    // bits expected 1, read 0, this chunk
);
    function automatic [3:0] popcount8(input [7:0] v);
        integer i;
        begin
            popcount8 = 4'd0;
            for (i = 0; i < 8; i = i + 1) begin
                popcount8 = popcount8 + {3'd0, v[i]};
            end
        end
    endfunction

    wire [3:0] rise = popcount8(got & ~expected);
    wire [3:0] fall = popcount8(~got & expected);

    always_ff @(posedge clk) begin
        if (rst || clear) begin
            cnt_0to1 <= 32'd0;
            cnt_1to0 <= 32'd0;
        end else if (valid) begin
            cnt_0to1 <= cnt_0to1 + {28'd0, rise};
            cnt_1to0 <= cnt_1to0 + {28'd0, fall};
        end
    end

endmodule

`default_nettype wire

// nandlab_axis_32to64: AXI-Stream width converter, 32-bit words to 64-bit beats.
//
// Two words make a beat, the first in the low half. A packet with an odd
// number of words ends with a beat whose tkeep is 0x0F.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_axis_32to64 (
    input  wire        clk,
    input  wire        rst,
    `NANDLAB_AXIS_IN(s_axis, 32),
    `NANDLAB_AXIS_OUT(m_axis, 64),
    output wire [7:0]  m_axis_tkeep
);
    reg [31:0] low_q;
    reg        have_low_q;
    reg [63:0] out_data_q;
    reg [7:0]  out_keep_q;
    reg        out_valid_q, out_last_q;

    wire out_free = !out_valid_q || m_axis_tready;
    assign s_axis_tready = out_free;
    assign m_axis_tdata = out_data_q;
    assign m_axis_tkeep = out_keep_q;
    assign m_axis_tvalid = out_valid_q;
    assign m_axis_tlast = out_last_q;

    always_ff @(posedge clk) begin
        if (out_valid_q && m_axis_tready) out_valid_q <= 1'b0;
        if (s_axis_tvalid && out_free) begin
            if (have_low_q) begin
                out_data_q <= {s_axis_tdata, low_q};
                out_keep_q <= 8'hFF;
                out_valid_q <= 1'b1;
                out_last_q <= s_axis_tlast;
                have_low_q <= 1'b0;
            end else if (s_axis_tlast) begin
                out_data_q <= {32'd0, s_axis_tdata};
                out_keep_q <= 8'h0F;
                out_valid_q <= 1'b1;
                out_last_q <= 1'b1;
            end else begin
                low_q <= s_axis_tdata;
                have_low_q <= 1'b1;
            end
        end
        if (rst) begin
            low_q <= 32'd0;
            have_low_q <= 1'b0;
            out_data_q <= 64'd0;
            out_keep_q <= 8'd0;
            out_valid_q <= 1'b0;
            out_last_q <= 1'b0;
        end
    end

endmodule

`default_nettype wire

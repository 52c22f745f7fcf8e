// nandlab_axis_64to32: AXI-Stream width converter, 64-bit beats to 32-bit words.
//
// The low word of each beat goes first. A last beat whose tkeep[7:4] is zero
// yields only its low word (programs are whole 32-bit words).
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_axis_64to32 (
    input  wire        clk,
    input  wire        rst,
    `NANDLAB_AXIS_IN(s_axis, 64),
    input  wire [7:0]  s_axis_tkeep,
    `NANDLAB_AXIS_OUT(m_axis, 32)
);
    reg        high_q;   // the low word of the held beat has gone out

    wire beat_has_high = s_axis_tkeep[4];
    wire last_word = !high_q ? (s_axis_tlast && !beat_has_high) : s_axis_tlast;

    assign m_axis_tdata = high_q ? s_axis_tdata[63:32] : s_axis_tdata[31:0];
    assign m_axis_tvalid = s_axis_tvalid;
    assign m_axis_tlast = last_word;
    assign s_axis_tready = m_axis_tready && (high_q || !beat_has_high);

    /* verilator lint_off UNUSEDSIGNAL */
    wire [6:0] keep_unused = {s_axis_tkeep[7:5], s_axis_tkeep[3:0]};   // whole words only
    /* verilator lint_on UNUSEDSIGNAL */

    always_ff @(posedge clk) begin
        if (rst) begin
            high_q <= 1'b0;
        end else if (s_axis_tvalid && m_axis_tready) begin
            high_q <= !high_q && beat_has_high;
        end
    end

endmodule

`default_nettype wire

// nandlab_top_xdma: nandlab_ctrl behind the Xilinx XDMA IP (PCIe), user side.
//
// Ports are the XDMA IP's user-side interfaces in AXI-Stream mode: H2C
// channel 0 carries op programs, C2H channel 0 the result streams (64-bit
// beats, converted to the core's 32-bit words), the AXI-Lite user BAR
// (m_axil) reaches the CSR block. The XDMA IP itself and the ONFI pin
// buffers are instantiated in the Vivado flow (hw/vivado/); here the top
// lints and synthesises standalone.
//
// Clock / reset: axi_aclk from the XDMA IP (125 MHz for a 64-bit Gen2 x4
// link, so CLK_PERIOD_PS = 8000), axi_aresetn active-low.
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_top_xdma #(
    parameter int NUM_CE = 4,            // chip enables on the socket card
    parameter int CLK_PERIOD_PS = 8000,  // axi_aclk period
    parameter bit USE_XILINX_PRIMS = 1'b0 // UltraScale I/O primitives in the DDR PHY (board builds)
) (
    input  wire              axi_aclk,
    input  wire              axi_aresetn,
    // H2C stream 0 (XDMA m_axis_h2c_0)
    `NANDLAB_AXIS_IN(s_axis_h2c, 64),
    input  wire [7:0]        s_axis_h2c_tkeep,
    // C2H stream 0 (XDMA s_axis_c2h_0)
    `NANDLAB_AXIS_OUT(m_axis_c2h, 64),
    output wire [7:0]        m_axis_c2h_tkeep,
    // user BAR (XDMA m_axil)
    `NANDLAB_AXIL_SLAVE(32),
    // ONFI pins (to the IO buffers)
    `NANDLAB_ONFI_PINS(NUM_CE)
);
    reg rst_q;   // synchronous reset from the IP's reset
    always_ff @(posedge axi_aclk) rst_q <= !axi_aresetn;

    // named after the nandlab_ctrl ports they feed, so u_ctrl connects them by name
    wire [31:0] s_axis_cmd_tdata, m_axis_rsp_tdata;
    wire        s_axis_cmd_tvalid, s_axis_cmd_tready, s_axis_cmd_tlast;
    wire        m_axis_rsp_tvalid, m_axis_rsp_tready, m_axis_rsp_tlast;

    nandlab_axis_64to32 u_h2c (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_tdata(s_axis_h2c_tdata), .s_axis_tkeep(s_axis_h2c_tkeep),
        .s_axis_tvalid(s_axis_h2c_tvalid), .s_axis_tready(s_axis_h2c_tready),
        .s_axis_tlast(s_axis_h2c_tlast),
        .m_axis_tdata(s_axis_cmd_tdata), .m_axis_tvalid(s_axis_cmd_tvalid),
        .m_axis_tready(s_axis_cmd_tready), .m_axis_tlast(s_axis_cmd_tlast)
    );

    nandlab_axis_32to64 u_c2h (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_tdata(m_axis_rsp_tdata), .s_axis_tvalid(m_axis_rsp_tvalid),
        .s_axis_tready(m_axis_rsp_tready), .s_axis_tlast(m_axis_rsp_tlast),
        .m_axis_tdata(m_axis_c2h_tdata), .m_axis_tkeep(m_axis_c2h_tkeep),
        .m_axis_tvalid(m_axis_c2h_tvalid), .m_axis_tready(m_axis_c2h_tready),
        .m_axis_tlast(m_axis_c2h_tlast)
    );

    /* verilator lint_off UNUSEDSIGNAL */
    // the CSR window is 4 KiB of the user BAR
    wire [31:0] awaddr = s_axil_awaddr;
    wire [31:0] araddr = s_axil_araddr;
    /* verilator lint_on UNUSEDSIGNAL */

    nandlab_ctrl #(
        .NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS), .USE_XILINX_PRIMS(USE_XILINX_PRIMS)
    ) u_ctrl (
        .clk(axi_aclk), .rst(rst_q),
        .s_axil_awaddr(awaddr[11:0]), .s_axil_araddr(araddr[11:0]), .*
    );

endmodule

`default_nettype wire

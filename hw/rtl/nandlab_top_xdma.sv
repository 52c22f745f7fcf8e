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

module nandlab_top_xdma #(
    parameter int NUM_CE = 4,            // chip enables on the socket card
    parameter int CLK_PERIOD_PS = 8000   // axi_aclk period
) (
    input  wire              axi_aclk,
    input  wire              axi_aresetn,
    // H2C stream 0 (XDMA m_axis_h2c_0)
    input  wire [63:0]       s_axis_h2c_tdata,
    input  wire [7:0]        s_axis_h2c_tkeep,
    input  wire              s_axis_h2c_tvalid,
    output wire              s_axis_h2c_tready,
    input  wire              s_axis_h2c_tlast,
    // C2H stream 0 (XDMA s_axis_c2h_0)
    output wire [63:0]       m_axis_c2h_tdata,
    output wire [7:0]        m_axis_c2h_tkeep,
    output wire              m_axis_c2h_tvalid,
    input  wire              m_axis_c2h_tready,
    output wire              m_axis_c2h_tlast,
    // user BAR (XDMA m_axil)
    input  wire [31:0]       s_axil_awaddr,
    input  wire [2:0]        s_axil_awprot,
    input  wire              s_axil_awvalid,
    output wire              s_axil_awready,
    input  wire [31:0]       s_axil_wdata,
    input  wire [3:0]        s_axil_wstrb,
    input  wire              s_axil_wvalid,
    output wire              s_axil_wready,
    output wire [1:0]        s_axil_bresp,
    output wire              s_axil_bvalid,
    input  wire              s_axil_bready,
    input  wire [31:0]       s_axil_araddr,
    input  wire [2:0]        s_axil_arprot,
    input  wire              s_axil_arvalid,
    output wire              s_axil_arready,
    output wire [31:0]       s_axil_rdata,
    output wire [1:0]        s_axil_rresp,
    output wire              s_axil_rvalid,
    input  wire              s_axil_rready,
    // ONFI pins (to the IO buffers)
    output wire [NUM_CE-1:0] nand_ce_n,
    output wire              nand_cle,
    output wire              nand_ale,
    output wire              nand_we_n,
    output wire              nand_re_n,
    output wire              nand_wp_n,
    input  wire [NUM_CE-1:0] nand_rb_n,
    input  wire [7:0]        nand_dq_i,
    output wire [7:0]        nand_dq_o,
    output wire              nand_dq_oe
);
    reg rst_q;   // synchronous reset from the IP's reset
    always_ff @(posedge axi_aclk) rst_q <= !axi_aresetn;

    wire [31:0] cmd_tdata, rsp_tdata;
    wire        cmd_tvalid, cmd_tready, cmd_tlast, rsp_tvalid, rsp_tready, rsp_tlast;

    nandlab_axis_64to32 u_h2c (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_tdata(s_axis_h2c_tdata), .s_axis_tkeep(s_axis_h2c_tkeep),
        .s_axis_tvalid(s_axis_h2c_tvalid), .s_axis_tready(s_axis_h2c_tready),
        .s_axis_tlast(s_axis_h2c_tlast),
        .m_axis_tdata(cmd_tdata), .m_axis_tvalid(cmd_tvalid), .m_axis_tready(cmd_tready),
        .m_axis_tlast(cmd_tlast)
    );

    nandlab_axis_32to64 u_c2h (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_tdata(rsp_tdata), .s_axis_tvalid(rsp_tvalid), .s_axis_tready(rsp_tready),
        .s_axis_tlast(rsp_tlast),
        .m_axis_tdata(m_axis_c2h_tdata), .m_axis_tkeep(m_axis_c2h_tkeep),
        .m_axis_tvalid(m_axis_c2h_tvalid), .m_axis_tready(m_axis_c2h_tready),
        .m_axis_tlast(m_axis_c2h_tlast)
    );

    /* verilator lint_off UNUSEDSIGNAL */
    // the CSR window is 4 KiB of the user BAR
    wire [31:0] awaddr = s_axil_awaddr;
    wire [31:0] araddr = s_axil_araddr;
    /* verilator lint_on UNUSEDSIGNAL */

    nandlab_ctrl #(.NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS)) u_ctrl (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_cmd_tdata(cmd_tdata), .s_axis_cmd_tvalid(cmd_tvalid),
        .s_axis_cmd_tready(cmd_tready), .s_axis_cmd_tlast(cmd_tlast),
        .m_axis_rsp_tdata(rsp_tdata), .m_axis_rsp_tvalid(rsp_tvalid),
        .m_axis_rsp_tready(rsp_tready), .m_axis_rsp_tlast(rsp_tlast),
        .s_axil_awaddr(awaddr[11:0]), .s_axil_awprot(s_axil_awprot),
        .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
        .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready),
        .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready),
        .s_axil_araddr(araddr[11:0]), .s_axil_arprot(s_axil_arprot),
        .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
        .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
        .nand_ce_n(nand_ce_n), .nand_cle(nand_cle), .nand_ale(nand_ale),
        .nand_we_n(nand_we_n), .nand_re_n(nand_re_n), .nand_wp_n(nand_wp_n),
        .nand_rb_n(nand_rb_n), .nand_dq_i(nand_dq_i), .nand_dq_o(nand_dq_o),
        .nand_dq_oe(nand_dq_oe)
    );

endmodule

`default_nettype wire

// nandlab_kcu105: KCU105 board top: PCIe XDMA IP, nandlab_top_xdma, NAND pin buffers.
//
// Board-specific: instantiates the XDMA IP (xdma_0, created by build.tcl)
// and the NAND I/O buffers (DQ IOBUFs; RE_n / RE_c through an OBUFDS and
// DQS / DQS_c through an IOBUFDS for the differential NV-DDR2 modes), so it
// builds only in Vivado. The PHY's DQS delay (IDELAYE3) and DQS out (ODDRE1)
// are inside nandlab_top_xdma (USE_XILINX_PRIMS), as are the IOBUFs of the
// board CPU's I2C lines (CPU=1, docs/firmware.md).
//
// Clock / reset: PCIe reference clock and PERST# from the edge connector;
// everything else runs on the IP's axi_aclk.
`default_nettype none

module nandlab_kcu105 #(
    parameter CODE_HEX = ""   // the CPU's firmware image: build.tcl sets it (kcu105/cpu.tcl)
) (
    input  wire       pcie_refclk_p,
    input  wire       pcie_refclk_n,
    input  wire       pcie_perst_n,
    input  wire [3:0] pcie_rx_p,
    input  wire [3:0] pcie_rx_n,
    output wire [3:0] pcie_tx_p,
    output wire [3:0] pcie_tx_n,
    inout  wire       i2c_scl,    // power monitors, temperature sensor (pulled up on the card)
    inout  wire       i2c_sda,
    output wire       pwm,        // heater / TEC drive
    output wire       pwm_cool,   // TEC direction
    output wire [3:0] nand_ce_n,
    output wire       nand_cle,
    output wire       nand_ale,
    output wire       nand_we_n,
    output wire       nand_re_n,
    output wire       nand_re_c,
    inout  wire       nand_dqs,
    inout  wire       nand_dqs_c,
    output wire       nand_wp_n,
    input  wire [3:0] nand_rb_n,
    inout  wire [7:0] nand_dq
);
    wire refclk, refclk_gt, axi_aclk, axi_aresetn;

    IBUFDS_GTE3 u_refclk (.I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0),
                          .O(refclk_gt), .ODIV2(refclk));

    wire [63:0] h2c_tdata, c2h_tdata;
    wire [7:0]  h2c_tkeep, c2h_tkeep;
    wire        h2c_tvalid, h2c_tready, h2c_tlast, c2h_tvalid, c2h_tready, c2h_tlast;
    wire [31:0] axil_awaddr, axil_wdata, axil_araddr, axil_rdata;
    wire [2:0]  axil_awprot, axil_arprot;
    wire [3:0]  axil_wstrb;
    wire [1:0]  axil_bresp, axil_rresp;
    wire        axil_awvalid, axil_awready, axil_wvalid, axil_wready, axil_bvalid, axil_bready;
    wire        axil_arvalid, axil_arready, axil_rvalid, axil_rready;

    xdma_0 u_xdma (
        .sys_clk(refclk), .sys_clk_gt(refclk_gt), .sys_rst_n(pcie_perst_n),
        .pci_exp_rxp(pcie_rx_p), .pci_exp_rxn(pcie_rx_n),
        .pci_exp_txp(pcie_tx_p), .pci_exp_txn(pcie_tx_n),
        .axi_aclk(axi_aclk), .axi_aresetn(axi_aresetn),
        .usr_irq_req(1'b0), .usr_irq_ack(),
        .m_axis_h2c_tdata_0(h2c_tdata), .m_axis_h2c_tkeep_0(h2c_tkeep),
        .m_axis_h2c_tvalid_0(h2c_tvalid), .m_axis_h2c_tready_0(h2c_tready),
        .m_axis_h2c_tlast_0(h2c_tlast),
        .s_axis_c2h_tdata_0(c2h_tdata), .s_axis_c2h_tkeep_0(c2h_tkeep),
        .s_axis_c2h_tvalid_0(c2h_tvalid), .s_axis_c2h_tready_0(c2h_tready),
        .s_axis_c2h_tlast_0(c2h_tlast),
        .m_axil_awaddr(axil_awaddr), .m_axil_awprot(axil_awprot),
        .m_axil_awvalid(axil_awvalid), .m_axil_awready(axil_awready),
        .m_axil_wdata(axil_wdata), .m_axil_wstrb(axil_wstrb),
        .m_axil_wvalid(axil_wvalid), .m_axil_wready(axil_wready),
        .m_axil_bresp(axil_bresp), .m_axil_bvalid(axil_bvalid), .m_axil_bready(axil_bready),
        .m_axil_araddr(axil_araddr), .m_axil_arprot(axil_arprot),
        .m_axil_arvalid(axil_arvalid), .m_axil_arready(axil_arready),
        .m_axil_rdata(axil_rdata), .m_axil_rresp(axil_rresp),
        .m_axil_rvalid(axil_rvalid), .m_axil_rready(axil_rready)
    );

    wire [7:0] dq_i, dq_o;
    wire       dq_oe;

    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : g_dq
            IOBUF u_iobuf (.I(dq_o[i]), .T(!dq_oe), .O(dq_i[i]), .IO(nand_dq[i]));
        end
    endgenerate

    wire re_n, dqs_i, dqs_o, dqs_oe;

    OBUFDS u_re (.I(re_n), .O(nand_re_n), .OB(nand_re_c));
    IOBUFDS u_dqs (.I(dqs_o), .T(!dqs_oe), .O(dqs_i), .IO(nand_dqs), .IOB(nand_dqs_c));

    nandlab_top_xdma #(
        .NUM_CE(4), .CLK_PERIOD_PS(8000), .USE_XILINX_PRIMS(1'b1), .CPU(1'b1), .CODE_HEX(CODE_HEX)
    ) u_top (
        .axi_aclk(axi_aclk), .axi_aresetn(axi_aresetn),
        .s_axis_h2c_tdata(h2c_tdata), .s_axis_h2c_tkeep(h2c_tkeep),
        .s_axis_h2c_tvalid(h2c_tvalid), .s_axis_h2c_tready(h2c_tready),
        .s_axis_h2c_tlast(h2c_tlast),
        .m_axis_c2h_tdata(c2h_tdata), .m_axis_c2h_tkeep(c2h_tkeep),
        .m_axis_c2h_tvalid(c2h_tvalid), .m_axis_c2h_tready(c2h_tready),
        .m_axis_c2h_tlast(c2h_tlast),
        .s_axil_awaddr(axil_awaddr), .s_axil_awprot(axil_awprot),
        .s_axil_awvalid(axil_awvalid), .s_axil_awready(axil_awready),
        .s_axil_wdata(axil_wdata), .s_axil_wstrb(axil_wstrb),
        .s_axil_wvalid(axil_wvalid), .s_axil_wready(axil_wready),
        .s_axil_bresp(axil_bresp), .s_axil_bvalid(axil_bvalid), .s_axil_bready(axil_bready),
        .s_axil_araddr(axil_araddr), .s_axil_arprot(axil_arprot),
        .s_axil_arvalid(axil_arvalid), .s_axil_arready(axil_arready),
        .s_axil_rdata(axil_rdata), .s_axil_rresp(axil_rresp),
        .s_axil_rvalid(axil_rvalid), .s_axil_rready(axil_rready),
        .i2c_scl(i2c_scl), .i2c_sda(i2c_sda), .pwm(pwm), .pwm_cool(pwm_cool),
        .nand_ce_n(nand_ce_n), .nand_cle(nand_cle), .nand_ale(nand_ale),
        .nand_we_n(nand_we_n), .nand_re_n(re_n), .nand_wp_n(nand_wp_n),
        .nand_rb_n(nand_rb_n), .nand_dq_i(dq_i), .nand_dq_o(dq_o), .nand_dq_oe(dq_oe),
        .nand_dqs_i(dqs_i), .nand_dqs_o(dqs_o), .nand_dqs_oe(dqs_oe)
    );

endmodule

`default_nettype wire

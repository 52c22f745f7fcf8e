// nandlab_top_xdma: nandlab_ctrl behind the Xilinx XDMA IP (PCIe), user side.
//
// Ports are the XDMA IP's user-side interfaces in AXI-Stream mode: H2C
// channel 0 carries op programs, C2H channel 0 the result streams (64-bit
// beats, converted to the core's 32-bit words), the AXI-Lite user BAR
// (m_axil) reaches the CSR block. The XDMA IP itself and the ONFI pin
// buffers are instantiated in the Vivado flow (hw/vivado/); here the top
// lints and synthesises standalone.
//
// CPU=1 adds the board CPU (nandlab_cpu_sys, docs/firmware.md): the user BAR
// then goes through nandlab_cpu_bar (the CSR block shared with the CPU, the
// CPU_CTRL register, the shared RAM's host window), CPU_CTRL.STREAM_CPU gives
// the sequencer's streams to the CPU instead of H2C / C2H, and the CPU's I2C
// lines (open drain, pulled up on the board) and heater / TEC PWM are pins.
// With CPU=0 the BAR is the CSR block alone, the I2C lines float, PWM is low.
//
// Clock / reset: axi_aclk from the XDMA IP (125 MHz for a 64-bit Gen2 x4
// link, so CLK_PERIOD_PS = 8000), axi_aresetn active-low.
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_top_xdma #(
    parameter int NUM_CE = 4,            // chip enables on the socket card
    parameter int CLK_PERIOD_PS = 8000,  // axi_aclk period
    parameter bit USE_XILINX_PRIMS = 1'b0, // UltraScale I/O primitives (board builds)
    parameter bit CPU = 1'b0,             // the board CPU subsystem (KCU105 build: 1)
    parameter CODE_HEX = ""               // its firmware image (nandlab.firmware.image)
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
    // the board CPU's pins: I2C (power monitors, temperature sensor), heater / TEC
    inout  wire              i2c_scl,
    inout  wire              i2c_sda,
    output wire              pwm,
    output wire              pwm_cool,   // TEC direction: 1 = cooling
    // ONFI pins (to the IO buffers)
    `NANDLAB_ONFI_PINS(NUM_CE)
);
    reg rst_q;   // synchronous reset from the IP's reset
    always_ff @(posedge axi_aclk) rst_q <= !axi_aresetn;

    // the host's streams (XDMA side) and the sequencer's (nandlab_ctrl side)
    wire [31:0] h2c_tdata, c2h_tdata, cmd_tdata, rsp_tdata;
    wire        h2c_tvalid, h2c_tready, h2c_tlast, c2h_tvalid, c2h_tready, c2h_tlast;
    wire        cmd_tvalid, cmd_tready, cmd_tlast, rsp_tvalid, rsp_tready, rsp_tlast;

    nandlab_axis_64to32 u_h2c (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_tdata(s_axis_h2c_tdata), .s_axis_tkeep(s_axis_h2c_tkeep),
        .s_axis_tvalid(s_axis_h2c_tvalid), .s_axis_tready(s_axis_h2c_tready),
        .s_axis_tlast(s_axis_h2c_tlast),
        .m_axis_tdata(h2c_tdata), .m_axis_tvalid(h2c_tvalid),
        .m_axis_tready(h2c_tready), .m_axis_tlast(h2c_tlast)
    );

    nandlab_axis_32to64 u_c2h (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_tdata(c2h_tdata), .s_axis_tvalid(c2h_tvalid),
        .s_axis_tready(c2h_tready), .s_axis_tlast(c2h_tlast),
        .m_axis_tdata(m_axis_c2h_tdata), .m_axis_tkeep(m_axis_c2h_tkeep),
        .m_axis_tvalid(m_axis_c2h_tvalid), .m_axis_tready(m_axis_c2h_tready),
        .m_axis_tlast(m_axis_c2h_tlast)
    );

    // the CSR block's AXI4-Lite
    wire [11:0] c_awaddr, c_araddr;
    wire [2:0]  c_awprot, c_arprot;
    wire [31:0] c_wdata, c_rdata;
    wire [3:0]  c_wstrb;
    wire [1:0]  c_bresp, c_rresp;
    wire        c_awvalid, c_awready, c_wvalid, c_wready, c_bvalid, c_bready;
    wire        c_arvalid, c_arready, c_rvalid, c_rready;

    /* verilator lint_off UNUSEDSIGNAL */
    // CPU=0: the CSR window is 4 KiB of the user BAR; CPU=1: 32 KiB (nandlab_cpu_bar)
    wire [31:0] awaddr = s_axil_awaddr;
    wire [31:0] araddr = s_axil_araddr;
    /* verilator lint_on UNUSEDSIGNAL */

    generate
        if (CPU) begin : g_cpu
            wire        stream_cpu, soft_reset, trap;
            wire        csr_sel, csr_we, csr_ready, shared_we;
            wire [11:0] csr_addr, shared_addr;
            wire [31:0] csr_wdata, csr_rdata, shared_wdata, shared_rdata;
            wire [3:0]  csr_wstrb;
            wire [31:0] cpu_cmd_tdata;
            wire        cpu_cmd_tvalid, cpu_cmd_tlast, cpu_rsp_tready;
            wire        scl_i, sda_i, scl_oe, sda_oe;

            nandlab_cpu_bar u_bar (
                .clk(axi_aclk), .rst(rst_q),
                .s_axil_awaddr(awaddr[14:0]), .s_axil_awprot(s_axil_awprot),
                .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
                .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
                .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready),
                .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
                .s_axil_bready(s_axil_bready),
                .s_axil_araddr(araddr[14:0]), .s_axil_arprot(s_axil_arprot),
                .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
                .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
                .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
                .cpu_sel(csr_sel), .cpu_we(csr_we), .cpu_addr(csr_addr), .cpu_wdata(csr_wdata),
                .cpu_wstrb(csr_wstrb), .cpu_ready(csr_ready), .cpu_rdata(csr_rdata),
                .m_axil_awaddr(c_awaddr), .m_axil_awprot(c_awprot), .m_axil_awvalid(c_awvalid),
                .m_axil_awready(c_awready), .m_axil_wdata(c_wdata), .m_axil_wstrb(c_wstrb),
                .m_axil_wvalid(c_wvalid), .m_axil_wready(c_wready), .m_axil_bresp(c_bresp),
                .m_axil_bvalid(c_bvalid), .m_axil_bready(c_bready),
                .m_axil_araddr(c_araddr), .m_axil_arprot(c_arprot), .m_axil_arvalid(c_arvalid),
                .m_axil_arready(c_arready), .m_axil_rdata(c_rdata), .m_axil_rresp(c_rresp),
                .m_axil_rvalid(c_rvalid), .m_axil_rready(c_rready),
                .shared_we(shared_we), .shared_addr(shared_addr), .shared_wdata(shared_wdata),
                .shared_rdata(shared_rdata), .stream_cpu(stream_cpu), .soft_reset(soft_reset)
            );

            /* verilator lint_off UNUSEDSIGNAL */
            wire trap_unused = trap;  // a halted CPU shows as a mailbox that stops answering
            wire fetch;               // instruction fetches: the simulation harness profiles them
            wire [13:0] fetch_word;
            /* verilator lint_on UNUSEDSIGNAL */

            nandlab_cpu_sys #(.CODE_HEX(CODE_HEX)) u_sys (
                .clk(axi_aclk), .rst(rst_q), .trap(trap),
                .csr_sel(csr_sel), .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
                .csr_wstrb(csr_wstrb), .csr_ready(csr_ready), .csr_rdata(csr_rdata),
                .host_we(shared_we), .host_addr(shared_addr), .host_wdata(shared_wdata),
                .host_rdata(shared_rdata), .stream_flush(soft_reset),
                .m_axis_cmd_tdata(cpu_cmd_tdata), .m_axis_cmd_tvalid(cpu_cmd_tvalid),
                .m_axis_cmd_tready(stream_cpu && cmd_tready), .m_axis_cmd_tlast(cpu_cmd_tlast),
                .s_axis_rsp_tdata(rsp_tdata), .s_axis_rsp_tvalid(stream_cpu && rsp_tvalid),
                .s_axis_rsp_tready(cpu_rsp_tready), .s_axis_rsp_tlast(rsp_tlast),
                .i2c_scl_i(scl_i), .i2c_sda_i(sda_i), .i2c_scl_oe(scl_oe), .i2c_sda_oe(sda_oe),
                .pwm_o(pwm), .pwm_cool_o(pwm_cool), .fetch(fetch), .fetch_word(fetch_word)
            );

            // the sequencer's streams: the CPU's or the host's (CPU_CTRL.STREAM_CPU)
            assign cmd_tdata = stream_cpu ? cpu_cmd_tdata : h2c_tdata;
            assign cmd_tvalid = stream_cpu ? cpu_cmd_tvalid : h2c_tvalid;
            assign cmd_tlast = stream_cpu ? cpu_cmd_tlast : h2c_tlast;
            assign h2c_tready = !stream_cpu && cmd_tready;
            assign rsp_tready = stream_cpu ? cpu_rsp_tready : c2h_tready;
            assign c2h_tvalid = !stream_cpu && rsp_tvalid;

            // I2C: open drain, the board's pull-ups make a released line high
            if (USE_XILINX_PRIMS) begin : g_iobuf
                IOBUF u_scl (.I(1'b0), .T(!scl_oe), .O(scl_i), .IO(i2c_scl));
                IOBUF u_sda (.I(1'b0), .T(!sda_oe), .O(sda_i), .IO(i2c_sda));
            end else begin : g_tristate
`ifndef SYNTHESIS
                // the board's pull-ups, for simulation: a released line reads high
                pullup (i2c_scl);
                pullup (i2c_sda);
`endif
                assign i2c_scl = scl_oe ? 1'b0 : 1'bz;
                assign i2c_sda = sda_oe ? 1'b0 : 1'bz;
                assign scl_i = i2c_scl;
                assign sda_i = i2c_sda;
            end
        end else begin : g_host
            assign c_awaddr = awaddr[11:0];
            assign c_araddr = araddr[11:0];
            assign c_awprot = s_axil_awprot;
            assign c_arprot = s_axil_arprot;
            assign c_awvalid = s_axil_awvalid;
            assign s_axil_awready = c_awready;
            assign c_wdata = s_axil_wdata;
            assign c_wstrb = s_axil_wstrb;
            assign c_wvalid = s_axil_wvalid;
            assign s_axil_wready = c_wready;
            assign s_axil_bresp = c_bresp;
            assign s_axil_bvalid = c_bvalid;
            assign c_bready = s_axil_bready;
            assign c_arvalid = s_axil_arvalid;
            assign s_axil_arready = c_arready;
            assign s_axil_rdata = c_rdata;
            assign s_axil_rresp = c_rresp;
            assign s_axil_rvalid = c_rvalid;
            assign c_rready = s_axil_rready;
            assign cmd_tdata = h2c_tdata;
            assign cmd_tvalid = h2c_tvalid;
            assign cmd_tlast = h2c_tlast;
            assign h2c_tready = cmd_tready;
            assign rsp_tready = c2h_tready;
            assign c2h_tvalid = rsp_tvalid;
            assign i2c_scl = 1'bz;
            assign i2c_sda = 1'bz;
            assign pwm = 1'b0;
            assign pwm_cool = 1'b0;
        end
    endgenerate
    assign c2h_tdata = rsp_tdata;
    assign c2h_tlast = rsp_tlast;

    nandlab_ctrl #(
        .NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS), .USE_XILINX_PRIMS(USE_XILINX_PRIMS)
    ) u_ctrl (
        .clk(axi_aclk), .rst(rst_q),
        .s_axis_cmd_tdata(cmd_tdata), .s_axis_cmd_tvalid(cmd_tvalid),
        .s_axis_cmd_tready(cmd_tready), .s_axis_cmd_tlast(cmd_tlast),
        .m_axis_rsp_tdata(rsp_tdata), .m_axis_rsp_tvalid(rsp_tvalid),
        .m_axis_rsp_tready(rsp_tready), .m_axis_rsp_tlast(rsp_tlast),
        .s_axil_awaddr(c_awaddr), .s_axil_awprot(c_awprot), .s_axil_awvalid(c_awvalid),
        .s_axil_awready(c_awready), .s_axil_wdata(c_wdata), .s_axil_wstrb(c_wstrb),
        .s_axil_wvalid(c_wvalid), .s_axil_wready(c_wready), .s_axil_bresp(c_bresp),
        .s_axil_bvalid(c_bvalid), .s_axil_bready(c_bready),
        .s_axil_araddr(c_araddr), .s_axil_arprot(c_arprot), .s_axil_arvalid(c_arvalid),
        .s_axil_arready(c_arready), .s_axil_rdata(c_rdata), .s_axil_rresp(c_rresp),
        .s_axil_rvalid(c_rvalid), .s_axil_rready(c_rready),
        .nand_ce_n(nand_ce_n), .nand_cle(nand_cle), .nand_ale(nand_ale),
        .nand_we_n(nand_we_n), .nand_re_n(nand_re_n), .nand_wp_n(nand_wp_n),
        .nand_rb_n(nand_rb_n), .nand_dq_i(nand_dq_i), .nand_dq_o(nand_dq_o),
        .nand_dq_oe(nand_dq_oe), .nand_dqs_i(nand_dqs_i), .nand_dqs_o(nand_dqs_o),
        .nand_dqs_oe(nand_dqs_oe)
    );

endmodule

`default_nettype wire

// nandlab_top_fifo: nandlab_ctrl behind a 245-style synchronous FIFO (FTDI).
//
// FT2232H / FT232H (8-bit, 60 MHz) or FT601 (32-bit, 100 MHz) in synchronous
// FIFO mode. Reads and writes share the data bus: a read transaction turns
// the bus around (oe_n low one cycle before rd_n) and takes one FIFO word;
// a write drives the bus and pulses wr_n while txe_n is low. Writes go first
// so results drain before more program words come in. Framing of programs on
// the link: nandlab_fifo_packer. The CSR block is not reachable over this
// link; the core runs on its reset values (timing presets, no result limit).
//
// Clock / reset: clk is the FIFO clock and the core clock (CLK_PERIOD_PS must
// have presets: the FT601's 100 MHz does; an FT2232H's 60 MHz needs a PLL and
// clock-domain FIFOs, not built yet). rst active-high, synchronous.
`default_nettype none

module nandlab_top_fifo #(
    parameter int NUM_CE = 4,              // chip enables on the socket card
    parameter int CLK_PERIOD_PS = 10000,   // FIFO / core clock period
    parameter int FIFO_WIDTH = 32          // 8 or 32
) (
    input  wire                  clk,
    input  wire                  rst,
    // synchronous FIFO bus
    input  wire [FIFO_WIDTH-1:0] ft_data_i,
    output wire [FIFO_WIDTH-1:0] ft_data_o,
    output wire                  ft_data_oe,   // FPGA drives the data bus
    input  wire                  ft_rxf_n,     // data to read
    input  wire                  ft_txe_n,     // room to write
    output reg                   ft_rd_n,
    output reg                   ft_wr_n,
    output reg                   ft_oe_n,      // FIFO drives the data bus
    // ONFI pins
    output wire [NUM_CE-1:0]     nand_ce_n,
    output wire                  nand_cle,
    output wire                  nand_ale,
    output wire                  nand_we_n,
    output wire                  nand_re_n,
    output wire                  nand_wp_n,
    input  wire [NUM_CE-1:0]     nand_rb_n,
    input  wire [7:0]            nand_dq_i,
    output wire [7:0]            nand_dq_o,
    output wire                  nand_dq_oe
);
    localparam logic [2:0] B_IDLE = 3'd0;
    localparam logic [2:0] B_RD_OE = 3'd1;    // oe_n low: the FIFO takes the bus
    localparam logic [2:0] B_RD = 3'd2;       // rd_n low: word sampled at the next edge
    localparam logic [2:0] B_RD_END = 3'd3;   // bus released
    localparam logic [2:0] B_WR = 3'd4;       // wr_n low with data

    reg [2:0]            bus_q;
    reg [FIFO_WIDTH-1:0] rx_data_q;
    reg                  rx_valid_q;
    reg [FIFO_WIDTH-1:0] tx_data_q;
    reg                  tx_drive_q;

    wire [FIFO_WIDTH-1:0] tx_data;
    wire                  tx_valid, rx_ready;
    wire                  tx_take = bus_q == B_WR && !ft_txe_n;

    assign ft_data_o = tx_data_q;
    assign ft_data_oe = tx_drive_q;

    always_ff @(posedge clk) begin
        if (rx_valid_q && rx_ready) rx_valid_q <= 1'b0;
        case (bus_q)
            B_IDLE: begin
                if (tx_valid && !ft_txe_n) begin
                    tx_data_q <= tx_data;
                    tx_drive_q <= 1'b1;
                    ft_wr_n <= 1'b0;
                    bus_q <= B_WR;
                end else if (!ft_rxf_n && !rx_valid_q) begin
                    ft_oe_n <= 1'b0;
                    bus_q <= B_RD_OE;
                end
            end
            B_RD_OE: begin
                ft_rd_n <= 1'b0;
                bus_q <= B_RD;
            end
            B_RD: begin
                if (!ft_rxf_n) begin
                    rx_data_q <= ft_data_i;
                    rx_valid_q <= 1'b1;
                end
                ft_rd_n <= 1'b1;
                ft_oe_n <= 1'b1;
                bus_q <= B_RD_END;
            end
            B_RD_END: bus_q <= B_IDLE;
            default: begin  // B_WR: the word is written on an edge with wr_n and txe_n low
                if (!ft_txe_n) begin
                    ft_wr_n <= 1'b1;
                    tx_drive_q <= 1'b0;
                    bus_q <= B_IDLE;
                end
            end
        endcase
        if (rst) begin
            bus_q <= B_IDLE;
            rx_data_q <= '0;
            rx_valid_q <= 1'b0;
            tx_data_q <= '0;
            tx_drive_q <= 1'b0;
            ft_rd_n <= 1'b1;
            ft_wr_n <= 1'b1;
            ft_oe_n <= 1'b1;
        end
    end

    wire [31:0] cmd_tdata, rsp_tdata;
    wire        cmd_tvalid, cmd_tready, cmd_tlast, rsp_tvalid, rsp_tready, rsp_tlast;

    nandlab_fifo_packer #(.FIFO_WIDTH(FIFO_WIDTH)) u_packer (
        .clk(clk), .rst(rst),
        .rx_data(rx_data_q), .rx_valid(rx_valid_q), .rx_ready(rx_ready),
        .tx_data(tx_data), .tx_valid(tx_valid), .tx_ready(tx_take),
        .m_axis_cmd_tdata(cmd_tdata), .m_axis_cmd_tvalid(cmd_tvalid),
        .m_axis_cmd_tready(cmd_tready), .m_axis_cmd_tlast(cmd_tlast),
        .s_axis_rsp_tdata(rsp_tdata), .s_axis_rsp_tvalid(rsp_tvalid),
        .s_axis_rsp_tready(rsp_tready), .s_axis_rsp_tlast(rsp_tlast)
    );

    /* verilator lint_off UNUSEDSIGNAL */
    // CSR slave not reachable over the FIFO link: responses go nowhere
    wire        axil_awready, axil_wready, axil_bvalid, axil_arready, axil_rvalid;
    wire [1:0]  axil_bresp, axil_rresp;
    wire [31:0] axil_rdata;
    /* verilator lint_on UNUSEDSIGNAL */

    nandlab_ctrl #(.NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS)) u_ctrl (
        .clk(clk), .rst(rst),
        .s_axis_cmd_tdata(cmd_tdata), .s_axis_cmd_tvalid(cmd_tvalid),
        .s_axis_cmd_tready(cmd_tready), .s_axis_cmd_tlast(cmd_tlast),
        .m_axis_rsp_tdata(rsp_tdata), .m_axis_rsp_tvalid(rsp_tvalid),
        .m_axis_rsp_tready(rsp_tready), .m_axis_rsp_tlast(rsp_tlast),
        .s_axil_awaddr(12'd0), .s_axil_awprot(3'd0), .s_axil_awvalid(1'b0),
        .s_axil_awready(axil_awready),
        .s_axil_wdata(32'd0), .s_axil_wstrb(4'd0), .s_axil_wvalid(1'b0),
        .s_axil_wready(axil_wready),
        .s_axil_bresp(axil_bresp), .s_axil_bvalid(axil_bvalid), .s_axil_bready(1'b1),
        .s_axil_araddr(12'd0), .s_axil_arprot(3'd0), .s_axil_arvalid(1'b0),
        .s_axil_arready(axil_arready),
        .s_axil_rdata(axil_rdata), .s_axil_rresp(axil_rresp), .s_axil_rvalid(axil_rvalid),
        .s_axil_rready(1'b1),
        .nand_ce_n(nand_ce_n), .nand_cle(nand_cle), .nand_ale(nand_ale),
        .nand_we_n(nand_we_n), .nand_re_n(nand_re_n), .nand_wp_n(nand_wp_n),
        .nand_rb_n(nand_rb_n), .nand_dq_i(nand_dq_i), .nand_dq_o(nand_dq_o),
        .nand_dq_oe(nand_dq_oe)
    );

endmodule

`default_nettype wire

// nandlab_top_fifo: nandlab_core behind a 245-style synchronous FIFO (FTDI).
//
// FT2232H / FT232H (8-bit, 60 MHz) or FT601 (32-bit, 100 MHz) in synchronous
// FIFO mode. Reads and writes share the data bus: a read transaction turns
// the bus around (oe_n low one cycle before rd_n) and takes one FIFO word;
// a write drives the bus and pulses wr_n while txe_n is low. Writes go first
// so results drain before more program words come in. Framing of programs on
// the link: nandlab_fifo_packer. No CSR block: it would not be reachable over
// this link, so the core runs on the CSR reset values (timing presets, no
// result limit).
//
// Clock / reset: clk is the FIFO clock and the core clock (CLK_PERIOD_PS must
// have presets: the FT601's 100 MHz does; an FT2232H's 60 MHz needs a PLL and
// clock-domain FIFOs, not built yet). rst active-high, synchronous.
`default_nettype none

`include "nandlab_ports.svh"

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
    `NANDLAB_ONFI_PINS(NUM_CE)
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

    // named after the nandlab_core ports they feed, so u_core connects them by name
    wire [31:0] s_axis_cmd_tdata, m_axis_rsp_tdata;
    wire        s_axis_cmd_tvalid, s_axis_cmd_tready, s_axis_cmd_tlast;
    wire        m_axis_rsp_tvalid, m_axis_rsp_tready, m_axis_rsp_tlast;

    nandlab_fifo_packer #(.FIFO_WIDTH(FIFO_WIDTH)) u_packer (
        .rx_data(rx_data_q), .rx_valid(rx_valid_q), .rx_ready(rx_ready),
        .tx_data(tx_data), .tx_valid(tx_valid), .tx_ready(tx_take),
        .m_axis_cmd_tdata(s_axis_cmd_tdata), .m_axis_cmd_tvalid(s_axis_cmd_tvalid),
        .m_axis_cmd_tready(s_axis_cmd_tready), .m_axis_cmd_tlast(s_axis_cmd_tlast),
        .s_axis_rsp_tdata(m_axis_rsp_tdata), .s_axis_rsp_tvalid(m_axis_rsp_tvalid),
        .s_axis_rsp_tready(m_axis_rsp_tready), .s_axis_rsp_tlast(m_axis_rsp_tlast),
        .*
    );

    // the CSR reset values: timing presets, no result limit; status and
    // counters are CSRs too, with nowhere to be read
    /* verilator lint_off PINCONNECTEMPTY */
    nandlab_core #(.NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS)) u_core (
        .csr_timing_override(1'b0), .csr_timing(152'd0), .csr_rsp_limit(32'd0),
        .csr_clear_counters(1'b0), .csr_dqs_delay(9'd0),
        .status_state(), .status_running(), .status_timing_mode(), .status_interface(),
        .status_last_error(),
        .status_gpio(), .status_rb(), .cnt_programs(), .cnt_errors(), .cnt_busy_cycles(),
        .*
    );
    /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire

// nandlab_fifo_packer: FIFO-link words <-> 32-bit stream words, with framing.
//
// Receive: FIFO words (8 or 32 bits, LSB first) become 32-bit words. A byte
// link has no packet boundary, so the host frames each program: one word
// holding the program's word count N, then the N program words; the last
// one goes out with tlast. N = 0 is skipped.
// Transmit: 32-bit result words become FIFO words, LSB first (tlast drops:
// the END record closes a result stream).
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_fifo_packer #(
    parameter int FIFO_WIDTH = 8   // FIFO data width: 8 (FT2232H / FT232H) or 32 (FT601)
) (
    input  wire                  clk,
    input  wire                  rst,
    // from the FIFO bus
    input  wire [FIFO_WIDTH-1:0] rx_data,
    input  wire                  rx_valid,
    output wire                  rx_ready,
    // to the FIFO bus
    output wire [FIFO_WIDTH-1:0] tx_data,
    output wire                  tx_valid,
    input  wire                  tx_ready,
    // program words out
    `NANDLAB_AXIS_OUT(m_axis_cmd, 32),
    // result words in (s_axis_rsp_tlast is not carried by the link)
    /* verilator lint_off UNUSEDSIGNAL */
    `NANDLAB_AXIS_IN(s_axis_rsp, 32)
    /* verilator lint_on UNUSEDSIGNAL */
);
    localparam int PARTS = 32 / FIFO_WIDTH;
    localparam int PW = PARTS > 1 ? $clog2(PARTS) : 1;

    // ---------------------------------------------------------------- receive
    reg [31:0]   rx_word_q;
    reg [PW-1:0] rx_part_q;
    reg          rx_full_q;     // rx_word_q holds a whole word
    reg          have_len_q;    // inside a frame
    reg [31:0]   left_q;        // words left in the frame

    wire [31:0] rx_shifted;   // rx_word_q with the new part entering at the top
    generate
        if (PARTS > 1) begin : g_pack
            assign rx_shifted = {rx_data, rx_word_q[31:FIFO_WIDTH]};
        end else begin : g_word
            assign rx_shifted = rx_data;
        end
    endgenerate
    wire        word_out = rx_full_q && have_len_q;

    assign rx_ready = !rx_full_q;
    assign m_axis_cmd_tdata = rx_word_q;
    assign m_axis_cmd_tvalid = word_out;
    assign m_axis_cmd_tlast = left_q == 32'd1;

    always_ff @(posedge clk) begin
        if (rx_valid && rx_ready) begin
            rx_word_q <= rx_shifted;
            rx_part_q <= rx_part_q + 1'b1;
            if (rx_part_q == PW'(PARTS - 1)) begin
                rx_part_q <= '0;
                rx_full_q <= 1'b1;
            end
        end
        if (rx_full_q && !have_len_q) begin
            rx_full_q <= 1'b0;
            have_len_q <= rx_word_q != 32'd0;
            left_q <= rx_word_q;
        end
        if (word_out && m_axis_cmd_tready) begin
            rx_full_q <= 1'b0;
            left_q <= left_q - 32'd1;
            if (left_q == 32'd1) have_len_q <= 1'b0;
        end
        if (rst) begin
            rx_word_q <= 32'd0;
            rx_part_q <= '0;
            rx_full_q <= 1'b0;
            have_len_q <= 1'b0;
            left_q <= 32'd0;
        end
    end

    // ---------------------------------------------------------------- transmit
    reg [31:0]   tx_word_q;
    reg [PW-1:0] tx_part_q;
    reg          tx_busy_q;

    assign s_axis_rsp_tready = !tx_busy_q;
    assign tx_data = tx_word_q[FIFO_WIDTH-1:0];
    assign tx_valid = tx_busy_q;

    always_ff @(posedge clk) begin
        if (s_axis_rsp_tvalid && s_axis_rsp_tready) begin
            tx_word_q <= s_axis_rsp_tdata;
            tx_part_q <= '0;
            tx_busy_q <= 1'b1;
        end else if (tx_valid && tx_ready) begin
            tx_word_q <= tx_word_q >> FIFO_WIDTH;
            tx_part_q <= tx_part_q + 1'b1;
            if (tx_part_q == PW'(PARTS - 1)) tx_busy_q <= 1'b0;
        end
        if (rst) begin
            tx_word_q <= 32'd0;
            tx_part_q <= '0;
            tx_busy_q <= 1'b0;
        end
    end

endmodule

`default_nettype wire

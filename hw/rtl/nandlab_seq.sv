// nandlab_seq: op program sequencer (contract 1, hw/rtl/nandlab_ops_pkg.sv).
//
// Reads an op program from the 32-bit command stream, runs each instruction
// on the PHY as it arrives and writes the tagged result stream: DATA, BUSY,
// ERRCNT, POWER (0 samples: no current monitor), MARK, ERROR and END records,
// with tlast on the END record's last word. A program ends at its END
// instruction, whose word must carry tlast.
//
// Errors stop the program with one ERROR record (code, instruction index),
// then the rest of the program (up to tlast) is discarded and END follows, so
// the next program starts clean. TRUNCATED: tlast inside an instruction, or a
// complete instruction with tlast that is not END (the index is the missing
// END's). OVERFLOW: a record that, with the closing ERROR and END, would pass
// `rsp_limit` words (0 = no limit). BUSY is the die's whole busy time (see
// nandlab_seq_bus).
//
// Three parts: nandlab_seq_decode checks instruction headers,
// nandlab_seq_bus runs the instructions, nandlab_seq_rsp packs the records
// into the result stream and applies rsp_limit.
//
// Clock / reset: clk, rst (active-high, synchronous; also aborts a program).
`default_nettype none

module nandlab_seq #(
    parameter int NUM_CE = 4,             // chip enables (targets 0..NUM_CE-1)
    parameter int CLK_PERIOD_PS = 10000   // clock period, a whole number of ns
) (
    input  wire              clk,
    input  wire              rst,
    // op program in
    input  wire [31:0]       s_axis_cmd_tdata,
    input  wire              s_axis_cmd_tvalid,
    output wire              s_axis_cmd_tready,
    input  wire              s_axis_cmd_tlast,
    // result stream out
    output wire [31:0]       m_axis_rsp_tdata,
    output wire              m_axis_rsp_tvalid,
    input  wire              m_axis_rsp_tready,
    output wire              m_axis_rsp_tlast,
    // PHY
    output wire              phy_req_valid,
    input  wire              phy_req_ready,
    output wire [1:0]        phy_req_kind,
    output wire [7:0]        phy_req_data,
    input  wire              phy_rd_valid,
    input  wire [7:0]        phy_rd_data,
    input  wire              phy_idle,
    input  wire              phy_wb_done,
    output wire [NUM_CE-1:0] ce_sel,          // selected target, one-hot (0 between programs)
    input  wire [NUM_CE-1:0] rb_n,            // synchronised R/B# per target
    // control and status
    input  wire [31:0]       rsp_limit,       // most result words per program, 0 = no limit
    input  wire              clear_counters,
    output wire [4:0]        status_state,
    output wire              status_running,
    output wire [3:0]        status_timing_mode,
    output wire [7:0]        status_last_error,
    output wire [7:0]        gpio,            // bit 0 WP#, bits 7:1 supply enables
    output wire [31:0]       cnt_programs,
    output wire [31:0]       cnt_errors,
    output wire [63:0]       cnt_busy_cycles
);
    wire [7:0]  hdr_err;
    wire [1:0]  hdr_nargs;
    wire        ce_valid, window_open;
    wire        rec_start, rec_fits, rec_emit, rec_done;
    wire [31:0] rec_hdr, rec_w1, rec_w2;
    wire        word_valid, push_ready;
    wire [31:0] word_data;

    nandlab_seq_decode #(.NUM_CE(NUM_CE)) u_decode (
        .hdr(s_axis_cmd_tdata), .hdr_last(s_axis_cmd_tlast),
        .ce_valid(ce_valid), .window_open(window_open),
        .err(hdr_err), .nargs(hdr_nargs)
    );

    nandlab_seq_bus #(.NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS)) u_bus (
        .clk(clk), .rst(rst),
        .s_axis_cmd_tdata(s_axis_cmd_tdata), .s_axis_cmd_tvalid(s_axis_cmd_tvalid),
        .s_axis_cmd_tready(s_axis_cmd_tready), .s_axis_cmd_tlast(s_axis_cmd_tlast),
        .ce_valid(ce_valid), .window_open(window_open),
        .hdr_err(hdr_err), .hdr_nargs(hdr_nargs),
        .rec_start(rec_start), .rec_hdr(rec_hdr), .rec_w1(rec_w1), .rec_w2(rec_w2),
        .rec_fits(rec_fits), .rec_emit(rec_emit), .rec_done(rec_done),
        .word_valid(word_valid), .word_data(word_data), .push_ready(push_ready),
        .phy_req_valid(phy_req_valid), .phy_req_ready(phy_req_ready),
        .phy_req_kind(phy_req_kind), .phy_req_data(phy_req_data),
        .phy_rd_valid(phy_rd_valid), .phy_rd_data(phy_rd_data),
        .phy_idle(phy_idle), .phy_wb_done(phy_wb_done), .ce_sel(ce_sel), .rb_n(rb_n),
        .clear_counters(clear_counters),
        .status_state(status_state), .status_running(status_running),
        .status_timing_mode(status_timing_mode), .status_last_error(status_last_error),
        .gpio(gpio), .cnt_programs(cnt_programs), .cnt_errors(cnt_errors),
        .cnt_busy_cycles(cnt_busy_cycles)
    );

    nandlab_seq_rsp u_rsp (
        .clk(clk), .rst(rst), .rsp_limit(rsp_limit),
        .rec_start(rec_start), .rec_hdr(rec_hdr), .rec_w1(rec_w1), .rec_w2(rec_w2),
        .rec_fits(rec_fits), .rec_emit(rec_emit), .rec_done(rec_done),
        .word_valid(word_valid), .word_data(word_data), .push_ready(push_ready),
        .m_axis_rsp_tdata(m_axis_rsp_tdata), .m_axis_rsp_tvalid(m_axis_rsp_tvalid),
        .m_axis_rsp_tready(m_axis_rsp_tready), .m_axis_rsp_tlast(m_axis_rsp_tlast)
    );

endmodule

`default_nettype wire

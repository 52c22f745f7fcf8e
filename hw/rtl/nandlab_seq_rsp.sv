// nandlab_seq_rsp: result stream packer of the sequencer (contract 1,
// hw/rtl/nandlab_ops_pkg.sv), and the one place that applies RSP_LIMIT.
//
// A record starts with its header word and up to two fixed words
// (rec_start); while rec_emit is high they go out one per accepted beat, and
// rec_done marks the beat of the last one. The record's tag says how many
// fixed words it has (DATA 1, ERRCNT / BUSY / POWER / ERROR 2, MARK / END 3);
// the payload of DATA (packed bytes) and ERRCNT (count pairs) follows as
// single words (word_valid, only when push_ready). tlast goes with the last
// word of END, which also restarts the per-program word count.
//
// RSP_LIMIT: rec_fits says whether the record offered on rec_hdr, whole
// (header, fixed words and the payload its header announces), still leaves
// room for the closing ERROR (2 words) and END (3 words) within rsp_limit
// words of this program (0 = no limit).
//
// Clock / reset: clk, rst (active-high, synchronous). No parameters.
`default_nettype none

module nandlab_seq_rsp (
    input  wire        clk,
    input  wire        rst,
    input  wire [31:0] rsp_limit,        // most result words per program, 0 = no limit
    // records
    input  wire        rec_start,        // load rec_hdr / rec_w1 / rec_w2
    input  wire [31:0] rec_hdr,          // tag [31:24], argument [23:0]
    input  wire [31:0] rec_w1,
    input  wire [31:0] rec_w2,
    output wire        rec_fits,         // the record on rec_hdr fits under rsp_limit
    input  wire        rec_emit,         // send the loaded record's fixed words
    output wire        rec_done,         // its last fixed word is sent this cycle
    // payload words
    input  wire        word_valid,
    input  wire [31:0] word_data,
    output wire        push_ready,       // a word given now is taken
    // result stream out
    output wire [31:0] m_axis_rsp_tdata,
    output wire        m_axis_rsp_tvalid,
    input  wire        m_axis_rsp_tready,
    output wire        m_axis_rsp_tlast
);
    reg [31:0] rec0_q, rec1_q, rec2_q;
    reg [1:0]  rec_n_q, rec_i_q;
    reg        rec_last_q;
    reg [31:0] words_out_q;
    reg [31:0] rsp_data_q;
    reg        rsp_valid_q, rsp_last_q;

    wire [7:0]  tag = rec_hdr[31:24];
    wire [33:0] n = {10'd0, rec_hdr[23:0]};
    reg  [33:0] rec_words;           // the whole record offered on rec_hdr
    reg  [1:0]  fixed_words;         // of which header and fixed words

    always_comb begin
        case (tag)
            nandlab_ops_pkg::RES_DATA: begin
                rec_words = 34'd1 + ((n + 34'd3) >> 2);
                fixed_words = 2'd1;
            end
            nandlab_ops_pkg::RES_ERRCNT: begin
                rec_words = 34'd2 + (n << 1);
                fixed_words = 2'd2;
            end
            nandlab_ops_pkg::RES_POWER: begin
                rec_words = 34'd2 + n;
                fixed_words = 2'd2;
            end
            nandlab_ops_pkg::RES_MARK, nandlab_ops_pkg::RES_END: begin
                rec_words = 34'd3;
                fixed_words = 2'd3;
            end
            default: begin   // BUSY, ERROR
                rec_words = 34'd2;
                fixed_words = 2'd2;
            end
        endcase
    end

    assign rec_fits = rsp_limit == 32'd0 ||
                      {2'b00, words_out_q} + rec_words + 34'd5 <= {2'b00, rsp_limit};

    wire can_push = !rsp_valid_q || m_axis_rsp_tready;
    wire rec_push = rec_emit && can_push;
    wire rec_end = rec_i_q == rec_n_q - 2'd1;
    wire [31:0] rec_word = rec_i_q == 2'd0 ? rec0_q : rec_i_q == 2'd1 ? rec1_q : rec2_q;

    assign push_ready = can_push;
    assign rec_done = rec_push && rec_end;
    assign m_axis_rsp_tdata = rsp_data_q;
    assign m_axis_rsp_tvalid = rsp_valid_q;
    assign m_axis_rsp_tlast = rsp_last_q;

    always_ff @(posedge clk) begin
        if (rsp_valid_q && m_axis_rsp_tready) rsp_valid_q <= 1'b0;
        if (rec_start) begin
            rec0_q <= rec_hdr;
            rec1_q <= rec_w1;
            rec2_q <= rec_w2;
            rec_n_q <= fixed_words;
            rec_i_q <= 2'd0;
            rec_last_q <= tag == nandlab_ops_pkg::RES_END;
        end
        if (rec_push || word_valid) begin
            rsp_data_q <= rec_push ? rec_word : word_data;
            rsp_valid_q <= 1'b1;
            rsp_last_q <= rec_push && rec_last_q && rec_end;
            words_out_q <= rec_push && rec_last_q && rec_end ? 32'd0 :
                           &words_out_q ? words_out_q : words_out_q + 32'd1;
        end
        if (rec_push) rec_i_q <= rec_i_q + 2'd1;

        if (rst) begin
            rec0_q <= 32'd0;
            rec1_q <= 32'd0;
            rec2_q <= 32'd0;
            rec_n_q <= 2'd0;
            rec_i_q <= 2'd0;
            rec_last_q <= 1'b0;
            words_out_q <= 32'd0;
            rsp_data_q <= 32'd0;
            rsp_valid_q <= 1'b0;
            rsp_last_q <= 1'b0;
        end
    end

endmodule

`default_nettype wire

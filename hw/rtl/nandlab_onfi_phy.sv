// nandlab_onfi_phy: ONFI SDR bus cycles and NV-DDR2 / NV-DDR3 / Toggle DDR
// data bursts, with run-time timing.
//
// Runs one bus cycle per request: a command latch (CLE), an address latch
// (ALE), a data-in write (WE#) or a data-out read (RE#). Every time is a
// count of clock cycles from `timing` (nandlab_timing_pkg layout), so any SDR
// mode runs at any clock the presets cover. Turnarounds are enforced here:
// tWHR (WE# high to RE# low), tRHW (RE# high to WE# low, which also covers
// tRHZ before DQ is driven again), tADL (address to data in), tCS (CE# low to
// strobe), tCCS after a column change (command E0h before a read, command 85h
// + address before data in), tIR (DQ released before RE# low), tWW (WP#
// change before WE# low) and tWB: a command or a read waits tWB after any WE#
// rise, so a cycle that started a busy period (a confirm, a RESET, the last
// SET FEATURES parameter...) is never followed within tWB, whether the op
// program waits on R/B# or polls status straight away. Holds (tCLH, tALH,
// tDH, tCH) are met by the WE# high phase, which is at least tWH; CLE and ALE
// fall when it ends, so they are low long before a later read (tCLR, tAR)
// whatever waits come in between.
//
// Back to back: the next request is taken in the last cycle of the strobe's
// high phase and, when no turnaround applies, its strobe falls on the next
// edge, so a stream of same-kind cycles runs at exactly tWC / tRC.
//
// DQ is captured T_REA clocks after RE# falls, whatever RE# does meanwhile:
// the generated presets (nandlab.hwgen.timing.read_plan) choose RE# low / high
// and the capture point so that it sits inside the die's data-valid window
// (tREA after the fall until tRHOH after the rise, or tRLOH after the next
// fall) with margin on both sides. A CSR override must keep that true; the
// capture never comes after the next RE# fall (the high phase is stretched).
// `wb_done` tells that tWB has passed since the last WE# rise, so R/B# is
// valid.
//
// DDR interfaces (`ddr`): commands and addresses stay WE# cycles as above
// (with the DDR preset's times); DIN and DOUT become DQS-strobed bursts, one
// byte per edge, at most one byte a clock. A read burst drops RE# for the
// preamble (T_RPRE), then each DOUT request is one RE# edge T_BIT clocks
// after the last; the die answers each edge with a DQS edge carrying a byte,
// which nandlab_ddr_io captures with the delayed strobe; captured bytes come
// out on rd_valid as the sequencer takes them (`rd_ready`). A write burst
// drives DQS low for the preamble (T_WPRE), then each DIN request puts its
// byte on DQ and a DQS edge half a transfer later (centre-aligned). A burst
// pauses (strobe held) while `burst_hold` says the instruction has more
// bytes, and closes when it ends: postamble (T_RPST / T_WPST) with the strobe
// held, then, when the strobe was left low (RE#) or high (DQS), one more edge
// to park it: the die answers a parking RE# rise with a byte the PHY drops,
// and latches the held byte again on a parking DQS fall; then the postamble
// hold (T_RPSTH / T_WPSTH). One instruction is one burst.
//
// Repeated bytes (`ddr_repeat`: NV-DDR2 / NV-DDR3, not Toggle): ONFI sends
// each data byte of SET FEATURES (EFh) and ODT CONFIGURE (E2h) input and of
// GET FEATURES (EEh), READ ID (90h) and READ STATUS (70h, 78h) output twice,
// on both edges of a strobe period (the list is REPEAT_BYTE_CMDS, generated
// from nandlab.onfi_spec.ddr_features). After such a command every DIN
// request goes out on two DQS edges and every DOUT request takes two RE#
// edges, of which the first copy is kept, so the sequencer and the op program
// see each byte once. Any other command ends it (READ STATUS then 00h returns
// to page data). Page data, the parameter page and the unique ID are single.
//
// Warm-up (`warmup`, the codes of SET FEATURES 02h P2 the TIMING instruction
// carries: 0, 1, 2 or 4 cycles): each burst opens, after its preamble, with
// that many strobe periods that carry no data: two RE# edges per cycle whose
// bytes are dropped, or two DQS edges with DQ not yet meaningful. A burst that
// pauses (strobe held) does not warm up again.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_onfi_phy #(
    parameter int NUM_CE = 4,        // chip enables
    parameter int TAP_PS = 10,       // ps per capture-delay tap (simulation model)
    parameter bit USE_XILINX_PRIMS = 1'b0   // UltraScale I/O primitives (synthesis)
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [151:0]      timing,       // active timing, cycles per field
    input  wire              ddr,          // DDR interface: DIN / DOUT are bursts (change only when idle)
    input  wire              ddr_repeat,   // NV-DDR2 / NV-DDR3: some commands' bytes go twice
    input  wire [3:0]        warmup,       // warm-up codes {data in [3:2], data out [1:0]}
    input  wire [55:0]       ddr_timing,   // burst fields T_BIT .. T_WPSTH
    input  wire              burst_hold,   // the current data instruction has more bytes
    input  wire              rd_ready,     // DDR: the sequencer can take a read byte
    input  wire [8:0]        dqs_delay,    // DDR read capture delay, taps
    input  wire [NUM_CE-1:0] ce_sel,       // selected targets (one-hot or 0); change only when idle
    input  wire              req_valid,
    output wire              req_ready,
    input  wire [1:0]        req_kind,     // KIND_*
    input  wire [7:0]        req_data,     // byte to latch / write
    output reg               rd_valid,     // one-cycle pulse: rd_data holds a read byte
    output reg  [7:0]        rd_data,
    output wire              idle,         // no bus cycle in progress
    output wire              wb_done,      // tWB passed since the last WE# rise
    input  wire              wp_n,         // WP# as driven on the pin (tWW before a WE# fall)
    output reg  [NUM_CE-1:0] nand_ce_n,
    output reg               nand_cle,
    output reg               nand_ale,
    output reg               nand_we_n,
    output reg               nand_re_n,
    input  wire [7:0]        nand_dq_i,
    output reg  [7:0]        nand_dq_o,
    output reg               nand_dq_oe,
    input  wire              nand_dqs_i,
    output wire              nand_dqs_o,
    output reg               nand_dqs_oe
);
    localparam logic [1:0] KIND_CMD = 2'd0;
    localparam logic [1:0] KIND_ADDR = 2'd1;
    localparam logic [1:0] KIND_DIN = 2'd2;
    localparam logic [1:0] KIND_DOUT = 2'd3;

    localparam logic [1:0] S_IDLE = 2'd0;
    localparam logic [1:0] S_GAP = 2'd1;
    localparam logic [1:0] S_LOW = 2'd2;
    localparam logic [1:0] S_HIGH = 2'd3;

    function automatic [7:0] field(input [151:0] t, input integer i);
        field = t[8*i +: 8];
    endfunction

    function automatic [7:0] max8(input [7:0] a, input [7:0] b);
        max8 = a > b ? a : b;
    endfunction

    wire [7:0] t_wp = field(timing, nandlab_timing_pkg::T_WP);
    wire [7:0] t_wh = field(timing, nandlab_timing_pkg::T_WH);
    wire [7:0] t_wc = field(timing, nandlab_timing_pkg::T_WC);
    wire [7:0] t_ds = field(timing, nandlab_timing_pkg::T_DS);
    wire [7:0] t_rp = field(timing, nandlab_timing_pkg::T_RP);
    wire [7:0] t_reh = field(timing, nandlab_timing_pkg::T_REH);
    wire [7:0] t_rc = field(timing, nandlab_timing_pkg::T_RC);
    wire [7:0] t_rea = field(timing, nandlab_timing_pkg::T_REA);
    wire [7:0] t_cls = field(timing, nandlab_timing_pkg::T_CLS);
    wire [7:0] t_als = field(timing, nandlab_timing_pkg::T_ALS);
    wire [7:0] t_cs = field(timing, nandlab_timing_pkg::T_CS);
    wire [7:0] t_dh = field(timing, nandlab_timing_pkg::T_DH);
    wire [7:0] t_wb = field(timing, nandlab_timing_pkg::T_WB);
    wire [7:0] t_whr = field(timing, nandlab_timing_pkg::T_WHR);
    wire [7:0] t_rhw = field(timing, nandlab_timing_pkg::T_RHW);
    wire [7:0] t_adl = field(timing, nandlab_timing_pkg::T_ADL);
    wire [7:0] t_ccs = field(timing, nandlab_timing_pkg::T_CCS);
    wire [7:0] t_ir = field(timing, nandlab_timing_pkg::T_IR);
    wire [7:0] t_ww = field(timing, nandlab_timing_pkg::T_WW);
    localparam int DB = nandlab_timing_pkg::TIMING_FIELDS;   // first burst field
    wire [7:0] t_bit = ddr_timing[8*(nandlab_timing_pkg::T_BIT - DB) +: 8];
    wire [7:0] t_rpre = ddr_timing[8*(nandlab_timing_pkg::T_RPRE - DB) +: 8];
    wire [7:0] t_rpst = ddr_timing[8*(nandlab_timing_pkg::T_RPST - DB) +: 8];
    wire [7:0] t_rpsth = ddr_timing[8*(nandlab_timing_pkg::T_RPSTH - DB) +: 8];
    wire [7:0] t_wpre = ddr_timing[8*(nandlab_timing_pkg::T_WPRE - DB) +: 8];
    wire [7:0] t_wpst = ddr_timing[8*(nandlab_timing_pkg::T_WPST - DB) +: 8];
    wire [7:0] t_wpsth = ddr_timing[8*(nandlab_timing_pkg::T_WPSTH - DB) +: 8];

    reg [1:0] state_q;
    reg [1:0] kind_q;
    reg [7:0] data_q;
    reg [7:0] cnt_q;        // cycles left in the current phase
    reg [7:0] high_q;       // length of the coming high phase
    reg [7:0] cap_q;        // cycles left to the DQ sample
    reg       cap_armed_q;  // a read's DQ sample is pending
    reg [7:0] since_we_q;   // cycles since WE# rose (saturating)
    reg [7:0] since_re_q;   // cycles since RE# rose (saturating)
    reg [7:0] since_ce_q;   // cycles since CE# changed (saturating)
    reg [7:0] since_oe_q;   // cycles since DQ was released (saturating)
    reg [7:0] since_wp_q;   // cycles since WP# changed (saturating)
    reg       wp_q;
    reg [1:0] last_kind_q;  // kind of the last write cycle
    reg       ccs_q;        // a column change is pending (E0h / 85h seen)
    reg       rep_q;        // the last command's data bytes are repeated (DDR)
    reg       rep_pend_q;   // the second edge of a repeated byte is still to go
    reg [3:0] warm_q;       // warm-up edges still to go in this burst
    reg [NUM_CE-1:0] ce_q;

    // ------------------------------------------------------------ DDR bursts
    localparam logic [2:0] B_OFF = 3'd0;
    localparam logic [2:0] B_RPRE = 3'd1;    // RE# low, first edge not yet
    localparam logic [2:0] B_RD = 3'd2;      // read burst open
    localparam logic [2:0] B_RPST = 3'd3;    // read postamble (RE# held)
    localparam logic [2:0] B_POSTH = 3'd4;   // postamble hold, strobe parked
    localparam logic [2:0] B_WPRE = 3'd5;    // DQS driven low, first edge not yet
    localparam logic [2:0] B_WR = 3'd6;      // write burst open
    localparam logic [2:0] B_WPST = 3'd7;    // write postamble (DQS held)

    reg [2:0] bst_q;
    reg [7:0] bcnt_q;       // clocks left in a pre / postamble phase
    reg [7:0] bitk_q;       // clocks until the next edge may go
    reg       bst_read_q;   // the burst (or its postamble) is a read
    reg       dqs_lvl_q;    // DQS level once the current transfer's edge has gone
    reg       dqs_old_q, dqs_new_q;
    reg [7:0] wk_q;         // clock of the current write transfer that starts next
    reg       wbit_q;       // a write transfer's DQS edge is still to come
    reg       tag_q [16];   // per RE# edge in flight: 1 = data, 0 = parking edge
    reg [4:0] tag_wr_q, tag_rd_q;

    wire [4:0] in_flight = tag_wr_q - tag_rd_q;
    wire       data_kind = req_kind == KIND_DIN || req_kind == KIND_DOUT;
    wire       ddr_data = ddr && data_kind;
    wire       edge_ok = bitk_q == 8'd0;
    wire       rd_take = req_valid && req_kind == KIND_DOUT && bst_q == B_RD && edge_ok &&
                         !rep_pend_q && warm_q == 4'd0 && in_flight < 5'd12;
    wire       wr_take = req_valid && req_kind == KIND_DIN && bst_q == B_WR && edge_ok &&
                         !rep_pend_q && warm_q == 4'd0;
    // an edge that carries no new byte: warm-up, or the repeat of the byte just sent / asked for
    wire       rd_extra = (rep_pend_q || warm_q != 4'd0) && bst_q == B_RD && edge_ok &&
                          in_flight < 5'd12;
    wire       wr_extra = (rep_pend_q || warm_q != 4'd0) && bst_q == B_WR && edge_ok;
    wire       wr_go = wr_take || wr_extra;
    // warm-up edges per burst: two per cycle, cycles 0, 1, 2, 4 by code
    function automatic [3:0] warm_edges(input [1:0] code);
        warm_edges = code == 2'd3 ? 4'd8 : {1'b0, code, 1'b0};
    endfunction

    wire       cap_valid;
    wire [7:0] cap_data;
    wire       tag_data = tag_q[tag_rd_q[3:0]];
    wire       tags_empty = in_flight == 5'd0;
    // a byte with no edge in flight is noise (a die toggling DQS unasked): dropped
    wire       cap_pop = cap_valid && (tags_empty || !tag_data || rd_ready);

    // DQS levels of the coming clock (ODDR halves): the edge of a transfer
    // T_BIT clocks long lands T_BIT half-clocks after its DQ change
    reg       dqs_d1, dqs_d2;
    always_comb begin
        reg [8:0] k2;
        reg       o, n;
        k2 = {wr_go ? 8'd0 : wk_q, 1'b0};
        o = wr_go ? dqs_lvl_q : dqs_old_q;
        n = wr_go ? !dqs_lvl_q : dqs_new_q;
        if (wr_go || wbit_q) begin
            dqs_d1 = k2 >= {1'b0, t_bit} ? n : o;
            dqs_d2 = k2 + 9'd1 >= {1'b0, t_bit} ? n : o;
        end else begin
            dqs_d1 = dqs_lvl_q;
            dqs_d2 = dqs_lvl_q;
        end
    end

    nandlab_ddr_io #(.TAP_PS(TAP_PS), .USE_XILINX_PRIMS(USE_XILINX_PRIMS)) u_io (
        .clk(clk), .rst(rst), .dqs_d1(dqs_d1), .dqs_d2(dqs_d2), .nand_dqs_o(nand_dqs_o),
        .nand_dqs_i(nand_dqs_i), .nand_dq_i(nand_dq_i), .tap(dqs_delay),
        .cap_valid(cap_valid), .cap_data(cap_data), .cap_pop(cap_pop),
        .flush(burst_open && req_kind == KIND_DOUT)
    );

    assign req_ready = ddr_data ? (rd_take || wr_take) :
        bst_q == B_OFF && (state_q == S_IDLE || (state_q == S_HIGH && cnt_q == 8'd1));
    wire take = req_valid && req_ready && !ddr_data;   // SDR-engine request latched on this edge

    // The request whose strobe may start on this edge: the one waiting in
    // S_GAP, else the one being taken.
    wire       from_gap = state_q == S_GAP;
    wire [1:0] nk = from_gap ? kind_q : req_kind;
    wire [7:0] nd = from_gap ? data_q : req_data;
    wire       n_read = nk == KIND_DOUT;

    // Phase lengths of that request.
    wire [7:0] strobe_setup = nk == KIND_CMD ? t_cls : nk == KIND_ADDR ? t_als : 8'd1;
    wire [7:0] low_w = max8(max8(t_wp, t_ds), strobe_setup);
    wire [7:0] cap_len = max8(t_rea, 8'd1);
    wire [7:0] low_len = max8(n_read ? t_rp : low_w, 8'd1);
    wire [7:0] cyc = n_read ? t_rc : t_wc;
    wire [7:0] cyc_rest = cyc > low_len ? cyc - low_len : 8'd0;
    wire [7:0] high_min = max8(max8(n_read ? t_reh : max8(t_wh, t_dh), cyc_rest), 8'd1);
    // the capture lands within the cycle, at the latest on the next RE# fall
    wire [7:0] high_len = n_read && cap_len > low_len + high_min ? cap_len - low_len : high_min;

    // Turnaround before its strobe.
    wire [7:0] whr_need = ccs_q ? max8(t_whr, t_ccs) : t_whr;
    wire [7:0] adl_need = ccs_q ? max8(t_adl, t_ccs) : t_adl;
    // a command or a read may follow a cycle that started a busy period
    wire       wb_ok = since_we_q >= t_wb;
    // a ce_sel change reaches CE# on this edge: its tCS count has not begun
    wire       gap_ok = ce_sel == ce_q && since_ce_q >= t_cs &&
        (n_read ? since_we_q >= whr_need && wb_ok && !nand_dq_oe && since_oe_q >= t_ir :
                  since_re_q >= t_rhw && since_wp_q >= t_ww && (nk != KIND_CMD || wb_ok) &&
                  (nk != KIND_DIN || last_kind_q != KIND_ADDR || since_we_q >= adl_need));
    wire       start = (from_gap || take) && gap_ok;

    // a burst opens once its turnaround has passed (as for an SDR read / data-in cycle)
    wire       burst_gap_ok = ce_sel == ce_q && since_ce_q >= t_cs && state_q == S_IDLE &&
        (req_kind == KIND_DOUT ?
            since_we_q >= whr_need && wb_ok && !nand_dq_oe && since_oe_q >= t_ir :
            since_re_q >= t_rhw && since_wp_q >= t_ww &&
            (last_kind_q != KIND_ADDR || since_we_q >= adl_need));
    wire       burst_open = bst_q == B_OFF && req_valid && ddr_data && burst_gap_ok;

    assign idle = state_q == S_IDLE && !req_valid && bst_q == B_OFF && tags_empty;
    assign wb_done = since_we_q >= t_wb;

    always_ff @(posedge clk) begin
        rd_valid <= 1'b0;
        if (since_we_q != 8'hFF) since_we_q <= since_we_q + 8'd1;
        if (since_re_q != 8'hFF) since_re_q <= since_re_q + 8'd1;
        if (since_ce_q != 8'hFF) since_ce_q <= since_ce_q + 8'd1;
        if (since_oe_q != 8'hFF) since_oe_q <= since_oe_q + 8'd1;
        if (since_wp_q != 8'hFF) since_wp_q <= since_wp_q + 8'd1;
        if (wp_n != wp_q) begin
            wp_q <= wp_n;
            since_wp_q <= 8'd0;
        end
        if (ce_sel != ce_q) begin
            ce_q <= ce_sel;
            nand_ce_n <= ~ce_sel;
            since_ce_q <= 8'd0;
        end
        // ---- DDR burst engine
        if (cap_pop) begin
            if (!tags_empty) tag_rd_q <= tag_rd_q + 5'd1;
            if (!tags_empty && tag_data) begin
                rd_data <= cap_data;
                rd_valid <= 1'b1;
            end
        end
        if (bitk_q != 8'd0) bitk_q <= bitk_q - 8'd1;
        if (wbit_q) begin
            wk_q <= wk_q + 8'd1;
            if (wk_q + 8'd1 >= t_bit) wbit_q <= 1'b0;
        end
        if (bst_q == B_OFF && ddr && req_valid && req_kind == KIND_DOUT && nand_dq_oe) begin
            nand_dq_oe <= 1'b0;   // release DQ: the die drives it in the burst
            since_oe_q <= 8'd0;
        end
        case (bst_q)
            B_OFF: if (burst_open) begin
                bst_read_q <= req_kind == KIND_DOUT;
                warm_q <= warm_edges(req_kind == KIND_DOUT ? warmup[1:0] : warmup[3:2]);
                if (req_kind == KIND_DOUT) begin
                    nand_re_n <= 1'b0;
                    bst_q <= B_RPRE;
                    bcnt_q <= t_rpre;
                end else begin
                    nand_dqs_oe <= 1'b1;
                    dqs_lvl_q <= 1'b0;
                    nand_dq_oe <= 1'b1;
                    bst_q <= B_WPRE;
                    bcnt_q <= t_wpre;
                end
            end
            B_RPRE, B_WPRE: begin
                bcnt_q <= bcnt_q - 8'd1;
                if (bcnt_q <= 8'd1) bst_q <= bst_q == B_RPRE ? B_RD : B_WR;
            end
            B_RD: if (rd_take || rd_extra) begin
                nand_re_n <= !nand_re_n;
                if (!nand_re_n) since_re_q <= 8'd0;
                ccs_q <= 1'b0;
                bitk_q <= t_bit - 8'd1;
                tag_q[tag_wr_q[3:0]] <= rd_take;   // a warm-up's or a repeat's byte is dropped
                tag_wr_q <= tag_wr_q + 5'd1;
                rep_pend_q <= rd_take && rep_q;
                if (!rd_take && !rep_pend_q) warm_q <= warm_q - 4'd1;
            end else if (edge_ok && !rep_pend_q && warm_q == 4'd0 && !burst_hold &&
                         !(req_valid && req_kind == KIND_DOUT)) begin
                bst_q <= B_RPST;
                bcnt_q <= t_rpst;
            end
            B_WR: if (wr_go) begin
                if (wr_take) nand_dq_o <= req_data;   // a repeat holds the byte on DQ
                rep_pend_q <= wr_take && rep_q;
                if (!wr_take && !rep_pend_q) warm_q <= warm_q - 4'd1;
                dqs_old_q <= dqs_lvl_q;
                dqs_new_q <= !dqs_lvl_q;
                dqs_lvl_q <= !dqs_lvl_q;
                wk_q <= 8'd1;
                wbit_q <= t_bit > 8'd1;
                bitk_q <= t_bit - 8'd1;
                ccs_q <= 1'b0;
            end else if (edge_ok && !wbit_q && !rep_pend_q && warm_q == 4'd0 && !burst_hold &&
                         !(req_valid && req_kind == KIND_DIN)) begin
                bst_q <= B_WPST;
                bcnt_q <= t_wpst;
            end
            B_RPST: begin
                bcnt_q <= bcnt_q - 8'd1;
                if (bcnt_q <= 8'd1) begin
                    if (!nand_re_n) begin   // park RE# high: the die answers with a byte to drop
                        nand_re_n <= 1'b1;
                        since_re_q <= 8'd0;
                        tag_q[tag_wr_q[3:0]] <= 1'b0;
                        tag_wr_q <= tag_wr_q + 5'd1;
                    end
                    bst_q <= B_POSTH;
                    bcnt_q <= t_rpsth;
                end
            end
            B_WPST: begin
                bcnt_q <= bcnt_q - 8'd1;
                if (bcnt_q <= 8'd1) begin
                    if (dqs_lvl_q) begin   // park DQS low, then a full postamble again
                        dqs_lvl_q <= 1'b0;
                        bcnt_q <= t_wpst;
                    end else begin
                        bst_q <= B_POSTH;
                        bcnt_q <= t_wpsth;
                    end
                end
            end
            default: begin  // B_POSTH
                bcnt_q <= bcnt_q - 8'd1;
                if (bcnt_q <= 8'd1) begin
                    bst_q <= B_OFF;
                    nand_dqs_oe <= 1'b0;
                    if (!bst_read_q) last_kind_q <= KIND_DIN;
                end
            end
        endcase
        if (cap_armed_q) begin
            cap_q <= cap_q - 8'd1;
            if (cap_q == 8'd1) begin
                cap_armed_q <= 1'b0;
                rd_data <= nand_dq_i;
                rd_valid <= 1'b1;
            end
        end
        case (state_q)
            S_LOW: begin
                cnt_q <= cnt_q - 8'd1;
                if (cnt_q == 8'd1) begin
                    state_q <= S_HIGH;
                    cnt_q <= high_q;
                    if (kind_q == KIND_DOUT) begin
                        nand_re_n <= 1'b1;
                        since_re_q <= 8'd0;
                        ccs_q <= 1'b0;
                    end else begin
                        nand_we_n <= 1'b1;
                        since_we_q <= 8'd0;
                        last_kind_q <= kind_q;
                        if (kind_q == KIND_CMD) begin
                            ccs_q <= data_q == 8'hE0 || data_q == 8'h85;
                            rep_q <= ddr_repeat && nandlab_timing_pkg::REPEAT_BYTE_CMDS[data_q];
                        end else if (kind_q == KIND_DIN) begin
                            ccs_q <= 1'b0;
                        end
                    end
                end
            end
            S_HIGH: begin
                cnt_q <= cnt_q - 8'd1;
                if (cnt_q == 8'd1) begin
                    state_q <= S_IDLE;
                    nand_cle <= 1'b0;
                    nand_ale <= 1'b0;
                end
            end
            default: ;  // S_IDLE, S_GAP: see take / start below
        endcase
        if (take) begin
            kind_q <= req_kind;
            data_q <= req_data;
            state_q <= S_GAP;
            if (req_kind == KIND_DOUT && nand_dq_oe) begin
                nand_dq_oe <= 1'b0;   // release the bus: the die drives DQ from RE# low
                since_oe_q <= 8'd0;
            end
        end
        if (start) begin
            state_q <= S_LOW;
            cnt_q <= low_len;
            high_q <= high_len;
            if (n_read) begin
                nand_re_n <= 1'b0;
                cap_q <= cap_len;
                cap_armed_q <= 1'b1;
            end else begin
                nand_we_n <= 1'b0;
                nand_cle <= nk == KIND_CMD;
                nand_ale <= nk == KIND_ADDR;
                nand_dq_o <= nd;
                nand_dq_oe <= 1'b1;
            end
        end
        if (rst) begin
            state_q <= S_IDLE;
            kind_q <= KIND_CMD;
            data_q <= 8'd0;
            cnt_q <= 8'd0;
            high_q <= 8'd0;
            cap_q <= 8'd0;
            cap_armed_q <= 1'b0;
            since_we_q <= 8'hFF;
            since_re_q <= 8'hFF;
            since_ce_q <= 8'hFF;
            since_oe_q <= 8'hFF;
            since_wp_q <= 8'hFF;
            wp_q <= 1'b1;
            last_kind_q <= KIND_CMD;
            ccs_q <= 1'b0;
            rep_q <= 1'b0;
            rep_pend_q <= 1'b0;
            warm_q <= 4'd0;
            ce_q <= '0;
            nand_ce_n <= '1;
            nand_cle <= 1'b0;
            nand_ale <= 1'b0;
            nand_we_n <= 1'b1;
            nand_re_n <= 1'b1;
            nand_dq_o <= 8'd0;
            nand_dq_oe <= 1'b0;
            rd_data <= 8'd0;
            rd_valid <= 1'b0;
            bst_q <= B_OFF;
            bcnt_q <= 8'd0;
            bitk_q <= 8'd0;
            bst_read_q <= 1'b0;
            dqs_lvl_q <= 1'b0;
            dqs_old_q <= 1'b0;
            dqs_new_q <= 1'b0;
            wk_q <= 8'd0;
            wbit_q <= 1'b0;
            tag_wr_q <= 5'd0;
            tag_rd_q <= 5'd0;
            nand_dqs_oe <= 1'b0;
        end
    end

endmodule

`default_nettype wire

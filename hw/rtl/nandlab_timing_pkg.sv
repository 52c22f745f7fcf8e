// generated from host/nandlab/onfi_spec/sdr_timing.py, nvddr_timing.py and ddr_features.py by
// nandlab.hwgen.timing, do not edit
// ONFI SDR timing presets in core clock cycles, modes 0..5 per clock period,
// then the DDR presets (nandlab.hwgen.timing_ddr): the same fields for the
// command / address cycles, followed by the DDR burst fields.
// A preset packs the fields below, 8 bits each, field i at bits [8i+7:8i]: the
// same layout as the CSR override registers {TIMING_CCS[23:0], TIMING_TURN,
// TIMING_SETUP, TIMING_READ, TIMING_WRITE}.

`default_nettype none

package nandlab_timing_pkg;

  /* verilator lint_off UNUSEDPARAM */

  localparam int TIMING_FIELDS = 19;
  localparam int TIMING_BITS = 152;
  localparam int TIMING_MODES = 6;
  localparam int T_WP = 0;  // at least tWP
  localparam int T_WH = 1;  // at least tWH
  localparam int T_WC = 2;  // at least tWC
  localparam int T_DS = 3;  // at least tDS
  localparam int T_RP = 4;  // read plan, at least tRP
  localparam int T_REH = 5;  // read plan, at least tREH
  localparam int T_RC = 6;  // read plan, at least tRC
  localparam int T_REA = 7;  // DQ capture, clocks after RE# low, after tREA
  localparam int T_CLS = 8;  // at least tCLS
  localparam int T_ALS = 9;  // at least tALS
  localparam int T_CS = 10;  // at least tCS
  localparam int T_DH = 11;  // at least tDH
  localparam int T_WB = 12;  // at least tWB
  localparam int T_WHR = 13;  // at least tWHR
  localparam int T_RHW = 14;  // at least tRHW
  localparam int T_ADL = 15;  // at least tADL
  localparam int T_CCS = 16;  // at least tCCS
  localparam int T_IR = 17;  // at least tIR
  localparam int T_WW = 18;  // at least tWW
  localparam int DDR_TIMING_BITS = 208;
  localparam int T_BIT = 19;  // transfer: half tRC, at least one clock
  localparam int T_RPRE = 20;  // at least tRPRE
  localparam int T_RPST = 21;  // at least tDQSRE + T_BIT
  localparam int T_RPSTH = 22;  // at least tRPSTH
  localparam int T_WPRE = 23;  // at least tWPRE
  localparam int T_WPST = 24;  // at least tWPST
  localparam int T_WPSTH = 25;  // at least tWPSTH
  // opcodes whose data bytes are repeated in NV-DDR2 / NV-DDR3: 70h, 78h, 90h, E2h, EEh, EFh
  localparam logic [255:0] REPEAT_BYTE_CMDS = 256'h0000C00400000000000000000001000001010000000000000000000000000000;

  // 10000 ps (100 MHz); mode 0 in the low bits
  //   mode 0: WP=5 WH=3 WC=10 DS=4 RP=6 REH=4 RC=10 REA=5 CLS=5 ALS=5 CS=7 DH=2 WB=20 WHR=12 RHW=20 ADL=40 CCS=50 IR=1 WW=10
  //   mode 1: WP=3 WH=2 WC=5 DS=2 RP=3 REH=2 RC=5 REA=4 CLS=3 ALS=3 CS=4 DH=1 WB=10 WHR=8 RHW=10 ADL=40 CCS=50 IR=1 WW=10
  //   mode 2: WP=2 WH=2 WC=4 DS=2 RP=2 REH=2 RC=4 REA=3 CLS=2 ALS=2 CS=3 DH=1 WB=10 WHR=8 RHW=10 ADL=40 CCS=50 IR=1 WW=10
  //   mode 3: WP=2 WH=1 WC=3 DS=1 RP=3 REH=1 RC=4 REA=3 CLS=1 ALS=1 CS=3 DH=1 WB=10 WHR=8 RHW=10 ADL=40 CCS=50 IR=1 WW=10
  //   mode 4: WP=2 WH=1 WC=3 DS=1 RP=2 REH=1 RC=3 REA=3 CLS=1 ALS=1 CS=2 DH=1 WB=10 WHR=8 RHW=10 ADL=40 CCS=50 IR=1 WW=10
  //   mode 5: WP=1 WH=1 WC=2 DS=1 RP=1 REH=1 RC=2 REA=2 CLS=1 ALS=1 CS=2 DH=1 WB=10 WHR=8 RHW=10 ADL=40 CCS=50 IR=1 WW=10
  localparam logic [911:0] PRESETS_10000PS = {
    {8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd1, 8'd1, 8'd2, 8'd2, 8'd1, 8'd1, 8'd1, 8'd2, 8'd1, 8'd1},
    {8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd1, 8'd1, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd3, 8'd1, 8'd2},
    {8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd3, 8'd1, 8'd1, 8'd3, 8'd4, 8'd1, 8'd3, 8'd1, 8'd3, 8'd1, 8'd2},
    {8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd3, 8'd2, 8'd2, 8'd3, 8'd4, 8'd2, 8'd2, 8'd2, 8'd4, 8'd2, 8'd2},
    {8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd4, 8'd3, 8'd3, 8'd4, 8'd5, 8'd2, 8'd3, 8'd2, 8'd5, 8'd2, 8'd3},
    {8'd10, 8'd1, 8'd50, 8'd40, 8'd20, 8'd12, 8'd20, 8'd2, 8'd7, 8'd5, 8'd5, 8'd5, 8'd10, 8'd4, 8'd6, 8'd4, 8'd10, 8'd3, 8'd5}
  };

  // DDR presets at 10000 ps: entry slot * 16 + mode, slots 0 nv-ddr2, 1 nv-ddr3, 2 toggle2; modes an interface lacks are 0
  //   nv-ddr2 mode 0 (66 MT/s): BIT=2 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 1 (80 MT/s): BIT=2 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 2 (133 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 3 (166 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 4 (200 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 5 (266 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 6 (333 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr2 mode 7 (400 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 0 (66 MT/s): BIT=2 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 1 (80 MT/s): BIT=2 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 2 (133 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 3 (166 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 4 (200 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 5 (266 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 6 (333 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 7 (400 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 8 (533 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 9 (667 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 10 (800 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 11 (1066 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 12 (1200 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 13 (1333 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 14 (1466 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   nv-ddr3 mode 15 (1600 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 0 (66 MT/s): BIT=2 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 1 (80 MT/s): BIT=2 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 2 (133 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 3 (166 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 4 (200 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 5 (266 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 6 (333 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  //   toggle2 mode 7 (400 MT/s): BIT=1 RPRE=2 RPST=4 RPSTH=2 WPRE=2 WPST=1 WPSTH=3
  localparam logic [9983:0] DDR_PRESETS_10000PS = {
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd2, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd2, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd2, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd2, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd4, 8'd2, 8'd1, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd2, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd3, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd2, 8'd10, 8'd1, 8'd50, 8'd40, 8'd10, 8'd8, 8'd10, 8'd1, 8'd2, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2}
  };

  // 8000 ps (125 MHz); mode 0 in the low bits
  //   mode 0: WP=7 WH=4 WC=13 DS=5 RP=9 REH=4 RC=13 REA=7 CLS=7 ALS=7 CS=9 DH=3 WB=25 WHR=15 RHW=25 ADL=50 CCS=63 IR=2 WW=13
  //   mode 1: WP=4 WH=2 WC=6 DS=3 RP=5 REH=2 RC=7 REA=5 CLS=4 ALS=4 CS=5 DH=2 WB=13 WHR=10 RHW=13 ADL=50 CCS=63 IR=1 WW=13
  //   mode 2: WP=3 WH=2 WC=5 DS=2 RP=3 REH=2 RC=5 REA=4 CLS=2 ALS=2 CS=4 DH=1 WB=13 WHR=10 RHW=13 ADL=50 CCS=63 IR=1 WW=13
  //   mode 3: WP=2 WH=2 WC=4 DS=2 RP=2 REH=2 RC=4 REA=3 CLS=2 ALS=2 CS=4 DH=1 WB=13 WHR=10 RHW=13 ADL=50 CCS=63 IR=1 WW=13
  //   mode 4: WP=2 WH=2 WC=4 DS=2 RP=2 REH=2 RC=4 REA=3 CLS=2 ALS=2 CS=3 DH=1 WB=13 WHR=10 RHW=13 ADL=50 CCS=63 IR=1 WW=13
  //   mode 5: WP=2 WH=1 WC=3 DS=1 RP=2 REH=1 RC=3 REA=3 CLS=2 ALS=2 CS=2 DH=1 WB=13 WHR=10 RHW=13 ADL=50 CCS=63 IR=1 WW=13
  localparam logic [911:0] PRESETS_8000PS = {
    {8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd2, 8'd2, 8'd2, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd3, 8'd1, 8'd2},
    {8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd3, 8'd4, 8'd2, 8'd2, 8'd2, 8'd4, 8'd2, 8'd2},
    {8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd4, 8'd2, 8'd2, 8'd3, 8'd4, 8'd2, 8'd2, 8'd2, 8'd4, 8'd2, 8'd2},
    {8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd4, 8'd2, 8'd2, 8'd4, 8'd5, 8'd2, 8'd3, 8'd2, 8'd5, 8'd2, 8'd3},
    {8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd2, 8'd5, 8'd4, 8'd4, 8'd5, 8'd7, 8'd2, 8'd5, 8'd3, 8'd6, 8'd2, 8'd4},
    {8'd13, 8'd2, 8'd63, 8'd50, 8'd25, 8'd15, 8'd25, 8'd3, 8'd9, 8'd7, 8'd7, 8'd7, 8'd13, 8'd4, 8'd9, 8'd5, 8'd13, 8'd4, 8'd7}
  };

  // DDR presets at 8000 ps: entry slot * 16 + mode, slots 0 nv-ddr2, 1 nv-ddr3, 2 toggle2; modes an interface lacks are 0
  //   nv-ddr2 mode 0 (66 MT/s): BIT=2 RPRE=2 RPST=6 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 1 (80 MT/s): BIT=2 RPRE=2 RPST=6 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 2 (133 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 3 (166 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 4 (200 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 5 (266 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 6 (333 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr2 mode 7 (400 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 0 (66 MT/s): BIT=2 RPRE=2 RPST=6 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 1 (80 MT/s): BIT=2 RPRE=2 RPST=6 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 2 (133 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 3 (166 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 4 (200 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 5 (266 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 6 (333 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 7 (400 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 8 (533 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 9 (667 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 10 (800 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 11 (1066 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 12 (1200 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 13 (1333 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 14 (1466 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   nv-ddr3 mode 15 (1600 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 0 (66 MT/s): BIT=2 RPRE=2 RPST=6 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 1 (80 MT/s): BIT=2 RPRE=2 RPST=6 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 2 (133 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 3 (166 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 4 (200 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 5 (266 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 6 (333 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  //   toggle2 mode 7 (400 MT/s): BIT=1 RPRE=2 RPST=5 RPSTH=2 WPRE=2 WPST=1 WPSTH=4
  localparam logic [9983:0] DDR_PRESETS_8000PS = {
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd6, 8'd2, 8'd2, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd6, 8'd2, 8'd2, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd6, 8'd2, 8'd2, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd6, 8'd2, 8'd2, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd5, 8'd2, 8'd1, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd6, 8'd2, 8'd2, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2},
    {8'd4, 8'd1, 8'd2, 8'd2, 8'd6, 8'd2, 8'd2, 8'd13, 8'd1, 8'd63, 8'd50, 8'd13, 8'd10, 8'd13, 8'd1, 8'd3, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd4, 8'd2, 8'd2}
  };

  // 5000 ps (200 MHz); mode 0 in the low bits
  //   mode 0: WP=10 WH=6 WC=20 DS=8 RP=14 REH=6 RC=20 REA=11 CLS=10 ALS=10 CS=14 DH=4 WB=40 WHR=24 RHW=40 ADL=80 CCS=100 IR=2 WW=20
  //   mode 1: WP=5 WH=3 WC=9 DS=4 RP=7 REH=3 RC=10 REA=8 CLS=5 ALS=5 CS=7 DH=2 WB=20 WHR=16 RHW=20 ADL=80 CCS=100 IR=1 WW=20
  //   mode 2: WP=4 WH=3 WC=7 DS=3 RP=4 REH=3 RC=7 REA=6 CLS=3 ALS=3 CS=5 DH=1 WB=20 WHR=16 RHW=20 ADL=80 CCS=100 IR=1 WW=20
  //   mode 3: WP=3 WH=2 WC=6 DS=2 RP=3 REH=3 RC=6 REA=5 CLS=2 ALS=2 CS=5 DH=1 WB=20 WHR=16 RHW=20 ADL=80 CCS=100 IR=1 WW=20
  //   mode 4: WP=3 WH=2 WC=5 DS=2 RP=3 REH=2 RC=5 REA=5 CLS=2 ALS=2 CS=4 DH=1 WB=20 WHR=16 RHW=20 ADL=80 CCS=100 IR=1 WW=20
  //   mode 5: WP=2 WH=2 WC=4 DS=2 RP=2 REH=2 RC=4 REA=4 CLS=2 ALS=2 CS=3 DH=1 WB=20 WHR=16 RHW=20 ADL=80 CCS=100 IR=1 WW=20
  localparam logic [911:0] PRESETS_5000PS = {
    {8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd3, 8'd2, 8'd2, 8'd4, 8'd4, 8'd2, 8'd2, 8'd2, 8'd4, 8'd2, 8'd2},
    {8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd2, 8'd2, 8'd5, 8'd5, 8'd2, 8'd3, 8'd2, 8'd5, 8'd2, 8'd3},
    {8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd5, 8'd2, 8'd2, 8'd5, 8'd6, 8'd3, 8'd3, 8'd2, 8'd6, 8'd2, 8'd3},
    {8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd5, 8'd3, 8'd3, 8'd6, 8'd7, 8'd3, 8'd4, 8'd3, 8'd7, 8'd3, 8'd4},
    {8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd2, 8'd7, 8'd5, 8'd5, 8'd8, 8'd10, 8'd3, 8'd7, 8'd4, 8'd9, 8'd3, 8'd5},
    {8'd20, 8'd2, 8'd100, 8'd80, 8'd40, 8'd24, 8'd40, 8'd4, 8'd14, 8'd10, 8'd10, 8'd11, 8'd20, 8'd6, 8'd14, 8'd8, 8'd20, 8'd6, 8'd10}
  };

  // DDR presets at 5000 ps: entry slot * 16 + mode, slots 0 nv-ddr2, 1 nv-ddr3, 2 toggle2; modes an interface lacks are 0
  //   nv-ddr2 mode 0 (66 MT/s): BIT=3 RPRE=3 RPST=8 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 1 (80 MT/s): BIT=3 RPRE=3 RPST=8 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 2 (133 MT/s): BIT=2 RPRE=3 RPST=7 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 3 (166 MT/s): BIT=2 RPRE=3 RPST=7 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 4 (200 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 5 (266 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 6 (333 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr2 mode 7 (400 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 0 (66 MT/s): BIT=3 RPRE=3 RPST=8 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 1 (80 MT/s): BIT=3 RPRE=3 RPST=8 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 2 (133 MT/s): BIT=2 RPRE=3 RPST=7 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 3 (166 MT/s): BIT=2 RPRE=3 RPST=7 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 4 (200 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 5 (266 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 6 (333 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 7 (400 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 8 (533 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 9 (667 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 10 (800 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 11 (1066 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 12 (1200 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 13 (1333 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 14 (1466 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   nv-ddr3 mode 15 (1600 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 0 (66 MT/s): BIT=3 RPRE=3 RPST=8 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 1 (80 MT/s): BIT=3 RPRE=3 RPST=8 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 2 (133 MT/s): BIT=2 RPRE=3 RPST=7 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 3 (166 MT/s): BIT=2 RPRE=3 RPST=7 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 4 (200 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 5 (266 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 6 (333 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  //   toggle2 mode 7 (400 MT/s): BIT=1 RPRE=3 RPST=6 RPSTH=3 WPRE=3 WPST=2 WPSTH=5
  localparam logic [9983:0] DDR_PRESETS_5000PS = {
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd7, 8'd3, 8'd2, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd7, 8'd3, 8'd2, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd8, 8'd3, 8'd3, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd8, 8'd3, 8'd3, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd7, 8'd3, 8'd2, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd7, 8'd3, 8'd2, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd8, 8'd3, 8'd3, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd8, 8'd3, 8'd3, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0, 8'd0},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd6, 8'd3, 8'd1, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd2, 8'd1, 8'd1, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd7, 8'd3, 8'd2, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd7, 8'd3, 8'd2, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd4, 8'd2, 8'd2, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd8, 8'd3, 8'd3, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3},
    {8'd5, 8'd2, 8'd3, 8'd3, 8'd8, 8'd3, 8'd3, 8'd20, 8'd1, 8'd100, 8'd80, 8'd20, 8'd16, 8'd20, 8'd1, 8'd4, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3, 8'd1, 8'd6, 8'd3, 8'd3}
  };

  /* verilator lint_on UNUSEDPARAM */

endpackage : nandlab_timing_pkg

`default_nettype wire

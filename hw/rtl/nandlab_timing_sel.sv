// nandlab_timing_sel: the PHY timing in use, from the preset ROM or the CSRs.
//
// The presets (nandlab_timing_pkg, generated from the ONFI SDR table) hold
// every mode 0..5 in cycles of the core clock; `mode` (set by the TIMING
// instruction) picks one. With `use_csr` set, the CSR vector is used instead.
// Only clock periods with generated presets build: any other period names a
// module that does not exist, so elaboration fails with that name.
//
// Clock / reset: combinational.
`default_nettype none

module nandlab_timing_sel #(
    parameter int CLK_PERIOD_PS = 10000   // core clock period in ps
) (
    input  wire [3:0]   mode,          // ONFI SDR timing mode 0..5
    input  wire         use_csr,       // 1: use csr_timing
    input  wire [151:0] csr_timing,    // {TIMING_CCS[23:0], TIMING_TURN, TIMING_SETUP, TIMING_READ, TIMING_WRITE}
    output wire [151:0] timing         // cycles per field, nandlab_timing_pkg layout
);
    localparam int BITS = nandlab_timing_pkg::TIMING_BITS;
    localparam logic [6*BITS-1:0] PRESETS =
        CLK_PERIOD_PS == 10000 ? nandlab_timing_pkg::PRESETS_10000PS :
        CLK_PERIOD_PS == 8000 ? nandlab_timing_pkg::PRESETS_8000PS :
        nandlab_timing_pkg::PRESETS_5000PS;

    generate
        if (CLK_PERIOD_PS != 10000 && CLK_PERIOD_PS != 8000 && CLK_PERIOD_PS != 5000) begin : g_bad_clock
            nandlab_timing_sel_no_presets_for_this_CLK_PERIOD_PS u_unsupported ();
        end
    endgenerate

    wire [2:0]        mode_idx = mode > 4'd5 ? 3'd5 : mode[2:0];
    wire [BITS-1:0]   preset = PRESETS[BITS*mode_idx +: BITS];

    assign timing = use_csr ? csr_timing : preset;

endmodule

`default_nettype wire

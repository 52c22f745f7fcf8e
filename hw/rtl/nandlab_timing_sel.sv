// nandlab_timing_sel: the PHY timing in use, from the preset ROMs or the CSRs.
//
// The presets (nandlab_timing_pkg, generated from the ONFI SDR and DDR
// tables) hold every SDR mode 0..5 and every NV-DDR2 / NV-DDR3 / Toggle DDR
// mode in cycles of the core clock; `iface` and `mode` (set by the TIMING
// instruction) pick one. With `use_csr` set, the CSR vector replaces the
// command / address and turnaround fields; the DDR burst fields always come
// from the preset. Only clock periods with generated presets build: any other
// period names a module that does not exist, so elaboration fails with that name.
//
// Clock / reset: combinational.
`default_nettype none

module nandlab_timing_sel #(
    parameter int CLK_PERIOD_PS = 10000   // core clock period in ps
) (
    input  wire [2:0]   iface,         // nandlab_ops_pkg::interface_e
    input  wire [3:0]   mode,          // timing mode of that interface
    input  wire         use_csr,       // 1: use csr_timing
    input  wire [151:0] csr_timing,    // {TIMING_CCS[23:0], TIMING_TURN, TIMING_SETUP, TIMING_READ, TIMING_WRITE}
    output wire [151:0] timing,        // cycles per field, nandlab_timing_pkg layout
    output wire         ddr,           // a DDR interface: DIN / DOUT run as DQS-strobed bursts
    output wire [55:0]  ddr_timing     // burst fields T_BIT .. T_WPSTH
);
    localparam int BITS = nandlab_timing_pkg::TIMING_BITS;
    localparam int DBITS = nandlab_timing_pkg::DDR_TIMING_BITS;
    localparam logic [6*BITS-1:0] PRESETS =
        CLK_PERIOD_PS == 10000 ? nandlab_timing_pkg::PRESETS_10000PS :
        CLK_PERIOD_PS == 8000 ? nandlab_timing_pkg::PRESETS_8000PS :
        nandlab_timing_pkg::PRESETS_5000PS;
    localparam logic [48*DBITS-1:0] DDR_PRESETS =
        CLK_PERIOD_PS == 10000 ? nandlab_timing_pkg::DDR_PRESETS_10000PS :
        CLK_PERIOD_PS == 8000 ? nandlab_timing_pkg::DDR_PRESETS_8000PS :
        nandlab_timing_pkg::DDR_PRESETS_5000PS;

    generate
        if (CLK_PERIOD_PS != 10000 && CLK_PERIOD_PS != 8000 && CLK_PERIOD_PS != 5000) begin : g_bad_clock
            nandlab_timing_sel_no_presets_for_this_CLK_PERIOD_PS u_unsupported ();
        end
    endgenerate

    // NV-DDR (the clocked interface) has no presets: the sequencer refuses it
    assign ddr = iface == nandlab_ops_pkg::IF_NV_DDR2 || iface == nandlab_ops_pkg::IF_NV_DDR3 ||
                 iface == nandlab_ops_pkg::IF_TOGGLE;
    wire [1:0]        slot = iface == nandlab_ops_pkg::IF_NV_DDR3 ? 2'd1 :
                             iface == nandlab_ops_pkg::IF_TOGGLE ? 2'd2 : 2'd0;
    wire [2:0]        mode_idx = mode > 4'd5 ? 3'd5 : mode[2:0];
    wire [BITS-1:0]   sdr_preset = PRESETS[BITS*mode_idx +: BITS];
    // a 48-way mux of constant slices (an indexed part-select would be a barrel shifter)
    reg  [DBITS-1:0]  ddr_preset;
    always_comb begin
        ddr_preset = '0;
        for (int i = 0; i < 48; i++)
            if ({slot, mode} == 6'(i)) ddr_preset = DDR_PRESETS[DBITS*i +: DBITS];
    end
    wire [BITS-1:0]   preset = ddr ? ddr_preset[BITS-1:0] : sdr_preset;

    assign timing = use_csr ? csr_timing : preset;
    assign ddr_timing = ddr_preset[DBITS-1:BITS];

endmodule

`default_nettype wire

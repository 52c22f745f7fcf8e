// nandlab_core: ONFI controller datapath without the CSR block.
//
// Sequencer, PHY, timing selection and R/B# synchronisers, with the CSR
// values as plain ports. nandlab_ctrl adds the generated CSR block; a top
// without CSRs (or with CSRs of its own) can use this module directly.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_core #(
    parameter int NUM_CE = 4,             // chip enables (1..8)
    parameter int CLK_PERIOD_PS = 10000,  // core clock period: 10000, 8000 or 5000
    parameter int TAP_PS = 10,            // ps per DQS capture-delay tap (simulation model)
    parameter bit USE_XILINX_PRIMS = 1'b0 // UltraScale I/O primitives in the DDR PHY
) (
    input  wire              clk,
    input  wire              rst,
    `NANDLAB_AXIS_IN(s_axis_cmd, 32),
    `NANDLAB_AXIS_OUT(m_axis_rsp, 32),
    // CSR values
    input  wire              csr_timing_override,   // use csr_timing instead of the mode preset
    input  wire [151:0]      csr_timing,            // {TIMING_CCS[23:0], TIMING_TURN, TIMING_SETUP, TIMING_READ, TIMING_WRITE}
    input  wire [31:0]       csr_rsp_limit,
    input  wire              csr_clear_counters,
    input  wire [8:0]        csr_dqs_delay,         // DDR read capture delay, taps (byte lane 0)
    output wire [4:0]        status_state,
    output wire              status_running,
    output wire [3:0]        status_timing_mode,
    output wire [2:0]        status_interface,
    output wire [7:0]        status_last_error,
    output wire [7:0]        status_gpio,
    output wire [NUM_CE-1:0] status_rb,
    output wire [31:0]       cnt_programs,
    output wire [31:0]       cnt_errors,
    output wire [63:0]       cnt_busy_cycles,
    // ONFI pins
    `NANDLAB_ONFI_PINS(NUM_CE)
);
    // R/B# is asynchronous to clk: two flops each.
    reg [NUM_CE-1:0] rb_meta_q, rb_q;
    always_ff @(posedge clk) begin
        if (rst) begin
            rb_meta_q <= '1;
            rb_q <= '1;
        end else begin
            rb_meta_q <= nand_rb_n;
            rb_q <= rb_meta_q;
        end
    end
    assign status_rb = rb_q;

    wire [151:0] timing;
    wire         ddr;
    wire [55:0]  ddr_timing;

    nandlab_timing_sel #(.CLK_PERIOD_PS(CLK_PERIOD_PS)) u_timing (
        .iface(status_interface), .mode(status_timing_mode), .use_csr(csr_timing_override),
        .csr_timing(csr_timing), .timing(timing), .ddr(ddr), .ddr_timing(ddr_timing)
    );

    wire              phy_req_valid, phy_req_ready, phy_rd_valid, phy_idle, phy_wb_done;
    wire              phy_burst_hold, phy_rd_ready;
    wire [1:0]        phy_req_kind;
    wire [3:0]        phy_warmup;
    wire [7:0]        phy_req_data, phy_rd_data;
    wire [NUM_CE-1:0] ce_sel;

    // ports of the same name connect by name (.*): the streams, the PHY request
    // wires, status and counters
    nandlab_seq #(.NUM_CE(NUM_CE), .CLK_PERIOD_PS(CLK_PERIOD_PS)) u_seq (
        .rb_n(rb_q), .rsp_limit(csr_rsp_limit), .clear_counters(csr_clear_counters),
        .gpio(status_gpio), .*
    );
    assign nand_wp_n = status_gpio[0];

    nandlab_onfi_phy #(
        .NUM_CE(NUM_CE), .TAP_PS(TAP_PS), .USE_XILINX_PRIMS(USE_XILINX_PRIMS)
    ) u_phy (
        .wp_n(nand_wp_n), .burst_hold(phy_burst_hold), .rd_ready(phy_rd_ready),
        .warmup(phy_warmup),
        .ddr_repeat(status_interface == nandlab_ops_pkg::IF_NV_DDR2 ||
                    status_interface == nandlab_ops_pkg::IF_NV_DDR3),
        .dqs_delay(csr_dqs_delay),
        .req_valid(phy_req_valid), .req_ready(phy_req_ready),
        .req_kind(phy_req_kind), .req_data(phy_req_data),
        .rd_valid(phy_rd_valid), .rd_data(phy_rd_data),
        .idle(phy_idle), .wb_done(phy_wb_done), .*
    );

endmodule

`default_nettype wire

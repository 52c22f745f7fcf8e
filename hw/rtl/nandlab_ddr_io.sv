// nandlab_ddr_io: one byte lane's DDR I/O: the DQS output register and the
// DQS-strobed read capture with its delay line.
//
// DQS out: an ODDR. `dqs_d1` is driven in the first half of each clock,
// `dqs_d2` in the second, so the PHY can put a DQS edge half a clock after
// the DQ change it registers (centre-aligned write data at one byte a clock).
//
// Read capture: the die sends DQS edge-aligned with DQ. The strobe goes
// through a delay line of `tap` taps; its rising edges write DQ into one
// 8-entry FIFO, its falling edges into another (an IDDR's two outputs), and
// each FIFO's write pointer crosses to `clk` as Gray code through two flops.
// Bytes come out alternately, rising first; `flush` (a read burst opening)
// drops whatever a die's strobe left since. Data eye training sweeps `tap` to
// find where the delayed edge sits inside the DQ valid window.
//
// Simulation (USE_XILINX_PRIMS = 0): the delay line is a transport delay of
// tap * TAP_PS ps and the capture is behavioural. Synthesis for UltraScale
// (USE_XILINX_PRIMS = 1): IDELAYE3 (COUNT, VAR_LOAD) on DQS, loaded with `tap`
// when it changes; DQ captured by the delayed strobe on both edges; ODDRE1
// for DQS out. Vivado is not on the development machine: only Yosys's
// UltraScale cell library has checked the primitives' port names.
//
// Clock / reset: clk, rst (active-high, synchronous); the capture side runs
// on the delayed strobe and needs no reset: the read side takes its pointers.
`default_nettype none

module nandlab_ddr_io #(
    parameter int TAP_PS = 10,              // ps per tap of the simulation delay model
    parameter bit USE_XILINX_PRIMS = 1'b0   // 1: UltraScale primitives (synthesis only)
) (
    input  wire       clk,
    input  wire       rst,
    input  wire       dqs_d1,       // DQS level in the first half of the coming clock
    input  wire       dqs_d2,       // DQS level in its second half
    output wire       nand_dqs_o,
    input  wire       nand_dqs_i,
    input  wire [7:0] nand_dq_i,
    input  wire [8:0] tap,          // capture delay, taps
    output wire       cap_valid,    // a captured byte waits
    output wire [7:0] cap_data,
    input  wire       cap_pop,      // take it (only while cap_valid)
    input  wire       flush         // a read burst opens: drop stray captures
);
    // ---------------------------------------------------------------- DQS out
    reg d1_q, d2_q;
    always_ff @(posedge clk) begin
        d1_q <= rst ? 1'b0 : dqs_d1;
        d2_q <= rst ? 1'b0 : dqs_d2;
    end

    // ---------------------------------------------------------------- delay line
    wire dqs_dly;

    generate
        if (USE_XILINX_PRIMS) begin : g_xilinx
            ODDRE1 #(.SRVAL(1'b0)) u_dqs_oddr (
                .C(clk), .D1(d1_q), .D2(d2_q), .SR(rst), .Q(nand_dqs_o)
            );
            reg [8:0] tap_q;
            reg       load_q;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [8:0] tap_now;   // the loaded count (read back by nothing yet)
            wire       casc_out;  // no cascaded ODELAYE3: one IDELAYE3 covers the sweep
            /* verilator lint_on UNUSEDSIGNAL */
            always_ff @(posedge clk) begin
                tap_q <= tap;
                load_q <= tap != tap_q;
            end
            IDELAYE3 #(
                .DELAY_FORMAT("COUNT"), .DELAY_TYPE("VAR_LOAD"), .DELAY_SRC("IDATAIN"),
                .REFCLK_FREQUENCY(300.0), .SIM_DEVICE("ULTRASCALE")
            ) u_dqs_delay (
                .IDATAIN(nand_dqs_i), .DATAIN(1'b0), .DATAOUT(dqs_dly),
                .CLK(clk), .LOAD(load_q), .CNTVALUEIN(tap_q), .CNTVALUEOUT(tap_now),
                .CE(1'b0), .INC(1'b0), .RST(rst), .EN_VTC(1'b0),
                .CASC_IN(1'b0), .CASC_RETURN(1'b0), .CASC_OUT(casc_out)
            );
        end else begin : g_model
            // ODDR: D1 while clk is high, D2 while it is low
            reg d2_fall_q;
            always @(negedge clk) d2_fall_q <= d2_q;
            assign nand_dqs_o = clk ? d1_q : d2_fall_q;
            reg dqs_dly_q;
`ifndef SYNTHESIS
            initial dqs_dly_q = 1'b0;
            // transport delay: every edge arrives 1 + tap * TAP_PS ps later (1 ps standing in
            // for the line's insertion delay), none is swallowed
            /* verilator lint_off ZERODLY */  // never #0: at least the 1 ps insertion delay
            always @(nand_dqs_i) dqs_dly_q <= #((real'(tap) * TAP_PS + 1.0) / 1000.0) nand_dqs_i;
            /* verilator lint_on ZERODLY */
`endif
            assign dqs_dly = dqs_dly_q;
        end
    endgenerate

    // ---------------------------------------------------------------- capture FIFOs
    // One 8-entry FIFO per strobe edge (rising: first byte of each pair), as an
    // IDDR's Q1 / Q2 split them; bytes come out alternately, rising first.
    reg [7:0] rise_mem [8];
    reg [7:0] fall_mem [8];
    reg [3:0] rise_wr_q, fall_wr_q;            // strobe domain, binary
    reg [3:0] rise_gray_q, fall_gray_q;
    reg [3:0] rise_meta_q, rise_sync_q, fall_meta_q, fall_sync_q;   // clk domain, Gray
    reg [3:0] rise_rd_q, fall_rd_q;
    reg       from_fall_q;                     // the next byte is a falling-edge one

    function automatic [3:0] gray2bin(input [3:0] g);
        gray2bin = {g[3], g[3] ^ g[2], g[3] ^ g[2] ^ g[1], g[3] ^ g[2] ^ g[1] ^ g[0]};
    endfunction

    function automatic [3:0] bin2gray(input [3:0] b);
        bin2gray = b ^ (b >> 1);
    endfunction

    always_ff @(posedge dqs_dly) begin
        rise_mem[rise_wr_q[2:0]] <= nand_dq_i;
        rise_wr_q <= rise_wr_q + 4'd1;
        rise_gray_q <= bin2gray(rise_wr_q + 4'd1);
    end

    always_ff @(negedge dqs_dly) begin
        fall_mem[fall_wr_q[2:0]] <= nand_dq_i;
        fall_wr_q <= fall_wr_q + 4'd1;
        fall_gray_q <= bin2gray(fall_wr_q + 4'd1);
    end

    wire rise_any = gray2bin(rise_sync_q) != rise_rd_q;
    wire fall_any = gray2bin(fall_sync_q) != fall_rd_q;

    always_ff @(posedge clk) begin
        rise_meta_q <= rise_gray_q;
        rise_sync_q <= rise_meta_q;
        fall_meta_q <= fall_gray_q;
        fall_sync_q <= fall_meta_q;
        if (cap_pop && cap_valid) begin
            if (from_fall_q) fall_rd_q <= fall_rd_q + 4'd1;
            else rise_rd_q <= rise_rd_q + 4'd1;
            from_fall_q <= !from_fall_q;
        end
        if (rst || flush) begin   // drop what was captured: the next burst starts on a rising edge
            rise_rd_q <= gray2bin(rise_sync_q);
            fall_rd_q <= gray2bin(fall_sync_q);
            from_fall_q <= 1'b0;
        end
    end

`ifndef SYNTHESIS
    initial begin
        rise_wr_q = 4'd0;
        fall_wr_q = 4'd0;
        rise_gray_q = 4'd0;
        fall_gray_q = 4'd0;
        rise_meta_q = 4'd0;
        rise_sync_q = 4'd0;
        fall_meta_q = 4'd0;
        fall_sync_q = 4'd0;
        rise_rd_q = 4'd0;
        fall_rd_q = 4'd0;
        from_fall_q = 1'b0;
    end
`endif

    assign cap_valid = from_fall_q ? fall_any : rise_any;
    assign cap_data = from_fall_q ? fall_mem[fall_rd_q[2:0]] : rise_mem[rise_rd_q[2:0]];

endmodule

`default_nettype wire

// Firmware-in-the-loop harness: PicoRV32 running build/nandlab.elf beside
// nandlab_core, with a virtual die on the ONFI pins (the testbench attaches
// it). This is the address map firmware/hal/hal_target.c assumes; the CSR
// block is plain storage here (the generated nandlab_regs block is checked in
// hw/tb); the CPU, its memories, stream bridge and peripherals are the board's
// own subsystem (hw/rtl/nandlab_cpu_sys.sv), which the KCU105 top instantiates too.
//
//   0x0000_0000  64 KiB BRAM (code, data, stack), $readmemh(+firmware=<hex>)
//   0x3000_0000  16 KiB shared RAM (host port too)
//   0x4000_0000  CSR words 0x00..0x7C (host port too); CONTROL.SOFT_RESET
//                resets the core and the stream FIFOs
//   0x4000_1000  stream bridge: +0 push word, +4 vacancy, +8 pop result,
//                +C results waiting, +10 push last word (tlast)
//   0x4000_2000  the CPU's peripherals (hw/rtl/nandlab_cpu_periph.sv): I2C
//                master, PWM
//
// The I2C bus has its pull-ups here: a line is high unless the master or a
// target on it (the testbench's models, through i2c_*_pull) pulls it low.
//
// The testbench is the host: host_* is a one-cycle port into the CSR words
// and shared RAM (write on a clock edge; a CSR read is combinational, a shared
// RAM read gives the word at the address of the clock before).
//
// Profiling (bench/firmware_overhead.py): while prof_en is high, prof_clocks
// counts clocks per instruction word address of the CPU; lead_clocks the
// clocks before the sequencer's first program (the firmware's set-up of a
// job); starved_clocks, after that, the clocks the sequencer had nothing to do
// (no program word queued, PHY idle) or could not write a result, counted
// when it runs again (so the idle tail after the job's last program is not):
// the time the firmware costs the chip between operations. A falling prof_en
// writes the per-address counts to the +profile=<file> plusarg.
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_fw_soc #(
    parameter int CLK_PERIOD_PS = 10000
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        prof_en,
    input  wire        host_we,
    input  wire [31:0] host_addr,
    input  wire [31:0] host_wdata,
    output wire [31:0] host_rdata,
    output wire        trap,
    input  wire        i2c_scl_pull,   // a target holds SCL low (clock stretching)
    input  wire        i2c_sda_pull,   // a target pulls SDA low
    output wire        i2c_scl,        // the bus lines
    output wire        i2c_sda,
    output wire        pwm,            // heater / TEC drive
    output wire        pwm_cool,       // TEC direction: 1 = cooling
    `NANDLAB_ONFI_PINS(1)
);
    // ---- the CPU subsystem (the board's, hw/rtl/nandlab_cpu_sys.sv)
    reg  [31:0] csr [0:31];
    reg  [3:0]  soft_rst_q;
    wire        core_rst = rst || soft_rst_q != 0;
    wire        csr_sel, csr_we;
    wire [11:0] csr_addr;
    wire [31:0] csr_wdata;
    wire [3:0]  csr_wstrb;
    wire        soft_reset_write = csr_sel && csr_we && csr_addr[6:2] == 5'd4 && csr_wdata[0];
    wire [31:0] cmd_tdata, rsp_tdata, shared_rdata;
    wire        cmd_tvalid, cmd_tready, cmd_tlast, rsp_tvalid, rsp_tready, rsp_tlast;
    wire        fetch;
    wire [13:0] fetch_addr;
    wire        scl_oe, sda_oe;
    assign i2c_scl = !scl_oe && !i2c_scl_pull;
    assign i2c_sda = !sda_oe && !i2c_sda_pull;

    nandlab_cpu_sys u_sys (
        .clk(clk), .rst(rst), .trap(trap),
        .csr_sel(csr_sel), .csr_we(csr_we), .csr_addr(csr_addr), .csr_wdata(csr_wdata),
        .csr_wstrb(csr_wstrb), .csr_ready(1'b1), .csr_rdata(csr[csr_addr[6:2]]),
        .host_we(host_we && host_addr[31:28] == 4'h3), .host_addr(host_addr[13:2]),
        .host_wdata(host_wdata), .host_rdata(shared_rdata),
        .stream_flush(soft_rst_q != 0 || soft_reset_write),
        .m_axis_cmd_tdata(cmd_tdata), .m_axis_cmd_tvalid(cmd_tvalid),
        .m_axis_cmd_tready(cmd_tready), .m_axis_cmd_tlast(cmd_tlast),
        .s_axis_rsp_tdata(rsp_tdata), .s_axis_rsp_tvalid(rsp_tvalid),
        .s_axis_rsp_tready(rsp_tready), .s_axis_rsp_tlast(rsp_tlast),
        .i2c_scl_i(i2c_scl), .i2c_sda_i(i2c_sda), .i2c_scl_oe(scl_oe), .i2c_sda_oe(sda_oe),
        .pwm_o(pwm), .pwm_cool_o(pwm_cool), .fetch(fetch), .fetch_word(fetch_addr)
    );

    // the CSR block is plain storage here (see the header)
    function automatic [31:0] merge(input [31:0] old, input [31:0] new_, input [3:0] strb);
        merge = {strb[3] ? new_[31:24] : old[31:24], strb[2] ? new_[23:16] : old[23:16],
                 strb[1] ? new_[15:8] : old[15:8], strb[0] ? new_[7:0] : old[7:0]};
    endfunction

    integer i;
    always @(posedge clk) begin
        if (soft_rst_q != 0) soft_rst_q <= soft_rst_q - 4'd1;
        if (rst) begin
            for (i = 0; i < 32; i = i + 1) csr[i] <= 32'h0;
            csr[0] <= 32'h4E41_4E44;                          // ID
            csr[2] <= (CLK_PERIOD_PS << 8) | 32'd1;           // CONFIG: clock, one CE
            soft_rst_q <= 4'd0;
        end else begin
            if (csr_sel && csr_we && csr_addr[6:2] == 5'd4) begin
                // CONTROL: SOFT_RESET and CLEAR_COUNTERS are pulses
                csr[4] <= csr_wdata & ~32'h3;
                if (csr_wdata[0]) soft_rst_q <= 4'd8;
            end else if (csr_sel && csr_we) begin
                csr[csr_addr[6:2]] <= merge(csr[csr_addr[6:2]], csr_wdata, csr_wstrb);
            end
            if (host_we && host_addr[31:12] == 20'h40000) csr[host_addr[6:2]] <= host_wdata;
        end
    end

    // shared RAM words come a clock after their address (block RAM), CSR words at once
    assign host_rdata = host_addr[31:28] == 4'h3 ? shared_rdata :
                        host_addr[31:12] == 20'h40000 ? csr[host_addr[6:2]] : 32'h0;

    // ---- profiling
    reg [31:0]  prof_clocks [0:16383];
    reg [31:0]  starved_clocks, lead_clocks, gap_clocks;
    reg         seq_started;
    reg [13:0]  fetch_word;
    reg         prof_en_q;
    reg [1023:0] profile_file;
    wire        seq_waits_input = u_core.u_seq.state_q == 5'd0 || u_core.u_seq.state_q == 5'd1;
    initial begin
        for (i = 0; i < 16384; i = i + 1) prof_clocks[i] = 32'd0;
        starved_clocks = 32'd0;
        lead_clocks = 32'd0;
        gap_clocks = 32'd0;
        seq_started = 1'b0;
    end
    always @(posedge clk) begin
        prof_en_q <= prof_en;
        if (fetch) fetch_word <= fetch_addr;
        if (prof_en) begin
            prof_clocks[fetch_word] <= prof_clocks[fetch_word] + 32'd1;
            if (status_running) seq_started <= 1'b1;
            if (!seq_started && !status_running) begin
                lead_clocks <= lead_clocks + 32'd1;
            end else if (status_running && gap_clocks != 0) begin
                starved_clocks <= starved_clocks + gap_clocks;
                gap_clocks <= 32'd0;
            end else if ((seq_waits_input && !cmd_tvalid && u_core.phy_idle) || !rsp_tready) begin
                gap_clocks <= gap_clocks + 32'd1;
            end
        end
        if (prof_en_q && !prof_en && $value$plusargs("profile=%s", profile_file))
            $writememh(profile_file, prof_clocks);
    end

    wire [4:0]  status_state;
    wire        status_running;
    wire [3:0]  status_timing_mode;
    wire [7:0]  status_last_error, status_gpio;
    wire [0:0]  status_rb;
    wire [31:0] cnt_programs, cnt_errors;
    wire [63:0] cnt_busy_cycles;

    nandlab_core #(.NUM_CE(1), .CLK_PERIOD_PS(CLK_PERIOD_PS)) u_core (
        .clk(clk), .rst(core_rst),
        .s_axis_cmd_tdata(cmd_tdata), .s_axis_cmd_tvalid(cmd_tvalid),
        .s_axis_cmd_tready(cmd_tready), .s_axis_cmd_tlast(cmd_tlast),
        .m_axis_rsp_tdata(rsp_tdata), .m_axis_rsp_tvalid(rsp_tvalid),
        .m_axis_rsp_tready(rsp_tready), .m_axis_rsp_tlast(rsp_tlast),
        .csr_timing_override(1'b0), .csr_timing(152'h0), .csr_rsp_limit(32'h0),
        .csr_clear_counters(1'b0), .csr_dqs_delay(9'd0),
        .status_state(status_state), .status_running(status_running),
        .status_timing_mode(status_timing_mode), .status_last_error(status_last_error),
        .status_interface(),
        .status_gpio(status_gpio), .status_rb(status_rb), .cnt_programs(cnt_programs),
        .cnt_errors(cnt_errors), .cnt_busy_cycles(cnt_busy_cycles),
        .nand_ce_n(nand_ce_n), .nand_cle(nand_cle), .nand_ale(nand_ale),
        .nand_we_n(nand_we_n), .nand_re_n(nand_re_n), .nand_wp_n(nand_wp_n),
        .nand_rb_n(nand_rb_n), .nand_dq_i(nand_dq_i), .nand_dq_o(nand_dq_o),
        .nand_dq_oe(nand_dq_oe), .nand_dqs_i(nand_dqs_i), .nand_dqs_o(nand_dqs_o),
        .nand_dqs_oe(nand_dqs_oe)
    );
endmodule

`default_nettype wire

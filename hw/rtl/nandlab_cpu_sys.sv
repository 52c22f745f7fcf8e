// nandlab_cpu_sys: the board CPU subsystem (docs/firmware.md): PicoRV32
// (rv32imc with rdcycle, as firmware/Makefile builds) with its code RAM, the
// RAM it shares with the host, the stream bridge to the sequencer and its
// peripheral block (I2C master, PWM). The KCU105 top (nandlab_top_xdma, CPU=1)
// and the firmware-in-the-loop harness (firmware/sim/nandlab_fw_soc.sv) both
// instantiate it, so the firmware runs on one design in simulation and on the
// board. The CPU's address map (firmware/hal/hal_target.c):
//
//   0x0000_0000  64 KiB code RAM (code, data, stack); CODE_HEX fills it
//   0x3000_0000  16 KiB shared RAM, true dual port: the host's port is host_*
//   0x4000_0000  the CSR window (mailbox, ...): the csr_* request port, held
//                until csr_ready (the owner arbitrates it with the host)
//   0x4000_1000  stream bridge: +0 push word, +4 vacancy, +8 pop result,
//                +C results waiting, +10 push last word (tlast)
//   0x4000_2000  peripherals (nandlab_cpu_periph)
//
// Every access but the CSR window's takes one clock, as the memories are
// block RAMs with registered reads (the host port too: host_rdata is the
// word at host_addr of the clock before). The stream FIFOs (512 words each
// way) empty on stream_flush (the core's soft reset).
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_cpu_sys #(
    parameter CODE_HEX = ""  // firmware image, one hex word a line (nandlab.firmware.image)
) (
    input  wire        clk,
    input  wire        rst,
    output wire        trap,
    // CSR window: one request at a time, held until csr_ready
    output wire        csr_sel,
    output wire        csr_we,
    output wire [11:0] csr_addr,
    output wire [31:0] csr_wdata,
    output wire [3:0]  csr_wstrb,
    input  wire        csr_ready,
    input  wire [31:0] csr_rdata,
    // the host's port of the shared RAM (word address)
    input  wire        host_we,
    input  wire [11:0] host_addr,
    input  wire [31:0] host_wdata,
    output reg  [31:0] host_rdata,
    // op programs out, results in
    input  wire        stream_flush,
    `NANDLAB_AXIS_OUT(m_axis_cmd, 32),
    `NANDLAB_AXIS_IN(s_axis_rsp, 32),
    // I2C (open drain: *_oe = 1 pulls the line low), heater / TEC
    input  wire        i2c_scl_i,
    input  wire        i2c_sda_i,
    output wire        i2c_scl_oe,
    output wire        i2c_sda_oe,
    output wire        pwm_o,
    output wire        pwm_cool_o,
    // instruction fetches, for the harness's profile (word address in the code RAM)
    output wire        fetch,
    output wire [13:0] fetch_word
);
    localparam int FIFO_W = 9;  // 512 words each way

    wire        mem_valid, mem_instr;
    reg         mem_ready;
    wire [31:0] mem_addr, mem_wdata;
    wire [3:0]  mem_wstrb;
    reg  [31:0] mem_rdata;

    /* verilator lint_off PINCONNECTEMPTY */
    picorv32 #(
        .COMPRESSED_ISA(1), .ENABLE_MUL(1), .ENABLE_DIV(1), .ENABLE_COUNTERS(1),
        .PROGADDR_RESET(32'h0000_0000), .STACKADDR(32'h0001_0000)
    ) u_cpu (
        .clk(clk), .resetn(!rst), .trap(trap),
        .mem_valid(mem_valid), .mem_instr(mem_instr), .mem_ready(mem_ready),
        .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb),
        .mem_rdata(mem_rdata),
        // look-ahead bus, co-processor, IRQ and trace ports: unused here
        .mem_la_read(), .mem_la_write(), .mem_la_addr(), .mem_la_wdata(), .mem_la_wstrb(),
        .pcpi_valid(), .pcpi_insn(), .pcpi_rs1(), .pcpi_rs2(),
        .pcpi_wr(1'b0), .pcpi_rd(32'h0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
        .irq(32'h0), .eoi(), .trace_valid(), .trace_data()
    );
    /* verilator lint_on PINCONNECTEMPTY */

    wire in_code = mem_addr[31:16] == 16'h0000;
    wire in_shared = mem_addr[31:28] == 4'h3;
    wire in_csr = mem_addr[31:12] == 20'h40000;
    wire in_seq = mem_addr[31:12] == 20'h40001;
    wire in_periph = mem_addr[31:12] == 20'h40002;
    wire req = mem_valid && !mem_ready;
    wire write = req && mem_wstrb != 0;
    wire push = write && in_seq && (mem_addr[4:2] == 3'd0 || mem_addr[4:2] == 3'd4);
    wire pop = req && mem_wstrb == 0 && in_seq && mem_addr[4:2] == 3'd2;

    assign fetch = mem_valid && mem_instr && in_code;
    assign fetch_word = mem_addr[15:2];
    assign csr_sel = req && in_csr;
    assign csr_we = write;
    assign csr_addr = mem_addr[11:0];
    assign csr_wdata = mem_wdata;
    assign csr_wstrb = mem_wstrb;

    // ---- code RAM (one port, byte writes) and shared RAM (CPU port A, host port B).
    // Written as the block-RAM templates synthesis tools map to RAMB36 with byte
    // enables: registered reads, one process per port.
    reg [31:0] code [0:16383];
    reg [31:0] shared [0:4095];
    reg [31:0] code_rd, shared_rd;
    initial begin
        if (CODE_HEX != "") $readmemh(CODE_HEX, code);
    end
`ifndef SYNTHESIS
    // simulation: the harness names the image at run time (+firmware=<hex>)
    reg [1023:0] firmware;
    initial begin
        if ($value$plusargs("firmware=%s", firmware)) $readmemh(firmware, code);
    end
`endif

    always_ff @(posedge clk) begin
        if (req && in_code) begin
            for (int b = 0; b < 4; b++)
                if (mem_wstrb[b]) code[mem_addr[15:2]][8*b +: 8] <= mem_wdata[8*b +: 8];
            code_rd <= code[mem_addr[15:2]];
        end
    end

    /* verilator lint_off MULTIDRIVEN */
    // two processes write `shared`: the two ports of a true dual-port block RAM
    always_ff @(posedge clk) begin
        if (req && in_shared) begin
            for (int b = 0; b < 4; b++)
                if (mem_wstrb[b]) shared[mem_addr[13:2]][8*b +: 8] <= mem_wdata[8*b +: 8];
            shared_rd <= shared[mem_addr[13:2]];
        end
    end

    always_ff @(posedge clk) begin
        if (host_we) shared[host_addr] <= host_wdata;
        host_rdata <= shared[host_addr];
    end
    /* verilator lint_on MULTIDRIVEN */

    // ---- stream FIFOs between the CPU and the sequencer
    reg [32:0]       tx_q [0:(1<<FIFO_W)-1];  // {tlast, word}
    reg [31:0]       rx_q [0:(1<<FIFO_W)-1];
    reg [FIFO_W:0]   tx_wr, tx_rd, rx_wr, rx_rd;
    wire [FIFO_W:0]  tx_level = tx_wr - tx_rd;
    wire [FIFO_W:0]  rx_level = rx_wr - rx_rd;
    wire [FIFO_W:0]  tx_room = (FIFO_W+1)'(1 << FIFO_W) - tx_level;
    wire [32:0]      tx_head = tx_q[tx_rd[FIFO_W-1:0]];

    assign m_axis_cmd_tdata = tx_head[31:0];
    assign m_axis_cmd_tlast = tx_head[32];
    assign m_axis_cmd_tvalid = tx_level != 0;
    assign s_axis_rsp_tready = rx_level < (1 << FIFO_W);

    always_ff @(posedge clk) begin
        if (rst || stream_flush) begin
            tx_wr <= 0; tx_rd <= 0; rx_wr <= 0; rx_rd <= 0;
        end else begin
            if (push && tx_room != 0) begin
                tx_q[tx_wr[FIFO_W-1:0]] <= {mem_addr[4:2] == 3'd4, mem_wdata};
                tx_wr <= tx_wr + 1'b1;
            end
            if (m_axis_cmd_tvalid && m_axis_cmd_tready) tx_rd <= tx_rd + 1'b1;
            if (s_axis_rsp_tvalid && s_axis_rsp_tready) begin
                rx_q[rx_wr[FIFO_W-1:0]] <= s_axis_rsp_tdata;
                rx_wr <= rx_wr + 1'b1;
            end
            if (pop && rx_level != 0) rx_rd <= rx_rd + 1'b1;
        end
    end

    // ---- the bus: which region answers, and when
    localparam logic [1:0] FROM_CODE = 2'd0, FROM_SHARED = 2'd1, FROM_REG = 2'd2;
    reg [1:0]  from_q;
    reg [31:0] reg_rd;  // CSR, peripheral and bridge reads
    wire [31:0] periph_rdata;

    always_ff @(posedge clk) begin
        mem_ready <= 1'b0;
        if (!rst && req && (!in_csr || csr_ready)) begin
            mem_ready <= 1'b1;
            from_q <= in_code ? FROM_CODE : in_shared ? FROM_SHARED : FROM_REG;
            reg_rd <= 32'h0;
            if (in_csr) reg_rd <= csr_rdata;
            else if (in_periph) reg_rd <= periph_rdata;
            else if (in_seq) begin
                case (mem_addr[4:2])
                    3'd1: reg_rd <= 32'(tx_room);
                    3'd2: reg_rd <= rx_q[rx_rd[FIFO_W-1:0]];
                    3'd3: reg_rd <= 32'(rx_level);
                    default: reg_rd <= 32'h0;
                endcase
            end
        end
    end

    always_comb begin
        case (from_q)
            FROM_CODE: mem_rdata = code_rd;
            FROM_SHARED: mem_rdata = shared_rd;
            default: mem_rdata = reg_rd;
        endcase
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire rsp_tlast = s_axis_rsp_tlast;  // the CPU reads whole records, it counts words
    /* verilator lint_on UNUSEDSIGNAL */

    nandlab_cpu_periph u_periph (
        .clk(clk), .rst(rst), .sel(req && in_periph), .we(write),
        .addr(mem_addr[7:0]), .wdata(mem_wdata), .rdata(periph_rdata),
        .i2c_scl_i(i2c_scl_i), .i2c_sda_i(i2c_sda_i), .i2c_scl_oe(i2c_scl_oe),
        .i2c_sda_oe(i2c_sda_oe), .pwm_o(pwm_o), .pwm_cool_o(pwm_cool_o)
    );
endmodule

`default_nettype wire

// nandlab_cpu_bar: the host's user BAR of a top with the board CPU
// (nandlab_top_xdma, CPU=1), and the arbiter that lets the CPU reach the same
// CSR block (the mailbox) as the host. The BAR map's one source is
// hw/regs/nandlab_cpu_bar.rdl (the BAR_* localparams of nandlab_cpu_regs_pkg;
// docs/firmware.md):
//
//   BAR_CSR      the CSR block (nandlab_ctrl), shared with the CPU
//   BAR_CPU_CTRL STREAM_CPU: 1 = the sequencer's op-program and result streams
//                are the CPU's, 0 = the host's (reset); switch it only while
//                the sequencer is idle. CPU_ID: a constant that tells the host
//                this bitstream has the CPU
//   BAR_SHARED   the shared RAM's host port: programs, loop descriptors,
//                result rings, firmware images for LOAD
//
// Anything else in the 32 KiB reads 0 and ignores writes.
//
// One transaction at a time, host or CPU: when both wait, the one that did
// not go last goes (neither starves the other). The CSR block gets each as
// an AXI4-Lite transaction on m_axil_*; host writes to the shared RAM are
// whole words (the XDMA's AXI-Lite master writes 32 bits). A write of
// CONTROL.SOFT_RESET by either side pulses soft_reset, which empties the
// CPU's stream FIFOs as the core resets.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

`include "nandlab_ports.svh"

module nandlab_cpu_bar (
    input  wire        clk,
    input  wire        rst,
    // the host's AXI4-Lite (XDMA m_axil), 32 KiB window
    `NANDLAB_AXIL_SLAVE(15),
    // the CPU's CSR requests (nandlab_cpu_sys csr_*)
    input  wire        cpu_sel,
    input  wire        cpu_we,
    input  wire [11:0] cpu_addr,
    input  wire [31:0] cpu_wdata,
    input  wire [3:0]  cpu_wstrb,
    output wire        cpu_ready,
    output wire [31:0] cpu_rdata,
    // to the CSR block
    output wire [11:0] m_axil_awaddr,
    output wire [2:0]  m_axil_awprot,
    output wire        m_axil_awvalid,
    input  wire        m_axil_awready,
    output wire [31:0] m_axil_wdata,
    output wire [3:0]  m_axil_wstrb,
    output wire        m_axil_wvalid,
    input  wire        m_axil_wready,
    input  wire [1:0]  m_axil_bresp,
    input  wire        m_axil_bvalid,
    output wire        m_axil_bready,
    output wire [11:0] m_axil_araddr,
    output wire [2:0]  m_axil_arprot,
    output wire        m_axil_arvalid,
    input  wire        m_axil_arready,
    input  wire [31:0] m_axil_rdata,
    input  wire [1:0]  m_axil_rresp,
    input  wire        m_axil_rvalid,
    output wire        m_axil_rready,
    // the shared RAM's host port (read data a clock after the address)
    output wire        shared_we,
    output wire [11:0] shared_addr,
    output wire [31:0] shared_wdata,
    input  wire [31:0] shared_rdata,
    output reg         stream_cpu,
    output wire        soft_reset
);
    /* verilator lint_off UNUSEDSIGNAL */
    wire [5:0] prot = {s_axil_awprot, s_axil_arprot};  // every access is the same kind
    /* verilator lint_on UNUSEDSIGNAL */
    localparam logic [6:0] CONTROL = 7'h10;  // hw/regs/nandlab_regs.rdl; bit 0 SOFT_RESET
    localparam int CSR = nandlab_cpu_regs_pkg::BAR_CSR;
    localparam int CSR_SIZE = nandlab_cpu_regs_pkg::BAR_CSR_SIZE;
    localparam int CPU_CTRL = nandlab_cpu_regs_pkg::BAR_CPU_CTRL;
    localparam int STREAM_CPU = nandlab_cpu_regs_pkg::BAR_CPU_CTRL_STREAM_CPU_LSB;
    localparam logic [31:0] CPU_ID = nandlab_cpu_regs_pkg::BAR_CPU_CTRL_CPU_ID_VALUE
                                     << nandlab_cpu_regs_pkg::BAR_CPU_CTRL_CPU_ID_LSB;
    localparam int SHARED = nandlab_cpu_regs_pkg::BAR_SHARED;
    localparam int SHARED_SIZE = nandlab_cpu_regs_pkg::BAR_SHARED_SIZE;

    typedef enum logic [2:0] {IDLE, CSR_WRITE, CSR_READ, SHARED_READ, RESPOND} state_t;
    state_t state_q;

    reg        cpu_q, we_q, aw_q, w_q, ar_q, last_cpu_q;
    reg [11:0] addr_q;   // a CSR request's (the only kind that outlives its grant)
    reg [31:0] wdata_q, rdata_q;
    reg [3:0]  wstrb_q;
    reg [1:0]  resp_q;

    wire host_wr = s_axil_awvalid && s_axil_wvalid;
    wire host_req = host_wr || s_axil_arvalid;
    wire grant_cpu = state_q == IDLE && cpu_sel && (!host_req || !last_cpu_q);
    wire grant_host = state_q == IDLE && host_req && !grant_cpu;
    // the granted request, as one word
    wire        req_we = grant_cpu ? cpu_we : host_wr;
    wire [14:0] req_addr = grant_cpu ? {3'b000, cpu_addr} :
                           host_wr ? s_axil_awaddr : s_axil_araddr;
    wire [31:0] req_wdata = grant_cpu ? cpu_wdata : s_axil_wdata;
    // each window is aligned to its power-of-two size, so a mask decodes it
    wire        to_csr = ({17'h0, req_addr} & ~(CSR_SIZE - 1)) == CSR;
    wire        to_shared = ({17'h0, req_addr} & ~(SHARED_SIZE - 1)) == SHARED;
    wire        to_cpu_ctrl = {17'h0, req_addr} == CPU_CTRL;

    assign s_axil_awready = grant_host && host_wr;
    assign s_axil_wready = grant_host && host_wr;
    assign s_axil_arready = grant_host && !host_wr;
    assign s_axil_bvalid = state_q == RESPOND && !cpu_q && we_q;
    assign s_axil_rvalid = state_q == RESPOND && !cpu_q && !we_q;
    assign s_axil_bresp = resp_q;
    assign s_axil_rresp = resp_q;
    assign s_axil_rdata = rdata_q;
    assign cpu_ready = state_q == RESPOND && cpu_q;
    assign cpu_rdata = rdata_q;

    assign m_axil_awaddr = addr_q[11:0];
    assign m_axil_araddr = addr_q[11:0];
    assign m_axil_awprot = 3'b000;
    assign m_axil_arprot = 3'b000;
    assign m_axil_awvalid = aw_q;
    assign m_axil_wvalid = w_q;
    assign m_axil_wdata = wdata_q;
    assign m_axil_wstrb = wstrb_q;
    assign m_axil_bready = state_q == CSR_WRITE && !aw_q && !w_q;
    assign m_axil_arvalid = ar_q;
    assign m_axil_rready = state_q == CSR_READ && !ar_q;

    assign shared_we = grant_host && req_we && to_shared;
    assign shared_addr = req_addr[13:2];  // the word in the window (SHARED is size-aligned)
    assign shared_wdata = req_wdata;
    assign soft_reset = state_q == CSR_WRITE && m_axil_bvalid && m_axil_bready &&
                        addr_q[6:0] == CONTROL && wdata_q[0];

    always_ff @(posedge clk) begin
        if (rst) begin
            state_q <= IDLE;
            aw_q <= 1'b0; w_q <= 1'b0; ar_q <= 1'b0;
            last_cpu_q <= 1'b0;
            stream_cpu <= 1'b0;
        end else begin
            case (state_q)
                IDLE: if (grant_cpu || grant_host) begin
                    cpu_q <= grant_cpu;
                    last_cpu_q <= grant_cpu;
                    we_q <= req_we;
                    addr_q <= req_addr[11:0];
                    wdata_q <= req_wdata;
                    wstrb_q <= grant_cpu ? cpu_wstrb : s_axil_wstrb;
                    resp_q <= 2'b00;
                    rdata_q <= 32'h0;
                    if (to_csr) begin
                        aw_q <= req_we; w_q <= req_we; ar_q <= !req_we;
                        state_q <= req_we ? CSR_WRITE : CSR_READ;
                    end else if (to_shared) begin
                        state_q <= req_we ? RESPOND : SHARED_READ;
                    end else begin
                        // CPU_CTRL, and nothing elsewhere: the CPU's window is the CSR block's 4 KiB
                        if (req_we && to_cpu_ctrl) stream_cpu <= req_wdata[STREAM_CPU];
                        rdata_q <= to_cpu_ctrl ? CPU_ID | {31'h0, stream_cpu} << STREAM_CPU : 32'h0;
                        state_q <= RESPOND;
                    end
                end
                CSR_WRITE: begin
                    if (m_axil_awready) aw_q <= 1'b0;
                    if (m_axil_wready) w_q <= 1'b0;
                    if (m_axil_bvalid && m_axil_bready) begin
                        resp_q <= m_axil_bresp;
                        state_q <= RESPOND;
                    end
                end
                CSR_READ: begin
                    if (m_axil_arready) ar_q <= 1'b0;
                    if (m_axil_rvalid && m_axil_rready) begin
                        rdata_q <= m_axil_rdata;
                        resp_q <= m_axil_rresp;
                        state_q <= RESPOND;
                    end
                end
                SHARED_READ: begin
                    rdata_q <= shared_rdata;
                    state_q <= RESPOND;
                end
                RESPOND: begin
                    // the CPU takes its answer in this clock; the host when it is ready
                    if (cpu_q || (we_q ? s_axil_bready : s_axil_rready)) state_q <= IDLE;
                end
                default: state_q <= IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire

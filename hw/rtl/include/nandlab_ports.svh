// nandlab_ports.svh: port groups that several hw/rtl modules declare alike.
//
// Each macro expands to ANSI port declarations without a trailing comma, so
// it stands in a port list like one port. One definition per group keeps the
// modules that pass a group through (core, ctrl, the tops) from drifting
// apart. Every tool invocation adds hw/rtl/include to its include path.
`ifndef NANDLAB_PORTS_SVH
`define NANDLAB_PORTS_SVH

// AXI4-Stream in, W data bits: <name>_tdata, _tvalid, _tready, _tlast
`define NANDLAB_AXIS_IN(name, W) \
    input  wire [W-1:0]      name``_tdata, \
    input  wire              name``_tvalid, \
    output wire              name``_tready, \
    input  wire              name``_tlast

// AXI4-Stream out, W data bits: <name>_tdata, _tvalid, _tready, _tlast
`define NANDLAB_AXIS_OUT(name, W) \
    output wire [W-1:0]      name``_tdata, \
    output wire              name``_tvalid, \
    input  wire              name``_tready, \
    output wire              name``_tlast

// AXI4-Lite slave s_axil_*, 32-bit data, ADDR_W address bits
`define NANDLAB_AXIL_SLAVE(ADDR_W) \
    input  wire [ADDR_W-1:0] s_axil_awaddr, \
    input  wire [2:0]        s_axil_awprot, \
    input  wire              s_axil_awvalid, \
    output wire              s_axil_awready, \
    input  wire [31:0]       s_axil_wdata, \
    input  wire [3:0]        s_axil_wstrb, \
    input  wire              s_axil_wvalid, \
    output wire              s_axil_wready, \
    output wire [1:0]        s_axil_bresp, \
    output wire              s_axil_bvalid, \
    input  wire              s_axil_bready, \
    input  wire [ADDR_W-1:0] s_axil_araddr, \
    input  wire [2:0]        s_axil_arprot, \
    input  wire              s_axil_arvalid, \
    output wire              s_axil_arready, \
    output wire [31:0]       s_axil_rdata, \
    output wire [1:0]        s_axil_rresp, \
    output wire              s_axil_rvalid, \
    input  wire              s_axil_rready

// ONFI pins of a controller with NUM_CE chip enables (DQ and DQS split for the IO
// buffers; RE_c / DQS_c of the differential DDR modes are the board's OBUFDS / IOBUFDS)
`define NANDLAB_ONFI_PINS(NUM_CE) \
    output wire [NUM_CE-1:0] nand_ce_n, \
    output wire              nand_cle, \
    output wire              nand_ale, \
    output wire              nand_we_n, \
    output wire              nand_re_n, \
    output wire              nand_wp_n, \
    input  wire [NUM_CE-1:0] nand_rb_n, \
    input  wire [7:0]        nand_dq_i, \
    output wire [7:0]        nand_dq_o, \
    output wire              nand_dq_oe, \
    input  wire              nand_dqs_i, \
    output wire              nand_dqs_o, \
    output wire              nand_dqs_oe

`endif

// nandlab_cpu_periph_axil: nandlab_cpu_periph (I2C master, PWM) behind an
// AXI4-Lite slave, for the board CPU's interconnect in the KCU105 block design
// (hw/vivado/kcu105/cpu_bd.tcl; the firmware-in-the-loop harness uses the
// block's simple bus directly).
//
// One access at a time: a write takes its address and data together (the
// interconnect's usual order, both waited for), a read answers the cycle
// after its address. Whole-word accesses; the strobes are not looked at
// (every register is one word the firmware writes whole).
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_cpu_periph_axil (
    input  wire        clk,
    input  wire        rst,
    input  wire [7:0]  s_axil_awaddr,
    input  wire        s_axil_awvalid,
    output wire        s_axil_awready,
    input  wire [31:0] s_axil_wdata,
    input  wire        s_axil_wvalid,
    output wire        s_axil_wready,
    output wire [1:0]  s_axil_bresp,
    output reg         s_axil_bvalid,
    input  wire        s_axil_bready,
    input  wire [7:0]  s_axil_araddr,
    input  wire        s_axil_arvalid,
    output wire        s_axil_arready,
    output reg  [31:0] s_axil_rdata,
    output wire [1:0]  s_axil_rresp,
    output reg         s_axil_rvalid,
    input  wire        s_axil_rready,
    input  wire        i2c_scl_i,
    input  wire        i2c_sda_i,
    output wire        i2c_scl_oe,
    output wire        i2c_sda_oe,
    output wire        pwm_o,
    output wire        pwm_cool_o
);
    // a write goes first when both come; neither while a response waits
    wire do_write = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid && !s_axil_rvalid;
    wire do_read = s_axil_arvalid && !do_write && !s_axil_bvalid && !s_axil_rvalid;
    wire [31:0] rdata;

    assign s_axil_awready = do_write;
    assign s_axil_wready = do_write;
    assign s_axil_arready = do_read;
    assign s_axil_bresp = 2'b00;
    assign s_axil_rresp = 2'b00;

    always_ff @(posedge clk) begin
        if (rst) begin
            s_axil_bvalid <= 1'b0;
            s_axil_rvalid <= 1'b0;
            s_axil_rdata <= 32'h0;
        end else begin
            if (do_write) s_axil_bvalid <= 1'b1;
            else if (s_axil_bready) s_axil_bvalid <= 1'b0;
            if (do_read) begin
                s_axil_rvalid <= 1'b1;
                s_axil_rdata <= rdata;
            end else if (s_axil_rready) begin
                s_axil_rvalid <= 1'b0;
            end
        end
    end

    nandlab_cpu_periph u_periph (
        .clk(clk), .rst(rst), .sel(do_write || do_read), .we(do_write),
        .addr(do_write ? s_axil_awaddr : s_axil_araddr), .wdata(s_axil_wdata), .rdata(rdata),
        .i2c_scl_i(i2c_scl_i), .i2c_sda_i(i2c_sda_i), .i2c_scl_oe(i2c_scl_oe),
        .i2c_sda_oe(i2c_sda_oe), .pwm_o(pwm_o), .pwm_cool_o(pwm_cool_o)
    );
endmodule

`default_nettype wire

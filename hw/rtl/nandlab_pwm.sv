// nandlab_pwm: the heater / TEC drive of the board CPU's temperature loop.
//
// `pwm_o` is high for `duty` clocks of every `period` clocks (always high when
// duty >= period, off when period = 0); `cool_o` is the TEC's direction pin.
// Period, duty and direction are taken together at the start of a period, so
// an update never cuts a pulse short or flips the direction mid-pulse.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_pwm #(
    parameter int WIDTH = 24   // counter bits: longest period 2^WIDTH - 1 clocks
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [WIDTH-1:0] period,
    input  wire [WIDTH-1:0] duty,
    input  wire             cool,
    output reg              pwm_o,
    output reg              cool_o
);
    reg [WIDTH-1:0] cnt_q, period_q, duty_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            cnt_q <= '0;
            period_q <= '0;
            duty_q <= '0;
            pwm_o <= 1'b0;
            cool_o <= 1'b0;
        end else begin
            if (period_q == '0 || cnt_q == period_q - 1'b1) begin
                cnt_q <= '0;
                period_q <= period;
                duty_q <= duty;
                cool_o <= cool;
                pwm_o <= period != '0 && duty != '0;
            end else begin
                cnt_q <= cnt_q + 1'b1;
                pwm_o <= cnt_q + 1'b1 < duty_q;
            end
        end
    end
endmodule

`default_nettype wire

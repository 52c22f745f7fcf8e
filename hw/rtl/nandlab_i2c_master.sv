// nandlab_i2c_master: byte-level I2C controller of the board CPU (power
// monitors, temperature sensor).
//
// One command is an optional (repeated) START, an optional byte written (then
// the target's ACK taken) or read (then ACK or NACK given), an optional STOP.
// Between commands the bus stays held (SCL low), so a register read is
// START+address, register, START+address|R, bytes, STOP as five commands.
// A bit is four quarters of `quarter` clocks: SDA changes a quarter after SCL
// falls, SCL is high for two quarters and sampled after the first; a target
// that stretches SCL holds the high half. With quarter >= 650 ns the bus meets
// I2C fast mode (NXP UM10204 table 10: tLOW >= 1.3 us, tHIGH >= 0.6 us,
// tSU;STA, tHD;STA, tSU;STO >= 0.6 us, tBUF >= 1.3 us).
// The pins are open drain: *_oe = 1 pulls the line low.
//
// Clock / reset: clk, rst (active-high, synchronous).
`default_nettype none

module nandlab_i2c_master (
    input  wire        clk,
    input  wire        rst,
    input  wire [15:0] quarter,     // clocks per quarter SCL period (0 counts as 1)
    input  wire        cmd_valid,   // one-cycle pulse: take the command below (ignored while busy)
    input  wire        cmd_start,
    input  wire        cmd_write,
    input  wire        cmd_read,
    input  wire        cmd_nack,    // after a read: answer NACK
    input  wire        cmd_stop,
    input  wire [7:0]  cmd_data,
    output wire        busy,
    output reg         nacked,      // the target did not acknowledge the last byte written
    output reg  [7:0]  rx_data,
    input  wire        scl_i,
    input  wire        sda_i,
    output reg         scl_oe,
    output reg         sda_oe
);
    typedef enum logic [3:0] {
        S_IDLE, S_START0, S_START1, S_START2, S_START3, S_START4,
        S_BIT1, S_BIT2, S_BIT3, S_BIT4, S_STOP1, S_STOP2, S_STOP3
    } state_t;

    state_t      state_q;
    reg  [15:0]  cnt_q;
    reg  [3:0]   bit_q;      // 8..1 data bits (MSB first), 0 the acknowledge
    reg  [7:0]   shift_q;
    reg          rd_q, wr_q, nack_q, stop_q;
    reg  [1:0]   scl_sync, sda_sync;

    wire scl = scl_sync[1];
    wire sda = sda_sync[1];
    wire tick = cnt_q == 16'd0;
    // Each state is the quarter before its action. START2, BIT3 and STOP3 follow the
    // release of SCL: their quarter counts only once the line is high (stretching).
    wire scl_wait = (state_q == S_START2 || state_q == S_BIT3 || state_q == S_STOP3) && !scl;
    wire [15:0] reload = quarter == 16'd0 ? 16'd0 : quarter - 16'd1;

    assign busy = state_q != S_IDLE;

    always_ff @(posedge clk) begin
        scl_sync <= {scl_sync[0], scl_i};
        sda_sync <= {sda_sync[0], sda_i};
        if (rst) begin
            state_q <= S_IDLE;
            cnt_q <= 16'd0;
            bit_q <= 4'd0;
            shift_q <= 8'd0;
            {rd_q, wr_q, nack_q, stop_q} <= 4'b0;
            scl_oe <= 1'b0;
            sda_oe <= 1'b0;
            nacked <= 1'b0;
            rx_data <= 8'd0;
        end else if (state_q == S_IDLE) begin
            if (cmd_valid) begin
                {rd_q, wr_q, nack_q, stop_q} <= {cmd_read && !cmd_write, cmd_write, cmd_nack, cmd_stop};
                shift_q <= cmd_data;
                bit_q <= 4'd8;
                cnt_q <= reload;
                if (cmd_write) nacked <= 1'b0;
                state_q <= cmd_start ? S_START0 :
                           (cmd_write || cmd_read) ? S_BIT1 :
                           cmd_stop ? S_STOP1 : S_IDLE;
                if (cmd_start) sda_oe <= 1'b0;  // SDA up first (SCL may be low: a repeated START)
            end
        end else if (scl_wait) begin
            cnt_q <= reload;
        end else if (!tick) begin
            cnt_q <= cnt_q - 16'd1;
        end else begin
            cnt_q <= reload;
            case (state_q)
                // two quarters before SCL rises: a repeated START follows a held
                // bus, whose SCL low must last tLOW like any other
                S_START0: state_q <= S_START1;
                S_START1: begin scl_oe <= 1'b0; state_q <= S_START2; end
                S_START2: begin sda_oe <= 1'b1; state_q <= S_START3; end  // SDA falls, SCL high
                S_START3: begin scl_oe <= 1'b1; state_q <= S_START4; end
                S_START4: state_q <= (wr_q || rd_q) ? S_BIT1 : stop_q ? S_STOP1 : S_IDLE;
                S_BIT1: begin
                    // SCL low for a quarter: put the bit on SDA
                    if (bit_q != 4'd0) sda_oe <= wr_q && !shift_q[7];
                    else sda_oe <= rd_q && !nack_q;  // our ACK after a read, else released
                    state_q <= S_BIT2;
                end
                S_BIT2: begin scl_oe <= 1'b0; state_q <= S_BIT3; end
                S_BIT3: begin
                    // a quarter into SCL high: sample
                    if (bit_q != 4'd0) shift_q <= {shift_q[6:0], sda};
                    else if (wr_q) nacked <= sda;
                    state_q <= S_BIT4;
                end
                S_BIT4: begin
                    scl_oe <= 1'b1;
                    if (bit_q != 4'd0) begin
                        bit_q <= bit_q - 4'd1;
                        state_q <= S_BIT1;
                    end else begin
                        // an ACK we drive stays until the next command's first
                        // quarter: released with SCL falling it would have no hold
                        if (rd_q) rx_data <= shift_q;
                        state_q <= stop_q ? S_STOP1 : S_IDLE;
                    end
                end
                S_STOP1: begin sda_oe <= 1'b1; state_q <= S_STOP2; end
                S_STOP2: begin scl_oe <= 1'b0; state_q <= S_STOP3; end
                S_STOP3: begin sda_oe <= 1'b0; state_q <= S_IDLE; end     // SDA rises, SCL high
                default: state_q <= S_IDLE;
            endcase
        end
    end
endmodule

`default_nettype wire

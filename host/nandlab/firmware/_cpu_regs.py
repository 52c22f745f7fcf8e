"""Register map of the board CPU's peripherals.

generated from hw/regs/nandlab_cpu_regs.rdl by nandlab.firmware.cpu_regs, do not edit
"""
# ruff: noqa: E501  (generated: descriptions are kept on one line)

from nandlab.regs.model import Field, Register

REGISTERS: tuple[Register, ...] = (
    Register('ID', 0x000, 'Identification', (
        Field('MAGIC', 0, 32, 'r', 1129338192, '0x43505550'),
    )),
    Register('I2C_CLOCK', 0x004, 'I2C clock', (
        Field('QUARTER', 0, 16, 'rw', 250, 'core clocks per quarter SCL period, at least 1'),
    )),
    Register('I2C_CMD', 0x008, 'I2C command', (
        Field('DATA', 0, 8, 'w', 0, 'byte to write'),
        Field('START', 8, 1, 'w', 0, '1: a START (a repeated START when the bus is held) first'),
        Field('WRITE', 9, 1, 'w', 0, "1: write DATA, then take the target's acknowledge"),
        Field('READ', 10, 1, 'w', 0, '1: read a byte (WRITE = 0)'),
        Field('NACK', 11, 1, 'w', 0, 'after a read: 1 = answer NACK (the last byte), 0 = ACK'),
        Field('STOP', 12, 1, 'w', 0, '1: a STOP last'),
    )),
    Register('I2C_STATUS', 0x00C, 'I2C status', (
        Field('BUSY', 0, 1, 'r', 0, '1 while a command runs'),
        Field('NACKED', 1, 1, 'r', 0, '1: the target did not acknowledge the last byte written'),
        Field('RX_DATA', 8, 8, 'r', 0, 'the last byte read'),
    )),
    Register('PWM_PERIOD', 0x010, 'PWM period', (
        Field('CLOCKS', 0, 24, 'rw', 0, 'core clocks per PWM period; 0 = output off'),
    )),
    Register('PWM_DUTY', 0x014, 'PWM duty', (
        Field('CLOCKS', 0, 24, 'rw', 0, 'core clocks the output is high per period'),
        Field('COOL', 31, 1, 'rw', 0, 'TEC direction pin: 1 = cooling'),
    )),
)
"""Every register, in address order."""

# The host's user BAR with the CPU, generated from hw/regs/nandlab_cpu_bar.rdl, do not edit
BAR_CSR = 0x0
BAR_CSR_SIZE = 0x1000
BAR_CPU_CTRL = 0x1000
BAR_CPU_CTRL_STREAM_CPU_LSB = 0
BAR_CPU_CTRL_STREAM_CPU_W = 1
BAR_CPU_CTRL_CPU_ID_LSB = 16
BAR_CPU_CTRL_CPU_ID_W = 16
BAR_CPU_CTRL_CPU_ID_VALUE = 0x4350
BAR_SHARED = 0x4000
BAR_SHARED_SIZE = 0x4000
CPU_CTRL = Register('CPU_CTRL', 0x1000, 'CPU control', (
    Field('STREAM_CPU', 0, 1, 'rw', 0, "1: the sequencer's program and result streams are the CPU's, 0: H2C / C2H (reset); switch only while the sequencer is idle"),
    Field('CPU_ID', 16, 16, 'r', 17232, "0x4350 ('CP'): the bitstream has the board CPU"),
))
"""CPU_CTRL, at BAR_CPU_CTRL."""

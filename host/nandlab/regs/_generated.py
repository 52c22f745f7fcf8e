"""Register map of the nandlab ONFI controller.

generated from hw/regs/nandlab_regs.rdl by nandlab.hwgen.regs, do not edit
"""
# ruff: noqa: E501  (generated: register descriptions are kept on one line)

from nandlab.regs.model import Field, Register

REGISTERS: tuple[Register, ...] = (
    Register(
        'ID', 0x000, 'Identification',
        (
            Field('MAGIC', 0, 32, 'r', 1312902724, '0x4E414E44'),
        ),
    ),
    Register(
        'VERSION', 0x004, 'Version',
        (
            Field('REGS_MINOR', 0, 8, 'r', 3, 'register map minor version'),
            Field('REGS_MAJOR', 8, 8, 'r', 1, 'register map major version'),
            Field('OPS_SPEC', 16, 8, 'r', 0, 'op program spec version the sequencer implements (spec.yaml)'),
        ),
    ),
    Register(
        'CONFIG', 0x008, 'Build configuration',
        (
            Field('NUM_CE', 0, 8, 'r', 0, 'number of chip enables (targets)'),
            Field('CLK_PERIOD_PS', 8, 24, 'r', 0, 'core clock period in ps'),
        ),
    ),
    Register(
        'CONTROL', 0x010, 'Control',
        (
            Field('SOFT_RESET', 0, 1, 'rw', 0, 'write 1: abort the running program and reset the sequencer and PHY'),
            Field('CLEAR_COUNTERS', 1, 1, 'rw', 0, 'write 1: clear the statistics counters'),
            Field('TIMING_OVERRIDE', 8, 1, 'rw', 0, '1: the PHY uses the TIMING_* registers instead of the preset of the current timing mode'),
        ),
    ),
    Register(
        'STATUS', 0x014, 'Status',
        (
            Field('SEQ_STATE', 0, 5, 'r', 0, 'sequencer state (0 = idle, waiting for a program)'),
            Field('RUNNING', 5, 1, 'r', 0, '1 while a program runs'),
            Field('TIMING_MODE', 8, 4, 'r', 0, 'timing mode selected by the last TIMING instruction'),
            Field('INTERFACE', 12, 3, 'r', 0, 'data interface of the last TIMING instruction (op spec Interface: 0 SDR, 2 NV-DDR2, 3 NV-DDR3, 4 Toggle)'),
            Field('LAST_ERROR', 16, 8, 'r', 0, 'error code of the last ERROR record (0 = none since reset)'),
            Field('GPIO', 24, 8, 'r', 0, 'GPIO levels (bit 0 WP#, bits 7:1 supply enables)'),
        ),
    ),
    Register(
        'RB_STATUS', 0x018, 'Ready/busy pins',
        (
            Field('RB', 0, 8, 'r', 0, 'synchronised R/B# level per target (1 = ready)'),
        ),
    ),
    Register(
        'RSP_LIMIT', 0x01C, 'Result stream limit',
        (
            Field('WORDS', 0, 32, 'rw', 0, 'limit in 32-bit words, 0 = none'),
        ),
    ),
    Register(
        'TIMING_WRITE', 0x020, 'Timing override: write cycle (clock cycles)',
        (
            Field('T_WP', 0, 8, 'rw', 0, 'tWP: WE# low'),
            Field('T_WH', 8, 8, 'rw', 0, 'tWH: WE# high'),
            Field('T_WC', 16, 8, 'rw', 0, 'tWC: write cycle'),
            Field('T_DS', 24, 8, 'rw', 0, 'tDS: data setup to WE# high'),
        ),
    ),
    Register(
        'TIMING_READ', 0x024, 'Timing override: read cycle (clock cycles)',
        (
            Field('T_RP', 0, 8, 'rw', 0, 'tRP: RE# low'),
            Field('T_REH', 8, 8, 'rw', 0, 'tREH: RE# high'),
            Field('T_RC', 16, 8, 'rw', 0, 'tRC: read cycle'),
            Field('T_REA', 24, 8, 'rw', 0, 'DQ capture point: cycles after RE# low (> tREA)'),
        ),
    ),
    Register(
        'TIMING_SETUP', 0x028, 'Timing override: setup and hold (clock cycles)',
        (
            Field('T_CLS', 0, 8, 'rw', 0, 'tCLS: CLE setup to WE# high'),
            Field('T_ALS', 8, 8, 'rw', 0, 'tALS: ALE setup to WE# high'),
            Field('T_CS', 16, 8, 'rw', 0, 'tCS: CE# low to the first strobe'),
            Field('T_DH', 24, 8, 'rw', 0, 'tDH: data hold after WE# high'),
        ),
    ),
    Register(
        'TIMING_TURN', 0x02C, 'Timing override: turnaround (clock cycles)',
        (
            Field('T_WB', 0, 8, 'rw', 0, 'tWB: WE# high to R/B# valid'),
            Field('T_WHR', 8, 8, 'rw', 0, 'tWHR: WE# high to RE# low'),
            Field('T_RHW', 16, 8, 'rw', 0, 'tRHW: RE# high to WE# low'),
            Field('T_ADL', 24, 8, 'rw', 0, 'tADL: last address to first data-in WE# high'),
        ),
    ),
    Register(
        'TIMING_CCS', 0x030, 'Timing override: column change, output release, write protect (clock cycles)',
        (
            Field('T_CCS', 0, 8, 'rw', 0, 'tCCS: change column setup (after E0h before RE#, after 85h address before data)'),
            Field('T_IR', 8, 8, 'rw', 0, 'tIR: DQ released before RE# low'),
            Field('T_WW', 16, 8, 'rw', 0, 'tWW: WP# change to WE# low'),
        ),
    ),
    Register(
        'DQS_DELAY', 0x034, 'DQS capture delay (DDR interfaces)',
        (
            Field('LANE0', 0, 9, 'rw', 0, 'byte lane 0 (DQ[7:0]) capture delay, taps'),
            Field('LANE1', 16, 9, 'rw', 0, 'byte lane 1 (DQ[15:8], x16 parts) capture delay, taps'),
        ),
    ),
    Register(
        'CNT_PROGRAMS', 0x040, 'Programs run',
        (
            Field('COUNT', 0, 32, 'r', 0, 'programs completed (END record sent), wraps'),
        ),
    ),
    Register(
        'CNT_ERRORS', 0x044, 'Program errors',
        (
            Field('COUNT', 0, 32, 'r', 0, 'ERROR records sent, wraps'),
        ),
    ),
    Register(
        'CNT_BUSY_LO', 0x048, 'Busy cycles, low word',
        (
            Field('COUNT', 0, 32, 'r', 0, 'clock cycles R/B# was seen low by WAIT_RDY, bits 31:0'),
        ),
    ),
    Register(
        'CNT_BUSY_HI', 0x04C, 'Busy cycles, high word',
        (
            Field('COUNT', 0, 32, 'r', 0, 'clock cycles R/B# was seen low by WAIT_RDY, bits 63:32'),
        ),
    ),
    Register(
        'MBX_CMD', 0x050, 'Mailbox command',
        (
            Field('CODE', 0, 8, 'rw', 0, 'command code (docs/firmware.md)'),
            Field('SEQ', 8, 8, 'rw', 0, 'sequence number; the host changes it for every command'),
        ),
    ),
    Register(
        'MBX_ARG0', 0x054, 'Mailbox argument',
        (
            Field('VALUE', 0, 32, 'rw', 0, 'argument word'),
        ),
    ),
    Register(
        'MBX_ARG1', 0x058, 'Mailbox argument',
        (
            Field('VALUE', 0, 32, 'rw', 0, 'argument word'),
        ),
    ),
    Register(
        'MBX_ARG2', 0x05C, 'Mailbox argument',
        (
            Field('VALUE', 0, 32, 'rw', 0, 'argument word'),
        ),
    ),
    Register(
        'MBX_ARG3', 0x060, 'Mailbox argument',
        (
            Field('VALUE', 0, 32, 'rw', 0, 'argument word'),
        ),
    ),
    Register(
        'MBX_STATUS', 0x064, 'Mailbox status',
        (
            Field('STATE', 0, 4, 'rw', 0, '0 idle, 1 busy, 2 done, 3 error'),
            Field('SEQ', 8, 8, 'rw', 0, 'SEQ of the command this status answers'),
            Field('ERROR', 16, 8, 'rw', 0, 'firmware error code, 0 = none (docs/firmware.md)'),
        ),
    ),
    Register(
        'MBX_RESULT', 0x068, 'Mailbox result',
        (
            Field('VALUE', 0, 32, 'rw', 0, 'result or error detail'),
        ),
    ),
    Register(
        'MBX_RES_HEAD', 0x06C, 'Result ring head',
        (
            Field('WORDS', 0, 32, 'rw', 0, 'words produced'),
        ),
    ),
    Register(
        'MBX_RES_TAIL', 0x070, 'Result ring tail',
        (
            Field('WORDS', 0, 32, 'rw', 0, 'words consumed'),
        ),
    ),
    Register(
        'MBX_FW_VERSION', 0x074, 'Firmware version',
        (
            Field('MINOR', 0, 8, 'rw', 0, 'firmware minor version'),
            Field('MAJOR', 8, 8, 'rw', 0, 'firmware major version'),
            Field('PROTOCOL', 16, 8, 'rw', 0, 'mailbox protocol version'),
        ),
    ),
    Register(
        'MBX_HEARTBEAT', 0x078, 'Firmware heartbeat',
        (
            Field('COUNT', 0, 32, 'rw', 0, 'poll count, wraps'),
        ),
    ),
)
"""Every register, in address order."""

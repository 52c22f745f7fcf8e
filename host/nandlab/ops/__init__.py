"""Op programs: the one wire format between host, firmware and RTL (contract 1).

spec.yaml defines it; `python -m nandlab.ops.codegen` generates the Python
(`_generated.py`), C (firmware/include/nandlab_ops.h) and SystemVerilog
(hw/rtl/nandlab_ops_pkg.sv) encodings from it.

- `Program` and its instructions (`Ce`, `Cmd`, `Addr`, `Din`, `DinPattern`,
  `Dout`, `DoutCompare`, `WaitRdy`, `Delay`, `Mark`, `Power`, `Timing`,
  `Gpio`): build, `encode()`, `Program.decode()`.
- `Results` and its records (`DataRecord`, `BusyRecord`, `ErrCountRecord`,
  `PowerRecord`, `MarkRecord`, `ErrorRecord`, `EndRecord`):
  `encode_results()`, `decode_results()`.
- `Pattern` and `pattern_bytes()`: the on-board pattern generator.
"""

from nandlab.ops._generated import (
    MAX_ADDR_BYTES,
    MAX_INSTRUCTIONS,
    MAX_LEN,
    MAX_SDR_MODE,
    PRBS_DEFAULT_SEED,
    ErrorCode,
    Interface,
    Opcode,
    PatternKind,
    ResultTag,
)
from nandlab.ops.pattern import Pattern, pattern_bytes
from nandlab.ops.program import (
    WAIT_TIMEOUT_MARGIN,
    Addr,
    Ce,
    Cmd,
    Delay,
    Din,
    DinPattern,
    Dout,
    DoutCompare,
    Gpio,
    Instruction,
    Mark,
    Power,
    Program,
    Timing,
    WaitRdy,
)
from nandlab.ops.results import (
    BusyRecord,
    DataRecord,
    EndRecord,
    ErrCountRecord,
    ErrorRecord,
    MarkRecord,
    PowerRecord,
    Record,
    Results,
    decode_results,
    encode_results,
)

__all__ = [
    "MAX_ADDR_BYTES",
    "MAX_INSTRUCTIONS",
    "MAX_LEN",
    "MAX_SDR_MODE",
    "PRBS_DEFAULT_SEED",
    "Addr",
    "BusyRecord",
    "Ce",
    "Cmd",
    "DataRecord",
    "Delay",
    "Din",
    "DinPattern",
    "Dout",
    "DoutCompare",
    "EndRecord",
    "ErrCountRecord",
    "ErrorCode",
    "ErrorRecord",
    "Gpio",
    "Instruction",
    "Interface",
    "Mark",
    "MarkRecord",
    "Opcode",
    "Pattern",
    "PatternKind",
    "Power",
    "PowerRecord",
    "Program",
    "Record",
    "ResultTag",
    "Results",
    "Timing",
    "WAIT_TIMEOUT_MARGIN",
    "WaitRdy",
    "decode_results",
    "encode_results",
    "pattern_bytes",
]

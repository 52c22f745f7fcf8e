"""ONFI SDR (asynchronous) interface timing, modes 0..5, in nanoseconds.

Values from the ONFI specification as tabulated in Linux nand_timings.c
(tCR, CE# low to RE# low, is the ONFI table's; Linux does not list it).
tR, tPROG, tBERS and tCCS come from the parameter page, not from here.
Minima unless the name says otherwise: tREA, tCEA, tWB, tRHZ and tCHZ are the
die's maxima (the controller waits at least that long), tRLOH, tRHOH and tCOH
the die's output holds (the controller samples DQ before they end).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SdrTiming:
    mode: int
    tRC: int
    tWC: int
    tREA: int
    tRP: int
    tWP: int
    tREH: int
    tWH: int
    tWB: int
    tWHR: int
    tRHW: int
    tCS: int
    tDS: int
    tDH: int
    tCLS: int
    tALS: int
    tADL: int = 400
    tCCS: int = 500
    tFEAT: int = 1000
    tITC: int = 1000
    tCLH: int = 5
    tALH: int = 5
    tCH: int = 5
    tCLR: int = 10
    tAR: int = 10
    tRR: int = 20
    tRLOH: int = 0
    tRHOH: int = 15
    tCOH: int = 15
    tIR: int = 0
    tCEA: int = 25
    tCHZ: int = 50
    tRHZ: int = 100
    tWW: int = 100
    tCR: int = 10


SDR_MODES: tuple[SdrTiming, ...] = (
    SdrTiming(0, 100, 100, 40, 50, 50, 30, 30, 200, 120, 200, 70, 40, 20, 50, 50,
              tCLH=20, tALH=20, tCH=20, tCLR=20, tAR=25, tRR=40, tRHOH=0, tCOH=0,
              tIR=10, tCEA=100, tCHZ=100, tRHZ=200),
    SdrTiming(1, 50, 45, 30, 25, 25, 15, 15, 100, 80, 100, 35, 20, 10, 25, 25,
              tCLH=10, tALH=10, tCH=10, tCEA=45),
    SdrTiming(2, 35, 35, 25, 17, 17, 15, 15, 100, 80, 100, 25, 15, 5, 15, 15,
              tCLH=10, tALH=10, tCH=10, tCEA=30),
    SdrTiming(3, 30, 30, 20, 15, 15, 10, 10, 100, 80, 100, 25, 10, 5, 10, 10),
    SdrTiming(4, 25, 25, 20, 12, 12, 10, 10, 100, 80, 100, 20, 10, 5, 10, 10,
              tRLOH=5, tCHZ=30),
    SdrTiming(5, 20, 20, 16, 10, 10, 7, 7, 100, 80, 100, 15, 7, 5, 10, 10,
              tRLOH=5, tCHZ=30),
)


def sdr(mode: int) -> SdrTiming:
    """Timing of SDR mode 0..5; raises ValueError naming the allowed range."""
    if not 0 <= mode < len(SDR_MODES):
        raise ValueError(f"SDR timing mode {mode} does not exist: use 0..{len(SDR_MODES) - 1}")
    return SDR_MODES[mode]

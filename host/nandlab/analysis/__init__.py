"""One measurement vocabulary: bit errors, RBER with its confidence interval, latency and
energy, computed once for schemes, characterization, campaigns, reports and
reproductions. It knows measured data and datasheet figures only (never the
virtual die).
"""

from nandlab.analysis.bit_errors import (
    BitErrors,
    bit_errors,
    cell_bit_errors,
    chunk_bit_errors,
    chunk_error_counts,
    pack_cells,
    pool_bit_errors,
    unpack_cells,
)
from nandlab.analysis.energy import (
    ARRAY_READ_KINDS,
    operation_energy_uJ,
    read_energy_uJ,
    samples_energy_uJ,
    segments_energy_uJ,
)
from nandlab.analysis.latency import LatencyStats
from nandlab.analysis.rate import Rate, format_rate

__all__ = [
    "ARRAY_READ_KINDS",
    "BitErrors",
    "LatencyStats",
    "Rate",
    "bit_errors",
    "cell_bit_errors",
    "chunk_bit_errors",
    "chunk_error_counts",
    "format_rate",
    "operation_energy_uJ",
    "pack_cells",
    "pool_bit_errors",
    "read_energy_uJ",
    "samples_energy_uJ",
    "segments_energy_uJ",
    "unpack_cells",
]

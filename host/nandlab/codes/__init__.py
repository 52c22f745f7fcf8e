"""Error-correcting codes, pure math (no chip, no transport).

`qc_ldpc`: the rate-0.89 (9216, 8192) QC-LDPC code of the PiF / CoX-PM chip and
its systematic encoder; `decoders`: the in-chip bit-flipping decoder and the
controller's min-sum decoder. The virtual CoX-PM die and the host's `cox-pm`
scheme both import it (see docs/codes.md).
"""

from nandlab.codes.decoders import bitflip_decode, min_sum_decode, soft_read_llrs
from nandlab.codes.qc_ldpc import QCLDPCCode, base_matrix, build_code, pif_code

__all__ = [
    "QCLDPCCode",
    "base_matrix",
    "bitflip_decode",
    "build_code",
    "min_sum_decode",
    "pif_code",
    "soft_read_llrs",
]

"""The PiF / CoX-PM code: a rate-0.89 (9216, 8192) quasi-cyclic LDPC code.

The parity-check matrix H (1024 x 9216) is an 8 x 72 array of 128 x 128 blocks
(`Z`). Block (r, c) is zero (`.` in `_BASE_SHIFTS`) or the identity with its
columns cyclically shifted by s: H[r*Z + i, c*Z + (i + s) % Z] = 1.

- Every column has weight 5 and every row weight 45 (a regular (5, 45) code).
  Block columns 0..63 carry the 8192 message bits: the 56 five-row sets of the
  8 block rows, then the 8 cyclic sets {j..j+4}. Block columns 64..71 carry
  the 1024 parity bits, column j in block rows j, j+1, j+2, j+3, j+5 (mod 8).
- Odd column weight is what makes H full rank: with every column of even
  weight the rows would sum to zero. Over GF(2)[x]/(x^128 + 1) =
  GF(2)[x]/((x + 1)^128) a block matrix is invertible iff its determinant at
  x = 1 is 1, i.e. iff its 0/1 pattern is invertible over GF(2); the parity
  pattern (the polynomial 1 + x + x^2 + x^3 + x^5 modulo x^8 + 1, an odd number
  of terms) is, so the parity part is invertible whatever the shifts and a
  systematic encoder exists.
- Weight 5 rather than 3 or 4 because the hard-decision bit-flipping decoder
  needs the votes: on the same search, weight 4 left 15 % of frames with 45
  errors undecoded, weight 5 none of 200 (docs/codes.md).
- The shifts were chosen column by column by a seeded greedy search: no
  4-cycle (girth 6: 6-cycles cannot all be avoided at Z = 128 with 45 blocks
  a row), fewest 6-cycles among 40 random candidates per column.

A codeword is [message | parity]: systematic, parity = Hp^-1 Hs message.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from nandlab.errors import RangeError

Z = 128
"""Circulant size: every block of H is Z x Z."""

_BASE_SHIFTS = (
    " 107 104  39  28  42 114   4  24 107 110  17  89 123  89 118  87 122  25"
    "  46  41 125  32  79  93  70 102  19  54  97  95  47 111 123 121 127   ."
    "   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   ."
    "   .   .  81   .   .   .  63  10 103  36  93   .   . 119   .  24 114  51",
    "  33  57  71  81  44 112  37  61 106 117  94 127 118  77  10  34  56 118"
    "  39  68   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .  64"
    "  40  19  12  57  30  78   2  60   4 106  84   1  11  73   .   .   .   ."
    "   .   .  13 115   .   .   .  16 104  71 106 112   .   .  12   .  69 116",
    "  13  11  33 119  74  99  61  70  55  76   .   .   .   .   .   .   .   ."
    "   .   . 113  82  93  18  30  78  59  11  78  41   .   .   .   .   .  82"
    "  69  98 106  48  97  46 127  54  69   .   .   .   .   .  24   9  34  79"
    "  73   .  85  92 108   .   .   .   2  92  51  17 110   .   .  35   .  49",
    "  38  42  19 123   .   .   .   .   .   .  13  44  26  88  66  49   .   ."
    "   .   . 113 125  77  46  38  60   .   .   .   .  63   3  22 127   . 114"
    "  19 115  39  89  27   .   .   .   .  62 115 107  90   .   5  49  82   8"
    "   .  48  88 105 104  33   .   .   .  83 127   0  68  44   .   .  57   .",
    "  52   .   .   .  65 125   1   .   .   .  80   4  84   .   .   . 109  74"
    "  21   .  95  83   6   .   .   .  67  46  87   .  84  74 114   .  16  56"
    " 127  82   .   .   .  23  30 100   .  47 104 112   . 115 101  51  82   ."
    "  33  35  61 116  41  25  99   .   .   .   . 107  49  63  80   .   .  67",
    "   .  76   .   .  88   .   .  71 123   .  20   .   .  20  82   .   3  58"
    "   .  75  14   .   .  54  22   .  63  80   .  68 119  12   . 122  29  87"
    "   .   .  86 104   .  63  59   .  88 114  20   .  17  12  77 111   .  13"
    " 124  17   .  36  79  87  50 109   .   .  69   .  95   6  39  31   .   .",
    "   .   .  95   .   .  40   .  37   .  61   . 123   .  94   .  47  46   ."
    " 116 101   .   7   .  70   .  27  49   . 105  38  37   .   9 117  47   ."
    "   8   .  41   .  15 125   .  95  50 105   . 100  55  40  12   .  74   9"
    "  80  75   .   . 121 119  56  34  12   .   . 106   .  63  15   5  28   .",
    "   .   .   . 111   .   .  78   .  96  41   .   .  77   .  50  52   .  41"
    "  97  99   .   .  54   . 125   2   .   7  31  74   .  80   0  94  89   ."
    "   .  32   . 103  96   .  14   2  80   .  55  65  22  10   . 107  57  30"
    "  36  64   .   .   .  52  99  52 111  29   .   .  81   . 117  11  18 121",
)
"""Base matrix, one string per block row (8), 72 entries each: the circulant shift
of each block, `.` for a zero block."""


def base_matrix() -> np.ndarray:
    """The 8 x 72 base matrix: shift of each block, -1 for a zero block."""
    return np.array(
        [[-1 if tok == "." else int(tok) for tok in row.split()] for row in _BASE_SHIFTS],
        dtype=np.int64,
    )


@dataclass(frozen=True, eq=False)
class QCLDPCCode:
    """A quasi-cyclic LDPC code with a systematic encoder.

    The Tanner graph is kept as index arrays (edges numbered check by check):
    `check_ptr[c]:check_ptr[c+1]` are the edges of check c, `edge_bit[e]` the
    bit of edge e; `bit_ptr[b]:bit_ptr[b+1]` index `bit_edge`, the edges of bit b.
    """

    z: int
    shifts: np.ndarray
    check_ptr: np.ndarray
    edge_bit: np.ndarray
    bit_ptr: np.ndarray
    bit_edge: np.ndarray
    bit_check: np.ndarray
    """Check of each entry of `bit_edge` (the checks of each bit, bit-major)."""
    parity_inverse: np.ndarray
    """Hp^-1 over GF(2), m x m, as float32 0/1 so a matrix product counts exactly."""

    @property
    def n(self) -> int:
        """Codeword length in bits."""
        return int(self.shifts.shape[1] * self.z)

    @property
    def m(self) -> int:
        """Number of parity checks (= parity bits: H is full rank)."""
        return int(self.shifts.shape[0] * self.z)

    @property
    def k(self) -> int:
        """Message length in bits."""
        return self.n - self.m

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """(check, bit) of every 1 in H, check-major."""
        checks = np.repeat(np.arange(self.m), np.diff(self.check_ptr))
        return checks, self.edge_bit.copy()

    def syndrome(self, words: np.ndarray) -> np.ndarray:
        """H * word (mod 2) of each row of `words` (frames x n, 0/1): frames x m uint8."""
        w = _frames(words, self.n, "word")
        return np.bitwise_xor.reduceat(w[:, self.edge_bit], self.check_ptr[:-1], axis=1)

    def encode(self, messages: np.ndarray) -> np.ndarray:
        """Systematic codewords [message | parity] of each row of `messages` (frames x k)."""
        msg = _frames(messages, self.k, "message")
        padded = np.zeros((msg.shape[0], self.n), dtype=np.uint8)
        padded[:, : self.k] = msg
        s = self.syndrome(padded).astype(np.float32)
        padded[:, self.k :] = (s @ self.parity_inverse.T).astype(np.int64) & 1
        return padded


def _frames(words: np.ndarray, length: int, what: str) -> np.ndarray:
    arr = np.asarray(words)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != length:
        raise RangeError(f"a {what} is {length} bits (0/1 values), got shape {np.shape(words)}")
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise RangeError(f"a {what} holds bits: values 0 or 1 only")
    return arr.astype(np.uint8)


def _gf2_inverse(a: np.ndarray) -> np.ndarray:
    """Inverse of a square 0/1 matrix over GF(2) (Gauss-Jordan on packed rows)."""
    size = a.shape[0]
    aug = np.packbits(np.concatenate([a, np.eye(size, dtype=np.uint8)], axis=1), axis=1)
    for col in range(size):
        byte, mask = col >> 3, np.uint8(0x80 >> (col & 7))
        below = np.nonzero(aug[col:, byte] & mask)[0]
        if below.size == 0:
            raise ValueError("parity part of H is singular over GF(2)")
        pivot = col + below[0]
        if pivot != col:
            aug[[col, pivot]] = aug[[pivot, col]]
        hits = np.nonzero(aug[:, byte] & mask)[0]
        hits = hits[hits != col]
        aug[hits] ^= aug[col]
    return np.unpackbits(aug, axis=1)[:, size:]


def build_code(shifts: np.ndarray, z: int) -> QCLDPCCode:
    """Expand a base matrix of circulant shifts (-1 = zero block) into a code.

    The last `shifts.shape[0]` block columns are the parity part; it must be
    invertible over GF(2).
    """
    mb, nb = shifts.shape
    n, m = nb * z, mb * z
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    i = np.arange(z)
    for r in range(mb):
        for c in range(nb):
            s = int(shifts[r, c])
            if s >= 0:
                rows.append(r * z + i)
                cols.append(c * z + (i + s) % z)
    row = np.concatenate(rows)
    col = np.concatenate(cols)
    order = np.lexsort((col, row))
    row, col = row[order], col[order]
    check_ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=m), out=check_ptr[1:])
    bit_order = np.argsort(col, kind="stable")
    bit_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(col, minlength=n), out=bit_ptr[1:])
    hp = np.zeros((m, m), dtype=np.uint8)
    parity = col >= n - m
    hp[row[parity], col[parity] - (n - m)] = 1
    return QCLDPCCode(
        z=z,
        shifts=shifts,
        check_ptr=check_ptr,
        edge_bit=col.astype(np.int64),
        bit_ptr=bit_ptr,
        bit_edge=bit_order.astype(np.int64),
        bit_check=row[bit_order].astype(np.int64),
        parity_inverse=_gf2_inverse(hp).astype(np.float32),
    )


@cache
def pif_code() -> QCLDPCCode:
    """The (9216, 8192) code of the PiF / CoX-PM chip (built once per process)."""
    return build_code(base_matrix(), Z)

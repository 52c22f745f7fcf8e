"""The virtual CoX-PM die's decoder and pattern matcher (protocol in `nandlab.onfi_spec.coxpm`).

`CoxPmEngine` runs set_pattern and read_when_matched on a part whose profile
declares `vendor.coxpm`. A read_when_matched senses the page like any read
(tR, the array's physics, raw bit errors and all), then decodes each 1 KiB
sub-page with the weak bit-flipping decoder of `nandlab.codes` on the SENSED
bits and runs the matcher on the corrected, de-randomised data.

Iteration cap: the decoder handles one block column (Z = 128 bits, which share
no check) per clock, so a pass over a codeword is 72 cycles. The page's
t_decode_match_us (the paper's 40 µs per 16 KiB page) split over its
sub-pages, at decoder_MHz, bounds the passes per sub-page (`max_passes`: 17
for 2.5 µs at 500 MHz); a sub-page still unsolved then is a decoding failure.
The matcher is a plain multi-pattern search of the data; the chip's bit-split
automaton gives the same answer, only cheaper in silicon.

Time: the non-cache form holds R/B# low for tR + t_decode_match_us. In the
cache form the previous page is decoded and matched while this one is sensed,
so R/B# returns after the longer of the two: a scan costs tR per page when
tR >= t_decode_match_us. The decoder and matcher draw logic_mW extra (over
idle, on VCC) while they run, overlapping the sensing in the cache form.
Patterns survive RESET (the matcher's tables are only rewritten by set_pattern).
"""

from __future__ import annotations

from enum import Enum, auto

import numpy as np

from nandlab.onfi_spec.coxpm import (
    SUBPAGE_BYTES,
    Outcome,
    codewords,
    matches,
    parse_patterns,
    plain_data,
    status_bits,
)
from nandlab.profiles.coxpm_model import CoxPm
from nandlab.vchip.array_ops import ArrayOps
from nandlab.vchip.clock import US
from nandlab.vchip.parts import DiePart, DieParts
from nandlab.vchip.power import Phase

CODEWORD_BLOCK_COLUMNS = 72
"""Block columns of the (9216, 8192) code at Z = 128: the decoder's cycles per pass."""


def max_passes(spec: CoxPm, subpages: int) -> int:
    """Bit-flipping passes per sub-page that fit the page's decode budget (at least 1)."""
    cycles = spec.t_decode_match_us / subpages * spec.decoder_MHz
    return max(1, int(cycles // CODEWORD_BLOCK_COLUMNS))


class _Seq(Enum):
    PATTERN = auto()
    MATCH = auto()


class _Sensed:
    """A page in the page buffer: its address and stored bytes (data + spare) as sensed."""

    def __init__(self, block: int, page: int, stored: np.ndarray) -> None:
        self.block, self.page, self.stored = block, page, stored


class CoxPmEngine(DiePart):
    """set_pattern and read_when_matched (single, cache and last forms) on one die."""

    def __init__(self, parts: DieParts, ops: ArrayOps) -> None:
        super().__init__(parts)
        self._ops = ops
        self._page_bytes = parts.profile.geometry.page_bytes
        self.patterns: list[bytes] = []
        self.reset()

    def reset(self) -> None:
        """RESET: no open sequence, no pending page, no output (patterns stay)."""
        self._seq: _Seq | None = None
        self._addr: list[int] = []
        self._din = bytearray()
        self._out = b""
        self._column = 0
        self.pending: _Sensed | None = None

    def cmd(self, byte: int) -> bool:
        """A command cycle; False when it is not a CoX-PM command (any open sequence ends)."""
        c = self._profile.vendor.coxpm
        seq, self._seq = self._seq, None
        if c is None:
            return False
        if seq is _Seq.PATTERN and byte == c.pattern_confirm:
            self._set_pattern(c)
        elif seq is _Seq.MATCH and byte in (c.match_confirm, c.match_cache_confirm):
            self._match(c, cache=byte == c.match_cache_confirm)
        elif byte in (c.pattern_cmd, c.match_cmd):
            self._seq = _Seq.PATTERN if byte == c.pattern_cmd else _Seq.MATCH
            self._addr, self._din = [], bytearray()
        elif byte == c.match_last_cmd:
            self._last(c)
        else:
            return False
        return True

    def addr(self, byte: int) -> None:
        if self._seq is _Seq.MATCH:
            self._addr.append(byte & 0xFF)

    def write(self, data: bytes) -> None:
        if self._seq is _Seq.PATTERN:
            self._din += data

    def read(self, n: int) -> bytes:
        """Data out of the last outcome (FFh past its end)."""
        out = self._out[self._column : self._column + n]
        self._column += n
        return out + b"\xff" * (n - len(out))

    def _output(self, data: bytes) -> None:
        self._out, self._column = data, 0

    def _set_pattern(self, c: CoxPm) -> None:
        self._output(b"")
        pats = parse_patterns(bytes(self._din))
        self.patterns = pats or []
        fail = {p: pats is None for p in range(self._profile.geometry.planes)}
        clock = self._clock
        clock.complete(clock.array_start() + round(c.t_set_pattern_us * US), fail)

    def _logic(self, start: int, c: CoxPm) -> int:
        """The decoder and matcher running from `start`; returns when they finish."""
        end = start + round(c.t_decode_match_us * US)
        p = self._profile.power
        self._clock.power.add(start, end, Phase.READ, p.idle_mA + c.logic_mW / p.vcc_V)
        return end

    def _match(self, c: CoxPm, cache: bool) -> None:
        self._output(b"")
        t = self._addresses.decode_row(self._addr)
        clock = self._clock
        if not t.valid:
            clock.record(clock.array_start(), {t.plane: True})
            return
        start = clock.array_start()
        self._ops.read(t, soft=False, copyback=False)
        sensed = _Sensed(t.block, t.page, self._buffer.planes[t.plane].data.copy())
        sense_end = clock.rdy_until
        if not cache:
            outcome = self._decode(c, sensed)
            end = self._logic(sense_end, c)
        else:
            prev, self.pending = self.pending, sensed
            outcome, end = Outcome.NOT_MATCHED, sense_end
            if prev is not None:
                outcome = self._decode(c, prev)
                end = max(sense_end, self._logic(start, c))
        clock.complete(end, flags=status_bits(outcome))

    def _last(self, c: CoxPm) -> None:
        self._output(b"")
        prev, self.pending = self.pending, None
        clock = self._clock
        start = clock.array_start()
        if prev is None:
            clock.complete(start, flags=status_bits(Outcome.NOT_MATCHED))
            return
        outcome = self._decode(c, prev)
        clock.complete(self._logic(start, c), flags=status_bits(outcome))

    def _decode(self, c: CoxPm, page: _Sensed) -> Outcome:
        """Decode and match `page`, set the data out; the outcome."""
        # the code (and numba with it) loads on the first decode, not with the die
        from nandlab.codes import bitflip_decode, pif_code

        raw = page.stored.tobytes()
        subpages = self._page_bytes // SUBPAGE_BYTES
        bits, ok, _ = bitflip_decode(
            pif_code(), codewords(raw, self._page_bytes), max_iterations=max_passes(c, subpages)
        )
        if not ok.all():
            self._output(raw)
            return Outcome.DECODING_FAILURE
        data = plain_data(page.block, page.page, bits)
        if matches(data, self.patterns):
            self._output(data)
            return Outcome.MATCHED
        return Outcome.NOT_MATCHED

"""Search-in-Memory (Chen, Chang and Kuo): in-chip search and gather, optimistic ECC.

`SimSearch` drives a part that declares `vendor.search` (page format and
protocol in `nandlab.onfi_spec.search`):

- `store` writes a SiM page: 504 eight-byte data slots behind the
  verification header, chunk-randomised, with each chunk's ECC in the spare.
- `search(block, page, key, mask)` opens the page with its 256-byte
  verification read and checks magic and CRC-64 and the page's age. When they
  hold, the chip searches with the failed-bit threshold t (default 2): every
  slot within t bits of the key under the mask is a candidate; the candidates'
  chunks are gathered with their ECC, corrected, and compared exactly on the
  host (t = 0 takes the chip's bitmap as the answer: the paper's search). When
  a check fails or a gathered chunk fails its ECC, the page is read in full, every chunk is
  corrected by its ECC (with read-retry over the read reference offsets until
  every chunk decodes), and the match is computed on the host: the answer is
  the corrected page's, or `UncorrectableData`.
- `gather(block, page, chunks)` returns the chosen chunks, each checked and
  corrected by its own ECC (the concatenated code); a chunk that fails falls
  back to the full, retried read.
- `point_query` is the paper's B+tree leaf lookup (keys in one page, values
  in another): search the key page, gather the value chunk.

What each call moved is counted from the op programs it ran (`Traffic`):
bytes on the chip bus in each direction and bytes handed to the host.

What the threshold buys: a matching slot is missed only if it has more than t
raw bit errors under the mask, and an answer is wrong only then or when a chunk
with three or more errors is miscorrected and passes its CRC-16. With t = 2, the
errors the chunk code always detects, no page whose chunks each hold at most two
raw bit errors (data and ECC bytes) can give a wrong answer, young or old. The
verification read and the age margin (`max_age_s`, default 6 months: the
paper's Sec. IV-C2) stay in front: pages failing either are read in full;
`max_age_s=None` drops the margin (an ablation).
`SearchAnswer.path` says which path produced each answer.

With `measure_io` (a bench with "power"), SiM commands run in the part's match mode
and full page reads in its storage mode (`vendor.search` rates, as NV-DDR3 modes),
and every data transfer sits in its own POWER window: `Traffic.io_nJ` is the I/O
energy the die's supply samples show (VCCQ x their charge), `Traffic.io_ns` its
bus time (Table I of the paper).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from nandlab.analysis import operation_energy_uJ, samples_energy_uJ
from nandlab.errors import RangeError, UncorrectableData, UnsupportedCapability
from nandlab.onfi import Chip
from nandlab.onfi.results import busy_steps, data_records
from nandlab.onfi.target import Controller
from nandlab.onfi_spec.nvddr_timing import mode_for_rate
from nandlab.onfi_spec.search import (
    CHUNK_BYTES,
    CHUNK_DETECTS,
    CHUNK_SLOTS,
    CHUNKS,
    DATA_BYTES,
    DATA_SLOTS,
    GATHER_UNIT,
    HEADER_SLOTS,
    MAX_THRESHOLD,
    SAMPLE_BYTES,
    SLOT_BYTES,
    SLOTS,
    bitmap_bits,
    chunk_map,
    correct_chunk,
    derandomize,
    encode_page,
    sample_ok,
    timestamp_of,
)
from nandlab.ops import Din, Dout, Program, Results
from nandlab.profiles import Profile
from nandlab.schemes.sim_search_data import (
    FULL_MASK,
    SearchAnswer,
    Stats,
    Traffic,
    as_word,
    correct_page,
    host_match,
)
from nandlab.schemes.vendor_permit import require_permit
from nandlab.sequences import core
from nandlab.sequences import search as seq

SAFETY_MARGIN_S = 4380 * 3600.0
"""The age margin (6 months): the paper names no value. Below it the part's SLC pages must
be error-free for the optimistic path to be right: on slc-search fresh pages are at any wear,
but worn ones are not (characterization/sim: 40K P/E pages one month old answer wrong)."""
RETRY_OFFSETS_MV = (*(-30.0 * i for i in range(1, 14)), 30.0, 60.0)
"""Read-retry offsets of the SLC reference, tried in order: down to -390 mV in 30 mV steps
first (retention lowers Vth), then up (read disturb raises the erased cells)."""
IO_INTERFACE = "nv-ddr3"
"""The interface of the paper's bus rates (Table II: match mode is NV-DDR3 timing mode 1)."""
IO_PERIOD_NS = 1
"""POWER sample period of the I/O windows: a byte at 800 MT/s is 1.25 ns."""
DEFAULT_THRESHOLD = CHUNK_DETECTS
"""The search's failed-bit threshold: the bit errors a chunk code always sees. A matching
slot with at most this many raw bit errors is a candidate, and its chunk (holding at least
those errors) is either corrected or refused by the chunk ECC, never passed on wrong."""


class SimSearch:
    """The sim-search scheme on one chip (refused with UnsupportedCapability without
    `vendor.search`)."""

    name = "sim-search"
    title = "Search-in-Memory: in-chip search / gather, optimistic error correction"

    def __init__(
        self,
        chip: Chip,
        *,
        retry_offsets_mV: Sequence[float] = RETRY_OFFSETS_MV,
        max_age_s: float | None = SAFETY_MARGIN_S,
        clock: Callable[[], float] = time.time,
        threshold: int = DEFAULT_THRESHOLD,
        measure_io: bool = False,
        allow_test_mode: bool = False,
    ) -> None:
        """Pages written more than `max_age_s` ago by `clock` (seconds; the clock `store`
        timestamps with) are read in full: the paper's safety margin. None: the ablation
        without it (the verification read alone decides). `threshold`: the search's
        failed-bit threshold t; t >= 1 makes the chip's bitmap a candidate list that the
        host confirms on the gathered, ECC-checked chunks; t = 0 takes the bitmap as the
        answer (the paper's search; RangeError outside 0..63). `measure_io`: run at
        the part's match / storage bus rates and measure each transfer's I/O energy
        (UnsupportedCapability without "power"; RangeError when no NV-DDR3 mode has the
        rate, or the part or bench does not run it); `restore_interface` puts the bus back.
        `allow_test_mode`: the permit every SiM command it issues (page-open, search,
        gather) needs (`vendor_permit`); `store`, `read_verified` and `page_read` need none."""
        problem = self.unsupported(chip)
        if problem is not None:
            raise UnsupportedCapability(problem)
        if not 0 <= threshold <= MAX_THRESHOLD:
            raise RangeError(
                f"sim-search failed-bit threshold {threshold} out of range 0..{MAX_THRESHOLD} "
                "(bits of a 64-bit slot that may differ from the key)"
            )
        self.threshold = threshold
        self.allow_test_mode = allow_test_mode
        self.chip = chip
        spec = chip.profile.vendor.search
        assert spec is not None
        self._spec = spec
        self.retry_offsets_mV = tuple(retry_offsets_mV)
        self.max_age_s, self.clock = max_age_s, clock
        self.traffic = Traffic()
        self.stats = Stats()
        self.measure_io = measure_io
        self._modes: dict[str, int] = {}
        self._mode: str | None = None
        self._before = chip.interface
        if measure_io:
            if not chip.transport.supports("power"):
                why = chip.transport.cannot("power")
                raise UnsupportedCapability(f"sim-search I/O energy: {why}")
            self._modes = {
                "match": _mode_at(spec.match_bus_MTps),
                "storage": _mode_at(spec.storage_bus_MTps),
            }

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        return cls.unsupported_on(chip.transport, chip.profile)

    @staticmethod
    def unsupported_on(t: Controller, profile: Profile) -> str | None:
        """Why the scheme cannot run on bench `t` with a part of `profile`, or None."""
        if profile.vendor.search is None:
            name = profile.name
            return f"sim-search needs the Search-in-Memory commands (vendor.search) of {name}"
        if not t.supports("search"):
            return f"sim-search on {profile.name}: {t.cannot('search')}"
        return None

    # ------------------------------------------------------------- plumbing

    def _run(self, program: Program, what: str, kind: str) -> list[bytes]:
        """Run a SiM vendor command (every one goes through here, behind the permit)."""
        require_permit(self.allow_test_mode, what)
        self.traffic.add(program)
        results = self._metered(program, what, "match")
        self._busy(kind, sum(busy_steps(results)))
        return [bytes(r) for r in results.data]

    def _metered(self, program: Program, what: str, mode: str) -> Results:
        """Run `program`; with measure_io, in bus mode `mode` ("match" / "storage") with a
        POWER window around each data transfer, whose time and energy go to the traffic."""
        if not self.measure_io:
            return self.chip.run(program, what)
        if self._mode != mode:
            self.chip.use_interface(IO_INTERFACE, self._modes[mode])
            self._mode = mode
        windowed = Program()
        for ins in program:
            if isinstance(ins, Din | Dout):
                windowed.power_start(IO_PERIOD_NS).append(ins).power_stop()
            else:
                windowed.append(ins)
        results = self.chip.run(windowed, what)
        vccq = self.chip.profile.power.vccq_V
        for rec in results.power:
            self.traffic.io_ns += rec.period_ns * len(rec.samples_uA)
            self.traffic.io_nJ += 1000.0 * samples_energy_uJ(rec.samples_uA, rec.period_ns, vccq)
        return results

    def restore_interface(self) -> None:
        """Back to the interface the chip was in before (after measure_io switched it)."""
        if self._mode is not None:
            self.chip.use_interface(self._before.interface, self._before.mode)
            self._mode = None

    def page_read(self, block: int, page: int, length: int) -> tuple[bytes, int]:
        """READ of `length` bytes from column 0 in storage mode: (data, busy ns). Counted in
        the traffic (chip out, a sensing, its busy time and energy)."""
        self._check(block, page)
        self.chip.refuse_bad([block], False, f"SiM read block {block}")
        geo = self.chip.geometry
        program = core.page_read(
            self.chip.sdr, geo.full_address(block, page, 0), length, self.chip.timeouts.read
        )
        self.traffic.add(program)
        self.traffic.sensings += 1
        results = self._metered(program, f"READ block {block} page {page}", "storage")
        busy = sum(busy_steps(results))
        self._busy("read", busy)
        return data_records(results)[0], busy

    def _busy(self, kind: str, busy_ns: int) -> None:
        us = busy_ns / 1000.0
        self.traffic.busy_us += us
        self.traffic.energy_uJ += operation_energy_uJ(self.chip.profile, kind, us)

    def _check(self, block: int, page: int) -> None:
        self.chip.check_address(block, page, False)

    # ---------------------------------------------------------------- store

    def store(
        self,
        block: int,
        page: int,
        slots: Sequence[int] | bytes,
        *,
        user_header: bytes = b"",
        timestamp: int | None = None,
    ) -> None:
        """Program one SiM page: up to 504 slot values (uint64) or 4032 bytes (the rest zero)."""
        self._check(block, page)
        if isinstance(slots, bytes | bytearray):
            data = bytes(slots)
        else:
            if len(slots) > DATA_SLOTS:
                raise RangeError(f"{len(slots)} slots do not fit a SiM page (at most {DATA_SLOTS})")
            data = b"".join(as_word(int(v), f"slot value {i}") for i, v in enumerate(slots))
        if len(data) > DATA_SLOTS * SLOT_BYTES:
            raise RangeError(f"{len(data)} bytes do not fit a SiM page's {DATA_SLOTS * 8}")
        data = data.ljust(DATA_SLOTS * SLOT_BYTES, b"\x00")
        if timestamp is None:
            timestamp = int(self.clock())
        stored = encode_page(block, page, data, timestamp=timestamp, user_header=user_header)
        self.chip.program_page(block, page, stored)

    # ---------------------------------------------------------- full read

    def read_verified(self, block: int, page: int) -> tuple[bytes, int, int]:
        """The plain data area (4096 B, header chunk included) read in full and corrected
        chunk by chunk, with read-retry; (data, retries, bits corrected). UncorrectableData
        when some chunk fails at every offset."""
        self._check(block, page)
        geo = self.chip.geometry
        offsets = (0.0, *self.retry_offsets_mV)
        try:
            for retry, mV in enumerate(offsets):
                if retry:
                    self.chip.set_read_offset_mV(0, mV)
                raw, _ = self.page_read(block, page, geo.total_bytes)
                fixed = correct_page(raw, geo.page_bytes)
                if fixed is not None:
                    stored, bits = fixed
                    self.stats.retries += retry
                    self.stats.corrected_bits += bits
                    return derandomize(block, page, 0, stored), retry, bits
        finally:
            if len(offsets) > 1:
                self.chip.reset_read_offsets()
        raise UncorrectableData(
            f"SiM page b{block}/p{page}: a chunk fails its ECC at every read offset "
            f"({', '.join(f'{o:g}' for o in offsets)} mV)"
        )

    # ------------------------------------------------------------- search

    def open(self, block: int, page: int, *, verify: bool = True) -> str | None:
        """page-open (the active page); with verify, why the page must be read in full
        ("crc": the verification read fails; "age": older than max_age_s), else None."""
        self._check(block, page)
        row = self.chip.geometry.row_bytes(block, page)
        n = SAMPLE_BYTES if verify else 0
        out = self._run(
            seq.page_open(self.chip.sdr, self._spec, row, n, self.chip.timeouts.read),
            f"SiM page-open b{block}/p{page}",
            "read",
        )
        self.traffic.sensings += 1
        if not verify:
            return None
        if not sample_ok(block, page, out[0]):
            return "crc"
        if self.max_age_s is not None:
            written = timestamp_of(derandomize(block, page, 0, out[0][:CHUNK_BYTES]))
            if self.clock() - written > self.max_age_s:
                return "age"
        return None

    def search(
        self, block: int, page: int, key: int | bytes, mask: int | bytes = FULL_MASK
    ) -> SearchAnswer:
        """Data slots of the page whose bits under `mask` equal `key`'s (64-bit, big endian).
        With threshold 0 the chip's bitmap is the answer; with t >= 1 it names candidates,
        whose chunks are gathered, corrected by their ECC and compared on the host."""
        k, m = as_word(key, "key"), as_word(mask, "mask")
        reason, n = self.open(block, page), 0
        if reason is None:
            t = self.threshold
            out = self._run(
                seq.search(self.chip.sdr, self._spec, k, m, t, self.chip.timeouts.read),
                f"SiM search b{block}/p{page}",
                "xor",
            )
            bits = bitmap_bits(out[0])[:SLOTS].copy()
            bits[:HEADER_SLOTS] = False
            self.traffic.host += len(out[0])
            n = int(bits.sum())
            confirmed = self._confirm(block, page, bits, k, m) if t else (bits, 0)
            if not isinstance(confirmed, str):
                self.stats.chip_answers += 1
                self.stats.corrected_bits += confirmed[1]
                return SearchAnswer(block, page, confirmed[0], "chip", 0, confirmed[1], n)
            reason = confirmed
        data, retries, fixed = self.read_verified(block, page)
        self.stats.fallbacks += 1
        self.traffic.host += DATA_BYTES
        path = f"fallback:{reason}"
        return SearchAnswer(block, page, host_match(data, k, m), path, retries, fixed, n)

    def _confirm(
        self, block: int, page: int, candidates: np.ndarray, key: bytes, mask: bytes
    ) -> tuple[np.ndarray, int] | str:
        """The candidates' chunks gathered and compared exactly on the host: (matches, bits
        the ECC corrected); or "ecc" when a chunk fails its ECC (the page is then read in
        full). All 63 data chunks with their ECC (4284 B) still cost less than a full read."""
        chunks = sorted({int(s) // CHUNK_SLOTS for s in np.flatnonzero(candidates)})
        got = self._gathered(block, page, chunks) if chunks else ({}, 0)
        if got is None:
            self.stats.chunk_fallbacks += 1
            return "ecc"
        plain = bytearray(DATA_BYTES)
        seen = np.zeros(SLOTS, dtype=bool)
        for c, data in got[0].items():
            plain[c * CHUNK_BYTES : (c + 1) * CHUNK_BYTES] = data
            seen[c * CHUNK_SLOTS : (c + 1) * CHUNK_SLOTS] = True
        self.traffic.host += CHUNK_BYTES * len(chunks)
        # every slot of a gathered chunk is known exactly: the host's answer for all of them
        return host_match(bytes(plain), key, mask) & seen, got[1]

    def _gathered(
        self, block: int, page: int, chosen: Sequence[int]
    ) -> tuple[dict[int, bytes], int] | None:
        """gather on the active page: plain chosen chunks, each corrected by its ECC, and the
        bits corrected; None when some chunk fails its ECC."""
        out = self._run(
            seq.gather(self.chip.sdr, self._spec, chunk_map(chosen)),
            f"SiM gather b{block}/p{page}",
            "xor",
        )[0]
        result: dict[int, bytes] = {}
        corrected = 0
        for i, c in enumerate(chosen):
            unit = out[i * GATHER_UNIT : (i + 1) * GATHER_UNIT]
            fixed = correct_chunk(unit[:CHUNK_BYTES], unit[CHUNK_BYTES:])
            if fixed is None:
                return None
            corrected += fixed[1]
            result[c] = derandomize(block, page, c, fixed[0])
        return result, corrected

    def gather(
        self, block: int, page: int, chunks: Iterable[int], *, opened: bool = False
    ) -> dict[int, bytes]:
        """Plain bytes of the chosen chunks (chunk -> 64 B), each corrected by its ECC; opens
        the page first unless `opened` (the page a search just opened). A chunk that fails
        its ECC sends the page to the full, retried read."""
        chosen = sorted(set(int(c) for c in chunks))
        for c in chosen:
            if not 0 <= c < CHUNKS:
                raise RangeError(f"chunk {c} out of range 0..{CHUNKS - 1}")
        if not chosen:
            return {}
        if not opened:
            self.open(block, page, verify=False)
        got = self._gathered(block, page, chosen)
        if got is None:
            self.stats.chunk_fallbacks += 1
            data, _, _ = self.read_verified(block, page)
            return {c: data[c * CHUNK_BYTES : (c + 1) * CHUNK_BYTES] for c in chosen}
        self.stats.corrected_bits += got[1]
        self.traffic.host += CHUNK_BYTES * len(chosen)
        return got[0]

    def slots_of(
        self, block: int, page: int, slots: Iterable[int], *, opened: bool = False
    ) -> dict[int, int]:
        """Values of the chosen slots (gathered by chunk); slot out of range: RangeError."""
        wanted = sorted(set(int(s) for s in slots))
        for s in wanted:
            if not HEADER_SLOTS <= s < SLOTS:
                raise RangeError(f"slot {s} out of range {HEADER_SLOTS}..{SLOTS - 1} (data slots)")
        chunks = self.gather(block, page, {s // CHUNK_SLOTS for s in wanted}, opened=opened)
        return {
            s: int.from_bytes(
                chunks[s // CHUNK_SLOTS][(s % CHUNK_SLOTS) * 8 : (s % CHUNK_SLOTS) * 8 + 8], "big"
            )
            for s in wanted
        }

    def point_query(
        self, key_page: tuple[int, int], value_page: tuple[int, int], key: int
    ) -> int | None:
        """B+tree leaf lookup: slot i of `value_page` holds the value of the key in slot i of
        `key_page`; the value of `key`, or None when it is not there."""
        hit = self.search(*key_page, key)
        if not hit.slots:
            return None
        slot = hit.slots[0]
        return self.slots_of(*value_page, [slot])[slot]


def _mode_at(rate_MTps: float) -> int:
    """The NV-DDR3 mode whose rated rate is `rate_MTps` (RangeError when none is)."""
    timing = mode_for_rate(IO_INTERFACE, int(rate_MTps))
    if timing.data_rate_mts != rate_MTps:
        raise RangeError(f"no {IO_INTERFACE} mode runs at {rate_MTps:g} MT/s")
    return timing.mode


def range_bitmap(
    sim: SimSearch, block: int, page: int, lower: int, upper: int, *, bits: int = 64
) -> np.ndarray:
    """The paper's approximate range query L <= k < U over unsigned `bits`-bit keys in the
    top bits of each slot: an upper-bound search (k < 2^ceil(log2 U)) AND NOT a lower-bound
    one (k < 2^floor(log2 L)). A superset of the exact range, never missing a slot."""
    if not 0 <= lower < upper <= 1 << bits or not 1 <= bits <= 64:
        raise RangeError(f"range {lower}..{upper} over {bits}-bit keys: need 0 <= L < U <= 2^bits")
    shift = 64 - bits

    def below_power(p: int) -> np.ndarray:
        """Slots with k < 2^p: the top (bits - p) key bits are zero."""
        if p >= bits:
            return np.ones(SLOTS, dtype=bool)
        mask = ((1 << (bits - p)) - 1) << (p + shift)
        return sim.search(block, page, 0, mask).matches

    upper_p = (upper - 1).bit_length()  # k < U implies k < 2^upper_p
    result = below_power(upper_p).copy()
    if lower > 0:
        lower_p = lower.bit_length() - 1  # k < 2^lower_p implies k < L
        result &= ~below_power(lower_p)
    result[:HEADER_SLOTS] = False
    return result

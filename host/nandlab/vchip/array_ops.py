"""Array operations of a virtual die: read, program and erase, and their cache,
multi-plane, copyback and soft-bit forms, between the page buffer and the cells.

- A read senses each read reference of the page type (defaults plus the offset
  registers) into the plane's data register and copies it to the cache register
  at the end of tR (see `latches`). A soft-bit read senses each reference at
  ref -/+ delta. Sensing happens when the operation is issued; the result becomes
  visible on the bus when R/B# returns.
- Multi-plane: 11h / 32h / D1h queue a plane (busy tDBSY = 1 µs); the final
  10h / 30h / D0h runs every queued plane at once (busy = the longest).
- Cache read: the data register moves to the cache register (tDCBSYR), then the
  array senses the next page while data streams out. Cache program: the cache
  register moves to the data register and R/B# returns after the transfer while
  the array programs (ARDY low).
- Copyback: 00h-35h reads a page into the plane's data register; the
  copyback program (85h-10h) that follows fails on any other plane.
- Program / erase with WP# low is not performed: the status shows FAIL (WP_N
  clear) and R/B# does not go low.
"""

from __future__ import annotations

import numpy as np

from nandlab.vchip.address import CellMode, Target
from nandlab.vchip.clock import US
from nandlab.vchip.features import signed_code
from nandlab.vchip.latches import sense_page, sense_soft_bits
from nandlab.vchip.parts import DiePart, DieParts
from nandlab.vchip.power import Phase
from nandlab.vchip.testmode import TestModeEngine

T_DBSY_US = 1.0  # multi-plane queue (11h, 32h, D1h) busy


def _requeue(queue: list[Target], t: Target) -> list[Target]:
    """A multi-plane queue with `t` added (replacing what was queued on its plane)."""
    return [q for q in queue if q.plane != t.plane] + [t]


class ArrayOps(DiePart):
    """What the die's array does for each operation, with its busy time and current."""

    def __init__(self, parts: DieParts, test: TestModeEngine) -> None:
        super().__init__(parts)
        self._test = test
        profile = parts.profile
        g = profile.geometry
        self._nbytes = g.page_bytes + g.spare_bytes
        # setup part of a read (pump ramp, WL / BL precharge): power.read_setup_mA
        self._setup_ns = round(profile.timing.t_read_base_us * US)
        self.reset()

    def reset(self) -> None:
        """Forget queued planes, the copyback source and the cache read in progress."""
        self._mp_read: list[Target] = []
        self._mp_prog: list[Target] = []
        self._mp_erase: list[Target] = []
        self._copyback_plane: int | None = None
        self._next_cache_page: Target | None = None  # page sensed by the next 31h
        self._buffer.sensed_plane = 0

    def _queue_busy(self) -> None:
        self._clock.busy(self._clock.array_start() + round(T_DBSY_US * US))

    # ---------------------------------------------------------------- read

    def queue_read(self, t: Target) -> None:
        self._mp_read = _requeue(self._mp_read, t)
        self._queue_busy()

    def read(self, t: Target, soft: bool, copyback: bool) -> None:
        """00h-30h (with any 32h-queued planes), 00h-35h, 00h-<soft-bit confirm>."""
        targets, self._mp_read = [*self._mp_read, t], []
        clock = self._clock
        start = clock.array_start()
        end = start
        for q in targets:
            t_r = self._sense(q, soft=soft)
            self._buffer.planes[q.plane].data_to_cache()
            clock.power.add_read(start, start + t_r, self._setup_ns)
            end = max(end, start + t_r)
        clock.complete(end)
        self._buffer.sensed_plane = t.plane
        self._copyback_plane = t.plane if copyback else None
        self._next_cache_page = self._addresses.successor(t)

    def cache_read(self, random: Target | None, last: bool) -> int | None:
        """31h (sequential), 00h-addr-31h (random) and 3Fh (last) cache reads: the plane
        whose cache register data out reads, or None when there is no read to continue."""
        if random is None and self._next_cache_page is None:
            return None
        clock = self._clock
        start = clock.array_start()
        xfer_end = start + round(self._profile.timing.t_cache_xfer_us * US)
        nxt = random if random is not None else self._next_cache_page
        assert nxt is not None
        out_plane = self._buffer.sensed_plane
        self._buffer.planes[out_plane].data_to_cache()
        array_end = xfer_end
        if not last:
            t_r = self._sense(nxt)
            array_end = xfer_end + t_r
            clock.power.add_read(xfer_end, array_end, self._setup_ns)
            self._next_cache_page = self._addresses.successor(nxt)
            self._buffer.sensed_plane = nxt.plane
        else:
            self._next_cache_page = None
        clock.record(array_end, {})
        clock.busy(xfer_end, array_end)
        return out_plane

    def _refs_mV(self, page_type: int | None) -> list[float]:
        """Read references (mV, offsets applied) of a page type; None = SLC."""
        ro = self._profile.read_offsets
        if page_type is None:
            return [self._features.reference_mV(ro.slc_reference)]
        mlc = self._profile.physics.mlc
        if self._addresses.mode is CellMode.MLC and mlc is not None:
            codes = mlc.gray_code
            return [
                mlc.read_mV[r]
                for r in range(len(codes) - 1)
                if codes[r][page_type] != codes[r + 1][page_type]
            ]
        refs = [ro.references[i] for i in self._profile.page_refs[page_type]]
        return [self._features.reference_mV(r) for r in refs]

    def _soft_delta_mV(self) -> float:
        sbr = self._profile.vendor.soft_bit_read
        assert sbr is not None
        ro = self._profile.read_offsets
        code = signed_code(self._features.get(sbr.delta_feature)[0])
        return min(max(code, 0), ro.code_max) * ro.step_mV

    def _sense(self, t: Target, soft: bool = False) -> int:
        """Sense `t` into its plane's data register; returns tR in ns."""
        tm = self._profile.timing
        regs = self._buffer.planes[t.plane]
        inverse = self._test.take_inverse()
        strobe = self._test.strobe_us(None)
        t_sense = tm.t_sense_us if strobe is None else strobe
        if not t.valid:
            regs.data.fill(0x00 if inverse else 0xFF)
            return round((tm.t_read_base_us + t_sense) * US)
        wl, page_type = self._addresses.locate(t)
        refs = self._refs_mV(page_type)
        slc = page_type is None
        floor = self._profile.read_offsets.sense_floor_mV
        array = self._array
        t_soft: float | None = None

        def sense(ref_mV: float) -> np.ndarray:
            if floor is not None:  # the WL cannot be driven below the sense floor
                ref_mV = max(ref_mV, floor)
            return array.sense(t.block, wl, ref_mV, slc, strobe_us=strobe)

        if soft:
            regs.data[:] = sense_soft_bits(sense, refs, self._soft_delta_mV(), self._nbytes)
            n_sensings = 2 * len(refs)
            if strobe is None and tm.t_sense_soft_us is not None:
                # the second sensing of each -/+ delta pair keeps the precharged bitlines
                t_soft = tm.t_sense_soft_us
        else:
            regs.data[:] = sense_page(sense, refs, self._nbytes)
            n_sensings = len(refs)
        g = self._profile.geometry
        if t.page in (0, 1) and g.spare_bytes and array.is_factory_bad(t.block):
            regs.data[g.page_bytes] = 0x00  # ONFI bad block marker
        if inverse:
            regs.data ^= 0xFF
        if t_soft is not None:
            return round((tm.t_read_base_us + n_sensings // 2 * (t_sense + t_soft)) * US)
        return round((tm.t_read_base_us + n_sensings * t_sense) * US)

    # ---------------------------------------------------------------- program

    def open_program(
        self, new: bool, addr: list[int], open_page: Target | None
    ) -> tuple[Target, int] | None:
        """Bind 80h (`new`) or 85h to its page once the address is known: (page, column of
        data in). 80h clears the plane's cache register (bytes not loaded stay FFh) and
        forgets any copyback source; 85h + column changes the column of `open_page` (None
        when there is none); 85h + column + row moves to a new row (copyback program)."""
        a = self._addresses
        col, t = a.decode(addr)
        if new:
            self._buffer.planes[t.plane].clear_cache()
            self._copyback_plane = None
        elif len(addr) <= a.col_cycles:
            if open_page is None:
                return None
            t = open_page
        return t, col

    def queue_program(self, t: Target) -> None:
        self._mp_prog = _requeue(self._mp_prog, t)
        self._queue_busy()

    def program(self, t: Target, cache: bool, write_protect: bool) -> None:
        """10h (with any 11h-queued planes) or 15h (cache program) for the page `t`."""
        targets, self._mp_prog = [*self._mp_prog, t], []
        cb_plane, self._copyback_plane = self._copyback_plane, None
        clock = self._clock
        if write_protect:
            clock.record(clock.now_ns, {q.plane: True for q in targets})
            return
        start = clock.array_start()
        busy_from = start + round(self._profile.timing.t_cache_xfer_us * US) if cache else start
        end = busy_from
        fail: dict[int, bool] = {}
        for q in targets:
            self._buffer.planes[q.plane].cache_to_data()
            ok, busy_us = self._program_page(q, cb_plane)
            fail[q.plane] = not ok
            clock.power.add(busy_from, busy_from + round(busy_us * US), Phase.PROGRAM)
            end = max(end, busy_from + round(busy_us * US))
        clock.record(end, fail, cache)
        clock.busy(busy_from if cache else end, end)

    def _program_page(self, t: Target, copyback_plane: int | None) -> tuple[bool, float]:
        """Program the plane's data register to `t`: (ok, busy µs)."""
        if not t.valid or (copyback_plane is not None and copyback_plane != t.plane):
            return False, self._profile.timing.t_prog_base_us
        wl, page_type = self._addresses.locate(t)
        data = self._buffer.planes[t.plane].data.copy()
        tune = self._test.ispp_tune()
        slc = page_type is None
        res = self._array.program(
            t.block,
            wl,
            {page_type or 0: data},
            slc=slc,
            ispp=tune if slc else None,
            mlc=self._addresses.mode is CellMode.MLC and not slc,
        )
        return bool(res.ok), float(res.busy_us)

    # ---------------------------------------------------------------- erase

    def queue_erase(self, t: Target) -> None:
        self._mp_erase = _requeue(self._mp_erase, t)
        self._queue_busy()

    def erase(self, t: Target, write_protect: bool) -> None:
        """D0h for the block of `t` and any D1h-queued planes."""
        targets, self._mp_erase = [*self._mp_erase, t], []
        clock = self._clock
        if write_protect:
            clock.record(clock.now_ns, {q.plane: True for q in targets})
            return
        start = clock.array_start()
        end = start
        fail: dict[int, bool] = {}
        for q in targets:
            if not q.valid:
                ok, busy_us = False, self._profile.timing.t_erase_base_us
            else:
                res = self._array.erase(q.block)
                ok, busy_us = bool(res.ok), float(res.busy_us)
            fail[q.plane] = not ok
            clock.power.add(start, start + round(busy_us * US), Phase.ERASE)
            end = max(end, start + round(busy_us * US))
        clock.complete(end, fail)

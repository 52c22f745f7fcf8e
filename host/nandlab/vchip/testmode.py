"""The virtual die's side of the test-mode mechanisms (vocabulary in `nandlab.onfi_spec.testmode`).

`TestModeEngine` runs them on one die: entry (command + key) and exit, the one-shot
inverse-read prefix, the ParaBit latch micro-operations (latch sensing at VREADk,
M1 / M2 / M3, latch initialisation, data in / out of a chosen node), multi-wordline
sensing (Flash-Cosmos), the latch XOR, and the test-mode registers that tune regular
operations: ESP (how the die decodes the feature into an ISPP tuning against its
own ISPP physics) and the sensing (strobe) time. The die's command state machine
decides which bytes open and confirm these sequences; this module does what they mean.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nandlab.onfi_spec.testmode import (
    ESP_START_UNIT_MV,
    ESP_STEP_UNIT_MV,
    ESP_VERIFY_UNIT_MV,
    SENSE_TIME_UNIT_US,
    VREAD_SLC,
    LatchOp,
    MwsFlag,
    Node,
    pbm_bytes,
)
from nandlab.profiles.model import Profile
from nandlab.vchip.address import CellMode
from nandlab.vchip.clock import US
from nandlab.vchip.features import signed_code
from nandlab.vchip.latches import PlaneRegisters
from nandlab.vchip.parts import DiePart, DieParts
from nandlab.vchip.physics import IsppTune
from nandlab.vchip.power import Phase

if TYPE_CHECKING:
    from nandlab.vchip.address import Target

DEFAULT_STEP_US = 0.5


def esp_tune(profile: Profile, feature: Callable[[int], bytes]) -> IsppTune | None:
    """The ISPP tuning the ESP feature holds (None when it is all zero or undeclared)."""
    esp = profile.vendor.esp
    if esp is None:
        return None
    p = feature(esp.feature)
    if not any(p):
        return None
    phys = profile.physics
    ispp = phys.slc_ispp or phys.ispp
    start = ispp.start_mV + signed_code(p[0]) * ESP_START_UNIT_MV
    return IsppTune(
        start_mV=start,
        esp_step_mV=p[1] * ESP_STEP_UNIT_MV,
        verify_mV=phys.slc_verify_mV + p[2] * ESP_VERIFY_UNIT_MV,
        extra_steps=p[3],
    )


# latch micro-operations that step the latches of one plane: (registers, argument byte)
_LATCH_STEPS: dict[int, Callable[[PlaneRegisters, int], None]] = {
    LatchOp.M1: lambda r, arg: r.m1(bool(arg & 1)),
    LatchOp.M2: lambda r, arg: r.m2(bool(arg & 1)),
    LatchOp.M3: lambda r, arg: r.m3(),
    LatchOp.INIT_L1: lambda r, arg: r.init_l1(bool(arg & 1)),
    LatchOp.INIT_L2: lambda r, arg: r.init_l2(),
    LatchOp.XOR: lambda r, arg: r.xor_to_cache(),
}


@dataclass(frozen=True)
class DataPath:
    """Where data cycles go after a test-mode operation: data out of `plane` (load None),
    or data in straight into node `load` of `plane`."""

    plane: int
    load: Node | None = None


@dataclass(frozen=True)
class Confirmed:
    """A confirm / continue byte of an open test-mode sequence: whether it closes the
    sequence, and the data path the operation selects."""

    closes: bool
    path: DataPath | None = None


class TestModeEngine(DiePart):
    """The test mode of one die and the operations it unlocks."""

    def __init__(self, parts: DieParts) -> None:
        super().__init__(parts)
        self.active = False
        self.inverse_next = False  # one-shot inverse-read prefix

    def command(self, byte: int, plane: int) -> bool | None:
        """A command byte outside any sequence. None: not a test-mode command (test-mode
        commands other than entry are ignored outside the test mode); True: it opens an
        address sequence; False: done (exit, inverse-read prefix, latch XOR on `plane`)."""
        v = self._profile.vendor
        tm = v.test_mode
        if tm is None:
            return None
        if byte == tm.enter_cmd:
            return True
        if not self.active:
            return None
        if byte == tm.exit_cmd:
            self.exit()
        elif v.inverse_read is not None and byte == v.inverse_read.prefix_cmd:
            self.inverse_next = True
        elif (v.latch_ops is not None and byte == v.latch_ops.cmd) or (
            v.mws is not None and byte == v.mws.cmd
        ):
            return True
        elif v.latch_xor is not None and byte == v.latch_xor.cmd:
            self._step(plane, PlaneRegisters.xor_to_cache)
        else:
            return None
        return False

    def confirm(self, opcode: int, addr: list[int], byte: int) -> Confirmed | None:
        """`byte` after the address cycles of an open `opcode` sequence (None: not a
        test-mode confirm, the die handles it)."""
        if not self.active:
            return None
        v = self._profile.vendor
        if v.latch_ops is not None and opcode == v.latch_ops.cmd:
            if byte != v.latch_ops.confirm_cmd:
                return None
            return Confirmed(True, self._latch_op(addr))
        if v.mws is not None and opcode == v.mws.cmd:
            if byte == v.mws.cont_cmd:
                return Confirmed(False)  # the next block's row and bitmap follow
            if byte != v.mws.confirm_cmd:
                return None
            plane = self._mws(addr)
            return Confirmed(True, None if plane is None else DataPath(plane))
        return None

    def enter(self, key: int) -> None:
        tm = self._profile.vendor.test_mode
        self.active = tm is not None and key == tm.key

    def exit(self) -> None:
        self.active = False
        self.inverse_next = False

    def take_inverse(self) -> bool:
        """Consume the inverse-read prefix: True if the next sensing is inverted."""
        inverse, self.inverse_next = self.inverse_next, False
        return inverse

    def strobe_us(self, default_us: float | None) -> float | None:
        """Sensing (strobe) time the test-mode sense-time feature sets, else `default_us`."""
        st = self._profile.vendor.sense_time
        if st is None or not self.active:
            return default_us
        raw = self._features.get(st.feature)
        code = raw[0] | raw[1] << 8
        return default_us if code == 0 else code * SENSE_TIME_UNIT_US

    def ispp_tune(self) -> IsppTune | None:
        """The ESP tuning of SLC programs (None outside the test mode or when unset)."""
        return esp_tune(self._profile, self._features.get) if self.active else None

    def _latch_op(self, addr: list[int]) -> DataPath | None:
        """CMD latch_ops.cmd, ADDR op, ADDR arg, ADDR row (row_cycles), CMD confirm; the
        data path it selects, if any."""
        op = addr[0] if addr else -1
        arg = addr[1] if len(addr) > 1 else 0
        t = self._addresses.decode_row(addr[2:])
        if op == LatchOp.SENSE:
            self._latch_sense(t, arg)
        elif op in _LATCH_STEPS:
            step = _LATCH_STEPS[op]
            self._step(t.plane, lambda r: step(r, arg))
        elif op == LatchOp.OUTPUT and arg in Node._value2member_map_:
            self._buffer.planes[t.plane].out_node = Node(arg)
            return DataPath(t.plane)
        elif op == LatchOp.DATA_IN and arg in (Node.A, Node.OUT):
            return DataPath(t.plane, Node(arg))
        return None

    def _step(self, plane: int, step: Callable[[PlaneRegisters], None]) -> None:
        lo = self._profile.vendor.latch_ops
        t_us = lo.t_step_us if lo else DEFAULT_STEP_US
        start = self._clock.array_start()
        step(self._buffer.planes[plane])
        self._clock.complete(start + round(t_us * US))

    def _latch_sense(self, t: Target, k: int) -> None:
        """Sense the WL of `t` at VREADk into SO (1 = the cell did not conduct)."""
        lo = self._profile.vendor.latch_ops
        assert lo is not None
        ro = self._profile.read_offsets
        if k == 0:
            ref = lo.vread0_mV
        elif k == VREAD_SLC:
            ref = self._features.reference_mV(ro.slc_reference)
        elif 1 <= k <= len(ro.references):
            ref = self._features.reference_mV(ro.references[k - 1])
        else:
            return  # no such reference: ignored
        strobe = self.strobe_us(None)
        t_us = self._profile.timing.t_sense_us if strobe is None else strobe
        regs = self._buffer.planes[t.plane]
        inverse = self.take_inverse()
        clock = self._clock
        start = clock.array_start()
        if not t.valid:
            regs.so.fill(0x00)
        else:
            wl, _ = self._addresses.locate(t)
            slc = self._addresses.mode is CellMode.SLC
            conducts = self._array.sense(t.block, wl, ref, slc, strobe_us=strobe)
            regs.so[:] = conducts if inverse else ~conducts
        end = start + round(t_us * US)
        clock.power.add(start, end, Phase.READ)
        clock.complete(end)
        self._buffer.sensed_plane = t.plane

    def _mws(self, addr: list[int]) -> int | None:
        """Multi-wordline sensing (Flash-Cosmos): flags, then per block: row + page bitmap.
        The plane whose latches hold the result, or None when the die refuses it (FAIL)."""
        mws = self._profile.vendor.mws
        assert mws is not None
        g = self._profile.geometry
        pbm_n = pbm_bytes(g.wls_per_block)
        flags = addr[0] if addr else 0
        body = addr[1:]
        group_n = g.row_cycles + pbm_n
        groups: list[tuple[int, list[int]]] = []
        ok = len(body) >= group_n and len(body) % group_n == 0
        blocks: list[int] = []
        for i in range(0, len(body) if ok else 0, group_n):
            t = self._addresses.decode_row(body[i : i + g.row_cycles])
            bitmap = body[i + g.row_cycles : i + group_n]
            wls = [w for w in range(g.wls_per_block) if bitmap[w >> 3] >> (w & 7) & 1]
            if t.block >= g.blocks or not wls:
                ok = False
                break
            groups.append((t.block, wls))
            if t.block not in blocks:
                blocks.append(t.block)
        planes = {b % g.planes for b in blocks}
        override = self._features.get(mws.override_feature)[0] == 1
        if len(planes) > 1 or (len(blocks) > mws.max_blocks and not override):
            ok = False
        clock = self._clock
        start = clock.array_start()
        prefixed = self.take_inverse()
        inverse = bool(flags & MwsFlag.INVERSE) or prefixed
        if not ok:
            clock.record(start, {p: True for p in range(g.planes)})
            return None
        plane = blocks[0] % g.planes
        regs = self._buffer.planes[plane]
        strobe = self.strobe_us(mws.t_sense_us)
        assert strobe is not None
        ref = self._features.reference_mV(self._profile.read_offsets.slc_reference)
        conducts = self._array.sense_mws(groups, ref, strobe)
        if flags & MwsFlag.C_INIT:
            regs.init_l2()
        if flags & MwsFlag.S_INIT:
            regs.init_l1(inverted=inverse)
        regs.so[:] = ~conducts
        if inverse:
            regs.m1()
        else:
            regs.m2()
        if flags & MwsFlag.S_TO_C:
            regs.m3()
        end = start + round((self._profile.timing.t_read_base_us + strobe) * US)
        clock.power.add(start, end, Phase.READ, self._profile.power.mws_read_mA(len(blocks)))
        clock.complete(end)
        regs.out_node = Node.OUT
        self._buffer.sensed_plane = plane
        return plane

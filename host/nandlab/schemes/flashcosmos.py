"""Flash-Cosmos (MICRO 2022): bulk bitwise operations by multi-wordline sensing (MWS).

Operands are stored one per WL in SLC mode with enhanced SLC programming (ESP,
`store`), bit 1 = erased cell. Then:

- AND of operands in one string (one sub-block of one block): one intra-block
  MWS (every selected cell must conduct).
- OR of operands in different blocks (one plane): one inter-block MWS (any
  string discharges the bitline), up to the profile's `mws.max_blocks` blocks
  per command (the power budget; more needs allow_over_power=True).
- Operands stored inverted (`store(..., inverse=True)`): OR of them is one
  intra-block MWS read inversely (De Morgan: A1 + ... + AN = NOT(~A1 ... ~AN)).
- NAND / NOR: the same sensing with the inverse-read flag.
- More operands than one command takes: the results accumulate in the latches
  (AND in the S-latch by skipping its initialisation, OR in the C-latch by
  S-to-C transfers without C-latch initialisation).
- XOR / XNOR: first operand into the C-latch, second into the S-latch (read
  inversely for XNOR), then the latch XOR command.
- `sop`: equation (1), a sum of products in one MWS command.

Every call returns an `FcResult` with the result bits (packed bytes of the
page's data area) and the chip operations it ran. `reference_*` functions give
the host-side answers for tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from nandlab.analysis import unpack_cells
from nandlab.errors import AddressError, UnsupportedCapability
from nandlab.onfi.chip import Chip
from nandlab.onfi.results import OpResult
from nandlab.onfi.testmode import Node, TestMode, init_l1
from nandlab.profiles import Profile

Operand = tuple[int, int]
"""(block, WL) of an operand stored in SLC mode."""


@dataclass(frozen=True)
class EspSetting:
    """ISPP tuning used to store operands (see TestMode.set_esp)."""

    step_mV: float = 100.0
    verify_raise_mV: float = 1000.0
    extra_steps: int = 0
    start_offset_mV: float = 0.0


DEFAULT_ESP = EspSetting()


@dataclass
class FcResult:
    """Result bits (packed, page data area) and the chip operations behind them."""

    data: bytes
    # (kind, busy ns, blocks activated: MWS only, else 0)
    ops: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def busy_ns(self) -> int:
        return sum(b for _, b, _ in self.ops)

    @property
    def sensings(self) -> int:
        return sum(1 for k, _, _ in self.ops if k == "mws")

    def bits(self) -> np.ndarray:
        return unpack_cells(self.data)


class FlashCosmos:
    """Flash-Cosmos operations on one chip (needs the test-mode MWS, ESP and latch XOR)."""

    NEEDED = ("test_mode", "mws", "esp", "slc_mode")

    def __init__(
        self, chip: Chip, *, allow_test_mode: bool = False, esp: EspSetting = DEFAULT_ESP
    ) -> None:
        missing = self.unsupported(chip)
        if missing:
            raise UnsupportedCapability(missing)
        self.chip = chip
        self.tm = TestMode(chip, allow_test_mode=allow_test_mode)
        self.esp = esp
        self._esp_set = False
        geo = chip.geometry
        self.page_bytes = geo.page_bytes
        self.sub_blocks = chip.profile.geometry.sub_blocks
        mws = chip.profile.vendor.mws
        assert mws is not None
        self.max_blocks = mws.max_blocks

    @classmethod
    def unsupported(cls, chip: Chip) -> str | None:
        profile = chip.transport.profile
        if profile is None:
            return "Flash-Cosmos needs a chip profile (its vendor operations)"
        lacks = cls.datasheet_lacks(profile)
        if lacks is not None:
            return lacks
        for cap in cls.NEEDED:
            if not chip.transport.supports(cap):
                return f"Flash-Cosmos needs '{cap}', which the bench does not support"
        return None

    @classmethod
    def datasheet_lacks(cls, profile: Profile) -> str | None:
        """The first vendor operation of NEEDED that `profile` does not declare, or None."""
        for cap in cls.NEEDED:
            if getattr(profile.vendor, cap, None) is None:
                return (
                    f"Flash-Cosmos needs the vendor operation '{cap}' "
                    f"(profile {profile.name} has none)"
                )
        return None

    # ------------------------------------------------------------- storing

    def store(self, block: int, wl: int, data: bytes, *, inverse: bool = False) -> OpResult:
        """Program an operand (page data bytes) to an erased WL with ESP; inverse=True
        stores NOT data (for OR / NOR through De Morgan)."""
        if not self._esp_set:
            e = self.esp
            self.tm.set_esp(
                start_offset_mV=e.start_offset_mV,
                step_mV=e.step_mV,
                verify_raise_mV=e.verify_raise_mV,
                extra_steps=e.extra_steps,
            )
            self._esp_set = True
        buf = np.frombuffer(bytes(data), np.uint8)
        if buf.size != self.page_bytes:
            raise AddressError(f"an operand is {self.page_bytes} bytes, got {buf.size}")
        if inverse:
            buf = ~buf
        return self.tm.program_esp(block, wl, buf.tobytes())

    # ------------------------------------------------------------ helpers

    def _strings(self, operands: Sequence[Operand]) -> list[tuple[int, list[int]]]:
        """Operands grouped by string (block, sub-block), in first-seen order."""
        groups: dict[tuple[int, int], list[int]] = {}
        for block, wl in operands:
            groups.setdefault((block, wl % self.sub_blocks), []).append(wl)
        return [(b, wls) for (b, _), wls in groups.items()]

    def _mws(self, res: FcResult, groups: list[tuple[int, list[int]]], **kw: bool) -> bytes:
        r = self.tm.mws(groups, **kw)
        res.ops.append(("mws", r.busy_ns, len({b for b, _ in groups})))
        return r.data[: self.page_bytes]

    def _check(self, operands: Sequence[Operand]) -> None:
        if not operands:
            raise AddressError("a bitwise operation needs at least one operand")
        planes = {self.chip.geometry.plane_of(b) for b, _ in operands}
        if len(planes) > 1:
            raise AddressError(
                "Flash-Cosmos operands must share a plane (they meet on its bitlines)"
            )

    # --------------------------------------------------------- operations

    def and_(self, operands: Sequence[Operand], *, invert: bool = False) -> FcResult:
        """AND of the operands (NAND with invert=True): one intra-block MWS per string,
        accumulated in the S-latch."""
        self._check(operands)
        res = FcResult(b"")
        strings = self._strings(operands)
        if not invert:
            for i, g in enumerate(strings):
                last = i == len(strings) - 1
                data = self._mws(res, [g], s_init=i == 0, c_init=last, s_to_c=last, read=last)
            res.data = data
            return res
        # NAND = OR over strings of NAND(string): inverse sensing, OR-accumulated in C
        for i, g in enumerate(strings):
            last = i == len(strings) - 1
            data = self._mws(res, [g], inverse=True, c_init=i == 0, read=last)
        res.data = data
        return res

    def nand(self, operands: Sequence[Operand]) -> FcResult:
        return self.and_(operands, invert=True)

    def or_(
        self,
        operands: Sequence[Operand],
        *,
        invert: bool = False,
        stored_inverse: bool = False,
        allow_over_power: bool = False,
    ) -> FcResult:
        """OR of the operands (NOR with invert=True).

        stored_inverse=True: the operands were stored with inverse=True; OR is then
        an intra-block MWS read inversely per string (De Morgan), OR-accumulated in the
        C-latch. Otherwise inter-block MWS over up to max_blocks blocks per command
        (allow_over_power lifts that), OR-accumulated in the C-latch.
        """
        self._check(operands)
        res = FcResult(b"")
        if stored_inverse:
            # OR(A) = NOT AND(~A); NOR(A) = AND(~A)
            if invert:
                return self.and_(operands)
            return self.and_(operands, invert=True)
        # one WL per string and per command string slot; block limit per command
        cmds: list[list[tuple[int, list[int]]]] = []
        cur: list[tuple[int, list[int]]] = []
        seen: set[tuple[int, int]] = set()
        limit = len(operands) if allow_over_power else self.max_blocks
        for block, wl in operands:
            key = (block, wl % self.sub_blocks)
            blocks = {b for b, _ in cur} | {block}
            if key in seen or len(blocks) > limit:
                cmds.append(cur)
                cur, seen = [], set()
            cur.append((block, [wl]))
            seen.add(key)
        cmds.append(cur)
        for i, groups in enumerate(cmds):
            last = i == len(cmds) - 1
            data = self._mws(
                res,
                groups,
                c_init=i == 0,
                read=last and not invert,
                allow_over_power=allow_over_power,
            )
        if invert:
            data = self._invert_c_latch(res, operands[0][0])
        res.data = data
        return res

    def nor(self, operands: Sequence[Operand], **kw: bool) -> FcResult:
        return self.or_(operands, invert=True, **kw)

    def _invert_c_latch(self, res: FcResult, block: int) -> bytes:
        """OUT = NOT OUT: A = 1 (latch init), then the latch XOR."""
        run = self.tm.latch_run(block, 0, [init_l1()], read=None, slc=True)
        res.ops.append(("latch", run.busy_ns, 0))
        r = self.tm.latch_xor(block)
        res.ops.append(("xor", r.busy_ns, 0))
        return r.data[: self.page_bytes]

    def xor(self, operands: Sequence[Operand], *, xnor: bool = False) -> FcResult:
        """XOR (XNOR) of the operands through the latch XOR; XNOR reads the last one
        inversely (A XNOR B = A XOR NOT B)."""
        self._check(operands)
        res = FcResult(b"")
        first, rest = operands[0], operands[1:]
        data = self._mws(res, [(first[0], [first[1]])], read=not rest)
        for i, (block, wl) in enumerate(rest):
            last = i == len(rest) - 1
            self._mws(
                res, [(block, [wl])], inverse=xnor and last, c_init=False, s_to_c=False, read=False
            )
            r = self.tm.latch_xor(block, read=last)
            res.ops.append(("xor", r.busy_ns, 0))
            data = r.data[: self.page_bytes]
        res.data = data
        return res

    def xnor(self, operands: Sequence[Operand]) -> FcResult:
        return self.xor(operands, xnor=True)

    def not_(self, operand: Operand) -> FcResult:
        res = FcResult(b"")
        res.data = self._mws(res, [(operand[0], [operand[1]])], inverse=True)
        return res

    def sop(
        self,
        terms: Sequence[Sequence[Operand]],
        *,
        invert: bool = False,
        allow_over_power: bool = False,
    ) -> FcResult:
        """Equation (1): OR of products, each product's operands in one string, in one
        MWS command (invert: its inverse)."""
        groups: list[tuple[int, list[int]]] = []
        for term in terms:
            strings = self._strings(term)
            if len(strings) != 1:
                raise AddressError("each product of sop() must lie in one string")
            groups.append(strings[0])
        self._check([op for term in terms for op in term])
        res = FcResult(b"")
        res.data = self._mws(res, groups, inverse=invert, allow_over_power=allow_over_power)
        return res

    def read_latch(self, block: int, node: Node = Node.OUT) -> bytes:
        return self.tm.read_latch(block, node)[: self.page_bytes]


# ---------------------------------------------------------------- reference


def reference(op: str, operands: Sequence[bytes]) -> bytes:
    """Host-side answer of and / or / nand / nor / xor / xnor / not over operand bytes."""
    arrs = [np.frombuffer(bytes(o), np.uint8) for o in operands]
    if op in ("and", "nand"):
        out = np.bitwise_and.reduce(arrs)
    elif op in ("or", "nor"):
        out = np.bitwise_or.reduce(arrs)
    elif op in ("xor", "xnor"):
        out = np.bitwise_xor.reduce(arrs[:-1] + [~arrs[-1] if op == "xnor" else arrs[-1]])
        return out.tobytes()
    elif op == "not":
        out = ~arrs[0]
    else:
        raise ValueError(op)
    if op in ("nand", "nor"):
        out = ~out
    return out.tobytes()


def reference_sop(terms: Sequence[Sequence[bytes]]) -> bytes:
    prods = [np.bitwise_and.reduce([np.frombuffer(bytes(o), np.uint8) for o in t]) for t in terms]
    return np.bitwise_or.reduce(prods).tobytes()

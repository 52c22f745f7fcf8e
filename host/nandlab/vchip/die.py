"""The virtual NAND die: one ONFI target (one LUN) at the byte-cycle level.

`VirtualDie` answers command, address and data cycles like a die on the bus: its
`die_commands.CommandDecoder` (the ONFI command state machine) and
`die_data.DataPath` (data in / out) share the interface registers
(`die_commands.BusRegisters`) and hand each complete operation to the part that
does it: `array_ops.ArrayOps` (read / program / erase and their cache,
multi-plane, copyback and soft-bit forms), `testmode.TestModeEngine` (test-mode
commands), `vendor_cmds.VendorCommands` (Search-in-Memory, CoX-PM), `clock.DieClock` (clock,
R/B#, status, power log), `features.FeatureRegisters`, `address.AddressMap` (with the
sticky SLC / MLC mode) and `identity` (READ ID, parameter page, unique ID).

Bus behaviour a real die leaves undefined is pinned down here:

- R/B# goes low at the end of the confirm command cycle (tWB is not added).
- While RDY is low only READ STATUS (70h), READ STATUS ENHANCED (78h) and
  RESET (FFh) are accepted; other commands are ignored. Data out while busy
  reads FFh; data in while busy is dropped.
- Unknown command bytes, and confirm bytes that fit no open sequence, are
  ignored: the die returns to idle.
- Data out after a read comes from the selected plane's cache register; after
  READ STATUS, 00h without address returns to data output. 06h + column + row
  + E0h (change read column enhanced) picks the plane that is read out.
- RESET cuts the power phases of an aborted operation but not its effect on
  the cells.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from nandlab.onfi_spec.opcodes import PARAMETER_PAGE_COPIES
from nandlab.onfi_spec.sdr_timing import SdrTiming, sdr
from nandlab.ops import Addr, Cmd, Delay, Din, Dout, Instruction, WaitRdy
from nandlab.profiles.model import Profile
from nandlab.vchip import identity
from nandlab.vchip.address import AddressMap, CellMode
from nandlab.vchip.array import CellArray
from nandlab.vchip.array_ops import ArrayOps
from nandlab.vchip.clock import DieClock
from nandlab.vchip.die_commands import BusRegisters, CommandDecoder
from nandlab.vchip.die_data import DataPath
from nandlab.vchip.features import FeatureRegisters
from nandlab.vchip.latches import PageBuffer
from nandlab.vchip.parts import DieParts
from nandlab.vchip.power import PowerLog
from nandlab.vchip.testmode import TestModeEngine
from nandlab.vchip.vendor_cmds import VendorCommands


class VirtualDie:
    """An ONFI target with one LUN over a `CellArray`.

    Args:
        profile: the chip profile.
        seed, chip: identify the die; they key the array and the unique ID.
        array: an existing cell array (from a die image); made from the profile if None.
        param_page_copies: parameter page copies streamed before repeating (>= 3).
        corrupt_param_copies: copies to damage, for CRC / majority tests: a set of copy
            indices (copy k gets byte 8 + 11k inverted) or a mapping copy -> {byte: xor mask}.
    """

    def __init__(
        self,
        profile: Profile,
        seed: int = 0,
        chip: int = 0,
        array: CellArray | None = None,
        *,
        param_page_copies: int = PARAMETER_PAGE_COPIES,
        corrupt_param_copies: identity.Corruption = (),
    ) -> None:
        if param_page_copies < PARAMETER_PAGE_COPIES:
            raise ValueError(f"param_page_copies must be >= {PARAMETER_PAGE_COPIES}")
        self.profile = profile
        self.seed = seed
        self.chip = chip
        self.array = array if array is not None else CellArray(profile, seed, chip)
        g = profile.geometry
        parts = DieParts(
            profile,
            self.array,
            DieClock(profile.power, g.planes),
            FeatureRegisters(profile),
            AddressMap(g, profile.vendor),
            PageBuffer(g.planes, g.page_bytes + g.spare_bytes),
        )
        self._clock, self._features = parts.clock, parts.features
        self._addresses, self._buffer = parts.addresses, parts.buffer
        self.power: PowerLog = parts.clock.power
        self._test = TestModeEngine(parts)
        ops = ArrayOps(parts, self._test)
        search = VendorCommands(parts, ops)
        self.unique_id = identity.unique_id(profile, seed, chip)
        self._regs = BusRegisters()
        self._commands = CommandDecoder(
            parts,
            self._regs,
            self._test,
            ops,
            search,
            identity.parameter_pages(profile, param_page_copies, corrupt_param_copies),
            self.unique_id,
        )
        self._data = DataPath(parts, self._regs, self._commands, search)
        self._commands.reset_bus()

    @property
    def now_ns(self) -> int:
        """The virtual clock (ns): bus cycles and busy waits advance it."""
        return self._clock.now_ns

    @property
    def ready(self) -> bool:
        """R/B# at now_ns."""
        return self._clock.now_ns >= self._clock.rdy_until

    @property
    def last_busy_ns(self) -> int:
        """R/B# low time of the current or last busy period (0 if never busy)."""
        return self._clock.last_busy_ns

    @property
    def busy_until_ns(self) -> int:
        """When the current or last busy period ends (R/B# returns high), in ns."""
        return self._clock.rdy_until

    @property
    def timing(self) -> SdrTiming:
        """Interface timing: the SDR mode SET FEATURES 01h selects (mode 0 after RESET)."""
        return self._clock.timing

    @property
    def timing_mode(self) -> int:
        return self._clock.timing.mode

    @property
    def data_interface(self) -> tuple[str, int]:
        """(interface, mode) the die moves data in: feature 01h's, or the Toggle grade."""
        return self._features.data_interface()

    def follow_toggle(self, mode: int | None) -> bool:
        """The bench runs Toggle DDR at speed grade `mode` (None: not Toggle); False when the
        part has no such grade (`FeatureRegisters.follow_toggle`)."""
        before = self._features.data_interface()
        taken = self._features.follow_toggle(mode)
        if self._features.data_interface() != before:
            self._clock.timing = sdr(self._features.command_sdr_mode())
        return taken

    @property
    def slc_mode(self) -> bool:
        return self._addresses.mode is CellMode.SLC

    @property
    def mlc_mode(self) -> bool:
        return self._addresses.mode is CellMode.MLC

    @property
    def test_mode(self) -> bool:
        return self._test.active

    def advance(self, ns: int) -> None:
        self._clock.advance(ns)

    def wait_ready(self, timeout_ns: int) -> int | None:
        """Advance to R/B# high or by `timeout_ns`; the busy time in ns, or None on timeout."""
        return self._clock.wait_ready(timeout_ns)

    def set_wp(self, write_protect: bool) -> None:
        """Drive WP# (True = WP# low = program and erase blocked)."""
        self._regs.wp = bool(write_protect)

    def current_trace(self, t0_ns: int, t1_ns: int, period_ns: int) -> np.ndarray:
        """Supply current samples (µA, int64), the mean over each period in [t0, t1)."""
        return self.power.trace(t0_ns, t1_ns, period_ns)

    def energy_nJ(self, t0_ns: int, t1_ns: int) -> float:
        return self.power.energy_nJ(t0_ns, t1_ns)

    def state_dict(self) -> dict[str, Any]:
        """Volatile registers (JSON-able): features, timing mode, SLC mode, test mode."""
        return {
            "features": self._features.state(),
            "timing_mode": self._clock.timing.mode,
            "slc_mode": self.slc_mode,
            "test_mode": self._test.active,
        } | ({"mlc_mode": self.mlc_mode} if self.profile.vendor.mlc_mode is not None else {})

    def load_state(self, d: Mapping[str, Any]) -> None:
        self._features.load(d.get("features", {}))
        self._clock.timing = sdr(int(d.get("timing_mode", 0)))
        slc, mlc = d.get("slc_mode", False), d.get("mlc_mode", False)
        self._addresses.mode = CellMode.SLC if slc else CellMode.MLC if mlc else CellMode.NATIVE
        self._test.active = bool(d.get("test_mode", False))

    def feature(self, fa: int) -> bytes:
        """P1..P4 of feature address `fa` (zeros if never written)."""
        return self._features.get(fa)

    def cmd(self, byte: int) -> None:
        """One command cycle (tWC)."""
        self._commands.cmd(byte)

    def addr(self, byte: int) -> None:
        """One address cycle (tWC)."""
        self._commands.addr(byte)

    def addr_cycles(self, data: bytes) -> None:
        """Address cycles, one per byte of `data` (tWC each): the same as `addr` per byte."""
        self._commands.addr_cycles(data)

    def write(self, data: bytes) -> None:
        """Data in cycles (tWC per byte)."""
        self._data.write(data)

    def read(self, n: int) -> bytes:
        """Data out cycles (tRC per byte)."""
        return self._data.read(n)

    def run_bus(self, steps: Sequence[Instruction]) -> list[tuple[int, bytes | int | None]]:
        """Run CMD, ADDR, DIN, DOUT, WAIT_RDY and DELAY instructions in order, each exactly
        as `cmd`, `addr_cycles`, `write`, `read`, `wait_ready` or `advance` would (the same
        state machine decisions, clock and power log), in one call: a bench hands over the
        bus part of an op program at once instead of one call (and one dispatch) per
        instruction.

        Returns (position in `steps`, result) per DOUT (its bytes) and per WAIT_RDY (its
        busy ns), in order; a WAIT_RDY that times out yields None and ends the run there.
        Any other instruction is a ValueError where it stands (those before it have run).
        """
        commands, data, clock = self._commands, self._data, self._clock
        out: list[tuple[int, bytes | int | None]] = []
        for pos, ins in enumerate(steps):
            if isinstance(ins, Cmd):
                commands.cmd(ins.byte)
            elif isinstance(ins, Addr):
                commands.addr_cycles(ins.data)
            elif isinstance(ins, Dout):
                out.append((pos, data.read(ins.n)))
            elif isinstance(ins, WaitRdy):
                busy = clock.wait_ready(ins.timeout_ns)
                out.append((pos, busy))
                if busy is None:
                    break
            elif isinstance(ins, Delay):
                clock.advance(ins.ns)
            elif isinstance(ins, Din):
                data.write(ins.data)
            else:
                raise ValueError(f"run_bus takes bus cycles only, not {ins!r}")
        return out

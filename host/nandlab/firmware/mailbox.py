"""Posting commands to the board CPU's firmware through the mailbox registers.

The register offsets and fields come from the generated map (`nandlab.regs`),
so the host and the firmware (firmware/include/nandlab_regs.h) read one
SystemRDL source. A command is: argument words, then MBX_CMD with a new SEQ
(the doorbell); the firmware answers in MBX_STATUS (same SEQ, DONE or ERROR)
and MBX_RESULT. Jobs stream words into a result ring in shared RAM; the host
moves MBX_RES_TAIL past what it has taken.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from nandlab.errors import TransportError
from nandlab.firmware.image import image_sum, used_words
from nandlab.firmware.protocol import (
    LIMIT_ERRORS,
    Command,
    FirmwareError,
    FirmwareLimit,
    FirmwareRefused,
    FwError,
    LoopDescriptor,
    Monitor,
    Permit,
    State,
    decode_rows,
)
from nandlab.regs import REG


class RegisterIO(Protocol):
    """32-bit access to the CSR block (XDMA user BAR, a simulator...)."""

    def read32(self, offset: int) -> int: ...

    def write32(self, offset: int, value: int) -> None: ...


class SharedRAM(Protocol):
    """Word access to the RAM the host shares with the board CPU (byte offsets)."""

    def read_words(self, offset: int, n: int) -> list[int]: ...

    def write_words(self, offset: int, words: Sequence[int]) -> None: ...


@dataclass(frozen=True)
class Layout:
    """Where jobs go in shared RAM (byte offsets; the ring in words)."""

    program: int = 0
    descriptor: int = 0x1000
    ring: int = 0x2000
    ring_words: int = 2048


class Mailbox:
    """One host's conversation with the firmware.

    `wait` is called between two polls of MBX_STATUS (a sleep on a board, a
    step of the simulated CPU in tests); after `max_polls` polls without an
    answer, or with MBX_HEARTBEAT standing still, the command fails with
    TransportError instead of hanging.
    """

    def __init__(self, regs: RegisterIO, ram: SharedRAM, wait: Callable[[], None],
                 layout: Layout = Layout(), max_polls: int = 100_000) -> None:
        self.regs, self.ram, self.wait, self.layout = regs, ram, wait, layout
        self.max_polls = max_polls
        self._seq = REG["MBX_CMD"].field("SEQ").get(regs.read32(REG["MBX_CMD"].offset))
        self._taken = 0

    def _read(self, reg: str, field: str | None = None) -> int:
        word = self.regs.read32(REG[reg].offset)
        return REG[reg].fields[0].get(word) if field is None else REG[reg].field(field).get(word)

    def version(self) -> tuple[int, int, int] | None:
        """(protocol, major, minor) of the running firmware; None when none runs."""
        word = self.regs.read32(REG["MBX_FW_VERSION"].offset)
        if word == 0:
            return None
        reg = REG["MBX_FW_VERSION"]
        field = reg.field
        return field("PROTOCOL").get(word), field("MAJOR").get(word), field("MINOR").get(word)

    def command(self, code: Command | int, args: Sequence[int] = (),
                on_poll: Callable[[], None] | None = None) -> int:
        """Post `code` with up to 4 argument words; returns MBX_RESULT.

        Raises FirmwareRefused (NOT_PERMITTED), FirmwareError (any other error
        code) or TransportError (no answer)."""
        if len(args) > 4:
            raise ValueError(f"a command takes at most 4 argument words, got {len(args)}")
        for i, value in enumerate([*args, 0, 0, 0, 0][:4]):
            self.regs.write32(REG[f"MBX_ARG{i}"].offset, value)
        self._seq = (self._seq + 1) & 0xFF
        cmd = REG["MBX_CMD"]
        word = cmd.field("SEQ").put(cmd.field("CODE").put(0, int(code)), self._seq)
        self.regs.write32(cmd.offset, word)
        self._taken = 0
        beat = self._read("MBX_HEARTBEAT")
        for _ in range(self.max_polls):
            status = self.regs.read32(REG["MBX_STATUS"].offset)
            st = REG["MBX_STATUS"]
            # Until the status carries our SEQ it (and the ring) belong to the last command.
            ours = st.field("SEQ").get(status) == self._seq
            if ours and st.field("STATE").get(status) in (State.DONE, State.ERROR):
                result = self._read("MBX_RESULT")
                if st.field("STATE").get(status) == State.DONE:
                    return result
                error = FwError(st.field("ERROR").get(status))
                known = Command(code) if code in set(Command) else int(code)
                kind: type[FirmwareError] = FirmwareError
                if error == FwError.NOT_PERMITTED:
                    kind = FirmwareRefused
                elif error in LIMIT_ERRORS:
                    kind = FirmwareLimit
                raise kind(error, result, known)
            if ours and on_poll is not None:
                on_poll()
            self.wait()
        now = self._read("MBX_HEARTBEAT")
        raise TransportError(
            f"firmware gave no answer to command 0x{int(code):02X} after {self.max_polls} polls "
            f"(heartbeat {'standing still: the CPU is hung' if now == beat else 'running'})")

    def session(self, permits: Permit) -> None:
        """Allow erase / program / test mode until `end_session`."""
        self.command(Command.SESSION, [int(permits)])

    def end_session(self) -> None:
        """Drop every permit and limit."""
        self.command(Command.END_SESSION)

    def monitor(self, part: Monitor, address: int = 0, shunt_mOhm: float = 0.0,
                max_current_mA: int = 0) -> None:
        """The supply-current monitor the firmware's current limit reads: an INA226 /
        INA228 at 7-bit I2C `address` on a shunt of `shunt_mOhm`, measuring up to
        `max_current_mA` (as the board file's power monitor says); Monitor.NONE: none.
        The firmware checks its IDs and calibrates it (FirmwareLimit NO_SENSOR when it
        does not answer as that part)."""
        self.command(Command.MONITOR, [int(address) | int(part) << 8,
                                       round(shunt_mOhm * 1000), int(max_current_mA)])

    def thermal(self, setpoint_C: float | None, *, tec: bool = False) -> float:
        """Hold the socket at `setpoint_C` (°C) with the firmware's PI loop on the
        board's heater (0..100 % PWM) or TEC (`tec`: also cools); None turns it off.
        Returns the temperature read when it starts (°C). The loop runs every 100 ms,
        between and during on-board loops; without a reading it turns the output off."""
        if setpoint_C is None:
            self.command(Command.THERMAL, [0, 0, 0])
            return float("nan")
        mC = round(setpoint_C * 1000)
        if not -(1 << 31) <= mC < 1 << 31:
            raise ValueError(f"setpoint {setpoint_C} °C is outside -2147..2147")
        read = self.command(Command.THERMAL, [1, int(tec), mC & 0xFFFFFFFF])
        return (read - (1 << 32) if read >> 31 else read) / 1000

    def thermal_gains(self, kc_permille_per_K: float, ti_s: float, td_s: float = 0.0,
                      period_s: float = 0.1) -> None:
        """The temperature loop's tuning, in the ideal PID form: gain `kc_permille_per_K`
        (‰ of full drive per K, 0 < Kc <= 4000), integral time `ti_s` (0: none; else
        at least one period, at most 3600 s), derivative time `td_s` (0..10 s) and step
        `period_s` (10 µs..1 s). Taken by a running loop at its next step; END_SESSION
        restores the built-in tuning (docs/firmware.md). Out of range: FirmwareError
        BAD_ARG naming the argument (0 Kc, 1 Ti, 2 Td, 3 period)."""
        kp = round(kc_permille_per_K / 1000 * (1 << 20))
        words = [kp, round(ti_s * 1000), round(td_s * 1000), round(period_s * 1e6)]
        if any(not 0 <= w < 1 << 32 for w in words):
            raise ValueError(f"thermal gains out of the mailbox's words: {words}")
        self.command(Command.THERMAL_GAINS, words)

    def load_firmware(self, image: list[int]) -> None:
        """Boot the board CPU into `image` (nandlab.firmware.image.load_elf of an ELF):
        its used words go to shared RAM, LOAD checks their size and checksum, answers,
        copies them over the BRAM and restarts the CPU; this returns once the new
        firmware has published its version. The image (code and .data's initial
        values) must fit shared RAM and the BRAM's code area (48 KiB); otherwise
        FirmwareError BAD_ARG, and the running firmware stays."""
        words = image[:used_words(image)]
        self.ram.write_words(0, words)
        self.command(Command.LOAD, [0, len(words), image_sum(words)])
        for _ in range(self.max_polls):
            if self._read("MBX_FW_VERSION"):
                return
            self.wait()
        raise TransportError(f"no firmware version after LOAD in {self.max_polls} polls: the "
                             "new image did not boot")

    def current_uA(self) -> int:
        """One supply-current reading of the MONITOR part, through the firmware's
        driver (µA, signed); FirmwareLimit NO_SENSOR without a working monitor."""
        v = self.command(Command.CURRENT)
        return v - (1 << 32) if v >> 31 else v

    def limits(self, max_mA: int | None = None, max_C: float | None = None) -> None:
        """Limits of this session, checked by the firmware before every program it runs
        for the host and every loop step: supply current (mA, 1..2^32-1) and temperature
        (°C, -2 147..2 147; 0 °C itself cannot be a limit). None: no limit. Past one, the
        firmware answers FirmwareLimit and runs nothing more on the chip."""
        mA = 0 if max_mA is None else int(max_mA)
        mC = 0 if max_C is None else round(max_C * 1000)
        if not 0 <= mA < 1 << 32 or (max_mA is not None and mA == 0):
            raise ValueError(f"current limit {max_mA} mA is outside 1..{(1 << 32) - 1}")
        if not -(1 << 31) <= mC < 1 << 31 or (max_C is not None and mC == 0):
            raise ValueError(f"temperature limit {max_C} °C is outside -2147..2147 (not 0)")
        self.command(Command.LIMITS, [mA, mC & 0xFFFFFFFF])

    def take(self) -> list[int]:
        """The ring words the firmware has written since the last take (moves MBX_RES_TAIL)."""
        head = self._read("MBX_RES_HEAD")
        remaining = (head - self._taken) & 0xFFFFFFFF
        size, pos = self.layout.ring_words, self._taken
        words: list[int] = []
        while remaining:  # at most two spans: up to the ring's end, then from its start
            index = pos % size
            span = min(remaining, size - index)
            words += self.ram.read_words(self.layout.ring + 4 * index, span)
            pos, remaining = pos + span, remaining - span
        self._taken = head
        self.regs.write32(REG["MBX_RES_TAIL"].offset, head)
        return words

    def run_program(self, program: bytes, *, stream_errors: bool = False) -> list[int]:
        """Run an encoded op program (`nandlab.ops.Program.encode()`); its result stream words.

        With `stream_errors`, a program the chip or sequencer failed (CHIP_TIMEOUT,
        SEQ_ERROR) returns its stream, ERROR record included, as a transport does,
        instead of raising FirmwareError."""
        words = [int.from_bytes(program[i:i + 4], "little") for i in range(0, len(program), 4)]
        self.ram.write_words(self.layout.program, words)
        taken: list[int] = []
        try:
            self.command(Command.RUN_PROGRAM, [self.layout.program, len(words), self.layout.ring,
                                               self.layout.ring_words])
        except FirmwareError as exc:
            taken += self.take()
            if stream_errors and exc.error in (FwError.CHIP_TIMEOUT, FwError.SEQ_ERROR) and taken:
                return taken
            raise
        taken += self.take()
        return taken

    def run_loop(self, descriptor: LoopDescriptor) -> list[dict[str, Any]]:
        """Run an on-board loop; its rows, taken from the ring while it runs."""
        self.ram.write_words(self.layout.descriptor, descriptor.words())
        words: list[int] = []
        self.command(Command.RUN_LOOP, [self.layout.descriptor, len(descriptor.words()),
                                        self.layout.ring, self.layout.ring_words],
                     on_poll=lambda: words.extend(self.take()))
        words += self.take()
        return decode_rows(words)

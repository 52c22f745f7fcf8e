"""Board description schema: what a socket board and its controller look like.

A board file (boards/<name>.yaml) says how the NAND bus is wired to the
controller (FT2232H pin map and bus mode, or the FPGA's package pins), the
I/O voltage, the supply rails, the sockets and their chip enables, the power
monitor and the temperature control. Voltages are in mV, currents in mA,
resistances in mΩ, times in ns unless a field name says otherwise.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class McuWiring(_Strict):
    """FT2232H MCU host bus emulation wiring (the fast path).

    DQ[7:0] sit on AD[7:0], CE# on CS#, WE# on WR#, RE# on RD#; CLE and ALE
    are bits of the high address byte A[15:8]; R/B# is on I/O1 so the MPSSE
    "wait on I/O high" (88h) can wait for it inside the command stream.
    WP# is on I/O0 (SET BITS HIGH 82h, bit 0) with a pull-down on the board:
    an A[15:8] bit changes in the address phase of the bus cycle whose WR#
    pulse follows about 50 ns later, inside ONFI's tWW (100 ns from a WP#
    change to WE# low), while I/O0 changes between cycles and the host holds
    it tWW before the next one.
    """

    cle: int = Field(default=0x40, ge=1, le=0x80, description="A[15:8] bit driving CLE")
    ale: int = Field(default=0x80, ge=1, le=0x80, description="A[15:8] bit driving ALE")
    wp_n: Literal["io0"] = Field(
        default="io0", description="WP# pin: I/O0 (SET BITS HIGH 82h bit 0), pulled down"
    )
    rb_bit: int = Field(
        default=0x02, ge=1, le=0x80, description="GET_BITS_HIGH (83h) bit that reads R/B#"
    )

    @field_validator("wp_n", mode="before")
    @classmethod
    def _wp_not_on_the_address(cls, value: object) -> object:
        if isinstance(value, int):
            raise ValueError(
                f"WP# on A[15:8] bit 0x{value:02X} changes about 50 ns before WE# falls in "
                f"the same bus cycle, breaking tWW (100 ns): wire WP# to I/O0 (wp_n: io0)"
            )
        return value

    @model_validator(mode="after")
    def _one_bit_each(self) -> McuWiring:
        bits = {"cle": self.cle, "ale": self.ale}
        for name, bit in bits.items():
            if bit & (bit - 1):
                raise ValueError(f"{name}=0x{bit:02X} must be a single bit")
        if self.cle == self.ale:
            raise ValueError("cle and ale must be different A[15:8] bits")
        if self.rb_bit & 0x01:
            raise ValueError("rb_bit 0x01 is I/O0, which drives WP#: R/B# is on I/O1 (0x02)")
        return self


class BitbangPins(_Strict):
    """Control pins of the asynchronous bit-bang fallback: bit numbers 0..7
    on the control interface (DQ[7:0] is the whole data interface)."""

    cle: int = Field(default=0, ge=0, le=7)
    ale: int = Field(default=1, ge=0, le=7)
    we_n: int = Field(default=2, ge=0, le=7)
    re_n: int = Field(default=3, ge=0, le=7)
    ce_n: int = Field(default=4, ge=0, le=7)
    wp_n: int = Field(default=5, ge=0, le=7)
    rb_n: int = Field(default=6, ge=0, le=7, description="input")

    @model_validator(mode="after")
    def _distinct(self) -> BitbangPins:
        values = list(self.model_dump().values())
        if len(set(values)) != len(values):
            raise ValueError(f"bit-bang pins must be distinct bits, got {self.model_dump()}")
        return self


class BitbangWiring(_Strict):
    """Asynchronous bit-bang wiring: DQ on one FT2232H channel, control on the other."""

    data_interface: Literal[1, 2] = 1
    control_interface: Literal[1, 2] = 2
    pins: BitbangPins = Field(default_factory=BitbangPins)

    @model_validator(mode="after")
    def _two_channels(self) -> BitbangWiring:
        if self.data_interface == self.control_interface:
            raise ValueError("data_interface and control_interface must differ")
        return self


class FtdiController(_Strict):
    """An FT2232H driving the NAND bus through pyftdi."""

    kind: Literal["ft2232h"]
    bus_mode: Literal["mcu", "bitbang"] = Field(description="mcu = fast path, bitbang = fallback")
    interface: Literal[1, 2] = Field(default=1, description="channel of the MCU bus (1 = A)")
    mcu: McuWiring = Field(default_factory=McuWiring)
    bitbang: BitbangWiring | None = None
    reply_chunk_bytes: int = Field(
        default=3584, ge=64, le=4096, description="reply bytes per USB round trip (RX FIFO 4 KiB)"
    )
    nop_ns: float = Field(
        default=17.0, gt=0, description="time of one SEND_IMMEDIATE (87h), used to build DELAYs"
    )
    rb_sample_ns: float = Field(
        default=100.0, gt=0, description="period of one in-stream R/B# sample (83h), calibrated"
    )
    rb_max_samples: int = Field(
        default=8192, ge=0, le=65536, description="R/B# samples per WAIT_RDY (0 = wait only)"
    )
    bitbang_baudrate: int = Field(default=1_000_000, ge=1000, description="bit-bang pin rate")

    @model_validator(mode="after")
    def _bitbang_needs_wiring(self) -> FtdiController:
        if self.bus_mode == "bitbang" and self.bitbang is None:
            raise ValueError("bus_mode 'bitbang' needs a 'bitbang' wiring section")
        return self


class FpgaController(_Strict):
    """An FPGA ONFI controller reached over PCIe (XDMA)."""

    kind: Literal["fpga"]
    part: str = Field(description="FPGA part number, e.g. xc7k325tffg900-2")
    pcie_lanes: int = Field(default=4, ge=1, le=16)
    pcie_gen: int = Field(default=2, ge=1, le=5)
    channels: int = Field(default=1, ge=1, le=16, description="independent ONFI channels")
    iostandard: str = Field(default="LVCMOS18", description="NAND bank I/O standard")
    pins: dict[str, str | list[str]] = Field(
        description="RTL port name -> package pin(s), e.g. nand_dq: [AB1, AB2, ...]"
    )


class Rail(_Strict):
    """A supply rail the board provides to the sockets."""

    name: str
    nominal_mV: int = Field(gt=0, le=5500)
    min_mV: int | None = Field(default=None, gt=0)
    max_mV: int | None = Field(default=None, gt=0)
    enable_gpio: int | None = Field(default=None, ge=1, le=7, description="GPIO op bit enabling it")

    @model_validator(mode="after")
    def _window(self) -> Rail:
        lo = self.min_mV if self.min_mV is not None else self.nominal_mV
        hi = self.max_mV if self.max_mV is not None else self.nominal_mV
        if not lo <= self.nominal_mV <= hi:
            raise ValueError(f"nominal_mV {self.nominal_mV} is outside min_mV..max_mV {lo}..{hi}")
        return self


class Socket(_Strict):
    """One chip socket and the chip enables (targets) routed to it."""

    name: str
    package: str = Field(description="e.g. BGA132, BGA152, TSOP48")
    channel: int = Field(default=0, ge=0)
    chip_enables: list[int] = Field(min_length=1)


class MonitorChannel(_Strict):
    """One shunt-monitor channel on a rail."""

    rail: str
    i2c_address: int = Field(ge=0x40, le=0x4F, description="INA226/INA228 7-bit address")
    shunt_mOhm: float = Field(gt=0)
    max_current_mA: float = Field(gt=0)


class PowerMonitor(_Strict):
    """Supply-current instrument: INA226/INA228 on the bench's I2C, or a Nordic PPK2."""

    kind: Literal["ina226", "ina228", "ppk2"]
    i2c_url: str | None = Field(default=None, description="I2C master, e.g. ftdi://ftdi:2232h/2")
    i2c_frequency_hz: int = Field(default=400_000, ge=10_000, le=1_000_000)
    channels: list[MonitorChannel] = Field(default_factory=list)
    serial_port: str | None = Field(default=None, description="PPK2 serial port, e.g. /dev/ttyACM0")
    rail: str | None = Field(default=None, description="PPK2: the rail it supplies / measures")
    sample_period_us: float = Field(default=1100.0, gt=0, description="INA conversion period")

    @model_validator(mode="after")
    def _per_kind(self) -> PowerMonitor:
        if self.kind in ("ina226", "ina228"):
            if not self.channels:
                raise ValueError(f"a {self.kind} power monitor needs at least one channel")
            if self.i2c_url is None:
                raise ValueError(f"a {self.kind} power monitor needs i2c_url")
        elif self.rail is None:
            raise ValueError("a ppk2 power monitor needs the rail it measures")
        return self


class TemperatureControl(_Strict):
    """A SCPI temperature controller or chamber reached through pyvisa."""

    kind: Literal["scpi"]
    resource: str = Field(description="VISA resource, e.g. TCPIP::10.0.0.5::5025::SOCKET")
    read_command: str = Field(default="MEAS:TEMP?", description="query returning °C")
    setpoint_command: str = Field(default="SOUR:TEMP {value:.2f}", description="value in °C")
    min_C: float = -40.0
    max_C: float = 150.0
    settle_band_C: float = Field(default=0.5, gt=0)
    settle_timeout_s: float = Field(default=1800.0, gt=0)
    settle_poll_s: float = Field(default=1.0, gt=0, le=600, description="reading period, s")
    read_termination: str = "\n"
    write_termination: str = "\n"


class BusyTiming(_Strict):
    """Where WAIT_RDY busy times come from."""

    source: Literal["stream", "instrument"] = "stream"
    instrument: str | None = Field(default=None, description="the external timer's name")

    @model_validator(mode="after")
    def _named(self) -> BusyTiming:
        if self.source == "instrument" and not self.instrument:
            raise ValueError("busy source 'instrument' needs the instrument's name")
        return self


class BoardInterfaces(_Strict):
    """The data interfaces and timing modes the board's controller and wiring can run.

    NV-DDR2 signals at VccQ 1.8 V and NV-DDR3 at 1.2 V (ONFI 4.x), so a board lists
    only the DDR interface its I/O voltage carries; negotiation with a part then
    picks the fastest mode both list (`nandlab.onfi.interface`)."""

    sdr_modes: list[int] = Field(default=[0, 1, 2, 3, 4, 5], description="SDR modes (0..5)")
    nv_ddr2_modes: list[int] = Field(default=[], description="NV-DDR2 modes (0..7)")
    nv_ddr3_modes: list[int] = Field(default=[], description="NV-DDR3 modes (0..15)")
    toggle_modes: list[int] = Field(
        default=[], description="Toggle DDR 2.0 speed grades (0..7, 1.8 V as NV-DDR2)"
    )
    warmup_out_cycles: Literal[0, 1, 2, 4] = Field(
        default=0, description="NV-DDR2/3 warm-up cycles the board wants before data out "
        "(feature 02h; the part's most if it takes fewer)")
    warmup_in_cycles: Literal[0, 1, 2, 4] = Field(
        default=0, description="NV-DDR2/3 warm-up cycles the board wants before data in")

    @model_validator(mode="after")
    def _modes_exist(self) -> BoardInterfaces:
        for name, top in (("sdr_modes", 5), ("nv_ddr2_modes", 7), ("nv_ddr3_modes", 15),
                          ("toggle_modes", 7)):
            bad = [m for m in getattr(self, name) if not 0 <= m <= top]
            if bad:
                raise ValueError(f"interfaces.{name}: modes are 0..{top}, not {bad}")
        return self


class Board(_Strict):
    """One board: controller, I/O voltage, rails, sockets, instruments."""

    schema_version: Literal[1] = 1
    name: str
    description: str
    controller: FtdiController | FpgaController = Field(discriminator="kind")
    io_voltage_mV: int = Field(gt=0, le=3600, description="VCCQ of the NAND bus")
    rails: list[Rail] = Field(min_length=1)
    sockets: list[Socket] = Field(min_length=1)
    power_monitor: PowerMonitor | None = None
    temperature: TemperatureControl | None = None
    busy_timing: BusyTiming = Field(default_factory=BusyTiming)
    interfaces: BoardInterfaces = Field(default_factory=BoardInterfaces)

    @model_validator(mode="after")
    def _cross_refs(self) -> Board:
        for modes, vccq, name in ((self.interfaces.nv_ddr2_modes, 1800, "NV-DDR2"),
                                  (self.interfaces.nv_ddr3_modes, 1200, "NV-DDR3"),
                                  (self.interfaces.toggle_modes, 1800, "Toggle DDR 2.0")):
            if modes and self.io_voltage_mV != vccq:
                raise ValueError(
                    f"{name} signals at VccQ {vccq} mV: this board's io_voltage_mV is "
                    f"{self.io_voltage_mV}, so it cannot list {name} modes"
                )
        rails = {r.name for r in self.rails}
        if len(rails) != len(self.rails):
            raise ValueError("rail names must be unique")
        if not any(r.nominal_mV == self.io_voltage_mV for r in self.rails):
            raise ValueError(f"io_voltage_mV {self.io_voltage_mV} is not the nominal of any rail")
        monitor = self.power_monitor
        if monitor is not None:
            named = [c.rail for c in monitor.channels] + ([monitor.rail] if monitor.rail else [])
            for rail in named:
                if rail not in rails:
                    raise ValueError(
                        f"power_monitor names rail '{rail}': rails are {sorted(rails)}"
                    )
        ces = [ce for s in self.sockets for ce in s.chip_enables]
        if len(set(ces)) != len(ces):
            raise ValueError(f"a chip enable is routed to two sockets: {ces}")
        return self

    @property
    def targets(self) -> int:
        """Chip enables on the board (0..targets-1)."""
        return max(ce for s in self.sockets for ce in s.chip_enables) + 1

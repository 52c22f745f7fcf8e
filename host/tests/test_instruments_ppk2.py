"""Nordic PPK2 through ppk2-api, on a fake serial port that speaks its protocol."""

from __future__ import annotations

import struct

import pytest

from nandlab.instruments import InstrumentError, Ppk2Monitor

METADATA = "\n".join(
    ["Calibrated: 0"]
    + [f"R{i}: {r}" for i, r in enumerate((1031.64, 101.65, 10.15, 0.94, 0.043))]
    + [f"{k}{i}: {v}" for k, v in (("GS", 1), ("GI", 1), ("O", 0), ("S", 0), ("I", 0), ("UG", 1))
       for i in range(5)]
    + ["HW: 1", "IA: 0", "END", ""]
)
ADC_RANGE = 2
ADC_CODE = 1155  # ~5 mA in range 2


class FakePpk2Serial:
    """The PPK2's serial side: metadata on request, samples while averaging runs."""

    def __init__(self, port: str, **kwargs: object) -> None:
        self.port = port
        self.baudrate = 0
        self.pending = b""
        self.measuring = False
        self.commands: list[bytes] = []
        self.metadata = METADATA

    @property
    def in_waiting(self) -> int:
        if self.measuring:
            sample = ADC_CODE | (ADC_RANGE << 14)
            self.pending += struct.pack("<I", sample) * 100
        return len(self.pending)

    def read(self, n: int = 1) -> bytes:
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def write(self, data: bytes) -> int:
        data = bytes(data)
        self.commands.append(data)
        if data[0] == 0x19:  # GET_META_DATA
            self.pending += self.metadata.encode()
        elif data[0] == 0x06:  # AVERAGE_START
            self.measuring = True
        elif data[0] == 0x07:  # AVERAGE_STOP
            self.measuring = False
        return len(data)

    def close(self) -> None:
        return None


@pytest.fixture
def fake_serial(monkeypatch: pytest.MonkeyPatch) -> list[FakePpk2Serial]:
    import ppk2_api.ppk2_api as api_module

    made: list[FakePpk2Serial] = []

    def factory(port: str, **kwargs: object) -> FakePpk2Serial:
        made.append(FakePpk2Serial(port, **kwargs))
        return made[-1]

    monkeypatch.setattr(api_module.serial, "Serial", factory)
    monkeypatch.setattr(api_module.time, "sleep", lambda s: None)
    return made


def test_source_mode_window_of_samples(fake_serial: list[FakePpk2Serial]) -> None:
    monitor = Ppk2Monitor("/dev/ttyACM9", 3300)
    (port,) = fake_serial
    assert [c[0] for c in port.commands[:4]] == [0x19, 0x11, 0x0D, 0x0C]  # meta, mode, VDD, power
    monitor.start()
    period, samples = monitor.stop()
    assert period == 10_000 and len(samples) >= 100
    expected = ADC_CODE * 4 * (1.8 / 163840) / 10.15
    expected_uA = (expected * (expected + 1)) * 1e6
    assert all(s == pytest.approx(expected_uA, rel=0.01) for s in samples)
    assert monitor.last_trace is not None and monitor.last_trace.voltage_mV == 3300
    monitor.close()
    assert port.commands[-1][0] == 0x0C


def test_no_metadata_is_an_instrument_error(fake_serial: list[FakePpk2Serial],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FakePpk2Serial, "write", lambda self, data: len(data))
    with pytest.raises(InstrumentError, match="no calibration metadata"):
        Ppk2Monitor("/dev/ttyACM9", 3300)


def test_missing_port_is_an_instrument_error() -> None:
    with pytest.raises(InstrumentError, match="cannot open the PPK2 on /dev/nonexistent-ppk2"):
        Ppk2Monitor("/dev/nonexistent-ppk2", 3300)

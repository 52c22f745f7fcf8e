"""Transports: run op programs on a bench opened by URL.

`open_bench(url)` parses the URL and returns the transport: `sim://`
(virtual dies in-process), `rtl://` (the FPGA design in simulation, virtual
dies on its pins), `ftdi://` (FT2232H bench), `xdma://` (PCIe FPGA bench).
The last three import their dependencies only when opened. See
`nandlab.transport.url` for the URL forms.

    >>> with open_bench("sim://mlc-64l?seed=7&fresh=1") as bench:  # doctest: +SKIP
    ...     bench.run(Program().ce(0).cmd(0x70).delay(120).dout(1))
"""

from __future__ import annotations

from nandlab.errors import UsageError
from nandlab.transport.base import Transport
from nandlab.transport.sim import SimTransport
from nandlab.transport.url import SimOptions, parse_sim_url, scheme_of


def open_bench(url: str, *, read_only: bool = False) -> Transport:
    """Open the bench a URL names; raises BenchURLError (bad URL) or ProfileError.

    `read_only`: the command will not change the chip. A virtual bench then shares its
    die image with other readers and never writes it (other benches keep no local state).
    """
    scheme = scheme_of(url)
    if scheme == "sim":
        return SimTransport.from_options(parse_sim_url(url), url, read_only=read_only)
    try:
        return _open_extra(scheme, url)
    except ModuleNotFoundError as exc:
        if (exc.name or "nandlab").partition(".")[0] == "nandlab":
            raise
        extra = "rtl" if scheme == "rtl" else "hw"
        raise UsageError(
            f"{scheme}:// benches need the '{extra}' extra, which is not installed ({exc.name} "
            f"is missing): pip install -c constraints.txt -e 'host[{extra}]' (make setup does)"
        ) from None


def _open_extra(scheme: str, url: str) -> Transport:
    """The benches whose packages are optional extras (host/pyproject.toml)."""
    if scheme == "rtl":
        from nandlab.transport.rtl import open_rtl  # cocotb and simulators load only here

        return open_rtl(url)
    if scheme == "ftdi":
        from nandlab.transport.ftdi import FtdiTransport  # pyftdi loads only for ftdi:// benches

        return FtdiTransport.from_url(url)
    if scheme == "xdma":
        from nandlab.transport.xdma import XdmaTransport

        return XdmaTransport.from_url(url)
    raise AssertionError(f"scheme {scheme} is listed but not wired")  # pragma: no cover


__all__ = ["SimOptions", "SimTransport", "Transport", "open_bench", "parse_sim_url"]

"""`ftdi://` bench URLs: a pyftdi device URL plus nandlab options.

    ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l
    ftdi://ftdi:2232h:FT1234AB/1?board=boards/my-board.yaml&profile=/path/part.yaml&instruments=1

The part before `?` is pyftdi's URL (`ftdi://[vendor][:product[:serial|:bus:addr|:index]]/interface`).
Options: board= (required: name in boards/ or a .yaml path), profile= (the
chip profile the socket should hold: name or path; used for the expected
busy times and the ID check), instruments=1 (open the board file's power
monitor and temperature controller with the bench), busy=sample|wait (sample,
the default: R/B# sampled in the stream every rb_sample_ns, so busy times are
measured, at one command byte per sample; wait: the chip waits for R/B# with 88h
alone, ~2.00 command bytes per byte read, and busy times are not measured).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlunsplit

from nandlab.errors import BenchURLError
from nandlab.transport.url import query_options, split_url

FTDI_FORM = (
    "ftdi://[vendor][:product[:serial|:bus:addr|:index]]/interface?board=NAME|PATH"
    "&profile=NAME|PATH[&instruments=1][&busy=sample|wait] (e.g. ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l)"
)
_KEYS = frozenset({"board", "profile", "instruments", "busy"})
BUSY_MODES = ("sample", "wait")


@dataclass(frozen=True)
class FtdiOptions:
    """Options of an `ftdi://` bench.

    device_url: the pyftdi URL (no query).
    interface: the FT2232H channel in the URL (1 = A, 2 = B).
    board: board name or path.
    profile: chip profile name or path (None: no profile declared).
    instruments: open the board's power monitor and temperature controller.
    busy: "sample" (R/B# sampled in the stream: busy times measured) or "wait" (88h only).
    """

    device_url: str
    interface: int
    board: str
    profile: str | None = None
    instruments: bool = False
    busy: str = "sample"

    def device_url_for(self, interface: int) -> str:
        """The same device, another channel."""
        head = self.device_url.rsplit("/", 1)[0]
        return f"{head}/{interface}"


def parse_ftdi_url(url: str) -> FtdiOptions:
    """Parse an `ftdi://` URL; raises BenchURLError naming the fault and the form."""
    parts = split_url(url, FTDI_FORM)
    if parts.scheme.lower() != "ftdi":
        raise BenchURLError(f"'{url}' is not an ftdi:// URL: use {FTDI_FORM}")
    if parts.fragment:
        raise BenchURLError(f"bench URL '{url}': no #fragment is allowed; form: {FTDI_FORM}")
    query = query_options(url, parts.query, _KEYS, FTDI_FORM)
    path = parts.path.strip("/")
    if not path.isdigit() or int(path) not in (1, 2):
        raise BenchURLError(
            f"bench URL '{url}': interface '/{path}' must be /1 (channel A) or /2 (channel B); "
            f"form: {FTDI_FORM}"
        )
    if not query.get("board"):
        raise BenchURLError(f"bench URL '{url}' names no board (board=...); form: {FTDI_FORM}")
    if "profile" in query and not query["profile"]:
        raise BenchURLError(f"bench URL '{url}': profile= needs a name or path")
    instruments = query.get("instruments", "0")
    if instruments not in ("0", "1"):
        raise BenchURLError(f"bench URL '{url}': instruments='{instruments}' must be 0 or 1")
    busy = query.get("busy", "sample")
    if busy not in BUSY_MODES:
        raise BenchURLError(f"bench URL '{url}': busy='{busy}' must be sample or wait")
    device = urlunsplit((parts.scheme.lower(), parts.netloc or "ftdi:2232h", f"/{path}", "", ""))
    return FtdiOptions(device, int(path), query["board"], query.get("profile"),
                       instruments == "1", busy)

"""`nandlab doctor`: what stops a real FT2232H bench, and how to fix it.

Checks in order, each one a finding with a fix:

1. libusb: pyusb (through pyftdi's backend list) finds a libusb backend.
2. devices: FTDI devices are on the bus (FT2232H 0403:6010, FT232H 6014,
   FT4232H 6011, FT232R 6001).
3. permission: each device can be opened (else: the udev rule to install).
4. kernel driver: ftdi_sio does not hold an interface pyftdi cannot detach.
5. with --url: the bench opens, and the chip in the socket answers READ ID
   and its parameter page with the identity the URL's profile declares.

Exit code 0 when nothing stops the bench, 1 when something does.
"""

from __future__ import annotations

import contextlib
import errno
from dataclasses import asdict, dataclass
from typing import Any

import click

from nandlab.cli.common import json_option, print_json

FTDI_VID = 0x0403
FTDI_PIDS = {0x6010: "FT2232H", 0x6014: "FT232H", 0x6011: "FT4232H", 0x6001: "FT232R"}
UDEV_RULE_FILE = "/etc/udev/rules.d/11-ftdi.rules"
UDEV_RULES = "\n".join(
    f'SUBSYSTEM=="usb", ATTR{{idVendor}}=="0403", ATTR{{idProduct}}=="{pid:04x}", '
    f'GROUP="plugdev", MODE="0664"'
    for pid in FTDI_PIDS
)
UDEV_FIX = (
    f"install the udev rule: write these lines to {UDEV_RULE_FILE}\n{UDEV_RULES}\n"
    "then: sudo udevadm control --reload-rules && sudo udevadm trigger; add yourself to "
    "plugdev (sudo usermod -aG plugdev $USER, log in again) and replug the board"
)
LIBUSB_FIX = (
    "install libusb 1.0: Debian/Ubuntu `sudo apt install libusb-1.0-0`, Fedora "
    "`sudo dnf install libusb1`, macOS `brew install libusb`; pyusb must find libusb-1.0.so"
)
KERNEL_DRIVER_FIX = (
    "ftdi_sio (the serial driver, /dev/ttyUSB*) holds the interface and cannot be detached "
    "without permission: `sudo rmmod ftdi_sio` for this session, or install the udev rule "
    "above so pyftdi may detach it"
)


@dataclass(frozen=True)
class Finding:
    """One check: ok (True), a problem (False) or a note (None); what to do about it."""

    check: str
    ok: bool | None
    message: str
    fix: str = ""


def check_libusb() -> tuple[Finding, Any]:
    """Whether pyusb has a backend (via pyftdi's preference list)."""
    try:
        from pyftdi.usbtools import UsbTools
    except ModuleNotFoundError as exc:  # the 'hw' extra is optional (make demo skips it)
        return Finding(
            "packages", False, f"the 'hw' extra is not installed ({exc.name} is missing)",
            "pip install -c constraints.txt -e 'host[hw]' (make setup does)",
        ), None

    try:
        backend = UsbTools.find_backend()
    except (ValueError, OSError) as exc:
        return Finding("libusb", False, f"pyusb found no libusb backend ({exc})", LIBUSB_FIX), None
    return Finding("libusb", True, f"pyusb backend: {type(backend).__module__}"), backend


def check_devices(backend: Any) -> list[Finding]:
    """FTDI devices present, and whether each can be opened and its interfaces claimed."""
    import usb.core

    try:
        devices = list(usb.core.find(find_all=True, backend=backend, idVendor=FTDI_VID))
    except Exception as exc:  # noqa: BLE001 - enumeration failures are findings
        return [Finding("devices", False, f"USB enumeration failed: {exc}", LIBUSB_FIX)]
    devices = [d for d in devices if d.idProduct in FTDI_PIDS]
    if not devices:
        return [Finding(
            "devices", False, "no FTDI device found on USB",
            "check the cable and the board's power; `lsusb` should list 0403:6010 (FT2232H)",
        )]
    findings = []
    for dev in devices:
        where = f"{FTDI_PIDS[dev.idProduct]} on bus {dev.bus} address {dev.address}"
        findings.append(Finding("devices", True, f"found {where}"))
        findings += _check_access(dev, where)
    return findings


def _check_access(dev: Any, where: str) -> list[Finding]:
    import usb.util
    from usb.core import USBError

    findings: list[Finding] = []
    try:
        interfaces = dev.get_active_configuration().bNumInterfaces  # opens: EACCES here
        serial = usb.util.get_string(dev, dev.iSerialNumber)
        where = f"{where} (serial {serial})"
        for intf in range(interfaces):
            try:
                held = dev.is_kernel_driver_active(intf)
            except NotImplementedError:
                continue
            if not held:
                continue
            try:
                dev.detach_kernel_driver(intf)
            except USBError as exc:
                findings.append(Finding(
                    "kernel driver", False,
                    f"ftdi_sio holds interface {intf + 1} of {where}; detaching failed: {exc}",
                    KERNEL_DRIVER_FIX,
                ))
                continue
            findings.append(Finding(
                "kernel driver", None,
                f"ftdi_sio held interface {intf + 1} of {where}; detached (pyftdi does this too)",
            ))
            with contextlib.suppress(USBError, NotImplementedError):
                dev.attach_kernel_driver(intf)
        if not findings:
            findings.append(Finding("permission", True, f"{where} opens and no driver holds it"))
    except (USBError, OSError) as exc:
        findings.append(_access_failure(where, exc))
    finally:
        usb.util.dispose_resources(dev)
    return findings


def _access_failure(where: str, exc: BaseException) -> Finding:
    code = getattr(exc, "errno", None)
    if code in (errno.EACCES, errno.EPERM):
        return Finding("permission", False, f"no permission to open {where}: {exc}", UDEV_FIX)
    if code == errno.EBUSY:
        return Finding("kernel driver", False, f"{where} is busy: {exc}", KERNEL_DRIVER_FIX)
    return Finding("permission", False, f"cannot open {where}: {exc}",
                   "replug the board; if it persists, check dmesg for USB errors")


def check_bench(url: str) -> list[Finding]:
    """Open the bench and identify the chip against the URL's profile."""
    from nandlab.errors import NandlabError
    from nandlab.onfi import Chip
    from nandlab.onfi.errors import NotOnfiChip, ProfileMismatch
    from nandlab.transport import open_bench

    try:
        bench = open_bench(url, read_only=True)  # identifies only: a virtual die is not rewritten
    except NandlabError as exc:
        return [Finding("bench", False, f"cannot open {url}: {exc}",
                        "fix the findings above, or the URL (board=, profile=)")]
    try:
        chip = Chip(bench)
        try:
            ident = chip.identify()
        except ProfileMismatch as exc:
            return [Finding("chip", False, f"wrong chip in the socket: {exc}",
                            "put the profile's part in the socket, or give the profile of the "
                            "part that is there (profile= in the URL)")]
        except NotOnfiChip as exc:
            return [Finding("chip", False, str(exc),
                            "seat the chip (pin 1 / ball A1), check CE# and the I/O voltage")]
        except NandlabError as exc:
            return [Finding("chip", False, f"identification failed: {exc}",
                            "check the socket, the supply rails and the board file's wiring")]
        model = ident.fields.get("model")
        profile = bench.profile.name if bench.profile is not None else "(none)"
        return [Finding("chip", True, f"socket holds {ident.fields.get('manufacturer')} {model} "
                                      f"(READ ID {ident.id_bytes.hex(' ')}), matches profile "
                                      f"{profile}")]
    finally:
        bench.close()


def diagnose(url: str | None) -> list[Finding]:
    """Every finding, in order; stops early where later checks cannot run."""
    libusb, backend = check_libusb()
    findings = [libusb]
    if backend is None:
        return findings
    devices = check_devices(backend)
    findings += devices
    if url is not None and all(f.ok is not False for f in devices):
        findings += check_bench(url)
    return findings


@click.command()
@click.option("--url", help="Also open this ftdi:// bench and check the chip in its socket.")
@json_option
def doctor(url: str | None, as_json: bool) -> None:
    """Tell what stops a real FT2232H bench from working.

    Checks libusb, permissions, the ftdi_sio driver, the device and, with --url, the
    chip in its socket.

    \b
    Example:
      nandlab doctor --url ftdi://ftdi:2232h/1
    """
    if url is not None:
        from nandlab.transport.ftdi.options import parse_ftdi_url

        parse_ftdi_url(url)  # a malformed URL is a usage error (exit 2), not a finding
    findings = diagnose(url)
    problems = [f for f in findings if f.ok is False]
    if as_json:
        print_json({"ok": not problems, "findings": [asdict(f) for f in findings]})
    else:
        marks = {True: "ok  ", False: "FAIL", None: "note"}
        for f in findings:
            click.echo(f"[{marks[f.ok]}] {f.check}: {f.message}")
            for line in f.fix.splitlines():
                click.echo(f"       fix: {line}" if line == f.fix.splitlines()[0] else
                           f"            {line}")
        click.echo("nothing stops the bench" if not problems else
                   f"{len(problems)} problem(s) stop the bench")
    if problems:
        raise SystemExit(1)

"""Commands on one chip: profiles, info, status, read, program, erase."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from nandlab.cli.common import (
    AddressList,
    chip_args,
    dry_run_option,
    json_option,
    open_chip,
    print_json,
    require_yes,
    stdout_console,
    yes_option,
)
from nandlab.errors import ReadOnlyDataError, UsageError
from nandlab.onfi.interface import part_modes
from nandlab.onfi_spec.opcodes import Status
from nandlab.ops.pattern import PATTERNS, page_pattern
from nandlab.profiles import builtin_names, load_profile


@click.command()
@json_option
def profiles(as_json: bool) -> None:
    """List the built-in chip profiles.

    \b
    Example:
      nandlab profiles --json
    """
    rows: list[dict[str, Any]] = []
    for name in builtin_names():
        p = load_profile(name)
        g = p.geometry
        rows.append(
            {
                "name": p.name,
                "cell": g.cell,
                "page_bytes": g.page_bytes,
                "spare_bytes": g.spare_bytes,
                "planes": g.planes,
                "blocks": g.blocks,
                "wls_per_block": g.wls_per_block,
                "virtual": p.virtual,
                "description": p.description,
            }
        )
    if as_json:
        print_json({"profiles": rows})
        return
    table = Table(title="built-in chip profiles")
    for col in ("name", "cell", "page (+spare) B", "blocks", "WLs/block", "virtual", "description"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["name"],
            r["cell"].upper(),
            f"{r['page_bytes']} (+{r['spare_bytes']})",
            f"{r['blocks']} ({r['planes']} planes)",
            str(r["wls_per_block"]),
            "yes" if r["virtual"] else "no",
            r["description"],
        )
    stdout_console().print(table)


@click.command()
@chip_args
def info(url: str, fresh: bool, as_json: bool) -> None:
    """Identify the chip: READ ID, parameter page, geometry, timing.

    The parameter page's CRC and copy (ONFI, or JEDEC for a Toggle part), the unique ID,
    and any rule the page breaks are shown too.

    \b
    Example:
      nandlab info sim://mlc-64l
    """
    with open_chip(url, fresh, read_only=True) as (_, chip):
        ident = chip.identify()
        geometry = chip.geometry
        interface = chip.negotiate_interface()
    offered = part_modes(ident.fields).describe()
    crc = (
        f"copy {ident.parameter_page_copy} passed its CRC"
        if ident.parameter_page_copy is not None
        else f"every copy failed its CRC: bitwise majority of {len(ident.parameter_page_copies)}"
    )
    if as_json:
        doc = ident.to_dict()
        doc["parameter_page_hex"] = ident.parameter_page.hex()
        doc["parameter_page_crc"] = crc
        doc["geometry"] = {
            "page_bytes": geometry.page_bytes,
            "spare_bytes": geometry.spare_bytes,
            "pages_per_block": geometry.pages_per_block,
            "blocks": geometry.blocks,
            "planes": geometry.planes,
            "bits_per_cell": geometry.bits_per_cell,
            "column_cycles": geometry.column_cycles,
            "row_cycles": geometry.row_cycles,
        }
        doc["interfaces"] = {
            "offered": offered,
            "negotiated": {"interface": interface.interface, "mode": interface.mode,
                           "data_rate_mts": interface.data_rate_mts, "reason": interface.reason},
        }
        print_json(doc)
        return
    f = ident.fields
    modes = [str(m) for m in range(16) if int(f["sdr_timing_modes"]) >> m & 1]
    table = Table(title=f"{url}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_row("READ ID 00h", " ".join(f"{b:02X}" for b in ident.id_bytes))
    jedec = f["standard"] == "jedec"
    if jedec:
        table.add_row("READ ID 40h", "JEDEC (no ONFI signature at 20h)")
    else:
        table.add_row("READ ID 20h", ident.onfi_signature.decode("ascii", errors="replace"))
    table.add_row(f"{'JEDEC' if jedec else 'ONFI'} parameter page", crc)
    version = f["jedec_version"] if jedec else f["onfi_version"]
    revision = f"{version} (revision field {int(f['revision']):04X}h)"
    table.add_row(f"{'JEDEC' if jedec else 'ONFI'} revision", revision)
    table.add_row("manufacturer / model", f"{f['manufacturer']} / {f['model']}")
    table.add_row("JEDEC ID", f"{int(f['jedec_id']):02X}h")
    table.add_row("geometry", geometry.describe())
    bits = f"{f['bits_per_cell']} (READ ID byte 2: {f['id_bits_per_cell']})"
    table.add_row("bits per cell", bits)
    ecc = (
        f"{f['ecc_strength']} bits per {f['ecc_step_bytes']} bytes"
        if f["ecc_strength"] is not None
        else "not stated"
    )
    table.add_row("ECC required", ecc)
    table.add_row("endurance", f"{f['endurance_value']}e{f['endurance_multiplier']} P/E cycles")
    table.add_row("SDR timing modes", ", ".join(modes) or "-")
    table.add_row("data interfaces", offered)
    why = f" ({interface.reason})" if interface.reason else ""
    table.add_row("negotiated interface", f"{interface}{why}")
    table.add_row(
        "tR / tPROG / tBERS (max)", f"{f['t_r_us']} / {f['t_prog_us']} / {f['t_bers_us']} µs"
    )
    table.add_row("tCCS", f"{f['t_ccs_ns']} ns")
    table.add_row("unique ID", f"{ident.unique_id} (copy {ident.unique_id_copy})")
    for note in f["conformance"]:
        table.add_row(f"{'JEDEC' if jedec else 'ONFI'} rule broken", note)
    stdout_console().print(table)


def _status_bits(status: int) -> list[str]:
    return [flag.name or "" for flag in Status if status & flag]


@click.command()
@chip_args
def status(url: str, fresh: bool, as_json: bool) -> None:
    """READ STATUS (70h).

    \b
    Example:
      nandlab status sim://mlc-64l
    """
    with open_chip(url, fresh, read_only=True) as (_, chip):
        value = chip.status()
    if as_json:
        print_json({"status": value, "status_hex": f"{value:02X}", "bits": _status_bits(value)})
    else:
        click.echo(f"status {value:02X}h: {' '.join(_status_bits(value)) or '(no bit set)'}")


MAX_PAGE_FILE = 1 << 20
"""More than any page with its spare area; a larger --in file (/dev/zero) is refused unread."""


def _page_file(path: Path) -> bytes:
    """The bytes of a --in file, read before the chip is opened and at most MAX_PAGE_FILE."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PAGE_FILE + 1)
    except OSError as exc:
        raise UsageError(f"--in {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PAGE_FILE:
        raise UsageError(f"--in {path} holds more than {MAX_PAGE_FILE} bytes: give one page")
    return data


@click.command()
@chip_args
@click.option("--block", type=int, required=True, help="Block to read.")
@click.option("--page", type=int, required=True, help="Page in the block (a WL with --slc).")
@click.option("--slc", is_flag=True, help="Read in SLC mode (vendor prefix command).")
@click.option("--plane", type=int, default=None, help="Check the block is on this plane.")
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the page's bytes to this file.",
)
@click.option("--hex", "as_hex", is_flag=True, help="Print the data as a hex dump.")
@click.option("--force", is_flag=True, help="Read a block that carries the bad-block marker.")
@dry_run_option
def read(
    url: str,
    block: int,
    page: int,
    slc: bool,
    plane: int | None,
    out_file: Path | None,
    as_hex: bool,
    force: bool,
    dry_run: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """READ one page (data + spare).

    On a virtual die the read counts as read disturb for the block and draws fresh read
    noise, saved with the die; with a read-only data folder the page is read all the
    same and a note on stderr says that this was not saved.

    \b
    Example:
      nandlab read sim://mlc-64l --block 3 --page 0 --hex
    """
    if dry_run:
        from nandlab.cli.plan import chip_plan, show  # only for --dry-run

        show(chip_plan("read", url, fresh, [("READ page", 1)], {}), as_json)
        return
    try:
        with open_chip(url, fresh) as (_, chip):
            got = chip.read_page(block, page, slc=slc, plane=plane, force=force)
    except ReadOnlyDataError:
        with open_chip(url, fresh, read_only=True) as (_, chip):
            got = chip.read_page(block, page, slc=slc, plane=plane, force=force)
        click.echo(
            "note: the data folder is read-only: the read's effect on the virtual die "
            "(read disturb, read noise state) was not saved",
            err=True,
        )
    data = got.data
    if out_file is not None:
        out_file.write_bytes(data)
    zeros = len(data) * 8 - sum(bin(b).count("1") for b in data)
    doc = {
        "block": block,
        "page": page,
        "slc": slc,
        "bytes": len(data),
        "zero_bits": zeros,
        "busy_us": got.busy_ns / 1000,
        "sha256": hashlib.sha256(data).hexdigest(),
        "out": str(out_file) if out_file else None,
    }
    if as_json:
        if as_hex:
            doc["data_hex"] = data.hex()
        print_json(doc)
        return
    click.echo(
        f"block {block} page {page}{' (SLC)' if slc else ''}: {len(data)} bytes, "
        f"{zeros} zero bits, tR {got.busy_ns / 1000:.1f} µs"
        + (f", written to {out_file}" if out_file else "")
    )
    if as_hex:
        for off in range(0, len(data), 16):
            chunk = data[off : off + 16]
            click.echo(f"{off:06x}  {chunk.hex(' ')}")


@click.command()
@chip_args
@click.option("--block", type=int, required=True, help="Block to program.")
@click.option("--page", type=int, required=True, help="Page in the block (a WL with --slc).")
@click.option("--pattern", type=click.Choice(PATTERNS), default=None, help="Data to write.")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=0,
    show_default=True,
    help="Seed of --pattern random.",
)
@click.option(
    "--in",
    "in_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Write this file's bytes instead of a pattern.",
)
@click.option("--slc", is_flag=True, help="Program in SLC mode.")
@click.option("--force", is_flag=True, help="Program a bad block or a page that is not erased.")
@yes_option
@dry_run_option
def program(
    url: str,
    block: int,
    page: int,
    pattern: str | None,
    seed: int,
    in_file: Path | None,
    slc: bool,
    force: bool,
    yes: bool,
    dry_run: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """PROGRAM one page with a pattern or a file's bytes.

    Patterns keep the bad-block marker byte (the first spare byte) FFh.

    \b
    Example:
      nandlab program sim://mlc-64l --block 3 --page 0 --pattern random --seed 7 --yes
    """
    if (pattern is None) == (in_file is None):
        raise UsageError("give exactly one of --pattern (random|checker|zeros|ones) or --in FILE")
    if dry_run:
        from nandlab.cli.plan import chip_plan, show  # only for --dry-run

        show(chip_plan("program", url, fresh, [("PROGRAM page", 1)], {}), as_json)
        return
    require_yes(yes, "program")
    data = _page_file(in_file) if in_file is not None else b""
    with open_chip(url, fresh) as (_, chip):
        geo = chip.geometry
        if in_file is None:
            assert pattern is not None
            wl = page if slc else page // geo.bits_per_cell
            data = page_pattern(
                pattern,
                geo.total_bytes,
                seed=seed,
                block=block,
                page=page,
                wl=wl,
                marker_column=geo.page_bytes,
            )
        result = chip.program_page(block, page, data, slc=slc, force=force)
    doc = {
        "block": block,
        "page": page,
        "slc": slc,
        "bytes": len(data),
        "pattern": pattern,
        "seed": seed if pattern == "random" else None,
        "in": str(in_file) if in_file else None,
        "status": result.status,
        "busy_us": result.busy_ns / 1000,
    }
    if as_json:
        print_json(doc)
    else:
        source = f"pattern {pattern}" if pattern else str(in_file)
        click.echo(
            f"programmed block {block} page {page}{' (SLC)' if slc else ''} with {source}: "
            f"{len(data)} bytes, status {result.status:02X}h, tPROG {result.busy_ns / 1000:.1f} µs"
        )


@click.command()
@chip_args
@click.option(
    "--block", "blocks", type=AddressList(), required=True, help="Blocks to erase, e.g. 0-9,20."
)
@click.option("--force", is_flag=True, help="Erase a block that carries the bad-block marker.")
@yes_option
@dry_run_option
def erase(
    url: str, blocks: list[int], force: bool, yes: bool, dry_run: bool, fresh: bool, as_json: bool
) -> None:
    """ERASE blocks, in the order given.

    \b
    Example:
      nandlab erase sim://mlc-64l --block 0-3,8 --yes
    """
    if dry_run:
        from nandlab.cli.plan import chip_plan, show  # only for --dry-run

        plan = chip_plan(
            "erase", url, fresh, [("ERASE block", len(blocks))], dict.fromkeys(blocks, 1)
        )
        show(plan, as_json)
        return
    require_yes(yes, "erase")
    done = []
    with open_chip(url, fresh) as (_, chip):
        for block in blocks:
            result = chip.erase_block(block, force=force)
            done.append({"block": block, "status": result.status, "busy_us": result.busy_ns / 1000})
    if as_json:
        print_json(done[0] if len(done) == 1 else {"erased": done})
        return
    for d in done:
        click.echo(
            f"erased block {d['block']}: status {d['status']:02X}h, tBERS {d['busy_us']:.1f} µs"
        )

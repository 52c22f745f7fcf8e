"""Commands on a chip's features: features get / set, offsets get / set (SET FEATURES)."""

from __future__ import annotations

import math

import click

from nandlab.cli.common import (
    chip_args,
    dry_run_option,
    open_chip,
    parse_int,
    print_json,
    require_yes,
    yes_option,
)
from nandlab.cli.plan import chip_plan, show
from nandlab.errors import UsageError
from nandlab.onfi.errors import FeatureNotAccepted


@click.group()
def features() -> None:
    """GET / SET FEATURES.

    \b
    Example:
      nandlab features get sim://mlc-64l 0x01
    """


@features.command("get")
@chip_args
@click.argument("fa")
def features_get(url: str, fa: str, fresh: bool, as_json: bool) -> None:
    """GET FEATURES at address FA (e.g. 0x01, 01h, 1).

    \b
    Example:
      nandlab features get sim://mlc-64l 0x01
    """
    address = parse_int(fa, "feature address", 0, 0xFF)
    with open_chip(url, fresh, read_only=True) as (_, chip):
        params = chip.get_feature(address)
    if as_json:
        print_json({"feature": address, "params": list(params)})
    else:
        click.echo(
            f"feature {address:02X}h: "
            + " ".join(f"P{i + 1}={b:02X}h" for i, b in enumerate(params))
        )


@features.command("set")
@chip_args
@click.argument("fa")
@click.argument("params", nargs=-1, required=True)
@yes_option
@click.option(
    "--allow-test-mode",
    is_flag=True,
    help="Allow a test-mode address (ESP, sensing time, MWS override); sent inside the test mode.",
)
@dry_run_option
def features_set(
    url: str,
    fa: str,
    params: tuple[str, ...],
    yes: bool,
    allow_test_mode: bool,
    dry_run: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """SET FEATURES at address FA with P1 [P2 P3 P4] (missing ones are 0).

    Refused (exit 2) before anything is sent when the part would drop the write: an
    address it does not implement, a timing mode its parameter page does not list, a
    test-mode address without --allow-test-mode. The feature is read back afterwards.

    \b
    Example:
      nandlab features set sim://mlc-64l 0x01 0x05 --yes
    """
    address = parse_int(fa, "feature address", 0, 0xFF)
    if len(params) > 4:
        raise UsageError(f"SET FEATURES takes P1..P4: at most 4 parameters, got {len(params)}")
    values = [parse_int(p, f"P{i + 1}", 0, 0xFF) for i, p in enumerate(params)]
    values += [0] * (4 - len(values))
    if dry_run:
        show(chip_plan("features set", url, fresh, [("SET FEATURES", 1)], {}), as_json)
        return
    require_yes(yes, "features set")
    with open_chip(url, fresh) as (_, chip):
        busy = chip.set_feature(address, bytes(values), allow_test_mode=allow_test_mode)
        back = list(chip.get_feature(address))
    if back != values:
        raise FeatureNotAccepted(
            f"feature {address:02X}h reads back {bytes(back).hex(' ')} after writing "
            f"{bytes(values).hex(' ')}: the target did not take the write"
        )
    if as_json:
        print_json({"feature": address, "params": values, "busy_us": busy / 1000})
    else:
        click.echo(
            f"feature {address:02X}h set to "
            + " ".join(f"P{i + 1}={b:02X}h" for i, b in enumerate(values))
            + f" (tFEAT {busy / 1000:.2f} µs, read back)"
        )


@click.group()
def offsets() -> None:
    """Read-reference offsets (SET FEATURES), in mV.

    \b
    Example:
      nandlab offsets set sim://mlc-64l --yes VREF0 -- -40
    """


@offsets.command("get")
@chip_args
def offsets_get(url: str, fresh: bool, as_json: bool) -> None:
    """Print every read reference's current offset (mV).

    \b
    Example:
      nandlab offsets get sim://mlc-64l
    """
    with open_chip(url, fresh, read_only=True) as (_, chip):
        values = chip.read_offsets_mV()
    _print_offsets(values, as_json)


@offsets.command("set", context_settings={"ignore_unknown_options": True})
@chip_args
@click.argument("reference")
@click.argument("mv", type=float)
@click.option("--slc", is_flag=True, help="Set the SLC read reference instead.")
@yes_option
@dry_run_option
def offsets_set(
    url: str,
    reference: str,
    mv: float,
    slc: bool,
    yes: bool,
    dry_run: bool,
    fresh: bool,
    as_json: bool,
) -> None:
    """Set read reference REFERENCE (index or name, e.g. 0 or VREF0) to an offset of MV mV.

    \b
    Example:
      nandlab offsets set sim://mlc-64l --yes VREF0 -- -40
    """
    if not math.isfinite(mv):  # refused before the chip is opened
        raise UsageError(f"MV {mv}: an offset is a finite number of mV")
    if dry_run:
        show(chip_plan("offsets set", url, fresh, [("SET FEATURES", 1)], {}), as_json)
        return
    require_yes(yes, "offsets set")
    with open_chip(url, fresh) as (_, chip):
        refs = chip.profile.read_offsets.references
        names = [r.name for r in refs]
        if reference in names:
            index = names.index(reference)
        elif reference.isdigit():
            index = int(reference)
        elif slc:
            index = 0
        else:
            raise UsageError(
                f"unknown read reference '{reference}': use 0..{len(refs) - 1} or "
                f"{', '.join(names)}"
            )
        chip.set_read_offset_mV(index, mv, slc=slc)
        values = chip.read_offsets_mV()
    _print_offsets(values, as_json)


def _print_offsets(values: dict[str, float], as_json: bool) -> None:
    if as_json:
        print_json({"offsets_mV": values})
        return
    for name, mv in values.items():
        click.echo(f"{name}: {mv:+g} mV")

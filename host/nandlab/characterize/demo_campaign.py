"""The demo campaign: RBER and Vth over P/E wear and one year of retention on a virtual MLC.

Three blocks are brought to 0, 3K and 10K P/E cycles (wear fast-forwarded to
N-1 cycles, then one real erase and program), several WLs of each are
programmed with a seeded random pattern, and then, fresh and again after a
bake equivalent to 1 year at 30 °C: RBER per page type (split 0->1 / 1->0),
the Vth distribution of one WL per block, and read / program / erase
latency. Rows stream into a `RunWriter` as they are measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nandlab.characterize.progress import ProgressFn, no_progress
from nandlab.characterize.rber import WlPages, measure_rber, program_wls
from nandlab.characterize.retention import Retention, bake_hours, parse_retention
from nandlab.characterize.vth import VthResult, measure_vth
from nandlab.characterize.wear import cycle_block
from nandlab.errors import UnsupportedCapability

if TYPE_CHECKING:
    from nandlab.dataset.writer import RunWriter
    from nandlab.onfi.chip import Chip
    from nandlab.transport.base import Transport

DEMO_PROFILE = "mlc-64l"


@dataclass(frozen=True)
class DemoConfig:
    """What the demo measures. `first_block`: search for good blocks from here."""

    pecs: Sequence[int] = (0, 3000, 10000)
    wls: Sequence[int] = tuple(range(8))
    vth_wl: int = 2
    retention: str = "1y@30C"
    seed: int = 1
    first_block: int = 100
    vth_code_step: int = 1


@dataclass
class DemoResult:
    blocks: dict[int, int] = field(default_factory=dict)  # pec -> block
    vth: dict[tuple[int, str], VthResult] = field(default_factory=dict)  # (pec, retention)
    retention: Retention | None = None
    bake_temp_C: float = 0.0
    bake_h: float = 0.0


def pick_good_blocks(chip: Chip, count: int, first: int) -> list[int]:
    """The first `count` blocks from `first` without the factory bad-block marker."""
    blocks: list[int] = []
    block = first
    while len(blocks) < count:
        if block >= chip.geometry.blocks:
            raise UnsupportedCapability(f"fewer than {count} good blocks from block {first}")
        if not chip.is_bad_block(block):
            blocks.append(block)
        block += 1
    return blocks


def run_demo(
    transport: Transport,
    chip: Chip,
    writer: RunWriter,
    config: DemoConfig = DemoConfig(),
    *,
    progress: ProgressFn = no_progress,
    on_vth: Callable[[int, str, VthResult], None] | None = None,
) -> DemoResult:
    """Run the campaign on `chip`, streaming rows into `writer`; `on_vth(pec, retention, result)`
    is called after every Vth sweep (e.g. to plot it)."""
    profile = chip.profile
    if not transport.supports("bake"):
        raise UnsupportedCapability(
            f"the demo bakes the die, which bench {transport.url} cannot do (needs 'bake')"
        )
    retention = parse_retention(config.retention)
    bake_temp = profile.environment.bake_temp_C
    hours = bake_hours(retention, bake_temp, profile.physics.activation_energy_eV)
    ambient = profile.environment.ambient_temp_C
    result = DemoResult(retention=retention, bake_temp_C=bake_temp, bake_h=hours)
    chip_id = chip.identification.unique_id
    written: dict[int, WlPages] = {}
    wear_of: dict[int, dict[str, Any]] = {}

    blocks = pick_good_blocks(chip, len(config.pecs), config.first_block)
    writer.update_meta(blocks={str(p): b for p, b in zip(config.pecs, blocks, strict=True)})
    for n, (pec, block) in enumerate(zip(config.pecs, blocks, strict=True)):
        result.blocks[pec] = block
        base: dict[str, Any] = {
            "step": f"prepare pec {pec}",
            "chip": chip_id,
            "ce": chip.ce,
            "pec": pec,
            "temp_C": ambient,
        }
        wear = cycle_block(
            transport, chip, profile, block, pec, ce=chip.ce, seed=config.seed, base=base
        )
        wear_of[pec] = {
            "fast_forwarded": wear.fast_forwarded,
            "fast_forwarded_cycles": wear.fast_forwarded_cycles,
        }
        base.update(wear_of[pec])
        written[pec], rows = program_wls(
            chip, profile, block, config.wls, seed=config.seed, base=base
        )
        writer.append([wear.erase_row, *rows])
        writer.checkpoint(str(base["step"]))
        progress("preparing blocks", n + 1, len(config.pecs))

    def measure(label: str, age_h: float, bake: dict[str, Any]) -> None:
        for n, (pec, block) in enumerate(result.blocks.items()):
            first = written[pec]
            base = {
                "step": f"measure pec {pec} {label}",
                "chip": chip_id,
                "ce": chip.ce,
                "pec": pec,
                **wear_of[pec],
                "retention_age_h": age_h,
                "retention_label": label,
                "temp_C": ambient,
                "pattern": "random",
                "seed": config.seed,
                **bake,
            }
            writer.append(measure_rber(chip, profile, block, first, base=base))
            vth = measure_vth(
                chip,
                profile,
                block,
                config.vth_wl,
                first[config.vth_wl],
                code_step=config.vth_code_step,
                progress=progress,
            )
            result.vth[(pec, label)] = vth
            writer.append(vth.rows(base))
            writer.checkpoint(str(base["step"]))
            if on_vth is not None:
                on_vth(pec, label, vth)
            progress(f"measuring ({label})", n + 1, len(result.blocks))

    measure("fresh", 0.0, {})
    transport.bake(bake_temp, hours)  # type: ignore[attr-defined]
    measure(retention.label, retention.age_h, {"bake_temp_C": bake_temp, "bake_h": hours})
    return result

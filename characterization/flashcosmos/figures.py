"""Flash-Cosmos Fig. 8 on the tlc-48l virtual chip, the one figure still a hand loop.

Figs. 11 to 14 and Sec. 5.2 are campaigns (fig11.yaml, fig11-zero.yaml, fig12.yaml,
fig13.yaml, fig14.yaml, sec52.yaml; `nandlab run` then `nandlab report`, tables and plots
by analysis.py). Fig. 8 programs MLC-mode data on the TLC die through its test mode, which
no campaign step does yet.

    python characterization/flashcosmos/figures.py
    python characterization/flashcosmos/figures.py --report RUN_DIR   # tables + plots only

Measuring writes a dataset directory (nandlab.dataset.RunWriter: run.json +
measurements.parquet, one row per figure / condition / block / WL with the bits
compared and the errors 0->1 / 1->0, or the measured time / current) under
characterization/flashcosmos/runs/. `report(run_dir)` builds report.md and the
PNG plots FROM THOSE ROWS ONLY, so re-analysing the raw rows gives the same table.

Everything goes through the chip layer (nandlab.onfi.testmode) and the scheme
module (nandlab.schemes.flashcosmos) on a sim:// bench.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from nandlab.analysis import cell_bit_errors, unpack_cells
from nandlab.characterize.readback import SCRAMBLE_STREAM
from nandlab.dataset import RunWriter, new_run_dir, read_measurements
from nandlab.onfi.chip import Chip
from nandlab.schemes.flashcosmos import FlashCosmos
from nandlab.transport.sim import SimTransport

HERE = Path(__file__).resolve().parent
PROFILE = "tlc-48l"
PEC = 10_000
SUBS = 4
WLS = 48
ONE_YEAR_85C_H = 13.6  # 1 year at 30 C (Arrhenius, Ea 1.1 eV)
HOURS_PER_MONTH = 730.0

# Fig. 8 sweep (the paper's grid is not in its text): P/E cycles x retention at 30 C
FIG8_PECS = (1_000, 3_000, 10_000)
FIG8_RETENTION = (("0 h", 0.0), ("1 month", HOURS_PER_MONTH), ("1 year", 8760.0))
FIG8_WLS = 47  # string WLs measured per block (WL 47, the last, is programmed, not measured)

# CALIBRATION tolerances
RATE_FACTOR = 2.0  # error rates (and ratios of error rates): within x2 on a log scale
TIME_TOL = 0.05  # latency / power ratios: +-5 %


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ bench helpers


def bench(seed: int) -> tuple[SimTransport, Chip, FlashCosmos]:
    b = SimTransport(PROFILE, seed=seed, persist=False)
    chip = Chip(b)
    chip.identify()
    return b, chip, FlashCosmos(chip, allow_test_mode=True)


def packed(bits: np.ndarray, total: int | None = None) -> bytes:
    raw = np.packbits(bits.astype(np.uint8), bitorder="little").tobytes()
    return raw if total is None else raw + b"\xff" * (total - len(raw))


def flips(data: bytes, exp: np.ndarray) -> tuple[int, int]:
    """(errors 0->1, errors 1->0) of read page bytes against the expected cells."""
    e = cell_bit_errors(exp, unpack_cells(data, exp.size))
    return e.errors_0to1, e.errors_1to0


def prepare(b: SimTransport, chip: Chip, block: int, pec: int = PEC) -> None:
    """Bring `block` to `pec` P/E cycles (the last one a real erase)."""
    b.fast_forward_wear(0, block, pec - 1)
    chip.erase_block(block)


def checkered(k: int, nbits: int) -> np.ndarray:
    """SLC checkered page of string WL k: 1 (erased) where bitline + k is even."""
    return ((np.arange(nbits) + k) % 2 == 0).astype(np.uint8)


# ------------------------------------------------------------------------ Fig. 8


def fig8_pages(mode: str, pattern: str, k: int, nbits: int, seed: int, block: int):
    """Page bits (per page type) of string WL k. Checkered: neighbours (along the WL and
    along the string) alternate between the erased and the highest state (SLC: 1 / 0; MLC:
    L0 = 11 / L3 = lower 0, upper 1). Randomized: the same data XOR the seeded scrambler
    stream (nandlab.characterize.readback's SCRAMBLE_STREAM), as a controller stores it."""
    high = checkered(k, nbits) == 0
    pages = [(~high).astype(np.uint8)]
    if mode == "mlc":
        pages.append(np.ones(nbits, np.uint8))
    if pattern == "randomized":
        out = []
        for pt, p in enumerate(pages):
            rng = np.random.default_rng([seed, block, 2 * k + pt, SCRAMBLE_STREAM])
            out.append(p ^ rng.integers(0, 2, nbits, dtype=np.uint8))
        pages = out
    return pages


def fig8(
    w: RunWriter,
    pecs: Iterable[int] = FIG8_PECS,
    retention: Iterable[tuple[str, float]] = FIG8_RETENTION,
    wls: int = FIG8_WLS,
    seed: int = 8,
    modes: Iterable[str] = ("slc", "mlc"),
    patterns: Iterable[str] = ("randomized", "checkered"),
) -> None:
    """RBER of SLC- and MLC-mode data, randomized or checkered, over P/E cycles and
    retention age (30 C, Arrhenius bake at 85 C); default read references."""
    b, chip, fc = bench(seed)
    tm = fc.tm
    geo = chip.geometry
    nbits, total = geo.page_bytes * 8, geo.total_bytes
    blocks: dict[tuple[str, str, int], tuple[int, list[list[np.ndarray]]]] = {}
    blk = 2
    for mode in modes:
        for pattern in patterns:
            for pec in pecs:
                prepare(b, chip, blk, pec)
                datas = []
                for k in range(wls + 1):
                    pages = fig8_pages(mode, pattern, k, nbits, seed, blk)
                    for pt, bits in enumerate(pages):
                        if mode == "slc":
                            tm.program_esp(blk, SUBS * k, packed(bits, total))  # ESP off
                        else:
                            tm.program_mlc(blk, 2 * SUBS * k + pt, packed(bits, total))
                    datas.append(pages)
                blocks[(mode, pattern, pec)] = (blk, datas)
                blk += 2
    age = 0.0
    for label, ret_h in retention:
        if ret_h > age:
            b.bake(85.0, (ret_h - age) / 8760.0 * ONE_YEAR_85C_H)
            age = ret_h
        rows = []
        for (mode, pattern, pec), (blk, datas) in blocks.items():
            for k in range(wls):
                for pt, exp in enumerate(datas[k]):
                    if mode == "slc":
                        r = chip.read_page(blk, SUBS * k, slc=True)
                    else:
                        r = tm.read_mlc(blk, 2 * SUBS * k + pt)
                    e01, e10 = flips(r.data, exp)
                    rows.append(
                        {
                            "step": "fig8",
                            "mode": mode,
                            "pattern": pattern,
                            "pec": pec,
                            "retention_age_h": ret_h,
                            "retention_label": label,
                            "block": blk,
                            "wl": SUBS * k,
                            "page_type": ("lower", "upper")[pt] if mode == "mlc" else "slc",
                            "slc": mode == "slc",
                            "operation": "read",
                            "bits": nbits,
                            "errors_0to1": e01,
                            "errors_1to0": e10,
                            "seed": seed,
                        }
                    )
        w.append(rows)
        tot = defaultdict(lambda: [0, 0])
        for r in rows:
            key = (r["mode"], r["pattern"])
            tot[key][0] += r["errors_0to1"] + r["errors_1to0"]
            tot[key][1] += r["bits"]
        log(f"fig8 {label}: " + ", ".join(f"{m}/{p} {e / n:.3g}" for (m, p), (e, n) in tot.items()))
    w.checkpoint("fig8")


# ============================================================ report (from rows only)


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    return read_measurements(run_dir).to_pylist()


def within_rate(measured: float, paper: float) -> bool:
    if measured <= 0 or paper <= 0:
        return False
    return abs(math.log(measured / paper)) <= math.log(RATE_FACTOR)


def yes(ok: bool | None) -> str:
    return "-" if ok is None else ("yes" if ok else "no")


def _rate(err: int, bits: int) -> str:
    return f"{err / bits:.3g}" if err else f"0 (0 in {bits:.3g})"


def fig8_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per condition (mode, pattern, pec, retention label): [errors, bits]; and the claims."""
    cond: dict[tuple[str, str, int, str], list[int]] = defaultdict(lambda: [0, 0])
    ret_h: dict[str, float] = {}
    for r in rows:
        if r["step"] != "fig8":
            continue
        c = cond[(r["mode"], r["pattern"], r["pec"], r["retention_label"])]
        c[0] += r["errors_0to1"] + r["errors_1to0"]
        c[1] += r["bits"]
        ret_h[r["retention_label"]] = r["retention_age_h"]
    return {"cond": dict(cond), "ret_h": ret_h}


def _shown(run_dir: Path) -> str:
    """The run dir as written in report.md: relative to the repository when inside it."""
    repo = HERE.parent.parent
    p = run_dir.resolve()
    return str(p.relative_to(repo)) if p.is_relative_to(repo) else str(p)


def report(run_dir: Path, out: Path | None = None, plots: Path | None = None) -> str:
    """report.md text (and PNG plots into `plots`) built from the run's rows only."""
    run_dir = Path(run_dir)
    rows = _rows(run_dir)
    meta = json.loads((run_dir / "run.json").read_text())
    steps = {r["step"] for r in rows}
    lines = [
        f"# Flash-Cosmos on the {meta.get('profile', PROFILE)} virtual chip",
        "",
        (f"Generated by figures.py from the rows of `{_shown(run_dir)}` "
        "(measurements.parquet; `python figures.py --report RUN_DIR` rebuilds this file). "
        "Tolerances (shared/CALIBRATION.md): error rates and ratios of error rates within a "
        "factor of 2 (log scale); latency / power ratios within +-5 %; zero errors = 0 in >= "
        "1e9 bits really sensed and compared."),
        "",
        ("Figs. 11 to 14 and Sec. 5.2 are campaigns (fig11.yaml, fig12.yaml, fig13.yaml, "
        "fig14.yaml, sec52.yaml; fig11-zero.yaml for Fig. 11's zero-error claim): "
        "[report-fig11.md](report-fig11.md), [report-fig12.md](report-fig12.md), "
        "[report-fig13.md](report-fig13.md), [report-fig14.md](report-fig14.md), "
        "[report-sec52.md](report-sec52.md)."),
        "",
    ]
    if "fig8" in steps:
        lines += _report_fig8(rows, plots)
    text = "\n".join(lines).rstrip() + "\n"
    if out is not None:
        Path(out).write_text(text)
    return text


def _report_fig8(rows, plots) -> list[str]:
    s = fig8_summary(rows)
    cond = s["cond"]
    labels = sorted(s["ret_h"], key=lambda k: s["ret_h"][k])
    pecs = sorted({k[2] for k in cond})
    out = [
        "### Fig. 8: RBER of SLC / MLC-mode data, randomized vs checkered, over P/E and retention",
        "",
        ("Default read references; retention at 30 C (Arrhenius bake at 85 C). Randomized = the "
        "checkered data XOR a seeded scrambler stream. Sweep (the paper's grid is not in its "
        f"text): P/E {', '.join(f'{p // 1000}K' for p in pecs)} x retention {', '.join(labels)}."),
        "",
        "| P/E | retention | SLC rand. | SLC check. | MLC rand. | MLC check. | bits per cell |",
        "|---|---|---|---|---|---|---|",
    ]
    for pec in pecs:
        for lab in labels:
            vals = []
            for mode, pat in (
                ("slc", "randomized"),
                ("slc", "checkered"),
                ("mlc", "randomized"),
                ("mlc", "checkered"),
            ):
                e, n = cond.get((mode, pat, pec, lab), (0, 0))
                vals.append(_rate(e, n) if n else "-")
            n_slc = cond.get(("slc", "randomized", pec, lab), (0, 0))[1]
            n_mlc = cond.get(("mlc", "randomized", pec, lab), (0, 0))[1]
            out.append(
                f"| {pec // 1000}K | {lab} | " + " | ".join(vals) + f" | {n_slc:.3g} / {n_mlc:.3g} |"
            )

    def agg(mode, pat):
        e = sum(v[0] for k, v in cond.items() if k[0] == mode and k[1] == pat)
        n = sum(v[1] for k, v in cond.items() if k[0] == mode and k[1] == pat)
        return e, n

    mlc = {k: v for k, v in cond.items() if k[0] == "mlc"}
    rates = {k: v[0] / v[1] for k, v in mlc.items()}
    kmin, kmax = min(rates, key=rates.get), max(rates, key=rates.get)
    ratios = []
    for k, (e, n) in mlc.items():
        es, ns = cond.get(("slc", k[1], k[2], k[3]), (0, 0))
        ratios.append((k, (e / n) / (es / ns) if es else math.inf, e, es, n + ns))
    finite = [r for r in ratios if math.isfinite(r[1])]
    r_max = max(ratios, key=lambda r: r[1])
    out += [
        "",
        "| claim | paper | measured | bits | within tolerance |",
        "|---|---|---|---|---|",
        f"| MLC RBER, lowest condition | 8.6e-4 | {rates[kmin]:.3g} ({kmin[1]}, {kmin[2] // 1000}K, {kmin[3]}) | {mlc[kmin][1]:.3g} | {yes(within_rate(rates[kmin], 8.6e-4))} |",
        f"| MLC RBER, highest condition | 1.6e-2 | {rates[kmax]:.3g} ({kmax[1]}, {kmax[2] // 1000}K, {kmax[3]}) | {mlc[kmax][1]:.3g} | {yes(within_rate(rates[kmax], 1.6e-2))} |",
    ]
    if math.isfinite(r_max[1]):
        out.append(
            f"| MLC / SLC RBER, largest over the conditions | up to 4x | {r_max[1]:.3g}x "
            f"({r_max[0][1]}, {r_max[0][2] // 1000}K, {r_max[0][3]}) | {r_max[4]:.3g} | "
            f"{yes(within_rate(r_max[1], 4.0))} |"
        )
    else:
        k = r_max[0]
        out.append(
            f"| MLC / SLC RBER, largest over the conditions | up to 4x | unbounded: SLC 0 "
            f"errors where MLC has {r_max[2]} ({k[1]}, {k[2] // 1000}K, {k[3]}); largest "
            f"finite {max((r[1] for r in finite), default=math.nan):.3g}x | {r_max[4]:.3g} | no |"
        )
    for mode, paper in (("slc", 1.91), ("mlc", 4.92)):
        ec, nc = agg(mode, "checkered")
        er, nr = agg(mode, "randomized")
        ratio = (ec / nc) / (er / nr) if er else math.inf
        out.append(
            f"| {mode.upper()}: RBER checkered / randomized (whole sweep) | {paper}x | "
            f"{ratio:.3g}x ({ec} / {er} errors) | {nc + nr:.3g} | {yes(within_rate(ratio, paper))} |"
        )
    out.append("")
    if plots is not None:
        _plot_fig8(cond, labels, pecs, plots)
        out += ["![Fig. 8](plots/fig8_rber.png)", ""]
    return out


def _plot_fig8(cond, labels, pecs, plots: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    styles = {"randomized": "-", "checkered": "--"}
    for ax, mode in zip(axes, ("slc", "mlc"), strict=True):
        for pat in ("randomized", "checkered"):
            for i, lab in enumerate(labels):
                ys, xs = [], []
                for pec in pecs:
                    e, n = cond.get((mode, pat, pec, lab), (0, 0))
                    if n:
                        xs.append(pec)
                        ys.append(max(e, 0.5) / n)  # 0 errors drawn at half an error
                ax.plot(xs, ys, styles[pat], marker="o", color=f"C{i}", label=f"{pat}, {lab}")
        ax.set_yscale("log")
        ax.set_xlabel("P/E cycles")
        ax.set_title(f"{mode.upper()} mode")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("RBER (errors / bit; 0 drawn at 0.5 / bits)")
    axes[1].axhline(8.6e-4, color="k", lw=0.6, ls=":")
    axes[1].axhline(1.6e-2, color="k", lw=0.6, ls=":")
    axes[1].legend(fontsize=7)
    fig.suptitle("Fig. 8: RBER vs P/E cycles and retention age (30 C), tlc-48l")
    fig.tight_layout()
    fig.savefig(plots / "fig8_rber.png", dpi=110)
    plt.close(fig)


# ----------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=Path, default=HERE / "runs", help="parent of the run dir")
    ap.add_argument("--report", type=Path, help="only rebuild report.md + plots from RUN_DIR")
    ap.add_argument("--out", type=Path, default=HERE / "report.md")
    a = ap.parse_args()
    if a.report is not None:
        run = a.report
    else:
        run = new_run_dir(a.runs, "flashcosmos")
        meta = {
            "profile": PROFILE,
            "columns": {"step": "figure (fig8)"},
        }
        t0 = time.time()
        with RunWriter(run, meta) as w:
            fig8(w)
            w.update_meta(wall_s=round(time.time() - t0, 1))
        log(f"run dir: {run}")
    plots = HERE / "plots"
    plots.mkdir(exist_ok=True)
    print(report(run, a.out, plots))


if __name__ == "__main__":
    main()

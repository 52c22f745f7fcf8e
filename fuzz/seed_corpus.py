"""Write the seed corpus of every fuzz target into fuzz/corpus/<target>/ (run from the
repository root: `.venv/bin/python fuzz/seed_corpus.py`). Seeds are valid inputs taken from
the project itself (campaign files, virtual chips' parameter pages, ONFI sequences as op
programs and their result streams) and a few inputs each parser must refuse. Files already in
a corpus folder (inputs a fuzzing run found) are kept."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from nandlab.onfi.target import Target
from nandlab.onfi_spec.sdr_timing import sdr
from nandlab.profiles import builtin_names
from nandlab.sequences import core
from nandlab.transport import open_bench

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def _campaigns() -> list[bytes]:
    files = sorted((ROOT / "characterization" / "campaigns").glob("*.yaml"))
    seeds = [f.read_bytes() for f in files]
    head = b"name: f\nbench: sim://mlc-64l?seed=1\n"
    seeds += [
        head + b"blocks: [5, 6]\nsteps:\n  - cycle: {pec: {sweep: [1, 3000]}}\n"
        b"  - program: {wls: 0-3}\n  - measure: {what: [rber, latency]}\n",
        head + b"blocks: {range: {from: 2, to: 8, step: 2}}\nsteps: [{erase: {}}]\n",
        head + b"allow_test_mode: true\nblocks: [9]\nsteps:\n  - program: {wls: 0-1}\n"
        b"  - compute: {scheme: parabit, ops: [AND, XOR], allow_test_mode: true}\n",
        head + b"a: &a [1, 1]\nb: &b [*a, *a]\nblocks: &c [5, *c]\nsteps: []\n",
        head + b"blocks: [5]\nsteps: " + b"[" * 60 + b"]" * 60 + b"\n",
        head + b"description: caf\xe9\nblocks: [5]\nsteps: [{wait: {hours: .nan}}]\n",
        b"name: f\nbench: sim://m]lc-64l?seed=1\nblocks: [0]\nsteps: [{erase: {}}]\n",
    ]
    return seeds


EXPRESSIONS = [
    "A & B",
    "(A | B) & ~C",
    "AND(A1..A30) | ~(B ^ C)",
    "NAND(A, B, C)",
    "xnor(A, nor(B, C))",
    "NOT(A) ^ B",
    "A & & B",
    "AND(A1..A999999999999)",
    "((((A))))",
]

URLS = [
    "sim://mlc-64l?seed=3",
    "sim://tlc-48l?seed=7&dies=2&fresh=1",
    "sim://?profile=mlc-planar&state=/tmp/x",
    "rtl://slc-search?seed=1&dies=2&sim=icarus",
    "ftdi://ftdi:2232h/1?board=ft2232h-bga&profile=mlc-64l",
    "xdma:///dev/xdma0?board=kc705-onfi&profile=mlc-64l&channel=0",
    "sim://mlc-64l?seed=999999999999999999999999999999",
    "sim://mlc-64l?seed=1&seed=2",
    "gopher://mlc-64l",
    "sim://m]lc-64l?seed=1",  # found by the fuzzer: urlsplit's ValueError was a traceback
    "ftdi://[ftdi:2232h/1?profile=mlc-64l",
    "sim://?profile=part%00.yaml",
]


def _pages() -> list[bytes]:
    seeds = []
    for name in builtin_names():
        with open_bench(
            f"sim://{name}?seed=1&fresh=1&state={CORPUS / '.state'}"
        ) as bench:
            raw = Target(bench, 0).read_parameter_pages(3)
        seeds.append(raw)
        seeds.append(bytes(256) + raw[256:])  # first copy lost: the second is used
    return seeds


def _programs() -> list[bytes]:
    t = sdr(0)
    programs = [
        core.page_read(t, bytes(5), 64, 1_000_000),
        core.read_status(t),
        core.read_id(t, 0x20, 4),
        core.read_parameter_page(t, 768, 100_000),
        core.set_features(t, 0x01, bytes([1, 0, 0, 0]), 10_000),
    ]
    seeds = [b"\x00" + p.encode() for p in programs]
    with open_bench(f"sim://mlc-64l?seed=1&fresh=1&state={CORPUS / '.state'}") as bench:
        for p in programs:
            seeds.append(b"\x01" + bench.run(p).encode())
    return seeds


def main() -> None:
    sets = {
        "campaign": _campaigns(),
        "expression": [e.encode() for e in EXPRESSIONS],
        "url": [u.encode() for u in URLS],
        "parameter_page": _pages(),
        "op_program": _programs(),
    }
    for target, seeds in sets.items():
        folder = CORPUS / target  # inputs a fuzzing run found are kept beside the seeds
        folder.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            (folder / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    shutil.rmtree(CORPUS / ".state", ignore_errors=True)


if __name__ == "__main__":
    main()

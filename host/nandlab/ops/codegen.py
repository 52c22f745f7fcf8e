"""Generate the Python, C and SystemVerilog encodings of the op program from spec.yaml.

Usage (from anywhere; paths are found from this file's location)::

    python -m nandlab.ops.codegen           # (re)write the generated files
    python -m nandlab.ops.codegen --check   # exit 1 naming each stale file

Generated files: host/nandlab/ops/_generated.py, firmware/include/nandlab_ops.h,
hw/rtl/nandlab_ops_pkg.sv. Each starts with a "do not edit" header.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

SPEC_PATH = Path(__file__).with_name("spec.yaml")
REPO_ROOT = Path(__file__).resolve().parents[3]
BANNER = "generated from host/nandlab/ops/spec.yaml by nandlab.ops.codegen, do not edit"

Spec = dict[str, Any]


def load_spec(path: Path = SPEC_PATH) -> Spec:
    """Read spec.yaml and resolve limit names used as numbers (e.g. `max: MAX_LEN`)."""
    spec = yaml.safe_load(path.read_text())
    limits = {lim["name"]: lim["value"] for lim in spec["limits"]}

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: (limits[v] if k in ("min", "max") and isinstance(v, str) else resolve(v))
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    resolved: Spec = resolve(spec)
    return resolved


_DECIMAL_SUFFIXES = ("_LSB", "_WIDTH", "_WORD", "_VERSION", "_BYTES")


def _is_decimal(name: str, value: int) -> bool:
    """Bit positions, widths, offsets and small counts read best in decimal."""
    return name.endswith(_DECIMAL_SUFFIXES) or name.startswith("PRBS_SHIFT") or value < 10


def _py_value(name: str, value: int) -> str:
    return str(value) if _is_decimal(name, value) else f"0x{value:02X}"


def _enum_sections(spec: Spec) -> list[tuple[str, str, str, list[dict[str, Any]]]]:
    """(Python class, C/SV prefix, docstring, members) of every enum of the spec."""
    return [
        ("Opcode", "OP", "Instruction opcodes (header bits[31:24] of a program).", spec["opcodes"]),
        ("ResultTag", "RES", "Result record tags (header bits[31:24] of a result stream).",
         spec["result_tags"]),
        ("ErrorCode", "ERR", "Codes of ERROR result records.", spec["error_codes"]),
        ("PatternKind", "PAT", "Pattern generator kinds (pattern word bits[7:0]).",
         spec["pattern"]["kinds"]),
        ("Interface", "IF", "Data interfaces (TIMING arg bits[6:4]).", spec["interfaces"]),
    ]


def _bit_constants(spec: Spec) -> list[tuple[str, int, str]]:
    """(NAME, value, doc) of header, pattern word, GPIO and pattern generator constants."""
    out: list[tuple[str, int, str]] = [("SPEC_VERSION", spec["version"], "version of spec.yaml")]
    out += [(lim["name"], lim["value"], lim["doc"]) for lim in spec["limits"]]
    for prefix, fields in (
        ("HEADER", spec["header"]),
        ("PATTERN", spec["pattern"]["fields"]),
        ("GPIO", spec["gpio_bits"]),
    ):
        for f in fields:
            name = f"{prefix}_{f['name'].upper()}"
            out.append((f"{name}_LSB", f["lsb"], f["doc"]))
            out.append((f"{name}_WIDTH", f["width"], ""))
    pat = spec["pattern"]
    out += [(f"CHECKER_BYTE_{i}", b, f"CHECKER byte for phase {i}")
            for i, b in enumerate(pat["checker_bytes"])]
    out.append(("PRBS_DEFAULT_SEED", pat["prbs_default_seed"], "PRBS state used for seed 0"))
    out += [(f"PRBS_SHIFT_{i}", s, "xorshift32 shift " + ("<<", ">>", "<<")[i])
            for i, s in enumerate(pat["prbs_shifts"])]
    return out


def _layout_constants(prefix: str, item: dict[str, Any]) -> list[tuple[str, int, str]]:
    """Field positions / ranges and fixed trailing word offsets of one opcode or tag."""
    base = f"{prefix}_{item['name']}"
    out: list[tuple[str, int, str]] = []
    for f in item.get("fields", []):
        name = f"{base}_{f['name'].upper()}"
        out += [(f"{name}_LSB", f["lsb"], f["doc"]), (f"{name}_WIDTH", f["width"], ""),
                (f"{name}_MIN", f["min"], ""), (f"{name}_MAX", f["max"], "")]
    offset = 1
    for t in item.get("trailing", []):
        if "word" in t:
            name = f"{base}_{t['word'].upper()}"
            out += [(f"{name}_WORD", offset, t["doc"] + " (word offset from the header)"),
                    (f"{name}_MIN", t["min"], ""), (f"{name}_MAX", t["max"], "")]
            offset += 1
        elif "u64" in t:
            name = f"{base}_{t['u64'].upper()}"
            out.append((f"{name}_WORD", offset, t["doc"] + " (offset of the low word; high next)"))
            offset += 2
        else:  # bytes / repeat: the words after it have no fixed offset
            break
    return out


def _py_layout(item: dict[str, Any]) -> list[str]:
    code = f"0x{item['value']:02X}"
    lines = [f"    {code}: Layout(", f"        {code},",
             f"        \"{item['name']}\","]
    fields = item.get("fields", [])
    if fields:
        lines.append("        fields=(")
        lines += [f"            Field(\"{f['name']}\", {f['lsb']}, {f['width']}, "
                  f"{_py_value('', f['min'])}, {_py_value('', f['max'])})," for f in fields]
        lines.append("        ),")
    trailing = item.get("trailing", [])
    if trailing:
        lines.append("        trailing=(")
        for t in trailing:
            if "word" in t:
                when = f", when=\"{t['when']}\"" if "when" in t else ""
                lines.append(f"            Word(\"{t['word']}\", {_py_value('', t['min'])}, "
                             f"{_py_value('', t['max'])}{when}),")
            elif "u64" in t:
                lines.append(f"            U64(\"{t['u64']}\"),")
            elif "bytes" in t:
                lines.append(f"            Bytes(\"{t['bytes']}\", \"{t['count']}\"),")
            else:
                cols = "".join(f"\"{c}\", " for c in t["columns"]).rstrip(" ")
                lines.append(f"            Repeat(\"{t['repeat']}\", \"{t['count']}\", ({cols})),")
        lines.append("        ),")
    lines.append("    ),")
    return lines


def _comment(prefix: str, text: str, width: int = 96) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width - len(prefix),
                         initial_indent=prefix, subsequent_indent=prefix)


def render_python(spec: Spec) -> str:
    """Text of host/nandlab/ops/_generated.py."""
    lines = [f"# {BANNER}", f'"""Op program constants and layouts (contract 1), spec version '
             f'{spec["version"]}.', "", "Regenerate with `python -m nandlab.ops.codegen`.",
             '"""', "", "from enum import IntEnum", "",
             "from nandlab.ops.layout import U64, Bytes, Field, Layout, Repeat, Word", ""]
    for name, value, doc in _bit_constants(spec):
        if doc:
            lines += _comment("#: ", doc)
        lines.append(f"{name} = {_py_value(name, value)}")
    for cls, _prefix, doc, members in _enum_sections(spec):
        lines += ["", "", f"class {cls}(IntEnum):", f'    """{doc}"""', ""]
        for m in members:
            lines += _comment("    #: ", m["doc"])
            lines.append(f"    {m['name']} = 0x{m['value']:02X}")
    lines += ["", "", "#: What each error code means, for error messages.",
              "ERROR_TEXT: dict[ErrorCode, str] = {"]
    lines += [f"    ErrorCode.{e['name']}: {json.dumps(e['doc'])}," for e in spec["error_codes"]]
    lines.append("}")
    for var, key in (("OP_LAYOUTS", "opcodes"), ("RESULT_LAYOUTS", "result_tags")):
        what = "opcode" if key == "opcodes" else "tag"
        lines += ["", f"#: Layout of each {what}, by {what} value.",
                  f"{var}: dict[int, Layout] = {{"]
        for item in spec[key]:
            lines += _py_layout(item)
        lines.append("}")
    return "\n".join(lines) + "\n"


def _c_value(name: str, value: int) -> str:
    return f"{_py_value(name, value)}u"


def render_c(spec: Spec) -> str:
    """Text of firmware/include/nandlab_ops.h (C11)."""
    lines = [f"/* {BANNER} */", "/* nandlab op program (contract 1): opcodes, result tags, "
             "error codes and word layouts. */", "#ifndef NANDLAB_OPS_H", "#define NANDLAB_OPS_H",
             ""]

    def define(name: str, value: int, doc: str) -> None:
        if doc:
            lines.append(f"/* {' '.join(doc.split())} */")
        lines.append(f"#define NANDLAB_{name} {_c_value(name, value)}")

    for name, value, doc in _bit_constants(spec):
        define(f"OPS_{name}", value, doc)
    for _cls, prefix, doc, members in _enum_sections(spec):
        tag = f"nandlab_{_cls_to_c(_cls)}"
        lines += ["", f"/* {doc} */", f"enum {tag} {{"]
        lines += [f"    NANDLAB_{prefix}_{m['name']} = 0x{m['value']:02X}, /* {m['doc']} */"
                  for m in members]
        lines.append("};")
    for prefix, key in (("OP", "opcodes"), ("RES", "result_tags")):
        lines += ["", f"/* {key.replace('_', ' ')}: arg fields and fixed trailing words */"]
        for item in spec[key]:
            for name, value, doc in _layout_constants(prefix, item):
                define(name, value, doc)
    lines += ["", "#endif /* NANDLAB_OPS_H */"]
    return "\n".join(lines) + "\n"


def _cls_to_c(cls: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(cls))


def _sv_value(name: str, value: int) -> str:
    return f"32'd{value}" if _is_decimal(name, value) else f"32'h{value:X}"


def render_sv(spec: Spec) -> str:
    """Text of hw/rtl/nandlab_ops_pkg.sv (SystemVerilog package nandlab_ops_pkg)."""
    lines = [f"// {BANNER}", "// nandlab op program (contract 1): opcodes, result tags, error "
             "codes and word layouts.", "", "`default_nettype none", "",
             "package nandlab_ops_pkg;", "",
             "  // A shared constants package: each module uses only some of them.",
             "  /* verilator lint_off UNUSEDPARAM */", ""]

    def param(name: str, value: int, doc: str) -> None:
        comment = f"  // {' '.join(doc.split())}" if doc else ""
        lines.append(f"  localparam logic [31:0] {name} = {_sv_value(name, value)};{comment}")

    for name, value, doc in _bit_constants(spec):
        param(name, value, doc)
    timing = next(op for op in spec["opcodes"] if op["name"] == "TIMING")
    if_width = next(f["width"] for f in timing["fields"] if f["name"] == "interface")
    for _cls, prefix, doc, members in _enum_sections(spec):
        width = if_width if prefix == "IF" else 8
        lines += ["", f"  // {doc}", f"  typedef enum logic [{width - 1}:0] {{"]
        for i, m in enumerate(members):
            sep = "," if i < len(members) - 1 else ""
            lines.append(f"    {prefix}_{m['name']} = {width}'d{m['value']}{sep}"
                         f"  // {m['doc']}")
        lines.append(f"  }} {_cls_to_c(_cls)}_e;")
    for prefix, key in (("OP", "opcodes"), ("RES", "result_tags")):
        lines += ["", f"  // {key.replace('_', ' ')}: arg fields and fixed trailing words"]
        for item in spec[key]:
            for name, value, doc in _layout_constants(prefix, item):
                param(name, value, doc)
    lines += ["", "  /* verilator lint_on UNUSEDPARAM */", "", "endpackage : nandlab_ops_pkg", "",
              "`default_nettype wire"]
    return "\n".join(lines) + "\n"


RENDERERS: dict[str, Callable[[Spec], str]] = {
    "host/nandlab/ops/_generated.py": render_python,
    "firmware/include/nandlab_ops.h": render_c,
    "hw/rtl/nandlab_ops_pkg.sv": render_sv,
}


def render_all(spec: Spec) -> dict[str, str]:
    """Generated text by path relative to the repository root."""
    return {path: render(spec) for path, render in RENDERERS.items()}


def stale_files(spec: Spec, root: Path = REPO_ROOT) -> list[str]:
    """Paths (relative to `root`) whose content differs from what `spec` generates."""
    stale = []
    for path, text in render_all(spec).items():
        target = root / path
        if not target.is_file() or target.read_text() != text:
            stale.append(path)
    return stale


def write_all(spec: Spec, root: Path = REPO_ROOT) -> list[str]:
    """Write every generated file that changed; returns the paths written."""
    written = []
    for path in stale_files(spec, root):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render_all(spec)[path])
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: write the generated files, or with --check report stale ones."""
    parser = argparse.ArgumentParser(prog="python -m nandlab.ops.codegen", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a generated file is stale")
    args = parser.parse_args(argv)
    spec = load_spec()
    if args.check:
        stale = stale_files(spec)
        for path in stale:
            print(f"stale: {path} (run python -m nandlab.ops.codegen)", file=sys.stderr)
        return 1 if stale else 0
    for path in write_all(spec):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

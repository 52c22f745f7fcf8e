"""spec.yaml generates the Python, C and SystemVerilog encodings; stale files fail."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

from nandlab.ops import ErrorCode, Opcode, PatternKind, ResultTag, codegen


def test_generated_files_are_up_to_date() -> None:
    stale = codegen.stale_files(codegen.load_spec())
    assert stale == [], f"stale generated files {stale}: run python -m nandlab.ops.codegen"


def test_check_command_passes_on_the_repository() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "nandlab.ops.codegen", "--check"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr


def test_a_modified_spec_is_detected() -> None:
    spec = copy.deepcopy(codegen.load_spec())
    spec["opcodes"][1]["value"] = 0x31
    assert sorted(codegen.stale_files(spec)) == sorted(codegen.RENDERERS)


def test_check_names_a_stale_file(tmp_path: Path) -> None:
    spec = codegen.load_spec()
    assert sorted(codegen.write_all(spec, tmp_path)) == sorted(codegen.RENDERERS)
    assert codegen.stale_files(spec, tmp_path) == []
    header = tmp_path / "firmware/include/nandlab_ops.h"
    header.write_text(header.read_text().replace("0xFFFFFFu", "0xFFFFFEu"))
    assert codegen.stale_files(spec, tmp_path) == ["firmware/include/nandlab_ops.h"]
    (tmp_path / "hw/rtl/nandlab_ops_pkg.sv").unlink()
    assert codegen.stale_files(spec, tmp_path) == [
        "firmware/include/nandlab_ops.h",
        "hw/rtl/nandlab_ops_pkg.sv",
    ]


def test_every_generated_file_starts_with_the_do_not_edit_header() -> None:
    for path, text in codegen.render_all(codegen.load_spec()).items():
        first = text.splitlines()[0]
        assert "generated from host/nandlab/ops/spec.yaml" in first, path
        assert "do not edit" in first, path


def test_python_enums_follow_the_spec() -> None:
    spec = codegen.load_spec()
    for enum, key in ((Opcode, "opcodes"), (ResultTag, "result_tags"), (ErrorCode, "error_codes")):
        assert {e.name: e.value for e in enum} == {i["name"]: i["value"] for i in spec[key]}
    assert {k.name: k.value for k in PatternKind} == {
        k["name"]: k["value"] for k in spec["pattern"]["kinds"]
    }



def test_c_header_compiles(tmp_path: Path) -> None:
    source = tmp_path / "use_ops.c"
    source.write_text(
        '#include "nandlab_ops.h"\n'
        "_Static_assert(NANDLAB_OP_DOUT_CMP == 0x07, \"opcode\");\n"
        "_Static_assert(NANDLAB_OPS_MAX_LEN == 0xFFFFFFu, \"limit\");\n"
        "int use_ops(void) { return NANDLAB_RES_END + NANDLAB_ERR_TIMEOUT; }\n"
    )
    include = codegen.REPO_ROOT / "firmware/include"
    subprocess.run(
        ["gcc", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", f"-I{include}",
         "-c", str(source), "-o", str(tmp_path / "use_ops.o")],
        check=True,
    )  # fmt: skip


SV_USER = """`default_nettype none
module use_ops (
    input  wire  [7:0] code_i,
    output logic       is_end_o
);
  import nandlab_ops_pkg::*;
  assign is_end_o = (code_i == OP_END) && (MAX_LEN == 32'hFFFFFF);
endmodule
`default_nettype wire
"""



def test_sv_package_builds_with_icarus(tmp_path: Path) -> None:
    user = tmp_path / "use_ops.sv"
    user.write_text(SV_USER)
    package = codegen.REPO_ROOT / "hw/rtl/nandlab_ops_pkg.sv"
    subprocess.run(
        ["iverilog", "-g2012", "-o", str(tmp_path / "use_ops.vvp"), str(package), str(user)],
        check=True,
    )



def test_sv_package_lints_with_verilator(tmp_path: Path) -> None:
    user = tmp_path / "use_ops.sv"
    user.write_text(SV_USER)
    package = codegen.REPO_ROOT / "hw/rtl/nandlab_ops_pkg.sv"
    subprocess.run(
        ["verilator", "--lint-only", "-Wall", "--top-module", "use_ops", str(package), str(user)],
        check=True,
    )

"""Smoke run of nandlab_core in Icarus 11 with a toy NAND on its pins.

The toy chip answers every read with a counter (0, 1, 2, ... per RE# rise)
and goes busy for 2 us after command 30h. Programs are built with
nandlab.ops and the result words are parsed with decode_results, so this
checks the wire format end to end; full ONFI checks live in hw/tb/.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nandlab.ops import (
    BusyRecord,
    DataRecord,
    EndRecord,
    ErrCountRecord,
    ErrorRecord,
    MarkRecord,
    Pattern,
    Program,
    decode_results,
)
from nandlab.ops._generated import ErrorCode

RTL = Path(__file__).resolve().parents[2] / "hw" / "rtl"
CORE_SOURCES = [
    "nandlab_ops_pkg.sv", "nandlab_timing_pkg.sv", "nandlab_pattern_gen.sv",
    "nandlab_err_counter.sv", "nandlab_udiv.sv", "nandlab_seq_decode.sv", "nandlab_seq_rsp.sv",
    "nandlab_seq.sv", "nandlab_ddr_io.sv", "nandlab_onfi_phy.sv", "nandlab_timing_sel.sv",
    "nandlab_core.sv",
]

TB = r"""
`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1;
  always #5 clk = ~clk;
  reg [31:0] prog [0:4095];
  integer nwords, i, out, n_out;
  reg [31:0] cmd_tdata; reg cmd_tvalid = 0, cmd_tlast = 0; wire cmd_tready;
  wire [31:0] rsp_tdata; wire rsp_tvalid, rsp_tlast;
  wire [3:0] ce_n; wire cle, ale, we_n, re_n, wp_n, dq_oe; wire [7:0] dq_o;
  reg [7:0] dq_i = 0; reg [3:0] rb_n = 4'hF; reg [7:0] last_cmd = 0;
  nandlab_core u (.clk(clk), .rst(rst),
    .s_axis_cmd_tdata(cmd_tdata), .s_axis_cmd_tvalid(cmd_tvalid), .s_axis_cmd_tready(cmd_tready),
    .s_axis_cmd_tlast(cmd_tlast), .m_axis_rsp_tdata(rsp_tdata), .m_axis_rsp_tvalid(rsp_tvalid),
    .m_axis_rsp_tready(1'b1), .m_axis_rsp_tlast(rsp_tlast),
    .csr_timing_override(1'b0), .csr_timing(136'd0), .csr_rsp_limit(32'd0),
    .csr_clear_counters(1'b0), .csr_dqs_delay(9'd0),
    .status_state(), .status_running(), .status_timing_mode(), .status_interface(),
    .status_last_error(), .status_gpio(),
    .status_rb(), .cnt_programs(), .cnt_errors(), .cnt_busy_cycles(),
    .nand_ce_n(ce_n), .nand_cle(cle), .nand_ale(ale), .nand_we_n(we_n), .nand_re_n(re_n),
    .nand_wp_n(wp_n), .nand_rb_n(rb_n), .nand_dq_i(dq_i), .nand_dq_o(dq_o), .nand_dq_oe(dq_oe),
    .nand_dqs_i(1'b0), .nand_dqs_o(), .nand_dqs_oe());
  always @(posedge re_n) if (!ce_n[0]) dq_i <= dq_i + 1;
  always @(posedge we_n) if (cle) begin
    last_cmd = dq_o;
    if (dq_o == 8'h30) begin #50 rb_n[0] = 0; #2000 rb_n[0] = 1; end
  end
  always @(posedge clk) if (rsp_tvalid) begin
    $fdisplay(out, "%08x", rsp_tdata); n_out = n_out + 1;
    if (rsp_tlast) begin $fclose(out); $finish; end
  end
  initial begin
    $readmemh("prog.hex", prog);
    nwords = `NWORDS; out = $fopen("rsp.hex", "w"); n_out = 0;
    repeat (4) @(posedge clk); rst = 0;
    for (i = 0; i < nwords; i = i + 1) begin
      @(negedge clk); cmd_tdata = prog[i]; cmd_tvalid = 1; cmd_tlast = (i == nwords - 1);
      @(posedge clk); while (!cmd_tready) @(posedge clk);
    end
    @(negedge clk); cmd_tvalid = 0;
  end
  initial begin #2000000 $display("TIMEOUT"); $finish; end
endmodule
"""


def run_core(program_words: bytes, tmp_path: Path) -> bytes:
    """Run one encoded program through nandlab_core in Icarus; the result stream bytes."""
    words = [int.from_bytes(program_words[i:i + 4], "little")
             for i in range(0, len(program_words), 4)]
    (tmp_path / "prog.hex").write_text("".join(f"{w:08x}\n" for w in words))
    (tmp_path / "tb.sv").write_text(TB)
    subprocess.run(
        ["iverilog", "-g2012", f"-I{RTL / 'include'}", f"-DNWORDS={len(words)}", "-o", "sim.vvp",
         *[str(RTL / s) for s in CORE_SOURCES], "tb.sv"],
        cwd=tmp_path, check=True, capture_output=True, text=True)
    sim = subprocess.run(["vvp", "-n", "sim.vvp"], cwd=tmp_path, check=True,
                         capture_output=True, text=True)
    assert "TIMEOUT" not in sim.stdout
    lines = (tmp_path / "rsp.hex").read_text().split()
    return b"".join(int(x, 16).to_bytes(4, "little") for x in lines)


def test_read_page_busy_compare_mark(tmp_path: Path) -> None:
    prog = (Program().ce(0).cmd(0x00).addr(bytes([1, 2, 3, 4, 5])).cmd(0x30)
            .wait_rdy(1_000_000).dout(6)
            .dout_compare(10, Pattern.constant(0x00), 0, 4).mark(7))
    results = decode_results(run_core(prog.encode(), tmp_path))
    kinds = [type(r) for r in results]
    assert kinds == [BusyRecord, DataRecord, ErrCountRecord, MarkRecord, EndRecord]
    busy = results[0]
    assert isinstance(busy, BusyRecord) and busy.index == 4
    assert 1900 <= busy.busy_ns <= 2200
    assert results.data == [bytes([0, 1, 2, 3, 4, 5])]
    cmp = results[2]
    assert isinstance(cmp, ErrCountRecord) and cmp.chunk_bytes == 4
    expected = [sum(bin(b).count("1") for b in range(s, min(s + 4, 16))) for s in (6, 10, 14)]
    assert [c[0] for c in cmp.counts] == expected
    assert all(c[1] == 0 for c in cmp.counts)


@pytest.mark.parametrize(
    ("words", "code", "index"),
    [
        ([0x01000000, 0x7F000000, 0x02000011, 0x00000000], ErrorCode.BAD_OPCODE, 1),
        ([0x01000000, 0x03000005, 0x04030201], ErrorCode.TRUNCATED, 1),
        ([0x02000070, 0x00000000], ErrorCode.NO_TARGET, 0),
        ([0x01000000, 0x02000070], ErrorCode.TRUNCATED, 2),
        ([0x01000009, 0x00000000], ErrorCode.NO_TARGET, 0),
    ],
)
def test_malformed_program_gives_error_then_end(
        tmp_path: Path, words: list[int], code: ErrorCode, index: int) -> None:
    raw = b"".join(w.to_bytes(4, "little") for w in words)
    results = decode_results(run_core(raw, tmp_path))
    assert [type(r) for r in results] == [ErrorRecord, EndRecord]
    err = results[0]
    assert isinstance(err, ErrorRecord) and (err.code, err.index) == (code, index)

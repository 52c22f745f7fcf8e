"""End-to-end: nandlab info negotiates the data interface and says which and why."""

from __future__ import annotations


def test_info_shows_offered_and_negotiated_interface(run, run_json):
    doc = run_json("info", "sim://tlc-coxpm?seed=2", "--fresh")
    assert doc["interfaces"]["offered"] == "sdr 0-5, nv-ddr3 0-12"
    negotiated = doc["interfaces"]["negotiated"]
    assert (negotiated["interface"], negotiated["mode"]) == ("nv-ddr3", 12)
    assert negotiated["data_rate_mts"] == 1200
    table = run("info", "sim://mlc-planar?seed=2", "--fresh")
    assert table.exit_code == 0
    assert "nv-ddr2 mode 7 (400 MT/s)" in table.stdout
    assert "the part does not offer nv-ddr3" in table.stdout

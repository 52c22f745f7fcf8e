"""The KCU105 board file's NAND pins against the KCU105's FMC LPC pin table.

The table below (the FMC LPC J2 connections of Xilinx UG917) was written down from
public KCU105 constraint files: a KCU105 design's full commented FMC LPC LA list,
cross-checked against Analog Devices' fmcomms2 / KCU105 constraints, which agree for
LA00-LA16 and LA19-LA28: each LA pair's P and N package pins. It is an independent reference for
the board file, which only names package pins."""

from __future__ import annotations

from nandlab.boards import load_board
from nandlab.boards.model import FpgaController
from nandlab.hwgen import xdc

KCU105_LPC_LA = {
    "LA00_CC": ("W23", "W24"), "LA01_CC": ("W25", "Y25"), "LA02": ("AA22", "AB22"),
    "LA03": ("W28", "Y28"), "LA04": ("U26", "U27"), "LA05": ("V27", "V28"),
    "LA06": ("V29", "W29"), "LA07": ("V22", "V23"), "LA08": ("U24", "U25"),
    "LA09": ("V26", "W26"), "LA10": ("T22", "T23"), "LA11": ("V21", "W21"),
    "LA12": ("AC22", "AC23"), "LA13": ("AA20", "AB20"), "LA14": ("U21", "U22"),
    "LA15": ("AB25", "AB26"), "LA16": ("AB21", "AC21"), "LA17_CC": ("AA32", "AB32"),
    "LA18_CC": ("AB30", "AB31"), "LA19": ("AA29", "AB29"), "LA20": ("AA34", "AB34"),
    "LA21": ("AC33", "AD33"), "LA22": ("AC34", "AD34"), "LA23": ("AD30", "AD31"),
    "LA24": ("AE32", "AF32"), "LA25": ("AE33", "AF34"), "LA26": ("AF33", "AG34"),
    "LA27": ("AG31", "AG32"), "LA28": ("V31", "W31"), "LA29": ("U34", "V34"),
    "LA30": ("Y31", "Y32"), "LA31": ("V33", "W34"), "LA32": ("W30", "Y30"),
    "LA33": ("W33", "Y33"),
}
"""FMC LPC LA pair -> (P, N) package pin of the KCU105's xcku040-ffva1156."""
ON_LA = {pin: (pair, side) for pair, pins in KCU105_LPC_LA.items()
         for side, pin in zip("PN", pins, strict=True)}
NAND_PORTS = {"nand_dq": 8, "nand_cle": 1, "nand_ale": 1, "nand_we_n": 1, "nand_re_n": 1,
              "nand_re_c": 1, "nand_dqs": 1, "nand_dqs_c": 1, "nand_wp_n": 1, "nand_ce_n": 4,
              "nand_rb_n": 4, "i2c_scl": 1, "i2c_sda": 1, "pwm": 1, "pwm_cool": 1}
"""The RTL top's NAND ports and their widths (4 chip enables on the card), and the board
CPU's I2C and PWM pins (nandlab_kcu105.sv)."""


def board_pins() -> dict[str, str]:
    ctrl = load_board("kcu105-fmc-nand").controller
    assert isinstance(ctrl, FpgaController)
    out: dict[str, str] = {}
    for port, pins in ctrl.pins.items():
        for i, pin in enumerate(pins if isinstance(pins, list) else [pins]):
            out[f"{port}[{i}]" if isinstance(pins, list) else port] = pin
    return out


def test_every_nand_pin_is_a_distinct_lpc_la_pin() -> None:
    pins = board_pins()
    expected = {f"{p}[{i}]" if n > 1 else p for p, n in NAND_PORTS.items() for i in range(n)}
    assert set(pins) == expected
    assert {p: pin for p, pin in pins.items() if pin not in ON_LA} == {}
    assert len(set(pins.values())) == len(pins)


def test_the_differential_strobes_are_the_p_and_n_of_one_la_pair() -> None:
    pins = board_pins()
    for true, complement in (("nand_dqs", "nand_dqs_c"), ("nand_re_n", "nand_re_c")):
        pair, side = ON_LA[pins[true]]
        assert side == "P", f"{true} on {pair}_{side}: the true signal goes on the P pin"
        assert ON_LA[pins[complement]] == (pair, "N"), f"{complement} is not {pair}_N"
    # the capture strobe lands on a clock-capable pair
    assert ON_LA[pins["nand_dqs"]][0].endswith("_CC")


def test_the_generated_xdc_places_every_pin_and_has_no_todo() -> None:
    (out,) = [o for o in xdc.outputs() if o.path.name == "kcu105-fmc-nand.xdc"]
    assert "TODO" not in out.text
    for port, pin in board_pins().items():
        assert f"PACKAGE_PIN {pin} " in out.text and f"[get_ports {{{port}}}]" in out.text
    assert out.path.read_text() == out.text  # the checked-in file is the generated one

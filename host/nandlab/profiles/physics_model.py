"""The `physics` section of a virtual profile: the virtual die's cell model (millivolts,
hours). Only the virtual die (`nandlab.vchip`) reads it; the controller side never does.
Every field's value and source per built-in profile: docs/model-cards/."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # as model._Strict


class Ispp(_Strict):
    start_mV: float = Field(description="Vth the median cell reaches after the first pulse")
    step_mV: float = Field(gt=0, description="ISPP step (final spread is uniform of this width)")
    t_loop_us: float = Field(gt=0, description="one program pulse + verify of one level")
    t_verify_us: float = Field(ge=0, description="extra verify time per additional level")
    speed_sigma_mV: float = Field(ge=0, description="cell-to-cell programming speed spread")


class VerifyShortfall(_Strict):
    """SLC-mode verify shortfall (virtual dies): the fast SLC verify strobe is noisy, so a
    cell whose verify sensing catches a favourable read-noise (RTN) fluctuation is inhibited
    below its verify level. The shortfall follows the noise's exponential tail and is
    falls off fast past the largest common trap amplitude: each SLC-programmed cell lands
    X below where the ISPP put it, X = scale * Exp(1) up to max_mV and, for the rare larger
    ones, P(X > max_mV + y) = exp(-max_mV / scale) * exp(-y^2 / (2 tail_mV^2)); redrawn by
    every program.
    Regular and enhanced (ESP) SLC programs alike, relative to their own verify level."""

    scale_mV: float = Field(gt=0, description="exponential scale (mV) of a fresh block")
    wear_scale_mV_at_10k: float = Field(
        default=0.0, ge=0, description="scale added at 10K P/E (mV), x physics.wear_factor"
    )
    max_mV: float = Field(
        gt=0, description="knee (mV) of the shortfall: the exponential tail ends here"
    )
    tail_mV: float = Field(
        default=30.0,
        gt=0,
        description="beyond the knee the tail falls off as a Gaussian of this width (mV): "
        "trap amplitudes are unbounded but large ones rare, so a margin past the knee makes "
        "failures rare, never impossible",
    )

    def scale(self, wear_factor: float) -> float:
        """Exponential scale (mV) at a block wear of `wear_factor` (1 at 10K P/E)."""
        return self.scale_mV + self.wear_scale_mV_at_10k * wear_factor


class Sensing(_Strict):
    """Bitline sensing time physics (virtual dies): a string discharges its bitline after
    precharge + evaluation, evaluation = tau * string resistance. Resistances per cell are
    k / overdrive (V): k_sel at the read reference (selected WLs), k_pass at VPASS."""

    t_bl_precharge_us: float = Field(default=2.7, ge=0)
    t_wl_precharge_us_per_block: float = Field(
        default=0.34, ge=0, description="WL charging per activated block (one pump)"
    )
    t_discharge_us: float = Field(default=3.0, ge=0, description="latch strobe + discharge")
    t_fixed_us: float = Field(default=13.0, ge=0, description="evaluation of the string ends")
    k_sel_us_V: float = Field(default=0.066, ge=0)
    k_pass_us_V: float = Field(default=0.02, ge=0)
    charge_sharing_per_block: float = Field(default=0.002, ge=0)
    min_overdrive_mV: float = Field(default=20.0, gt=0)


class MlcMode(_Strict):
    """MLC mode of a TLC die (2 bits a cell in the same Vth window): its Gray code, program
    verify levels of L1..L3 (mV), read references between states (mV) and ISPP."""

    gray_code: list[list[int]] = Field(
        default=[[1, 1], [1, 0], [0, 0], [0, 1]],
        description="per state L0..L3: bit of page type 0 (lower) and 1 (upper)",
    )
    verify_mV: list[float] = Field(min_length=3, max_length=3)
    read_mV: list[float] = Field(min_length=3, max_length=3, description="references L0|L1..")
    ispp: Ispp


class FastChargeLoss(_Strict):
    """Fast component of charge loss (shallow-trap de-trapping of charge-trap cells): adds
    weight x (1 - exp(-t / tau_h)) to the slow component's ln(1 + t / t0) in the retention
    mean and variance, t on its own Arrhenius clock."""

    weight: float = Field(ge=0, description="dose at saturation, in units of ln(1 + t/t0)")
    tau_h: float = Field(gt=0, description="time constant (h) at the reference temperature")
    activation_energy_eV: float = Field(gt=0)


class ErasedShift(_Strict):
    """Erased-state shift with retention: cells below neutral_mV climb toward it (hole loss
    and lateral electron migration from programmed neighbours in charge-trap cells, charge
    spreading), by ratio x the slow charge loss's mean rate per mV below it, on its own
    Arrhenius clock."""

    neutral_mV: float
    ratio: float = Field(ge=0)
    activation_energy_eV: float = Field(gt=0)


class Variation(_Strict):
    """Spatial variation, seeded per chip: lognormal factors on the retention rate and
    offsets of the erased mean from chip to chip and block to block, and a layer profile
    (3D parts: the channel hole narrows from top to bottom, edge layers differ)."""

    chip_retention_sigma: float = Field(default=0.0, ge=0, le=1, description="log-sigma")
    block_retention_sigma: float = Field(default=0.0, ge=0, le=1, description="log-sigma")
    chip_erased_sigma_mV: float = Field(default=0.0, ge=0)
    block_erased_sigma_mV: float = Field(default=0.0, ge=0)
    layer_retention_slope: float = Field(
        default=0.0,
        ge=-0.9,
        le=0.9,
        description="relative retention rate at the bottom layer minus the top's (linear)",
    )
    edge_layer_retention: float = Field(
        default=0.0, ge=0, le=1, description="extra relative retention rate of the two end layers"
    )


class Physics(_Strict):
    """Virtual-die cell physics (Dong-Li-Zhang channel model in millivolts)."""

    erased_mean_mV: float
    erased_sigma_mV: float = Field(gt=0)
    verify_mV: list[float] = Field(description="program-verify level of states L1.. in native mode")
    slc_verify_mV: float
    ispp: Ispp
    slc_ispp: Ispp | None = Field(default=None, description="SLC-mode ISPP (default: ispp)")
    slc_verify_shortfall: VerifyShortfall | None = Field(
        default=None,
        description="bounded exponential shortfall below verify of SLC-programmed cells "
        "(noisy fast SLC verify); None = none",
    )
    prog_sigma_mV: float = Field(ge=0, description="static per-cell spread added to programmed Vth")
    wear_sigma_mV_at_10k: float = Field(ge=0, description="extra programmed spread at 10K P/E")
    wear_erased_shift_mV_at_10k: float = Field(ge=0)
    wear_erased_sigma_mV_at_10k: float = Field(
        default=0.0, ge=0, description="extra erased-state spread at 10K P/E (adds in quadrature)"
    )
    wear_exponent: float = Field(default=0.6, gt=0)
    wear_saturation_pec: float | None = Field(
        default=None,
        gt=0,
        description="P/E scale (cycles) of saturating wear: the wear terms quoted at 10K follow "
        "(1 - exp(-N / this)) / (1 - exp(-10K / this)), so a fresh block (N = 1) is unworn and "
        "trap generation levels off after a few times this; None = (N / 10K) ** wear_exponent",
    )
    endurance_pec: int = Field(gt=0, description="rated P/E cycles")
    coupling: float = Field(ge=0, le=0.5, description="program interference ratio from next WL")
    one_pass_coupling: float | None = Field(
        default=None,
        ge=0,
        le=0.5,
        description="program interference ratio from the next WL when that WL is programmed "
        "in one pass (SLC / MLC mode: its whole Vth rise couples; native multi-pass programming "
        "leaves only `coupling`). Dimensionless; None = coupling",
    )
    one_pass_coupling_diagonal: float = Field(
        default=0.0,
        ge=0,
        le=0.1,
        description="the same from the next WL's cells on the two adjacent bitlines (Dong et "
        "al.'s diagonal term); dimensionless",
    )
    mlc: MlcMode | None = Field(default=None, description="MLC mode of a TLC die")
    retention_ks: float = 0.38
    retention_kd: float = 4e-4
    retention_km: float = 4e-6
    retention_t0_h: float = 1.0
    retention_x0_mV: float = Field(description="Vth below which no retention loss")
    fast_charge_loss: FastChargeLoss | None = Field(
        default=None, description="fast de-trapping component of charge loss; None = none"
    )
    erased_shift: ErasedShift | None = Field(
        default=None, description="erased-state upward shift with retention; None = none"
    )
    program_disturb_mV: float = Field(
        default=0.0,
        ge=0,
        description="rise (mV) of an inhibited erased cell of the WL per program operation "
        "at 10K P/E (x wear factor; fresh: a third of it)",
    )
    outlier_rate: float = Field(
        default=0.0,
        ge=0,
        le=1e-2,
        description="fraction of cells with anomalous charge loss (tail bits): their "
        "retention deviation is outlier_spread x wider",
    )
    outlier_spread: float = Field(default=3.0, ge=1, le=10)
    variation: Variation = Field(default_factory=Variation)
    retention_pec_floor: float = Field(default=100.0, ge=0, description="N used when N is small")
    rtn_kr_mV: float = Field(ge=0, description="RTN Laplacian scale = kr * sqrt(N)")
    rtn_floor_mV: float = Field(ge=0, description="RTN scale of a fresh cell")
    read_disturb_mV: float = Field(ge=0, description="shift of a 0 V cell per ln(1+reads/1000)")
    vpass_mV: float
    stuck_cell_rate: float = Field(ge=0, le=1e-3)
    bad_block_rate: float = Field(ge=0, le=0.1)
    activation_energy_eV: float = Field(
        default=1.1, gt=0, description="Arrhenius energy of the slow charge loss (eV)"
    )
    reference_temp_C: float = 30.0
    sensing: Sensing = Field(default_factory=Sensing)

    def wear_factor(self, pec: int) -> float:
        """Fraction of the 10K-P/E wear terms reached after `pec` P/E cycles (1 at 10K)."""
        n = max(float(pec), 0.0)
        if self.wear_saturation_pec is None:
            return (n / 10000.0) ** self.wear_exponent
        s = self.wear_saturation_pec
        return -math.expm1(-n / s) / -math.expm1(-10000.0 / s)

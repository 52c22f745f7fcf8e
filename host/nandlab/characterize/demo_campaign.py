"""The demo campaign: RBER and Vth over P/E wear and one year of retention on a virtual MLC.

Three blocks are brought to 1, 3K and 10K P/E cycles (wear fast-forwarded to
N-1 cycles, then one real erase and program), several WLs of each are
programmed with a seeded random pattern, and then, fresh and again after a
bake equivalent to 1 year at 30 °C: RBER per page type (split 0->1 / 1->0)
with read latency, and the Vth distribution of one WL per block.

`demo_campaign()` is the campaign-file mapping (what a YAML campaign holds);
`nandlab demo` validates it and runs it through the campaign runner like any
`nandlab run`.
"""

from __future__ import annotations

from typing import Any

DEMO_PROFILE = "mlc-64l"
DEMO_PECS = (1, 3000, 10000)
DEMO_RETENTION = "1y@30C"


def demo_campaign(
    *, seed: int = 1, wls: int = 8, vth_code_step: int = 1, first_block: int = 100
) -> dict[str, Any]:
    """The demo on a fresh virtual die of seed `seed` (also the pattern seed): `wls` WLs per
    block from WL 0, the Vth of WL min(2, wls - 1) in bins of `vth_code_step` DAC codes."""
    measure = {
        "measure": {"what": ["rber", "vth"], "vth_wl": min(2, wls - 1), "code_step": vth_code_step}
    }
    return {
        "name": "demo",
        "description": f"RBER and Vth at {list(DEMO_PECS)} P/E, fresh and {DEMO_RETENTION}",
        "bench": f"sim://{DEMO_PROFILE}?seed={seed}",
        "fresh": True,
        "seed": seed,
        "blocks": list(range(first_block, first_block + len(DEMO_PECS))),
        "steps": [
            {"cycle": {"pec": {"sweep": list(DEMO_PECS)}}},
            {"program": {"wls": list(range(wls)), "pattern": "random", "seed": seed}},
            measure,
            {"bake": {"retention": DEMO_RETENTION}},
            measure,
        ],
    }

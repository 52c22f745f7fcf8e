"""Characterization: measurements built from chip operations.

RBER (`rber`), Vth distributions by read-offset sweeps (`vth`), P/E wear
(`wear`), retention bakes (`retention`), page data patterns (`patterns`) and
the demo campaign (`demo_campaign`). Nothing here prints; progress is
reported through an optional callback (`progress.ProgressFn`).
"""

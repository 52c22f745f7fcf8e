"""Characterization campaigns: campaign files, sweep expansion, resumable runs, reports, export.

A campaign file (YAML) names a bench, chips, blocks and a sequence of steps;
`schema` validates it (errors carry file:line:field), `steps` holds the step
kinds (one module each, registered in `steps.STEPS`), `sweep` expands it into
measurement units with stable keys and seeds, `runner` runs and resumes them
on a `nandlab.bench.Bench` (rows and the virtual die's state are committed
together at unit boundaries; `run_campaign` takes an in-memory campaign),
`report` writes summary.md and plots, `export` writes parquet, CSV or HDF5.
"""

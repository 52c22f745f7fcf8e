"""The dashboard (`nandlab serve`): a web app over a data folder of runs.

`app.create_app` builds the FastAPI application: the run catalogue, a run page with live
progress (server-sent events) and interactive plots, the chip ledger, and campaigns started,
stopped and resumed as `nandlab run` / `nandlab resume` subprocesses. docs/dashboard.md.
"""

"""The dashboard's web application (FastAPI): pages, progress events, figures, actions.

    app = create_app(Path("runs"), token=None)   # uvicorn.run(app, ...) serves it

Pages: `/` the run catalogue (filters: chip, campaign, status, dates) with the form that
starts a campaign; `/runs/{id}` a run's live progress, its controls and plots;
`/ledger/{chip}` the chip ledger. JSON under `/api/`; progress also as server-sent events
(`/api/runs/{id}/events`). Actions are POSTs with a JSON body, which a page of another
site cannot send without the browser asking this server first (and it is not asked).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterable
from pathlib import Path
from typing import Any

import plotly
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool
from starlette.middleware.trustedhost import TrustedHostMiddleware

from nandlab.dataset.catalog import RunEntry, catalog
from nandlab.dataset.columns import RUN_JSON
from nandlab.dataset.load import run_arrow
from nandlab.errors import NandlabError, ProfileError, RefusedOperation, UsageError
from nandlab.ledger import Ledger, ledger_path
from nandlab.profiles import load_profile
from nandlab.serve import figures
from nandlab.serve.auth import token_guard
from nandlab.serve.jobs import Jobs
from nandlab.serve.progress import find_run, run_progress

HERE = Path(__file__).parent
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
EVENT_INTERVAL_S = 0.5
STATUSES = ("running", "complete", "interrupted", "stopped", "killed")


def chip_blocks(profile: str | None) -> int | None:
    """Blocks of a chip by its profile's geometry (None for a profile not found here)."""
    if not profile:
        return None
    try:
        geometry = load_profile(profile).geometry
    except ProfileError:
        return None
    return int(geometry.planes * geometry.blocks_per_plane)


def create_app(out: Path, *, token: str | None, loopback_hosts: list[str] | None = None) -> FastAPI:
    """The dashboard over the run folders in `out`. With `token`, every request must
    carry it; without, `loopback_hosts` are the only Host headers answered (a web page
    cannot then reach this server through a DNS name of its own)."""
    app = FastAPI(title="nandlab dashboard", docs_url=None, redoc_url=None, openapi_url=None)
    templates = Jinja2Templates(directory=HERE / "templates")
    jobs = Jobs(out)
    if token is not None:
        app.middleware("http")(token_guard(token))
    elif loopback_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=loopback_hosts)

    @app.exception_handler(NandlabError)
    async def nandlab_error(request: Request, exc: NandlabError) -> JSONResponse:
        if isinstance(exc, RefusedOperation):
            status = 409
        elif isinstance(exc, UsageError):
            status = 400
        else:  # a fault of the data or the machine, not of the request
            status = 500
        return JSONResponse({"error": str(exc)}, status_code=status)

    def entry_of(run_id: str) -> RunEntry | None:
        return find_run(out, run_id) if out.is_dir() else None

    def progress_doc(run_id: str) -> dict[str, Any]:
        entry = entry_of(run_id)
        job = jobs.get(run_id)
        if entry is None and job is None:
            raise HTTPException(404, f"no run {run_id} in {out}")
        if entry is None:
            doc: dict[str, Any] = {"run_id": run_id, "status": "starting", "units_done": 0,
                                   "units_total": 0, "rows": 0}
        else:
            doc = run_progress(entry)
        doc["job"] = job.state() if job is not None else None
        if job is not None and entry is None and not doc["job"]["running"]:
            doc["status"] = "failed to start"
        return doc

    @app.get("/static/plotly.min.js", include_in_schema=False)
    async def plotly_js() -> Response:
        # plotly.js as the plotly package ships it: the machine needs no network
        return FileResponse(PLOTLY_JS, media_type="text/javascript")

    @app.get("/", response_class=HTMLResponse)
    async def index(request: Request, chip: str = "", campaign: str = "", status: str = "",
                    since: str = "", until: str = "") -> Response:
        runs = await run_in_threadpool(lambda: catalog(out) if out.is_dir() else [])
        shown = [
            e for e in reversed(runs)
            if (not chip or chip.lower() in e.chips.lower())
            and (not campaign or campaign.lower() in (e.campaign or "").lower())
            and (not status or e.status == status)
            and (not since or (e.start_utc or "")[:10] >= since)
            and (not until or (e.start_utc or "")[:10] <= until)
        ]
        chips = sorted({c for e in runs for c in e.chips.split(",") if c})
        return templates.TemplateResponse(request, "index.html", {
            "runs": shown, "total": len(runs), "chips": chips, "statuses": STATUSES,
            "filters": {"chip": chip, "campaign": campaign, "status": status,
                        "since": since, "until": until},
            "out": out,
        })

    @app.get("/runs/{run_id}", response_class=HTMLResponse)
    async def run_page(request: Request, run_id: str) -> Response:
        doc = await run_in_threadpool(progress_doc, run_id)
        entry = await run_in_threadpool(entry_of, run_id)
        return templates.TemplateResponse(request, "run.html", {
            "run_id": run_id, "progress": doc, "figures": list(figures.RUN_FIGURES),
            "chips": [c for c in (entry.chips if entry else "").split(",") if c],
        })

    @app.get("/api/runs/{run_id}/progress")
    async def progress(run_id: str) -> dict[str, Any]:
        return await run_in_threadpool(progress_doc, run_id)

    @app.get("/api/runs/{run_id}/events", response_class=EventSourceResponse)
    async def events(request: Request, run_id: str) -> AsyncIterable[ServerSentEvent]:
        """The run's progress each time it changes (checked every half second)."""
        last = None
        while not await request.is_disconnected():
            try:
                doc = await run_in_threadpool(progress_doc, run_id)
            except HTTPException:
                doc = {"run_id": run_id, "status": "gone"}
            if doc != last:
                yield ServerSentEvent(data=doc, event="progress")
                last = doc
            await asyncio.sleep(EVENT_INTERVAL_S)

    @app.get("/api/runs/{run_id}/figures/{name}")
    async def figure(run_id: str, name: str) -> Response:
        entry = await run_in_threadpool(entry_of, run_id)
        if entry is None:
            raise HTTPException(404, f"no run {run_id} in {out}")
        rows = await run_in_threadpool(lambda: run_arrow(entry.folder).to_pylist())
        fig = await run_in_threadpool(figures.run_figure, name, rows)
        return Response(fig.to_json(), media_type="application/json")

    async def action_body(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0] != "application/json":
            raise HTTPException(415, "actions take a JSON body")
        body = await request.json()
        if not isinstance(body, dict):
            raise HTTPException(400, "the body must be a JSON object")
        return body

    @app.post("/api/start")
    async def start(request: Request) -> dict[str, Any]:
        body = await action_body(request)
        path = str(body.get("campaign_file") or "").strip()
        if not path:
            raise UsageError("name a campaign file")
        run_id = await run_in_threadpool(jobs.start, Path(path), bool(body.get("confirm")))
        return {"run_id": run_id, "url": f"/runs/{run_id}"}

    @app.post("/api/runs/{run_id}/stop")
    async def stop(request: Request, run_id: str) -> dict[str, Any]:
        await action_body(request)
        entry = await run_in_threadpool(entry_of, run_id)
        if entry is None:
            raise HTTPException(404, f"no run {run_id} in {out}")
        meta = json.loads((Path(entry.folder) / RUN_JSON).read_text())
        await run_in_threadpool(jobs.stop, entry, meta)
        return {"run_id": run_id, "stopping": True}

    @app.post("/api/runs/{run_id}/resume")
    async def resume(request: Request, run_id: str) -> dict[str, Any]:
        await action_body(request)
        entry = await run_in_threadpool(entry_of, run_id)
        if entry is None:
            raise HTTPException(404, f"no run {run_id} in {out}")
        await run_in_threadpool(jobs.resume, entry)
        return {"run_id": run_id, "resuming": True}

    def ledger_doc(chip: str) -> dict[str, Any] | None:
        if not ledger_path().is_file():
            return None
        with Ledger() as book:
            return book.history(chip.lower())

    @app.get("/ledger/{chip}", response_class=HTMLResponse)
    async def ledger_page(request: Request, chip: str) -> Response:
        doc = await run_in_threadpool(ledger_doc, chip)
        return templates.TemplateResponse(request, "ledger.html", {"chip": chip, "doc": doc})

    @app.get("/api/ledger/{chip}/heatmap")
    async def ledger_heatmap(chip: str) -> Response:
        doc = await run_in_threadpool(ledger_doc, chip)
        fig = figures.wear_heatmap(
            chip, doc["blocks"] if doc else [], chip_blocks(doc["profile"] if doc else None)
        )
        return Response(fig.to_json(), media_type="application/json")

    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    return app

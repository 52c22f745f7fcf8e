// nandlab dashboard: progress from server-sent events, plots drawn with plotly.js from the
// figure JSON the server builds, actions as JSON POSTs (the token, if any, is a cookie).

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body || {}),
  });
  const doc = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(doc.error || doc.detail || response.statusText);
  return doc;
}

async function startCampaign(event) {
  event.preventDefault();
  const error = document.getElementById("start-error");
  error.textContent = "";
  try {
    const doc = await post("/api/start", {
      campaign_file: document.getElementById("campaign-file").value,
      confirm: document.getElementById("confirm").checked,
    });
    window.location.href = doc.url;
  } catch (e) {
    error.textContent = e.message;
  }
}

let currentRun = null;
let currentFigure = null;
let lastStatus = null;
let lastDraw = 0;
const REDRAW_MS = 5000;

async function runAction(action) {
  const error = document.getElementById("action-error");
  error.textContent = "";
  try {
    await post(`/api/runs/${encodeURIComponent(currentRun)}/${action}`);
  } catch (e) {
    error.textContent = e.message;
  }
}

function duration(s) {
  if (s === null || s === undefined) return "-";
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${(s / 60).toFixed(1)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

function inFlight(unit) {
  // the unit a running campaign is measuring: its chip, block and sweep point
  if (!unit) return "-";
  const where = [unit.ce === null ? "" : `CE ${unit.ce}`, unit.block === null ? "" : `block ${unit.block}`]
    .filter(Boolean).join(", ");
  const point = Object.entries(unit.point || {}).map(([k, v]) => `${k}=${v}`).join(" ");
  return `#${unit.idx} ${unit.kind}${where ? ` (${where})` : ""}${point ? `: ${point}` : ""}`;
}

function showProgress(doc) {
  const set = (id, text) => { document.getElementById(id).textContent = text; };
  const status = document.getElementById("status");
  status.textContent = doc.status;
  status.className = `status ${doc.status}`;
  set("units-done", doc.units_done);
  set("units-total", doc.units_total);
  set("rows", doc.rows);
  set("rate", doc.rows_per_s ? doc.rows_per_s.toFixed(1) : "-");
  set("eta", duration(doc.eta_s));
  set("chip-time", `${duration(doc.chip_s)} / ${duration(doc.chip_eta_s)}`);
  set("last-unit", doc.last_unit ? `#${doc.last_unit.idx} ${doc.last_unit.key}` : "-");
  set("current-unit", inFlight(doc.current_unit));
  set("run-error", doc.error || "");
  set("campaign", doc.campaign || "-");
  set("started", doc.start_utc || "-");
  const chips = document.getElementById("chips");
  if (doc.chips && chips.dataset.shown !== doc.chips) {
    chips.replaceChildren(...doc.chips.split(",").map((chip) => {
      const link = document.createElement("a");
      link.href = `/ledger/${encodeURIComponent(chip)}`;
      link.textContent = chip;
      return link;
    }));
    chips.dataset.shown = doc.chips;
  }
  const bench = document.getElementById("bench");
  if (doc.bench && bench.dataset.shown !== JSON.stringify(doc.bench)) {
    bench.replaceChildren(...doc.bench.flatMap(([label, text]) => {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = text;
      return [dt, dd];
    }));
    bench.dataset.shown = JSON.stringify(doc.bench);
  }
  const bar = document.getElementById("bar");
  bar.max = doc.units_total || 1;
  bar.value = doc.units_done;
  const log = document.getElementById("job-log");
  log.hidden = !(doc.job && doc.job.log);
  log.textContent = doc.job ? doc.job.log : "";
  const running = doc.status === "running" || doc.status === "starting";
  document.getElementById("stop").disabled = !running;
  document.getElementById("resume").disabled = running || doc.status === "complete";
  // redraw the open plot with the rows committed since: when the status changes, and
  // while running at most every REDRAW_MS (each redraw reads every row of the run)
  const now = Date.now();
  if (currentFigure && (doc.status !== lastStatus || (running && now - lastDraw > REDRAW_MS))) {
    showFigure(currentFigure);
  }
  lastStatus = doc.status;
}

function followRun(runId) {
  currentRun = runId;
  const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
  source.addEventListener("progress", (event) => showProgress(JSON.parse(event.data)));
}

async function drawFigure(element, url) {
  const target = document.getElementById(element);
  const response = await fetch(url);
  if (!response.ok) {
    const doc = await response.json().catch(() => ({}));
    target.textContent = doc.error || doc.detail || response.statusText;
    return;
  }
  const fig = await response.json();
  await Plotly.react(target, fig.data, fig.layout, {responsive: true});
  target.dataset.drawn = url;
}

function showFigure(name) {
  currentFigure = name;
  lastDraw = Date.now();
  for (const tab of document.querySelectorAll(".tab")) {
    tab.classList.toggle("active", tab.dataset.figure === name);
  }
  drawFigure("plot", `/api/runs/${encodeURIComponent(currentRun)}/figures/${name}`);
}

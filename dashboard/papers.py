"""The Papers view: every quantitative claim of the papers beside slotscope's figure.

A view of :func:`core.reproduce.reproduce`: one line per claim (paper, claim,
the paper's figure, ours, verdict), the claim's reason one click away (click a
row: the panel beside the grid gives the claim's words, source, presets, band
and why it is missed), filters by paper and by verdict, and a per-paper chart
of the verdicts.

The results are computed once, off the request threads, by
``python -m core reproduce --json`` in a child process at low priority
(:class:`ClaimsStore`): when ``run`` starts the server, or on the first page
served (gunicorn). They go into the dashboard's result cache
(:class:`dashboard.jobs.ResultCache`) under a key of the package version, the
model version and the claims themselves, so a page shows the last results at
once, even after a restart; Reproduce only re-runs them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dash_ag_grid as dag
import plotly.graph_objects as go
from dash import Input, Output, State, callback, ctx, dcc, html, no_update
from flask import current_app, has_app_context, has_request_context

from core.claims import CLAIMS, PAPERS
from core.figures import FIGURES
from core.reproduce import RELATIVE, reproduce
from core.settings import MODEL_VERSION
from dashboard import ids, jobs

log = logging.getLogger(__name__)

EXTENSION = "slotscope_papers"  # key of the ClaimsStore in the Flask app's extensions
ALL = "all"
GRID_HEIGHT = 520  # px: the grid, beside (1800 px and wider) or above the chart and panel
# A claim is one row of the grid, its words whole: the claim column wraps onto at most
# CLAIM_LINES lines of CLAIM_LINE_PX (the longest claim, 132 characters, takes two in the
# ~700 px the column gets at 1440 and 1920 px wide: assets/style.css gives the grid the
# page's width below 1800 px); every row is as tall, so rows line up and scroll evenly.
CLAIM_LINES = 2
CLAIM_LINE_PX = 18  # px, of 13 px text (assets/style.css, .papers-grid .ag-cell-wrap-text)
ROW_HEIGHT = CLAIM_LINES * CLAIM_LINE_PX + 10  # px: two lines and the cell's padding
CHART_HEIGHT = 230  # px
POLL_MS = 1500  # how often an open page asks whether a run has finished
CHILD_NICE = 10  # the computing process yields the cores to the server's requests
CHILD_TIMEOUT_S = 900.0  # a run that takes longer is abandoned (it takes ~20 s)
ROOT = Path(__file__).resolve().parent.parent  # the project, where ``core`` is imported from

# The verdicts of core.reproduce.verdict, in the order the view lists them, and
# how the view names them: "direction" is the right way round, outside the band;
# "sensitive" moves when the CPUs' per-clock factors move inside their sourced ranges.
VERDICTS = ("reproduced", "sensitive", "direction", "outside band", "wrong direction", "not run")
VERDICT_LABELS = {
    "reproduced": "reproduced",
    "sensitive": "sensitive to CPU",
    "direction": "right way only",
    "outside band": "outside band",
    "wrong direction": "wrong way",
    "not run": "not run",
}
VERDICT_COLORS = {
    "reproduced": "#059669",
    "sensitive": "#7c3aed",
    "direction": "#d97706",
    "outside band": "#f59e0b",
    "wrong direction": "#dc2626",
    "not run": "#94a3b8",
}
VERDICT_CLASSES = {
    "verdict-ok": "params.data.verdict == 'reproduced'",
    "verdict-direction": "params.data.verdict == 'direction' || params.data.verdict == 'sensitive'",
    "verdict-wrong": "params.data.verdict == 'wrong direction' "
    "|| params.data.verdict == 'outside band'",
    "verdict-none": "params.data.verdict == 'not run'",
}
PAPER_NAMES = {"top-storm": "TOP-Storm", "lf": "L/F", "nasiri": "Nasiri", "aniello": "Aniello"}
# a claim's measure (core.reproduce.MEASURES) -> the figure it is made of (core.figures)
MEASURED = {
    "throughput_gain": "throughput",  # R* for the papers that measure saturated runs
    "gap_to_optimal": "max_rate",
    "latency_gain": "latency_ms.mean",
    "p99_gain": "latency_ms.p99",
    "cpu_gain": "cpu_util",  # cores busy, summed over the nodes
    "memory_gain": "memory_mb",
    "memory_change": "memory_mb",
    "latency_reduction": "latency_ms.mean",
    "latency_ms": "latency_ms.mean",
    "memory_mb": "memory_mb",
    "nodes_used": "nodes_used",
    "p99_ms": "latency_ms.p99",
    "workers_used": "slots_used",
    "nodes_reduction": "nodes_used",
    "utilization_gain": "cpu_util",
}
# absolute measures in a unit of their own: (label, unit); L/F's R_U_CPU is CPU seconds per
# 10 s bucket (core.reproduce.LF_METRICS_BUCKET_S)
OWN_UNIT = {"cpu_seconds": ("CPU time per 10 s", "s")}
# measures of a placement's structure, not figures of core.figures: their labels
STRUCTURE = {
    "cohesion_gain": "Cohesion (L/F's, Fig. 6a)",
    "coupling_change": "Coupling (L/F's, Fig. 6b)",
    "bolt1_instances": "Executors of the first bolt",
    "bolt2_instances": "Executors of the second bolt",
}
# (field, header, fixed width in px or None for the one flexible column)
COLUMNS = (
    ("paper_name", "Paper", 114),
    ("claim", "Claim", None),
    ("paper_text", "Paper's figure", 142),
    ("ours_text", "Ours", 100),
    ("verdict_label", "Verdict", 160),  # "sensitive to CPU" whole at 13 px
    ("why", "Reason", 92),
)
RIGHT = {"paper_text", "ours_text"}
GRID_FIELDS = ("id", "paper", "verdict", *(field for field, _, _ in COLUMNS))


# -- rows --------------------------------------------------------------------------------


def figure_of(measure: str) -> str:
    """What a claim's value measures, with its unit: a change in % of a figure, or the
    figure itself.

    >>> figure_of("p99_gain"), figure_of("latency_ms"), figure_of("nodes_used")
    ('p99 latency, change (%)', 'Mean latency (ms)', 'Nodes (count)')
    """
    if measure in STRUCTURE:
        return STRUCTURE[measure] + (", change (%)" if measure in RELATIVE else " (count)")
    if measure in OWN_UNIT:
        return "{} ({})".format(*OWN_UNIT[measure])
    figure = FIGURES[MEASURED[measure]]
    if measure in RELATIVE:
        return f"{figure.label}, change (%)"
    return f"{figure.label} ({figure.unit or 'count'})"


def value_text(measure: str, value: float | None) -> str:
    """A claim's figure as the grid shows it: a signed percentage for a change, the
    figure with its unit otherwise, a dash when there is none.

    >>> value_text("latency_gain", 139.2), value_text("latency_ms", 12.345)
    ('+139%', '12.3 ms')
    >>> value_text("nodes_used", 2.0), value_text("p99_gain", None)
    ('2 nodes', '–')
    """
    if value is None:
        return "–"
    if measure in RELATIVE:
        if abs(value) >= 1000:
            return f"{value:+,.0f}%"
        return f"{value:+.3g}%" if abs(value) >= 1 else f"{value:+.2f}%"
    if measure == "nodes_used":
        return f"{value:.0f} node" + ("" if value == 1 else "s")
    if measure in STRUCTURE:
        return f"{value:.0f} executors"
    unit = OWN_UNIT[measure][1] if measure in OWN_UNIT else FIGURES[MEASURED[measure]].unit
    return f"{value:.3g} {unit}".strip()


def grid_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """One claim (``core.reproduce.Row.to_json``) with the texts the grid and panel show."""
    measure = row["measure"]
    return {
        **row,
        "paper_name": PAPER_NAMES.get(row["paper"], row["paper"]),
        "figure": figure_of(measure),
        "paper_text": value_text(measure, row["paper_value"]),
        "ours_text": value_text(measure, row["slotscope_value"]),
        "verdict_label": VERDICT_LABELS.get(row["verdict"], row["verdict"]),
        "why": "why ›" if row["note"] else "details ›",
    }


def document(claims: Iterable[Mapping[str, Any]], seconds: float) -> dict[str, Any]:
    """What the cache keeps of a run: ``claims`` (``reproduce --json``'s rows), when they
    were computed and in how many seconds (JSON-ready)."""
    return {
        "claims": list(claims),
        "computed_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "seconds": round(seconds, 1),
    }


def view_of(doc: Any) -> dict[str, Any] | None:
    """A run's :func:`document` as the view shows it (its claims as grid rows); None for
    anything else (a cache entry of another shape)."""
    try:
        rows = [grid_row(c) for c in doc["claims"]]
        return {"rows": rows, "computed_at": str(doc["computed_at"]), "seconds": doc["seconds"]}
    except (KeyError, TypeError, ValueError):
        return None


def compute_document() -> dict[str, Any]:
    """Every claim reproduced in this process (:func:`document`)."""
    start = time.perf_counter()
    claims = [r.to_json() for r in reproduce()]
    return document(claims, time.perf_counter() - start)


def reproduce_in_child() -> dict[str, Any]:
    """Every claim reproduced by ``python -m core reproduce --json`` in a child process at
    low priority (the server's requests keep the cores and the GIL); RuntimeError with
    the child's last line when it fails."""
    command = [sys.executable, "-m", "core", "reproduce", "--json"]
    if shutil.which("nice"):
        command = ["nice", "-n", str(CHILD_NICE), *command]
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    start = time.perf_counter()
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        timeout=CHILD_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
        raise RuntimeError(lines[-1])
    return document(json.loads(done.stdout)["claims"], time.perf_counter() - start)


def cache_key() -> str:
    """The result cache's key of the claims' results: the package version, the model
    version and every claim (a new claim or band never serves old verdicts)."""
    text = json.dumps(
        {
            "package": jobs.PACKAGE_VERSION,
            "model": MODEL_VERSION,
            "claims": [repr(c) for c in CLAIMS],
        }
    )
    return "papers-" + hashlib.sha256(text.encode()).hexdigest()


def filter_rows(
    rows: Iterable[Mapping[str, Any]], paper: str | None, verdict: str | None
) -> list[Mapping[str, Any]]:
    """The rows of one paper and one verdict (``ALL`` or None: every one)."""
    return [
        r for r in rows if paper in (None, ALL, r["paper"]) and verdict in (None, ALL, r["verdict"])
    ]


def verdict_counts(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Paper -> verdict -> number of claims (every verdict of ``VERDICTS``, zeros too)."""
    counts: dict[str, Counter[str]] = {p: Counter() for p in PAPERS}
    for r in rows:
        counts.setdefault(r["paper"], Counter())[r["verdict"]] += 1
    return {p: {v: c[v] for v in VERDICTS} for p, c in counts.items()}


def summary_figure(rows: Sequence[Mapping[str, Any]]) -> go.Figure:
    """A bar per paper, stacked by verdict: how many of its claims each verdict got."""
    counts = verdict_counts(rows)
    papers = [p for p in counts if sum(counts[p].values())][::-1]  # first paper on top
    names = [PAPER_NAMES.get(p, p) for p in papers]
    fig = go.Figure(
        [
            go.Bar(
                name=VERDICT_LABELS[v],
                y=names,
                x=[counts[p][v] for p in papers],
                orientation="h",
                marker_color=VERDICT_COLORS[v],
                customdata=[[p, v] for p in papers],
                hovertemplate="%{y}: %{x} " + VERDICT_LABELS[v] + "<extra></extra>",
            )
            for v in VERDICTS
        ]
    )
    fig.update_layout(
        barmode="stack",
        height=CHART_HEIGHT,
        margin={"l": 8, "r": 8, "t": 30, "b": 8},
        title={"text": "Claims per paper, by verdict", "font": {"size": 14}, "x": 0},
        font={"size": 13, "family": "Inter, Segoe UI, system-ui, sans-serif"},
        legend={
            "orientation": "h",
            "traceorder": "normal",
            "y": -0.16,
            "yanchor": "top",
            "entrywidth": 0.5,
            "entrywidthmode": "fraction",
            "font": {"size": 12},
        },
        xaxis={"nticks": 6, "tickfont": {"size": 12}},  # ticks apart whatever the count
        yaxis={"automargin": True},
        plot_bgcolor="white",
        paper_bgcolor="white",
    )
    return fig


def status_line(doc: Mapping[str, Any] | None, running: float | None) -> str:
    """What the view says about its results: when they were computed, or that they are
    being computed (``running``: seconds since the run started)."""
    parts = []
    if doc:
        counts = Counter(r["verdict"] for r in doc["rows"])
        told = ", ".join(f"{counts[v]} {VERDICT_LABELS[v]}" for v in VERDICTS if counts[v])
        parts.append(
            f"{len(doc['rows'])} claims: {told}. Computed {doc['computed_at']} "
            f"in {doc['seconds']:g} s."
        )
    if running is not None:
        parts.append(f"Reproducing every claim in the background ({running:.0f} s so far)…")
    elif not doc:
        parts.append("Not computed yet: press Reproduce (about 20 s).")
    return " ".join(parts)


# -- the background run ------------------------------------------------------------------


class ClaimsStore:
    """The last results of every claim: in memory, in the result cache, and at most one
    run computing them in a child process (:func:`reproduce_in_child`)."""

    def __init__(self, cache: Any):
        self.cache = cache
        self.key = cache_key()
        self.lock = threading.Lock()
        self.doc: dict[str, Any] | None = None
        self.started: float | None = None  # monotonic start of the run under way
        self.error = ""

    def latest(self) -> dict[str, Any] | None:
        """The last results (memory, else the cache), or None."""
        if self.doc is None:
            self.doc = view_of(self.cache.get(self.key))
        return self.doc

    def running_for(self) -> float | None:
        """Seconds the run under way has taken so far (None: no run)."""
        started = self.started
        return None if started is None else time.monotonic() - started

    def refresh(self, force: bool = False) -> bool:
        """Start a run in the background (unless one runs, or results exist and not
        ``force``); True if started."""
        with self.lock:
            if self.started is not None or (not force and self.latest() is not None):
                return False
            self.started = time.monotonic()
        threading.Thread(target=self.run_in_child, name="slotscope-papers", daemon=True).start()
        return True

    def run_in_child(self) -> None:
        try:
            self.store(reproduce_in_child())
        except (
            OSError,
            ValueError,
            KeyError,
            RuntimeError,
            subprocess.SubprocessError,
        ) as err:  # a failed run keeps the last results and says why
            self.error = f"the claims could not be reproduced: {err}"
            log.warning(self.error)
        finally:
            self.started = None

    def store(self, doc: dict[str, Any]) -> None:
        """Keep a run's :func:`document`: as the view shows it in memory, as is in the
        result cache (so the view's texts can change without a re-run)."""
        self.doc = view_of(doc)
        self.error = ""
        self.cache.set(self.key, doc)


def install(server: Any, cache: Any) -> ClaimsStore:
    """Give a Flask server its store of claim results (nothing computed yet)."""
    server.extensions[EXTENSION] = ClaimsStore(cache)
    return server.extensions[EXTENSION]


def claims_store(server: Any = None) -> ClaimsStore | None:
    """The store of ``server`` (else of the current app; None outside an app)."""
    if server is None:
        if not has_app_context():
            return None
        server = current_app
    return server.extensions.get(EXTENSION)


def warm(server: Any) -> None:
    """Start computing the claims unless their results are cached (server start)."""
    store = claims_store(server)
    if store is not None:
        store.refresh()


# -- the view ----------------------------------------------------------------------------


def grid_data(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Only what the grid shows of each row (the panel's texts stay on the server)."""
    return [{k: r[k] for k in GRID_FIELDS} for r in rows]


def stamp(doc: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What the page keeps of the results it shows: when they were computed."""
    return None if doc is None else {"computed_at": doc["computed_at"], "n": len(doc["rows"])}


def server_rows() -> list[dict[str, Any]]:
    """The rows of the last results on this server (none yet: empty)."""
    store = claims_store()
    doc = store.latest() if store else None
    return doc["rows"] if doc else []


def column_def(field: str, header: str, width: int | None) -> dict[str, Any]:
    col: dict[str, Any] = {"field": field, "headerName": header}
    if width is None:  # the claim: wrapped, whole (ROW_HEIGHT holds CLAIM_LINES lines)
        col.update(flex=1, minWidth=260, wrapText=True, tooltipField=field)
    else:
        col.update(width=width, minWidth=width)
    if field in RIGHT:
        col["type"] = "rightAligned"
    if field == "verdict_label":
        col["cellClassRules"] = VERDICT_CLASSES
    if field == "why":
        col["cellClass"] = "papers-why"
        col["sortable"] = False
    return col


def _options(values: Iterable[str], names: Mapping[str, str], every: str) -> list[dict]:
    return [{"label": every, "value": ALL}] + [
        {"label": names.get(v, v), "value": v} for v in values
    ]


def layout() -> html.Section:
    """The section, with the last results already in it when they are cached."""
    store = claims_store()
    if (
        store is not None
        and has_request_context()
        and current_app.config.get(jobs.WARM_ON_VISIT_CONFIG, True)
    ):
        store.refresh()  # the first page served (gunicorn): compute unless cached
    doc = store.latest() if store else None
    running = store.running_for() if store else None
    rows = doc["rows"] if doc else []
    return html.Section(
        id=ids.PAPERS_SECTION,
        className="card papers",
        children=[
            html.H2("Papers: each claim beside slotscope's figure"),
            html.P(
                "Each paper's quantitative claims, run on its own preset. Reproduced: inside "
                "the claim's band (a factor of 2 on a gain, ±50% on an absolute figure); right "
                "way only: the right way round, outside the band. Click a claim for its "
                "source, band and reason; click a bar to filter.",
                className="hint",
            ),
            html.Div(
                className="papers-controls",
                children=[
                    dcc.Dropdown(
                        id=ids.PAPERS_SELECT,
                        options=_options(PAPERS, PAPER_NAMES, "All papers"),
                        value=ALL,
                        clearable=False,
                        searchable=False,
                    ),
                    dcc.Dropdown(
                        id=ids.PAPERS_VERDICT,
                        options=_options(VERDICTS, VERDICT_LABELS, "All verdicts"),
                        value=ALL,
                        clearable=False,
                        searchable=False,
                    ),
                    html.Button(
                        "Reproduce",
                        id=ids.PAPERS_RUN,
                        className="btn btn-ghost",
                        title="Run every claim again (about 20 s, in the background)",
                    ),
                    html.Span(
                        status_line(doc, running), id=ids.PAPERS_SUMMARY, className="papers-summary"
                    ),
                ],
            ),
            html.Div(
                className="papers-body",
                children=[
                    dag.AgGrid(
                        id=ids.PAPERS_GRID,
                        className="papers-grid",
                        rowData=grid_data(rows),
                        columnDefs=[column_def(*c) for c in COLUMNS],
                        getRowId="params.data.id",
                        defaultColDef={"resizable": True, "sortable": True},
                        dashGridOptions={
                            "tooltipShowDelay": 300,
                            "animateRows": False,
                            "rowHeight": ROW_HEIGHT,
                            "headerHeight": 36,
                            "suppressCellFocus": True,
                            "rowSelection": {
                                "mode": "singleRow",
                                "checkboxes": False,
                                "enableClickSelection": True,
                            },
                            "theme": {
                                "function": "themeQuartz.withParams({fontSize: 13, "
                                "headerFontWeight: 600, accentColor: '#4f46e5', "
                                "wrapperBorderRadius: 8})"
                            },
                        },
                        style={"height": f"{GRID_HEIGHT}px"},
                    ),
                    html.Div(
                        className="papers-side",
                        children=[
                            dcc.Graph(
                                id=ids.PAPERS_CHART,
                                figure=summary_figure(rows),
                                config={"displayModeBar": False},
                                className="papers-chart",
                            ),
                            html.Div(detail(None), id=ids.PAPERS_DETAIL, className="papers-detail"),
                        ],
                    ),
                ],
            ),
            dcc.Store(id=ids.PAPERS_STORE, data=stamp(doc)),
            dcc.Interval(id=ids.PAPERS_POLL, interval=POLL_MS, disabled=running is None),
        ],
    )


def reason_of(row: Mapping[str, Any]) -> str:
    """Why a claim got its verdict, in words."""
    if row["note"]:
        return row["note"]
    if row["verdict"] == "reproduced":
        return "Nothing to explain: slotscope's figure is inside the claim's band."
    return "No reason is recorded for this miss yet."


def ends_text(row: Mapping[str, Any]) -> str | None:
    """Our figure with the CPUs' per-clock factors at the low and high ends of their
    sourced ranges (None when the claim's presets name no CPU with a range).

    >>> ends_text({"measure": "throughput_gain", "per_clock_ends": {"low": 19.2, "high": -7.1}})
    '+19.2% at the low end, -7.1% at the high end'
    """
    ends = row.get("per_clock_ends")  # absent in results cached before the CPU table
    if not ends:
        return None
    return ", ".join(f"{value_text(row['measure'], v)} at the {end} end" for end, v in ends.items())


def detail(row: Mapping[str, Any] | None) -> list:
    """The panel of one claim: its words, where the paper says it, what was run, the
    paper's figure and band, ours, the verdict and the reason."""
    if row is None:
        return [html.P("Click a claim to see its source, band and reason.", className="hint")]
    low, high = row["band"]
    run = f"{row['subject']} vs {row['baseline'] or '(alone)'} on {', '.join(row['presets'])}"
    facts = [
        ("Paper", PAPERS.get(row["paper"], row["paper"])),
        ("Where", row["source"]),
        ("Run", run),
        ("Measure", row["figure"]),
        ("Paper's figure", row["paper_text"]),
        ("Band", f"{value_text(row['measure'], low)} to {value_text(row['measure'], high)}"),
        ("Ours", row["ours_text"]),
        *([("Per-clock range", ends_text(row))] if ends_text(row) else []),
        ("Verdict", row["verdict_label"]),
        ("Role", "training (the calibration fits constants to it)" if row["training"] else "check"),
    ]
    return [
        html.H3(row["claim"]),
        html.P(reason_of(row), className="papers-reason"),
        html.Dl([part for k, v in facts for part in (html.Dt(k), html.Dd(v))]),
    ]


@callback(
    Output(ids.PAPERS_STORE, "data"),
    Output(ids.PAPERS_POLL, "disabled"),
    Output(ids.PAPERS_SUMMARY, "children"),
    Input(ids.PAPERS_RUN, "n_clicks"),
    Input(ids.PAPERS_POLL, "n_intervals"),
    State(ids.PAPERS_STORE, "data"),
    prevent_initial_call=True,
)
def follow_run(_clicks: int | None, _ticks: int | None, shown: dict | None):
    """Reproduce starts a run; the poll shows its progress, then its results."""
    store = claims_store()
    if store is None:
        return no_update, True, "The claims' results are not available on this server."
    if ctx.triggered_id == ids.PAPERS_RUN:
        store.refresh(force=True)
    running = store.running_for()
    doc = store.latest()
    line = status_line(doc, running)
    if store.error and running is None:
        line = f"{line} ({store.error})"
    return (stamp(doc) if stamp(doc) != shown else no_update), running is None, line


@callback(
    Output(ids.PAPERS_GRID, "rowData"),
    Output(ids.PAPERS_CHART, "figure"),
    Input(ids.PAPERS_STORE, "data"),
    Input(ids.PAPERS_SELECT, "value"),
    Input(ids.PAPERS_VERDICT, "value"),
    prevent_initial_call=True,
)
def show_claims(_stamp: dict | None, paper: str, verdict: str):
    """The grid's rows under the filters; the chart of every claim (new results only)."""
    rows = server_rows()
    chart = summary_figure(rows) if ctx.triggered_id == ids.PAPERS_STORE else no_update
    return grid_data(filter_rows(rows, paper, verdict)), chart


@callback(
    Output(ids.PAPERS_DETAIL, "children"),
    Input(ids.PAPERS_GRID, "cellClicked"),
    prevent_initial_call=True,
)
def show_detail(clicked: dict | None):
    """The clicked claim's panel."""
    claim_id = (clicked or {}).get("rowId")
    return detail(next((r for r in server_rows() if r["id"] == claim_id), None))


@callback(
    Output(ids.PAPERS_SELECT, "value"),
    Output(ids.PAPERS_VERDICT, "value"),
    Input(ids.PAPERS_CHART, "clickData"),
    prevent_initial_call=True,
)
def filter_by_bar(click: dict | None):
    """A click on a bar's segment filters the grid to that paper and verdict."""
    points = (click or {}).get("points") or []
    if not points or not points[0].get("customdata"):
        return no_update, no_update
    paper, verdict = points[0]["customdata"]
    return paper, verdict

"""The Papers view: every quantitative claim of the papers beside slotscope's figure.

A thin view of :func:`core.reproduce.reproduce`: pick a paper (or all), press
Reproduce, read one row per claim with the paper's figure, ours, their ratio
and a verdict. The rows of the built-in presets never change while the server
runs, so they are computed once per paper.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import dash_ag_grid as dag
from dash import Input, Output, callback, dcc, html

from core.claims import PAPERS
from core.figures import FIGURES
from core.reproduce import RELATIVE, reproduce, summary
from dashboard import ids

ALL = "all"
VERDICT_CLASSES = {
    "verdict-ok": "params.value == 'reproduced'",
    "verdict-direction": "params.value == 'direction'",
    "verdict-wrong": "params.value == 'wrong direction' || params.value == 'outside band'",
    "verdict-none": "params.value == 'not run'",
}
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
    "nodes_used": "nodes_used",
}
COLUMNS = (
    ("paper", "Paper", 1),
    ("claim", "Claim", 4),
    ("source", "Where", 1),
    ("figure", "Figure", 1),
    ("paper_value", "Paper's figure", 1),
    ("slotscope_value", "slotscope", 1),
    ("ratio", "Ratio", 1),
    ("verdict", "Verdict", 1),
    ("training", "Role", 1),
    ("note", "Why / note", 3),
)
NUMERIC = {"paper_value", "slotscope_value", "ratio"}


def _column(field: str, header: str, flex: int) -> dict[str, Any]:
    col: dict[str, Any] = {"field": field, "headerName": header, "flex": flex}
    if field in NUMERIC:
        col["valueFormatter"] = {
            "function": "params.value == null ? '-' : d3.format('.3~g')(params.value)"
        }
        col["type"] = "rightAligned"
    if field == "verdict":
        col["cellClassRules"] = VERDICT_CLASSES
    if field == "training":  # a claim the calibration fits (bench.calibrate), or a check
        col["valueFormatter"] = {"function": "params.value ? 'training' : 'check'"}
    if field in ("claim", "note", "figure"):
        col["wrapText"] = True
        col["autoHeight"] = True
        col["tooltipField"] = field
    return col


def layout() -> html.Section:
    options = [{"label": "All papers", "value": ALL}] + [
        {"label": title, "value": key} for key, title in PAPERS.items()
    ]
    return html.Section(
        id=ids.PAPERS_SECTION,
        className="card papers",
        children=[
            html.H2("Papers: each claim beside slotscope's figure"),
            html.P(
                "The papers' quantitative claims, each run on its own preset. Reproduced: "
                "inside the claim's band (a factor of 2 on a gain, ±50% on an absolute "
                "figure); direction: the right way round but outside the band. Role: "
                "training claims are the few figures global constants are fitted to "
                "(python -m bench.calibrate); every other claim is a check.",
                className="hint",
            ),
            html.Div(
                className="papers-controls",
                children=[
                    dcc.Dropdown(id=ids.PAPERS_SELECT, options=options, value=ALL, clearable=False),
                    html.Button("Reproduce", id=ids.PAPERS_RUN, className="button"),
                    html.Span(id=ids.PAPERS_SUMMARY, className="papers-summary"),
                ],
            ),
            dag.AgGrid(
                id=ids.PAPERS_GRID,
                rowData=[],
                columnDefs=[_column(*c) for c in COLUMNS],
                defaultColDef={"resizable": True, "sortable": True, "filter": True},
                dashGridOptions={"tooltipShowDelay": 150, "animateRows": False},
                style={"height": "520px"},
            ),
        ],
    )


@cache
def claim_rows(paper: str) -> tuple[list[dict[str, Any]], str]:
    """The grid rows and the summary line of one paper's claims (all when ``ALL``)."""
    rows = reproduce(None if paper == ALL else paper)
    counts = summary(rows)
    line = f"{len(rows)} claims: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    return [{**r.to_json(), "figure": figure_of(r.claim.measure)} for r in rows], line


def figure_of(measure: str) -> str:
    """What a claim's value measures, with its unit: a change in % of a figure, or the
    figure itself.

    >>> figure_of("p99_gain"), figure_of("latency_ms"), figure_of("nodes_used")
    ('p99 latency, change (%)', 'Mean latency (ms)', 'Nodes (count)')
    """
    figure = FIGURES[MEASURED[measure]]
    if measure in RELATIVE:
        return f"{figure.label}, change (%)"
    return f"{figure.label} ({figure.unit or 'count'})"


@callback(
    Output(ids.PAPERS_GRID, "rowData"),
    Output(ids.PAPERS_SUMMARY, "children"),
    Input(ids.PAPERS_RUN, "n_clicks"),
    Input(ids.PAPERS_SELECT, "value"),
    prevent_initial_call=True,
)
def show_claims(_clicks: int | None, paper: str):
    paper = paper if paper in PAPERS else ALL
    rows, line = claim_rows(paper)
    return rows, line

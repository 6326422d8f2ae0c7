"""Simulate on a topology set: the sweep's figures as two tables a user can sort.

On a scenario of several topologies the dashboard's Simulate runs ``slotscope sweep``'s
job (:func:`core.sweep.spark_sweep`: one Spark task per scheduler on the whole set;
docs/architecture.md, "Sweep"); this module draws its document. The columns carry the
names ``slotscope sweep`` prints (``sched``, ``nodes``, ``slots``, ``inWkr%`` ...
``memCV``) and, per topology, its JSON keys' figures: R* and the latency estimate, or
why the topology was not simulated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import dash_ag_grid as dag
from dash import dcc, html

from core.sweep import LEGEND as SWEEP_LEGEND
from core.sweep import SCOPE_HEADERS, SCOPES, row_name, sweep_csv, traffic_shares

SET_KIND = "set"  # the results store's "kind" for a topology set's sweep
SCHEDULERS_TABLE = "set-schedulers-table"  # element id: one row per scheduler
TOPOLOGIES_TABLE = "set-topologies-table"  # element id: one row per scheduler and topology
TOPOLOGY_PAGE = 25  # rows per page of the per-topology table
LEGEND = (
    f"sched: topologies fully scheduled; {SWEEP_LEGEND} (slotscope sweep). "
    "R* and latency: the analytic model of each topology alone on the cluster with its "
    "placement. Click a column's header to sort it; its menu filters."
)


def is_set_results(results: Mapping[str, Any] | None) -> bool:
    """Whether the results store holds a topology set's sweep."""
    return bool(results) and results.get("kind") == SET_KIND and "sweep" in results


def pack(doc: Mapping[str, Any], offered: float, scenario_text: str) -> dict[str, Any]:
    """What the results store holds for a set: the sweep document under ``sweep``, no
    comparison ``results`` (the panels' and the strip's simulated p99 stay empty)."""
    return {
        "kind": SET_KIND,
        "engine": dict(doc.get("engine", {})),
        "results": [],
        "sweep": dict(doc),
        "offered": offered,
        "scenario": scenario_text,
    }


def scheduler_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per scheduler (and fed rate): the cluster-wide figures of its placement,
    keyed by :data:`SCHEDULER_COLUMNS`' fields (traffic scopes as % of all tuples).

    >>> doc = {"results": [{"scheduler": "even", "error": "no"}]}
    >>> scheduler_rows(doc)[0]["note"]
    'refused: no'
    """
    rows = []
    for r in doc.get("results", []):
        if "error" in r:
            rows.append({"scheduler": row_name(r), "note": f"refused: {r['error']}"})
            continue
        sim = (r.get("simulations") or [{}])[0]
        missing = r.get("not_scheduled") or []
        rows.append(
            {
                "scheduler": row_name(r),
                "sched": r["scheduled"],
                "nodes": r["nodes_used"],
                "slots": r["slots_used"],
                **{
                    s: round(v, 1)
                    for s, v in zip(SCOPES, traffic_shares(r["traffic"]), strict=True)
                },
                "steps": r["steps_per_tuple"],
                "cpu_cv": r["cpu_cv"],
                "memory_cv": r["memory_cv"],
                "simulated": sim.get("simulated"),
                "r_star_min": sim.get("r_star_min"),
                "latency_ms_max": sim.get("latency_ms_max"),
                "note": f"not scheduled: {', '.join(missing)}" if missing else "",
            }
        )
    return rows


def topology_rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per scheduler and topology: R* and latency, or why it was not simulated."""
    rows = []
    for r in doc.get("results", []):
        for sim in r.get("simulations") or []:
            for t in sim["topologies"]:
                rows.append(
                    {
                        "scheduler": row_name(r),
                        "topology": t["topology"],
                        "r_star": t.get("r_star"),
                        "latency_ms": t.get("latency_ms"),
                        "saturated": {True: "yes", False: "no"}.get(t.get("saturated"), ""),
                        "not_simulated": t.get("not_simulated", ""),
                    }
                )
    return rows


# (field, header as slotscope sweep prints it, decimals of a number or None for text)
SCHEDULER_COLUMNS = (
    ("scheduler", "scheduler", None),
    ("sched", "sched", 0),
    ("nodes", "nodes", 0),
    ("slots", "slots", 0),
    *((scope, header, 1) for scope, header in zip(SCOPES, SCOPE_HEADERS, strict=True)),
    ("steps", "steps", 2),
    ("cpu_cv", "cpuCV", 2),
    ("memory_cv", "memCV", 2),
    ("simulated", "simulated", 0),
    ("r_star_min", "min R*", 0),
    ("latency_ms_max", "max latency ms", 2),
    ("note", "note", None),
)
TOPOLOGY_COLUMNS = (
    ("scheduler", "scheduler", None),
    ("topology", "topology", None),
    ("r_star", "R*", 0),
    ("latency_ms", "latency ms", 2),
    ("saturated", "saturated", None),
    ("not_simulated", "not simulated", None),
)


def column_def(field: str, header: str, decimals: int | None) -> dict[str, Any]:
    """An AG Grid column: sortable and filterable, numbers right-aligned to ``decimals``."""
    col: dict[str, Any] = {"field": field, "headerName": header}
    if decimals is None:
        return col | {"filter": "agTextColumnFilter", "minWidth": 110, "tooltipField": field}
    return col | {
        "type": "rightAligned",
        "filter": "agNumberColumnFilter",
        "valueFormatter": {
            "function": f"params.value == null ? '' : Number(params.value).toFixed({decimals})"
        },
        "minWidth": 80,
    }


def _grid(grid_id: str, columns: Sequence[tuple], rows: Sequence[dict], page: int | None):
    options: dict[str, Any] = {"domLayout": "autoHeight", "animateRows": False}
    if page:
        options |= {"pagination": True, "paginationPageSize": page}
    return dag.AgGrid(
        id=grid_id,
        className="set-grid",
        rowData=list(rows),
        columnDefs=[column_def(*c) for c in columns],
        defaultColDef={"sortable": True, "resizable": True, "flex": 1},
        dashGridOptions=options,
        style={"height": None},
    )


def scheduler_table(doc: Mapping[str, Any]) -> dag.AgGrid:
    """The per-scheduler table (:data:`SCHEDULERS_TABLE`)."""
    return _grid(SCHEDULERS_TABLE, SCHEDULER_COLUMNS, scheduler_rows(doc), None)


def topology_table(doc: Mapping[str, Any]) -> dag.AgGrid:
    """The per-topology table (:data:`TOPOLOGIES_TABLE`), :data:`TOPOLOGY_PAGE` rows a page."""
    return _grid(TOPOLOGIES_TABLE, TOPOLOGY_COLUMNS, topology_rows(doc), TOPOLOGY_PAGE)


def set_view(results: Mapping[str, Any]) -> tuple[list, list, str]:
    """(charts area, table area, engine line) of a set's sweep, for ``show_results``."""
    doc = results["sweep"]
    rate = results.get("offered")
    at = f" at {rate:g} tuples/s offered per spout" if rate else ""
    head = (
        f"{doc['scenario']}: {doc['topologies']} topologies on {doc['nodes']:,} nodes, "
        f"every scheduler on the whole set (slotscope sweep); traffic at "
        f"{doc['traffic_rate']:g} tuples/s per spout"
    )
    charts = [
        html.Div(
            className="card chart-wide set-results",
            children=[
                html.H3(f"The cluster per scheduler (sched: of {doc['topologies']})"),
                html.P(head, className="muted"),
                scheduler_table(doc),
                html.P(LEGEND, className="muted"),
            ],
        )
    ]
    table = [
        html.H3(f"Per topology{at}: R* and latency, or why not simulated"),
        topology_table(doc),
    ]
    engine = results.get("engine", {})
    info = (
        f"{engine.get('tasks', len(doc.get('results', [])))} Spark tasks on "
        f"{engine.get('master', '?')} in {engine.get('wall_s', 0):.1f} s"
    )
    return charts, table, info


def download(results: Mapping[str, Any], fmt: str) -> dict[str, Any]:
    """The set's sweep as ``slotscope sweep --csv`` or ``--json`` writes it."""
    doc = results["sweep"]
    name = f"slotscope-sweep-{doc.get('scenario') or 'scenario'}"
    if fmt == "csv":
        return dcc.send_string(sweep_csv(doc), f"{name}.csv")
    return dcc.send_string(json.dumps(doc, indent=2), f"{name}.json")

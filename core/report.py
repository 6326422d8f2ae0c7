"""What the CLI prints: a schedule as the ``schedule --json`` document and as a readable
table; a comparison's results as a readable table and as CSV.

Result figures are written as :data:`core.figures.FIGURES` says (heading, format); the
JSON rows themselves are :meth:`core.figures.Result.to_json`.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from core.figures import FIGURES, Result, Skipped, row_of
from core.hardware import DEFAULT_ALPHA, computation_power, power_ranks, processing_speed
from core.metrics import placement_metrics
from core.model import Scenario
from core.registry import Schedule
from core.simulator import violations as memory_violations
from core.topology import build_graph, index_of


def violations(scenario: Scenario, schedule: Schedule) -> list[str]:
    """Why a schedule's placement cannot run as placed (:attr:`core.simulator.Analysis.violations`:
    a node needing more memory than its RAM); empty when it can, or when nothing was placed
    (a failed placement says why in its status and message instead)."""
    if not schedule.ok or not schedule.assignments:
        return []
    return list(memory_violations(scenario, schedule))


def schedule_document(scenario: Scenario, schedule: Schedule) -> dict[str, Any]:
    """The ``slotscope schedule --json`` document (docs/architecture.md, its contracts).

    ``computation_power`` uses the scheduler's ``alpha`` when it has one,
    else TOP-Storm's default 0.8. ``violations`` (last) lists why the placement
    cannot run as placed (:func:`violations`), empty when it can.
    """
    alpha = float(schedule.params.get("alpha", DEFAULT_ALPHA))
    nodes = scenario.cluster.nodes
    ranks = power_ranks(nodes, alpha)
    slots_per_node: dict[str, set[int]] = defaultdict(set)
    for a in schedule.assignments:
        slots_per_node[a.node].add(a.slot)
    metrics: dict[str, Any]
    if schedule.assignments:
        graph = build_graph(scenario, schedule.parallelism)
        metrics = placement_metrics(graph, schedule.placement()).as_dict()
    else:
        metrics = {
            "nodes_used": 0,
            "slots_used": 0,
            "cohesion": 0.0,
            "coupling": 0.0,
            "inter_node_streams": 0,
            "inter_worker_streams": 0,
            "intra_worker_streams": 0,
            "executors_per_slot": {},
        }
    return {
        "scheduler": schedule.scheduler,
        "status": schedule.status.value,
        "params": dict(schedule.params),
        "parallelism": dict(schedule.parallelism),
        "assignments": [
            {"executor": a.executor, "component": a.component, "node": a.node, "slot": a.slot}
            for a in schedule.assignments
        ],
        "nodes": [
            {
                "id": n.id,
                "processing_speed": round(processing_speed(n), 6),
                "computation_power": round(computation_power(n, alpha), 6),
                "power_rank": ranks[n.id],
                "slots_used": len(slots_per_node.get(n.id, ())),
            }
            for n in nodes
        ],
        "metrics": metrics,
        "decisions": list(schedule.decisions),
        "elapsed_ms": round(schedule.elapsed_ms, 3),
        "message": schedule.message,
        "details": dict(schedule.details),
        "violations": violations(scenario, schedule),
    }


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    return "\n".join(out)


def _executor_key(ex: str) -> tuple[str, int]:
    return ex.rsplit("#", 1)[0], index_of(ex)


def schedule_table(doc: dict[str, Any], verbose: bool = False) -> str:
    """A readable rendering of a schedule document."""
    m = doc["metrics"]
    head = (
        f"{doc['scheduler']}: {doc['status']}  "
        f"({len(doc['assignments'])} executors on {m['nodes_used']} nodes, "
        f"{m['slots_used']} slots, {doc['elapsed_ms']:.2f} ms)"
    )
    parts = [head]
    if doc["message"]:
        parts.append(doc["message"])
    parts += [f"cannot run: {v}" for v in doc.get("violations", ())]
    by_slot: dict[tuple[str, int], list[str]] = defaultdict(list)
    for a in doc["assignments"]:
        by_slot[(a["node"], a["slot"])].append(a["executor"])
    rows = [
        [node, slot, len(ex), " ".join(sorted(ex, key=_executor_key))]
        for (node, slot), ex in sorted(by_slot.items())
    ]
    if rows:
        parts += ["", _table(["node", "slot", "executors", "placed"], rows)]
    node_rows = [
        [
            n["id"],
            n["power_rank"],
            f"{n['processing_speed']:.1f}",
            f"{n['computation_power']:.1f}",
            n["slots_used"],
        ]
        for n in doc["nodes"]
    ]
    parts += ["", _table(["node", "rank", "GFLOP/s", "power", "slots used"], node_rows)]
    parts += [
        "",
        f"cohesion {m['cohesion']:.3f}  coupling {m['coupling']:.3f}  "
        f"edges: {m['intra_worker_streams']} intra-worker, "
        f"{m['inter_worker_streams']} inter-worker, {m['inter_node_streams']} inter-node",
    ]
    if doc["details"]:
        parts.append("details: " + ", ".join(f"{k}={v}" for k, v in doc["details"].items()))
    decisions = doc["decisions"]
    if verbose:
        parts += ["", "decisions:"] + [f"  {d}" for d in decisions]
    elif decisions:
        parts += ["", f"{len(decisions)} decisions (--verbose lists them), first: {decisions[0]}"]
    return "\n".join(parts)


# the figures of the comparison table, in its column order (keys of core.figures.FIGURES)
TABLE_FIGURES = (
    "throughput",
    "sink_throughput",
    "max_rate",
    "latency_ms.p50",
    "latency_ms.p99",
    "nodes_used",
    "slots_used",
    "traffic.inter_node",
    "bottleneck",
)


def _result_cells(r: Result | Skipped) -> list[str]:
    head = [r.scheduler, f"{r.rate:g}", str(r.replica)]
    if isinstance(r, Skipped):
        blanks = [""] * (len(TABLE_FIGURES) - 2)
        return [*head, r.status, *blanks, r.message[:40]]
    cells = []
    for key in TABLE_FIGURES:
        figure = FIGURES[key]
        text = figure.format(figure.of(r))
        if key == "max_rate" and r.saturated:
            text += " " + FIGURES["saturated"].short
        cells.append(text)
    return [*head, *cells]


def results_table(doc: Mapping[str, Any]) -> str:
    """A readable table of a comparison (``simulate`` without ``--json``): one line per
    result, then the skipped placements with their reason, then what ran it."""
    headers = ["scheduler", "rate", "rep"] + [FIGURES[k].heading for k in TABLE_FIGURES]
    rows = [row_of(r) for r in list(doc["results"]) + list(doc.get("skipped", []))]
    cells = [_result_cells(r) for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    cannot = {(r.scheduler, v): None for r in rows if isinstance(r, Result) for v in r.violations}
    if cannot:
        lines.append("")
        lines += [f"{s} cannot run as placed: {v}" for s, v in cannot]
    eng = doc["engine"]
    lines.append(f"\n{eng['tasks']} tasks on {eng['master']} in {eng['wall_s']:.2f} s")
    return "\n".join(lines)


def flatten_result(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested result dicts flattened for CSV (``latency_ms.p99``, ``cpu_util.n1``); a list
    (``violations``) as one cell, its sentences joined by "; ".

    >>> flatten_result({"a": 1, "latency_ms": {"p99": 2.0}, "cpu_util": {"n1": 0.5}})
    {'a': 1, 'latency_ms.p99': 2.0, 'cpu_util.n1': 0.5}
    >>> flatten_result({"violations": ["node a needs 5 GB", "node b needs 6 GB"]})
    {'violations': 'node a needs 5 GB; node b needs 6 GB'}
    """
    flat: dict[str, Any] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten_result(value, prefix=f"{name}."))
        elif isinstance(value, list | tuple):
            flat[name] = "; ".join(str(v) for v in value)
        else:
            flat[name] = value
    return flat


def results_csv(rows: Sequence[Mapping[str, Any]], lineterminator: str = "\n") -> str:
    """Result rows as CSV: one line per row, the JSON keys flattened as columns
    (``latency_ms.p99``, ``cpu_util.n1``), in the contract's order, the columns of
    later rows (``gap_to_best``, a skipped row's ``message``) appended.

    Every row is read as a :class:`core.figures.Result` or :class:`~core.figures.Skipped`
    first, so a row off the contract fails here with its field named.
    """
    flat = [flatten_result(row_of(r).to_json()) for r in rows]
    columns = list(dict.fromkeys(k for row in flat for k in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator=lineterminator)
    writer.writeheader()
    writer.writerows(flat)
    return out.getvalue()

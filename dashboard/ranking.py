"""The ranking strip above the panels: which scheduler carries the most, on how much.

Capacity first: the maximum sustainable rate R* (and its headroom over the
offered rate) is what tells placements apart, since below saturation every
scheduler carries the offered load and shows the same throughput. Then the
latency estimate at the offered rate, nodes and slots used and inter-node
traffic. The best value of each figure across the selected schedulers is
marked. Pure builders over :func:`dashboard.compute.evaluate` (memoised, so
the strip costs nothing the panels have not already computed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dash import Input, Output, callback, html
from dash.exceptions import PreventUpdate

from core.registry import SCHEDULERS
from dashboard import ids
from dashboard.compute import Evaluation, canonical, evaluate

BASELINE = "even"  # Storm's default: what the narrative compares against


@dataclass(frozen=True)
class Standing:
    """One scheduler's headline figures (None where its placement has none)."""

    scheduler: str
    max_rate: float | None
    latency_ms: float | None
    nodes_used: int | None
    slots_used: int | None
    inter_node: float | None  # tuples/s between nodes at the offered rate (or R* if lower)


# figure -> (label, better is larger?)
FIGURES: Mapping[str, tuple[str, bool]] = {
    "max_rate": ("R* tuples/s", True),
    "latency_ms": ("latency est. ms", False),
    "nodes_used": ("nodes", False),
    "slots_used": ("slots", False),
    "inter_node": ("inter-node tuples/s", False),
}


def standing(ev: Evaluation) -> Standing:
    """The figures of one evaluation; a placement that failed has none."""
    a = ev.analysis if ev.schedule is not None and ev.schedule.ok else None
    if a is None:
        return Standing(ev.scheduler, None, None, None, None, None)
    return Standing(
        scheduler=ev.scheduler,
        max_rate=a.max_rate if math.isfinite(a.max_rate) else None,
        latency_ms=a.latency_estimate_ms,
        nodes_used=a.nodes_used,
        slots_used=a.slots_used,
        inter_node=a.traffic.get("inter_node"),
    )


def best(standings: Sequence[Standing]) -> dict[str, set[str]]:
    """Figure -> the schedulers holding its best value (ties share it).

    >>> rows = [Standing("a", 10.0, 2.0, 3, 3, 0.0), Standing("b", 10.0, 1.0, 2, 4, None)]
    >>> sorted(best(rows)["max_rate"]), sorted(best(rows)["latency_ms"])
    (['a', 'b'], ['b'])
    """
    out: dict[str, set[str]] = {}
    for name, (_, larger) in FIGURES.items():
        values = [(getattr(s, name), s.scheduler) for s in standings]
        values = [(v, s) for v, s in values if v is not None]
        if not values:
            out[name] = set()
            continue
        top = max(v for v, _ in values) if larger else min(v for v, _ in values)
        tol = 1e-9 * max(1.0, abs(top))
        out[name] = {s for v, s in values if abs(v - top) <= tol}
    return out


def leader(standings: Sequence[Standing]) -> Standing | None:
    """The scheduler with the largest R*; ties to fewer nodes, then lower latency."""
    ranked = [s for s in standings if s.max_rate is not None]
    if not ranked:
        return None
    return min(
        ranked, key=lambda s: (-s.max_rate, s.nodes_used or 0, s.latency_ms or 0.0, s.scheduler)
    )


def narrative(standings: Sequence[Standing], nodes_total: int, offered: float) -> str:
    """One sentence: who carries the most, against Storm's default, on how many nodes.

    >>> rows = [Standing("even", 100.0, 2.0, 5, 5, 9.0),
    ...         Standing("slotscope", 230.0, 1.0, 2, 2, 0.0)]
    >>> narrative(rows, 5, 50.0)
    "slotscope carries 2.3x even's rate on 2 of 5 nodes (4.6x headroom over the offered 50/s)"
    """
    top = leader(standings)
    if top is None:
        return "No scheduler could place the scenario."
    base = next((s for s in standings if s.scheduler == BASELINE), None)
    where = f"on {top.nodes_used} of {nodes_total} nodes"
    headroom = f"{top.max_rate / offered:.1f}x headroom over the offered {offered:,.0f}/s"
    if base is None or base.max_rate is None or base.scheduler == top.scheduler:
        return f"{top.scheduler} carries the most, {top.max_rate:,.0f}/s {where} ({headroom})"
    ratio = top.max_rate / base.max_rate if base.max_rate > 0 else math.inf
    return f"{top.scheduler} carries {ratio:.1f}x {base.scheduler}'s rate {where} ({headroom})"


def _cell(value: float | None, digits: int, marked: bool) -> html.Td:
    text = "—" if value is None else f"{value:,.{digits}f}"
    return html.Td(text, className="best" if marked else None)


def strip(standings: Sequence[Standing], nodes_total: int, offered: float) -> list:
    """The narrative line and a compact table, best value of each figure marked."""
    marks = best(standings)
    digits = {"max_rate": 0, "latency_ms": 2, "nodes_used": 0, "slots_used": 0, "inter_node": 0}
    head = html.Tr([html.Th("scheduler")] + [html.Th(label) for label, _ in FIGURES.values()])
    rows = [
        html.Tr(
            [html.Td(s.scheduler)]
            + [
                _cell(getattr(s, name), digits[name], s.scheduler in marks[name])
                for name in FIGURES
            ]
        )
        for s in sorted(standings, key=lambda s: -(s.max_rate or 0.0))
    ]
    return [
        html.P(narrative(standings, nodes_total, offered), className="ranking-line"),
        html.Table([html.Thead(head), html.Tbody(rows)], className="ranking-table"),
    ]


@callback(
    Output(ids.RANKING, "children"),
    Input(ids.SCENARIO_STORE, "data"),
    Input(ids.PARAMS_STORE, "data"),
    Input(ids.RATE, "value"),
    Input(ids.SCHEDULERS, "value"),
)
def show_ranking(scenario_data, params, rate, selected):
    """The strip for the scenario in force (evaluations shared with the panels)."""
    if not scenario_data or not rate or rate <= 0 or not selected:
        raise PreventUpdate
    text = canonical(scenario_data)
    evaluations = [
        evaluate(text, s, canonical((params or {}).get(s, {})), float(rate))
        for s in selected
        if s in SCHEDULERS
    ]
    nodes_total = len(scenario_data["cluster"]["nodes"])
    return strip([standing(ev) for ev in evaluations], nodes_total, float(rate))

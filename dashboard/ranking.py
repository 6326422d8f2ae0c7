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

from core.figures import FIGURES as REGISTRY
from core.figures import Figure
from core.registry import SCHEDULERS
from dashboard import ids
from dashboard.compute import Evaluation, canonical, evaluate
from dashboard.jobs import panel_ready

BASELINE = "even"  # Storm's default: what the narrative compares against


@dataclass(frozen=True)
class Standing:
    """One scheduler's headline figures from the analytic model (None where its placement
    has none); what each is: :data:`FIGURES`."""

    scheduler: str
    max_rate: float | None
    latency_ms: float | None  # the analytic estimate (latency_estimate_ms)
    nodes_used: int | None
    slots_used: int | None
    inter_node: float | None  # tuples/s between nodes at the offered rate (or R* if lower)
    rate: float | None = None  # the offered rate analysed
    saturated: bool | None = None
    bottleneck: str | None = None


INTER_NODE = REGISTRY["traffic.inter_node"].key.split(".")[1]  # its key in Analysis.traffic

# Standing field -> the figure it holds (label, unit, direction, format: core.figures)
FIGURES: Mapping[str, Figure] = {
    "max_rate": REGISTRY["max_rate"],
    "latency_ms": REGISTRY["latency_estimate_ms"],
    "nodes_used": REGISTRY["nodes_used"],
    "slots_used": REGISTRY["slots_used"],
    "inter_node": REGISTRY["traffic.inter_node"],
}


def standing(ev: Evaluation) -> Standing:
    """The figures of one evaluation; a placement that failed has none (nodes and slots
    come from the placement's metrics when its analysis failed)."""
    a = ev.analysis if ev.schedule is not None and ev.schedule.ok else None
    if a is None:
        m = ev.metrics if ev.schedule is not None and ev.schedule.ok else None
        used = (m.nodes_used, m.slots_used) if m is not None else (None, None)
        return Standing(ev.scheduler, None, None, *used, None)
    return Standing(
        scheduler=ev.scheduler,
        max_rate=a.max_rate if math.isfinite(a.max_rate) else None,
        latency_ms=a.latency_estimate_ms,
        nodes_used=a.nodes_used,
        slots_used=a.slots_used,
        inter_node=a.traffic.get(INTER_NODE),
        rate=a.rate,
        saturated=a.saturated,
        bottleneck=a.bottleneck,
    )


def best(standings: Sequence[Standing]) -> dict[str, set[str]]:
    """Figure -> the schedulers holding its best value (ties share it).

    >>> rows = [Standing("a", 10.0, 2.0, 3, 3, 0.0), Standing("b", 10.0, 1.0, 2, 4, None)]
    >>> sorted(best(rows)["max_rate"]), sorted(best(rows)["latency_ms"])
    (['a', 'b'], ['b'])
    """
    out: dict[str, set[str]] = {}
    for name, figure in FIGURES.items():
        top = figure.best(getattr(s, name) for s in standings)
        out[name] = {
            s.scheduler
            for s in standings
            if top is not None
            and getattr(s, name) is not None
            and figure.compare(top, getattr(s, name)) == ""
        }
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


def _cell(figure: Figure, value: float | None, marked: bool) -> html.Td:
    return html.Td(figure.format(value), className="best" if marked else None)


def strip(standings: Sequence[Standing], nodes_total: int, offered: float) -> list:
    """The narrative line and a compact table, best value of each figure marked."""
    marks = best(standings)
    head = html.Tr(
        [html.Th("scheduler")] + [html.Th(f.heading, title=f.description) for f in FIGURES.values()]
    )
    rows = [
        html.Tr(
            [html.Td(s.scheduler)]
            + [
                _cell(figure, getattr(s, name), s.scheduler in marks[name])
                for name, figure in FIGURES.items()
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
        if s in SCHEDULERS and panel_ready(text, s, params, float(rate))  # none in background
    ]
    nodes_total = len(scenario_data["cluster"]["nodes"])
    return strip([standing(ev) for ev in evaluations], nodes_total, float(rate))

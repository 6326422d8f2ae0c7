"""The ranking strip above the panels: which scheduler carries the most, on how much.

A fair comparison first: the ranking and its headline compare the placements
of the user's topology as given (the same parallelism) that can run. A
scheduler that changed the parallelism (``hetero``; ``slotscope`` with
``choose_parallelism``) or whose placement cannot run (a node needing more
memory than its RAM: :attr:`core.simulator.Analysis.violations`) is shown apart,
below the others, with the reason in words.

Capacity first: the maximum sustainable rate R* (and its headroom over the
offered rate) is what tells placements apart, since below saturation every
scheduler carries the offered load and shows the same throughput. Then the
latency estimate at the offered rate, nodes and slots used and inter-node
traffic. The best value of each figure across the selected schedulers is
marked. Pure builders over :func:`dashboard.compute.evaluate` (memoised, so
the strip costs nothing the panels have not already computed).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dash import ALL, Input, Output, State, callback, clientside_callback, dcc, html
from dash.exceptions import PreventUpdate

from core.figures import FIGURES as REGISTRY
from core.figures import Figure, ok_results
from core.registry import SCHEDULERS
from dashboard import ids
from dashboard.compute import Evaluation, canonical, evaluate, scenario_of
from dashboard.jobs import page_refusal, panel_ready
from dashboard.static_html import static

BASELINE = "even"  # Storm's default: what the narrative compares against
# The strip leaves out a scheduler whose placement still runs in the background
# (``dashboard.jobs.in_background``) and names it in WAITING_STORE; when that
# scheduler's panel receives its result, a client-side check bumps REFRESH_STORE,
# which redraws the strip with it. Both stores sit in the page (:func:`stores`).
WAITING_STORE = "ranking-waiting"
REFRESH_STORE = "ranking-refresh"


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
    violations: tuple[str, ...] = ()  # why the placement cannot run; () when it can
    changed: str | None = None  # how it changed the parallelism asked for, in words
    p99_ms: float | None = None  # the simulated p99 (trace), when a simulation has run
    # why an unplaced schedule failed, its message's first sentence ("49 of 50 topologies
    # placed; not placed: ..."); "" when it says none
    failure: str = ""

    @property
    def runnable(self) -> bool:
        """Placed, and no node needs more memory than it has."""
        return self.max_rate is not None and not self.violations

    @property
    def comparable(self) -> bool:
        """Ranked with the others: the topology as given, placed so that it can run."""
        return self.runnable and self.changed is None

    def apart(self) -> str:
        """Why it is shown apart, in words ("" when it is ranked).

        >>> Standing("x", 1.0, 1.0, 1, 1, 0.0, violations=("node a needs 5 GB",
        ...     "node b needs 6 GB")).apart()
        'x cannot run: node a needs 5 GB (and 1 more node)'
        >>> Standing("x", None, None, None, None, None).apart()
        'x could not place the topology'
        >>> Standing("x", None, None, None, None, None, failure="49 of 50 topologies placed; "
        ...     "not placed: T49 (not enough resources)").apart()
        'x: 49 of 50 topologies placed; not placed: T49 (not enough resources)'
        """
        if self.max_rate is None:
            if self.failure:
                return f"{self.scheduler}: {self.failure}"
            return f"{self.scheduler} could not place the topology"
        reasons = [self.changed] if self.changed else []
        if self.violations:
            more = len(self.violations) - 1
            tail = f" (and {more} more node{'s' if more > 1 else ''})" if more else ""
            reasons.append(f"cannot run: {self.violations[0]}{tail}")
        if not reasons:
            return ""
        if self.changed:
            return " and ".join(reasons)
        return f"{self.scheduler} {reasons[0]}"


INTER_NODE = REGISTRY["traffic.inter_node"].key.split(".")[1]  # its key in Analysis.traffic

# Standing field -> the figure it holds (label, unit, direction, format: core.figures)
FIGURES: Mapping[str, Figure] = {
    "max_rate": REGISTRY["max_rate"],
    "latency_ms": REGISTRY["latency_estimate_ms"],
    "nodes_used": REGISTRY["nodes_used"],
    "slots_used": REGISTRY["slots_used"],
    "inter_node": REGISTRY["traffic.inter_node"],
}
SIMULATED_P99 = REGISTRY["latency_ms.p99"]  # the panels' p99, by the same name


def simulated_p99(
    results: Mapping[str, Any] | None, scenario_text: str, scheduler: str, rate: float
) -> float | None:
    """Mean over replicas of the simulated p99 (ms) for this scenario, scheduler and rate.

    >>> from core.figures import Latency, Result, Traffic
    >>> def row(p99):
    ...     lat, no = Latency(1.0, 1.0, p99, 1.0, p99), Traffic(0.0, 0.0, 0.0)
    ...     return Result("lf", 10.0, 0, 1.0, 1.0, 5.0, False, "", lat, 1, 1, {}, {}, no, no, 0.0)
    >>> store = {"scenario": "s", "results": [row(2.0).to_json(), row(4.0).to_json()]}
    >>> simulated_p99(store, "s", "lf", 10.0), simulated_p99(store, "other", "lf", 10.0)
    (3.0, None)
    """
    if not results or results.get("scenario") != scenario_text:
        return None
    values = [
        r.latency_ms.p99
        for r in ok_results(results.get("results", []))
        if r.scheduler == scheduler
        and abs(r.rate - rate) <= 1e-9 * max(1.0, rate)
        and r.latency_ms.p99 is not None
    ]
    return sum(values) / len(values) if values else None


def parallelism_change(
    scheduler: str, asked: Mapping[str, int], used: Mapping[str, int]
) -> str | None:
    """What a scheduler did to the parallelism asked for, in words; None when it kept it.

    >>> parallelism_change("hetero", {"a": 5, "b": 20}, {"a": 5, "b": 969, "__acker": 3})
    'hetero raised the executors from 25 to 974'
    >>> parallelism_change("s", {"a": 2, "b": 4}, {"a": 3, "b": 3})
    's changed the parallelism (a x2 -> x3, b x4 -> x3), 6 executors as asked'
    >>> parallelism_change("even", {"a": 2}, {"a": 2}) is None
    True
    """
    changed = [c for c in asked if c in used and used[c] != asked[c]]
    if not changed:
        return None
    before, after = sum(asked.values()), sum(used.get(c, asked[c]) for c in asked)
    if after != before:
        verb = "raised" if after > before else "lowered"
        return f"{scheduler} {verb} the executors from {before:,} to {after:,}"
    moves = ", ".join(f"{c} x{asked[c]} -> x{used[c]}" for c in changed[:3])
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    return f"{scheduler} changed the parallelism ({moves}{more}), {before:,} executors as asked"


MAX_FAILURE_CHARS = 200  # of a failed placement's reason in the ranking


def first_sentence(message: str, limit: int = MAX_FAILURE_CHARS) -> str:
    """A message's first sentence (up to ". "), at most ``limit`` characters.

    >>> first_sentence("49 of 50 placed; not placed: T49. T49 did not fit: no slot.")
    '49 of 50 placed; not placed: T49'
    >>> first_sentence("x" * 300, limit=10)
    'xxxxxxxxx…'
    """
    head = message.strip().split(". ", 1)[0].rstrip(".")
    return head if len(head) <= limit else head[: limit - 1] + "…"


def standing(
    ev: Evaluation, asked: Mapping[str, int] | None = None, p99_ms: float | None = None
) -> Standing:
    """The figures of one evaluation; a placement that failed has none (nodes and slots
    come from the placement's metrics when its analysis failed).

    ``asked`` is the parallelism of the user's topology (component -> executors):
    with it, a schedule that changed it says how (:func:`parallelism_change`);
    ``p99_ms`` is the simulated p99 when a simulation of this placement has run.
    """
    ok = ev.schedule is not None and ev.schedule.ok
    changed = (
        parallelism_change(ev.scheduler, asked, ev.schedule.parallelism)
        if asked is not None and ev.schedule is not None
        else None
    )
    a = ev.analysis if ok else None
    if a is None:
        m = ev.metrics if ok else None
        used = (m.nodes_used, m.slots_used) if m is not None else (None, None)
        failure = "" if ok or ev.schedule is None else first_sentence(ev.schedule.message)
        return Standing(ev.scheduler, None, None, *used, None, changed=changed, failure=failure)
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
        violations=tuple(a.violations),
        changed=changed,
        p99_ms=p99_ms,
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


def ranked(standings: Sequence[Standing]) -> list[Standing]:
    """Standings in the strip's order: the comparable ones by R* (largest first), then
    those shown apart (changed parallelism, cannot run, not placed), by R* too.

    >>> rows = [Standing("h", 900.0, 1.0, 5, 5, 0.0, changed="h raised the executors"),
    ...         Standing("even", 100.0, 2.0, 5, 5, 9.0), Standing("lf", 150.0, 3.0, 5, 6, 0.0)]
    >>> [s.scheduler for s in ranked(rows)]
    ['lf', 'even', 'h']
    """
    return sorted(standings, key=lambda s: (not s.comparable, -(s.max_rate or 0.0)))


def leader(standings: Sequence[Standing]) -> Standing | None:
    """Among the comparable placements (:attr:`Standing.comparable`), the one with the
    largest R*; ties to fewer nodes, then lower latency."""
    ranked = [s for s in standings if s.comparable]
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
        if any(s.max_rate is not None for s in standings):
            return "No scheduler placed the topology as given so that it can run."
        return "No scheduler could place the scenario."
    base = next((s for s in standings if s.scheduler == BASELINE and s.comparable), None)
    where = f"on {top.nodes_used} of {nodes_total} nodes"
    headroom = f"{top.max_rate / offered:.1f}x headroom over the offered {offered:,.0f}/s"
    if base is None or base.max_rate is None or base.scheduler == top.scheduler:
        return f"{top.scheduler} carries the most, {top.max_rate:,.0f}/s {where} ({headroom})"
    ratio = top.max_rate / base.max_rate if base.max_rate > 0 else math.inf
    return f"{top.scheduler} carries {ratio:.1f}x {base.scheduler}'s rate {where} ({headroom})"


def _cell(figure: Figure, value: float | None, marked: bool) -> html.Td:
    return html.Td(figure.format(value), className="best" if marked else None)


def apart_lines(standings: Sequence[Standing]) -> list[str]:
    """One sentence per scheduler shown apart, in the strip's order.

    >>> apart_lines([Standing("even", 100.0, 2.0, 5, 5, 9.0),
    ...              Standing("h", 9.0, 1.0, 5, 5, 0.0, changed="h raised the executors")])
    ['h raised the executors']
    """
    return [s.apart() for s in ranked(standings) if not s.comparable]


APART_STYLE = {"color": "#6b7280"}  # rows shown apart: greyed, below the ranked ones
REASON_STYLE = {"textAlign": "left", "color": "#991b1b", "fontSize": "0.8rem"}


def _columns(standings: Sequence[Standing]) -> dict[str, Figure]:
    """The strip's columns: the ranking figures, with the simulated p99 (trace) after the
    latency estimate when a simulation has run, so a panel's p99 is found under its name."""
    if not any(s.p99_ms is not None for s in standings):
        return dict(FIGURES)
    out: dict[str, Figure] = {}
    for name, figure in FIGURES.items():
        out[name] = figure
        if name == "latency_ms":
            out["p99_ms"] = SIMULATED_P99
    return out


def waiting_line(waiting: Sequence[str]) -> str:
    """Which selected schedulers the strip does not show yet, in words ("" when none).

    >>> waiting_line(["optimal"])
    'Still being placed in the background: optimal (joins the ranking when its panel shows it)'
    """
    if not waiting:
        return ""
    names = ", ".join(waiting)
    return (
        f"Still being placed in the background: {names} (joins the ranking when its panel shows it)"
    )


def strip(
    standings: Sequence[Standing],
    nodes_total: int,
    offered: float,
    waiting: Sequence[str] = (),
) -> list:
    """The narrative line, why a scheduler is shown apart, and a compact table: the
    comparable placements first (best value of each figure marked among them), then
    those shown apart, each followed by its reason; last, the schedulers ``waiting`` for
    their background placement."""
    columns = _columns(standings)
    fair = [s for s in standings if s.comparable]
    marks = {name: set() for name in columns} | best(fair)
    if "p99_ms" in columns:
        top = SIMULATED_P99.best(s.p99_ms for s in fair)
        marks["p99_ms"] = {s.scheduler for s in fair if top is not None and s.p99_ms == top}
    head = html.Tr(
        [html.Th("scheduler")] + [html.Th(f.heading, title=f.description) for f in columns.values()]
    )
    rows = []
    for s in ranked(standings):
        cells = [
            _cell(figure, getattr(s, name), s.comparable and s.scheduler in marks[name])
            for name, figure in columns.items()
        ]
        if s.comparable:
            rows.append(html.Tr([html.Td(s.scheduler), *cells]))
            continue
        rows.append(html.Tr([html.Td(s.scheduler), *cells], className="apart", style=APART_STYLE))
        rows.append(
            html.Tr(
                html.Td(s.apart(), colSpan=len(columns) + 1, style=REASON_STYLE),
                className="apart-reason",
            )
        )
    apart = apart_lines(standings)
    note = (
        [
            html.P(
                "Shown apart (not compared with the topology as given): " + "; ".join(apart),
                className="ranking-apart",
                style=REASON_STYLE,
            )
        ]
        if apart
        else []
    )
    pending = [html.P(waiting_line(waiting), className="ranking-waiting muted")] if waiting else []
    return [
        html.P(
            narrative(standings, nodes_total, offered)
            if standings or not waiting
            else "No placement is ready yet.",
            className="ranking-line",
        ),
        *note,
        html.Table([html.Thead(head), html.Tbody(rows)], className="ranking-table"),
        *pending,
    ]


def stores(waiting: Sequence[str] = ()) -> html.Div:
    """The strip's two stores (see :data:`WAITING_STORE`; ``waiting``: the schedulers the
    strip served waits for), for the page's layout."""
    return html.Div(
        [dcc.Store(id=WAITING_STORE, data=list(waiting)), dcc.Store(id=REFRESH_STORE, data=0)],
        hidden=True,
    )


def first_strip(
    scenario_data: Mapping[str, Any],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
    selected: Sequence[str],
) -> list[html.Div]:
    """The strip and its stores (two siblings) as the page is served
    (:func:`ranking_outputs`): drawn in the layout, not by a callback after the first paint
    (each callback answered costs the page a pass of dash-renderer over every component)."""
    strip, waiting = None, []
    if not page_refusal(canonical(scenario_data)):  # a store sent by hand: never evaluated
        with contextlib.suppress(PreventUpdate):  # no selection: an empty strip
            strip, waiting = ranking_outputs(scenario_data, params, rate, selected, None)
    return [html.Div(strip, id=ids.RANKING, className="ranking"), stores(waiting)]


def ranking_outputs(
    scenario_data: Mapping[str, Any] | None,
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: Any,
    selected: Sequence[str] | None,
    results: Any,
) -> tuple[Any, list[str]]:
    """:func:`ranking_strip` as the page draws it: the strip as one component
    (:mod:`dashboard.static_html`), and the schedulers it waits for. Drawn with the panels
    (:func:`dashboard.panels.fill_panels`, one round trip for both) and again when the
    selection changes or a waited-for panel gets its result (:data:`REFRESH_STORE`)."""
    children, waiting = ranking_strip(scenario_data, params, rate, selected, results)
    return static(children), waiting


def ranking_strip(
    scenario_data: Mapping[str, Any] | None,
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: Any,
    selected: Sequence[str] | None,
    results: Any,
) -> tuple[list[Any], list[str]]:
    """The strip for the scenario in force (evaluations shared with the panels), with the
    simulated p99 of each scheduler once a simulation of it has run, and the schedulers
    still placed in the background (named as waiting); PreventUpdate without a scenario,
    a valid rate or a selection."""
    if not scenario_data or not rate or rate <= 0 or not selected:
        raise PreventUpdate
    text = canonical(scenario_data)
    asked = {c.id: c.parallelism for c in scenario_of(text).topology.components}
    chosen = [s for s in selected if s in SCHEDULERS]
    ready = [s for s in chosen if panel_ready(text, s, params, float(rate))]
    waiting = [s for s in chosen if s not in ready]
    standings = [
        standing(
            evaluate(text, s, canonical((params or {}).get(s, {})), float(rate)),
            asked,
            simulated_p99(results, text, s, float(rate)),
        )
        for s in ready  # a background placement is never run in a request thread
    ]
    nodes_total = len(scenario_data["cluster"]["nodes"])
    return strip(standings, nodes_total, float(rate), waiting), waiting


@callback(
    Output(ids.RANKING, "children"),
    Output(WAITING_STORE, "data"),
    Input(ids.SCHEDULERS, "value"),
    Input(REFRESH_STORE, "data"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
    State(ids.RATE, "value"),
    State(ids.RESULTS_STORE, "data"),
    prevent_initial_call=True,
)
def show_ranking(selected, _refresh, scenario_data, params, rate, results):
    """The strip when the selection changes, and when a panel the strip waited for gets
    its result (the first paint's is in the layout: :func:`first_strip`); an edit, a new
    rate or new simulation results redraw it with the panels
    (:func:`dashboard.panels.fill_panels`)."""
    return ranking_outputs(scenario_data, params, rate, selected, results)


# A panel got content (its header changed, and is not the empty header of a pending panel)
# while the strip waits for its scheduler: draw the strip again. In the browser, so panels
# the strip does not wait for cost nothing.
clientside_callback(
    """
    function (_stats, waiting) {
        const nothing = window.dash_clientside.no_update;
        const ctx = window.dash_clientside.callback_context;
        if (!waiting || !waiting.length || !ctx.triggered) { return nothing; }
        for (const t of ctx.triggered) {
            const prop = t.prop_id || "";
            const cut = prop.lastIndexOf(".");
            if (cut <= 0 || prop[0] !== "{") { continue; }
            const id = JSON.parse(prop.slice(0, cut));
            // a pending panel's header is empty ([]): it has no result yet
            const pending = Array.isArray(t.value) && t.value.length === 0;
            if (waiting.includes(id.sched) && !pending) { return Date.now(); }
        }
        return nothing;
    }
    """,
    Output(REFRESH_STORE, "data"),
    Input({"type": ids.STATS_TYPE, "sched": ALL}, "children"),
    State(WAITING_STORE, "data"),
    prevent_initial_call=True,
)

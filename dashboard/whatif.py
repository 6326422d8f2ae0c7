"""What if a node or a slot fails: pick it (or click a node in any placement map), see
every scheduler cope.

For each selected scheduler: whether it keeps surviving executors in place
(Storm's EvenScheduler does; the others re-place everything), how many
executors moved, and R*, the latency estimate and nodes used before and
after. *Undo* brings the healthy cluster back. The panels keep showing the
healthy placements; this table is the what-if.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from core.model import ScenarioError
from core.registry import SCHEDULERS, SchedulerError
from core.simulator import analyze
from core.whatif import Failure, failover
from dashboard import ids
from dashboard.compute import canonical, evaluate, scenario_of
from dashboard.elements import slot_element_id
from dashboard.jobs import in_background, page_refusal, panel_key, placements
from dashboard.static_html import static

# A what-if row placed in the background is waited for this long, then shown pending and
# filled in by the table's poll (WHATIF_POLL, every POLL_MS, each waiting up to POLL_WAIT_S):
# the other rows never wait for a search (2 s before, and the row said to pick again).
EDIT_WAIT_S = 0.3
WHATIF_POLL = "whatif-poll"
POLL_MS = 1000
POLL_WAIT_S = 0.8
RISE = 0.01  # an R* that grows by more than this fraction after a failure is explained
# how a scheduler re-places, where that explains a rise better than the general sentence
# (docs/schedulers.md, its section)
REPLACES = {
    "aniello-offline": "it groups the executors into workers by the topology's shape alone and "
    "deals the workers round robin over the nodes with the most free slots, blind to their "
    "speed, so one node fewer changes which worker lands on which node",
}

NODE_PREFIX = "node:"  # a machine's element id in a placement map (dashboard.elements)
SLOT_PREFIX = "slot:"  # a slot's element id there, also the value of a slot's what-if choice


def controls(options: Sequence[Mapping[str, Any]] = ()) -> html.Div:
    """The picker (``options``: :func:`failure_options` of the scenario served; a new
    scenario's come with its panels, ``dashboard.panels.fill_panels``) and the table."""
    return html.Div(
        className="whatif",
        children=[
            html.Span("What if", className="compare-label"),
            dcc.Dropdown(
                id=ids.FAIL_NODE,
                options=list(options),
                value=None,
                placeholder="node or slot: pick or click",
            ),
            html.Span("fails?", className="muted"),
            html.Button("Undo", id=ids.FAIL_UNDO, className="btn"),
            html.Div(  # as served (no node picked): no callback after the first paint
                html.Span(HEALTHY, className="muted"),
                id=ids.WHATIF_RESULT,
                className="compare-result",
            ),
            dcc.Interval(id=WHATIF_POLL, interval=POLL_MS, disabled=True),
        ],
    )


def node_of_element(element_id: str | None) -> str | None:
    """The node of a clicked machine in a placement map (a slot click drills down instead).

    >>> node_of_element("node:n3"), node_of_element("slot:n3:2"), node_of_element(None)
    ('n3', None, None)
    """
    if element_id and element_id.startswith(NODE_PREFIX):
        return element_id[len(NODE_PREFIX) :]
    return None


def failure_of_value(value: str) -> Failure:
    """The failure a what-if choice names: a node id, or a slot's element id.

    >>> str(failure_of_value("n3")), str(failure_of_value("slot:n3:2"))
    ('n3', 'n3 slot 2')
    """
    if value.startswith(SLOT_PREFIX):
        node, slot = value[len(SLOT_PREFIX) :].rsplit(":", 1)
        return Failure(node, int(slot))
    return Failure(value)


def failure_options(nodes: Sequence[dict]) -> list[dict]:
    """Every node, then every slot of each node, as what-if choices."""
    options = [{"label": n["id"], "value": n["id"]} for n in nodes]
    options += [
        {"label": f"{n['id']} slot {s}", "value": slot_element_id(n["id"], s)}
        for n in nodes
        for s in range(n["slots"])
    ]
    return options


@lru_cache(maxsize=256)
def whatif_row(text: str, value: str, scheduler: str, params_text: str, rate: float) -> dict:
    """Before and after figures of one scheduler when the node or slot ``value`` names
    fails (memoised)."""
    before = evaluate(text, scheduler, params_text, rate)
    row = {"scheduler": scheduler, "error": ""}
    if before.schedule is None or before.analysis is None:
        return row | {"error": before.error or "no placement before the failure"}
    try:
        out = failover(
            scenario_of(text),
            failure_of_value(value),
            scheduler,
            json.loads(params_text),
            before.schedule,
            rate,
        )
    except (ScenarioError, SchedulerError) as err:
        return row | {"error": str(err)}
    after = analyze(out.scenario, out.schedule, rate=rate) if out.schedule.ok else None
    a = before.analysis
    where_after = out.schedule.placement() if after else {}
    return row | {
        "keeps": out.keeps_survivors,
        "moved": len(out.changes.moved),
        "max_rate": (_finite(a.max_rate), _finite(after.max_rate) if after else None),
        "latency_ms": (a.latency_estimate_ms, after.latency_estimate_ms if after else None),
        "nodes": (a.nodes_used, after.nodes_used if after else None),
        "bottleneck": (
            located(a.bottleneck, before.schedule.placement()),
            located(after.bottleneck, where_after) if after else None,
        ),
        "error": "" if out.schedule.ok else out.schedule.message,
    }


def located(bottleneck: str, placement: Mapping[str, tuple[str, int]]) -> str:
    """The analysis' bottleneck with the node of a binding executor thread added.

    >>> located("executor split#3 thread", {"split#3": ("i5-m460", 0)})
    'executor split#3 thread on i5-m460'
    >>> located("node i7-2c CPU", {})
    "node i7-2c's CPU"
    """
    parts = bottleneck.split()
    if len(parts) == 3 and parts[0] == "executor" and parts[1] in placement:
        return f"{bottleneck} on {placement[parts[1]][0]}"
    if len(parts) == 3 and parts[0] == "node":
        return f"node {parts[1]}'s {parts[2]}"
    return bottleneck


def why_rise(row: Mapping[str, Any], failure: Failure) -> str:
    """Why a scheduler's R* grows when a node or slot fails, in words ("" when it does not).

    A scheduler that re-places every executor from scratch may find, on fewer nodes, a
    placement that carries more than its own healthy one: the healthy placement was bound
    by a part of the cluster (a slow or small node) that the new one no longer loads. Any
    placement on the survivors is one on the whole cluster too, so the healthy placement
    was not the best the cluster allows.

    >>> row = {"scheduler": "aniello-offline", "keeps": False, "max_rate": (100.0, 108.0),
    ...        "bottleneck": ("node i7-2c's CPU", "executor split#3 thread on i5-m460")}
    >>> print(why_rise(row | {"scheduler": "x"}, Failure("i7-8c")))
    ... # doctest: +NORMALIZE_WHITESPACE
    x's R* rises 8% when i7-8c fails: it re-places every executor from scratch; its healthy
    placement was bound by node i7-2c's CPU, which the new placement loads less; now executor
    split#3 thread on i5-m460 binds, at a higher rate. Its healthy placement was not the
    best this cluster allows.
    """
    before, after = row.get("max_rate", (None, None))
    if before is None or after is None or before <= 0 or after <= before * (1 + RISE):
        return ""
    was, now = row.get("bottleneck", (None, None))
    how = REPLACES.get(row["scheduler"]) or (
        "it keeps the surviving executors and deals the lost ones anew"
        if row.get("keeps")
        else "it re-places every executor from scratch"
    )
    failed = (
        failure.slot is None
        and was
        and (was.startswith(f"node {failure.node}'s") or was.endswith(f" on {failure.node}"))
    )
    then = "on the node that failed" if failed else "which the new placement loads less"
    bound = (
        f"; its healthy placement was bound by {was}, {then}; now {now} binds, at a higher rate"
        if was and now and was != now
        else f"; {was} binds before and after, and the new placement puts less load on it"
        if was
        else "; the new placement loads its bottleneck less"
    )
    return (
        f"{row['scheduler']}'s R* rises {(after - before) / before:.0%} when {failure} fails: "
        f"{how}{bound}. Its healthy placement was not the best this cluster allows."
    )


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _pair(values: tuple, digits: int) -> str:
    b, a = values
    if b is None or a is None:
        return "—" if b is None else f"{b:,.{digits}f} → —"
    change = f" ({(a - b) / b:+.0%})" if b else ""
    return f"{b:,.{digits}f} → {a:,.{digits}f}{change}"


def table(rows: Sequence[dict], failure: Failure) -> list:
    """The what-if table: one row per scheduler."""
    head = html.Tr(
        [
            html.Th(h)
            for h in ("scheduler", "survivors", "moved", "R* tuples/s", "latency est. ms", "nodes")
        ]
    )
    body = []
    for r in rows:
        if "moved" not in r:
            pending = "pending muted" if r.get("pending") else None
            cells = [html.Td(r["scheduler"]), html.Td(r["error"], colSpan=5, className=pending)]
            body.append(html.Tr(cells))
            continue
        body.append(
            html.Tr(
                [
                    html.Td(r["scheduler"]),
                    html.Td("kept in place" if r["keeps"] else "all re-placed"),
                    html.Td(str(r["moved"])),
                    html.Td(_pair(r["max_rate"], 0)),
                    html.Td(_pair(r["latency_ms"], 2)),
                    html.Td(_pair(r["nodes"], 0), title=r["error"]),
                ]
            )
        )
    line = html.P(
        f"{failure} fails: each scheduler re-places as it would in Storm "
        "(EvenScheduler keeps executors whose worker is alive; the others re-place all)"
    )
    reasons = [html.P(why, className="whatif-why") for r in rows if (why := why_rise(r, failure))]
    return [
        line,
        html.Table([html.Thead(head), html.Tbody(body)], className="compare-table"),
        *reasons,
    ]


@callback(
    Output(ids.FAIL_NODE, "value"),
    Input({"type": ids.MAP_TYPE, "sched": ALL}, "tapNodeData"),
    Input(ids.FAIL_UNDO, "n_clicks"),
    prevent_initial_call=True,
)
def pick_node(taps, _undo):
    """A click on a machine in any map picks it; Undo clears it."""
    if ctx.triggered_id == ids.FAIL_UNDO:
        return None
    tapped = ctx.triggered[0]["value"] if ctx.triggered else None
    node = node_of_element((tapped or {}).get("id"))
    return node if node is not None else no_update


@callback(
    Output(ids.WHATIF_RESULT, "children"),
    Output(WHATIF_POLL, "disabled"),
    Input(ids.FAIL_NODE, "value"),
    Input(ids.SCHEDULERS, "value"),
    Input(WHATIF_POLL, "n_intervals"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
    State(ids.RATE, "value"),
    prevent_initial_call=True,
)
def show_whatif(node, selected, _ticks, scenario_data, params, rate):
    """The what-if table (one component: :mod:`dashboard.static_html`); a row placed in
    the background and not done yet says so, and the table's poll fills it in. A new
    scenario, parameters or rate redraw it with the panels (``dashboard.panels.fill_panels``,
    one answer: each callback answered costs the page a pass of dash-renderer)."""
    if not scenario_data or not rate or rate <= 0:
        raise PreventUpdate
    polled = ctx.triggered_id == WHATIF_POLL
    return whatif_outputs(
        node, scenario_data, params, rate, selected, POLL_WAIT_S if polled else EDIT_WAIT_S, polled
    )


HEALTHY = "Healthy cluster."


def whatif_outputs(
    node: str | None,
    scenario_data: Mapping[str, Any],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
    selected: Sequence[str] | None,
    wait_s: float,
    polled: bool = False,
) -> tuple[Any, Any]:
    """The what-if table of ``node`` failing in the scenario (rows placed in the background
    waited for ``wait_s`` seconds) and whether its poll stops; a poll (``polled``) with
    rows still pending changes nothing."""
    choices = {o["value"] for o in failure_options(scenario_data["cluster"]["nodes"])}
    if not node or node not in choices:
        return html.Span(HEALTHY, className="muted"), True
    text = canonical(scenario_data)
    chosen = [s for s in selected or [] if s in SCHEDULERS]
    rows = [row_of(text, node, s, params, float(rate), wait_s) for s in chosen]
    pending = any(r.get("pending") for r in rows)
    if polled and pending:
        return no_update, False
    return static(table(rows, failure_of_value(node))), not pending


def row_of(
    text: str, node: str, scheduler: str, params, rate: float, wait_s: float = EDIT_WAIT_S
) -> dict:
    """:func:`whatif_row`, run in the background pool when the scheduler's placements are
    (``dashboard.jobs.in_background``): waited for ``wait_s`` seconds, else the row says
    so (``pending``: the table's poll asks again)."""
    refusal = page_refusal(text)
    if refusal:
        return {"scheduler": scheduler, "error": refusal}
    params_text = panel_key(text, scheduler, params, rate)[2]
    if not in_background(scheduler, text):
        return whatif_row(text, node, scheduler, params_text, rate)
    key = ("whatif", text, node, scheduler, params_text, rate)
    status = placements.wait(
        key, wait_s, lambda: whatif_row(text, node, scheduler, params_text, rate)
    )
    if status.ready:
        return whatif_row(text, node, scheduler, params_text, rate)
    if status.message:  # refused: asking again would not help
        return {"scheduler": scheduler, "error": status.message}
    why = f"being placed in the background ({status.elapsed_s:.0f} s); shown here when done"
    return {"scheduler": scheduler, "error": why, "pending": True}

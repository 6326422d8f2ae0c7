"""One panel per selected scheduler: topology DAG, placement map, headline figures.

Panels are drawn, filled, with the page and when the selection changes;
after that one callback (:func:`fill_panels`) refreshes every panel and the
ranking strip whenever the scenario in force, the parameters or the offered
rate change: one answer, so the browser redraws the page once per edit (each
callback answered costs it a pass over every component of the page). A slow
scheduler never holds the others back: its panel shows its progress and polls
for it on its own (:func:`poll_panel`). Content comes from the memoised
:func:`dashboard.compute.evaluate` (in process, no Spark). All panels share
one geometry and one colour scheme.

Searches (``optimal``, ``slotscope``) and every placement of a large scenario
(see :func:`dashboard.jobs.in_background`) run in
the background pool (:data:`dashboard.jobs.placements`), never in a request
thread: a panel waits a moment for them, then shows their progress and polls
until they are done. CP-SAT's time limit from the page is at most
``dashboard.jobs.WEB_TIME_LIMIT_S``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import dash_cytoscape as cyto
from dash import ALL, MATCH, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate
from plotly.utils import PlotlyJSONEncoder

from core.model import ScenarioError
from core.registry import SCHEDULERS
from dashboard import (
    compare,
    export,
    ids,
    ranking,
    registry,
    scenario_bar,
    set_page,
    view_state,
    whatif,
)
from dashboard.colors import TRAFFIC_COLORS
from dashboard.compute import canonical, evaluate, scenario_of
from dashboard.cyto_styles import DAG_MIN_ZOOM, DAG_STYLESHEET, MAP_MIN_ZOOM, map_stylesheet
from dashboard.jobs import (
    QUEUED,
    REFUSED,
    WEB_TIME_LIMIT_S,
    PlacementStatus,
    in_background,
    page_refusal,
    panel_key,
    placements,
)
from dashboard.map_styles import first_pair, panel_stylesheet
from dashboard.panel_content import (
    PanelContent,
    panel_content,
    scenario_facts,
    simulated_p99,
    stats,
)
from dashboard.static_html import static

# A page load waits this long in all for its background placements, then shows them
# pending (they fill by polling): searches run niced in processes of their own
# (dashboard.compute.SEARCH_NICE), so waiting longer only delays the first paint under load
# (python -m bench load: page-load p95 11.6-14.7 s at 4 s, 3.7 s at 0.25 s).
SERVE_WAIT_S = 0.5
EDIT_WAIT_S = 2.0  # panels drawn anew (a new selection) wait this long before showing progress
PANEL_POLL_MS = 1000  # a pending panel asks for its placement this often
PANEL_POLL_TYPE = "panel-poll"  # the dcc.Interval of a pending panel
# The graphs' layouts carry a digest of their elements (``PanelContent.layouts``), so new
# elements come with a new layout and cytoscape runs it once. Its own refresh on elements
# added or removed (``autoRefreshLayout``, on by default) ran the same layout a second time
# 100 ms later, dagre included, in every panel of every preset switch and edit: off.
REFRESH_LAYOUT = False


def poll_id(scheduler: str) -> dict[str, str]:
    return {"type": PANEL_POLL_TYPE, "sched": scheduler}


def settle(
    text: str,
    chosen: Sequence[str],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
    wait_s: float,
) -> dict[str, PlacementStatus]:
    """The status of each chosen scheduler's background placement (waiting ``wait_s`` in
    all for them); schedulers placed in the request thread are absent."""
    deadline = time.monotonic() + wait_s
    out = {}
    for s in chosen:
        if in_background(s, text):
            left = max(0.0, deadline - time.monotonic())
            out[s] = placements.wait(panel_key(text, s, params, rate), left)
    return out


def progress_note(scheduler: str, status: PlacementStatus) -> list[Any]:
    """What a pending panel says: queued, searching for how long, or why it was refused.

    >>> from dashboard.jobs import RUNNING
    >>> progress_note("optimal", PlacementStatus(RUNNING, 12.3))[0].children
    'Placing in the background: 12 s (CP-SAT stops at 60 s)…'
    """
    if status.state == REFUSED:
        text, kind = f"Not placed: {status.message}.", "alert-error"
    elif status.ready:  # placed, not drawn in the page served (see ``frames``)
        text, kind = "Placed in the background: drawing it…", "alert-warn"
    elif status.state == QUEUED:
        text, kind = (
            f"Waiting for a background thread ({status.ahead} placements ahead)…",
            "alert-warn",
        )
    else:
        limit = f" (CP-SAT stops at {WEB_TIME_LIMIT_S:.0f} s)" if scheduler == "optimal" else ""
        text, kind = (
            f"Placing in the background: {status.elapsed_s:.0f} s{limit}…",
            "alert-warn",
        )
    return [html.Div(text, className=f"alert {kind} pending")]


def pending_content(scheduler: str, status: PlacementStatus) -> PanelContent:
    return PanelContent([], progress_note(scheduler, status), [], [], [])


EXPORT_FORMATS = export.EXPORT_ITEMS  # (graph, format, label) of a panel's export menu


def frame(
    scheduler: str,
    color: str,
    content: PanelContent | None = None,
    stylesheet: list[dict[str, Any]] | None = None,
    pending: bool = False,
) -> html.Div:
    """A scheduler's panel: title, export menu, the two graphs, and ``content`` if given;
    the map is drawn with ``stylesheet`` (:func:`dashboard.map_styles.panel_stylesheet`);
    ``pending``: its placement runs in the background, and the panel polls for it."""
    spec = SCHEDULERS[scheduler]
    content = content or PanelContent([], [], [], [], [])
    dag_layout, map_layout = content.layouts()
    # The menu is display-only HTML (one component, not seven): assets/menus.js turns a
    # click on an item into the export store's value (dashboard.export.EXPORT_CHOICE).
    export = static(
        html.Details(
            className="export-menu",
            children=[
                html.Summary("Export"),
                html.Div(
                    [
                        html.Button(
                            label,
                            className="menu-item",
                            **{"data-sched": scheduler, "data-graph": graph, "data-fmt": fmt},
                        )
                        for graph, fmt, label in EXPORT_FORMATS
                    ],
                    className="menu",
                ),
            ],
        ),
        "static-html export-static",
    )
    head = html.Div(
        className="panel-head",
        children=[
            html.Div(
                className="panel-title",
                children=[
                    static(  # one component: each costs dash-renderer work on every update
                        [
                            html.Span(className="sched-chip", style={"background": color}),
                            html.H3(scheduler),
                            html.Span(
                                spec.name, className="muted panel-subtitle", title=spec.paper
                            ),
                        ],
                        "static-html panel-name",
                    ),
                    export,
                ],
            ),
            html.Div(static(content.stats), id=ids.stats_id(scheduler), className="panel-stats"),
        ],
    )
    body = html.Div(
        className="panel-body",
        children=[
            html.Div(  # its label drawn by CSS from data-label (no component of its own)
                [
                    cyto.Cytoscape(
                        id=ids.dag_id(scheduler),
                        elements=content.dag,
                        layout=dag_layout,
                        stylesheet=DAG_STYLESHEET,
                        className="cyto cyto-dag",
                        minZoom=DAG_MIN_ZOOM,  # labels never drawn under 12 px
                        autoRefreshLayout=REFRESH_LAYOUT,
                        maxZoom=2.5,
                        autoungrabify=True,
                        boxSelectionEnabled=False,
                        style={"width": "100%", "height": "100%"},
                    ),
                ],
                className="pane pane-dag",
                **{"data-label": "Topology"},
            ),
            html.Div(
                [
                    html.Div(content.note, id=ids.note_id(scheduler), className="pane-note"),
                    cyto.Cytoscape(
                        id=ids.map_id(scheduler),
                        elements=content.placement,
                        layout=map_layout,
                        stylesheet=stylesheet or map_stylesheet(),
                        className="cyto cyto-map",
                        minZoom=MAP_MIN_ZOOM,
                        autoRefreshLayout=REFRESH_LAYOUT,
                        maxZoom=4,
                        autoungrabify=True,
                        boxSelectionEnabled=False,
                        style={"width": "100%", "height": "100%"},
                    ),
                    html.Div(id=ids.drill_id(scheduler), className="pane-drill"),
                ],
                className="pane pane-map",
                **{"data-label": "Placement: node › slot › executor"},
            ),
        ],
    )
    decisions = html.Details(
        content.decisions, id=ids.decisions_id(scheduler), className="decisions"
    )
    poll = dcc.Interval(id=poll_id(scheduler), interval=PANEL_POLL_MS, disabled=not pending)
    return html.Div(
        [head, body, decisions, poll], className="panel", **{"data-scheduler": scheduler}
    )


def frames(
    scenario_data: Mapping[str, Any] | None,
    selected: Sequence[str],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float | None,
    show_all_edges: bool = False,
    compared: Mapping[str, Any] | None = None,
    wait_s: float = EDIT_WAIT_S,
    draw_placed: bool = True,
) -> list[html.Div]:
    """The panels of the selected schedulers, filled in when the scenario and rate are given
    (the ``compared`` pair's moved executors outlined); background placements are waited
    for ``wait_s`` seconds in all, then shown pending. ``draw_placed`` False: background
    placements already done are shown pending too, and each panel's poll draws its own
    (a page of large panels is then not one response of them all)."""
    colors = registry.colors()
    chosen = [s for s in selected if s in SCHEDULERS]
    if not chosen:
        return [html.Div("Pick at least one scheduler above.", className="empty-state")]
    if not (scenario_data and rate and rate > 0):
        return [frame(s, colors[s], None, map_stylesheet(show_all_edges)) for s in chosen]
    text = canonical(scenario_data)
    refusal = page_refusal(text)
    if refusal:
        refused = PanelContent([], [html.Div(refusal, className="alert alert-error")], [], [], [])
        return [frame(s, colors[s], refused, map_stylesheet(show_all_edges)) for s in chosen]
    pending = settle(text, chosen, params, float(rate), wait_s)
    out = []
    for s in chosen:
        _, _, params_text, _ = panel_key(text, s, params, float(rate))
        if s in pending and not (pending[s].ready and draw_placed):
            content = pending_content(s, pending[s])
            out.append(frame(s, colors[s], content, map_stylesheet(show_all_edges), True))
            continue
        content = panel_content(text, s, params_text, float(rate))
        style = panel_stylesheet(show_all_edges, compared, s, text, params_text, float(rate))
        out.append(frame(s, colors[s], content, style))
    return out


def legend() -> html.Div:
    return html.Div(
        className="legend",
        children=[
            html.Span(
                [
                    html.Span(
                        className="swatch-line", style={"background": TRAFFIC_COLORS["inter_node"]}
                    ),
                    "inter-node traffic",
                ]
            ),
            html.Span(
                [
                    html.Span(
                        className="swatch-line dashed",
                        style={"borderColor": TRAFFIC_COLORS["inter_worker"]},
                    ),
                    "inter-worker, same node",
                ]
            ),
            html.Span([html.Span(className="swatch-box idle"), "idle slot"]),
            html.Span([html.Span(className="swatch-dot"), "executor (its component's colour)"]),
        ],
    )


def layout(
    scenario_data: Mapping[str, Any],
    selected: Sequence[str],
    params: Mapping[str, Mapping[str, Any]],
    rate: float,
    wait_s: float = SERVE_WAIT_S,
    draw_placed: bool = True,
) -> html.Section:
    """The placements section, panels filled in (background placements waited for
    ``wait_s`` seconds in all, then shown pending; with ``draw_placed`` False, shown
    pending even when done: see :func:`frames`)."""
    deadline = time.monotonic() + wait_s
    compared = first_pair(scenario_data, selected, params, rate, wait_s)
    left = max(0.0, deadline - time.monotonic())
    paired = first_result(scenario_data, selected, params, rate)
    return html.Section(
        className="section",
        children=[
            html.Div(
                className="section-head",
                children=[
                    html.H2("Placements"),
                    html.Span("recomputed in process on every edit", className="muted timing"),
                    static(legend(), "static-html legend-static"),
                    dcc.Checklist(
                        id=ids.ALL_EDGES,
                        options=[{"label": " show inter-worker edges", "value": "all"}],
                        value=[],
                        className="toggle",
                    ),
                ],
            ),
            *ranking.first_strip(scenario_data, params, rate, selected),
            compare.controls(selected, paired, compared),
            whatif.controls(whatif.failure_options(scenario_data["cluster"]["nodes"])),
            html.Div(
                frames(
                    scenario_data,
                    selected,
                    params,
                    rate,
                    compared=compared,
                    wait_s=left,
                    draw_placed=draw_placed,
                ),
                id=ids.PANELS,
                className="panels",
            ),
        ],
    )


def first_result(
    scenario_data: Mapping[str, Any],
    selected: Sequence[str],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
) -> Any:
    """The compare area of the page served: its default pair's result (:mod:`dashboard.compare`;
    a pair still placed in the background says so)."""
    text = canonical(scenario_data)
    if page_refusal(text):
        return None
    pair = view_state.default_pair(selected)
    return compare.result_of(pair, compare.pair_evaluations(text, pair, params, rate))


@callback(
    Output(ids.PANELS, "children"),
    Input(ids.SCHEDULERS, "value"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
    State(ids.RATE, "value"),
    State(ids.ALL_EDGES, "value"),
    State(ids.COMPARE_STORE, "data"),
    prevent_initial_call=True,
)
def show_panels(selected, scenario_data, params, rate, all_edges, compared):
    """A panel per selected scheduler, drawn at once (later edits refresh each on its own)."""
    return frames(scenario_data, selected or [], params, rate, bool(all_edges), compared)


# What a panel's refresh sets, in this order (:func:`panel_update`).
PANEL_PROPS = (
    (ids.STATS_TYPE, "children"),
    (ids.NOTE_TYPE, "children"),
    (ids.DAG_TYPE, "elements"),
    (ids.MAP_TYPE, "elements"),
    (ids.DECISIONS_TYPE, "children"),
    (ids.DAG_TYPE, "layout"),
    (ids.MAP_TYPE, "layout"),
    (PANEL_POLL_TYPE, "disabled"),
)
UNCHANGED = (no_update,) * len(PANEL_PROPS)
EDIT, RESULTS, POLL = "edit", "results", "poll"  # what a panel's refresh answers


def panel_update(
    text: str,
    scheduler: str,
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
    results: Any,
    trigger: str,
    wait_s: float = 0.0,
) -> tuple[Any, ...]:
    """One panel's new values (:data:`PANEL_PROPS`) for the scenario ``text`` at ``rate``:
    its placement (``trigger`` EDIT), only its header (RESULTS: new simulation results, its
    p99), or a background placement's progress (POLL). A background placement is waited
    for ``wait_s`` seconds, then shown pending: an empty header (``[]``), its progress, and
    its poll on. ``no_update`` where nothing changes."""
    refusal = page_refusal(text)
    if refusal:  # a store sent by hand: the editors refuse such a scenario
        note = [html.Div(refusal, className="alert alert-error")]
        return ([], note, [], [], [], no_update, no_update, True)
    key = panel_key(text, scheduler, params, rate)
    if in_background(scheduler, text):
        if trigger == RESULTS and not placements.is_ready(key):
            return UNCHANGED
        status = placements.wait(key, wait_s)
        if not status.ready:
            note = progress_note(scheduler, status)
            if trigger == POLL:
                return (no_update, note, *[no_update] * 5, False)
            pending = pending_content(scheduler, status)
            return ([], note, [], [], [], *pending.layouts(), False)
    elif trigger == POLL:
        return (*[no_update] * 7, True)
    params_text = key[2]
    scenario = scenario_of(text)
    header = static(  # one component for the header's elements (dashboard.static_html)
        stats(
            evaluate(text, scheduler, params_text, rate),  # memoised: no second run
            len(scenario.cluster.nodes),
            p99_ms=simulated_p99(results, text, scheduler, rate),
            asked={c.id: c.parallelism for c in scenario.topology.components},  # its badge
        )
    )
    if trigger == RESULTS:
        return (header, *[no_update] * 7)
    content = panel_content(text, scheduler, params_text, rate)
    return (
        header,
        content.note,
        content.dag,
        content.placement,
        content.decisions,
        *content.layouts(),
        True,
    )


FILL_WAIT_S = 0.25  # an edit waits this long in all for background placements, then polls
# A poll waits this long for its placement (under the poll's interval, so ticks never
# overlap): the panel shows the result as soon as it is done, not at the next tick.
POLL_WAIT_S = 0.8


def restyled(
    text: str,
    shown: Sequence[str],
    current: Sequence[Any],
    show_all_edges: bool,
    compared: Mapping[str, Any] | None,
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
) -> list[Any]:
    """Each shown map's stylesheet for the scenario ``text`` (its topology's pie slices, the
    compared pair's moved executors outlined), ``no_update`` where ``current`` is already
    right: a restyle redraws every element of the map."""
    out = []
    for s, now in zip(shown, current, strict=True):
        params_text = panel_key(text, s, params, rate)[2]
        wanted = panel_stylesheet(show_all_edges, compared, s, text, params_text, rate)
        out.append(no_update if wanted == now else wanted)
    return out


# Props a refresh leaves alone when the page already shows the value: each component
# updated costs dash-renderer a pass over every component of the page (see fill_panels).
# A panel's note is mostly empty and its poll mostly off, edit after edit.
KEPT_WHEN_EQUAL = {(ids.NOTE_TYPE, "children"): "notes", (PANEL_POLL_TYPE, "disabled"): "polls"}


def unchanged(
    per_prop: list[list[Any]], outputs: Sequence[Sequence[Any]], shown: Mapping[str, Any]
) -> None:
    """Set to ``no_update``, in place, each value of ``per_prop`` (one list per prop of
    :data:`PANEL_PROPS`, in the order of ``outputs``) that :data:`KEPT_WHEN_EQUAL` names
    and the page shows already (``shown``: the callback's ``args_grouping``: per name,
    each component's ``id`` and ``value``). Only empty notes are compared: a note's
    components come back from the browser as JSON, not as the components sent."""
    for i, prop in enumerate(PANEL_PROPS):
        name = KEPT_WHEN_EQUAL.get(prop)
        if name is None:
            continue
        now = {a["id"]["sched"]: a.get("value") for a in shown.get(name) or []}
        for j, out in enumerate(outputs[i]):
            value, sched = per_prop[i][j], out["id"]["sched"]
            if sched not in now or value is no_update:
                continue
            if (isinstance(value, bool) or value == []) and value == now[sched]:
                per_prop[i][j] = no_update


@callback(
    output={
        "result": Output(ids.COMPARE_RESULT, "children"),
        "compared": Output(ids.COMPARE_STORE, "data"),
        "styles": Output({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet", allow_duplicate=True),
    },
    inputs={
        "pair": (Input(ids.COMPARE_A, "value"), Input(ids.COMPARE_B, "value")),
        # a panel the ranking waited for got its result: the pair may be complete now
        "refreshed": Input(ranking.REFRESH_STORE, "data"),
        "scenario_data": State(ids.SCENARIO_STORE, "data"),
        "params": State(ids.PARAMS_STORE, "data"),
        "rate": State(ids.RATE, "value"),
        "all_edges": State(ids.ALL_EDGES, "value"),
        "styles": State({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet"),
    },
    prevent_initial_call=True,
)
def compare_pair(pair, refreshed, scenario_data, params, rate, all_edges, styles):
    """A pair picked: what moved and the difference table (:mod:`dashboard.compare`), the
    compare store, and the maps' outlines, in one answer (the store no longer triggers a
    restyle of its own: ``dashboard.map_styles`` reads it as a state). A new scenario,
    parameters or rate refresh all three with the panels (:func:`fill_panels`); so does a
    background placement the page waited for (``refreshed``: the served page or an edit
    may have said "waiting" for one of the pair)."""
    if not scenario_data or not rate or rate <= 0:
        raise PreventUpdate
    text = canonical(scenario_data)
    evaluated = compare.pair_evaluations(text, pair, params, float(rate))
    compared = compare.store_of_pair(pair, evaluated)
    styled = [o["id"]["sched"] for o in ctx.outputs_grouping["styles"]]
    now = {a["id"]["sched"]: a.get("value") for a in ctx.args_grouping["styles"] or []}
    current = [now.get(s) for s in styled]
    restyle = page_refusal(text) is None
    return {
        "result": compare.result_of(pair, evaluated),
        "compared": compared,
        "styles": restyled(text, styled, current, bool(all_edges), compared, params, float(rate))
        if restyle
        else [no_update] * len(styled),
    }


@callback(
    output={
        "panels": [
            Output({"type": kind, "sched": ALL}, prop, allow_duplicate=True)
            for kind, prop in PANEL_PROPS
        ],
        "styles": Output({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet", allow_duplicate=True),
        "compared": Output(ids.COMPARE_STORE, "data", allow_duplicate=True),
        "ranking": Output(ids.RANKING, "children", allow_duplicate=True),
        "waiting": Output(ranking.WAITING_STORE, "data", allow_duplicate=True),
        "described": (
            Output(ids.SCENARIO_TITLE, "children"),
            Output(ids.SCENARIO_FACTS, "children"),
            Output(ids.SCENARIO_DESCRIPTION, "children"),
        ),
        "compare_result": Output(ids.COMPARE_RESULT, "children", allow_duplicate=True),
        "fail_options": Output(ids.FAIL_NODE, "options"),
        "whatif": (
            Output(ids.WHATIF_RESULT, "children", allow_duplicate=True),
            Output(whatif.WHATIF_POLL, "disabled", allow_duplicate=True),
        ),
        "set_row": tuple(Output(i, p, allow_duplicate=True) for i, p in set_page.SET_PROPS),
        "view": (
            Output(ids.VIEW_STORE, "data", allow_duplicate=True),
            Output(ids.LINK_NOTE, "children", allow_duplicate=True),
        ),
        "rate_feedback": (
            Output(ids.RATE_MESSAGE, "children"),
            Output(ids.RATE, "className"),
        ),
    },
    inputs={
        "scenario_data": Input(ids.SCENARIO_STORE, "data"),
        "params": Input(ids.PARAMS_STORE, "data"),
        "rate": Input(ids.RATE, "value"),
        "results": Input(ids.RESULTS_STORE, "data"),
        "selected": State(ids.SCHEDULERS, "value"),
        "all_edges": State(ids.ALL_EDGES, "value"),
        "pair": (State(ids.COMPARE_A, "value"), State(ids.COMPARE_B, "value")),
        "styles": State({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet"),
        "notes": State({"type": ids.NOTE_TYPE, "sched": ALL}, "children"),
        "polls": State({"type": PANEL_POLL_TYPE, "sched": ALL}, "disabled"),
        "page": {
            "loaded": State(ids.LOADED_STORE, "data"),
            "node": State(ids.FAIL_NODE, "value"),
            "fail_options": State(ids.FAIL_NODE, "options"),
            "whatif": State(ids.WHATIF_RESULT, "children"),
            "component_rows": State(ids.COMPONENTS_GRID, "rowData"),
            "set_row": tuple(State(i, p) for i, p in set_page.SET_PROPS),
            "cluster": tuple(State(i, "value") for i in scenario_bar.VIEW_CLUSTER_IDS),
            "rate_feedback": (State(ids.RATE_MESSAGE, "children"), State(ids.RATE, "className")),
        },
    },
    prevent_initial_call=True,
)
def fill_panels(
    scenario_data, params, rate, results, selected, all_edges, pair, styles, notes, polls, page
):
    """Every panel's placement of the scenario in force, its map's stylesheet (the pie
    slices of its topology, the compared pair's moved executors) and the ranking strip, in
    one answer: one round trip and one redraw of the page per edit or preset switch (each
    callback answered costs the browser a pass over every component of the page; nine
    panels answered apart made a switch several times slower, and restyling the maps in a
    second answer, after the compare store, cost another pass of cytoscape and
    dash-renderer over the page: python -m bench dashboard). The rest of the page that
    follows the scenario, rate or parameters comes in the same answer, each part once
    answered by a callback of its own (:func:`page_outputs`). New simulation results only
    refresh the headers (their p99). A background placement not done within
    ``FILL_WAIT_S`` shows its progress, and its panel polls for it (:func:`poll_panel`),
    so a slow search never holds the other panels back."""
    trigger = RESULTS if ctx.triggered_id == ids.RESULTS_STORE else EDIT
    nothing = nothing_for(ctx.outputs_grouping)
    if not scenario_data or not rate or rate <= 0:
        if trigger == RESULTS:
            raise PreventUpdate
        return {**nothing, **page_outputs(scenario_data, params, rate, selected, pair, page, 0.0)}
    text = canonical(scenario_data)
    shown = [o["id"]["sched"] for o in ctx.outputs_grouping["panels"][0]]
    deadline = time.monotonic() + FILL_WAIT_S
    updates = {}
    for s in shown:
        left = max(0.0, deadline - time.monotonic())
        updates[s] = panel_update(text, s, params, float(rate), results, trigger, left)
    per_prop = [
        [updates[o["id"]["sched"]][i] for o in outputs]
        for i, outputs in enumerate(ctx.outputs_grouping["panels"])
    ]
    unchanged(per_prop, ctx.outputs_grouping["panels"], ctx.args_grouping)
    try:
        strip, waiting = ranking.ranking_outputs(scenario_data, params, rate, selected, results)
    except PreventUpdate:
        strip, waiting = no_update, no_update
    filled = {**nothing, "panels": per_prop, "ranking": strip, "waiting": waiting}
    if trigger == RESULTS:
        return filled
    left = max(0.0, deadline - time.monotonic())
    rest = page_outputs(scenario_data, params, rate, selected, pair, page, left)
    if page_refusal(text):
        return {**filled, **rest}
    styled = [o["id"]["sched"] for o in ctx.outputs_grouping["styles"]]
    evaluated = compare.pair_evaluations(text, pair, params, float(rate))
    compared = compare.store_of_pair(pair, evaluated)
    now = {a["id"]["sched"]: a.get("value") for a in ctx.args_grouping["styles"] or []}
    current = [now.get(s) for s in styled]
    return {
        **filled,
        **rest,
        "styles": restyled(text, styled, current, bool(all_edges), compared, params, float(rate)),
        "compared": compared,
        "compare_result": compare.result_of(pair, evaluated),
    }


def page_outputs(
    scenario_data: Mapping[str, Any] | None,
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: Any,
    selected: Sequence[str] | None,
    pair: Sequence[str | None],
    page: Mapping[str, Any],
    wait_s: float,
) -> dict[str, Any]:
    """What else follows a new scenario, rate or parameters (``page``: what the page shows
    of it now, :func:`fill_panels`'s states), ``no_update`` where the page shows it already:
    the top bar's title and facts (:func:`described_outputs`), the what-if picker's nodes
    and its table (background rows waited for ``wait_s`` seconds, then polled), the set's
    line in the bar, the view's link, and the rate field's message. Each was a callback of
    its own, and each callback answered cost the page a pass of dash-renderer."""
    valid = bool(scenario_data) and bool(rate) and rate > 0
    out: dict[str, Any] = {
        "described": described_outputs(scenario_data),
        "rate_feedback": scenario_bar.rate_outputs(rate, *page["rate_feedback"]),
        "set_row": set_page.show_set(scenario_data, page["component_rows"], *page["set_row"]),
        "view": scenario_bar.view_outputs(
            page["loaded"],
            selected,
            rate,
            scenario_data,
            params,
            *pair,
            page["node"],
            *page["cluster"],
        ),
    }
    if scenario_data:
        options = whatif.failure_options(scenario_data["cluster"]["nodes"])
        out["fail_options"] = no_update if options == page["fail_options"] else options
    if valid:
        result = whatif.whatif_outputs(page["node"], scenario_data, params, rate, selected, wait_s)
        if as_browser_json(result[0]) == as_browser_json(page["whatif"]) and result[1] is True:
            result = (no_update, no_update)  # a healthy cluster still: nothing to redraw
        out["whatif"] = result
    return out


def as_browser_json(children: Any) -> Any:
    """Children as the browser sends them back (JSON), for comparison."""
    return json.loads(json.dumps(children, cls=PlotlyJSONEncoder))


def described_outputs(scenario_data: Mapping[str, Any] | None) -> tuple[Any, ...]:
    """The top bar's title and facts and the page's description of the scenario in force
    (``no_update`` for a store that is not a valid scenario)."""
    if not scenario_data:
        return (no_update,) * 3
    try:
        scenario = scenario_of(canonical(scenario_data))
    except (ScenarioError, TypeError, ValueError):
        return (no_update,) * 3
    return scenario.name, scenario_facts(scenario), scenario.description


def nothing_for(grouping: Mapping[str, Any]) -> dict[str, Any]:
    """``no_update`` for every output of ``grouping`` (the callback's outputs_grouping)."""

    def blank(group: Any) -> Any:
        if isinstance(group, list | tuple):
            return [blank(g) for g in group]
        return no_update

    return {name: blank(group) for name, group in grouping.items()}


@callback(
    [
        Output({"type": kind, "sched": MATCH}, prop, allow_duplicate=True)
        for kind, prop in PANEL_PROPS
    ],
    Input({"type": PANEL_POLL_TYPE, "sched": MATCH}, "n_intervals"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
    State(ids.RATE, "value"),
    State(ids.RESULTS_STORE, "data"),
    State({"type": ids.MAP_TYPE, "sched": MATCH}, "layout"),
    prevent_initial_call=True,
)
def poll_panel(_ticks, scenario_data, params, rate, results, shown_layout):
    """A pending panel asks for its background placement, waiting up to ``POLL_WAIT_S``
    for it: its progress until done, then its content (and the ranking strip follows, see
    :data:`dashboard.ranking.REFRESH_STORE`); a tick sent before the poll stopped, once the
    content is shown (its map's layout names its elements), only stops the poll."""
    if not scenario_data or not rate or rate <= 0:
        raise PreventUpdate
    scheduler = ctx.triggered_id["sched"]
    update = panel_update(
        canonical(scenario_data), scheduler, params, float(rate), results, POLL, POLL_WAIT_S
    )
    if update[PANEL_PROPS.index((ids.MAP_TYPE, "layout"))] == shown_layout:
        return [*[no_update] * 7, True]
    return list(update)


@callback(
    Output({"type": ids.DRILL_TYPE, "sched": MATCH}, "children"),
    Input({"type": ids.MAP_TYPE, "sched": MATCH}, "tapNodeData"),
    prevent_initial_call=True,
)
def drill_down(tapped):
    """What a clicked slot holds (aggregated maps list the executors of a slot here)."""
    return drill_text(tapped)


def drill_text(tapped: Mapping[str, Any] | None) -> str:
    """One line on a clicked map element: a slot's (or, on a map of node pies, a node's)
    executors, the first ``MAX_MEMBERS`` named.

    >>> drill_text({"id": "slot:n1:2", "members": "a#0 b#1"})
    'n1 slot 2 holds 2 executors: a#0, b#1'
    >>> drill_text({"id": "nodeagg:n1", "members": "a#0 a#1", "executors": 70, "slots": 64})
    'n1 (64 slots) holds 70 executors: a#0, a#1, … and 68 more'
    >>> drill_text({"id": "ex:a#0", "label": "a#0"})
    ''
    """
    element = str((tapped or {}).get("id", ""))
    if element.startswith("slot:"):
        node, slot = element[len("slot:") :].rsplit(":", 1)
        where = f"{node} slot {slot}"
    elif element.startswith("nodeagg:"):
        where = f"{element[len('nodeagg:') :]} ({tapped.get('slots', 0)} slots)"
    else:
        return ""
    members = str(tapped.get("members", "")).split()
    count = int(tapped.get("executors", len(members)))
    if not count:
        return f"{where} is idle" if "members" in tapped else ""
    more = f", … and {count - len(members)} more" if count > len(members) else ""
    return f"{where} holds {count} executors: {', '.join(members)}{more}"


# A panel's export menu is answered by dashboard.export (caption, legend, figures).

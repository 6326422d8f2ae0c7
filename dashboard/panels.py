"""One panel per selected scheduler: topology DAG, placement map, headline figures.

Panels are drawn, filled, with the page and when the selection changes;
after that each panel refreshes in a callback of its own whenever the
scenario in force, the parameters or the offered rate change, so a slow
scheduler never holds the others back. Content comes from the memoised
:func:`dashboard.compute.evaluate` (in process, no Spark). All panels share
one geometry and one colour scheme.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dash_cytoscape as cyto
from dash import ALL, MATCH, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from core.registry import SCHEDULERS
from dashboard import compare, ids, registry, whatif
from dashboard.colors import TRAFFIC_COLORS
from dashboard.compute import canonical, evaluate, scenario_of
from dashboard.cyto_styles import DAG_STYLESHEET, map_stylesheet
from dashboard.map_styles import first_pair, panel_stylesheet
from dashboard.panel_content import PanelContent, panel_content, simulated_p99, stats

EXPORT_FORMATS = (
    ("map", "png", "Placement PNG"),
    ("map", "svg", "Placement SVG"),
    ("dag", "png", "Topology PNG"),
    ("dag", "svg", "Topology SVG"),
)


def frame(
    scheduler: str,
    color: str,
    content: PanelContent | None = None,
    stylesheet: list[dict[str, Any]] | None = None,
) -> html.Div:
    """A scheduler's panel: title, export menu, the two graphs, and ``content`` if given;
    the map is drawn with ``stylesheet`` (:func:`dashboard.map_styles.panel_stylesheet`)."""
    spec = SCHEDULERS[scheduler]
    content = content or PanelContent([], [], [], [], [])
    dag_layout, map_layout = content.layouts()
    export = html.Details(
        className="export-menu",
        children=[
            html.Summary("Export"),
            html.Div(
                [
                    html.Button(
                        label, id=ids.export_id(scheduler, graph, fmt), className="menu-item"
                    )
                    for graph, fmt, label in EXPORT_FORMATS
                ],
                className="menu",
            ),
        ],
    )
    head = html.Div(
        className="panel-head",
        children=[
            html.Div(
                className="panel-title",
                children=[
                    html.Span(className="sched-chip", style={"background": color}),
                    html.H3(scheduler),
                    html.Span(spec.name, className="muted panel-subtitle", title=spec.paper),
                    export,
                ],
            ),
            html.Div(content.stats, id=ids.stats_id(scheduler), className="panel-stats"),
        ],
    )
    body = html.Div(
        className="panel-body",
        children=[
            html.Div(
                [
                    html.Div("Topology", className="pane-label"),
                    cyto.Cytoscape(
                        id=ids.dag_id(scheduler),
                        elements=content.dag,
                        layout=dag_layout,
                        stylesheet=DAG_STYLESHEET,
                        className="cyto cyto-dag",
                        minZoom=0.3,
                        maxZoom=2.5,
                        autoungrabify=True,
                        boxSelectionEnabled=False,
                        style={"width": "100%", "height": "100%"},
                    ),
                ],
                className="pane pane-dag",
            ),
            html.Div(
                [
                    html.Div("Placement: node › slot › executor", className="pane-label"),
                    html.Div(content.note, id=ids.note_id(scheduler), className="pane-note"),
                    cyto.Cytoscape(
                        id=ids.map_id(scheduler),
                        elements=content.placement,
                        layout=map_layout,
                        stylesheet=stylesheet or map_stylesheet(),
                        className="cyto cyto-map",
                        minZoom=0.1,
                        maxZoom=4,
                        autoungrabify=True,
                        boxSelectionEnabled=False,
                        style={"width": "100%", "height": "100%"},
                    ),
                    html.Div(id=ids.drill_id(scheduler), className="pane-drill"),
                ],
                className="pane pane-map",
            ),
        ],
    )
    decisions = html.Details(
        content.decisions, id=ids.decisions_id(scheduler), className="decisions"
    )
    return html.Div([head, body, decisions], className="panel", **{"data-scheduler": scheduler})


def frames(
    scenario_data: Mapping[str, Any] | None,
    selected: Sequence[str],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float | None,
    show_all_edges: bool = False,
    compared: Mapping[str, Any] | None = None,
) -> list[html.Div]:
    """The panels of the selected schedulers, filled in when the scenario and rate are given
    (the ``compared`` pair's moved executors outlined)."""
    colors = registry.colors()
    chosen = [s for s in selected if s in SCHEDULERS]
    if not chosen:
        return [html.Div("Pick at least one scheduler above.", className="empty-state")]
    if not (scenario_data and rate and rate > 0):
        return [frame(s, colors[s], None, map_stylesheet(show_all_edges)) for s in chosen]
    text = canonical(scenario_data)
    out = []
    for s in chosen:
        params_text = canonical((params or {}).get(s, {}))
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
) -> html.Section:
    return html.Section(
        className="section",
        children=[
            html.Div(
                className="section-head",
                children=[
                    html.H2("Placements"),
                    html.Span("recomputed in process on every edit", className="muted timing"),
                    legend(),
                    dcc.Checklist(
                        id=ids.ALL_EDGES,
                        options=[{"label": " show inter-worker edges", "value": "all"}],
                        value=[],
                        className="toggle",
                    ),
                ],
            ),
            html.Div(id=ids.RANKING, className="ranking"),
            compare.controls(selected),
            whatif.controls(),
            html.Div(
                frames(
                    scenario_data,
                    selected,
                    params,
                    rate,
                    compared=first_pair(scenario_data, selected, params, rate),
                ),
                id=ids.PANELS,
                className="panels",
            ),
        ],
    )


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


@callback(
    Output({"type": ids.STATS_TYPE, "sched": MATCH}, "children"),
    Output({"type": ids.NOTE_TYPE, "sched": MATCH}, "children"),
    Output({"type": ids.DAG_TYPE, "sched": MATCH}, "elements"),
    Output({"type": ids.MAP_TYPE, "sched": MATCH}, "elements"),
    Output({"type": ids.DECISIONS_TYPE, "sched": MATCH}, "children"),
    Output({"type": ids.DAG_TYPE, "sched": MATCH}, "layout"),
    Output({"type": ids.MAP_TYPE, "sched": MATCH}, "layout"),
    Input(ids.SCENARIO_STORE, "data"),
    Input(ids.PARAMS_STORE, "data"),
    Input(ids.RATE, "value"),
    Input(ids.RESULTS_STORE, "data"),
    State({"type": ids.STATS_TYPE, "sched": MATCH}, "id"),
    prevent_initial_call=True,
)
def fill_panel(scenario_data, params, rate, results, panel):
    """One scheduler's placement of the scenario in force; new simulation results
    only refresh the header (its p99)."""
    if not scenario_data or not rate or rate <= 0:
        raise PreventUpdate
    scheduler = panel["sched"]
    text = canonical(scenario_data)
    params_text = canonical((params or {}).get(scheduler, {}))
    content = panel_content(text, scheduler, params_text, float(rate))
    header = stats(
        evaluate(text, scheduler, params_text, float(rate)),  # memoised: no second run
        len(scenario_of(text).cluster.nodes),
        p99_ms=simulated_p99(results, text, scheduler, float(rate)),
    )
    if ctx.triggered_id == ids.RESULTS_STORE:
        return (header, *[no_update] * 6)
    return (
        header,
        content.note,
        content.dag,
        content.placement,
        content.decisions,
        *content.layouts(),
    )


@callback(
    Output({"type": ids.DRILL_TYPE, "sched": MATCH}, "children"),
    Input({"type": ids.MAP_TYPE, "sched": MATCH}, "tapNodeData"),
    prevent_initial_call=True,
)
def drill_down(tapped):
    """What a clicked slot holds (aggregated maps list the executors of a slot here)."""
    return drill_text(tapped)


def drill_text(tapped: Mapping[str, Any] | None) -> str:
    """One line on a clicked map element.

    >>> drill_text({"id": "slot:n1:2", "members": "a#0 b#1"})
    'n1 slot 2 holds 2 executors: a#0, b#1'
    >>> drill_text({"id": "ex:a#0", "label": "a#0"})
    ''
    """
    if not tapped or not str(tapped.get("id", "")).startswith("slot:"):
        return ""
    node, slot = tapped["id"][len("slot:") :].rsplit(":", 1)
    members = str(tapped.get("members", "")).split()
    if not members:
        return f"{node} slot {slot} is idle" if "members" in tapped else ""
    return f"{node} slot {slot} holds {len(members)} executors: {', '.join(members)}"


@callback(
    Output({"type": ids.DAG_TYPE, "sched": MATCH}, "generateImage"),
    Output({"type": ids.MAP_TYPE, "sched": MATCH}, "generateImage"),
    Input({"type": ids.EXPORT_TYPE, "sched": MATCH, "graph": ALL, "fmt": ALL}, "n_clicks"),
    prevent_initial_call=True,
)
def export_image(clicks):
    """Download a panel's graph as PNG or SVG (generated in the browser)."""
    target = ctx.triggered_id
    if not target or not any(clicks):
        raise PreventUpdate
    options = {"full": True, "bg": "#ffffff"} | ({"scale": 2} if target["fmt"] == "png" else {})
    request = {
        "type": target["fmt"],
        "action": "download",
        "options": options,
        "filename": f"slotscope-{target['sched']}-{target['graph']}",
    }
    return (request, no_update) if target["graph"] == "dag" else (no_update, request)

"""One panel per selected scheduler: topology DAG, placement map, headline figures.

Panels refresh in process on every change of the scenario, the selection,
the parameters or the offered rate, through :func:`dashboard.compute.evaluate`
(memoised; no Spark). All panels share one geometry and one colour scheme.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import dash_cytoscape as cyto
from dash import ALL, MATCH, Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from core.model import ScenarioError
from core.schedulers import SCHEDULERS
from dashboard import ids, registry
from dashboard.colors import TRAFFIC_COLORS, component_colors
from dashboard.compute import Evaluation, canonical, evaluate, headline, scenario_of
from dashboard.cyto_styles import DAG_LAYOUT, DAG_STYLESHEET, MAP_LAYOUT, map_stylesheet
from dashboard.elements import dag_elements, placement_elements

MAX_DECISIONS = 400  # decisions listed per panel; the rest are counted
EXPORT_FORMATS = (("map", "png", "Placement PNG"), ("map", "svg", "Placement SVG"),
                  ("dag", "png", "Topology PNG"), ("dag", "svg", "Topology SVG"))


@lru_cache(maxsize=256)
def panel_elements(scenario_text: str, scheduler: str, params_text: str, rate: float
                   ) -> tuple[Evaluation, list[dict[str, Any]], list[dict[str, Any]]]:
    """The evaluation of a panel and its two element lists."""
    ev = evaluate(scenario_text, scheduler, params_text, rate)
    if ev.schedule is None or ev.graph is None:
        return ev, [], []
    scenario = scenario_of(scenario_text)
    colors = component_colors(list(ev.graph.order))
    dag = dag_elements(ev.graph, colors, ev.schedule.parallelism)
    # A partial placement (a failed scheduler) is drawn without traffic edges.
    return ev, dag, placement_elements(scenario, ev.graph, ev.schedule.placement(), colors,
                                       traffic=ev.metrics is not None)


def _number(value: float | None, unit: str = "", digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}{unit}"


def _stat(label: str, value: str, title: str = "") -> html.Div:
    return html.Div([html.Span(value, className="stat-value"), html.Span(label, className="stat-label")],
                    className="stat", title=title)


def _header(ev: Evaluation, color: str, nodes_total: int) -> html.Div:
    spec = SCHEDULERS.get(ev.scheduler)
    h = headline(ev)
    badges = []
    if ev.schedule is not None and not ev.schedule.ok:
        badges.append(html.Span(ev.schedule.status.value, className="badge badge-error"))
    if h["saturated"]:
        badges.append(html.Span("saturated", className="badge badge-warn",
                                title="The offered rate exceeds R*: spouts are throttled"))
    nodes = f"{h['nodes_used']} / {nodes_total}" if h["nodes_used"] is not None else "—"
    stats = [
        _stat("throughput /s", _number(h["throughput"]), "Tuples processed per second, all executors"),
        _stat("p99", _number(h["p99_ms"], " ms", 2), "Estimated 99th percentile complete latency"),
        _stat("nodes used", nodes),
        _stat("bottleneck", h["bottleneck"] or "—", "The binding capacity limit (R*)"),
    ]
    export = html.Details(className="export-menu", children=[
        html.Summary("Export"),
        html.Div([html.Button(label, id=ids.export_id(ev.scheduler, graph, fmt), className="menu-item")
                  for graph, fmt, label in EXPORT_FORMATS], className="menu"),
    ])
    return html.Div(className="panel-head", children=[
        html.Div(className="panel-title", children=[
            html.Span(className="sched-chip", style={"background": color}),
            html.H3(ev.scheduler),
            html.Span(spec.name if spec else "", className="muted panel-subtitle",
                      title=spec.paper if spec else ""),
            *badges,
            export,
        ]),
        html.Div(stats, className="stats"),
    ])


def _decisions(ev: Evaluation) -> html.Details:
    decisions = list(ev.schedule.decisions) if ev.schedule else []
    items = [html.Li(d) for d in decisions[:MAX_DECISIONS]]
    if len(decisions) > MAX_DECISIONS:
        items.append(html.Li(f"… and {len(decisions) - MAX_DECISIONS} more", className="muted"))
    return html.Details(className="decisions", children=[
        html.Summary(f"Why this placement: {len(decisions)} decisions"),
        html.Ol(items),
    ])


def panel(scenario_text: str, scheduler: str, params: Mapping[str, Any], rate: float,
          color: str, show_all_edges: bool) -> html.Div:
    """The panel of one scheduler."""
    ev, dag, placement = panel_elements(scenario_text, scheduler, canonical(params), rate)
    nodes_total = len(scenario_of(scenario_text).cluster.nodes)
    if ev.error or ev.schedule is None:
        body = html.Div(html.Div(["This scheduler could not place the scenario: ", ev.error],
                                 className="alert alert-error"), className="panel-body")
    else:
        message = ([html.Div(ev.schedule.message, className="alert alert-warn")]
                   if ev.schedule.message else [])
        body = html.Div(className="panel-body", children=[
            html.Div([html.Div("Topology", className="pane-label"), cyto.Cytoscape(
                id=ids.dag_id(scheduler), elements=dag, layout=DAG_LAYOUT,
                stylesheet=DAG_STYLESHEET, className="cyto cyto-dag", minZoom=0.3, maxZoom=3,
                autoungrabify=True, boxSelectionEnabled=False,
                style={"width": "100%", "height": "100%"},
            )], className="pane pane-dag"),
            html.Div([html.Div("Placement: node › slot › executor", className="pane-label"),
                      *message, cyto.Cytoscape(
                id=ids.map_id(scheduler), elements=placement, layout=MAP_LAYOUT,
                stylesheet=map_stylesheet(show_all_edges), className="cyto cyto-map",
                minZoom=0.1, maxZoom=4, boxSelectionEnabled=False, autoungrabify=True,
                style={"width": "100%", "height": "100%"},
            )], className="pane pane-map"),
        ])
    return html.Div([_header(ev, color, nodes_total), body, _decisions(ev)],
                    className="panel", **{"data-scheduler": scheduler})


def render(scenario_data: Mapping[str, Any], selected: Sequence[str],
           params: Mapping[str, Mapping[str, Any]], rate: float, show_all_edges: bool = False
           ) -> tuple[list[html.Div], str]:
    """Every selected scheduler's panel, and how long the server took."""
    start = time.perf_counter()
    text = canonical(scenario_data)
    colors = registry.colors()
    chosen = [s for s in selected if s in SCHEDULERS]
    children = [panel(text, s, params.get(s, {}), float(rate), colors[s], show_all_edges)
                for s in chosen]
    if not children:
        children = [html.Div("Pick at least one scheduler above.", className="empty-state")]
    ms = (time.perf_counter() - start) * 1000.0
    return children, f"{len(chosen)} placements in {ms:.0f} ms (server)"


def legend() -> html.Div:
    return html.Div(className="legend", children=[
        html.Span([html.Span(className="swatch-line", style={"background": TRAFFIC_COLORS["inter_node"]}),
                   "inter-node traffic"]),
        html.Span([html.Span(className="swatch-line dashed",
                             style={"borderColor": TRAFFIC_COLORS["inter_worker"]}),
                   "inter-worker, same node"]),
        html.Span([html.Span(className="swatch-box idle"), "idle slot"]),
        html.Span([html.Span(className="swatch-dot"), "executor (its component's colour)"]),
    ])


def layout(children: list[Any], timing: str) -> html.Section:
    return html.Section(className="section", children=[
        html.Div(className="section-head", children=[
            html.H2("Placements"),
            html.Span(timing, id=ids.PANELS_TIMING, className="muted timing"),
            legend(),
            dcc.Checklist(id=ids.ALL_EDGES, options=[{"label": " show inter-worker edges",
                                                      "value": "all"}],
                          value=[], className="toggle"),
        ]),
        html.Div(children, id=ids.PANELS, className="panels"),
    ])


@callback(
    Output(ids.PANELS, "children"),
    Output(ids.PANELS_TIMING, "children"),
    Input(ids.SCENARIO_STORE, "data"),
    Input(ids.SCHEDULERS, "value"),
    Input(ids.PARAMS_STORE, "data"),
    Input(ids.RATE, "value"),
    State(ids.ALL_EDGES, "value"),
    prevent_initial_call=True,
)
def refresh_panels(scenario_data, selected, params, rate, all_edges):
    if not rate or rate <= 0 or not scenario_data:
        raise PreventUpdate
    try:
        return render(scenario_data, selected or [], params or {}, rate, bool(all_edges))
    except ScenarioError:
        return no_update, no_update


@callback(
    Output({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet"),
    Input(ids.ALL_EDGES, "value"),
    State({"type": ids.MAP_TYPE, "sched": ALL}, "id"),
    prevent_initial_call=True,
)
def toggle_edges(all_edges, map_ids):
    return [map_stylesheet(bool(all_edges)) for _ in map_ids]


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
    request = {"type": target["fmt"], "action": "download", "options": options,
               "filename": f"slotscope-{target['sched']}-{target['graph']}"}
    return (request, no_update) if target["graph"] == "dag" else (no_update, request)

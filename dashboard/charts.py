"""The simulation charts, the difference table against ``even`` and the result downloads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dash import Input, Output, State, callback, ctx, dcc, html, no_update
from dash.exceptions import PreventUpdate

from core.figures import VIOLATIONS_KEY, Figure, Skipped, is_ok
from dashboard import export, ids, registry, sweep_view
from dashboard.colors import BETTER, MUTED, WORSE
from dashboard.figures import (
    DIFF_FIGURES,
    SMALL_TEXT,
    cpu_heatmap,
    difference_rows,
    empty_figure,
    latency_figure,
    memory_figure,
    ok_rows,
    resources_figure,
    sweep_figure,
    throughput_figure,
    traffic_figure,
)

BASELINE = "even"
GRAPH_CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "toImageButtonOptions": {"format": "svg", "filename": "slotscope-chart"},
}
WIDE_CHARTS = (ids.CHART_SWEEP,)
WAITING = "Press ▶ Simulate to run the comparison on Spark"
PRELOAD_AFTER_MS = 2500  # plotly (4.8 MB) loads after the first paint, not during it


def _graph(chart_id: str, figure: Any, scenario: str = "") -> html.Div:
    """A chart in its card; its image export (the camera button) is named after the
    scenario and the chart."""
    wide = " chart-wide" if chart_id in WIDE_CHARTS else ""
    name = "-".join(
        part for part in ("slotscope", scenario, chart_id.removeprefix("chart-")) if part
    )
    config = GRAPH_CONFIG | {"toImageButtonOptions": {"format": "svg", "filename": name}}
    return html.Div(
        dcc.Graph(id=chart_id, figure=figure, config=config), className=f"chart card{wide}"
    )


def signed(figure: Any, scenario: str) -> Any:
    """A chart whose title's second line names the scenario, so that an exported image says
    what it is a chart of (its title says what is counted and at which rate, its legend who).

    >>> from dashboard.figures import empty_figure
    >>> fig = empty_figure("")
    >>> _ = fig.update_layout(title_text="T<br><span>what</span>")
    >>> signed(fig, "wc").layout.title.text
    'T<br><span>what · scenario wc</span>'
    """
    title = figure.layout.title.text or ""
    if not scenario:
        return figure
    if title.endswith("</span>"):
        title = f"{title[: -len('</span>')]} · scenario {scenario}</span>"
    else:
        note = f"<span style='font-size:{SMALL_TEXT}px;color:{MUTED}'>scenario {scenario}</span>"
        title = f"{title}<br>{note}"
    figure.update_layout(title_text=title)
    return figure


def waiting() -> html.Div:
    """What the charts area shows before the first simulation (no plotly on first paint)."""
    return html.Div(
        className="card empty-charts",
        children=[
            html.Div("▶", className="empty-icon"),
            html.Div(
                [
                    html.Strong("No simulation yet. "),
                    WAITING + ": throughput, latency "
                    "percentiles, an offered-rate sweep, CPU, traffic, resources and memory "
                    "per scheduler appear here.",
                ]
            ),
        ],
    )


def layout() -> html.Section:
    return html.Section(
        className="section charts-section",
        children=[
            html.Div(
                className="section-head",
                children=[
                    html.H2("Simulation"),
                    html.Span(id=ids.ENGINE_INFO, className="muted timing"),
                    html.Div(
                        className="downloads",
                        children=[
                            html.Button(
                                "Results CSV", id=ids.DOWNLOAD_CSV_BUTTON, className="btn btn-ghost"
                            ),
                            html.Button(
                                "Results JSON",
                                id=ids.DOWNLOAD_JSON_BUTTON,
                                className="btn btn-ghost",
                            ),
                            dcc.Download(id=ids.DOWNLOAD_RESULTS),
                        ],
                    ),
                ],
            ),
            html.Div(waiting(), id=ids.CHARTS_AREA, className="charts"),
            export.stores(),
            html.Div(id=ids.PLOTLY_PRELOAD, hidden=True),
            dcc.Interval(id=ids.PRELOAD_TIMER, interval=PRELOAD_AFTER_MS, max_intervals=1),
            html.Div(
                id=ids.DIFF_TABLE,
                className="card diff-card",
                children=html.P(
                    "The difference table appears after a simulation.", className="muted"
                ),
            ),
        ],
    )


def _delta(value: float | None, figure: Figure) -> html.Span:
    """A change in percent, green when it is the figure's better way, red when worse."""
    if value is None:
        return html.Span("", className="delta")
    good = figure.direction * value
    color = BETTER if good > 0.05 else WORSE if good < -0.05 else None
    return html.Span(f"{value:+.1f}%", className="delta", style={"color": color} if color else {})


def difference_table(
    rows: Sequence[Mapping[str, Any]], rate: float, colors: Mapping[str, str]
) -> html.Table:
    """Every figure per scheduler with its change against ``even`` (green: better)."""
    diff = difference_rows(rows, rate, BASELINE)
    head = html.Tr(
        [html.Th("scheduler")]
        + [
            html.Th([f.label, html.Br(), html.Span(f.unit, className="unit")], title=f.description)
            for f in DIFF_FIGURES
        ]
    )
    body = [
        html.Tr(
            [
                html.Td(
                    [
                        html.Span(className="dot", style={"background": colors.get(d.scheduler)}),
                        d.scheduler,
                    ],
                    className="sched-cell",
                )
            ]
            + [
                html.Td([f.format(d.values[f.key]), _delta(d.deltas[f.key], f)])
                for f in DIFF_FIGURES
            ]
        )
        for d in diff
    ]
    return html.Table([html.Thead(head), html.Tbody(body)], className="diff-table")


def cannot_run_notes(rows: Sequence[Mapping[str, Any]]) -> list[html.P]:
    """One line per simulated scheduler whose placement cannot run as placed (its first
    violation, and how many nodes in all), in the order of the rows.

    >>> row = {"scheduler": "hetero", "throughput": 1.0, "violations": ["node a needs 5 GB"]}
    >>> [p.children for p in cannot_run_notes([row, row])]
    ['hetero cannot run as placed: node a needs 5 GB']
    """
    seen: dict[str, list[str]] = {}
    for r in rows:
        if is_ok(r) and r.get(VIOLATIONS_KEY):
            seen.setdefault(r["scheduler"], list(r[VIOLATIONS_KEY]))
    lines = []
    for scheduler, found in seen.items():
        more = f" (and {len(found) - 1} more nodes)" if len(found) > 1 else ""
        lines.append(f"{scheduler} cannot run as placed: {found[0]}{more}")
    return [html.P(line, className="alert alert-error") for line in lines]


@callback(
    Output(ids.CHARTS_AREA, "children"),
    Output(ids.DIFF_TABLE, "children"),
    Output(ids.ENGINE_INFO, "children"),
    Input(ids.RESULTS_STORE, "data"),
    prevent_initial_call=True,
)
def show_results(results):
    """Charts and table from the result rows of the last simulation."""
    if not results:
        raise PreventUpdate
    if sweep_view.is_set_results(results):  # a topology set: slotscope sweep's tables
        return sweep_view.set_view(results)
    rows, rate, colors = results["results"], results["offered"], registry.colors()
    failed = [Skipped.from_json(r) for r in rows if not is_ok(r)]
    if not ok_rows(rows):
        empty = empty_figure("No scheduler produced a placement to simulate")
        return [_graph(c, empty) for c in ids.CHARTS], html.P("No results.", className="muted"), ""
    figures = [
        throughput_figure(rows, rate, colors),
        latency_figure(rows, rate, colors),
        sweep_figure(rows, colors),
        cpu_heatmap(rows, rate, colors),
        traffic_figure(rows, rate, colors),
        resources_figure(rows, rate, colors),
        memory_figure(rows, rate, colors),
    ]
    notes = [
        html.P(
            f"{r.scheduler} at {r.rate:g}/s: {r.status} {r.message}",
            className="alert alert-warn",
        )
        for r in failed[:5]
    ]
    table = [
        html.H3(f"Every metric against {BASELINE} at {rate:g} tuples/s offered"),
        difference_table(rows, rate, colors),
        *notes,
        *cannot_run_notes(rows),
    ]
    engine = results.get("engine", {})
    info = (
        f"{engine.get('tasks', len(rows))} Spark tasks on {engine.get('master', '?')} "
        f"in {engine.get('wall_s', 0):.1f} s"
    )
    scenario = export.results_doc(results)["scenario"]
    charts = [
        _graph(c, signed(f, scenario), scenario) for c, f in zip(ids.CHARTS, figures, strict=True)
    ]
    return charts, table, info


@callback(
    Output(ids.PLOTLY_PRELOAD, "children"),
    Input(ids.PRELOAD_TIMER, "n_intervals"),
    prevent_initial_call=True,
)
def preload_plotly(_ticks):
    """A hidden chart, so plotly is loaded by the time the first results arrive."""
    return dcc.Graph(figure=empty_figure(""), config={"staticPlot": True})


@callback(
    Output(ids.DOWNLOAD_RESULTS, "data"),
    Input(ids.DOWNLOAD_CSV_BUTTON, "n_clicks"),
    Input(ids.DOWNLOAD_JSON_BUTTON, "n_clicks"),
    State(ids.RESULTS_STORE, "data"),
    prevent_initial_call=True,
)
def download_results(_csv, _json, results):
    """The results as CSV or JSON, with the scenario, the offered rate and (JSON) the
    figures' legend (:func:`dashboard.export.download_doc`)."""
    if not results:
        return no_update
    fmt = "csv" if ctx.triggered_id == ids.DOWNLOAD_CSV_BUTTON else "json"
    if sweep_view.is_set_results(results):
        return sweep_view.download(results, fmt)
    return export.download_doc(results, fmt)

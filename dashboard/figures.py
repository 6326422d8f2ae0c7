"""Plotly figures and the difference table, built from simulation result rows.

Pure functions: result rows of the ``simulate --json`` contract in, figures
out. Charts keyed by scheduler draw one trace per scheduler in its colour
(``colors``: scheduler id -> colour) and always show their legend. Bar
charts use the rows at the offered rate (the nearest one simulated);
replicas are averaged, with their spread as error bars.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.colors import FONT_FAMILY, GRID_LINE, INK, MUTED, TRAFFIC_COLORS, TRAFFIC_LABELS

Row = Mapping[str, Any]
PERCENTILES = ("p50", "p95", "p99")


def ok_rows(rows: Sequence[Row]) -> list[Row]:
    """Rows of placements that succeeded (failed ones carry only a status)."""
    return [r for r in rows if r.get("status", "ok") == "ok" and "throughput" in r]


def schedulers_of(rows: Sequence[Row]) -> list[str]:
    """Scheduler ids in the order the rows list them."""
    return list(dict.fromkeys(r["scheduler"] for r in rows))


def nearest_rate(rows: Sequence[Row], rate: float) -> float | None:
    rates = sorted({float(r["rate"]) for r in rows})
    return min(rates, key=lambda x: abs(x - rate)) if rates else None


def at_rate(rows: Sequence[Row], rate: float) -> dict[str, list[Row]]:
    """The successful rows at the simulated rate nearest ``rate``, per scheduler."""
    good = ok_rows(rows)
    chosen = nearest_rate(good, rate)
    out: dict[str, list[Row]] = {}
    for r in good:
        if float(r["rate"]) == chosen:
            out.setdefault(r["scheduler"], []).append(r)
    return out


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def _spread(values: Sequence[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def _style(fig: go.Figure, title: str, y_title: str = "", x_title: str = "") -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 14, "color": INK}},
        template="plotly_white",
        font={"family": FONT_FAMILY, "size": 12, "color": INK},
        margin={"l": 56, "r": 16, "t": 48, "b": 44},
        showlegend=True,
        legend={
            "orientation": "v",
            "yanchor": "top",
            "y": 1.0,
            "x": 1.01,
            "xanchor": "left",
            "font": {"size": 11},
            "tracegroupgap": 2,
        },
        height=340,
        bargap=0.25,
    )
    fig.update_yaxes(title_text=y_title, gridcolor=GRID_LINE, zerolinecolor=GRID_LINE)
    fig.update_xaxes(title_text=x_title, gridcolor=GRID_LINE)
    return fig


def _color_ticks(fig: go.Figure, schedulers: Sequence[str], colors: Mapping[str, str]) -> go.Figure:
    """Scheduler names on the x axis in their own colours."""
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(schedulers),
        ticktext=[
            f'<span style="color:{colors.get(s, INK)}"><b>{s}</b></span>' for s in schedulers
        ],
    )
    return fig


def empty_figure(message: str) -> go.Figure:
    """A blank chart that says why it is blank."""
    fig = go.Figure()
    fig.add_annotation(
        text=message,
        showarrow=False,
        font={"size": 13, "color": MUTED},
        xref="paper",
        yref="paper",
        x=0.5,
        y=0.5,
    )
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(
        template="plotly_white",
        height=340,
        margin={"l": 8, "r": 8, "t": 8, "b": 8},
        font={"family": FONT_FAMILY},
    )
    return fig


def _bar(
    s: str,
    x: Sequence[Any],
    values: Sequence[Sequence[float]],
    colors: Mapping[str, str],
    **kw: Any,
) -> go.Bar:
    spreads = [_spread(v) for v in values]
    return go.Bar(
        name=s,
        x=list(x),
        y=[_mean(v) for v in values],
        marker_color=colors.get(s, "#888"),
        error_y={"type": "data", "array": spreads, "visible": any(spreads)},
        legendgroup=s,
        **kw,
    )


def throughput_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Tuples processed per second, one bar per scheduler."""
    groups = at_rate(rows, rate)
    fig = go.Figure(
        [_bar(s, [s], [[r["throughput"] for r in g]], colors) for s, g in groups.items()]
    )
    return _style(
        fig,
        f"Throughput at {nearest_rate(ok_rows(rows), rate) or rate:g} tuples/s offered",
        "tuples/s",
    )


def latency_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Complete latency p50 / p95 / p99, grouped by percentile, one colour per scheduler."""
    groups = at_rate(rows, rate)
    fig = go.Figure(
        [
            _bar(s, PERCENTILES, [[r["latency_ms"][p] for r in g] for p in PERCENTILES], colors)
            for s, g in groups.items()
        ]
    )
    fig.update_layout(barmode="group")
    return _style(fig, "Complete latency percentiles", "ms")


def sweep_figure(rows: Sequence[Row], colors: Mapping[str, str]) -> go.Figure:
    """Throughput and p99 latency against the offered rate, one line per scheduler."""
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.1,
        subplot_titles=("throughput (tuples/s)", "p99 latency (ms)"),
    )
    good = ok_rows(rows)
    for s in schedulers_of(good):
        mine = [r for r in good if r["scheduler"] == s]
        rates = sorted({float(r["rate"]) for r in mine})
        thr = [_mean([r["throughput"] for r in mine if float(r["rate"]) == x]) for x in rates]
        p99 = [
            _mean([r["latency_ms"]["p99"] for r in mine if float(r["rate"]) == x]) for x in rates
        ]
        style = {"color": colors.get(s, "#888"), "width": 2}
        fig.add_trace(
            go.Scatter(x=rates, y=thr, name=s, legendgroup=s, mode="lines+markers", line=style),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=rates,
                y=p99,
                name=s,
                legendgroup=s,
                mode="lines+markers",
                line=style,
                showlegend=False,
            ),
            row=1,
            col=2,
        )
    fig.update_annotations(font={"size": 11, "color": MUTED})
    _style(fig, "Offered-rate sweep", x_title="")
    fig.update_xaxes(title_text="offered rate (tuples/s)")
    return fig


def cpu_heatmap(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """CPU utilisation (%) of every node under every scheduler."""
    groups = at_rate(rows, rate)
    nodes: list[str] = []
    for g in groups.values():
        for r in g:
            nodes.extend(n for n in r["cpu_util"] if n not in nodes)
    scheds = list(groups)
    z = [
        [100.0 * _mean([r["cpu_util"].get(n, 0.0) for r in groups[s]]) for s in scheds]
        for n in nodes
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=scheds,
            y=nodes,
            zmin=0,
            zmax=100,
            colorscale="YlOrRd",
            text=[[f"{v:.0f}%" for v in line] for line in z],
            texttemplate="%{text}",
            colorbar={"title": {"text": "CPU %"}, "thickness": 12},
            name="CPU utilisation (%)",
            hovertemplate="%{y} under %{x}: %{z:.1f}%<extra></extra>",
        )
    )
    _style(fig, "CPU utilisation per node (%)")
    fig.update_layout(showlegend=False)  # the colour bar is this chart's legend
    fig.update_yaxes(autorange="reversed")
    return _color_ticks(fig, scheds, colors)


def traffic_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Tuples/s between executors, stacked by where they travel."""
    groups = at_rate(rows, rate)
    scheds = list(groups)
    fig = go.Figure(
        [
            go.Bar(
                name=TRAFFIC_LABELS[kind],
                x=scheds,
                marker_color=TRAFFIC_COLORS[kind],
                y=[_mean([r["traffic"][kind] for r in groups[s]]) for s in scheds],
            )
            for kind in ("intra_worker", "inter_worker", "inter_node")
        ]
    )
    fig.update_layout(barmode="stack")
    _style(fig, "Traffic: intra-worker / inter-worker / inter-node", "tuples/s")
    return _color_ticks(fig, scheds, colors)


def resources_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Nodes and worker slots each placement uses."""
    groups = at_rate(rows, rate)
    fig = go.Figure(
        [
            _bar(
                s,
                ("nodes used", "slots used"),
                [[r["nodes_used"] for r in g], [r["slots_used"] for r in g]],
                colors,
            )
            for s, g in groups.items()
        ]
    )
    fig.update_layout(barmode="group")
    return _style(fig, "Resources used", "count")


def memory_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Memory per node (MB), one bar per scheduler."""
    groups = at_rate(rows, rate)
    nodes: list[str] = []
    for g in groups.values():
        for r in g:
            nodes.extend(n for n in r["memory_mb"] if n not in nodes)
    fig = go.Figure(
        [
            _bar(s, nodes, [[r["memory_mb"].get(n, 0.0) for r in g] for n in nodes], colors)
            for s, g in groups.items()
        ]
    )
    fig.update_layout(barmode="group")
    return _style(fig, "Memory per node", "MB")


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str
    direction: int  # +1: higher is better, -1: lower is better, 0: neither
    value: Callable[[Row], float]


DIFF_METRICS: tuple[Metric, ...] = (
    Metric("throughput", "Throughput", "tuples/s", +1, lambda r: r["throughput"]),
    Metric("sink_throughput", "Sink throughput", "tuples/s", +1, lambda r: r["sink_throughput"]),
    Metric("max_rate", "Max rate R*", "tuples/s", +1, lambda r: r["max_rate"]),
    Metric("p50", "p50", "ms", -1, lambda r: r["latency_ms"]["p50"]),
    Metric("p95", "p95", "ms", -1, lambda r: r["latency_ms"]["p95"]),
    Metric("p99", "p99", "ms", -1, lambda r: r["latency_ms"]["p99"]),
    Metric("nodes_used", "Nodes", "", -1, lambda r: r["nodes_used"]),
    Metric("slots_used", "Slots", "", -1, lambda r: r["slots_used"]),
    Metric(
        "inter_node", "Inter-node traffic", "tuples/s", -1, lambda r: r["traffic"]["inter_node"]
    ),
    Metric(
        "cpu_peak",
        "Peak node CPU",
        "%",
        0,
        lambda r: 100.0 * max(r["cpu_util"].values(), default=0.0),
    ),
    Metric("placement_ms", "Placement time", "ms", -1, lambda r: r["placement_ms"]),
)


def difference_rows(
    rows: Sequence[Row], rate: float, baseline: str = "even"
) -> list[dict[str, Any]]:
    """Every metric per scheduler and its change (%) against ``baseline``.

    Each row: ``{"scheduler": id, "<key>": value, "<key>_delta": percent or None}``;
    deltas are None for the baseline itself, when it was not simulated, or
    when its value is 0.
    """
    groups = at_rate(rows, rate)
    means = {
        s: {m.key: _mean([m.value(r) for r in g]) for m in DIFF_METRICS} for s, g in groups.items()
    }
    base = means.get(baseline)
    out = []
    for s, values in means.items():
        row: dict[str, Any] = {"scheduler": s, **values}
        for m in DIFF_METRICS:
            ref = base[m.key] if base is not None and s != baseline else None
            row[f"{m.key}_delta"] = (
                100.0 * (values[m.key] - ref) / abs(ref) if ref not in (None, 0) else None
            )
        out.append(row)
    return out

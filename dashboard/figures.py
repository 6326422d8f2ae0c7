"""Plotly figures and the difference table, built from simulation result rows.

Pure functions: result rows of the ``simulate --json`` contract in, figures
out. Charts keyed by scheduler draw one trace per scheduler in its colour
(``colors``: scheduler id -> colour) and always show their legend. Bar
charts use the rows at the offered rate (the nearest one simulated);
replicas are averaged, with their spread as error bars. Rows are read as
:class:`core.figures.Result`; labels, units and directions come from
:data:`core.figures.FIGURES`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.figures import FIGURES, Figure, Result, is_ok, ok_results
from dashboard.colors import FONT_FAMILY, GRID_LINE, INK, MUTED, TRAFFIC_COLORS

Row = Mapping[str, Any]
PERCENTILES = ("p50", "p95", "p99")
TRAFFIC_KINDS = ("intra_worker", "inter_worker", "inter_node")
LOG_RATIO = 100.0  # a value axis turns logarithmic when its largest bar is this x its smallest
LOG_NOTE = "log scale: one scheduler is over 100x another"
SAME_LOAD = 0.005  # throughputs within 0.5% of each other count as the same
SMALL_TEXT = 12  # px: a chart's least text (notes, legends), legible across a room (issue 24)


def ok_rows(rows: Sequence[Row]) -> list[Row]:
    """Rows of placements that succeeded (failed ones carry only a status)."""
    return [r for r in rows if is_ok(r)]


def schedulers_of(results: Iterable[Result]) -> list[str]:
    """Scheduler ids in the order the results list them."""
    return list(dict.fromkeys(r.scheduler for r in results))


def nearest_rate(results: Iterable[Result], rate: float) -> float | None:
    rates = sorted({r.rate for r in results})
    return min(rates, key=lambda x: abs(x - rate)) if rates else None


def at_rate(rows: Sequence[Row], rate: float) -> dict[str, list[Result]]:
    """The successful results at the simulated rate nearest ``rate``, per scheduler."""
    good = ok_results(rows)
    chosen = nearest_rate(good, rate)
    out: dict[str, list[Result]] = {}
    for r in good:
        if r.rate == chosen:
            out.setdefault(r.scheduler, []).append(r)
    return out


def _mean(values: Iterable[float | None]) -> float:
    """Mean of the known values (None, e.g. an unbounded R*, left out); NaN when none."""
    known = [float(v) for v in values if v is not None]
    return statistics.fmean(known) if known else math.nan


def _spread(values: Sequence[float | None]) -> float:
    known = [float(v) for v in values if v is not None]
    return statistics.stdev(known) if len(known) > 1 else 0.0


def _axis(figure: Figure) -> str:
    """An axis title: the figure's unit ("count" for a count)."""
    return figure.unit or "count"


def spans_orders(values: Iterable[float | None], ratio: float = LOG_RATIO) -> bool:
    """Whether the positive ``values`` span more than ``ratio`` (largest over smallest), so
    that a linear axis would flatten the small ones to nothing.

    >>> spans_orders([2.0, 2.5, 200.0]), spans_orders([2.0, 150.0]), spans_orders([0.0, 5.0])
    (False, False, False)
    >>> spans_orders([1.5, 2.0, 201.0])
    True
    """
    known = [float(v) for v in values if v is not None and math.isfinite(v) and v > 0]
    return len(known) > 1 and max(known) > ratio * min(known)


def _log_axis(fig: go.Figure, col: int | None = None) -> bool:
    """Make the value axis (of subplot column ``col``) logarithmic when its values span
    over :data:`LOG_RATIO`; whether it did."""
    axis = None if col is None else ("x" if col == 1 else f"x{col}")
    values = [
        v for t in fig.data if axis is None or t.xaxis == axis for v in (t.y or ()) if v is not None
    ]
    if not spans_orders(values):
        return False
    fig.update_yaxes(type="log", **({} if col is None else {"row": 1, "col": col}))
    return True


def _titled(title: str, subtitle: str = "", log: bool = False) -> str:
    """A chart title with a second, smaller line saying what is counted (and a log scale)."""
    note = "; ".join(part for part in (subtitle, LOG_NOTE if log else "") if part)
    if not note:
        return title
    return f"{title}<br><span style='font-size:{SMALL_TEXT}px;color:{MUTED}'>{note}</span>"


def _style(fig: go.Figure, title: str, y_title: str = "", x_title: str = "") -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 14, "color": INK}},
        template="plotly_white",
        font={"family": FONT_FAMILY, "size": 12, "color": INK},
        margin={"l": 64, "r": 16, "t": 64 if "<br>" in title else 48, "b": 52},
        showlegend=True,
        legend={
            "orientation": "v",
            "yanchor": "top",
            "y": 1.0,
            "x": 1.01,
            "xanchor": "left",
            "font": {"size": SMALL_TEXT},
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


THROUGHPUT_AXIS = "all executors"  # what a throughput axis counts


def same_load(results: Mapping[str, Sequence[Result]]) -> list[str]:
    """The unsaturated schedulers whose throughput is the same (within 0.5%) as another's:
    below R* a placement carries the offered load whatever it is, so their bars match.

    >>> from core.figures import Latency, Result, Traffic
    >>> def r(s, t, sat=False):
    ...     lat, no = Latency(1.0, 1.0, 1.0, 1.0, 1.0), Traffic(0.0, 0.0, 0.0)
    ...     return Result(s, 10.0, 0, t, t, 5.0, sat, "", lat, 1, 1, {}, {}, no, no, 0.0)
    >>> same_load({"a": [r("a", 420.0)], "b": [r("b", 420.5)], "c": [r("c", 90.0, True)]})
    ['a', 'b']
    """
    means = {s: _mean(r.throughput for r in g) for s, g in results.items()}
    free = {s: v for s, v in means.items() if not any(r.saturated for r in results[s])}
    return [
        s
        for s, v in free.items()
        if any(o != s and abs(w - v) <= SAME_LOAD * max(abs(v), 1e-12) for o, w in free.items())
    ]


def throughput_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Tuples processed per second by all executors (spouts and bolts, so a bolt that emits
    ten tuples per input counts them all), one bar per scheduler; the title says what the
    bar counts and at which offered rate, and a note says why equal bars are equal."""
    groups = at_rate(rows, rate)
    figure = FIGURES["throughput"]
    fig = go.Figure([_bar(s, [s], [[r.throughput for r in g]], colors) for s, g in groups.items()])
    shown = nearest_rate(ok_results(rows), rate) or rate
    title = _titled(
        f"{figure.label} at {shown:,.0f} {figure.unit} offered per spout",
        "tuples processed per second by all executors (spouts and bolts)",
        _log_axis(fig),
    )
    _style(fig, title, f"{figure.unit}, {THROUGHPUT_AXIS}")  # the ticks name the schedulers
    same = same_load(groups)
    if len(same) > 1:
        fig.add_annotation(
            text=f"{len(same)} equal bars: below its R* a placement carries the offered load; "
            "R* (ranking) tells them apart",
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0.0,
            y=-0.16,
            xanchor="left",
            font={"size": SMALL_TEXT, "color": MUTED},
        )
        fig.update_layout(margin={"b": 72})
    return fig


def latency_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Complete latency p50 / p95 / p99, grouped by percentile, one colour per scheduler."""
    groups = at_rate(rows, rate)
    figures = [FIGURES[f"latency_ms.{p}"] for p in PERCENTILES]
    fig = go.Figure(
        [
            _bar(s, [f.short for f in figures], [[f.of(r) for r in g] for f in figures], colors)
            for s, g in groups.items()
        ]
    )
    fig.update_layout(barmode="group")
    title = _titled(
        "Complete latency percentiles",
        "from a spout's emit until its whole tuple tree is done (simulated)",
        _log_axis(fig),
    )
    return _style(fig, title, f"complete latency ({figures[0].unit})", "percentile")


def sweep_figure(rows: Sequence[Row], colors: Mapping[str, str]) -> go.Figure:
    """Throughput and p99 latency against the offered rate, one line per scheduler."""
    left, right = FIGURES["throughput"], FIGURES["latency_ms.p99"]
    fig = make_subplots(
        rows=1,
        cols=2,
        horizontal_spacing=0.1,
        subplot_titles=(
            f"{left.short}, {THROUGHPUT_AXIS} ({left.unit})",
            f"{right.label} ({right.unit})",
        ),
    )
    good = ok_results(rows)
    for s in schedulers_of(good):
        mine = [r for r in good if r.scheduler == s]
        rates = sorted({r.rate for r in mine})
        style = {"color": colors.get(s, "#888"), "width": 2}
        for col, figure in enumerate((left, right), start=1):
            ys = [_mean([figure.of(r) for r in mine if r.rate == x]) for x in rates]
            fig.add_trace(
                go.Scatter(
                    x=rates,
                    y=ys,
                    name=s,
                    legendgroup=s,
                    mode="lines+markers",
                    line=style,
                    showlegend=None if col == 1 else False,
                ),
                row=1,
                col=col,
            )
    fig.update_annotations(font={"size": SMALL_TEXT, "color": MUTED})
    log = [_log_axis(fig, col) for col in (1, 2)]
    title = _titled("Offered-rate sweep", "throughput and p99 as the offered rate grows", any(log))
    _style(fig, title, x_title="")
    fig.update_layout(margin={"t": 88})  # the subplots' titles clear of the two-line title
    fig.update_xaxes(title_text=f"offered rate ({left.unit} per spout)")
    fig.update_yaxes(title_text=left.unit, row=1, col=1)
    fig.update_yaxes(title_text=right.unit, row=1, col=2)
    return fig


def _nodes(groups: Mapping[str, list[Result]], per_node: str) -> list[str]:
    """Node ids of a per-node figure across the results, in first-seen order."""
    return list(
        dict.fromkeys(n for g in groups.values() for r in g for n in FIGURES[per_node].of(r))
    )


def cpu_heatmap(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """CPU utilisation (%) of every node under every scheduler."""
    groups = at_rate(rows, rate)
    figure = FIGURES["cpu_util"]
    nodes = _nodes(groups, figure.key)
    scheds = list(groups)
    z = [
        [100.0 * _mean([r.cpu_util.get(n, 0.0) for r in groups[s]]) for s in scheds] for n in nodes
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
            colorbar={"title": {"text": f"{figure.short} {figure.unit}"}, "thickness": 12},
            name=f"{figure.label} ({figure.unit})",
            hovertemplate="%{y} under %{x}: %{z:.1f}%<extra></extra>",
        )
    )
    _style(
        fig, _titled(f"{figure.label} per node", "% of the node's cores busy"), "node", "scheduler"
    )
    fig.update_layout(showlegend=False)  # the colour bar is this chart's legend
    fig.update_yaxes(autorange="reversed")
    return _color_ticks(fig, scheds, colors)


def traffic_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Tuples/s between executors, stacked by where they travel."""
    groups = at_rate(rows, rate)
    scheds = list(groups)
    figures = [FIGURES[f"traffic.{kind}"] for kind in TRAFFIC_KINDS]
    fig = go.Figure(
        [
            go.Bar(
                name=figure.short,
                x=scheds,
                marker_color=TRAFFIC_COLORS[kind],
                y=[_mean([figure.of(r) for r in groups[s]]) for s in scheds],
            )
            for kind, figure in zip(TRAFFIC_KINDS, figures, strict=True)
        ]
    )
    fig.update_layout(barmode="stack")
    title = " / ".join(f.short.split(" (")[0] for f in figures)
    _style(
        fig,
        _titled("Traffic between executors", f"stacked: {title}"),
        f"{figures[0].unit} between executors",
        "scheduler",
    )
    return _color_ticks(fig, scheds, colors)


def resources_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Nodes and worker slots each placement uses."""
    groups = at_rate(rows, rate)
    figures = [FIGURES["nodes_used"], FIGURES["slots_used"]]
    fig = go.Figure(
        [
            _bar(
                s,
                [f"{f.short} used" for f in figures],
                [[f.of(r) for r in g] for f in figures],
                colors,
            )
            for s, g in groups.items()
        ]
    )
    fig.update_layout(barmode="group")
    title = _titled("Resources used", "nodes and worker slots holding at least one executor")
    return _style(fig, title, _axis(figures[0]))


def memory_figure(rows: Sequence[Row], rate: float, colors: Mapping[str, str]) -> go.Figure:
    """Memory per node (MB), one bar per scheduler."""
    groups = at_rate(rows, rate)
    figure = FIGURES["memory_mb"]
    nodes = _nodes(groups, figure.key)
    fig = go.Figure(
        [
            _bar(s, nodes, [[r.memory_mb.get(n, 0.0) for r in g] for n in nodes], colors)
            for s, g in groups.items()
        ]
    )
    fig.update_layout(barmode="group")
    title = _titled(f"{figure.label} per node", "worker heaps and executor memory", _log_axis(fig))
    return _style(fig, title, f"memory ({figure.unit})", "node")


# the figures of the difference table, in its column order (keys of core.figures.FIGURES)
DIFF_FIGURES: tuple[Figure, ...] = tuple(
    FIGURES[key]
    for key in (
        "throughput",
        "sink_throughput",
        "max_rate",
        "latency_ms.p50",
        "latency_ms.p95",
        "latency_ms.p99",
        "nodes_used",
        "slots_used",
        "traffic.inter_node",
        "cpu_peak",
        "placement_ms",
    )
)


@dataclass(frozen=True)
class Difference:
    """One scheduler's figures (replica means) and their change against the baseline.

    ``values`` and ``deltas`` are keyed by figure key; a delta is in percent of
    the baseline's value, None for the baseline itself, when the baseline was
    not simulated, or when its value is 0 or unknown.
    """

    scheduler: str
    values: Mapping[str, float]
    deltas: Mapping[str, float | None]


def _change(value: float, ref: float | None) -> float | None:
    if ref is None or ref == 0 or math.isnan(ref) or math.isnan(value):
        return None
    return 100.0 * (value - ref) / abs(ref)


def difference_rows(rows: Sequence[Row], rate: float, baseline: str = "even") -> list[Difference]:
    """Each figure of :data:`DIFF_FIGURES` per scheduler, and its change (%) against
    ``baseline``, at the simulated rate nearest ``rate``."""
    groups = at_rate(rows, rate)
    means = {
        s: {f.key: _mean([f.of(r) for r in g]) for f in DIFF_FIGURES} for s, g in groups.items()
    }
    base = means.get(baseline)
    out = []
    for s, values in means.items():
        ref = base if base is not None and s != baseline else None
        deltas = {k: _change(v, ref[k] if ref else None) for k, v in values.items()}
        out.append(Difference(s, values, deltas))
    return out

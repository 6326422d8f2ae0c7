"""Figure builders: hand-made result rows in, figure data checked."""

from __future__ import annotations

import math

import pytest

from dashboard.figures import (
    at_rate,
    cpu_heatmap,
    difference_rows,
    empty_figure,
    latency_figure,
    memory_figure,
    resources_figure,
    sweep_figure,
    throughput_figure,
    traffic_figure,
)

COLORS = {"even": "#111111", "lf": "#222222", "top-storm": "#333333"}


def row(
    scheduler,
    rate=1000.0,
    throughput=900.0,
    p=(1.0, 2.0, 3.0),
    replica=0,
    nodes=2,
    slots=3,
    cpu=None,
    memory=None,
    traffic=(10.0, 20.0, 30.0),
    **extra,
):
    """A result row of the simulate contract with the numbers a test cares about."""
    return {
        "scheduler": scheduler,
        "rate": rate,
        "replica": replica,
        "status": "ok",
        "throughput": throughput,
        "sink_throughput": throughput / 2,
        "max_rate": 5000.0,
        "saturated": False,
        "bottleneck": "node n1 CPU",
        "latency_ms": {"p50": p[0], "p95": p[1], "p99": p[2], "mean": p[0], "max": p[2] * 2},
        "nodes_used": nodes,
        "slots_used": slots,
        "cpu_util": cpu or {"n1": 0.5, "n2": 0.25},
        "memory_mb": memory or {"n1": 768.0, "n2": 256.0},
        "traffic": dict(zip(("intra_worker", "inter_worker", "inter_node"), traffic, strict=True)),
        "traffic_bytes": {"intra_worker": 0, "inter_worker": 0, "inter_node": 0},
        "placement_ms": 1.0,
        **extra,
    }


@pytest.fixture
def rows():
    """even and lf at 1000/s (two replicas of even) and at 2000/s."""
    return [
        row("even", throughput=800.0, p=(1.0, 2.0, 4.0)),
        row("even", throughput=1000.0, p=(1.0, 2.0, 6.0), replica=1),
        row(
            "lf",
            throughput=1200.0,
            p=(0.5, 1.0, 2.0),
            nodes=1,
            slots=1,
            cpu={"n1": 0.9, "n2": 0.0},
            traffic=(60.0, 0.0, 0.0),
        ),
        row("even", rate=2000.0, throughput=1500.0, p=(2.0, 4.0, 8.0)),
        row("lf", rate=2000.0, throughput=2400.0, p=(1.0, 2.0, 3.0)),
        {
            "scheduler": "top-storm",
            "rate": 1000.0,
            "replica": 0,
            "status": "not-enough-resources",
            "message": "no room",
            "placement_ms": 0.1,
        },
    ]


def test_bars_use_the_rows_at_the_nearest_rate_and_skip_failed_placements(rows):
    groups = at_rate(rows, 1100.0)
    assert sorted(groups) == ["even", "lf"]
    assert [r.replica for r in groups["even"]] == [0, 1]


def test_throughput_has_one_bar_per_scheduler_in_its_colour_with_replica_mean(rows):
    fig = throughput_figure(rows, 1000.0, COLORS)
    assert [t.name for t in fig.data] == ["even", "lf"]
    assert [t.y[0] for t in fig.data] == [900.0, 1200.0]
    assert [t.marker.color for t in fig.data] == ["#111111", "#222222"]
    assert fig.data[0].error_y.array[0] == pytest.approx(math.sqrt(2 * 100.0**2))
    assert fig.layout.showlegend is True


def test_latency_groups_percentiles_per_scheduler(rows):
    fig = latency_figure(rows, 1000.0, COLORS)
    even, lf = fig.data
    assert list(even.x) == ["p50", "p95", "p99"]
    assert list(even.y) == [1.0, 2.0, 5.0]
    assert list(lf.y) == [0.5, 1.0, 2.0]
    assert fig.layout.barmode == "group"


def test_sweep_draws_throughput_and_p99_against_the_rate(rows):
    fig = sweep_figure(rows, COLORS)
    assert len(fig.data) == 4
    thr_even, p99_even, thr_lf, p99_lf = fig.data
    assert list(thr_even.x) == [1000.0, 2000.0] and list(thr_even.y) == [900.0, 1500.0]
    assert list(p99_lf.y) == [2.0, 3.0]
    assert thr_even.showlegend is not False and p99_even.showlegend is False
    assert thr_even.line.color == p99_even.line.color == "#111111"
    assert p99_even.xaxis == "x2"


def test_cpu_heatmap_is_percent_per_node_and_scheduler(rows):
    fig = cpu_heatmap(rows, 1000.0, COLORS)
    heat = fig.data[0]
    assert list(heat.y) == ["n1", "n2"] and list(heat.x) == ["even", "lf"]
    assert list(heat.z[0]) == [50.0, 90.0]
    assert list(heat.z[1]) == [25.0, 0.0]
    assert "#222222" in fig.layout.xaxis.ticktext[1]


def test_traffic_stacks_the_three_kinds(rows):
    fig = traffic_figure(rows, 1000.0, COLORS)
    assert [t.name for t in fig.data] == ["intra-worker", "inter-worker (same node)", "inter-node"]
    assert [list(t.y) for t in fig.data] == [[10.0, 60.0], [20.0, 0.0], [30.0, 0.0]]
    assert fig.layout.barmode == "stack"


def test_resources_and_memory(rows):
    res = resources_figure(rows, 1000.0, COLORS)
    assert [list(t.y) for t in res.data] == [[2, 3], [1, 1]]
    mem = memory_figure(rows, 1000.0, COLORS)
    assert list(mem.data[0].x) == ["n1", "n2"]
    assert list(mem.data[0].y) == [768.0, 256.0]


def test_difference_table_compares_every_metric_with_even(rows):
    diff = {d.scheduler: d for d in difference_rows(rows, 1000.0)}
    assert diff["even"].values["throughput"] == 900.0
    assert diff["even"].deltas["throughput"] is None
    assert diff["lf"].deltas["throughput"] == pytest.approx(100.0 * 300.0 / 900.0)
    assert diff["lf"].deltas["latency_ms.p99"] == pytest.approx(-60.0)
    assert diff["lf"].deltas["traffic.inter_node"] == pytest.approx(-100.0)
    assert diff["lf"].values["cpu_peak"] == pytest.approx(0.9)


def test_difference_table_without_even_has_no_deltas(rows):
    diff = difference_rows([r for r in rows if r["scheduler"] != "even"], 1000.0)
    assert [d.scheduler for d in diff] == ["lf"]
    assert diff[0].deltas["throughput"] is None


def test_an_unbounded_r_star_is_left_out_of_the_means(rows):
    # max_rate is None when nothing bounds the rate (no CPU cost): not a number to average
    unbounded = [{**r, "max_rate": None} if r["scheduler"] == "lf" else r for r in rows]
    diff = {d.scheduler: d for d in difference_rows(unbounded, 1000.0)}
    assert math.isnan(diff["lf"].values["max_rate"]) and diff["lf"].deltas["max_rate"] is None
    assert diff["even"].values["max_rate"] == 5000.0


def test_empty_figure_says_why():
    fig = empty_figure("Press Simulate")
    assert fig.layout.annotations[0].text == "Press Simulate"


def test_every_chart_names_what_its_axes_count(rows):
    thr = throughput_figure(rows, 1000.0, COLORS)
    assert thr.layout.yaxis.title.text == "tuples/s, all executors"
    assert thr.layout.title.text.startswith("Throughput at 1,000 tuples/s offered per spout<br>")
    assert "by all executors (spouts and bolts)" in thr.layout.title.text
    lat = latency_figure(rows, 1000.0, COLORS)
    assert lat.layout.yaxis.title.text == "complete latency (ms)"
    assert lat.layout.xaxis.title.text == "percentile"
    sweep = sweep_figure(rows, COLORS)
    assert sweep.layout.xaxis.title.text == "offered rate (tuples/s per spout)"
    assert [sweep.layout.yaxis.title.text, sweep.layout.yaxis2.title.text] == ["tuples/s", "ms"]
    assert memory_figure(rows, 1000.0, COLORS).layout.yaxis.title.text == "memory (MB)"
    heat = cpu_heatmap(rows, 1000.0, COLORS)
    assert [heat.layout.xaxis.title.text, heat.layout.yaxis.title.text] == ["scheduler", "node"]
    traffic = traffic_figure(rows, 1000.0, COLORS)
    assert traffic.layout.yaxis.title.text == "tuples/s between executors"


def test_a_value_axis_turns_log_when_one_scheduler_is_over_100x_another(rows):
    # the case: rstorm's p99 near 200 ms beside ~2 ms flattens a linear axis
    slow = [*rows, row("rstorm", p=(150.0, 180.0, 240.0))]
    wide = latency_figure(slow, 1000.0, COLORS)
    assert wide.layout.yaxis.type == "log"
    assert "log scale: one scheduler is over 100x another" in wide.layout.title.text
    # 0.5 ms (lf's p50) to 6 ms (even's p99): linear, no note
    narrow = latency_figure(rows, 1000.0, COLORS)
    assert narrow.layout.yaxis.type is None and "log scale" not in narrow.layout.title.text
    # exactly 100x is not over 100x
    edge = [row("even", p=(2.0, 2.0, 2.0)), row("lf", p=(200.0, 200.0, 200.0))]
    assert latency_figure(edge, 1000.0, COLORS).layout.yaxis.type is None
    # the sweep decides per panel: only its p99 side spans over 100x (240 ms against 2 ms)
    sweep = sweep_figure(slow, COLORS)
    assert sweep.layout.yaxis.type is None and sweep.layout.yaxis2.type == "log"


def test_equal_throughput_bars_say_why_they_are_equal():
    same = [row("even", throughput=420_000.0), row("lf", throughput=420_500.0)]
    saturated = row("top-storm", throughput=90_000.0, saturated=True)
    fig = throughput_figure([*same, saturated], 1000.0, COLORS)
    (note,) = fig.layout.annotations
    assert note.text.startswith("2 equal bars: below its R* a placement carries the offered load")
    # different loads: no note
    apart = [row("even", throughput=420_000.0), row("lf", throughput=300_000.0)]
    assert not throughput_figure(apart, 1000.0, COLORS).layout.annotations

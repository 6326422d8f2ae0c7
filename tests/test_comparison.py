"""Comparison tasks run as plain Python: settings, rows, gaps, CSV."""

import pytest

from core.comparison import (
    SettingsError,
    add_gaps,
    at_rate,
    check_settings,
    comparison_tasks,
    flatten_result,
    run_task,
    scheduler_list,
)
from core.presets import preset
from core.schedulers import SchedulerError, run_scheduler
from core.simulator import simulate


@pytest.mark.parametrize(
    ("rates", "replicas", "tuples", "message"),
    [
        ([0.0], 1, 10_000, "--rate"),
        ([-5.0], 1, 10_000, "--rate"),
        ([float("nan")], 1, 10_000, "--rate"),
        ([100.0], 0, 10_000, "--replicas"),
        ([100.0], 1, 10_000_000, "--tuples"),
        ([], 1, 10_000, "--rate"),
    ],
)
def test_bad_settings_name_the_option(rates, replicas, tuples, message):
    with pytest.raises(SettingsError, match=message):
        check_settings(rates, replicas, tuples)


def test_all_expands_to_the_registry_in_order():
    ids = scheduler_list(["all"])
    assert ids[0] == "even" and "optimal" in ids and "slotscope" in ids
    assert scheduler_list(["lf", "all"])[0] == "lf"
    with pytest.raises(SchedulerError, match="unknown scheduler 'x'"):
        scheduler_list(["x"])


def test_one_task_per_scheduler_rate_replica():
    tasks = comparison_tasks(preset("lf-linear"), [("even", {}), ("lf", {})], [10.0, 20.0], 3)
    assert len(tasks) == 12
    assert {(t["scheduler"], t["rate"], t["replica"]) for t in tasks} == {
        (s, r, k) for s in ("even", "lf") for r in (10.0, 20.0) for k in range(3)
    }


def _untimed(row):
    return {k: v for k, v in row.items() if k != "placement_ms"}


def test_run_task_is_the_scheduler_then_the_simulation():
    sc = preset("lf-diamond")
    task = comparison_tasks(sc, [("lf", {})], [500.0], 1, tuples=2000)[0]
    row = run_task(task)
    expected = simulate(sc, run_scheduler(sc, "lf"), 500.0, tuples=2000)
    assert _untimed(row) == {**_untimed(expected), "status": "ok"}
    lat = row["latency_ms"]
    assert lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    # below saturation every tuple reaches the sink: 8 components in a line, selectivity 1
    assert row["sink_throughput"] == pytest.approx(500.0)
    assert row["throughput"] == pytest.approx(8 * 500.0)


def test_a_refused_optimal_search_is_a_row_with_its_message():
    sc = preset("wordcount")
    task = comparison_tasks(sc, [("optimal", {"limit": 10})], [1000.0], 1, tuples=2000)[0]
    row = run_task(task)
    assert row["status"] == "refused"
    assert "search space has" in row["message"]


def test_gap_to_best_appears_when_optimal_ran():
    rows = [
        {"scheduler": "even", "rate": 1.0, "replica": 0, "status": "ok", "throughput": 75.0},
        {"scheduler": "optimal", "rate": 1.0, "replica": 0, "status": "ok", "throughput": 100.0},
        {"scheduler": "rstorm", "rate": 1.0, "replica": 0, "status": "not-enough-resources"},
    ]
    gaps = add_gaps(rows)
    assert gaps[0]["gap_to_best"] == pytest.approx(0.25)
    assert gaps[1]["gap_to_best"] == 0.0
    assert "gap_to_best" not in gaps[2]
    assert "gap_to_best" not in add_gaps(rows[:1])[0]


def test_flatten_for_csv():
    flat = flatten_result({"a": 1, "latency_ms": {"p99": 2.0}, "cpu_util": {"n1": 0.5}})
    assert flat == {"a": 1, "latency_ms.p99": 2.0, "cpu_util.n1": 0.5}


def test_schedulers_see_the_task_rate_as_the_offered_rate():
    sc = preset("wordcount")
    moved = at_rate(sc, 777.0)
    assert moved.workload.rate == 777.0 and sc.workload.rate == 15_000
    assert at_rate(sc, sc.workload.rate) is sc
    # slotscope optimises for the task's rate: far above R* it must raise R*, not latency
    low = run_task(comparison_tasks(sc, [("slotscope", {})], [1000.0], 1, tuples=2000)[0])
    high = run_task(comparison_tasks(sc, [("slotscope", {})], [400_000.0], 1, tuples=2000)[0])
    # saturated, the objective is R*: slotscope raises it above every other scheduler's
    assert high["saturated"] and high["max_rate"] > low["max_rate"]
    for other in ("even", "rstorm", "aniello-online", "toss", "top-storm", "hetero"):
        row = run_task(comparison_tasks(sc, [(other, {})], [400_000.0], 1, tuples=2000)[0])
        assert high["throughput"] >= row["throughput"], other

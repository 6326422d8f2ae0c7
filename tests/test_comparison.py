"""Comparison tasks run as plain Python: settings, rows, gaps, CSV."""

import pytest

from core.comparison import (
    add_gaps,
    at_rate,
    compare,
    comparison_tasks,
    run_task,
    scheduler_key,
    scheduler_list,
)
from core.figures import Result, Skipped
from core.presets import preset
from core.registry import SCHEDULERS, SchedulerError, feed, run_scheduler
from core.report import flatten_result
from core.simulator import observe, simulate
from core.simulator.coefficients import capacity_cores
from core.spark import task_batches


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
    # below saturation every tuple reaches the sink: 8 components in a line, selectivity 1;
    # the acker (one per worker, Storm 1.2.3's default) takes 8 acks per tuple too
    assert row["sink_throughput"] == pytest.approx(500.0)
    assert row["throughput"] == pytest.approx((8 + 8) * 500.0)


def test_a_refused_optimal_search_is_a_row_with_its_message():
    sc = preset("wordcount")
    params = {"method": "enumerate", "limit": 10}
    task = comparison_tasks(sc, [("optimal", params)], [1000.0], 1, tuples=2000)[0]
    row = run_task(task)
    assert row["status"] == "refused"
    assert "search space has" in row["message"]


def _result(scheduler: str, throughput: float) -> Result:
    sc = preset("lf-linear")
    row = simulate(sc, run_scheduler(sc, "even"), 1.0, tuples=1000)
    return Result.from_json({**row, "scheduler": scheduler, "throughput": throughput})


def test_gap_to_best_appears_when_optimal_ran():
    rows = [
        _result("even", 75.0),
        _result("optimal", 100.0),
        Skipped("rstorm", 1.0, 0, "not-enough-resources", "no room", 0.1),
    ]
    gaps = add_gaps(rows)
    assert gaps[0].gap_to_best == pytest.approx(0.25)
    assert gaps[1].gap_to_best == 0.0
    assert gaps[2] == rows[2]
    assert add_gaps(rows[:1])[0].gap_to_best is None
    # in JSON the key appears only with a value, after the status
    assert list(gaps[0].to_json())[-2:] == ["status", "gap_to_best"]
    assert "gap_to_best" not in rows[0].to_json()


def test_flatten_for_csv():
    flat = flatten_result({"a": 1, "latency_ms": {"p99": 2.0}, "cpu_util": {"n1": 0.5}})
    assert flat == {"a": 1, "latency_ms.p99": 2.0, "cpu_util.n1": 0.5}


def test_schedulers_see_the_task_rate_as_the_offered_rate():
    sc = preset("wordcount")
    moved = at_rate(sc, 777.0)
    assert moved.workload.rate == 777.0 and sc.workload.rate == 20_000
    assert at_rate(sc, sc.workload.rate) is sc
    # slotscope ranks by R* at any rate (issue 12): about the same R* below and far above it
    low = run_task(comparison_tasks(sc, [("slotscope", {})], [1000.0], 1, tuples=2000)[0])
    high = run_task(comparison_tasks(sc, [("slotscope", {})], [400_000.0], 1, tuples=2000)[0])
    assert high["saturated"] and not low["saturated"]
    assert high["max_rate"] == pytest.approx(low["max_rate"], rel=0.01)  # ties: latency differs
    # saturated, throughput is R* x visits: above every scheduler that keeps the parallelism
    for other in ("even", "rstorm", "aniello-online", "toss", "top-storm"):
        row = run_task(comparison_tasks(sc, [(other, {})], [400_000.0], 1, tuples=2000)[0])
        assert high["throughput"] >= row["throughput"], other


def _per_node_observed_load(scenario, placement):
    """(observed utilisation x capacity, sum of observed executor loads) per node, Hz."""
    obs = scenario.observations
    out = {}
    # a node's utilisation is of its capacity in cores (SMT threads at their yield)
    for n, cores in zip(scenario.cluster.nodes, capacity_cores(scenario), strict=True):
        full = cores * n.ghz * 1e9
        ran = sum(h for e, h in obs.executor_load_hz.items() if placement[e][0] == n.id)
        out[n.id] = (obs.node_cpu_util.get(n.id, 0.0) * full, ran)
    return out


def test_aniello_online_is_fed_from_aniello_offlines_placement():
    # aniello-online assumes aniello-offline's placement is running: its observations are
    # that placement's, so each node's observed utilisation is exactly the load of the
    # executors offline put there (no phantom background), and "traffic before" is the
    # observed traffic between offline's nodes.
    sc, rate = preset("wordcount"), 15_000.0
    fed = feed(sc, SCHEDULERS["aniello-online"], rate)
    offline = run_scheduler(sc, "aniello-offline")
    assert fed.observations == observe(sc, offline, rate)
    for node, (util_hz, ran_hz) in _per_node_observed_load(fed, offline.placement()).items():
        assert util_hz == pytest.approx(ran_hz, rel=1e-9), node
    node = {e: n for e, (n, _) in offline.placement().items()}
    crossing = sum(f.rate for f in fed.observations.traffic if node[f.source] != node[f.target])
    out = run_scheduler(fed, "aniello-online")
    assert out.details["traffic_before"] == pytest.approx(crossing, abs=1e-3)
    assert out.details["overloaded_nodes"] == []


def test_toss_is_not_fed_observations_so_its_row_is_its_own_placement_simulated():
    sc = preset("top-storm-wordcount-s3-w5")
    for rate in (100.0, 400_000.0):
        row = run_task(comparison_tasks(sc, [("toss", {})], [rate], 1, tuples=2000)[0])
        alone = simulate(
            at_rate(sc, rate), run_scheduler(at_rate(sc, rate), "toss"), rate, tuples=2000
        )
        assert _untimed(row) == {**_untimed(alone), "status": "ok"}


def test_compare_in_process_runs_every_task_sorted_by_the_requested_order():
    sc = preset("lf-linear")
    schedulers = [("lf", {}), ("even", {})]
    calls = []

    def recording_map(func, tasks):
        calls.append(len(tasks))
        return map(func, tasks)

    doc = compare(
        sc,
        schedulers,
        [500.0, 100.0],
        tuples=2000,
        mapper=recording_map,
        engine={"master": "in-process"},
    )
    assert calls == [4]
    assert list(doc["engine"]) == ["master", "tasks", "wall_s"]
    assert doc["engine"]["tasks"] == 4 and doc["skipped"] == []
    order = [(r["scheduler"], r["rate"]) for r in doc["results"]]
    assert order == [("lf", 100.0), ("lf", 500.0), ("even", 100.0), ("even", 500.0)]
    direct = {
        (t["scheduler"], t["rate"]): run_task(t)
        for t in comparison_tasks(sc, schedulers, [500.0, 100.0], tuples=2000)
    }
    for row in doc["results"]:
        want = direct[(row["scheduler"], row["rate"])]
        assert row["throughput"] == want["throughput"] and row["max_rate"] == want["max_rate"]


def test_a_sweep_is_one_spark_task_per_scheduler_the_searches_first_rows_unmoved():
    """Simulate's job (dashboard.jobs.spark_compare): every rate of a scheduler in one Spark
    task (a search's R* memo serves its later rates), the searches' tasks started first;
    the rows come back in the requested order all the same."""
    sc = preset("lf-linear")
    schedulers = [("even", {}), ("slotscope", {"budget": 50}), ("lf", {})]
    rates = [500.0, 100.0, 250.0]
    tasks = comparison_tasks(sc, schedulers, rates, tuples=200)
    assert len({scheduler_key(t) for t in tasks}) == 3
    other = comparison_tasks(sc, [("slotscope", {"budget": 60})], rates, tuples=200)[0]
    assert scheduler_key(other) != scheduler_key(tasks[3])  # other parameters, other memo
    batches = task_batches(tasks, scheduler_key, 2)  # at most 9 // 4 = 2 tasks a batch
    assert [len(b) for b in batches] == [2, 1, 2, 1, 2, 1]
    assert all(len({t["scheduler"] for t in b}) == 1 for b in batches)
    seen = []

    def recording_map(func, given):
        seen.extend(t["scheduler"] for t in given)
        return map(func, given)

    doc = compare(sc, schedulers, rates, tuples=200, mapper=recording_map)
    assert seen == ["slotscope"] * 3 + ["even"] * 3 + ["lf"] * 3
    order = [(r["scheduler"], r["rate"]) for r in doc["results"]]
    assert order == [(s, r) for s, _ in schedulers for r in sorted(rates)]

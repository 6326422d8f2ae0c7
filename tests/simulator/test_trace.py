"""The vectorised trace against the event oracle, the analytic layer and itself."""

import numpy as np
import pytest
from event_oracle import event_latencies
from sim_builders import NO_IDLE_SLEEP, make, manual

from core.registry import run_scheduler
from core.simulator import Evaluator, analyze, simulate
from core.simulator.plan import trace_plan
from core.simulator.trace import fifo_departures, run_trace, walk

CHAIN = [
    {"id": "a", "parallelism": 1, "cpu_us": 10.0},
    {"id": "b", "parallelism": 1, "cpu_us": 20.0},
    {"id": "c", "parallelism": 1, "cpu_us": 30.0, "selectivity": 0.0},
]


def _plan(scenario, schedule, load=None, rate=None):
    """Trace plan of a schedule at ``rate``, or at ``load`` x R*."""
    ev = Evaluator(scenario, schedule.parallelism)
    slots = ev.encode(schedule.placement())
    if rate is None:
        rate = load * ev.score(slots).max_rate
    return trace_plan(ev, slots, rate)


def _chain(cv=1.0, network=None):
    sc = make(
        CHAIN,
        [("a", "b"), ("b", "c")],
        [{"id": f"n{i}"} for i in range(3)],
        workload={"service_cv": cv},
        network=network or {},
    )
    return sc, manual(sc, {"a#0": ("n0", 0), "b#0": ("n1", 0), "c#0": ("n2", 0)})


def _every_grouping():
    """Every grouping, fractional selectivity, ackers, gamma service times."""
    comps = [
        {"id": "s", "parallelism": 2, "cpu_us": 30.0, "selectivity": 1.5},
        {"id": "a", "parallelism": 3, "cpu_us": 60.0, "selectivity": 0.7},
        {"id": "b", "parallelism": 2, "cpu_us": 40.0},
        {"id": "c", "parallelism": 2, "cpu_us": 50.0, "selectivity": 0.0},
    ]
    streams = [
        ("s", "a", "fields", {"key_skew": 1.0, "keys": 20}),
        ("s", "b", "all"),
        ("a", "c", "local-or-shuffle"),
        ("b", "c", "global"),
    ]
    sc = make(
        comps,
        streams,
        [{"id": "n1"}, {"id": "n2"}],
        topology={"ackers": 2},
        workload={"service_cv": 0.5},
        network={"same_rack_us": 50.0},
    )
    return sc, run_scheduler(sc, "even")


def test_fifo_departures_follow_the_lindley_recursion():
    rng = np.random.default_rng(3)
    n = 2000
    arrival = np.round(np.cumsum(rng.exponential(1.0, n)), 1)  # rounding makes ties
    rng.shuffle(arrival)
    service = rng.exponential(1.5, n)
    server = rng.integers(0, 3, n)
    got = fifo_departures(arrival, service, server, 3)
    for k in range(3):
        idx = [i for i in sorted(range(n), key=lambda i: (arrival[i], i)) if server[i] == k]
        done = 0.0
        for i in idx:
            done = max(arrival[i], done) + service[i]
            assert got[i] == pytest.approx(done, rel=1e-12)


@pytest.mark.parametrize("case", ["wordcount", "every_grouping"])
def test_trace_agrees_with_the_event_oracle(case, wordcount_acked):
    if case == "wordcount":
        sc, sched = wordcount_acked, run_scheduler(wordcount_acked, "even")
    else:
        sc, sched = _every_grouping()
    plan = _plan(sc, sched, load=0.9)  # queues form
    trace = run_trace(plan, 400, seed=5, replica=1)
    oracle = event_latencies(plan, 400, seed=5, replica=1)
    np.testing.assert_allclose(trace.latency_s, oracle, rtol=1e-9, atol=1e-12)


def test_tabulated_and_computed_hop_costs_agree(monkeypatch):
    sc, sched = _every_grouping()
    tabulated = run_trace(_plan(sc, sched, load=0.5), 300)
    monkeypatch.setattr("core.simulator.plan.HOP_TABLE_MAX", 0)
    computed = run_trace(_plan(sc, sched, load=0.5), 300)
    np.testing.assert_array_equal(tabulated.latency_s, computed.latency_s)


def test_low_load_mean_latency_is_the_analytic_path_sum():
    # without the transfer threads' waits, which are phase-locked within one replica
    # (tests/simulator/test_polling.py averages them over replicas)
    sc, sched = _chain(network=NO_IDLE_SLEEP)
    row = simulate(sc, sched, rate=10.0, tuples=4000)
    estimate = analyze(sc, sched, rate=10.0).latency_estimate_ms
    assert row["latency_ms"]["mean"] == pytest.approx(estimate, rel=0.03)
    assert estimate == pytest.approx(0.5732, rel=1e-3)  # see test_capacity, less 2 x 0.5 ms


def test_trace_throughput_is_effective_rate_times_visit_ratios(wordcount_acked):
    sched = run_scheduler(wordcount_acked, "even")
    for offered in (5_000.0, 10 * analyze(wordcount_acked, sched).max_rate):
        a = analyze(wordcount_acked, sched, rate=offered)
        trace = run_trace(_plan(wordcount_acked, sched, rate=a.effective_rate), 20_000)
        for comp, v in {"spout": 1, "split": 1, "count": 10, "__acker": 12}.items():
            measured = trace.processed[comp] / trace.horizon_s
            assert measured == pytest.approx(a.effective_rate * v, rel=0.03)


def test_fractional_selectivity_keeps_its_mean():
    comps = [
        {"id": "s", "parallelism": 1, "cpu_us": 1.0, "selectivity": 2.5},
        {"id": "b", "parallelism": 2, "cpu_us": 1.0, "selectivity": 0.0},
    ]
    sc = make(comps, [("s", "b")])
    trace = run_trace(_plan(sc, run_scheduler(sc, "even"), rate=100.0), 40_000)
    assert trace.processed["b"] / 40_000 == pytest.approx(2.5, rel=0.01)


def test_percentiles_are_ordered(wordcount_acked):
    row = simulate(wordcount_acked, run_scheduler(wordcount_acked, "even"), 20_000.0, tuples=5000)
    lat = row["latency_ms"]
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    assert lat["p50"] <= lat["max"] and lat["mean"] <= lat["max"]


def test_same_seed_same_results_other_seed_or_replica_other_results(wordcount):
    sched = run_scheduler(wordcount, "even")
    first = simulate(wordcount, sched, 20_000.0, replica=0, tuples=3000, seed=4)
    assert simulate(wordcount, sched, 20_000.0, replica=0, tuples=3000, seed=4) == first
    for other in ({"seed": 5, "replica": 0}, {"seed": 4, "replica": 1}):
        row = simulate(wordcount, sched, 20_000.0, tuples=3000, **other)
        assert row["latency_ms"] != first["latency_ms"]


def test_schedulers_and_rates_see_the_same_random_numbers(wordcount):
    even = run_scheduler(wordcount, "even")
    packed = manual(wordcount, {e: ("n1", 0) for e in even.placement()})
    steps = [
        list(walk(_plan(wordcount, s, rate=r), 500, 0, 0))
        for s, r in ((even, 1000.0), (packed, 1000.0), (even, 4000.0))
    ]
    for one, two, fast in zip(*steps, strict=True):
        assert (one.executor == two.executor).all()  # shuffle and fields ignore placement
        assert (one.root == two.root).all()
        assert (one.executor == fast.executor).all()
        if one.arrival_s is not None:
            np.testing.assert_allclose(fast.arrival_s, one.arrival_s / 4)


def test_higher_offered_rate_never_lowers_latency_on_a_pipeline():
    sc, sched = _chain()
    p99 = [
        simulate(sc, sched, r, tuples=5000)["latency_ms"]["p99"]
        for r in (1000.0, 4000.0, 16000.0, 30000.0)
    ]
    assert all(b >= a for a, b in zip(p99, p99[1:], strict=False))


def test_warm_up_drops_the_first_tenth(wordcount):
    trace = run_trace(_plan(wordcount, run_scheduler(wordcount, "even"), rate=100.0), 1000)
    assert trace.warmup.sum() == 100 and trace.warmup[:100].all()
    assert trace.hops == 1000 * (1 + 1 + 10)


def test_saturated_placement_is_simulated_at_the_effective_rate():
    sc, sched = _chain()
    row = simulate(sc, sched, 1e6, tuples=3000)
    assert row["saturated"] and row["max_rate"] == pytest.approx(1e6 / 33)
    assert row["throughput"] == pytest.approx(3 * row["max_rate"])
    assert row["latency_ms"]["p99"] > 0

"""Storm's flow control (topology.max.spout.pending) in the trace and the analytic layer."""

from dataclasses import replace

import numpy as np
import pytest
from sim_builders import make, manual, wordcount_data
from window_oracle import window_latencies

import core.simulator as simulator
from core.model import validate_scenario
from core.registry import run_scheduler
from core.simulator import Evaluator, analyze, simulate
from core.simulator.plan import trace_plan
from core.simulator.trace import run_trace
from core.simulator.window import saturated_warmup

EXACT = 200  # passes enough for the small cases below to reach the window's fixed point


def _wordcount(window: int, ackers: int = 3):
    data = wordcount_data(ackers=ackers)
    data["workload"]["max_spout_pending"] = window
    sc = validate_scenario(data)
    return sc, run_scheduler(sc, "even")


def _plan(sc, sched, load: float, window: int | None = None):
    """Trace plan offered at ``load`` x R*, service times at min(load, 1) x R*."""
    ev = Evaluator(sc, sched.parallelism)
    slots = ev.encode(sched.placement())
    r_star = ev.score(slots).max_rate
    plan = trace_plan(ev, slots, load * r_star, service_rate=min(load, 1.0) * r_star)
    return (plan if window is None else replace(plan, window=window)), r_star


def _chain(window: int):
    """a (10 us) -> b (20 us) -> c (30 us), one executor each on its own node."""
    sc = make(
        [
            {"id": "a", "parallelism": 1, "cpu_us": 10.0},
            {"id": "b", "parallelism": 1, "cpu_us": 20.0},
            {"id": "c", "parallelism": 1, "cpu_us": 30.0, "selectivity": 0.0},
        ],
        [("a", "b"), ("b", "c")],
        [{"id": f"n{i}"} for i in range(3)],
        workload={"max_spout_pending": window},
    )
    return sc, manual(sc, {"a#0": ("n0", 0), "b#0": ("n1", 0), "c#0": ("n2", 0)})


def _spout_into_bolts(spouts: int, bolts: int, bolt_us: float, window: int = 1000):
    """a (10 us, ``spouts`` executors on n0) -shuffle-> b (``bolt_us``, one executor a node)."""
    sc = make(
        [
            {"id": "a", "parallelism": spouts, "cpu_us": 10.0},
            {"id": "b", "parallelism": bolts, "cpu_us": bolt_us, "selectivity": 0.0},
        ],
        [("a", "b")],
        [{"id": f"n{i}"} for i in range(1 + bolts)],
        workload={"max_spout_pending": window},
    )
    spout_slots = {f"a#{i}": ("n0", 0) for i in range(spouts)}
    return sc, manual(sc, {**spout_slots, **{f"b#{j}": (f"n{j + 1}", 0) for j in range(bolts)}})


def test_saturated_latency_does_not_grow_with_the_number_of_tuples():
    sc, sched = _chain(window=100)
    short, long = (simulate(sc, sched, 1e5, tuples=n)["latency_ms"] for n in (20_000, 200_000))
    assert long["mean"] == pytest.approx(short["mean"], rel=0.03)
    assert long["p99"] == pytest.approx(short["p99"], rel=0.05)
    # Little: 100 trees in flight at R* = 1 / (30 us + 3 us deserialisation) = 30,303/s
    r_star = analyze(sc, sched).max_rate
    assert r_star == pytest.approx(1 / 33e-6)
    assert long["mean"] == pytest.approx(100 / r_star * 1e3, rel=0.03)  # 3.3 ms


def test_mean_latency_above_saturation_is_littles_law():
    # the bottleneck is split#1's thread; sharing its node's cores (CPU contention)
    # it completes trees a little below R* in the trace (94.5-95.5% of R* over
    # seeds 0-3): Little's law holds at the trace's own completion rate
    sc, sched = _wordcount(window=100, ackers=0)
    plan, r_star = _plan(sc, sched, load=3.0)
    trace = run_trace(plan, 100_000)
    in_flight = 100 * 5  # window x spout executors
    completed = 100_000 / trace.horizon_s
    assert 0.93 * r_star < completed < r_star
    assert trace.summary_ms()["mean"] == pytest.approx(in_flight / completed * 1e3, rel=0.03)
    assert analyze(sc, sched, rate=3 * r_star).latency_estimate_ms == pytest.approx(
        in_flight / r_star * 1e3, rel=1e-12
    )


def test_below_saturation_a_large_window_leaves_the_open_loop_trace_unchanged():
    sc, sched = _wordcount(window=1000)
    windowed, _ = _plan(sc, sched, load=0.8)
    open_loop = replace(windowed, window=None)
    got, want = run_trace(windowed, 20_000, seed=3), run_trace(open_loop, 20_000, seed=3)
    assert got.passes == 1 and got.exact
    np.testing.assert_array_equal(got.latency_s, want.latency_s)
    assert got.horizon_s == want.horizon_s and got.processed == want.processed


def test_a_window_of_one_runs_a_deterministic_pipeline_closed_loop():
    # one spout (100 us), one bolt (200 us) in one worker (1 us hand-off), no variance:
    # each tree starts when the previous completes, every 301 us
    sc = make(
        [
            {"id": "s", "parallelism": 1, "cpu_us": 100.0},
            {"id": "b", "parallelism": 1, "cpu_us": 200.0, "selectivity": 0.0},
        ],
        [("s", "b")],
        workload={"service_cv": 0.0, "max_spout_pending": 1},
    )
    sched = manual(sc, {"s#0": ("n1", 0), "b#0": ("n1", 0)})
    ev = Evaluator(sc, sched.parallelism)
    plan = trace_plan(ev, ev.encode(sched.placement()), rate=1e6, service_rate=1e3)
    trace = run_trace(plan, 2000, max_passes=EXACT)
    cycle_s = 301e-6
    assert trace.exact
    np.testing.assert_allclose(trace.latency_s, cycle_s, rtol=1e-9)
    # the last of 2000 trees starts 1999 cycles after the first (offered within ~1 us)
    assert trace.horizon_s == pytest.approx(1999 * cycle_s, abs=1e-5)  # 3,322 trees/s


@pytest.mark.parametrize(("window", "load"), [(5, 2.0), (20, 1.5), (3, 0.9)])
def test_trace_agrees_with_the_window_oracle(window, load):
    sc, sched = _wordcount(window)
    plan, _ = _plan(sc, sched, load)
    trace = run_trace(plan, 600, seed=5, replica=1, max_passes=EXACT)
    latency, _ = window_latencies(plan, 600, window, seed=5, replica=1)
    assert trace.exact
    np.testing.assert_allclose(trace.latency_s, latency, rtol=1e-9, atol=1e-12)


def test_the_sweep_lands_close_to_the_fixed_point():
    sc, sched = _wordcount(window=100)
    plan, _ = _plan(sc, sched, load=2.0)
    quick = run_trace(plan, 10_000)
    exact = run_trace(plan, 10_000, max_passes=EXACT)
    assert exact.exact and not quick.exact and quick.passes == 3
    quick_ms, exact_ms = quick.summary_ms(), exact.summary_ms()
    # the spouts take acks at their 1 ms wake-ups, so the fixed point's latencies fall
    # on whole periods, which the sweep's chunks blur (before the wake-ups: 1.2%, 2.6%)
    assert quick_ms["mean"] == pytest.approx(exact_ms["mean"], rel=0.04)  # measured: 3.3%
    assert quick_ms["p99"] == pytest.approx(exact_ms["p99"], rel=0.04)  # measured: 0.0%


def test_tied_bottlenecks_keep_littles_mean_and_a_tail_below_one_full_queue():
    # two equal bolts fed by shuffle share the bottleneck: the 1000 trees in flight
    # wander between their queues (uniform shuffle; Storm's load-aware shuffle
    # ignores imbalances this small), so the tail grows with the run toward the
    # bound where all of them wait at one bolt, while the mean stays at Little's
    # law whatever the length
    sc, sched = _spout_into_bolts(spouts=1, bolts=2, bolt_us=40.0)
    r_star = analyze(sc, sched).max_rate
    assert r_star == pytest.approx(2 / 43e-6)  # 40 us + 3 us deserialisation, x2
    one_queue_ms = 1000 * 43e-3  # all 1000 trees behind one bolt: 43 ms
    runs = [simulate(sc, sched, 1e5, tuples=n)["latency_ms"] for n in (20_000, 200_000)]
    for run in runs:
        assert run["mean"] == pytest.approx(1000 / r_star * 1e3, rel=0.03)  # 21.5 ms
        assert run["p99"] < one_queue_ms  # measured: 23.2 ms at 20,000 tuples, 31.1 at 200,000


def test_saturated_warmup_fills_the_slowest_spout_component_for_each():
    # spout a: 2 executors, b: 6; window 100, offered 3x what completes: b fills
    # 600 slots over 900 offered tuples, then turns them over twice (1,200)
    assert saturated_warmup(100, [2, 6], rate=3.0, throughput=1.0) == 2 * (900 + 1200)
    # just above R* the windows fill slowly: 100x the slots are offered first
    assert saturated_warmup(10, [1], rate=1.01, throughput=1.0) == 1010 + 20


def test_a_saturated_run_measures_the_full_pipeline_whatever_its_length():
    # 4 spout executors x 100 pending before one 50 us bolt: the 400 trees emitted
    # at once into an empty pipeline would pull a 1,000-tuple run's mean down to
    # 16.5 ms if the windows' fill were not run first and dropped (measured)
    sc, sched = _spout_into_bolts(spouts=4, bolts=1, bolt_us=50.0, window=100)
    r_star = analyze(sc, sched).max_rate
    assert r_star == pytest.approx(1 / 53e-6)  # 50 us + 3 us deserialisation
    little_ms = 400 / r_star * 1e3  # 21.2 ms
    for n in (1_000, 20_000):
        mean = simulate(sc, sched, 3 * r_star, tuples=n)["latency_ms"]["mean"]
        assert mean == pytest.approx(little_ms, rel=0.03)  # measured 20.8 and 21.4 ms


def test_below_saturation_the_warmup_is_the_first_tenth():
    sc, sched = _wordcount(window=1000, ackers=0)
    r_star = analyze(sc, sched).max_rate
    ev = Evaluator(sc, sched.parallelism)
    plan = trace_plan(ev, ev.encode(sched.placement()), 0.5 * r_star)
    row = simulate(sc, sched, 0.5 * r_star, tuples=5_000, seed=2)
    assert row["latency_ms"] == run_trace(plan, 5_000, seed=2).summary_ms()


def test_the_saturated_warmup_stays_within_the_hop_limit(monkeypatch):
    sc, sched = _wordcount(window=1000, ackers=0)
    r_star = analyze(sc, sched).max_rate
    seen = []
    real = simulator.run_trace
    monkeypatch.setattr(
        simulator, "run_trace", lambda plan, n, *a, **k: seen.append(n) or real(plan, n, *a, **k)
    )
    monkeypatch.setattr(simulator, "MAX_HOPS", 200_000)
    simulate(sc, sched, 2 * r_star, tuples=5_000)
    hops_per_tuple = sum(Evaluator(sc, sched.parallelism).visits.values())
    assert 5_000 < seen[0] <= 200_000 / hops_per_tuple  # 20,000 wanted; the hops allow fewer

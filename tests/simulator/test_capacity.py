"""The analytic layer: bounds, R*, bottleneck, backpressure, CPU, memory, traffic."""

import numpy as np
import pytest
from sim_builders import make, manual, wordcount_data

from core.model import validate_scenario, with_changes
from core.registry import run_scheduler
from core.simulator import Evaluator, analyze

SPOUT_BOLT = [
    {"id": "spout", "parallelism": 1, "cpu_us": 10.0},
    {"id": "bolt", "parallelism": 1, "cpu_us": 50.0, "selectivity": 0.0},
]


def _two_stage(where_bolt=("n1", 0), nodes=None, **kw):
    sc = make(SPOUT_BOLT, [("spout", "bolt")], nodes or [{"id": "n1"}, {"id": "n2"}], **kw)
    return sc, manual(sc, {"spout#0": ("n1", 0), "bolt#0": where_bolt})


def test_hand_computed_thread_bound_in_one_worker():
    # reference-speed cores, one worker: bolt 50 us per tuple -> R* = 1 / 50 us
    sc, sched = _two_stage()
    a = analyze(sc, sched, rate=5000.0)
    assert a.max_rate == pytest.approx(20_000.0)
    assert a.bottleneck == "executor bolt#0 thread"
    assert not a.saturated
    assert a.cpu_util["n1"] == pytest.approx(5000 * 60e-6 / 4)
    assert a.cpu_util["n2"] == 0.0
    assert a.traffic == {"intra_worker": 5000.0, "inter_worker": 0.0, "inter_node": 0.0}
    assert a.traffic_bytes["intra_worker"] == pytest.approx(5000.0 * 200)


def test_crossing_a_worker_adds_serialisation_to_both_ends():
    # bolt 50 us + 3 us deserialisation; spout 10 us + 2 us serialisation
    sc, sched = _two_stage(("n1", 1))
    a = analyze(sc, sched, rate=5000.0)
    assert a.max_rate == pytest.approx(1e6 / 53)
    assert a.executor_cpu["spout#0"] == pytest.approx(5000 * 12e-6)
    assert a.traffic["inter_worker"] == pytest.approx(5000.0)


def test_hand_computed_node_cpu_bound():
    comps = [
        {"id": "spout", "parallelism": 1, "cpu_us": 10.0},
        {"id": "bolt", "parallelism": 4, "cpu_us": 50.0, "selectivity": 0.0},
    ]
    sc = make(comps, [("spout", "bolt")], [{"id": "n1", "cores": 1}])
    a = analyze(
        sc, manual(sc, {e: ("n1", 0) for e in ["spout#0"] + [f"bolt#{i}" for i in range(4)]})
    )
    # per unit rate the node needs 10 + 4 x 50/4 us = 60 us of its one core
    assert a.max_rate == pytest.approx(1e6 / 60)
    assert a.bottleneck == "node n1 CPU"


def test_each_worker_in_use_takes_its_jvm_cpu_off_its_node():
    comps = [
        {"id": "spout", "parallelism": 1, "cpu_us": 10.0},
        {"id": "bolt", "parallelism": 4, "cpu_us": 50.0, "selectivity": 0.0},
    ]
    free = {"serialize_us": 0.0, "deserialize_us": 0.0, "worker_cpu_cores": 0.25}
    sc = make(comps, [("spout", "bolt")], [{"id": "n1", "cores": 1}, {"id": "n2"}], network=free)
    bolts = [f"bolt#{i}" for i in range(4)]
    one = manual(sc, {e: ("n1", 0) for e in ["spout#0", *bolts]})
    two = manual(sc, {"spout#0": ("n1", 0), **{b: ("n1", 1) for b in bolts}})
    # 60 us per unit rate on the core left by one JVM (0.75), then by two (0.5)
    a1, a2 = analyze(sc, one, rate=1000.0), analyze(sc, two, rate=1000.0)
    assert a1.max_rate == pytest.approx(0.75e6 / 60)
    assert a2.max_rate == pytest.approx(0.5e6 / 60)
    assert a2.bottleneck == "node n1 CPU"
    assert a1.cpu_util == pytest.approx({"n1": 0.06 + 0.25, "n2": 0.0})  # n2 runs no worker
    assert a2.cpu_util["n1"] == pytest.approx(0.06 + 0.5)
    assert a2.executor_cpu["spout#0"] == pytest.approx(1000 * 10e-6)  # the JVM's is not its


def test_hand_computed_nic_bound_names_the_slower_nic():
    comps = [
        {"id": "spout", "parallelism": 1, "cpu_us": 1.0, "tuple_bytes": 12_500},
        {"id": "bolt", "parallelism": 1, "cpu_us": 1.0, "selectivity": 0.0},
    ]
    free = {"serialize_us": 0.0, "deserialize_us": 0.0}
    sc = make(comps, [("spout", "bolt")], [{"id": "n1"}, {"id": "n2"}], network=free)
    sched = manual(sc, {"spout#0": ("n1", 0), "bolt#0": ("n2", 0)})
    a = analyze(sc, sched)
    assert a.max_rate == pytest.approx(1e9 / (12_500 * 8))  # 100 kbit per tuple on 1 Gbit/s
    assert a.bottleneck == "node n1 NIC"
    fast = make(
        comps, [("spout", "bolt")], [{"id": "n1", "nic_gbps": 10.0}, {"id": "n2"}], network=free
    )
    assert analyze(fast, sched).bottleneck == "node n2 NIC"


def test_backpressure_reports_everything_at_the_maximum_rate():
    sc, sched = _two_stage()
    a = analyze(sc, sched, rate=50_000.0)
    assert a.saturated and a.effective_rate == pytest.approx(20_000.0)
    assert a.throughput == pytest.approx(2 * 20_000.0)
    assert a.sink_throughput == pytest.approx(20_000.0)
    assert a.cpu_util["n1"] == pytest.approx(20_000 * 60e-6 / 4)


def test_sink_throughput_is_rate_times_selectivities_below_saturation(wordcount):
    a = analyze(wordcount, run_scheduler(wordcount, "even"), rate=1000.0)
    assert not a.saturated
    assert a.sink_throughput == pytest.approx(1000.0 * 1.0 * 10.0)
    assert a.throughput == pytest.approx(1000.0 * (1 + 1 + 10))


def test_higher_offered_rate_never_lowers_throughput(wordcount):
    ev = Evaluator(wordcount)
    slots = ev.encode(run_scheduler(wordcount, "even").placement())
    rates = np.geomspace(100, 10 * ev.score(slots).max_rate, 25)
    throughput = [ev.score(slots, r).throughput for r in rates]
    assert all(b >= a for a, b in zip(throughput, throughput[1:], strict=False))


def test_adding_a_node_never_lowers_max_rate(wordcount):
    bigger = with_changes(
        wordcount,
        cluster={
            "nodes": [
                *[n.model_dump() for n in wordcount.cluster.nodes],
                {"id": "n6", "cores": 16, "ghz": 3.6, "slots": 4},
            ]
        },
    )
    rng = np.random.default_rng(1)
    small, large = Evaluator(wordcount), Evaluator(bigger)
    for _ in range(50):
        slots = rng.integers(0, small.nodes.slots, len(small.executors))
        assert large.score(slots).max_rate >= small.score(slots).max_rate


def test_moving_a_hot_pair_apart_never_lowers_inter_node_traffic(wordcount):
    # the pair's own traffic leaves the node; its traffic with the others (kept off
    # n1 and n2, whose slots are 0-7) crosses nodes either way
    ev = Evaluator(wordcount)
    rng = np.random.default_rng(2)
    split, count = ev.executors.index("split#0"), ev.executors.index("count#0")
    n1_slot0, n2_slot0 = 0, 4
    for _ in range(50):
        slots = rng.integers(8, ev.nodes.slots, len(ev.executors))
        together, apart = slots.copy(), slots.copy()
        together[[split, count]] = n1_slot0
        apart[split], apart[count] = n1_slot0, n2_slot0
        before = ev.evaluate(together).traffic["inter_node"]
        assert ev.evaluate(apart).traffic["inter_node"] >= before - 1e-9


def test_profiled_service_time_and_fixed_overhead_replace_cpu_us():
    profiling = {"per_type": {"bolt": {"fast": {"e_ms": 0.1, "met_pct": 25.0}}}}
    sc = make(SPOUT_BOLT, [("spout", "bolt")], [{"id": "n1", "type": "fast"}], profiling=profiling)
    a = analyze(sc, manual(sc, {"spout#0": ("n1", 0), "bolt#0": ("n1", 0)}), rate=5000.0)
    assert a.max_rate == pytest.approx(10_000.0)  # 100 us per tuple on this node type
    # 25% of the machine's 4 cores is a fixed core, plus 5000 x 110 us
    assert a.cpu_util["n1"] == pytest.approx((1.0 + 5000 * 110e-6) / 4)
    assert a.executor_cpu["bolt#0"] == pytest.approx(1.0 + 5000 * 100e-6)


def test_slower_cores_stretch_service_time():
    sc, sched = _two_stage(nodes=[{"id": "n1", "ghz": 1.5}, {"id": "n2"}])
    assert analyze(sc, sched).max_rate == pytest.approx(10_000.0)  # 50 us at half speed


def test_memory_counts_worker_heaps_and_reports_over_commit():
    sc, sched = _two_stage(("n1", 1))
    assert analyze(sc, sched).memory_mb == {"n1": 2 * 768.0, "n2": 0.0}
    assert analyze(sc, sched).warnings == ()
    heavy = [{**c, "memory_mb": 500.0} for c in SPOUT_BOLT]
    sc = make(heavy, [("spout", "bolt")], [{"id": "n1", "ram_gb": 0.5}])
    a = analyze(sc, manual(sc, {"spout#0": ("n1", 0), "bolt#0": ("n1", 0)}))
    assert a.memory_mb["n1"] == 1000.0
    assert any("heap over-committed" in w for w in a.warnings)
    assert any("node n1 memory over-committed" in w for w in a.warnings)


def test_oversubscribed_node_shares_its_core_among_all_its_executors():
    comps = [
        {"id": "spout", "parallelism": 1, "cpu_us": 10.0},
        {"id": "bolt", "parallelism": 4, "cpu_us": 50.0, "selectivity": 0.0},
    ]
    sc = make(comps, [("spout", "bolt")], [{"id": "n1", "cores": 1}])
    ev = Evaluator(sc)
    loads = ev.loads(np.zeros(len(ev.executors), dtype=np.int64))
    # above R* every thread is busy: five executors share one core, each at 1/5
    assert ev.service_means(loads, 2 * loads.max_rate) == pytest.approx(5 * loads.service)
    # at R* the node is exactly full: the four bolts (a = 0.208) are always busy,
    # the spout (a = 1/6) is slowed by all four, f = 5, and busy u = 5/6 of the time;
    # each bolt is slowed by three bolts and the spout: f = 1 + 3 + 5/6
    f = ev.slowdown(loads, loads.max_rate)
    assert f == pytest.approx([5.0] + [4 + 5 / 6] * 4)


def test_latency_estimate_at_low_load_is_the_path_sum():
    chain = [
        {"id": "a", "parallelism": 1, "cpu_us": 10.0},
        {"id": "b", "parallelism": 1, "cpu_us": 20.0},
        {"id": "c", "parallelism": 1, "cpu_us": 30.0, "selectivity": 0.0},
    ]
    nodes = [{"id": f"n{i}"} for i in range(3)]
    sc = make(chain, [("a", "b"), ("b", "c")], nodes)
    sched = manual(sc, {"a#0": ("n0", 0), "b#0": ("n1", 0), "c#0": ("n2", 0)})
    # one way between nodes + 200 B on 1 Gbit/s + half the sender's transfer-thread sleep
    hop_us = 250.0 + 200 * 8 / 1e3 + 500.0
    path_us = (10 + 2) + hop_us + (20 + 3 + 2) + hop_us + (30 + 3)
    assert analyze(sc, sched, rate=1.0).latency_estimate_ms == pytest.approx(
        path_us / 1e3, rel=1e-3
    )


def test_encode_decode_round_trip_and_score_agrees_with_evaluate(wordcount_acked):
    sched = run_scheduler(wordcount_acked, "even")
    ev = Evaluator(wordcount_acked, sched.parallelism)
    slots = ev.encode(sched.placement())
    assert ev.decode(slots) == sched.placement()
    score, full = ev.score(slots), ev.evaluate(slots)
    assert score.throughput == full.throughput
    assert score.max_rate == full.max_rate
    # score's CPU contention is the mean-field bound (exact on one core): a little lower
    assert score.latency_estimate_ms <= full.latency_estimate_ms
    assert score.latency_estimate_ms == pytest.approx(full.latency_estimate_ms, rel=0.15)
    assert score.nodes_used == full.nodes_used == 5


def test_key_skew_overloads_the_hot_counter_and_lowers_max_rate():
    flat, skewed = (validate_scenario(wordcount_data(skew=s)) for s in (0.0, 1.2))
    place = run_scheduler(flat, "even")
    a, b = analyze(flat, place), analyze(skewed, manual(skewed, place.placement()))
    counts = [f"count#{i}" for i in range(12)]
    assert max(b.executor_rate[c] for c in counts) > 2 * max(a.executor_rate[c] for c in counts)
    assert b.max_rate <= a.max_rate

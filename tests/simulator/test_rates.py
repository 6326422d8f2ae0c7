"""Visit ratios, per-executor rates by grouping, executor-to-executor flows."""

import numpy as np
import pytest
from sim_builders import make

from core.simulator.rates import (
    executor_flows,
    executor_rates,
    flow_arrays,
    key_executor,
    stream_table,
    target_weights,
    unit_rates,
    visit_ratios,
    zipf_weights,
)
from core.topology import build_graph


def _skewed(skew: float, keys: int = 1000):
    return make(
        [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": 8}],
        [("s", "b", "fields", {"key_skew": skew, "keys": keys})],
    )


def test_wordcount_visit_ratios_multiply_selectivities(wordcount):
    assert visit_ratios(build_graph(wordcount)) == {"spout": 1.0, "split": 1.0, "count": 10.0}


def test_acker_gets_one_ack_per_tuple_processed_by_every_component(wordcount_acked):
    visits = visit_ratios(build_graph(wordcount_acked))
    assert visits["__acker"] == pytest.approx(1.0 + 1.0 + 10.0)


def test_unreliable_spouts_leave_the_ackers_idle_but_placed(wordcount_acked):
    from core.model import with_changes
    from core.registry import run_scheduler
    from core.simulator import Evaluator, analyze
    from core.simulator.plan import trace_plan
    from core.simulator.trace import run_trace

    topology = wordcount_acked.topology.model_copy(update={"reliable_spouts": False})
    idle = with_changes(wordcount_acked, topology=topology)
    assert visit_ratios(build_graph(idle))["__acker"] == 0.0
    schedule = run_scheduler(idle, "even")
    assert len([a for a in schedule.assignments if a.executor.startswith("__acker")]) == 3
    acked, unacked = analyze(wordcount_acked, schedule), analyze(idle, schedule)
    assert unacked.max_rate > acked.max_rate  # no acker CPU, no ack (de)serialisation
    assert unacked.memory_mb == acked.memory_mb  # the acker executors still run
    ev = Evaluator(idle, schedule.parallelism)
    trace = run_trace(trace_plan(ev, ev.encode(schedule.placement()), 1000.0), 2000)
    assert trace.processed["__acker"] == 0 and trace.processed["count"] > 0


def test_all_grouping_delivers_every_tuple_to_every_executor():
    sc = make(
        [{"id": "s", "parallelism": 2, "selectivity": 2.0}, {"id": "b", "parallelism": 3}],
        [("s", "b", "all")],
    )
    graph = build_graph(sc)
    assert visit_ratios(graph)["b"] == pytest.approx(2.0 * 3)
    rates = executor_rates(graph)
    assert [rates[f"b#{i}"] for i in range(3)] == pytest.approx([2.0, 2.0, 2.0])


def test_global_grouping_sends_everything_to_executor_zero():
    sc = make(
        [{"id": "s", "parallelism": 2}, {"id": "b", "parallelism": 3}], [("s", "b", "global")]
    )
    rates = executor_rates(build_graph(sc))
    assert [rates[f"b#{i}"] for i in range(3)] == [1.0, 0.0, 0.0]


def test_shuffle_splits_evenly_and_spouts_share_the_offered_rate(wordcount):
    rates = executor_rates(build_graph(wordcount))
    assert rates["spout#3"] == pytest.approx(1 / 5)
    assert rates["split#7"] == pytest.approx(1 / 8)
    assert sum(rates[f"count#{i}"] for i in range(12)) == pytest.approx(10.0)


def test_uniform_keys_spread_fields_load_almost_evenly():
    shares = target_weights(
        build_graph(_skewed(0.0, keys=10_000)), _skewed(0.0).topology.streams[0]
    )
    assert shares.sum() == pytest.approx(1.0)
    assert shares.max() < 1.1 / 8


def test_key_skew_concentrates_fields_load_on_the_executor_of_the_hot_key():
    sc = _skewed(1.2)
    shares = target_weights(build_graph(sc), sc.topology.streams[0])
    hot = key_executor(1000, 8)[0]
    assert shares.sum() == pytest.approx(1.0)
    assert shares.argmax() == hot
    assert shares[hot] >= zipf_weights(1000, 1.2)[0] > 1.8 / 8  # the hot key alone: 23%


def test_key_hashing_is_deterministic_and_in_range():
    a, b = key_executor(5000, 12), key_executor(5000, 12)
    assert (a == b).all() and a.min() == 0 and a.max() == 11
    assert np.bincount(a, minlength=12).min() > 5000 / 12 * 0.8


def test_zipf_weights_fall_with_rank():
    w = zipf_weights(4, 1.0)
    assert w == pytest.approx(np.array([1, 1 / 2, 1 / 3, 1 / 4]) / (25 / 12))


def test_local_or_shuffle_prefers_the_senders_worker():
    # s#0 shares worker A with b#0; s#1 is alone in worker B, so it shuffles
    sc = make(
        [{"id": "s", "parallelism": 2}, {"id": "b", "parallelism": 2}],
        [("s", "b", "local-or-shuffle")],
    )
    graph = build_graph(sc)
    place = {"s#0": "A", "b#0": "A", "s#1": "B", "b#1": "C"}
    rates = executor_rates(graph, place)
    assert rates["b#0"] == pytest.approx(0.5 + 0.25)
    assert rates["b#1"] == pytest.approx(0.25)


def test_local_or_shuffle_splits_evenly_over_several_local_targets():
    sc = make(
        [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": 3}],
        [("s", "b", "local-or-shuffle")],
    )
    rates = executor_rates(build_graph(sc), {"s#0": 0, "b#0": 0, "b#1": 0, "b#2": 1})
    assert [rates[f"b#{i}"] for i in range(3)] == pytest.approx([0.5, 0.5, 0.0])


def test_local_or_shuffle_needs_a_placement():
    sc = make(
        [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": 1}],
        [("s", "b", "local-or-shuffle")],
    )
    with pytest.raises(ValueError, match="worker_of"):
        unit_rates(stream_table(build_graph(sc)))


def test_flows_add_up_to_what_each_executor_receives(wordcount_acked):
    table = stream_table(build_graph(wordcount_acked))
    flows = executor_flows(table, None, rate=100.0)
    received: dict[str, float] = {}
    for _, v, r in flows:
        received[v] = received.get(v, 0.0) + r
    rates = unit_rates(table)
    for e, lam in zip(table.executors, rates.arrival, strict=True):
        if not e.startswith("spout"):
            assert received[e] == pytest.approx(100.0 * lam)
    assert ("spout#0", "split#0", pytest.approx(100 / 5 / 8)) in flows


def test_local_or_shuffle_flows_stay_in_the_worker():
    sc = make(
        [{"id": "s", "parallelism": 2}, {"id": "b", "parallelism": 2}],
        [("s", "b", "local-or-shuffle")],
    )
    table = stream_table(build_graph(sc))
    flows = executor_flows(table, np.array([0, 1, 0, 2]), rate=10.0)  # s#0, s#1, b#0, b#1
    assert sorted(flows) == [
        ("s#0", "b#0", pytest.approx(5.0)),
        ("s#1", "b#0", pytest.approx(2.5)),
        ("s#1", "b#1", pytest.approx(2.5)),
    ]


def test_flows_are_the_non_zero_cells_of_each_streams_rate_matrix():
    # fields over 3 keys leaves 5 of 8 targets without a tuple, and b's selectivity 0
    # leaves c without one: the flows must be exactly the dense matrices' non-zero
    # cells, in row-major order, stream by stream
    sc = make(
        [
            {"id": "s", "parallelism": 3},
            {"id": "b", "parallelism": 8, "selectivity": 0.0},
            {"id": "c", "parallelism": 2},
        ],
        [("s", "b", "fields", {"keys": 3}), ("b", "c"), ("s", "c")],
    )
    table = stream_table(build_graph(sc))
    rates = unit_rates(table)
    want_u, want_v, want_r = [], [], []
    for k in range(len(table.streams)):
        out = rates.src_out[table.src_start[k] : table.src_start[k + 1]] * 10.0
        pair = np.outer(out, table.weights[k])
        i, j = np.nonzero(pair)
        want_u += (i + table.comp_start[table.src_comp[k]]).tolist()
        want_v += (j + table.comp_start[table.dst_comp[k]]).tolist()
        want_r += pair[i, j].tolist()
    u, v, r = flow_arrays(table, None, 10.0)
    assert (u.tolist(), v.tolist(), r.tolist()) == (want_u, want_v, want_r)
    assert len(set(v.tolist()) & set(range(3, 11))) == 3  # three keys reach three b's

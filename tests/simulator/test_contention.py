"""CPU contention: the analytic factors and the trace against a shared-core event oracle.

Tolerance: the model's steady-state stretch (processor sharing averaged over
the other executors' busy fractions) must give the oracle's mean complete
latency within ``TOLERANCE``; the oracle is the mean of ``SEEDS`` seeded runs,
and its remaining noise is part of that band.
"""

import numpy as np
import pytest
from shared_core_oracle import shared_core_latencies
from sim_builders import NO_IDLE_SLEEP, make, manual

from core.simulator import Evaluator
from core.simulator.contention import contention_factors
from core.simulator.plan import trace_plan
from core.simulator.trace import WARMUP_FRACTION, run_trace

TOLERANCE = 0.15  # relative, model mean latency vs the shared-core oracle's
SERVICE_US = 100.0
NODE_LOAD = 0.9  # CPU of the node in use, fraction of its cores
SEEDS = 6  # runs averaged: at 90% load one 20,000-tuple mean is only within ~15%


def _chain(length: int, cores: int, nodes: int = 1):
    comps = [{"id": f"c{i}", "parallelism": 1, "cpu_us": SERVICE_US} for i in range(length)]
    comps[-1]["selectivity"] = 0.0
    streams = [(f"c{i}", f"c{i + 1}") for i in range(length - 1)]
    node_list = [{"id": f"n{j}", "cores": cores, "slots": 1} for j in range(nodes)]
    # the shared-core oracle replays no hop timers: Storm 2 without the transfer wait
    workload = {"max_spout_pending": 10**6}
    sc = make(comps, streams, node_list, workload=workload, network=NO_IDLE_SLEEP)
    place = {f"c{i}#0": (f"n{i % nodes}", 0) for i in range(length)}
    sched = manual(sc, place)
    ev = Evaluator(sc, sched.parallelism)
    slots = ev.encode(sched.placement())
    rate = NODE_LOAD * cores * nodes / (length * SERVICE_US * 1e-6)
    return ev, slots, rate


def _means(length, cores, nodes=1, tuples=20_000, seeds=SEEDS):
    """Mean complete latency (ms): oracle and trace over ``seeds`` runs, and the analytic."""
    ev, slots, rate = _chain(length, cores, nodes)
    plan = trace_plan(ev, slots, rate)
    loads = ev.loads(slots)
    warm = int(np.ceil(WARMUP_FRACTION * tuples))
    oracle = [
        shared_core_latencies(plan, loads.service, ev.nodes.cores, tuples, seed)[warm:].mean()
        for seed in range(seeds)
    ]
    trace = [run_trace(plan, tuples, seed).summary_ms()["mean"] for seed in range(seeds)]
    analytic = ev.latency_estimate_ms(loads, rate)
    return float(np.mean(oracle)) * 1e3, float(np.mean(trace)), analytic


def test_two_executors_on_one_core_at_90_percent_match_the_shared_core_oracle():
    oracle, trace, analytic = _means(2, 1)
    # Kleinrock's M/M/1 on the node's 200 us of work per tuple: 0.2 / 0.1 = 2 ms;
    # without contention the model said 2 x 0.1 / 0.55 = 0.36 ms
    assert oracle == pytest.approx(2.0, rel=TOLERANCE)
    assert trace == pytest.approx(oracle, rel=TOLERANCE)
    assert analytic == pytest.approx(oracle, rel=TOLERANCE)


@pytest.mark.parametrize(("length", "cores"), [(4, 2), (8, 4)])
def test_chains_on_two_and_four_cores_match_the_shared_core_oracle(length, cores):
    oracle, trace, analytic = _means(length, cores, tuples=10_000)
    assert trace == pytest.approx(oracle, rel=TOLERANCE)
    assert analytic == pytest.approx(oracle, rel=TOLERANCE)


def test_executors_on_different_nodes_are_not_slowed():
    ev, slots, rate = _chain(2, 1, nodes=2)
    loads = ev.loads(slots)
    assert ev.slowdown(loads, rate).tolist() == [1.0, 1.0]
    oracle, trace, analytic = _means(2, 1, nodes=2)
    # two M/M/1 at 0.9: 2 x 0.1 / 0.1 ms, plus a 250 us hop, serialisation and wire
    assert trace == pytest.approx(oracle, rel=TOLERANCE)
    assert analytic == pytest.approx(oracle, rel=TOLERANCE)


def test_one_core_closed_form_equals_the_general_fixed_point():
    a = np.array([0.3, 0.2, 0.25])
    one = contention_factors(a, np.zeros(3, dtype=np.int64), np.array([1.0]))
    # f_e = 1 + sum of the others' busy fractions u_k = a_k f_k
    u = a * one
    assert one == pytest.approx(1.0 + u.sum() - u)
    # two cores: f_e = 1 + P(both others busy) / 2
    two = contention_factors(a, np.zeros(3, dtype=np.int64), np.array([2.0]))
    u = a * two
    both = np.array([u[1] * u[2], u[0] * u[2], u[0] * u[1]])
    assert two == pytest.approx(1.0 + both / 2.0)


def test_a_node_with_no_more_executors_than_cores_never_slows():
    f = contention_factors(np.array([0.99, 0.99]), np.array([0, 0]), np.array([2.0]))
    assert f.tolist() == [1.0, 1.0]


def test_storm_cost_defaults_are_the_network_defaults_and_override_by_name():
    from core.model import Network
    from core.problem import DEFAULT_COSTS
    from core.topology import ACK_TUPLE_BYTES, acker_component

    net = Network()
    names = ("intra_worker_us", "inter_worker_us", "inter_node_us")
    for name in (*names, "transfer_sleep_ms", "spout_sleep_ms"):
        assert getattr(DEFAULT_COSTS, name) == getattr(net, name)
    assert (DEFAULT_COSTS.serialize_us, DEFAULT_COSTS.deserialize_us) == (2.0, 3.0)
    sc = make([{"id": "s", "parallelism": 1}], topology={"ackers": 1})
    assert acker_component(sc).tuple_bytes == DEFAULT_COSTS.ack_tuple_bytes == ACK_TUPLE_BYTES
    with pytest.raises(ValueError, match="no_such_cost"):
        DEFAULT_COSTS.override(no_such_cost=1.0)


def test_executor_overhead_adds_thread_time_at_the_node_speed():
    from core.problem import DEFAULT_COSTS

    sc = make([{"id": "s", "parallelism": 1, "cpu_us": 10.0}], nodes=[{"id": "n", "ghz": 1.5}])
    costs = DEFAULT_COSTS.override(executor_overhead_us=2.0)
    ev, ev2 = Evaluator(sc), Evaluator(sc, costs=costs)
    # 1.5 GHz against the 3.0 GHz reference: half speed, (10 + 2) us x 2
    assert ev.service_s[0, 0] == pytest.approx(20e-6)
    assert ev2.service_s[0, 0] == pytest.approx(24e-6)


def test_a_crowded_node_past_the_exact_size_takes_the_mean_field_in_linear_memory():
    # 2,100 executors on one 4-core node: the exact factors would hold 2,100 x 2,100
    # cells per node (past EXACT_CELLS); the mean field gives every one the same stretch
    import tracemalloc

    from core.simulator.contention import EXACT_CELLS, contention_factors, mean_field_factors

    width = int(EXACT_CELLS**0.5) + 100
    demand = np.full(width, 0.01)
    node_of = np.zeros(width, dtype=np.int64)
    cores = np.array([4.0])
    tracemalloc.start()
    f = contention_factors(demand, node_of, cores)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert np.array_equal(f, mean_field_factors(demand, node_of, cores))
    assert f.min() > 1.0  # 21 cores of demand on 4 cores: everyone stretched
    assert peak < 100 * width * 8  # linear in the executors, not their square

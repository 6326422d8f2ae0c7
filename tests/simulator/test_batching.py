"""Storm 1.x queue batching: flush-timer waits, hand-computed and against the oracle."""

import numpy as np
import pytest
from event_oracle import event_latencies
from sim_builders import make, manual

from core.simulator import Evaluator
from core.simulator.batching import Flush, flush_period_s, next_tick
from core.simulator.plan import trace_plan
from core.simulator.trace import run_trace

STORM_1 = {"batch_size": 100, "batch_flush_ms": 1.0}  # Storm 1.2.3 defaults.yaml
TINY_US = 1.0  # service time small against the 1 ms period


def _chain(length, placement, nodes=2, network=STORM_1, cv=0.0):
    comps = [{"id": f"c{i}", "parallelism": 1, "cpu_us": TINY_US} for i in range(length)]
    comps[-1]["selectivity"] = 0.0
    streams = [(f"c{i}", f"c{i + 1}") for i in range(length - 1)]
    sc = make(
        comps,
        streams,
        [{"id": f"n{j}", "slots": 2} for j in range(nodes)],
        rate=200.0,
        network=network,
        workload={"service_cv": cv},
    )
    sched = manual(sc, {f"c{i}#0": where for i, where in enumerate(placement)})
    ev = Evaluator(sc, sched.parallelism)
    slots = ev.encode(sched.placement())
    return ev, slots


def _latency_ms(ev, slots, tuples=20_000, seeds=3):
    plan = trace_plan(ev, slots, ev.scenario.workload.rate)
    trace = np.mean([run_trace(plan, tuples, seed).summary_ms()["mean"] for seed in range(seeds)])
    analytic = ev.latency_estimate_ms(ev.loads(slots), ev.scenario.workload.rate)
    return float(trace), analytic


def test_batching_is_off_unless_the_queues_batch():
    ev, _ = _chain(2, [("n0", 0), ("n0", 0)], network={})
    assert flush_period_s(ev.scenario.network) == 0.0
    ev, _ = _chain(2, [("n0", 0), ("n0", 0)])
    assert flush_period_s(ev.scenario.network) == pytest.approx(1e-3)


def test_next_tick_and_hop_arrivals_by_hand():
    period = 1e-3
    # a tick at 0.4 ms: 0.1 -> 0.4, 0.4 -> 0.4 (on the tick), 0.41 -> 1.4
    got = next_tick(np.array([0.1e-3, 0.4e-3, 0.41e-3]), np.full(3, 0.4e-3), period)
    assert got * 1e3 == pytest.approx([0.4, 0.4, 1.4])
    # sent at 0.1 ms from a worker ticking at 0.4 ms: send queue out at 0.4,
    # second queue one period later, 1.4; inside the worker + 1 us; to a worker
    # ticking at 0.2 ms after 250 us on the wire: 1.65 -> its tick at 2.2 ms
    flush = Flush(period, np.full(2, 0.4e-3), np.full(2, 0.2e-3), np.array([False, True]))
    got = flush.arrivals(np.full(2, 0.1e-3), np.array([1e-6, 250e-6]))
    assert got * 1e3 == pytest.approx([1.401, 2.2])


def test_a_spout_hop_inside_a_worker_waits_half_a_period_then_one():
    # emission at a random phase of the worker's timer: 0.5 ms on average, then
    # the receive queue's flush one period later, 1 us hand-off, two 1 us services
    ev, slots = _chain(2, [("n0", 0), ("n0", 0)])
    trace, analytic = _latency_ms(ev, slots)
    expected = 1.5 + 0.003
    assert trace == pytest.approx(expected, rel=0.02)
    assert analytic == pytest.approx(expected, rel=0.02)


def test_each_later_hop_inside_a_worker_costs_two_periods():
    # a bolt's tuple arrives on a tick; it emits right after and waits a whole
    # period for the next tick, then one more for the receive queue
    ev, slots = _chain(4, [("n0", 0)] * 4)
    trace, analytic = _latency_ms(ev, slots)
    expected = 1.5 + 2 * 2.0 + 0.007
    assert trace == pytest.approx(expected, rel=0.02)
    assert analytic == pytest.approx(expected, rel=0.02)


def test_a_hop_between_nodes_adds_the_receivers_timer():
    # 1.5 ms to leave the sender (send queue, transfer queue), the network,
    # then the wait for the receiving worker's tick: half a period on average
    ev, slots = _chain(2, [("n0", 0), ("n1", 0)])
    trace, analytic = _latency_ms(ev, slots, seeds=6)
    unbatched = Evaluator(
        ev.scenario.model_copy(
            update={
                "network": ev.scenario.network.model_copy(
                    update={"batch_size": 1, "transfer_sleep_ms": 0.0}
                )
            }
        ),
        None,
    )
    base = unbatched.latency_estimate_ms(unbatched.loads(slots), 200.0)
    assert analytic == pytest.approx(base + 2.0, rel=1e-9)
    # worker phases are one draw per seed: their offsets average out over seeds
    assert trace == pytest.approx(base + 2.0, rel=0.1)


@pytest.mark.parametrize("cv", [0.0, 1.0])
def test_trace_with_batching_agrees_with_the_event_oracle(cv):
    ev, slots = _chain(3, [("n0", 0), ("n0", 1), ("n1", 0)], cv=cv)
    plan = trace_plan(ev, slots, 2000.0)
    trace = run_trace(plan, 400, seed=2, replica=1)
    oracle = event_latencies(plan, 400, seed=2, replica=1)
    np.testing.assert_allclose(trace.latency_s, oracle, rtol=1e-9, atol=1e-12)

"""The acker's message back to the spout: hand-computed, in the trace, against the oracles."""

import numpy as np
import pytest
from event_oracle import event_latencies
from sim_builders import NO_IDLE_SLEEP, acked_pair

from core.simulator import Evaluator, analyze, simulate
from core.simulator.acking import ack_return_s
from core.simulator.plan import AckReturn, trace_plan
from core.simulator.trace import run_trace

STORM_1 = {"batch_size": 100, "batch_flush_ms": 1.0}  # Storm 1.2.3 defaults.yaml
WIRE_S = 40 * 8 / 1e9  # an ack tuple (40 B) on the default 1 Gbit/s NIC


NEAR = {"s#0": ("n0", 0), "s#1": ("n1", 0), "b#0": ("n0", 0), "__acker#0": ("n0", 0)}


def test_the_return_hop_mixes_the_localities_of_the_trees_spout_executors():
    # half the trees start on the acker's worker (1 us), half on the other node (250 us + wire)
    sc, sched = acked_pair(NEAR, network=NO_IDLE_SLEEP)
    ev = Evaluator(sc)
    loads = ev.loads(ev.encode(sched.placement()))
    back = ack_return_s(
        ev.path.ack,
        ev.nodes,
        ev.path.delays,
        loads.slot_of[None, :],
        loads.node_of[None, :],
        np.zeros(1),
    )
    assert back[0] == pytest.approx(0.5 * 1e-6 + 0.5 * (250e-6 + WIRE_S), rel=1e-12)


def test_with_batching_the_return_hop_waits_for_both_workers_timers():
    # an acker's tuple arrives on a tick: a period less its sojourn to the next one, one
    # period in the transfer or receive queue, and half a period for the spout's worker
    # timer on the half of the trees that start on the other node
    sc, sched = acked_pair(NEAR, network={**STORM_1, "spout_sleep_ms": 0.0})
    ev = Evaluator(sc)
    loads = ev.loads(ev.encode(sched.placement()))
    sojourn = 0.2e-3
    back = ack_return_s(
        ev.path.ack,
        ev.nodes,
        ev.path.delays,
        loads.slot_of[None, :],
        loads.node_of[None, :],
        np.array([sojourn]),
    )
    unbatched = 0.5 * 1e-6 + 0.5 * (250e-6 + WIRE_S)
    waits = (1e-3 - sojourn) + 1e-3 + 0.5 * 0.5e-3
    assert back[0] == pytest.approx(unbatched + waits, rel=1e-12)


def test_the_tree_ends_when_the_acker_message_reaches_the_spout():
    # moving the acker to the other node moves every ack's hop in and half the trees'
    # return hops out to the network: at low load the trace follows the estimate
    far = {**NEAR, "__acker#0": ("n1", 0)}
    figures = {}
    for name, placement in (("near", NEAR), ("far", far)):
        sc, sched = acked_pair(placement, network=NO_IDLE_SLEEP)
        row = simulate(sc, sched, rate=100.0, tuples=4000)
        figures[name] = row["latency_ms"]["mean"], analyze(sc, sched).latency_estimate_ms
    for trace, estimate in figures.values():
        assert trace == pytest.approx(estimate, rel=0.03)
    # near: every tree's acks stay in n0's worker except s#1's; far: the reverse, and the
    # return hop is the same mix (the spouts sit one on each node), so the estimates differ
    # only by the ack hops in, which both cross the network from the other side
    assert figures["far"][1] > figures["near"][1]


def test_unreliable_spouts_send_no_acks_so_nothing_returns():
    sc, sched = acked_pair(NEAR, network=NO_IDLE_SLEEP, reliable=False)
    assert Evaluator(sc).path.ack is None
    row = simulate(sc, sched, rate=100.0, tuples=20_000)  # half the trees cross: sample many
    # s#0's trees stay in n0's worker (1 + 1 + 1 us); s#1's cross to it: 1 us + 2 us to
    # serialise, 250 us + 1.6 us on the wire (200 B), 3 us to deserialise + 1 us; no acker
    expected_ms = 0.5 * 3e-3 + 0.5 * (1 + 2 + 250 + 1.6 + 3 + 1) * 1e-3
    assert row["latency_ms"]["mean"] == pytest.approx(expected_ms, rel=0.03)
    assert analyze(sc, sched).latency_estimate_ms == pytest.approx(expected_ms, rel=1e-4)


@pytest.mark.parametrize("network", [None, STORM_1])
def test_trace_with_ackers_agrees_with_the_event_oracle(network):
    far = {**NEAR, "__acker#0": ("n1", 0)}
    sc, sched = acked_pair(far, network=network, rate=2000.0)
    ev = Evaluator(sc)
    plan = trace_plan(ev, ev.encode(sched.placement()), 2000.0)
    trace = run_trace(plan, 400, seed=3, replica=1)
    oracle = event_latencies(plan, 400, seed=3, replica=1)
    np.testing.assert_allclose(trace.latency_s, oracle, rtol=1e-9, atol=1e-12)


def test_every_tree_ends_exactly_one_return_hop_after_its_last_ack(monkeypatch):
    # one acker on n0: trees from s#0 (n0, same worker) return in 1 us, from s#1 (n1) in
    # 250 us + wire; without the hop each tree would end at its last ack's departure
    sc, sched = acked_pair(NEAR, network=NO_IDLE_SLEEP)
    ev = Evaluator(sc)
    plan = trace_plan(ev, ev.encode(sched.placement()), 100.0)
    with_hop = run_trace(plan, 2000, seed=1).latency_s
    monkeypatch.setattr(
        "core.simulator.trace._ack_return",
        lambda plan, acker, spout, timers: AckReturn(np.zeros(len(acker)), None),
    )
    without = run_trace(plan, 2000, seed=1).latency_s
    back = with_hop - without
    near, far = np.isclose(back, 1e-6, rtol=1e-6), np.isclose(back, 250e-6 + WIRE_S, rtol=1e-6)
    assert np.all(near | far)
    assert 0.4 < far.mean() < 0.6  # spout tuples go to either spout executor

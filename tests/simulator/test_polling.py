"""Storm 2.x transfer threads: a hop leaving its worker waits for the sender's wake-up."""

import numpy as np
import pytest
from event_oracle import event_latencies
from sim_builders import NO_IDLE_SLEEP, acked_pair, make, manual

from core.model import Network
from core.simulator import Evaluator, analyze
from core.simulator.acking import ack_return_s
from core.simulator.plan import trace_plan
from core.simulator.polling import TransferPoll, mean_transfer_wait_s, transfer_sleep_s
from core.simulator.trace import run_trace

STORM_1 = {"batch_size": 100, "batch_flush_ms": 1.0}  # Storm 1.2.3 defaults.yaml


def _pair(network=None, same_worker=False, rate=100.0):
    """a (10 us, spout) -> b (20 us), on one worker or on two nodes."""
    sc = make(
        [
            {"id": "a", "parallelism": 1, "cpu_us": 10.0},
            {"id": "b", "parallelism": 1, "cpu_us": 20.0, "selectivity": 0.0},
        ],
        [("a", "b")],
        [{"id": "n0"}, {"id": "n1"}],
        rate=rate,
        network=network or {},
    )
    where = ("n0", 0) if same_worker else ("n1", 0)
    return sc, manual(sc, {"a#0": ("n0", 0), "b#0": where})


def _three_hops(network=None):
    """a -> b -> c -> d, each executor on its own node: three hops between workers."""
    comps = [{"id": k, "parallelism": 1, "cpu_us": 10.0} for k in "abcd"]
    comps[-1]["selectivity"] = 0.0
    sc = make(
        comps,
        [("a", "b"), ("b", "c"), ("c", "d")],
        [{"id": f"n{i}"} for i in range(4)],
        rate=100.0,
        network=network or {},
    )
    return sc, manual(sc, {f"{k}#0": (f"n{i}", 0) for i, k in enumerate("abcd")})


def test_the_wait_is_storm_2s_one_millisecond_sleep_and_off_otherwise():
    assert transfer_sleep_s(Network()) == pytest.approx(1e-3)
    assert mean_transfer_wait_s(Network()) == pytest.approx(0.5e-3)
    assert transfer_sleep_s(Network(**NO_IDLE_SLEEP)) == 0.0
    # Storm 1.x: the transfer thread blocks on its queue; the batching model holds
    assert transfer_sleep_s(Network(**STORM_1)) == 0.0


def test_a_hop_leaving_its_worker_leaves_on_the_senders_next_wakeup_by_hand():
    poll = TransferPoll(1e-3, np.array([0.2e-3, 0.2e-3, 0.9e-3]), np.array([True, False, True]))
    departure = np.array([0.25e-3, 0.25e-3, 1.9e-3])
    arrived = poll.arrivals(departure, np.full(3, 0.1e-3))
    # wakes at 1.2 ms then +0.1; stays in its worker: no wait; a departure on a wake-up goes
    assert arrived * 1e3 == pytest.approx([1.3, 0.35, 2.0])
    # rows idx: the departures and delays given are those rows'
    rows = np.array([2])
    np.testing.assert_array_equal(poll.arrivals(departure[rows], np.zeros(1), rows), [1.9e-3])


def test_the_estimate_adds_half_a_sleep_per_hop_between_workers_only():
    for same_worker, waits in ((True, 0), (False, 1)):
        with_wait = analyze(*_pair(same_worker=same_worker), rate=1.0).latency_estimate_ms
        without = analyze(
            *_pair(NO_IDLE_SLEEP, same_worker=same_worker), rate=1.0
        ).latency_estimate_ms
        assert with_wait - without == pytest.approx(0.5 * waits, rel=1e-9)


def test_a_spouts_hop_waits_half_a_sleep_on_average_in_one_replica():
    # spout departures are Poisson: uniform over the sender's wake-up period
    sc, sched = _pair()
    ev = Evaluator(sc)
    plan = trace_plan(ev, ev.encode(sched.placement()), 100.0)
    with_wait = run_trace(plan, 8000).summary_ms()["mean"]
    sc0, sched0 = _pair(NO_IDLE_SLEEP)
    ev0 = Evaluator(sc0)
    without = run_trace(trace_plan(ev0, ev0.encode(sched0.placement()), 100.0), 8000)
    assert with_wait - without.summary_ms()["mean"] == pytest.approx(0.5, rel=0.05)


def test_later_hops_average_half_a_sleep_over_replicas():
    # a bolt's tuple reaches the next worker a fixed offset after the last wake-up, so
    # within one replica its wait is set by the workers' phases; over replicas (phases
    # drawn from the seed) it averages half a sleep, as the estimate says
    sc, sched = _three_hops()
    ev = Evaluator(sc)
    plan = trace_plan(ev, ev.encode(sched.placement()), 100.0)
    means = [run_trace(plan, 400, seed=s).summary_ms()["mean"] for s in range(48)]
    estimate = analyze(sc, sched, rate=100.0).latency_estimate_ms
    no_wait = analyze(*_three_hops(NO_IDLE_SLEEP), rate=100.0).latency_estimate_ms
    assert estimate - no_wait == pytest.approx(1.5, rel=1e-9)
    assert float(np.mean(means)) == pytest.approx(estimate, rel=0.05)
    assert np.std(means) > 0.1  # the phases do move one replica's figure


def test_the_trace_agrees_with_the_event_oracle_under_load():
    # at 5,000 tuples/s several tuples queue for each wake-up and leave together
    sc, sched = _three_hops()
    ev = Evaluator(sc)
    plan = trace_plan(ev, ev.encode(sched.placement()), 5000.0)
    trace = run_trace(plan, 2000, seed=2)
    oracle = event_latencies(plan, 2000, seed=2)
    np.testing.assert_allclose(trace.latency_s, oracle, rtol=1e-9, atol=1e-12)


ACKER_AWAY = {"s#0": ("n0", 0), "b#0": ("n0", 0), "__acker#0": ("n1", 0)}
NO_TRANSFER_WAIT = {"transfer_sleep_ms": 0.0}


def test_the_ackers_message_waits_for_a_transfer_thread_then_for_the_spout():
    backs = []
    for network in ({}, NO_TRANSFER_WAIT, NO_IDLE_SLEEP):
        sc, sched = acked_pair(ACKER_AWAY, network, spouts=1)
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
        backs.append(float(back[0]))
    # half a sleep for the acker's worker to send it, half a sleep for the spout to take it
    assert backs[0] - backs[1] == pytest.approx(0.5e-3, rel=1e-9)
    assert backs[1] - backs[2] == pytest.approx(0.5e-3, rel=1e-9)


def test_the_spout_takes_the_ackers_message_at_its_next_wakeup():
    # everything in one worker: the spout's wake-up is the only wait
    one_worker = {"s#0": ("n0", 0), "b#0": ("n0", 0), "__acker#0": ("n0", 0)}
    runs = []
    for network in ({}, NO_IDLE_SLEEP):
        sc, sched = acked_pair(one_worker, network, spouts=1)
        ev = Evaluator(sc)
        plan = trace_plan(ev, ev.encode(sched.placement()), 200.0)
        runs.append(run_trace(plan, 4000, seed=4))
        assert run_trace(plan, 300, seed=4).latency_s == pytest.approx(
            event_latencies(plan, 300, seed=4)
        )
    # the two scenarios differ in a setting, so their service draws differ (a few us)
    wait = runs[0].latency_s - runs[1].latency_s
    assert wait.min() > -20e-6 and wait.max() < 1e-3 + 20e-6
    assert wait.mean() == pytest.approx(0.5e-3, rel=0.05)

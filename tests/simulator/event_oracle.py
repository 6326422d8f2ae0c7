"""A plain event-driven simulator (a heap of events): the trace's oracle.

It takes the same sampled tuples as the vectorised trace (service times,
routing and transfer delays from :func:`core.simulator.trace.walk`) and
replays them one event at a time: an arrival joins its executor's queue or
starts service; a departure releases the tuple's children after their
transfer delays (through the workers' flush timers when the queues batch, or
the sender worker's transfer thread on a Storm 2.x hop between workers) and
starts the next queued tuple (earliest arrival first, ties in canonical order).
A tree completes when its last tuple departs, or, with ackers, when the
tree's spout executor takes the acker's message for its last ack (at its
first wake-up after the message arrives).
Slow (~0.3 M tuple-hops/s) and obviously right.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from core.simulator.plan import TracePlan
from core.simulator.polling import TransferPoll
from core.simulator.trace import walk

ARRIVAL, DEPARTURE = 0, 1  # at equal times arrivals are handled first


def _tick(t: float, phase: float, period: float) -> float:
    """The first flush of a timer ticking at phase + k x period, at or after t."""
    k = math.ceil((t - phase) / period)
    return phase + k * period


def through_queues(sent: float, delay: float, flush, j: int) -> float:
    """Arrival of hop j sent at ``sent``.

    Storm 1.x batching: send queue flush, second queue one period on, the
    transfer delay, and the receiver's flush when the hop leaves the worker.
    Storm 2.x: a hop that leaves the worker waits for the sender's transfer
    thread to wake, then takes the transfer delay.
    """
    if flush is None:
        return sent + delay
    if isinstance(flush, TransferPoll):
        if not flush.cross[j]:
            return sent + delay
        return _tick(sent, float(flush.phase[j]), flush.period_s) + delay
    period = flush.period_s
    out = _tick(sent, float(flush.out_phase[j]), period) + period + delay
    if not flush.cross[j]:
        return out
    return _tick(out, float(flush.in_phase[j]), period)


def event_latencies(plan: TracePlan, tuples: int, seed: int = 0, replica: int = 0) -> np.ndarray:
    """Complete latency of every spout tuple (root order), seconds."""
    steps = list(walk(plan, tuples, seed, replica))
    children: list[list[list[tuple[int, int, float]]]] = [
        [[] for _ in range(len(s.executor))] for s in steps
    ]
    for step in steps:
        offset = 0
        for u, parents, delays in step.sources:
            for i, (parent, delay) in enumerate(
                zip(parents.tolist(), delays.tolist(), strict=True)
            ):
                children[u][parent].append((step.component, offset + i, delay))
            offset += len(parents)
    events: list[tuple[float, int, int, int]] = []
    emitted = np.zeros(tuples)
    for step in steps:
        if step.arrival_s is not None:
            for i, (a, root) in enumerate(
                zip(step.arrival_s.tolist(), step.root.tolist(), strict=True)
            ):
                emitted[root] = a
                heapq.heappush(events, (a, ARRIVAL, step.component, i))
    busy: set[int] = set()
    queues: dict[int, list[tuple[float, int, int]]] = {}
    last = np.zeros(tuples)

    def start(now: float, c: int, i: int) -> None:
        ex = int(steps[c].executor[i])
        busy.add(ex)
        heapq.heappush(events, (now + float(steps[c].service_s[i]), DEPARTURE, c, i))

    while events:
        now, kind, c, i = heapq.heappop(events)
        ex = int(steps[c].executor[i])
        if kind == ARRIVAL:
            if ex in busy:
                heapq.heappush(queues.setdefault(ex, []), (now, c, i))
            else:
                start(now, c, i)
            continue
        root = int(steps[c].root[i])
        done = now
        back = steps[c].ack_return  # an acker's message back to the tree's spout
        if back is not None:
            done = through_queues(now, float(back.delay_s[i]), back.flush, i)
            if back.wakeups is not None:  # the spout takes it at its next wake-up
                done = _tick(done, float(back.wakeups.phase[i]), back.wakeups.period_s)
        last[root] = max(last[root], done)
        for d, j, delay in children[c][i]:
            heapq.heappush(events, (through_queues(now, delay, steps[d].flush, j), ARRIVAL, d, j))
        busy.discard(ex)
        if queues.get(ex):
            _, c2, i2 = heapq.heappop(queues[ex])
            start(now, c2, i2)
    return last - emitted

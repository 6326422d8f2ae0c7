"""An event-driven simulator with Storm's flow control: the windowed trace's oracle.

The same sampled tuples as the vectorised trace (service times, routing and
transfer delays from :func:`core.simulator.trace.walk`), replayed one event
at a time as Storm runs them: each spout executor takes its offered tuples
in order and emits one only while fewer than ``window`` of its tuple trees
are pending (emitted, not yet fully processed, or with ackers, not yet
acknowledged back to the spout); a tree's completion lets the oldest
waiting tuple go at once. Hops wait for the workers' timers as in
:func:`tests.simulator.event_oracle.through_queues`.
Executors are FIFO servers (earliest arrival first, ties in canonical
order). Slow and obviously right.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np
from event_oracle import _tick as tick
from event_oracle import through_queues

from core.simulator.plan import TracePlan
from core.simulator.trace import walk

# at equal times: offers, then arrivals, then departures, then completions
OFFER, ARRIVAL, DEPARTURE, COMPLETE = 0, 1, 2, 3


def window_latencies(
    plan: TracePlan, tuples: int, window: int, seed: int = 0, replica: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Complete latency (from emission) and emission time of every spout tuple, seconds."""
    steps = list(walk(plan, tuples, seed, replica))
    children: list[list[list[tuple[int, int, float]]]] = [
        [[] for _ in range(len(s.executor))] for s in steps
    ]
    size = np.zeros(tuples, dtype=np.int64)  # tuples in each tree
    for step in steps:
        np.add.at(size, step.root, 1)
        offset = 0
        for u, parents, delays in step.sources:
            for i, (parent, delay) in enumerate(
                zip(parents.tolist(), delays.tolist(), strict=True)
            ):
                children[u][parent].append((step.component, offset + i, delay))
            offset += len(parents)
    events: list[tuple[float, int, int, int]] = []
    spout_of = {}  # root -> (component, index in its step)
    for step in steps:
        if step.arrival_s is not None:
            for i, (a, root) in enumerate(
                zip(step.arrival_s.tolist(), step.root.tolist(), strict=True)
            ):
                spout_of[root] = (step.component, i)
                heapq.heappush(events, (a, OFFER, step.component, i))
    pending: dict[int, int] = {}  # spout executor -> trees in flight
    waiting: dict[int, deque[tuple[int, int]]] = {}  # spout executor -> offered, not emitted
    emitted = np.zeros(tuples)
    left = size.copy()
    last = np.zeros(tuples)
    busy: set[int] = set()
    queues: dict[int, list[tuple[float, int, int]]] = {}

    def emit(now: float, c: int, i: int) -> None:
        ex = int(steps[c].executor[i])
        pending[ex] = pending.get(ex, 0) + 1
        emitted[int(steps[c].root[i])] = now
        heapq.heappush(events, (now, ARRIVAL, c, i))

    def start(now: float, c: int, i: int) -> None:
        busy.add(int(steps[c].executor[i]))
        heapq.heappush(events, (now + float(steps[c].service_s[i]), DEPARTURE, c, i))

    def complete(now: float, root: int) -> None:  # its spout executor may emit again
        sc, si = spout_of[root]
        sx = int(steps[sc].executor[si])
        pending[sx] -= 1
        if waiting.get(sx):
            emit(now, *waiting[sx].popleft())

    while events:
        now, kind, c, i = heapq.heappop(events)
        if kind == COMPLETE:
            complete(now, c)
            continue
        ex = int(steps[c].executor[i])
        if kind == OFFER:
            if pending.get(ex, 0) < window:
                emit(now, c, i)
            else:
                waiting.setdefault(ex, deque()).append((c, i))
            continue
        if kind == ARRIVAL:
            if ex in busy:
                heapq.heappush(queues.setdefault(ex, []), (now, c, i))
            else:
                start(now, c, i)
            continue
        root = int(steps[c].root[i])
        back = steps[c].ack_return  # an acker's message back to the tree's spout
        done = now if back is None else through_queues(now, float(back.delay_s[i]), back.flush, i)
        if back is not None and back.wakeups is not None:  # the spout's next wake-up
            done = tick(done, float(back.wakeups.phase[i]), back.wakeups.period_s)
        last[root] = max(last[root], done)
        for d, j, delay in children[c][i]:
            heapq.heappush(events, (through_queues(now, delay, steps[d].flush, j), ARRIVAL, d, j))
        busy.discard(ex)
        if queues.get(ex):
            _, c2, i2 = heapq.heappop(queues[ex])
            start(now, c2, i2)
        left[root] -= 1
        if left[root] == 0:  # every tuple is done: the tree completes when its spout hears
            if last[root] > now:
                heapq.heappush(events, (float(last[root]), COMPLETE, root, -1))
            else:
                complete(now, root)
    return last - emitted, emitted

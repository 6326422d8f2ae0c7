"""A shared-core event simulation: the oracle for CPU contention.

Every executor is a FIFO single server (one thread), but the threads of a
node share its cores by processor sharing: with n of its executors busy
(a tuple in service), each progresses at min(1, cores / n) of a core. Work
per tuple, routing and transfer delays are the trace's own draws
(:func:`core.simulator.trace.walk`) *without* contention, so the only
difference from the vectorised trace is that the slowdown here emerges from
who is busy when, instead of the steady-state factor of
:mod:`core.simulator.contention`. Slow and obviously right.
"""

from __future__ import annotations

import heapq
from dataclasses import replace

import numpy as np

from core.simulator.plan import TracePlan
from core.simulator.trace import walk


def shared_core_latencies(
    plan: TracePlan, base_s: np.ndarray, cores: np.ndarray, tuples: int, seed: int = 0
) -> np.ndarray:
    """Complete latency (s) of every spout tuple under processor sharing of cores.

    ``base_s`` is each executor's mean compute time with no contention and
    ``cores`` the cores of each node.
    """
    flat = replace(plan, mean_s=base_s, slowdown=np.ones_like(base_s), window=None)
    steps = list(walk(flat, tuples, seed, 0))
    children: list[list[list[tuple[int, int, float]]]] = [
        [[] for _ in range(len(s.executor))] for s in steps
    ]
    for step in steps:
        offset = 0
        for u, parents, delays in step.sources:
            for i, (p, d) in enumerate(zip(parents.tolist(), delays.tolist(), strict=True)):
                children[u][p].append((step.component, offset + i, d))
            offset += len(parents)
    arrivals: list[tuple[float, int, int]] = []
    emitted = np.zeros(tuples)
    for step in steps:
        if step.arrival_s is not None:
            for i, (a, r) in enumerate(
                zip(step.arrival_s.tolist(), step.root.tolist(), strict=True)
            ):
                emitted[r] = a
                heapq.heappush(arrivals, (a, step.component, i))
    node = plan.node.tolist()
    queues: dict[int, list[tuple[float, int, int]]] = {}
    running: dict[int, list] = {}  # executor -> [component, index, remaining work]
    busy_on = np.zeros(len(cores), dtype=np.int64)
    last = np.zeros(tuples)
    now = 0.0

    def speed(ex: int) -> float:
        return min(1.0, cores[node[ex]] / busy_on[node[ex]])

    def start(ex: int, c: int, i: int) -> None:
        running[ex] = [c, i, float(steps[c].service_s[i])]
        busy_on[node[ex]] += 1

    while arrivals or running:
        t_done, done = np.inf, -1
        for ex, (_, _, work) in running.items():
            t = now + work / speed(ex)
            if t < t_done:
                t_done, done = t, ex
        t_arr = arrivals[0][0] if arrivals else np.inf
        t_next = min(t_done, t_arr)
        for ex, job in running.items():
            job[2] -= (t_next - now) * speed(ex)
        now = t_next
        if t_arr <= t_done:
            _, c, i = heapq.heappop(arrivals)
            ex = int(steps[c].executor[i])
            if ex in running:
                heapq.heappush(queues.setdefault(ex, []), (now, c, i))
            else:
                start(ex, c, i)
            continue
        c, i, _ = running.pop(done)
        busy_on[node[done]] -= 1
        root = int(steps[c].root[i])
        last[root] = max(last[root], now)
        for d, j, delay in children[c][i]:
            heapq.heappush(arrivals, (now + delay, d, j))
        if queues.get(done):
            _, c2, i2 = heapq.heappop(queues[done])
            start(done, c2, i2)
    return last - emitted

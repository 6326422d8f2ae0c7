"""Storm's flow control in the trace: topology.max.spout.pending.

A Storm spout executor asks its spout for the next tuple only while fewer
than ``topology.max.spout.pending`` of its tuple trees are pending
(emitted, neither acked nor failed; Storm's ``Config.java``, per spout
task). Storm applies it to reliable (acked) spouts; without ackers Storm 2
bounds in-flight tuples by its backpressure queues instead, for which the
same window stands in here. Above the sustainable
rate R* the spouts are therefore throttled by completions: the throughput is
R* (less when the window is too small to cover the path), and by Little's
law the complete latency is bounded by (trees in flight) / throughput,
whatever the length of the run.

Storm's rule, per spout executor with window w: its n-th tree (counting
from 0) is emitted, in order, once it has been offered and fewer than w of
the trees before it are pending, i.e. once n - w + 1 of them have
completed:

    E_n = max(O_n, S_(n-w)),

O_n the tuple's offered arrival and S the executor's tree completions in
ascending order (later trees complete after E_n, so they do not enter the
first n - w + 1). At most w trees are in flight at any time, exactly w
whenever the spout waits.

Computing it: emissions depend on completions and completions on
emissions, so :func:`core.simulator.trace.run_trace` first runs the trace
open loop (the answer when the window never binds), else guesses the
emissions with one sequential sweep of small chunks (:func:`sweep_emissions`)
and runs exact FIFO passes E <- max(O, S(C(E))) from it: a fixed point is
the exact trajectory (checked against an event-driven oracle in the tests);
after a few passes the trace reports the last one, close to it (mean and
p99 within a few percent on WordCount).

Spout tuples reach the executors of their spout component as the trace
draws them: a uniform choice per tuple, so each of the p executors receives
an independent Poisson stream at rate R / p (the thinning of a Poisson
process) and throttles it independently, as Storm's spout executors do.

What the mean does not say: where two or more executors share the
bottleneck (the executors of one shuffle-fed component, equally loaded), the
trees in flight wander between their queues, so the tail keeps growing with
the length of the run toward the bound at which all of them wait behind one
executor, (window x spout executors) / its service rate, while the mean
stays at Little's law (storm-starter WordCount under ``even`` offered 3.7 x
R*, ``slotscope simulate``: p99 79, 125 and 171 ms over 10^4, 10^5 and 10^6
measured spout tuples, mean 43.5, 45.9 and 46.3 ms against Little's 46.1; the
event-driven oracle shows the same drift). Storm's load-aware shuffle (the
default since 1.x, ``LoadAwareShuffleGrouping``, loads refreshed every
second) barely reacts at these queue lengths: in 1.2.3 a target's weight is
101 - 100 x the share of its 1,024-slot receive ring in use, a slot holding a
batch of up to 100 tuples; in 2.0.0 its weight contracts only while its
queue holds 5% of 32,768 slots (1,638 tuples) more than the emptiest
target's. So the drift is largely Storm's own; 2.0.0 would stop it near that
imbalance, which slotscope's uniform shuffle does not.

References
----------
.. [1] Apache Storm, ``org.apache.storm.Config.TOPOLOGY_MAX_SPOUT_PENDING``
   (storm-client, Storm 2.x).
.. [2] A. Toshniwal et al., "Storm @Twitter", SIGMOD 2014, pp. 147-156,
   doi:10.1145/2588555.2595641 (tuple trees and acking).
.. [3] J. D. C. Little, "A proof for the queuing formula L = lambda W",
   Operations Research 9(3), 1961, pp. 383-387, doi:10.1287/opre.9.3.383.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.simulator.batching import arrivals
from core.simulator.plan import Step


@dataclass(frozen=True, eq=False)
class SpoutQueues:
    """The spout tuples (by root) of every spout executor, in emission order."""

    order: np.ndarray  # roots grouped by executor, ascending within each group
    bounds: tuple[int, ...]  # group g is order[bounds[g]:bounds[g + 1]]


def spout_queues(executor: np.ndarray) -> SpoutQueues:
    """Group the spout tuples (indexed by root) by their executor.

    Examples
    --------
    >>> q = spout_queues(np.array([1, 0, 1, 1, 0]))
    >>> q.order.tolist(), q.bounds
    ([1, 4, 0, 2, 3], (0, 2, 5))
    """
    order = np.argsort(executor, kind="stable")
    _, counts = np.unique(executor, return_counts=True)
    return SpoutQueues(order, (0, *np.cumsum(counts).tolist()))


def emissions(
    queues: SpoutQueues, offered: np.ndarray, completion: np.ndarray, window: int
) -> np.ndarray:
    """Emission time of every spout tuple (by root) given every tree's completion.

    ``E_n = max(O_n, S_(n-w))`` along each executor's queue, S its trees'
    completions in ascending order: tree n waits until n - w + 1 trees have
    completed (see the module docstring). A tuple with fewer than ``window``
    older ones on its executor is emitted on arrival.

    Examples
    --------
    One executor, window 2: tuple 2 leaves at the first completion (5, of
    tuple 1), tuple 3 at the second (6, of tuple 0).

    >>> q = spout_queues(np.zeros(4, dtype=int))
    >>> emissions(q, np.array([0.0, 1.0, 2.0, 3.0]), np.array([6.0, 5.0, 9.0, 8.0]), 2).tolist()
    [0.0, 1.0, 5.0, 6.0]
    """
    out = offered.copy()
    for lo, hi in zip(queues.bounds[:-1], queues.bounds[1:], strict=True):
        if hi - lo > window:
            idx = queues.order[lo:hi]
            done = np.sort(completion[idx])[: hi - lo - window]
            late = idx[window:]
            out[late] = np.maximum(offered[late], done)
    return out


def little_latency_ms(in_flight: float, throughput: float) -> float:
    """Mean complete latency by Little's law, ms: trees in flight / trees per second.

    Examples
    --------
    5 spout executors with 1000 pending trees each, 20,000 trees/s:

    >>> little_latency_ms(5 * 1000, 20_000.0)
    250.0
    """
    return in_flight / throughput * 1e3


# Windows' worth of trees that complete after the windows fill, before a
# saturated trace is measured: on WordCount at 4 x R* the mean is within 5%
# of Little's law from the second turnover on (and the first fills halfway).
TURNOVERS = 2


def saturated_warmup(
    window: int, spout_parallelism: Sequence[int], rate: float, throughput: float
) -> int:
    """Spout tuples a trace runs before it reaches its saturated steady state.

    Offered ``rate`` above the ``throughput`` it sustains (both per spout
    component, tuples/s), a spout component's trees in flight grow at
    rate - throughput until its ``window x p`` are pending, which takes
    ``rate x window x p / (rate - throughput)`` offered tuples; then
    ``TURNOVERS`` windows' worth of trees complete, so that the trees
    measured enter a full pipeline rather than a filling one. Spout
    components share a trace's tuples evenly, so the slowest to fill sets
    the count for each. 0 when the rate is sustainable.

    Examples
    --------
    Five spout executors, window 1000, offered twice what completes: 10,000
    tuples fill the 5,000 slots, 10,000 more turn them over twice.

    >>> saturated_warmup(1000, [5], rate=2.0, throughput=1.0)
    20000
    >>> saturated_warmup(1000, [5], rate=1.0, throughput=1.0)
    0
    """
    if rate <= throughput:
        return 0
    fill = rate / (rate - throughput)
    per_component = max(window * p * (fill + TURNOVERS) for p in spout_parallelism)
    return math.ceil(per_component) * len(spout_parallelism)


SUBCHUNKS = 8  # sweep chunks per window: smaller chunks follow the window more closely


class _Busy:
    """Busy intervals of one server (sorted, disjoint), and its idle-time clock.

    ``idle(t)`` is the idle time the server has had up to ``t`` (``t`` minus
    busy time); ``at(tau)`` the first time it has had ``tau``. Tuples served
    in the gaps of these intervals queue, among themselves, as a FIFO server
    whose clock is the idle time.
    """

    def __init__(self, start: np.ndarray, end: np.ndarray):
        self.start, self.end = start, end
        self.cum = np.concatenate([[0.0], np.cumsum(end - start)])
        self.level = start - self.cum[:-1]  # idle time at each interval's start

    def idle(self, t: np.ndarray) -> np.ndarray:
        i = np.searchsorted(self.end, t, side="right")
        inside = np.zeros(len(t))
        open_ = i < len(self.start)
        inside[open_] = np.maximum(0.0, t[open_] - self.start[i[open_]])
        return t - self.cum[i] - inside

    def at(self, tau: np.ndarray) -> np.ndarray:
        return tau + self.cum[np.searchsorted(self.level, tau, side="left")]

    def serve(self, arrival: np.ndarray, service: np.ndarray) -> tuple[np.ndarray, _Busy]:
        """Departures of new tuples served FIFO in the gaps; the merged intervals."""
        order = np.argsort(arrival, kind="stable")
        cum = np.cumsum(service[order])
        x = self.idle(arrival[order])
        x[1:] -= cum[:-1]
        np.maximum.accumulate(x, out=x)
        x += cum
        done = self.at(x)
        began = self.at(x - service[order])
        start = np.concatenate([self.start, began])
        end = np.concatenate([self.end, done])
        by = np.argsort(start, kind="stable")
        start, end = start[by], np.maximum.accumulate(end[by])
        gap = start[1:] > end[:-1]
        keep_start = np.concatenate([[True], gap])
        keep_end = np.concatenate([gap, [True]])
        start, end = start[keep_start], end[keep_end]
        recent = end > arrival.min()  # older intervals cannot meet later chunks much
        out = np.empty(len(arrival))
        out[order] = done
        return out, _Busy(start[recent], end[recent])


def sweep_emissions(
    steps: Sequence[Step],
    comp_start: np.ndarray,
    queues: SpoutQueues,
    offered: np.ndarray,
    window: int,
) -> np.ndarray:
    """Emission times under the window rule from one sequential sweep (a close guess).

    Spout tuples go through the topology in chunks of ``window / SUBCHUNKS``
    per spout executor, in emission order. A chunk's emissions follow the
    rule with the completions known so far (earlier chunks, then the
    chunk's own from a first try of it); at every server, a chunk's tuples
    are served FIFO among themselves in the gaps left by earlier chunks
    (earlier chunks go first, no server does more work than it has time
    for). Two tuples of different chunks meeting at one server may so be
    served out of arrival order: this is why the result is a guess, which
    :func:`core.simulator.trace.run_trace` then polishes on the exact trace.
    """
    tuples, groups = len(offered), len(queues.bounds) - 1
    rank = np.empty(tuples, dtype=np.int64)
    group = np.empty(tuples, dtype=np.int64)
    for g, (lo, hi) in enumerate(zip(queues.bounds[:-1], queues.bounds[1:], strict=True)):
        rank[queues.order[lo:hi]] = np.arange(hi - lo)
        group[queues.order[lo:hi]] = g
    size = max(1, window // SUBCHUNKS)
    chunk = rank // size
    chunks = int(chunk.max()) + 1 if tuples else 0
    offset = np.concatenate([[0], np.cumsum([len(step.executor) for step in steps])])
    plans = []
    for step in steps:
        if step.sources:
            parent = np.concatenate([offset[u] + par for u, par, _ in step.sources])
            delay = np.concatenate([d for _, _, d in step.sources])
        else:
            parent = delay = None
        of_chunk = chunk[step.root]
        order = np.argsort(of_chunk, kind="stable")
        bounds = np.searchsorted(of_chunk[order], np.arange(chunks + 1)).tolist()
        plans.append((step, parent, delay, order, bounds))
    busy = [
        [_Busy(np.zeros(0), np.zeros(0)) for _ in range(comp_start[c + 1] - comp_start[c])]
        for c in range(len(comp_start) - 1)
    ]
    by_chunk = np.argsort(chunk, kind="stable")
    root_bounds = np.searchsorted(chunk[by_chunk], np.arange(chunks + 1)).tolist()
    departure = np.empty(int(offset[-1]))
    last = np.zeros(tuples)
    emitted = offered.copy()
    pool = np.full((groups, window), -np.inf)  # the window latest completions per executor
    for k in range(chunks):
        roots = by_chunk[root_bounds[k] : root_bounds[k + 1]]
        cell = group[roots], rank[roots] - k * size
        emitted[roots] = np.maximum(offered[roots], pool[cell])
        for final in (False, True):
            last[roots] = 0.0
            _sweep_chunk(plans, k, comp_start, busy, departure, offset, last, emitted, final)
            if not final:  # the rule again, with this chunk's own completions known
                block = np.full((groups, size), np.inf)
                block[cell] = last[roots]
                known = np.sort(np.concatenate([pool, block], axis=1), axis=1)
                emitted[roots] = np.maximum(offered[roots], known[cell])
        block = np.full((groups, size), -np.inf)
        block[cell] = last[roots]
        pool = np.sort(np.concatenate([pool, block], axis=1), axis=1)[:, size:]
    return emitted


def _sweep_chunk(
    plans: list,
    k: int,
    comp_start: np.ndarray,
    busy: list[list[_Busy]],
    departure,
    offset,
    last: np.ndarray,
    emitted: np.ndarray,
    commit: bool,
) -> None:
    """Serve chunk k at every server; keep the servers' new intervals if ``commit``."""
    for step, parent, delay, order, bounds in plans:
        idx = order[bounds[k] : bounds[k + 1]]
        if len(idx) == 0:
            continue
        c = step.component
        if step.arrival_s is not None:
            arrival = emitted[step.root[idx]]
        else:
            arrival = arrivals(departure[parent[idx]], delay, step.flush, idx)
        server = step.executor[idx] - comp_start[c]
        service = step.service_s[idx]
        done = np.empty(len(idx))
        by = np.argsort(server, kind="stable")
        cuts = np.searchsorted(server[by], np.arange(len(busy[c]) + 1)).tolist()
        for x in range(len(busy[c])):
            sel = by[cuts[x] : cuts[x + 1]]
            if len(sel):
                done[sel], merged = busy[c][x].serve(arrival[sel], service[sel])
                if commit:
                    busy[c][x] = merged
        departure[offset[c] + idx] = done
        np.maximum.at(last, step.root[idx], step.completion(done, idx))

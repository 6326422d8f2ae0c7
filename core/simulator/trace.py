"""Layer 2: latency percentiles from a vectorised trace of the tuple trees.

Every executor is a FIFO single server. Components are processed in
topological order; each one in a few numpy passes:

1. its arriving tuples, in a *canonical order* that does not depend on the
   placement (spout tuples by arrival; a component's children in the order
   of their parents, streams in topological order of their sources);
2. random draws in that order from the component's own stream: service
   times (unit mean, exponential at cv 1, gamma otherwise, constant at 0),
   fan-out (floor(selectivity) + Bernoulli of the fraction, shared by every
   data stream; one ack per tuple to ``__acker``) and routing (one uniform
   per child, mapped to an executor by the grouping);
3. service time = draw x the executor's mean compute time on its node
   (inflated when the node's CPU is oversubscribed) + deserialisation when
   the tuple came from another worker + serialisation of each child that
   leaves the worker;
4. departures by the Lindley recursion D_n = max(A_n, D_(n-1)) + S_n in
   closed form per executor: D = C + running max of (A - C_prev), C the
   cumulative service (``np.maximum.accumulate``), ties in arrival time
   served in canonical order;
5. children arrive at their parent's departure plus the transfer delay of
   the hop's locality (and wire time between nodes).

A tuple tree's complete latency is the last departure of any tuple in it
(acks included) minus the spout tuple's arrival (Storm's complete latency,
spout queueing included). Random streams are seeded from (seed, scenario,
replica, component), never from the scheduler or the offered rate: spout
gaps are unit exponentials divided by the rate, so every scheduler and
every rate sees the same draws (common random numbers).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from core.simulator.plan import TracePlan, route_targets

WARMUP_FRACTION = 0.1  # SIMULATOR.md: drop the first 10% of spout tuples
PERCENTILES = (50, 95, 99)  # reported, with mean and max (DESIGN.md result contract)


@dataclass(frozen=True, eq=False)
class Step:
    """The tuples one component processes, in canonical order."""

    component: int
    executor: np.ndarray  # global executor index
    root: np.ndarray  # spout tuple (tree) each belongs to
    service_s: np.ndarray  # service time of each, seconds
    arrival_s: np.ndarray | None  # spouts only: offered arrival time, seconds
    sources: tuple[tuple[int, np.ndarray, np.ndarray], ...] = ()  # (component, parent, delay_s)


@dataclass(frozen=True, eq=False)
class TraceResult:
    """Complete latency of every tuple tree, and what each component processed."""

    latency_s: np.ndarray  # per spout tuple, in root order
    warmup: np.ndarray  # bool per spout tuple: dropped from the statistics
    processed: dict[str, int] = field(default_factory=dict)
    horizon_s: float = 0.0  # arrival time of the last spout tuple
    hops: int = 0

    def summary_ms(self) -> dict[str, float]:
        """p50, p95, p99, mean and max of the complete latency after warm-up, ms."""
        lat = self.latency_s[~self.warmup] * 1e3
        if lat.size == 0:
            lat = self.latency_s * 1e3
        pct = np.percentile(lat, PERCENTILES)
        out = {f"p{p}": float(v) for p, v in zip(PERCENTILES, pct, strict=True)}
        out.update(mean=float(lat.mean()), max=float(lat.max()))
        return out


def component_rng(seed: int, key: int, replica: int, component: str) -> np.random.Generator:
    """The random stream of one component in one replica (common random numbers)."""
    words = [seed, key & 0xFFFFFFFF, key >> 32, replica, zlib.crc32(component.encode())]
    return np.random.default_rng(np.random.SeedSequence(words))


def unit_service(rng: np.random.Generator, n: int, cv: float) -> np.ndarray:
    """n service-time multipliers of mean 1 and coefficient of variation ``cv``."""
    if cv == 0:
        return np.ones(n)
    if cv == 1:
        return rng.standard_exponential(n)
    shape = 1.0 / cv**2
    return rng.gamma(shape, 1.0 / shape, n)


def _spout_tuples(
    plan: TracePlan, c: int, rng: np.random.Generator, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Arrival times (Poisson at the plan's rate) and executors of a spout's tuples."""
    t = plan.table
    p = int(t.comp_start[c + 1] - t.comp_start[c])
    arrival = np.cumsum(rng.standard_exponential(n)) / plan.rate
    executor = t.comp_start[c] + np.minimum((rng.random(n) * p).astype(np.int64), p - 1)
    return arrival, executor


def _children(plan: TracePlan, c: int, rng: np.random.Generator, executor: np.ndarray):
    """Route the children of component c's tuples; serialisation cost per parent.

    Returns ``(batches, ser_s)`` with one batch per outgoing stream:
    ``(stream, parent, target executor, delay_s, deser_s)``.
    """
    t = plan.table
    n = len(executor)
    streams = [k for k in range(len(t.streams)) if t.src_comp[k] == c]
    fanout = None
    if any(not plan.routes[k].ack for k in streams):
        sel = t.graph.components[t.graph.order[c]].selectivity
        whole, frac = int(np.floor(sel)), sel - np.floor(sel)
        fanout = np.full(n, whole, dtype=np.int64)
        if frac > 0:
            fanout += rng.random(n) < frac
    ser = np.zeros(n)
    batches = []
    for k in streams:
        route = plan.routes[k]
        parent = np.arange(n) if route.ack else np.repeat(np.arange(n), fanout)
        if route.kind == "all":
            p = route.parallelism
            local = np.tile(np.arange(p), len(parent))
            parent = np.repeat(parent, p)
        elif route.kind == "global":
            local = np.zeros(len(parent), dtype=np.int64)
        else:
            local = route_targets(route, rng.random(len(parent)), plan.worker[executor[parent]])
        target = route.target_start + local
        sender = executor[parent]
        if route.delay_table is not None:
            cell = (sender - route.source_start) * route.parallelism + local
            delay, cross = route.delay_table[cell], route.cross_table[cell]
        else:
            delay, cross = plan.hop_costs(sender, target, route.tuple_bytes)
        ser += np.bincount(parent, cross * route.ser_s, n)
        batches.append((k, parent, target, delay, np.where(cross, route.deser_s, 0.0)))
    return batches, ser


def walk(plan: TracePlan, tuples: int, seed: int, replica: int) -> Iterator[Step]:
    """The tuples of every component, in topological order, with their draws.

    ``tuples`` spout tuples in all, split evenly over the spout components.
    """
    t = plan.table
    order = t.graph.order
    spouts = [i for i, c in enumerate(order) if not t.graph.preds[c]]
    share = [tuples // len(spouts) + (j < tuples % len(spouts)) for j in range(len(spouts))]
    pending: list[list] = [[] for _ in order]
    next_root = 0
    for c, cid in enumerate(order):
        rng = component_rng(seed, plan.scenario_key, replica, cid)
        if c in spouts:
            n = share[spouts.index(c)]
            arrival, executor = _spout_tuples(plan, c, rng, n)
            root = np.arange(next_root, next_root + n)
            next_root += n
            deser, sources = np.zeros(n), ()
        else:
            arrival = None
            batches = pending[c]
            executor = _concat([b[2] for b in batches], np.int64)
            root = _concat([b[5] for b in batches], np.int64)
            deser = _concat([b[4] for b in batches], float)
            sources = tuple((int(t.src_comp[b[0]]), b[1], b[3]) for b in batches)
            pending[c] = []
        draws = unit_service(rng, len(executor), plan.service_cv)
        children, ser = _children(plan, c, rng, executor)
        service = draws * plan.mean_s[executor] + deser + ser
        for k, parent, target, delay, child_deser in children:
            batch = (k, parent, target, delay, child_deser, root[parent])
            pending[int(t.dst_comp[k])].append(batch)
        yield Step(c, executor, root, service, arrival, sources)


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def fifo_departures(
    arrival: np.ndarray, service: np.ndarray, server: np.ndarray, servers: int
) -> np.ndarray:
    """Departure times of FIFO single servers, in the input's order.

    Each server serves its tuples by arrival time, ties in input order.

    Examples
    --------
    >>> fifo_departures(np.array([0.0, 1.0, 1.5]), np.array([2.0, 1.0, 1.0]),
    ...                 np.array([0, 0, 1]), 2).tolist()
    [2.0, 3.0, 2.5]
    """
    if servers > 1:
        # a radix sort by server (stable), then by time within each server
        by_server = np.argsort(
            server.astype(np.int16 if servers < 2**15 else np.int64), kind="stable"
        )
        bounds = np.cumsum(np.bincount(server, minlength=servers)).tolist()
    else:
        by_server, bounds = None, [len(arrival)]
    out = np.empty_like(arrival)
    lo = 0
    for hi in bounds:
        if hi > lo:
            idx = slice(lo, hi) if by_server is None else by_server[lo:hi]
            a = arrival[idx]
            order = np.argsort(a, kind="stable")
            a, s = a[order], service[idx][order]
            cum = np.cumsum(s)
            a[1:] -= cum[:-1]
            np.maximum.accumulate(a, out=a)
            a += cum
            out[order if by_server is None else idx[order]] = a
        lo = hi
    return out


def run_trace(plan: TracePlan, tuples: int, seed: int = 0, replica: int = 0) -> TraceResult:
    """Simulate ``tuples`` spout tuples through the placement of ``plan``."""
    t = plan.table
    order = t.graph.order
    consumers = [
        sum(1 for k in range(len(t.streams)) if t.src_comp[k] == c) for c in range(len(order))
    ]
    departures: dict[int, np.ndarray] = {}
    emitted = np.zeros(tuples)
    last = np.zeros(tuples)
    processed: dict[str, int] = {}
    warm = np.zeros(tuples, dtype=bool)
    horizon, hops = 0.0, 0
    for step in walk(plan, tuples, seed, replica):
        c = step.component
        if step.arrival_s is not None:
            arrival = step.arrival_s
            emitted[step.root] = arrival
            warm[step.root[: int(np.ceil(WARMUP_FRACTION * len(step.root)))]] = True
            horizon = max(horizon, float(arrival[-1]) if len(arrival) else 0.0)
        else:
            arrival = _concat(
                [departures[u][parent] + delay for u, parent, delay in step.sources], float
            )
            for u, _, _ in step.sources:
                consumers[u] -= 1
                if consumers[u] == 0:
                    del departures[u]
        p = int(t.comp_start[c + 1] - t.comp_start[c])
        done = fifo_departures(arrival, step.service_s, step.executor - t.comp_start[c], p)
        np.maximum.at(last, step.root, done)
        if consumers[c] > 0:
            departures[c] = done
        processed[order[c]] = len(done)
        hops += len(done)
    return TraceResult(last - emitted, warm, processed, horizon, hops)

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
3. service time = draw x the executor's mean compute time on its node +
   deserialisation when the tuple came from another worker + serialisation
   of each child that leaves the worker, all stretched by the CPU
   contention on its node (processor sharing among the node's busy
   executors, :mod:`core.simulator.contention`: a per-executor factor from
   the steady state, so the pass stays vectorised);
4. departures by the Lindley recursion D_n = max(A_n, D_(n-1)) + S_n in
   closed form per executor: D = C + running max of (A - C_prev), C the
   cumulative service (``np.maximum.accumulate``), ties in arrival time
   served in canonical order;
5. children arrive at their parent's departure plus the transfer delay of
   the hop's locality (and wire time between nodes), after the waits for
   the workers' flush timers when the queues batch (Storm 1.x,
   :mod:`core.simulator.batching`), or, on a hop that leaves its worker,
   for the sender worker's transfer thread (Storm 2.x,
   :mod:`core.simulator.polling`).

Spout tuples are offered as a Poisson stream at the plan's rate, each to a
uniformly drawn executor of its spout (independent Poisson streams at
rate / p), and emitted under Storm's flow control: at most ``plan.window``
(``max_spout_pending``) trees in flight per spout executor
(:mod:`core.simulator.window`; :func:`run_trace` says how the closed loop
is solved). A tuple tree's complete latency is the last departure of any
tuple in it minus the spout tuple's emission; with ackers, the last ack's
departure from its acker plus the hop of the acker's message back to the
tree's spout executor (Storm's complete latency, measured where the spout
takes that message; spout queueing included, the wait for a window slot
not, as in Storm; the spout's own time on the message is not charged).
Random streams are seeded from (seed, scenario, replica, component),
never from the scheduler or the offered rate: spout gaps are unit
exponentials divided by the rate, so every scheduler and every rate sees
the same draws (common random numbers).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from core.model import ACKER_ID
from core.simulator.batching import Flush, arrivals, flush_period_s
from core.simulator.fifo import fifo_departures
from core.simulator.plan import AckReturn, HopTimers, Step, TracePlan, route_targets
from core.simulator.polling import SpoutWakeups, TransferPoll, spout_sleep_s, transfer_sleep_s
from core.simulator.window import emissions, spout_queues, sweep_emissions

FLUSH_STREAM = "__flush"  # random stream of the workers' flush timer phases
TRANSFER_STREAM = "__transfer"  # random stream of the workers' transfer thread phases
SPOUT_WAKE_STREAM = "__spout_wake"  # random stream of the spout executors' wake-up phases
WARMUP_FRACTION = 0.1  # docs/model.md, "The event trace": the first 10% are dropped
PERCENTILES = (50, 95, 99)  # with mean and max (docs/architecture.md, "The command-line contracts")


@dataclass(frozen=True, eq=False)
class TraceResult:
    """Complete latency of every tuple tree, and what each component processed."""

    latency_s: np.ndarray  # per spout tuple, in root order
    warmup: np.ndarray  # bool per spout tuple: dropped from the statistics
    processed: dict[str, int] = field(default_factory=dict)
    horizon_s: float = 0.0  # emission time of the last spout tuple
    hops: int = 0  # tuples processed in one pass
    passes: int = 1  # trace passes run (1: the flow-control window never bound)
    exact: bool = True  # the emissions are the exact fixed point of the window rule

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
        if route.ack:  # one ack per tuple, none from unreliable spouts' trees
            parent = np.arange(n) if t.graph.reliable_spouts else np.zeros(0, np.int64)
        else:
            parent = np.repeat(np.arange(n), fanout)
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
    timers = _ReplicaTimers.draw(plan, seed, replica)
    next_root = 0
    spout_of_root = np.zeros(tuples, dtype=np.int64)
    for c, cid in enumerate(order):
        rng = component_rng(seed, plan.scenario_key, replica, cid)
        flush = ack_return = None
        if c in spouts:
            n = share[spouts.index(c)]
            arrival, executor = _spout_tuples(plan, c, rng, n)
            root = np.arange(next_root, next_root + n)
            spout_of_root[root] = executor
            next_root += n
            deser, sources = np.zeros(n), ()
        else:
            arrival = None
            batches = pending[c]
            executor = _concat([b[2] for b in batches], np.int64)
            root = _concat([b[5] for b in batches], np.int64)
            deser = _concat([b[4] for b in batches], float)
            sources = tuple((int(t.src_comp[b[0]]), b[1], b[3]) for b in batches)
            if timers.on:
                sender = _concat([b[6] for b in batches], np.int64)
                flush = timers.hop(plan.worker[sender], plan.worker[executor])
            pending[c] = []
            if cid == ACKER_ID:
                spout = spout_of_root[root]
                ack_return = _ack_return(plan, executor, spout, timers)
        draws = unit_service(rng, len(executor), plan.service_cv)
        children, ser = _children(plan, c, rng, executor)
        service = draws * plan.mean_s[executor] + (deser + ser) * plan.slowdown[executor]
        for k, parent, target, delay, child_deser in children:
            sender = executor[parent] if timers.on else None  # for the hop timers
            batch = (k, parent, target, delay, child_deser, root[parent], sender)
            pending[int(t.dst_comp[k])].append(batch)
        yield Step(c, executor, root, service, arrival, sources, flush, ack_return)


@dataclass(frozen=True)
class _ReplicaTimers:
    """The sleeping threads and timers of one replica, with their phases.

    Hops wait for the workers' flush timers (Storm 1.x batching, ``period`` >
    0), else for their transfer threads (Storm 2.x, ``sleep`` > 0), else for
    nothing; ``phase`` per worker, a fraction of the period. The acker's
    messages wait for the spout executors' wake-ups (``wake_phase`` per
    executor, s; None when spouts never sleep).
    """

    period: float
    sleep: float
    phase: np.ndarray | None
    wake_phase: np.ndarray | None

    @classmethod
    def draw(cls, plan: TracePlan, seed: int, replica: int) -> _ReplicaTimers:
        """Phases from the replica's own streams (common random numbers)."""
        period, sleep = flush_period_s(plan.network), transfer_sleep_s(plan.network)
        stream = FLUSH_STREAM if period > 0 else TRANSFER_STREAM if sleep > 0 else None
        phase = None
        if stream is not None:
            phase = component_rng(seed, plan.scenario_key, replica, stream).random(plan.workers)
        wake = spout_sleep_s(plan.network)
        wake_phase = None
        if wake > 0:
            rng = component_rng(seed, plan.scenario_key, replica, SPOUT_WAKE_STREAM)
            wake_phase = rng.random(len(plan.worker)) * wake
        return cls(period, sleep, phase, wake_phase)

    @property
    def on(self) -> bool:
        return self.phase is not None

    def hop(self, sender: np.ndarray, receiver: np.ndarray) -> HopTimers:
        """The timers on hops from workers ``sender`` to workers ``receiver``."""
        if self.period > 0:
            out, into = self.phase[sender] * self.period, self.phase[receiver] * self.period
            return Flush(self.period, out, into, sender != receiver)
        return TransferPoll(self.sleep, self.phase[sender] * self.sleep, sender != receiver)


def _ack_return(
    plan: TracePlan, acker: np.ndarray, spout: np.ndarray, timers: _ReplicaTimers
) -> AckReturn:
    """The hop of each acker tuple's completion message back to its tree's spout
    executor, and that executor's wake-ups."""
    ack_bytes = plan.table.graph.components[ACKER_ID].tuple_bytes
    delay, _ = plan.hop_costs(acker, spout, ack_bytes)
    flush = timers.hop(plan.worker[acker], plan.worker[spout]) if timers.on else None
    wakeups = None
    if timers.wake_phase is not None:
        wakeups = SpoutWakeups(spout_sleep_s(plan.network), timers.wake_phase[spout])
    return AckReturn(delay, flush, wakeups)


def _concat(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


FIXED_POINT_S = 1e-9  # emissions that move less than this between passes have converged
MAX_PASSES = 3  # exact passes of a throttled trace: open loop, on the sweep's guess, one more


def run_trace(
    plan: TracePlan,
    tuples: int,
    seed: int = 0,
    replica: int = 0,
    max_passes: int = MAX_PASSES,
    warmup: float = WARMUP_FRACTION,
) -> TraceResult:
    """Simulate ``tuples`` spout tuples through the placement of ``plan``.

    The first ``warmup`` fraction of each spout component's tuples (rounded
    up) are marked as warm-up, left out of :meth:`TraceResult.summary_ms`.

    Spout tuples are offered at ``plan.rate`` and emitted under the flow
    control window ``plan.window`` (:mod:`core.simulator.window`; None:
    open loop). Each pass is the exact FIFO trace for given emission times
    E; the first is open loop (E = the offered times O). When the window
    never binds (each tuple was offered after ``window`` trees of its
    executor had completed), that pass is the answer, unchanged from an open
    loop trace. Otherwise a sequential sweep
    (:func:`core.simulator.window.sweep_emissions`) guesses E, and passes
    E <- max(O, S(C(E))) follow until E reproduces itself (to
    ``FIXED_POINT_S``: rounding in long cumulative sums moves it by ulps) or
    ``max_passes`` passes have run. A reproduced E is a fixed point of
    Storm's rule and, every tree completing strictly after its emission, the
    only one: the trajectory an event-driven simulation gives
    (``TraceResult.exact``). Otherwise the last pass is reported: an exact
    FIFO trace of a spout that follows the window closely, not exactly
    (on acked WordCount at twice R*, mean within ~3.5% and p99 within ~1% of
    the fixed point).
    """
    first = _timing(plan, walk(plan, tuples, seed, replica), tuples, warmup=warmup)
    if plan.window is None:
        return first.result
    queues = spout_queues(first.spout_executor)
    emitted = emissions(queues, first.offered, first.completion, plan.window)
    if np.array_equal(emitted, first.offered):
        return first.result  # the window never binds
    steps = list(walk(plan, tuples, seed, replica))
    emitted = sweep_emissions(steps, plan.table.comp_start, queues, first.offered, plan.window)
    passes = 1
    while True:
        run = _timing(plan, steps, tuples, emitted, warmup)
        passes += 1
        again = emissions(queues, first.offered, run.completion, plan.window)
        exact = float(np.max(np.abs(again - emitted))) <= FIXED_POINT_S
        if exact or passes >= max_passes:
            return replace(run.result, passes=passes, exact=exact)
        emitted = again


@dataclass(frozen=True, eq=False)
class _Pass:
    result: TraceResult
    completion: np.ndarray  # per spout tuple: last departure in its tree, s
    offered: np.ndarray  # per spout tuple: offered arrival, s
    spout_executor: np.ndarray  # per spout tuple: global executor index


def _timing(
    plan: TracePlan,
    steps: Iterable[Step],
    tuples: int,
    emitted: np.ndarray | None = None,
    warmup: float = WARMUP_FRACTION,
) -> _Pass:
    """One open-loop pass: departures of every tuple, spouts emitting at ``emitted``.

    ``emitted`` (per spout tuple, root order) defaults to the offered arrivals.
    """
    t = plan.table
    order = t.graph.order
    consumers = [
        sum(1 for k in range(len(t.streams)) if t.src_comp[k] == c) for c in range(len(order))
    ]
    departures: dict[int, np.ndarray] = {}
    offered = np.zeros(tuples)
    start = np.zeros(tuples) if emitted is None else emitted
    spout_executor = np.zeros(tuples, dtype=np.int64)
    last = np.zeros(tuples)
    processed: dict[str, int] = {}
    warm = np.zeros(tuples, dtype=bool)
    horizon, hops = 0.0, 0
    for step in steps:
        c = step.component
        if step.arrival_s is not None:
            offered[step.root] = step.arrival_s
            spout_executor[step.root] = step.executor
            if emitted is None:
                start[step.root] = step.arrival_s
            arrival = start[step.root]
            warm[step.root[: int(np.ceil(warmup * len(step.root)))]] = True
            horizon = max(horizon, float(arrival.max()) if len(arrival) else 0.0)
        else:
            sent = _concat([departures[u][parent] for u, parent, _ in step.sources], float)
            delay = _concat([delay for _, _, delay in step.sources], float)
            arrival = arrivals(sent, delay, step.flush)
            for u, _, _ in step.sources:
                consumers[u] -= 1
                if consumers[u] == 0:
                    del departures[u]
        p = int(t.comp_start[c + 1] - t.comp_start[c])
        done = fifo_departures(arrival, step.service_s, step.executor - t.comp_start[c], p)
        np.maximum.at(last, step.root, step.completion(done))
        if consumers[c] > 0:
            departures[c] = done
        processed[order[c]] = len(done)
        hops += len(done)
    result = TraceResult(last - start, warm, processed, horizon, hops)
    return _Pass(result, last, offered, spout_executor)

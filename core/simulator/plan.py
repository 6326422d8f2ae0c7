"""What the trace needs to know about one placement: routes, hop costs, seeds.

A :class:`TracePlan` freezes, for one placement at one rate, every
executor's mean service time and location and, per stream, how a uniform
draw becomes a target executor (:func:`route_targets`) and what each
sender -> target hop costs (delay, and whether it leaves the worker, which
costs serialisation at the sender and deserialisation at the receiver).
Hop costs are tabulated per stream up to ``HOP_TABLE_MAX`` pairs, computed
per hop beyond.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from dataclasses import dataclass, replace

import numpy as np

from core.model import Network, Scenario
from core.problem import Problem
from core.simulator.batching import Flush, arrivals
from core.simulator.capacity import Evaluator
from core.simulator.costs import deserialize_s, locality_class, serialize_s, transfer_delay_s
from core.simulator.polling import SpoutWakeups, TransferPoll
from core.simulator.rates import StreamTable, is_ack_stream

HOP_TABLE_MAX = 1 << 22  # sender x target pairs up to which a stream's hop costs are tabulated

# What a hop may wait for: Storm 1.x flush timers, or Storm 2.x transfer threads.
HopTimers = Flush | TransferPoll


@dataclass(frozen=True, eq=False)
class Route:
    """How one stream maps a uniform draw to a target executor."""

    kind: str  # "uniform", "fields", "local", "all" or "global"
    source_start: int  # global index of the source component's executor 0
    target_start: int  # global index of the target component's executor 0
    parallelism: int  # of the target component
    ack: bool
    ser_s: float  # sender CPU per tuple leaving the worker
    deser_s: float  # receiver CPU per tuple from another worker
    tuple_bytes: float
    cdf: np.ndarray | None = None  # fields: cumulative share of the target executors
    local_first: np.ndarray | None = None  # local: per worker, offset into local_flat
    local_count: np.ndarray | None = None  # local: per worker, number of candidates
    local_flat: np.ndarray | None = None
    local_keep: np.ndarray | None = None  # Storm 2's shuffle: per worker, the share kept
    delay_table: np.ndarray | None = None  # (sender, target) -> transfer delay, s
    cross_table: np.ndarray | None = None  # (sender, target) -> leaves the worker


@dataclass(frozen=True, eq=False)
class TracePlan:
    """Everything the trace needs about one placement at one rate."""

    table: StreamTable
    rate: float
    scenario_key: int
    service_cv: float
    network: Network
    mean_s: np.ndarray  # (E,) mean compute time per tuple, contention included
    slowdown: np.ndarray  # (E,) contention stretch of (de)serialisation CPU time
    worker: np.ndarray  # (E,) global slot index
    workers: int  # global slots in the cluster
    node: np.ndarray  # (E,)
    rack: np.ndarray  # (N,)
    nic_bits_per_s: np.ndarray  # (N,)
    routes: tuple[Route, ...]  # per stream of the table
    window: int | None = None  # tuple trees in flight per spout executor; None: open loop
    keep: np.ndarray | None = None  # (S, workers) Storm 2's shuffle's kept shares; None: all

    def hop_costs(
        self, sender: np.ndarray, target: np.ndarray, tuple_bytes: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Transfer delay (s) of each hop sender -> target, and whether it leaves the worker."""
        cls = locality_class(
            self.worker[sender],
            self.worker[target],
            self.node[sender],
            self.node[target],
            self.rack,
        )
        delay = transfer_delay_s(
            self.network, cls, tuple_bytes, self.nic_bits_per_s[self.node[sender]]
        )
        return delay, cls > 0


@dataclass(frozen=True, eq=False)
class Step:
    """The tuples one component processes, in canonical order."""

    component: int
    executor: np.ndarray  # global executor index
    root: np.ndarray  # spout tuple (tree) each belongs to
    service_s: np.ndarray  # service time of each, seconds
    arrival_s: np.ndarray | None  # spouts only: offered arrival time, seconds
    sources: tuple[tuple[int, np.ndarray, np.ndarray], ...] = ()  # (component, parent, delay_s)
    flush: HopTimers | None = None  # timers on the sources' hops, in their order
    ack_return: AckReturn | None = None  # the ackers only: the hop back to the spout

    def completion(self, done: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        """When each tuple's tree may count as complete (rows ``idx``, all when None).

        Its departure; for an acker's tuples, when the tree's spout executor
        takes the acker's message (its first wake-up after the message
        arrives), where Storm measures the complete latency.
        """
        back = self.ack_return
        if back is None:
            return done
        arrived = arrivals(done, back.delay_s, back.flush, idx)
        return arrived if back.wakeups is None else back.wakeups.after(arrived, idx)


@dataclass(frozen=True, eq=False)
class AckReturn:
    """The acker -> spout hop of every acker tuple (Storm's ``__ack_ack``)."""

    delay_s: np.ndarray  # transfer delay, s
    flush: HopTimers | None  # the timers on the hop
    wakeups: SpoutWakeups | None = None  # when the spout executor takes the message


def scenario_key(scenario: Scenario) -> int:
    """A 64-bit digest of the scenario's content, offered rate, observations, Storm's release
    and the measured worker heap left out.

    Fields at their defaults are left out too, so a scenario keeps its random
    streams when the format gains an optional field.
    """
    data = scenario.model_dump(by_alias=True, exclude_defaults=True, mode="json")
    data.pop("observations", None)
    data.pop("description", None)
    data.get("workload", {}).pop("rate", None)
    # nor what draws nothing: Storm's release (scenarios that differ only in it stay
    # paired) and a measured worker heap
    data.pop("storm_version", None)
    data.get("topology", {}).pop("worker_used_heap_mb", None)
    text = json.dumps(data, sort_keys=True).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "little")


_SCENARIO_KEYS: weakref.WeakKeyDictionary[Problem, int] = weakref.WeakKeyDictionary()


def _problem_key(problem: Problem) -> int:
    """:func:`scenario_key` of a Problem's scenario, computed once per Problem."""
    key = _SCENARIO_KEYS.get(problem)
    if key is None:
        key = _SCENARIO_KEYS[problem] = scenario_key(problem.scenario)
    return key


def trace_plan(
    evaluator: Evaluator, slots: np.ndarray, rate: float, service_rate: float | None = None
) -> TracePlan:
    """The :class:`TracePlan` of a placement (slot-index array) at ``rate``.

    Spout tuples are offered at ``rate``; mean service times are those at
    ``service_rate`` (default ``rate``): the rate the trace will actually
    sustain, R_eff = min(rate, R*) when the spouts are throttled by flow
    control, so that a node is not charged for CPU it never gets to spend.
    The flow-control window is the workload's ``max_spout_pending``.
    """
    service_rate = rate if service_rate is None else service_rate
    loads = evaluator.loads(slots, service_rate)
    stretch = evaluator.slowdown(loads, service_rate)
    plan = TracePlan(
        table=evaluator.table,
        rate=float(rate),
        scenario_key=_problem_key(evaluator.problem),
        service_cv=evaluator.scenario.workload.service_cv,
        network=evaluator.scenario.network,
        mean_s=loads.service * stretch,
        slowdown=stretch,
        worker=loads.slot_of,
        workers=evaluator.nodes.slots,
        node=loads.node_of,
        rack=evaluator.nodes.rack,
        nic_bits_per_s=evaluator.nodes.nic_bits_per_s,
        routes=(),
        window=evaluator.scenario.workload.max_spout_pending,
        keep=loads.rates.keep,
    )
    return replace(plan, routes=tuple(_route(plan, k) for k in range(len(plan.table.streams))))


def _route(plan: TracePlan, k: int) -> Route:
    """The route of stream k, with its hop costs tabulated when small enough."""
    t, net, stream = plan.table, plan.network, plan.table.streams[k]
    u, d = int(t.src_comp[k]), int(t.dst_comp[k])
    senders = np.arange(t.comp_start[u], t.comp_start[u + 1])
    targets = np.arange(t.comp_start[d], t.comp_start[d + 1])
    p = len(targets)
    common = dict(
        source_start=int(senders[0]),
        target_start=int(targets[0]),
        parallelism=p,
        ack=is_ack_stream(stream),
        ser_s=float(serialize_s(net, t.tuple_bytes[k])),
        deser_s=float(deserialize_s(net, t.tuple_bytes[k])),
        tuple_bytes=float(t.tuple_bytes[k]),
    )
    if len(senders) * p <= HOP_TABLE_MAX:
        pairs = np.repeat(senders, p), np.tile(targets, len(senders))
        delay, cross = plan.hop_costs(*pairs, t.tuple_bytes[k])
        common.update(delay_table=delay, cross_table=cross)
    if stream.grouping == "fields" and not is_ack_stream(stream):
        # a key drawn by popularity, then hashed, is an executor drawn by its key mass
        cdf = np.cumsum(t.weights[k])
        return Route("fields", cdf=cdf / cdf[-1], **common)
    if t.local[k]:  # local-or-shuffle, and shuffle under Storm 2's locality-first rule
        keep = plan.keep[k] if plan.keep is not None and t.spill[k] else None
        if keep is not None and (keep >= 1.0).all():
            keep = None
        table = _local_table(plan.worker[targets], plan.workers)
        return Route("local", **common, **table, local_keep=keep)
    if stream.grouping in ("all", "global"):
        return Route(stream.grouping, **common)
    return Route("uniform", **common)


def _local_table(target_worker: np.ndarray, workers: int) -> dict[str, np.ndarray]:
    """Candidates per sender worker: its own targets, else all of them."""
    p = len(target_worker)
    order = np.argsort(target_worker, kind="stable")
    count = np.bincount(target_worker, minlength=workers)
    first = np.cumsum(count) - count
    return {
        "local_first": np.where(count > 0, first, p),
        "local_count": np.where(count > 0, count, p),
        "local_flat": np.concatenate([order, np.arange(p)]),
    }


def route_targets(route: Route, u: np.ndarray, sender_worker: np.ndarray) -> np.ndarray:
    """Target executor (index in its component) of each child, from uniforms u."""
    p = route.parallelism
    if route.kind == "fields":
        return np.searchsorted(route.cdf, u, side="right")
    if route.kind == "local":
        count = route.local_count[sender_worker]
        if route.local_keep is not None:  # Storm 2's shuffle: kept with its share, else spilled
            keep = route.local_keep[sender_worker]
            kept = u < keep
            spill_u = np.maximum(u - keep, 0.0) / np.maximum(1.0 - keep, 1e-300)
            spilled = np.minimum(spill_u * p, p - 1)
            u = np.where(kept, u / np.where(kept, keep, 1.0), 0.0)
        offset = np.minimum((u * count).astype(np.int64), count - 1)
        local = route.local_flat[route.local_first[sender_worker] + offset]
        if route.local_keep is None:
            return local
        return np.where(kept, local, spilled.astype(np.int64))
    return np.minimum((u * p).astype(np.int64), p - 1)

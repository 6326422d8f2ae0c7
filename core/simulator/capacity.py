"""Layer 1: the analytic steady state of a placement, fast enough for search.

An :class:`Evaluator` is built once per (scenario, parallelism); it takes
placements as integer arrays (the global slot index of every executor, see
:meth:`Evaluator.encode`) and returns an :class:`Analysis` (everything) or a
:class:`Score` (what a search compares; :meth:`Evaluator.score_many` scores
a batch, :mod:`core.simulator.batch`); the result types are in
:mod:`core.simulator.results`. All rates are linear in the offered rate R,
so one pass per placement computes loads per unit of R, and the bounds
follow:

1. an executor is one thread: its CPU demand <= 1 core;
2. a node: its executors' demand + fixed overheads (per executor, and per
   worker JVM in use: ``network.worker_cpu_cores``) <= its cores;
3. a node's NIC: inter-node bits out, and in, <= its bandwidth (full duplex).

R* is the smallest bound and the bottleneck names it (``executor split#2
thread``, ``node n3 CPU``, ``node n1 NIC``); everything is reported at R_eff
= min(R0, R*) (backpressure). Memory does not bound R; over-commits are
reported in ``warnings`` (see :func:`core.simulator.costs.memory_by_node`), and a node
whose workers use more heap than its RAM in ``violations``
(:func:`core.simulator.costs.heap_used_by_node`, :func:`~core.simulator.costs.memory_violations`).
Under Storm 2's shuffle (``storm_version`` 2 or later) the routing moves with the rate
(:mod:`core.simulator.spill`): :meth:`Evaluator.loads` takes the rate.

The latency estimate is the critical path of mean sojourn times: per
executor an M/G/1 (Pollaczek-Khinchine) queue with the executor's mean
service time, its compute part with the workload's coefficient of variation;
per component the arrival-weighted mean of its executors; per stream the
flow-weighted mean transfer delay; with ackers, the acker's message back to
the spout (:mod:`core.simulator.acking`). It ignores the maximum over a tuple
tree's branches, so it is a lower estimate of Storm's complete latency, good
for ranking placements. Service times are stretched by CPU contention:
processor sharing of a node's cores among its busy executors
(:mod:`core.simulator.contention`). A server at or over saturation is
charged as if at ``RHO_CAP`` utilisation: the M/G/1 sojourn diverges there
while Storm's flow control bounds it, so saturated placements still rank
by their other terms (searches compare throughput, i.e. R*, first).
"""

from __future__ import annotations

import numbers
from collections import OrderedDict
from collections.abc import Mapping
from threading import Lock

import numpy as np

from core.hardware import NodeArrays
from core.model import Component, Network, Scenario
from core.problem import DEFAULT_COSTS, Problem, StormCosts, problem_of
from core.simulator.acking import ack_hop, ack_return_s
from core.simulator.batch import PathModel, score_many
from core.simulator.batching import flush_period_s, mean_hop_waits_s
from core.simulator.coefficients import (
    CORE_FLOOR,
    coefficients,
    max_rate,
    pair_sums,
    peak_loads,
    unit_loads,
)
from core.simulator.contention import contention_factors, mean_field_factors
from core.simulator.costs import (
    CROSS_WORKER,
    HopDelays,
    class_latency_s,
    heap_used_by_node,
    memory_by_node,
    memory_violations,
)
from core.simulator.errors import SimulationError
from core.simulator.placed_rates import placed_unit_rates
from core.simulator.polling import mean_transfer_wait_s, spout_sleep_s
from core.simulator.rates import visit_ratios
from core.simulator.results import RHO_CAP, Analysis, Loads, Score
from core.simulator.spill import placed, spill_below, spill_keep, spill_max_rate


def _total_mb(component: Component) -> float:
    """Declared memory of one executor, MB: on-heap + off-heap (Storm's getTotalMemoryMb)."""
    return component.memory_mb + component.offheap_mb


def hop_delays(net: Network, nodes: NodeArrays) -> HopDelays:
    """The :class:`HopDelays` of a scenario's network and cluster."""
    return HopDelays(
        class_s=class_latency_s(net) + mean_transfer_wait_s(net) * CROSS_WORKER,
        flush_s=flush_period_s(net),
        spout_wait_s=0.5 * spout_sleep_s(net),
        racks=int(nodes.rack.max()) + 1 if net.same_rack_us is not None else 1,
    )


class Evaluator:
    """Analytic evaluations of many placements of one :class:`core.problem.Problem`.

    Parameters
    ----------
    problem : Problem or Scenario
        A Scenario is looked up as its Problem (:func:`core.problem.problem_of`).
    parallelism : mapping, optional
        Executors per component (a schedule's own); default the problem's.
    costs : StormCosts, optional
        Storm's global per-tuple costs (:class:`core.problem.StormCosts`).

    Attributes
    ----------
    problem : Problem
    scenario : Scenario
    executors : tuple of str
        Executor ids in topological order: the order of every slot array.
    graph : TopologyGraph
    coef : Coefficients
        The capacity model's coefficients (:mod:`core.simulator.coefficients`).
    path : PathModel
        What the latency estimate needs besides (:class:`core.simulator.batch.PathModel`).
    table : StreamTable
        Streams and executors as flat arrays (:mod:`core.simulator.rates`).
    nodes : NodeArrays
        The cluster as arrays; ``nodes.slots`` global slots, numbered node by
        node from ``nodes.slot_start``.
    visits : dict
        Tuples each component processes per unit of offered rate.
    service_s : ndarray, shape (components, nodes)
        Mean compute time per tuple, seconds.

    Examples
    --------
    >>> from core.presets import preset
    >>> from core.registry import run_scheduler
    >>> sc = preset("lf-linear")
    >>> ev = Evaluator(sc)
    >>> slots = ev.encode(run_scheduler(sc, "even").placement())
    >>> ev.score(slots, rate=1000.0).throughput
    16000.0
    """

    def __init__(
        self,
        problem: Problem | Scenario,
        parallelism: Mapping[str, int] | None = None,
        costs: StormCosts = DEFAULT_COSTS,
    ):
        self.problem = problem = problem_of(problem, parallelism, costs)
        self.scenario = scenario = problem.scenario
        self.graph = graph = problem.graph
        self.coef = coef = coefficients(problem)
        self.table = t = coef.table
        self.nodes = nodes = problem.nodes
        self.executors = t.executors
        self.service_s = problem.service_s
        self.visits = visit_ratios(graph)
        visit = np.array([self.visits[c] for c in graph.order])
        spouts = set(graph.spouts)
        self.path = PathModel(
            coef=coef,
            delays=hop_delays(scenario.network, nodes),
            ack=ack_hop(graph, t),
            in_streams=tuple(tuple((k, int(t.src_comp[k])) for k in ks) for ks in t.in_streams),
            inv_visit=np.where(visit > 0, 1.0 / np.where(visit > 0, visit, 1.0), 0.0),
            src_spout=np.array([graph.order[u] in spouts for u in t.src_comp], bool),
            visit_total=sum(self.visits.values()),
            cv2=scenario.workload.service_cv**2,
            rate=scenario.workload.rate,
        )
        self._sink_total = sum(self.visits[c] for c in graph.sinks)
        self._count_bytes = np.stack([np.ones(len(t.streams)), t.tuple_bytes], axis=1)
        self._mem = np.array(  # on-heap + off-heap: what a node's RAM holds (Cluster.wouldFit)
            [_total_mb(graph.components[graph.order[c]]) for c in t.exec_comp], dtype=float
        )
        self._used_heap = scenario.topology.worker_used_heap_mb
        self._spill_cache: OrderedDict[bytes, tuple[float, np.ndarray]] = OrderedDict()
        self._spill_lock = Lock()
        # node id -> (its first global slot, its slots): one entry a node, not a slot (a dict
        # of every (node, slot) was 147 MB on 5,000 nodes of 256 slots)
        starts = nodes.slot_start.tolist()
        self._node_slots = {
            nid: (starts[j], starts[j + 1] - starts[j]) for j, nid in enumerate(nodes.ids)
        }

    def encode(self, placement: Mapping[str, tuple[str, int]]) -> np.ndarray:
        """Global slot index of every executor (in ``self.executors`` order).

        Raises
        ------
        SimulationError
            An executor is not placed, or placed on an unknown node or slot.
        """
        out = np.empty(len(self.executors), dtype=np.int64)
        for i, e in enumerate(self.executors):
            if e not in placement:
                raise SimulationError("schedule", f"executor '{e}' is not placed")
            where = tuple(placement[e])
            first, width = self._node_slots.get(where[0], (0, 0)) if len(where) == 2 else (0, 0)
            slot = where[1] if width else -1
            if not isinstance(slot, numbers.Integral) or not 0 <= slot < width:
                raise SimulationError("schedule", f"executor '{e}' is on unknown slot {where!r}")
            out[i] = first + int(slot)
        return out

    def decode(self, slots: np.ndarray) -> dict[str, tuple[str, int]]:
        """The placement (executor -> (node, slot)) of a slot-index array."""
        start, node_of = self.nodes.slot_start, self.nodes.slot_node
        return {
            e: (self.nodes.ids[node_of[g]], int(g - start[node_of[g]]))
            for e, g in zip(self.executors, np.asarray(slots).tolist(), strict=True)
        }

    def loads(self, slots: np.ndarray, rate: float | None = None) -> Loads:
        """Per-unit-rate loads and the bounds of one placement.

        ``rate`` matters only under Storm 2's shuffle (:mod:`core.simulator.spill`),
        whose routing moves with the rate: the loads are those of its steady
        state at min(``rate``, R*) (None: at R*), and ``max_rate`` is R* with
        the spill.
        """
        coef, t = self.coef, self.table
        slot_of = np.asarray(slots, dtype=np.int64)
        spill_rate = None
        if t.has_spill:
            spill_rate, keep = self._spill_max_rate(slot_of)
            if rate is not None and rate < spill_rate:
                keep, r, u = spill_keep(coef, slot_of, rate)
            else:
                r, u = placed(coef, slot_of, keep)
            total = r.out_total * r.weight_total + r.local_total
        else:
            if coef.static is not None:
                r, o_tot, total = coef.static, coef.o_tot, coef.total
            else:
                r = placed_unit_rates(coef.plan, slot_of, coef.dims[1])
                o_tot = r.out_total[t.tgt_sid]
                total = r.out_total * r.weight_total + r.local_total
            u = unit_loads(coef, slot_of, r.arrival, r.src_out, r.local_total, o_tot)
        peaks = peak_loads(coef, u)
        # ties go to the first listed: the thread, then the node's CPU, then its NIC
        load, which = float(peaks.thread), 0
        if float(peaks.node) > load:
            load, which = float(peaks.node), 1
        if float(peaks.nic) > load:
            load, which = float(peaks.nic), 2
        if load <= 0:
            bottleneck = "none"
        elif which == 0:
            bottleneck = f"executor {self.executors[int(peaks.thread_at)]} thread"
        else:
            at = int(peaks.node_at if which == 1 else peaks.nic_at)
            bottleneck = f"node {self.nodes.ids[at]} {('CPU', 'NIC')[which - 1]}"
        return Loads(
            slot_of=slot_of,
            node_of=u.node_of,
            rates=r,
            service=u.service,
            serdes=u.serdes,
            cpu=u.cpu,
            node_cpu=u.node_cpu,
            fixed=u.fixed,
            nic=u.nic,
            same_worker=u.same_worker,
            same_node=u.same_node,
            total=total,
            wire=u.wire,
            max_rate=max_rate(load) if spill_rate is None else spill_rate,
            bottleneck=bottleneck,
        )

    def _spill_max_rate(self, slot_of: np.ndarray) -> tuple[float, np.ndarray]:
        """:func:`core.simulator.spill.spill_max_rate` of a placement, kept for the latest
        ``SPILL_KEPT`` placements (an analysis, its trace and its observations ask again)."""
        key = slot_of.tobytes()
        with self._spill_lock:
            found = self._spill_cache.get(key)
            if found is not None:
                self._spill_cache.move_to_end(key)
                return found
        found = spill_max_rate(self.coef, slot_of)
        with self._spill_lock:
            self._spill_cache[key] = found
            while len(self._spill_cache) > SPILL_KEPT:
                self._spill_cache.popitem(last=False)
        return found

    def node_utilisation(self, loads: Loads, rate: float) -> np.ndarray:
        """CPU utilisation of every node at ``rate`` (may exceed 1 above R*)."""
        return (rate * loads.node_cpu + loads.fixed) / self.coef.capacity_cores

    def slowdown(self, loads: Loads, rate: float, exact: bool = True) -> np.ndarray:
        """Stretch of every executor's CPU time per tuple from its node's contention.

        Processor sharing among the node's busy executors
        (:func:`core.simulator.contention.contention_factors`), the cores left
        after fixed overheads shared; >= 1, and 1 on a node with no more
        executors than cores. ``exact=False``: the mean-field bound
        (:func:`core.simulator.contention.mean_field_factors`), exact on one
        core, ~40x faster; what :meth:`score` uses.
        """
        if not self.coef.has_fixed:  # no fixed overheads: the same every time
            cores = self.coef.free_cores
        else:
            cores = np.maximum(self.coef.capacity_cores - loads.fixed, CORE_FLOOR)
        factors = contention_factors if exact else mean_field_factors
        return factors(rate * loads.cpu, loads.node_of, cores)

    def service_means(self, loads: Loads, rate: float) -> np.ndarray:
        """Mean compute time per tuple of every executor at ``rate``, seconds.

        Stretched by CPU contention on its node (:meth:`slowdown`).
        """
        return loads.service * self.slowdown(loads, rate)

    def latency_estimate_ms(self, loads: Loads, rate: float, exact: bool = True) -> float:
        """Critical path of mean sojourn and transfer times at ``rate``, ms.

        ``exact``: CPU contention by the Poisson-binomial fixed point, else
        its mean-field bound (see :meth:`slowdown`).
        """
        model, delays = self.path, self.path.delays
        lam = rate * loads.rates.arrival
        stretch = self.slowdown(loads, rate, exact)
        compute = loads.service * stretch
        mean = compute + loads.serdes * stretch
        rho = np.minimum(lam * mean, RHO_CAP)
        sojourn = mean + lam * (compute * compute * model.cv2 + mean * mean) / (2.0 * (1.0 - rho))
        # arrival-weighted mean per component (weights per unit rate: also right at rate 0)
        n_c = len(model.in_streams)
        weighted = np.bincount(self.table.exec_comp, loads.rates.arrival * sojourn, n_c)
        comp_s = (weighted * model.inv_visit).tolist()
        sw, sn, total = loads.same_worker, loads.same_node, loads.total
        sr = self._same_rack(loads) if delays.racks > 1 else sn
        lat = delays.class_s
        delay_sum = (
            sw * lat[0]
            + (sn - sw) * lat[1]
            + (sr - sn) * lat[2]
            + (total - sr) * lat[3]
            + loads.wire
        )
        delay = delay_sum / np.where(total > 0, total, 1.0)
        if delays.flush_s > 0:
            share = 1.0 - sw / np.where(total > 0, total, 1.0)
            sojourn_src = np.asarray(comp_s)[self.table.src_comp]
            delay = delay + mean_hop_waits_s(delays.flush_s, sojourn_src, model.src_spout, share)
        delay = delay.tolist()
        busy = (total > 0).tolist()
        path = [0.0] * len(comp_s)
        for c, ins in enumerate(model.in_streams):
            best = 0.0
            for k, u in ins:
                if busy[k] and path[u] + delay[k] > best:
                    best = path[u] + delay[k]
            path[c] = comp_s[c] + best
        if model.ack is not None:  # the acker's message back to the spout ends the tree
            a = model.ack.component
            sojourn = np.array([comp_s[a]])
            back = ack_return_s(
                model.ack,
                self.nodes,
                delays,
                loads.slot_of[None, :],
                loads.node_of[None, :],
                sojourn,
            )
            path[a] = path[a] + float(back[0])
        return max(path) * 1e3

    def _same_rack(self, loads: Loads) -> np.ndarray:
        """Tuples per unit R of every stream that stay inside one rack."""
        t, r, n_r = self.table, loads.rates, self.path.delays.racks
        rack = self.nodes.rack[loads.node_of]
        src, tgt = t.src_sid * n_r + rack[t.src_ex], t.tgt_sid * n_r + rack[t.tgt_ex]
        return pair_sums(src, r.src_out, tgt, t.tgt_w, len(t.streams), n_r)[0] + r.local_total

    def score(self, slots: np.ndarray, rate: float | None = None) -> Score:
        """Throughput, R*, latency estimate and nodes used: the hot-loop summary.

        Saturated placements rank by R* first (``throughput`` is R_eff times
        the visits); their latency at R_eff = R* charges a server at
        utilisation >= 1 as if at ``RHO_CAP`` (M/G/1 diverges there, while
        Storm's flow control bounds it: :func:`core.simulator.analyze` reports
        Little's law instead), so they still order by their other terms. CPU
        contention uses the mean-field bound (exact on one core).
        """
        r0 = self.path.rate if rate is None else float(rate)
        loads = self.loads(slots, r0)
        r_eff = min(r0, loads.max_rate)
        return Score(
            throughput=r_eff * self.path.visit_total,
            max_rate=loads.max_rate,
            latency_estimate_ms=self.latency_estimate_ms(loads, r_eff, exact=False),
            nodes_used=int(np.count_nonzero(np.bincount(loads.node_of, None, len(self.nodes.ids)))),
        )

    def score_many(self, slots: np.ndarray, rate: float | None = None) -> list[Score]:
        """:meth:`score` of every row of ``slots`` (B x E), in one numpy pass, bit-identical
        (under Storm 2's shuffle, whose routing moves with the rate, row by row)."""
        if self.table.has_spill:
            return [self.score(row, rate) for row in np.atleast_2d(np.asarray(slots))]
        return score_many(self.path, slots, rate)

    def below(self, slots: np.ndarray, rate: float) -> list[bool]:
        """Whether each placement's R* (a row of ``slots``, B x E) is certainly below
        ``rate`` (tuples/s), cheaper than its :meth:`score`: under Storm 2's shuffle R* is
        a solve, and a search that keeps only placements reaching a rate skips the rest
        with this (:func:`core.simulator.spill.spill_below`). False when unsure, and
        always without the spill (R* is then one pass: :meth:`score_many`). A placement
        whose R* is known answers from spill's memo, which holds every R* this Evaluator
        solved."""
        rows = np.atleast_2d(np.asarray(slots, dtype=np.int64))
        if not self.table.has_spill:
            return [False] * len(rows)
        return spill_below(self.coef, rows, rate)

    def evaluate(self, slots: np.ndarray, rate: float | None = None) -> Analysis:
        """The full :class:`Analysis` of one placement at offered rate ``rate``."""
        r0 = self.path.rate if rate is None else float(rate)
        loads = self.loads(slots, r0)
        nodes, t = self.nodes, self.table
        r_eff = min(r0, loads.max_rate)
        util = self.node_utilisation(loads, r_eff)
        executor_cpu = r_eff * loads.cpu
        if self.coef.fixed_cores is not None:
            executor_cpu = executor_cpu + self.coef.fixed_cores[t.exec_comp, loads.node_of]
        traffic, traffic_bytes = self._traffic(loads, r_eff)
        heap, used = self.scenario.network.worker_heap_mb, self._used_heap
        memory, warnings = memory_by_node(nodes, loads.slot_of, self._mem, heap, used)
        return Analysis(
            rate=r0,
            effective_rate=r_eff,
            max_rate=loads.max_rate,
            saturated=r0 > loads.max_rate,
            bottleneck=loads.bottleneck,
            throughput=r_eff * self.path.visit_total,
            sink_throughput=r_eff * self._sink_total,
            latency_estimate_ms=self.latency_estimate_ms(loads, r_eff),
            cpu_util=dict(zip(nodes.ids, util.tolist(), strict=True)),
            memory_mb=dict(zip(nodes.ids, memory.tolist(), strict=True)),
            traffic=traffic,
            traffic_bytes=traffic_bytes,
            nodes_used=int(np.count_nonzero(np.bincount(loads.node_of, None, len(nodes.ids)))),
            slots_used=int(np.count_nonzero(np.bincount(loads.slot_of, None, nodes.slots))),
            executor_rate=dict(
                zip(self.executors, (r_eff * loads.rates.arrival).tolist(), strict=True)
            ),
            executor_cpu=dict(zip(self.executors, executor_cpu.tolist(), strict=True)),
            warnings=tuple(warnings),
            violations=self.memory_violations(loads.slot_of),
        )

    def memory_violations(self, slots: np.ndarray) -> tuple[str, ...]:
        """:attr:`Analysis.violations` of a placement alone: the heap its workers use per
        node against the nodes' RAM, without the rates, loads and latencies of
        :meth:`evaluate`."""
        slot_of = np.asarray(slots, dtype=np.int64)
        used = heap_used_by_node(self.nodes, slot_of, self._mem, self._used_heap)
        return memory_violations(self.nodes, slot_of, used)

    def _traffic(self, loads: Loads, rate: float) -> tuple[dict, dict]:
        """Tuples/s and bytes/s by locality class at ``rate``."""
        sw, sn, total = loads.same_worker, loads.same_node, loads.total
        classes = np.array([sw, sn - sw, total - sn])
        # differences of equal sums leave rounding dust: below 1e-12 of the stream is zero
        classes[np.abs(classes) <= 1e-12 * total] = 0.0
        names = ("intra_worker", "inter_worker", "inter_node")
        tuples, size = (rate * (classes @ self._count_bytes)).T.tolist()
        return dict(zip(names, tuples, strict=True)), dict(zip(names, size, strict=True))


SPILL_KEPT = 64  # placements whose Storm 2 shuffle R* an Evaluator keeps
EVALUATORS_KEPT = 16  # as many as core.problem keeps Problems
_EVALUATORS: OrderedDict[str, Evaluator] = OrderedDict()
_EVALUATORS_LOCK = Lock()


def evaluator_of(
    problem: Problem | Scenario, parallelism: Mapping[str, int] | None = None
) -> Evaluator:
    """The :class:`Evaluator` of a Problem (or of a scenario's), built once per Problem.

    The latest ``EVALUATORS_KEPT`` are kept (an Evaluator holds its Problem);
    an Evaluator is never changed after it is built.
    """
    key = problem_of(problem, parallelism)
    with _EVALUATORS_LOCK:
        found = _EVALUATORS.get(key.key)
        if found is not None and found.problem is key:
            _EVALUATORS.move_to_end(key.key)
            return found
    built = Evaluator(key)
    with _EVALUATORS_LOCK:
        _EVALUATORS[key.key] = built
        while len(_EVALUATORS) > EVALUATORS_KEPT:
            _EVALUATORS.popitem(last=False)
    return built

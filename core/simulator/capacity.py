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
reported in ``warnings`` (see :func:`core.simulator.costs.memory_by_node`).

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

import math
from collections.abc import Mapping

import numpy as np

from core.model import Scenario
from core.simulator.acking import ack_hop, ack_return_s
from core.simulator.batch import score_many
from core.simulator.batching import flush_period_s, mean_hop_waits_s
from core.simulator.contention import contention_factors, mean_field_factors
from core.simulator.costs import (
    BITS_PER_BYTE,
    DEFAULT_COSTS,
    StormCosts,
    class_latency_s,
    deserialize_s,
    memory_by_node,
    node_arrays,
    serialize_s,
    service_matrix,
)
from core.simulator.errors import SimulationError
from core.simulator.placed_rates import placed_unit_rates, rate_plan
from core.simulator.polling import mean_transfer_wait_s, spout_sleep_s
from core.simulator.rates import stream_table, unit_rates, visit_ratios
from core.simulator.results import CORE_FLOOR, RHO_CAP, Analysis, Loads, Score, node_cpu_load
from core.topology import build_graph

CROSS_WORKER = np.array([0.0, 1.0, 1.0, 1.0])  # per locality class: the hop leaves its worker


class Evaluator:
    """Analytic evaluations of many placements of one (scenario, parallelism).

    Parameters
    ----------
    scenario : Scenario
    parallelism : mapping, optional
        Executors per component (a schedule's own); default the scenario's.
    costs : StormCosts, optional
        Storm's global per-tuple costs (:class:`core.simulator.costs.StormCosts`).

    Attributes
    ----------
    executors : tuple of str
        Executor ids in topological order: the order of every slot array.
    graph : TopologyGraph
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
    8000.0
    """

    def __init__(
        self,
        scenario: Scenario,
        parallelism: Mapping[str, int] | None = None,
        costs: StormCosts = DEFAULT_COSTS,
    ):
        self.scenario = scenario
        self.graph = build_graph(scenario, parallelism)
        self.table = t = stream_table(self.graph)
        self.nodes = nodes = node_arrays(scenario)
        self.executors = t.executors
        self.service_s, fixed = service_matrix(self.graph, scenario, costs)
        self._fixed = fixed if fixed.any() else None
        self._worker_cores = scenario.network.worker_cpu_cores
        self._has_fixed = self._fixed is not None or self._worker_cores > 0
        self._free_cores = np.maximum(nodes.cores - np.zeros(len(nodes.ids)), CORE_FLOOR)
        self.visits = visit_ratios(self.graph)
        self._visit_total = sum(self.visits.values())
        visit = np.array([self.visits[c] for c in self.graph.order])
        self._inv_visit = np.where(visit > 0, 1.0 / np.where(visit > 0, visit, 1.0), 0.0)
        self._sink_total = sum(self.visits[c] for c in self.graph.sinks)
        net = scenario.network
        # a hop that leaves its worker waits half a transfer-thread sleep on average
        self._class_s = class_latency_s(net) + mean_transfer_wait_s(net) * CROSS_WORKER
        self._flush_s = flush_period_s(net)
        spouts = {c for c in self.graph.order if not self.graph.preds[c]}
        self._src_spout = np.array([self.graph.order[u] in spouts for u in t.src_comp], bool)
        self._ack = ack_hop(self.graph, t)
        self._spout_wait_s = 0.5 * spout_sleep_s(net)  # the acker's message waits for a wake-up
        self._racks = int(nodes.rack.max()) + 1 if net.same_rack_us is not None else 1
        n_s, n_g, n_n = len(t.streams), nodes.slots, len(nodes.ids)
        self._dims = (n_s, n_g, n_n)
        self._src_g, self._tgt_g = t.src_sid * n_g, t.tgt_sid * n_g
        self._src_n, self._tgt_n = t.src_sid * n_n, t.tgt_sid * n_n
        self._src_r, self._tgt_r = t.src_sid * self._racks, t.tgt_sid * self._racks
        self._ser_i = serialize_s(net, t.tuple_bytes)[t.src_sid]
        self._deser_j = deserialize_s(net, t.tuple_bytes)[t.tgt_sid]
        self._bytes_i, self._bytes_j = t.tuple_bytes[t.src_sid], t.tuple_bytes[t.tgt_sid]
        self._both_ex = np.concatenate([t.src_ex, t.tgt_ex])
        self._count_bytes = np.stack([np.ones(n_s), t.tuple_bytes], axis=1)  # tuples, bytes
        self._static = None if t.has_local else unit_rates(t)
        if self._static is not None:  # per-entry stream totals, fixed when no rate moves
            r = self._static
            self._totals = r.weight_total[t.src_sid], r.out_total[t.tgt_sid]
            self._total = r.out_total * r.weight_total + r.local_total
        else:  # local-or-shuffle: rates per placement, the weights' totals still fixed
            self._plan = rate_plan(t)
            self._w_tot = self._plan.weight_total[t.src_sid]
        self._mem = np.array(
            [self.graph.components[self.graph.order[c]].memory_mb for c in t.exec_comp], dtype=float
        )
        self._cv2 = scenario.workload.service_cv**2
        self._in = [[(k, int(t.src_comp[k])) for k in ks] for ks in t.in_streams]
        self._slot_index = {
            (nid, s): int(nodes.slot_start[j]) + s
            for j, nid in enumerate(nodes.ids)
            for s in range(int(nodes.slot_start[j + 1] - nodes.slot_start[j]))
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
            if where not in self._slot_index:
                raise SimulationError("schedule", f"executor '{e}' is on unknown slot {where!r}")
            out[i] = self._slot_index[where]
        return out

    def decode(self, slots: np.ndarray) -> dict[str, tuple[str, int]]:
        """The placement (executor -> (node, slot)) of a slot-index array."""
        start, node_of = self.nodes.slot_start, self.nodes.slot_node
        return {
            e: (self.nodes.ids[node_of[g]], int(g - start[node_of[g]]))
            for e, g in zip(self.executors, np.asarray(slots).tolist(), strict=True)
        }

    def loads(self, slots: np.ndarray) -> Loads:
        """Per-unit-rate loads and the bounds of one placement."""
        t, nodes = self.table, self.nodes
        n_s, n_g, n_n = self._dims
        slot_of = np.asarray(slots, dtype=np.int64)
        node_of = nodes.slot_node[slot_of]
        r = (
            self._static
            if self._static is not None
            else placed_unit_rates(self._plan, slot_of, n_g)
        )
        ks, kt = self._src_g + slot_of[t.src_ex], self._tgt_g + slot_of[t.tgt_ex]
        nsrc, ntgt = node_of[t.src_ex], node_of[t.tgt_ex]
        ns, nt = self._src_n + nsrc, self._tgt_n + ntgt
        out_g = np.bincount(ks, r.src_out, n_s * n_g)
        w_g = np.bincount(kt, t.tgt_w, n_s * n_g)
        out_n = np.bincount(ns, r.src_out, n_s * n_n)
        w_n = np.bincount(nt, t.tgt_w, n_s * n_n)
        same_worker = (out_g * w_g).reshape(n_s, n_g).sum(1) + r.local_total
        same_node = (out_n * w_n).reshape(n_s, n_n).sum(1) + r.local_total
        if self._static is not None:
            w_tot, o_tot = self._totals
            total = self._total
        else:
            w_tot, o_tot = self._w_tot, r.out_total[t.tgt_sid]
            total = r.out_total * r.weight_total + r.local_total
        ser = r.src_out * (w_tot - w_g[ks]) * self._ser_i
        deser = t.tgt_w * (o_tot - out_g[kt]) * self._deser_j
        send_n = r.src_out * (w_tot - w_n[ns])
        recv_n = t.tgt_w * (o_tot - out_n[nt])
        service = self.service_s[t.exec_comp, node_of]
        serdes = np.bincount(self._both_ex, np.concatenate([ser, deser]), len(slot_of))
        cpu = r.arrival * service + serdes
        busy = r.arrival > 0
        serdes = np.where(busy, serdes / np.where(busy, r.arrival, 1.0), 0.0)
        node_cpu = np.bincount(node_of, cpu, n_n)
        fixed = (
            np.bincount(node_of, self._fixed[t.exec_comp, node_of], n_n)
            if self._fixed is not None
            else np.zeros(n_n)
        )
        if self._worker_cores > 0:
            workers = np.bincount(nodes.slot_node, np.bincount(slot_of, None, n_g) > 0, n_n)
            fixed = fixed + self._worker_cores * workers
        nic_out = np.bincount(nsrc, send_n * self._bytes_i, n_n)
        nic_in = np.bincount(ntgt, recv_n * self._bytes_j, n_n)
        nic = np.maximum(nic_out, nic_in) * BITS_PER_BYTE / nodes.nic_bits_per_s
        wire = np.bincount(
            t.src_sid, send_n * self._bytes_i * BITS_PER_BYTE / nodes.nic_bits_per_s[nsrc], n_s
        )
        max_rate, bottleneck = self._bounds(cpu, node_cpu, fixed, nic)
        return Loads(
            slot_of=slot_of,
            node_of=node_of,
            rates=r,
            service=service,
            serdes=serdes,
            cpu=cpu,
            node_cpu=node_cpu,
            fixed=fixed,
            nic=nic,
            same_worker=same_worker,
            same_node=same_node,
            total=total,
            wire=wire,
            max_rate=max_rate,
            bottleneck=bottleneck,
        )

    def _bounds(self, cpu, node_cpu, fixed, nic) -> tuple[float, str]:
        node_load = node_cpu_load(node_cpu, self.nodes.cores - fixed, self._has_fixed)
        e, n, m = int(cpu.argmax()), int(node_load.argmax()), int(nic.argmax())
        # ties go to the first listed: the thread, then the node's CPU, then its NIC
        load, which = float(cpu[e]), 0
        if float(node_load[n]) > load:
            load, which = float(node_load[n]), 1
        if float(nic[m]) > load:
            load, which = float(nic[m]), 2
        if load <= 0:
            return math.inf, "none"
        if which == 0:
            name = f"executor {self.executors[e]} thread"
        else:
            name = f"node {self.nodes.ids[n if which == 1 else m]} {('CPU', 'NIC')[which - 1]}"
        return (0.0 if math.isinf(load) else 1.0 / load), name

    def node_utilisation(self, loads: Loads, rate: float) -> np.ndarray:
        """CPU utilisation of every node at ``rate`` (may exceed 1 above R*)."""
        return (rate * loads.node_cpu + loads.fixed) / self.nodes.cores

    def slowdown(self, loads: Loads, rate: float, exact: bool = True) -> np.ndarray:
        """Stretch of every executor's CPU time per tuple from its node's contention.

        Processor sharing among the node's busy executors
        (:func:`core.simulator.contention.contention_factors`), the cores left
        after fixed overheads shared; >= 1, and 1 on a node with no more
        executors than cores. ``exact=False``: the mean-field bound
        (:func:`core.simulator.contention.mean_field_factors`), exact on one
        core, ~40x faster; what :meth:`score` uses.
        """
        if not self._has_fixed:  # no fixed overheads: the same every time
            cores = self._free_cores
        else:
            cores = np.maximum(self.nodes.cores - loads.fixed, CORE_FLOOR)
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
        lam = rate * loads.rates.arrival
        stretch = self.slowdown(loads, rate, exact)
        compute = loads.service * stretch
        mean = compute + loads.serdes * stretch
        rho = np.minimum(lam * mean, RHO_CAP)
        sojourn = mean + lam * (compute * compute * self._cv2 + mean * mean) / (2.0 * (1.0 - rho))
        # arrival-weighted mean per component (weights per unit rate: also right at rate 0)
        weighted = np.bincount(self.table.exec_comp, loads.rates.arrival * sojourn, len(self._in))
        comp_s = (weighted * self._inv_visit).tolist()
        sw, sn, total = loads.same_worker, loads.same_node, loads.total
        sr = self._same_rack(loads) if self._racks > 1 else sn
        lat = self._class_s
        delay_sum = (
            sw * lat[0]
            + (sn - sw) * lat[1]
            + (sr - sn) * lat[2]
            + (total - sr) * lat[3]
            + loads.wire
        )
        delay = delay_sum / np.where(total > 0, total, 1.0)
        if self._flush_s > 0:
            share = 1.0 - sw / np.where(total > 0, total, 1.0)
            sojourn_src = np.asarray(comp_s)[self.table.src_comp]
            delay = delay + mean_hop_waits_s(self._flush_s, sojourn_src, self._src_spout, share)
        delay = delay.tolist()
        busy = (total > 0).tolist()
        path = [0.0] * len(comp_s)
        for c, ins in enumerate(self._in):
            best = 0.0
            for k, u in ins:
                if busy[k] and path[u] + delay[k] > best:
                    best = path[u] + delay[k]
            path[c] = comp_s[c] + best
        if self._ack is not None:  # the acker's message back to the spout ends the tree
            a = self._ack.component
            sojourn = np.array([comp_s[a]])
            back = ack_return_s(self, loads.slot_of[None, :], loads.node_of[None, :], sojourn)
            path[a] = path[a] + float(back[0])
        return max(path) * 1e3

    def _same_rack(self, loads: Loads) -> np.ndarray:
        """Tuples per unit R of every stream that stay inside one rack."""
        t, r, n_r = self.table, loads.rates, self._racks
        rack = self.nodes.rack[loads.node_of]
        out_r = np.bincount(self._src_r + rack[t.src_ex], r.src_out, len(t.streams) * n_r)
        w_r = np.bincount(self._tgt_r + rack[t.tgt_ex], t.tgt_w, len(t.streams) * n_r)
        return (out_r * w_r).reshape(-1, n_r).sum(1) + r.local_total

    def score(self, slots: np.ndarray, rate: float | None = None) -> Score:
        """Throughput, R*, latency estimate and nodes used: the hot-loop summary.

        Saturated placements rank by R* first (``throughput`` is R_eff times
        the visits); their latency at R_eff = R* charges a server at
        utilisation >= 1 as if at ``RHO_CAP`` (M/G/1 diverges there, while
        Storm's flow control bounds it: :func:`core.simulator.analyze` reports
        Little's law instead), so they still order by their other terms. CPU
        contention uses the mean-field bound (exact on one core).
        """
        loads = self.loads(slots)
        r0 = self.scenario.workload.rate if rate is None else float(rate)
        r_eff = min(r0, loads.max_rate)
        return Score(
            throughput=r_eff * self._visit_total,
            max_rate=loads.max_rate,
            latency_estimate_ms=self.latency_estimate_ms(loads, r_eff, exact=False),
            nodes_used=int(np.count_nonzero(np.bincount(loads.node_of, None, self._dims[2]))),
        )

    def score_many(self, slots: np.ndarray, rate: float | None = None) -> list[Score]:
        """:meth:`score` of every row of ``slots`` (B x E), in one numpy pass, bit-identical."""
        return score_many(self, slots, rate)

    def evaluate(self, slots: np.ndarray, rate: float | None = None) -> Analysis:
        """The full :class:`Analysis` of one placement at offered rate ``rate``."""
        loads = self.loads(slots)
        nodes, t = self.nodes, self.table
        r0 = self.scenario.workload.rate if rate is None else float(rate)
        r_eff = min(r0, loads.max_rate)
        util = self.node_utilisation(loads, r_eff)
        executor_cpu = r_eff * loads.cpu
        if self._fixed is not None:
            executor_cpu = executor_cpu + self._fixed[t.exec_comp, loads.node_of]
        traffic, traffic_bytes = self._traffic(loads, r_eff)
        heap = self.scenario.network.worker_heap_mb
        memory, warnings = memory_by_node(nodes, loads.slot_of, self._mem, heap)
        return Analysis(
            rate=r0,
            effective_rate=r_eff,
            max_rate=loads.max_rate,
            saturated=r0 > loads.max_rate,
            bottleneck=loads.bottleneck,
            throughput=r_eff * self._visit_total,
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
        )

    def _traffic(self, loads: Loads, rate: float) -> tuple[dict, dict]:
        """Tuples/s and bytes/s by locality class at ``rate``."""
        sw, sn, total = loads.same_worker, loads.same_node, loads.total
        classes = np.array([sw, sn - sw, total - sn])
        # differences of equal sums leave rounding dust: below 1e-12 of the stream is zero
        classes[np.abs(classes) <= 1e-12 * total] = 0.0
        names = ("intra_worker", "inter_worker", "inter_node")
        tuples, size = (rate * (classes @ self._count_bytes)).T.tolist()
        return dict(zip(names, tuples, strict=True)), dict(zip(names, size, strict=True))

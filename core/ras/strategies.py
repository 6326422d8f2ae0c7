"""Storm 2's resource-aware strategies, ported step by step.

- ``ras-default``: ``DefaultResourceAwareStrategy`` = ``BaseResourceAwareStrategy(true,
  COMMON)``: executors in ``ExecSorterByConnectionCount`` order, nodes re-sorted by
  ``NodeSorterHostProximity`` as ``scheduleExecutorsOnNodes`` decides, first worker slot
  that fits, backtracking when an executor fits nowhere, within the search limits.
- ``ras-generic``: ``GenericResourceAwareStrategy``; in Storm 2 it is the same class
  body as the default (both use the COMMON sort, which already weighs generic
  resources), so it runs the same search.
- ``ras-round-robin``: ``RoundRobinResourceAwareStrategy`` (Storm 2.5.0 on, STORM-3916):
  nodes sorted once, only nodes no other topology uses (``getTruncatedNodeList``,
  capped by ``topology.isolate.machines``), one walk over them that moves on with each
  executor, no backtracking (:class:`RoundRobinStrategy`).
- ``ras-constraint``: ``ConstraintSolverStrategy`` (:mod:`core.ras.constraint`).

Storm's quirk is kept: ``SchedulingSearcherState.isExecCompDifferentFromPrior`` returns
true when the executor's component is the *same* as the prior one, so the default
strategy re-sorts nodes for consecutive executors of one component and reuses the
previous sort when the component changes (and round robin restarts its walk there).

One Storm quirk is not copied: when the search stops because an executor fits nowhere,
Storm's result is ``areAllExecsScheduled()``, i.e. ``execIndex == size - 1``, so a
failure on the *last* executor of the order (round robin; or the only executor of a
one-executor topology, default) is reported "Fully Scheduled" and Storm keeps the
other executors placed (``cluster.needsSchedulingRas`` stays true: TestLargeCluster's
own assertion would reject it). The port reports it as not scheduled, places nothing,
and says in the message what Storm would report (:data:`STORM_LAST_EXECUTOR_NOTE`).
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from dataclasses import dataclass

import numpy as np

from core.ras.execsort import by_connection_count, by_proximity
from core.ras.model import RasCluster, RasTopology
from core.ras.sorter import LazyNodeSorting

STORM_LAST_EXECUTOR_NOTE = (
    "; Storm reports this case as Fully Scheduled (areAllExecsScheduled is execIndex == "
    "size - 1) and keeps the other executors placed"
)


@dataclass(frozen=True)
class SchedulingResult:
    """``SchedulingResult``: success, Storm's message, search figures."""

    success: bool
    message: str
    states: int = 0
    backtracks: int = 0
    placed: int = 0
    executors: int = 0


def _cluster_layout(cluster: RasCluster) -> dict:
    """Rack/host index arrays derived once per cluster (cached on the object)."""
    cached = getattr(cluster, "layout_cache", None)
    if cached is not None:
        return cached
    nh, nr = len(cluster.host_names), len(cluster.rack_names)
    host_nodes = [np.flatnonzero(cluster.node_host == h) for h in range(nh)]
    rack_hosts = [np.flatnonzero(cluster.host_rack == r) for r in range(nr)]
    layout = {
        "host_nodes": host_nodes,
        "rack_hosts": rack_hosts,
        "single": all(len(x) == 1 for x in host_nodes),
        "host_first_node": np.array([x[0] for x in host_nodes], dtype=np.int64),
        "host_rank": np.argsort(np.argsort(np.array(cluster.host_names, dtype=object))),
        "rack_rank": np.argsort(np.argsort(np.array(cluster.rack_names, dtype=object))),
        "node_rank": np.argsort(np.argsort(np.array(cluster.node_ids, dtype=object))),
        "rack_present": np.array([len(x) > 0 for x in rack_hosts]),
    }
    cluster.layout_cache = layout
    return layout


class TopologyRun:
    """State of one topology being scheduled (the strategy's instance variables)."""

    def __init__(self, cluster: RasCluster, topo: RasTopology):
        self.cluster, self.topo = cluster, topo
        lay = _cluster_layout(cluster)
        self.host_nodes = lay["host_nodes"]
        self.rack_hosts = lay["rack_hosts"]
        self.single_node_hosts = lay["single"]
        self.host_first_node = lay["host_first_node"]
        self.host_rank, self.rack_rank = lay["host_rank"], lay["rack_rank"]
        self.node_rank, self.rack_present = lay["node_rank"], lay["rack_present"]
        n = cluster.size
        self.node_exec_count = np.zeros(n)
        self.host_exec_count = np.zeros(len(cluster.host_names))
        self.rack_exec_count = np.zeros(len(cluster.rack_names))
        self.node_host_list = cluster.node_host.tolist()
        self.node_rack_list = cluster.node_rack.tolist()
        self.orig_free = [cluster.free_slots(i) for i in range(n)]
        self.orig_free_count = np.array([len(x) for x in self.orig_free], dtype=np.int64)
        # per node, over its originally free slots: an empty one left? least heap in a used one?
        self.has_empty = self.orig_free_count > 0
        self.min_used_heap = np.full(n, np.inf)
        self.slot_sum: dict[tuple[int, int], np.ndarray] = {}
        self.slot_comps: dict[tuple[int, int], Counter] = {}
        self.node_comps: dict[int, Counter] = {}
        self.exec_node = np.full(topo.executors, -1, dtype=np.int64)
        self.exec_slot = np.full(topo.executors, -1, dtype=np.int64)
        self.req_gen = [cluster.generic_vector(c.request) for c in topo.all_components]
        self.gen_idx = [np.flatnonzero(g).tolist() for g in self.req_gen]
        self.c_cpu = topo.comp_cpu.tolist()
        self.c_on = topo.comp_onheap.tolist()
        self.c_mem = (topo.comp_onheap + topo.comp_offheap).tolist()
        self.exec_comp_list = topo.exec_comp.tolist()
        host_of = {h: i for i, h in enumerate(cluster.host_names)}
        fav = [n_ for h in topo.favored_hosts if h in host_of for n_ in self.host_nodes[host_of[h]]]
        unfav = [
            n_ for h in topo.unfavored_hosts if h in host_of for n_ in self.host_nodes[host_of[h]]
        ]
        unfav = [x for x in unfav if x not in set(fav)]
        self.favored = np.array(fav, dtype=np.int64)
        self.unfavored = np.array(unfav, dtype=np.int64)
        self.skip_mask = None
        if fav or unfav:
            self.skip_mask = np.zeros(n, dtype=bool)
            self.skip_mask[self.favored] = True
            self.skip_mask[self.unfavored] = True
        self.placed = 0
        # per node, executors of each component with a maximum co-location (constraint solver)
        self.colocated = {
            topo.comp_index[c]: np.zeros(n, dtype=np.int64)
            for c in topo.max_node_colocation
            if c in topo.comp_index
        }
        # executors the cluster already holds for this topology (SchedulerAssignment)
        existing = cluster.assignments.get(topo.name, {})
        for e, (node, slot) in existing.items():
            comp = self.exec_comp_list[e]
            key = (node, slot)
            self.slot_sum[key] = self.slot_sum.get(key, 0.0) + self.exec_vector(comp)
            self.slot_comps.setdefault(key, Counter())[comp] += 1
            self.node_comps.setdefault(node, Counter())[comp] += 1
            self.exec_node[e], self.exec_slot[e] = node, slot
            self._count(node, 1)
            self.placed += 1
            if comp in self.colocated:
                self.colocated[comp][node] += 1
        self.existing = set(existing)
        self.unassigned = set(range(topo.executors)) - self.existing

    # --- resource checks (RasNode.couldEverFit, RasNode.wouldFit, Cluster.wouldFit) ---
    def could_ever_fit(self, nodes: np.ndarray, comp: int) -> np.ndarray:
        """``NormalizedResourceOffer.couldFit(minWorkerCpu, request)`` for each node."""
        cl, t = self.cluster, self.topo
        cpu = np.maximum(cl.total_cpu[nodes] - cl.used_cpu[nodes], 0.0)
        mem = np.maximum(cl.total_mem[nodes] - cl.used_mem[nodes], 0.0)
        req_cpu = t.comp_cpu[comp]
        if cl.min_worker_cpu >= 0.001:
            req_cpu = max(req_cpu - cl.min_worker_cpu, 0.0)
        ok = (cpu >= req_cpu) & (mem >= t.comp_onheap[comp] + t.comp_offheap[comp])
        gen = self.req_gen[comp]
        for i in np.flatnonzero(gen):
            ok &= cl.total_gen[nodes, i] - cl.used_gen[nodes, i] >= gen[i]
        return ok

    def could_fit_one(self, node: int, comp: int) -> bool:
        """``couldEverFit`` for one node, on Python floats."""
        cl = self.cluster
        req_cpu = self.c_cpu[comp]
        if cl.min_worker_cpu >= 0.001:
            req_cpu = max(req_cpu - cl.min_worker_cpu, 0.0)
        if max(cl.total_cpu[node] - cl.used_cpu[node], 0.0) < req_cpu:
            return False
        if max(cl.total_mem[node] - cl.used_mem[node], 0.0) < self.c_mem[comp]:
            return False
        gen = self.req_gen[comp]
        for i in self.gen_idx[comp]:
            if cl.total_gen[node, i] - cl.used_gen[node, i] < gen[i]:
                return False
        return True

    def _worker_vector(self, key: tuple[int, int], sums: np.ndarray, comps: Counter) -> np.ndarray:
        """``Cluster.calculateWorkerResources``: [cpu, on-heap, off-heap, generic...]."""
        vec = sums.copy()
        for name in self._shared_names(comps):
            sm = self.topo.shared_memory[name]
            vec[1] += sm.on_heap
            vec[2] += sm.off_heap_worker
        vec[0] = max(vec[0], self.cluster.min_worker_cpu)
        return vec

    def _shared_names(self, comps) -> set[str]:
        if not self.topo.has_shared:
            return set()
        names: set[str] = set()
        for cid in comps:
            names.update(self.topo.all_components[cid].shared_memory)
        return {n for n in names if n in self.topo.shared_memory}

    def _node_shared(self, node: int, extra: int | None = None) -> float:
        """``calculateSharedOffHeapNodeMemory`` for this topology on ``node``, MB."""
        if not self.topo.has_node_shared:
            return 0.0
        comps = set(self.node_comps.get(node, Counter()).keys())
        if extra is not None:
            comps.add(extra)
        return sum(self.topo.shared_memory[n].off_heap_node for n in self._shared_names(comps))

    def exec_vector(self, comp: int) -> np.ndarray:
        """One executor's request as [cpu, on-heap, off-heap, generic...]."""
        t = self.topo
        return np.concatenate(
            [[t.comp_cpu[comp], t.comp_onheap[comp], t.comp_offheap[comp]], self.req_gen[comp]]
        )

    def would_fit(self, node: int, slot: int, execu: int) -> bool:
        """``RasNode.wouldFit``: resources, worker heap, one-executor/component flags."""
        cl, t = self.cluster, self.topo
        comp = self.exec_comp_list[execu]
        if not self.could_fit_one(node, comp):
            return False
        if not t.has_shared:
            return self._would_fit_plain(node, slot, comp)
        key = (node, slot)
        req = self.exec_vector(comp)
        cur = self.slot_sum.get(key)
        comps = self.slot_comps.get(key, Counter())
        if cur is not None and comps:
            wr_cur = self._worker_vector(key, cur, comps)
            cur_mem, cur_cpu = wr_cur[1] + wr_cur[2], wr_cur[0]
        else:
            cur_mem, cur_cpu = 0.0, 0.0
        if self.placed:
            cur_mem += self._node_shared(node)
        after_comps = comps + Counter({comp: 1})
        after = self._worker_vector(key, (cur if cur is not None else 0.0) + req, after_comps)
        after_mem = after[1] + after[2] + self._node_shared(node, comp)
        avail_cpu = max(cl.total_cpu[node] - cl.used_cpu[node], 0.0)
        avail_mem = max(cl.total_mem[node] - cl.used_mem[node], 0.0)
        if after[0] - cur_cpu > avail_cpu or after_mem - cur_mem > avail_mem:
            return False
        if after[1] > t.worker_max_heap_mb:
            return False
        if t.one_executor_per_worker:
            return not comps
        if t.one_component_per_worker and comps:
            return len(set(comps) | {comp}) <= 1
        return True

    def _would_fit_plain(self, node: int, slot: int, comp: int) -> bool:
        """``Cluster.wouldFit`` + flags without shared memory, on Python floats."""
        cl, t = self.cluster, self.topo
        key = (node, slot)
        comps = self.slot_comps.get(key)
        min_cpu = cl.min_worker_cpu
        if comps:
            cur = self.slot_sum[key]
            cur_cpu = max(float(cur[0]), min_cpu)
            after_cpu = max(float(cur[0]) + self.c_cpu[comp], min_cpu)
            after_on = float(cur[1]) + self.c_on[comp]
        else:
            cur_cpu = 0.0
            after_cpu = max(self.c_cpu[comp], min_cpu)
            after_on = self.c_on[comp]
        if after_cpu - cur_cpu > max(cl.total_cpu[node] - cl.used_cpu[node], 0.0):
            return False
        if self.c_mem[comp] > max(cl.total_mem[node] - cl.used_mem[node], 0.0):
            return False
        if after_on > t.worker_max_heap_mb:
            return False
        if t.one_executor_per_worker:
            return not comps
        if t.one_component_per_worker and comps:
            return len(set(comps) | {comp}) <= 1
        return True

    # --- bookkeeping (RasNode.assignSingleExecutor / freeSingleExecutor) ---
    def _count(self, node: int, delta: int) -> None:
        """Executors of this topology per node, host and rack (the sorters' first key)."""
        self.node_exec_count[node] += delta
        self.host_exec_count[self.node_host_list[node]] += delta
        self.rack_exec_count[self.node_rack_list[node]] += delta

    def assign(self, execu: int, node: int, slot: int) -> None:
        """Put executor ``execu`` on worker (node, slot) and update the cluster."""
        t = self.topo
        comp = int(t.exec_comp[execu])
        key = (node, slot)
        self.slot_sum[key] = self.slot_sum.get(key, 0.0) + self.exec_vector(comp)
        self.slot_comps.setdefault(key, Counter())[comp] += 1
        self.node_comps.setdefault(node, Counter())[comp] += 1
        self.exec_node[execu], self.exec_slot[execu] = node, slot
        self._count(node, 1)
        self.placed += 1
        if comp in self.colocated:
            self.colocated[comp][node] += 1
        self._sync(node, slot)

    def unassign(self, execu: int) -> None:
        """Take executor ``execu`` off its worker."""
        node, slot = int(self.exec_node[execu]), int(self.exec_slot[execu])
        comp = int(self.topo.exec_comp[execu])
        key = (node, slot)
        self.slot_sum[key] = self.slot_sum[key] - self.exec_vector(comp)
        self.slot_comps[key][comp] -= 1
        if self.slot_comps[key][comp] == 0:
            del self.slot_comps[key][comp]
        self.node_comps[node][comp] -= 1
        if self.node_comps[node][comp] == 0:
            del self.node_comps[node][comp]
        self.exec_node[execu] = self.exec_slot[execu] = -1
        self._count(node, -1)
        self.placed -= 1
        if comp in self.colocated:
            self.colocated[comp][node] -= 1
        self._sync(node, slot)

    def _sync(self, node: int, slot: int) -> None:
        cl, key = self.cluster, (node, slot)
        comps = self.slot_comps.get(key)
        if comps:
            cl.add_worker_usage(
                node, slot, self.topo.name, self._worker_vector(key, self.slot_sum[key], comps)
            )
        else:
            self.slot_sum.pop(key, None)
            self.slot_comps.pop(key, None)
            cl.free_worker(node, slot)
        if self.topo.has_node_shared:
            cl.set_node_shared(self.topo.name, node, self._node_shared(node))
        used = [
            self.slot_sum[(node, s)][1] for s in self.orig_free[node] if (node, s) in self.slot_sum
        ]
        self.has_empty[node] = len(used) < len(self.orig_free[node])
        self.min_used_heap[node] = min(used) if used else np.inf

    def revert(self) -> None:
        """Take back what this run placed (Storm drops its working copy of the cluster)."""
        for e in np.flatnonzero(self.exec_node >= 0):
            if int(e) not in self.existing:
                self.unassign(int(e))

    def record(self) -> None:
        """Store the placement in the cluster's assignment table."""
        placed = np.flatnonzero(self.exec_node >= 0)
        self.cluster.assignments[self.topo.name] = {
            int(e): (int(self.exec_node[e]), int(self.exec_slot[e])) for e in placed
        }


class BaseStrategy:
    """``BaseResourceAwareStrategy``: prepare, check feasibility, search."""

    name = "ras-default"
    java_class = "DefaultResourceAwareStrategy"
    sort_nodes_for_each_executor = True

    def __init__(self, clock=time.monotonic):
        self.clock = clock

    # hooks for ConstraintSolverStrategy
    def prepare(self, run: TopologyRun) -> None:
        """``prepareForScheduling`` extras (none in the base)."""

    def order_executors(self, run: TopologyRun) -> np.ndarray:
        """Executors in search order, ackers last (``prepareForScheduling``'s sorter)."""
        if run.topo.order_by_proximity:
            return by_proximity(run.topo, run.unassigned)
        return by_connection_count(run.topo, run.unassigned)

    def extra_valid(self, run: TopologyRun, execu: int, node: int, slot: int) -> bool:
        """Checks a subclass adds to ``isExecAssignmentToWorkerValid``."""
        return True

    def has_extra_checks(self, run: TopologyRun) -> bool:
        """True when ``extra_valid`` may refuse a slot."""
        return False

    def node_mask(self, run: TopologyRun, comp: int, seq: np.ndarray) -> np.ndarray | None:
        """Nodes a subclass rules out for a whole node (a necessary condition), or None."""
        return None

    def feasibility(self, run: TopologyRun, execs: int, max_states: int) -> SchedulingResult | None:
        """``checkSchedulingFeasibility``: a result to stop early, or None."""
        topo = run.topo
        if execs == 0:
            return SchedulingResult(True, f"Fully Scheduled by {self.java_class}")
        if run.cluster.size == 0:
            return SchedulingResult(False, "No available nodes to schedule tasks on!")
        if not topo.has_spouts():
            return SchedulingResult(False, "Cannot find a Spout!")
        if execs >= max_states:
            return SchedulingResult(
                False,
                f"Unassigned Executor count ({execs}) is greater than searchable state count "
                f"{max_states}",
            )
        return None

    def valid(self, run: TopologyRun, execu: int, node: int, slot: int) -> bool:
        """``isExecAssignmentToWorkerValid``."""
        return run.would_fit(node, slot, execu) and self.extra_valid(run, execu, node, slot)

    def schedule(self, cluster: RasCluster, topo: RasTopology) -> SchedulingResult:
        """``IStrategy.schedule``: place every executor of ``topo`` or none.

        On failure the topology's partial placement is removed again (Storm schedules
        on a copy of the cluster and keeps it only on success).
        """
        run = TopologyRun(cluster, topo)
        self.prepare(run)
        max_states = min(cluster.daemon_max_state_search, topo.max_state_search)
        early = self.feasibility(run, len(run.unassigned), max_states)
        if early is not None:
            return early
        order = self.order_executors(run)
        result = self.search(run, order, max_states)
        if result.success:
            run.record()
        else:
            run.revert()
        return result

    def _time_limit_s(self, topo: RasTopology) -> float:
        """``computeMaxSchedulingTimeMs``: per-topology limit, s."""
        daemon = topo.timeout_secs
        conf = topo.max_time_secs if topo.max_time_secs is not None else daemon
        return daemon - 0.2 if conf >= daemon else conf

    def search(self, run: TopologyRun, execs: np.ndarray, max_states: int) -> SchedulingResult:
        """``scheduleExecutorsOnNodes``: depth-first search over (executor, slot)."""
        topo, t0 = run.topo, self.clock()
        limit = self._time_limit_s(topo)
        n = len(execs)
        comp_of = topo.exec_comp
        progress_for = np.full(n, -1, dtype=np.int64)
        node_for = np.full(n, -1, dtype=np.int64)
        slot_for = np.full(n, -1, dtype=np.int64)
        acker = topo.acker_comp
        unassigned_ackers = deque(int(e) for e in execs if acker >= 0 and comp_of[e] == acker)
        bound: set[int] = set()
        slot_bound: dict[tuple[int, int], list[int]] = {}
        with_bound: set[int] = set()
        states = backtracks = 0
        idx, progress = 0, -1
        sorting: LazyNodeSorting | None = None

        def finish(ok: bool, note: str = "") -> SchedulingResult:
            ms = int((self.clock() - t0) * 1000)
            if ok:
                msg = (
                    f"Fully Scheduled by {self.java_class} ({states} states traversed in {ms} ms, "
                    f"backtracked {backtracks} times)"
                )
            else:
                msg = (
                    f"Cannot schedule by {self.java_class} ({states} states traversed in {ms} ms, "
                    f"backtracked {backtracks} times, {idx} of {n} executors scheduled{note})"
                )
            return SchedulingResult(ok, msg, states, backtracks, run.placed, n)

        while True:
            if states > max_states or self.clock() - t0 > limit:
                return finish(False)
            e = int(execs[idx])
            if e in bound:
                if idx == n - 1:
                    return finish(True)
                idx += 1
                continue
            comp = int(comp_of[e])
            same_as_prior = idx == 0 or comp_of[execs[idx - 1]] == comp
            if sorting is None or (self.sort_nodes_for_each_executor and same_as_prior):
                progress = -1
                sorting = LazyNodeSorting(run, run.req_gen[comp])
            found = None
            if progress_for[idx] == -1:
                found, skipped = self._first_fit_fast(run, sorting, e, comp)
                progress += skipped
                progress_for[idx] += skipped
            else:
                found, progress = self._first_fit_slow(run, sorting, e, idx, progress, progress_for)
            if found is not None:
                node, slot = found
                states += 1
                run.assign(e, node, slot)
                if self._bind_ackers(run, e, node, slot, unassigned_ackers, bound, slot_bound):
                    with_bound.add(e)
                if idx == n - 1:
                    return finish(True)
                node_for[idx], slot_for[idx] = node, slot
                idx += 1
                continue
            sorting = None
            if idx == 0:
                break
            failed = idx
            idx = self._backtrack(
                run,
                execs,
                idx,
                node_for,
                slot_for,
                bound,
                slot_bound,
                with_bound,
                unassigned_ackers,
            )
            backtracks += 1
            progress_for[failed] = -1
        # the first executor fits nowhere; with only one, Storm calls this a success
        return finish(False, STORM_LAST_EXECUTOR_NOTE if n == 1 else "")

    def _first_fit_fast(self, run, sorting, e, comp):
        """First valid (node, slot) in sorted order and the positions visited (Java counts).

        Exact for an executor tried afresh: per rack, nodes failing a necessary
        condition are skipped in one numpy step, their slots counted as positions; the
        others are checked slot by slot. The condition: ``couldEverFit``, and either an
        empty slot with CPU for a new worker (max(request, storm.worker.min.cpu.pcore.
        percent)) and heap for the executor, or a worker of the topology with heap left
        for it (``topology.worker.max.heap.size.mb``).
        """
        topo, cl = run.topo, run.cluster
        onheap = topo.comp_onheap[comp]
        max_heap = topo.worker_max_heap_mb
        new_cpu = max(topo.comp_cpu[comp], cl.min_worker_cpu)
        skipped = 0
        for seq in sorting.segments():
            if seq.size == 0:
                continue
            could = run.could_ever_fit(seq, comp)
            new_ok = run.has_empty[seq] & (cl.total_cpu[seq] - cl.used_cpu[seq] >= new_cpu)
            if onheap > max_heap:
                new_ok[:] = False
            cand = could & (new_ok | (run.min_used_heap[seq] + onheap <= max_heap))
            extra = self.node_mask(run, comp, seq)
            if extra is not None:
                cand &= extra
            slots_before = np.cumsum(np.where(could, run.orig_free_count[seq], 0))
            sums = run.slot_sum
            for j in np.flatnonzero(cand):
                node = int(seq[j])
                base = skipped + int(slots_before[j] - run.orig_free_count[node])
                empty_ok = bool(new_ok[j])
                for k, slot in enumerate(run.orig_free[node]):
                    used = sums.get((node, slot))
                    if (used[1] + onheap > max_heap) if used is not None else not empty_ok:
                        continue  # fails a necessary condition: not a fit
                    if self.valid(run, e, node, slot):
                        return (node, slot), base + k + 1
            skipped += int(slots_before[-1])
        return None, skipped

    def _first_fit_slow(self, run, sorting, e, idx, progress, progress_for):
        """The Java loop position by position (used when resuming after a backtrack)."""
        comp = int(run.topo.exec_comp[e])
        for seq in sorting.segments():
            if seq.size == 0:
                continue
            could = run.could_ever_fit(seq, comp)
            for k in np.flatnonzero(could):
                node = int(seq[k])
                for slot in run.orig_free[node]:
                    progress += 1
                    if progress <= progress_for[idx]:
                        continue
                    progress_for[idx] += 1
                    if self.valid(run, e, node, slot):
                        return (node, slot), progress
        return None, progress

    def _bind_ackers(self, run, e, node, slot, unassigned, bound, slot_bound) -> int:
        """``assignBoundAckersForNewWorkerSlot`` with ``getNumOfAckersToBind``."""
        topo = run.topo
        key = (node, slot)
        if (
            topo.one_executor_per_worker
            or topo.one_component_per_worker
            or int(topo.exec_comp[e]) == topo.acker_comp
            or key in slot_bound
            or not unassigned
        ):
            return 0
        space = topo.worker_max_heap_mb - topo.comp_onheap[topo.exec_comp[e]]
        acker_heap = topo.comp_onheap[topo.acker_comp]
        most = math.floor(space / acker_heap) if acker_heap > 0 else len(unassigned)
        count = min(most, len(unassigned), topo.ackers_per_worker)
        for i in range(max(count, 0)):
            if not self.valid(run, unassigned[0], node, slot):
                return i
            acker = unassigned.popleft()
            run.assign(acker, node, slot)
            slot_bound.setdefault(key, []).append(acker)
            bound.add(acker)
        return max(count, 0)

    def _backtrack(
        self, run, execs, idx, node_for, slot_for, bound, slot_bound, with_bound, unassigned
    ) -> int:
        """``SchedulingSearcherState.backtrack``: undo the previous executor's placement."""
        idx -= 1
        while idx >= 0 and int(execs[idx]) in bound:
            idx -= 1
        if idx < 0:
            raise RuntimeError("internal error: executor index became negative")
        e = int(execs[idx])
        node, slot = int(node_for[idx]), int(slot_for[idx])
        run.unassign(e)
        if e in with_bound:
            with_bound.discard(e)
            ackers = slot_bound.pop((node, slot), [])
            for acker in reversed(ackers):
                bound.discard(acker)
                unassigned.appendleft(acker)
                run.unassign(acker)
        return idx


class DefaultStrategy(BaseStrategy):
    """``DefaultResourceAwareStrategy``."""


class GenericStrategy(BaseStrategy):
    """``GenericResourceAwareStrategy`` (same body as the default in Storm 2)."""

    name = "ras-generic"
    java_class = "GenericResourceAwareStrategy"


class RoundRobinStrategy(BaseStrategy):
    """``RoundRobinResourceAwareStrategy`` (``BaseResourceAwareStrategy(false, COMMON)``).

    Storm 2.5.0 on (STORM-3916), unchanged at 2.8. Its steps, as ``schedule`` and its
    ``scheduleExecutorsOnNodes`` override run them:

    1. Executors in the base order (``ExecSorterByConnectionCount``, or by proximity;
       ackers last), as the default strategy.
    2. Nodes sorted once, before any executor is placed: ``nodeSorter.prepare(null)``
       then ``sortAllNodes()``, the common sort without an executor (so without
       rare-resource affinity).
    3. ``getTruncatedNodeList``: of those, in order, only nodes that run no topology or
       only this one, at most ``topology.isolate.machines`` of them.
    4. One iterator walks that list. It restarts at the first node for the first
       executor, when the executor's component is the prior executor's (the inverted
       ``isExecCompDifferentFromPrior``), or when the iterator is exhausted;
       otherwise the executor continues from the node after the one the prior
       executor took. So executors of alternating components spread node after node,
       and a run of one component's executors restarts, and packs, at the first node.
    5. Walking on from there, each node is passed (and left behind) unless it
       ``couldEverFit`` and one of its originally free slots ``wouldFit`` (CPU, memory,
       the worker heap limit ``topology.worker.max.heap.size.mb``, the
       one-executor/one-component flags); the first such slot takes the executor, with
       bound ackers as in the base.
    6. An executor that fits none of the nodes left in the walk fails the topology: the
       walk does not wrap around to the nodes before it, and there is no backtracking;
       only the state and time limits of the base apply.
    """

    name = "ras-round-robin"
    java_class = "RoundRobinResourceAwareStrategy"
    sort_nodes_for_each_executor = False

    def truncated_nodes(self, run: TopologyRun) -> list[int]:
        """Steps 2-3: ``getTruncatedNodeList(sortAllNodes())``, node indices in order."""
        topo, cl = run.topo, run.cluster
        nodes = LazyNodeSorting(run, None).all_nodes()
        cap = topo.isolated_machines if topo.isolated_machines is not None else len(nodes)
        keep: list[int] = []
        for nd in nodes:
            if len(keep) >= cap:
                break
            running = cl.running_topologies(int(nd))
            if not running or running == {topo.name}:
                keep.append(int(nd))
        return keep

    def search(self, run: TopologyRun, execs: np.ndarray, max_states: int) -> SchedulingResult:
        """``RoundRobinResourceAwareStrategy.scheduleExecutorsOnNodes`` (steps 4-6)."""
        topo, t0 = run.topo, self.clock()
        limit = self._time_limit_s(topo)
        keep = self.truncated_nodes(run)
        n = len(execs)
        comp_of = topo.exec_comp
        acker = topo.acker_comp
        unassigned = deque(int(e) for e in execs if acker >= 0 and comp_of[e] == acker)
        bound: set[int] = set()
        slot_bound: dict[tuple[int, int], list[int]] = {}
        states, idx, pos = 0, 0, len(keep)

        def finish(ok: bool, note: str = "") -> SchedulingResult:
            # SchedulingSearcherState.createSchedulingResult (round robin never backtracks)
            ms = int((self.clock() - t0) * 1000)
            if ok:
                msg = (
                    f"Fully Scheduled by {self.java_class} ({states} states traversed in {ms} ms, "
                    "backtracked 0 times)"
                )
            else:
                msg = (
                    f"Cannot schedule by {self.java_class} ({states} states traversed in {ms} ms, "
                    f"backtracked 0 times, {idx} of {n} executors scheduled{note})"
                )
            return SchedulingResult(ok, msg, states, 0, run.placed, n)

        while True:
            if states > max_states or self.clock() - t0 > limit:
                return finish(False)
            e = int(execs[idx])
            if e in bound:
                if idx == n - 1:
                    return finish(True)
                idx += 1
                continue
            comp = int(comp_of[e])
            same_as_prior = idx == 0 or comp_of[execs[idx - 1]] == comp
            if same_as_prior or pos >= len(keep):
                pos = 0
            found = None
            while pos < len(keep) and found is None:
                nd = keep[pos]
                pos += 1
                if not run.could_fit_one(nd, comp):
                    continue
                for slot in run.orig_free[nd]:
                    if self.valid(run, e, nd, slot):
                        found = (nd, slot)
                        break
            if found is None:
                # Storm breaks out and returns areAllExecsScheduled(): true on the last one
                return finish(False, STORM_LAST_EXECUTOR_NOTE if idx == n - 1 else "")
            states += 1
            run.assign(e, *found)
            self._bind_ackers(run, e, found[0], found[1], unassigned, bound, slot_bound)
            if idx == n - 1:
                return finish(True)
            idx += 1

"""R-Storm: resource-aware scheduling (Storm 1.0.x ``DefaultResourceAwareStrategy``).

Every component declares what one executor needs: CPU in percent of a core
(``cpu_pct``) and on-heap memory in MB (``memory_mb``). A node offers
``100 x sockets x cores`` percent of CPU and its RAM in MB; R-Storm ignores
clock speed and FLOPs (the homogeneous resource model later papers criticise)
and ignores the requested worker count W.

1. Task order: breadth-first search over the component graph from the spouts
   (neighbours: children, then parents; a component is marked visited when it
   is enqueued) ranks the components; executors are then taken round robin
   over the ranked components (the first executor of each, then the second...).
2. For each executor, among nodes with a free slot, enough free CPU and enough
   free memory, take the smallest
   ``d = sqrt(((req_cpu - free_cpu) / (free_cpu + 1))^2
   + ((req_mem - free_mem) / (free_mem + 1))^2 + net(ref, n)^2)``,
   ``net`` = 0 on the reference node (where the previous executor went),
   0.5 in its rack, 1 elsewhere. The very first executor has no reference
   node: it is placed within the rack with the most free CPU + memory, with
   no network term. Storm keeps the candidates in a ``TreeMap`` keyed by
   ``d``, so among nodes with equal ``d`` the later one in iteration order
   wins and the earlier ones are forgotten.
3. The executor goes to the first slot of that node whose worker heap still
   has room; if none has, to the next larger ``d``. The node's free CPU and
   memory shrink accordingly. The heap is the topology's own
   ``topology.worker.max.heap.size.mb`` (``worker_max_heap_mb``; Storm 1.0.x's
   ``TopologyDetails`` reads it from the topology's conf [3]_), else
   ``network.worker_heap_mb`` (768 MB, Storm's default): in a topology set each
   topology packs its workers to its own heap.
4. Executors that found no node are retried once after all others, then the
   topology fails with status ``not-enough-resources`` and no placement.

Choices where the paper and Storm's code are silent (all deterministic):

- Iteration order of nodes: racks in the order in which the scenario first
  mentions them, and within a rack the nodes in scenario order (Storm iterates
  hash maps here). The first rack wins ties for "most free CPU + memory".
- BFS starts from the spouts in topological order and visits neighbours in
  topological order; a component's executors go in index order.
- Storm's ackers (``__acker``) are system executors: they are not in the BFS
  and are placed in the retry pass, after every component's executors, in
  index order, as Storm 1.0 schedules its system tasks.
- A node's slots are tried lowest index first.
- On failure no executor is placed (Storm discards the partial assignment);
  the decisions still show where each one would have gone and the message
  lists the CPU and memory required against what is left.

References
----------
.. [1] B. Peng, M. Hosseini, Z. Hong, R. Farivar, R. Campbell, "R-Storm:
   Resource-Aware Scheduling in Storm", Proc. 16th Annual Middleware
   Conference (Middleware 2015), pp. 149-161.
   https://doi.org/10.1145/2814576.2814808
.. [2] Apache Storm 1.0.x, ``storm-core/src/jvm/org/apache/storm/scheduler/
   resource/strategies/scheduling/DefaultResourceAwareStrategy.java``.
.. [3] Apache Storm 1.0.6, ``storm-core/src/jvm/org/apache/storm/scheduler/
   TopologyDetails.java``: ``topologyWorkerMaxHeapSize`` from the topology conf's
   ``topology.worker.max.heap.size.mb``, read by the strategy's
   ``getWorkerScheduledMemoryAvailable``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np

from core.model import ACKER_ID, Scenario
from core.problem import Problem, problem_of
from core.schedulers.base import Outcome, SchedulerSpec, Status, assignment
from core.topology import TopologyGraph, component_of

CPU_PER_CORE = 100.0  # Storm's unit: 100 = one full core
MB_PER_GB = 1024.0
NET_SAME_RACK = 0.5  # Storm 1.0 distToNode: 0 same node, 0.5 same rack, 1.0 otherwise
NET_OTHER_RACK = 1.0


def component_ranking(graph: TopologyGraph) -> list[str]:
    """Components in R-Storm's BFS order (ackers excluded).

    Examples
    --------
    >>> from core.presets import preset
    >>> from core.topology import build_graph
    >>> component_ranking(build_graph(preset("lf-linear")))[:3]
    ['c1', 'c2', 'c3']
    """
    ranked: list[str] = []
    visited: set[str] = set()
    for spout in graph.spouts:
        if spout in visited:
            continue
        visited.add(spout)
        queue = deque([spout])
        while queue:
            comp = queue.popleft()
            ranked.append(comp)
            for nb in graph.succs[comp] + graph.preds[comp]:
                if nb != ACKER_ID and nb not in visited:
                    visited.add(nb)
                    queue.append(nb)
    return ranked


def task_order(graph: TopologyGraph) -> list[str]:
    """Executors round robin over the ranked components (ackers excluded)."""
    lists = [graph.executors(c) for c in component_ranking(graph)]
    longest = max((len(x) for x in lists), default=0)
    return [x[i] for i in range(longest) for x in lists if i < len(x)]


def worker_heap_mb(scenario: Scenario) -> float:
    """Heap one worker of the scenario's topology may hold, MB: its own
    ``worker_max_heap_mb`` (``topology.worker.max.heap.size.mb``), else
    ``network.worker_heap_mb``."""
    own = scenario.topology.worker_max_heap_mb
    return float(own) if own is not None else float(scenario.network.worker_heap_mb)


class _Cluster:
    """Free CPU, memory and worker heap per node, in Storm's iteration order."""

    def __init__(self, scenario: Scenario):
        nodes = scenario.cluster.nodes
        racks = list(dict.fromkeys(n.rack for n in nodes))
        self.nodes = sorted(nodes, key=lambda n: racks.index(n.rack))  # stable
        self.rack_names = racks
        self.rack = np.array([racks.index(n.rack) for n in self.nodes])
        self.cpu = np.array([CPU_PER_CORE * n.sockets * n.cores for n in self.nodes], float)
        self.mem = np.array([n.ram_gb * MB_PER_GB for n in self.nodes], float)
        self.has_slot = np.array([n.slots > 0 for n in self.nodes])
        self.heap_mb = worker_heap_mb(scenario)
        self.heap_used = [[0.0] * n.slots for n in self.nodes]
        self.room = np.full(len(self.nodes), self.heap_mb)  # largest free heap of a node's workers

    def best_rack(self) -> int | None:
        """Storm's getBestClustering: most free memory + CPU, first rack on ties."""
        totals = np.bincount(self.rack, weights=self.mem + self.cpu, minlength=len(self.rack_names))
        best, most = None, 0.0
        for r, total in enumerate(totals):
            if total > most:
                best, most = r, total
        return best

    def first_slot_with_room(self, n: int, req_mem: float) -> int | None:
        for s, used in enumerate(self.heap_used[n]):
            if self.heap_mb - used >= req_mem:
                return s
        return None

    def pick(
        self, req_cpu: float, req_mem: float, ref: int | None
    ) -> tuple[int, int, float, int] | None:
        """(node, slot, distance, earlier nodes tied) for one executor, or None."""
        ok = self.has_slot & (self.cpu >= req_cpu) & (self.mem >= req_mem)
        if ref is None:
            rack = self.best_rack()
            if rack is not None:
                ok &= self.rack == rack
            net = np.zeros(len(self.nodes))
        else:
            net = np.where(self.rack == self.rack[ref], NET_SAME_RACK, NET_OTHER_RACK)
            net[ref] = 0.0
        idx = np.flatnonzero(ok)
        if idx.size == 0:
            return None
        a = (req_cpu - self.cpu[idx]) / (self.cpu[idx] + 1.0)
        b = (req_mem - self.mem[idx]) / (self.mem[idx] + 1.0)
        d = np.sqrt(a * a + b * b + net[idx] * net[idx])
        best = d.min()
        n = int(idx[d == best][-1])  # the TreeMap keeps the last node put under this key
        if self.room[n] < req_mem:
            # its workers are full: the TreeMap's next keys, each with its last node
            order = np.lexsort((-idx, d))
            ds, nodes = d[order], idx[order]
            keys = np.r_[True, ds[1:] != ds[:-1]]
            roomy = np.flatnonzero(self.room[nodes[keys]] >= req_mem)
            if roomy.size == 0:
                return None
            best, n = ds[keys][roomy[0]], int(nodes[keys][roomy[0]])
        slot = self.first_slot_with_room(n, req_mem)
        return n, slot, float(best), int(np.count_nonzero(d == best)) - 1

    def consume(self, n: int, slot: int, req_cpu: float, req_mem: float) -> None:
        self.cpu[n] -= req_cpu
        self.mem[n] -= req_mem
        self.heap_used[n][slot] += req_mem
        self.room[n] = self.heap_mb - min(self.heap_used[n])


def _relation(cl: _Cluster, n: int, ref: int | None, ref_exec: str | None) -> str:
    if ref is None:
        rack = cl.rack_names[cl.rack[n]]
        return f"first executor, placed in rack '{rack}', the one with most free CPU + memory"
    if n == ref:
        return f"same node as {ref_exec}"
    if cl.rack[n] == cl.rack[ref]:
        return f"same rack as {ref_exec} on {cl.nodes[ref].id}"
    return f"another rack than {ref_exec} on {cl.nodes[ref].id}"


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Place executors one by one on the closest node that fits (R-Storm).

    Examples
    --------
    Sixteen 128 MB executors (8 components, 8 ackers): six fill the one 768 MB
    worker of n8 (the last of the tied nodes), six n7's, the last four go to n6.

    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {})
    >>> sorted({a.node for a in out.assignments})
    ['n6', 'n7', 'n8']
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    graph = problem.graph
    cl = _Cluster(scenario)
    needs = {c: (graph.components[c].cpu_pct, graph.components[c].memory_mb) for c in graph.order}
    first_pass = task_order(graph)
    system = graph.executors(ACKER_ID) if ACKER_ID in graph.parallelism else []
    placed: dict[str, tuple[int, int]] = {}
    lines: dict[str, str] = {}
    ref: int | None = None
    ref_exec: str | None = None
    failed: list[str] = []
    for attempt, queue in enumerate((first_pass, None)):
        if queue is None:
            queue = failed + system
            failed = []
        for ex in queue:
            cpu, mem = needs[component_of(ex)]
            got = cl.pick(cpu, mem, ref)
            if got is None:
                failed.append(ex)
                continue
            n, slot, d, ties = got
            cl.consume(n, slot, cpu, mem)
            why = f"closest node with room (distance {d:.2f}; {_relation(cl, n, ref, ref_exec)}"
            if ties:
                why += f"; tied with {ties} earlier node(s), the later wins as in Storm"
            if slot > 0:
                why += f"; worker slots before {slot} have no heap room left"
            if attempt == 1:
                why += (
                    "; a Storm acker, placed after the components"
                    if component_of(ex) == ACKER_ID
                    else "; placed on the retry pass"
                )
            placed[ex] = (n, slot)
            lines[ex] = f"{ex} -> {cl.nodes[n].id} slot {slot}: {why})"
            ref, ref_exec = n, ex
    order = first_pass + system
    if failed:
        return _not_enough(cl, order, lines, failed, needs)
    used_slots = {(cl.nodes[n].id, s) for n, s in placed.values()}
    decisions = [
        f"R-Storm ignores W = {scenario.workers}: {len(order)} executors packed into "
        f"{len(used_slots)} workers on {len({n for n, _ in used_slots})} nodes"
    ]
    decisions += [lines[ex] for ex in order]
    assignments = tuple(
        assignment(ex, cl.nodes[placed[ex][0]].id, placed[ex][1])
        for ex in graph.executors_topological()
    )
    return Outcome(assignments=assignments, decisions=tuple(decisions))


def _first_rack_note(cl: _Cluster, lines: Mapping[str, str]) -> str:
    """Why nothing was placed when the first executor's rack has no free slot: Storm
    1.0.x's ``getBestClustering`` sums the free CPU + memory of every node of a rack,
    slots or not, and the first executor may only go to that rack."""
    rack = cl.best_rack()
    if lines or rack is None or np.any(cl.has_slot & (cl.rack == rack)):
        return ""
    return (
        f" The first executor may only go to rack '{cl.rack_names[rack]}' (most free CPU + "
        "memory, counted over all its nodes as Storm 1.0.x's getBestClustering does), and "
        "none of its nodes has a free slot; with no first executor placed there is no "
        "reference node, so no executor is placed."
    )


def _not_enough(
    cl: _Cluster,
    order: list[str],
    lines: Mapping[str, str],
    failed: list[str],
    needs: Mapping[str, tuple[float, float]],
) -> Outcome:
    """Storm discards the partial assignment; say what was missing."""
    usable = cl.has_slot
    free_cpu = float(cl.cpu[usable].sum())
    free_mem = float(cl.mem[usable].sum())
    most_cpu = float(cl.cpu[usable].max(initial=0.0))
    most_mem = float(cl.mem[usable].max(initial=0.0))
    req_cpu = sum(needs[component_of(ex)][0] for ex in failed)
    req_mem = sum(needs[component_of(ex)][1] for ex in failed)
    total = len(order)
    shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
    message = (
        f"Not enough resources to schedule - {total - len(failed)}/{total} executors "
        f"scheduled, {shown} fit nowhere. Memory required: {req_mem:.1f} MB "
        f"(available: {free_mem:.1f} MB). CPU required: {req_cpu:.1f}% CPU "
        f"(available: {free_cpu:.1f}% CPU).{_first_rack_note(cl, lines)}"
    )
    decisions = [message]
    for ex in order:
        if ex in lines:
            decisions.append(lines[ex].replace(" -> ", " would go to ", 1))
            continue
        cpu, mem = needs[component_of(ex)]
        heap = f"; a worker heap holds only {cl.heap_mb:g} MB" if mem > cl.heap_mb else ""
        decisions.append(
            f"{ex}: fits nowhere: needs {cpu:g}% CPU and {mem:g} MB, the most any node with "
            f"a slot has left is {most_cpu:g}% CPU and {most_mem:g} MB{heap}"
        )
    return Outcome(
        assignments=(),
        decisions=tuple(decisions),
        status=Status.NOT_ENOUGH_RESOURCES,
        message=message,
        details={"scheduled": total - len(failed), "executors": total, "unplaced": failed},
    )


SPEC = SchedulerSpec(
    id="rstorm",
    name="R-Storm (resource-aware)",
    paper="B. Peng et al., R-Storm: Resource-Aware Scheduling in Storm, Middleware 2015",
    params=(),
    run=schedule,
    summary=(
        "Executors in BFS round-robin order, each on the node whose free CPU and memory best "
        "fit its declared needs, close to the previous one; ignores W."
    ),
)

"""TOP-Storm: topology-based, power-ordered scheduling (Muhammad, Aleem, Islam 2020).

TOP-Storm packs communicating executors into the W requested slots
(Algorithm 2), then gives the fullest slots to the most powerful nodes,
filling each node before touching the next (Algorithm 3): it uses as few,
and as powerful, nodes as possible.

Computation power (the paper's Eq. 1-2, :mod:`core.hardware`):
``speed = sockets x cores x ghz x flops_per_cycle`` and
``power = alpha x speed + (1 - alpha) x ram_gb``.

Algorithm 2 (grouping). omega = W slots (buckets), ``eps = ceil(E / omega)``
with E all executors (the paper's 28 for WordCount include 3 ackers). The
DAG it reads is the topology's own: Storm hands a scheduler the user
topology (``Nimbus.readTopologyDetails``; the ``__acker`` streams exist only
in the system topology built when executors are counted), so ackers have no
edges here and reach their slots through the round robin. Walk the
executor-level edges (:func:`core.topology.executor_edges`), sources in
topological order then by index, each source's targets likewise. For an
edge whose two ends are both unassigned, while fewer than omega slots are
open: open a new slot with the pair (e_s, e_d), then keep adding the
unassigned executor that communicates most with that pair (line 16,
``getFrequentlyCommunicatingExecutor(e_s, e_d)``; not with later members)
until the slot holds eps executors or no executor connected to the pair is
left. Executors still unassigned go round robin: counter from 1, slot
``counter % omega``.

Algorithm 3 (slots to nodes). Nodes with free slots by power, most first;
slots by number of executors, most first; each node's free slots, lowest
index first, before the next node. The decisions give each node's rank as
Table 4's "Index" column does: dense, equal powers sharing a rank
(:func:`core.hardware.power_ranks`).

Where the paper is silent (all deterministic):

- Communication: observed tuple rates (``scenario.observations.traffic``,
  both directions) when given, else the number of executor-level edges
  between the candidate and the pair. With observations the key is (observed
  rate, edge count); an executor is connected when it has an edge or a
  positive observed flow to the pair. Ties: topological order of the component, then
  executor index.
- Executors left over for the round robin go in topological order; slots
  that stay empty need no worker and are not placed.
- Slots of equal size keep the order in which they were opened; nodes of
  equal power: more free slots first, then node id.
- When W exceeds the free slots, omega = the number of free slots (Storm
  uses what it has, as ``even`` does) and a decision says so.
- Counting edges per component (every shuffle, fields, all or
  local-or-shuffle edge joins all executors of the two components; global
  only the downstream index 0) keeps this linear in the executors: no
  million-pair edge list for a 1,000 x 1,000 shuffle.

References
----------
.. [1] A. Muhammad, M. Aleem, M. A. Islam, "TOP-Storm: A topology-based
   resource-aware scheduler for Stream Processing Engine", Cluster Computing,
   2020. https://doi.org/10.1007/s10586-020-03117-y
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from core.hardware import DEFAULT_ALPHA, computation_power, power_ranks
from core.model import ACKER_ID, Scenario
from core.problem import Problem, problem_of
from core.schedulers.base import Outcome, Param, SchedulerSpec, assignment, free_slots
from core.topology import TopologyGraph, component_of, executor_id, index_of


class _Grouper:
    """Algorithm 2's state: which executors are assigned, and the DAG it reads.

    Only the topology's own streams count: the ``__acker`` streams are wired
    by Storm's system topology, which the scheduler does not see. Edges are
    counted per component (linear in the executors); observed rates per
    executor.
    """

    def __init__(self, graph: TopologyGraph, traffic: Mapping[str, list[tuple[str, float]]]):
        self.graph = graph
        self.rank = {c: i for i, c in enumerate(graph.order)}
        self.assigned = {c: [False] * graph.parallelism[c] for c in graph.order}
        self.low = dict.fromkeys(graph.order, 0)  # lowest index that may be unassigned
        self.traffic = traffic
        self.grouping = {
            (s.source, s.target): s.grouping for s in graph.streams if s.target != ACKER_ID
        }
        self.succs = {
            c: [d for d in graph.succs[c] if (c, d) in self.grouping] for c in graph.order
        }
        self.preds = {
            c: [p for p in graph.preds[c] if (p, c) in self.grouping] for c in graph.order
        }

    def lowest_free(self, c: str) -> int | None:
        flags, i = self.assigned[c], self.low[c]
        while i < len(flags) and flags[i]:
            i += 1
        self.low[c] = i
        return i if i < len(flags) else None

    def first_free_target(self, c: str) -> str | None:
        """The first unassigned executor that ``c``'s executors send to."""
        for d in self.succs[c]:
            i = 0 if self.grouping[c, d] == "global" else self.lowest_free(d)
            if i is not None and not self.assigned[d][i]:
                return executor_id(d, i)
        return None

    def _edge_counts(self, seed: list[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Edges from the seed pair to an executor of each component: any index, index 0.

        A global grouping reaches only the downstream index 0 (Storm's lowest task).
        """
        any_index: dict[str, int] = defaultdict(int)
        index_0: dict[str, int] = defaultdict(int)
        for ex in seed:
            c, i = component_of(ex), index_of(ex)
            for d in self.succs[c]:
                (index_0 if self.grouping[c, d] == "global" else any_index)[d] += 1
            for p in self.preds[c]:
                if self.grouping[p, c] != "global" or i == 0:
                    any_index[p] += 1
        return any_index, index_0

    def grow(self, seed: list[str], eps: int) -> list[str]:
        """Open a slot with the pair ``seed`` and add the executors that talk most to it.

        Alg. 2 line 16 ranks candidates by their communication with the pair
        (e_s, e_d), so each candidate's key is fixed once the pair is.
        """
        any_index, index_0 = self._edge_counts(seed)
        observed: dict[str, float] = defaultdict(float)
        for ex in seed:
            for other, rate in self.traffic.get(ex, ()):
                observed[other] += rate
        members: list[str] = []
        for ex in seed:
            self._take(ex, members)
        while len(members) < eps:
            pick = self._best(any_index, index_0, observed)
            if pick is None:
                break
            self._take(pick, members)
        return members

    def _take(self, ex: str, members: list[str]) -> None:
        self.assigned[component_of(ex)][index_of(ex)] = True
        members.append(ex)

    def _key(self, ex: str, edges: int, observed: Mapping[str, float]) -> tuple:
        c, i = component_of(ex), index_of(ex)
        return (observed.get(ex, 0.0), edges, -self.rank[c], -i)

    def _best(self, any_index, index_0, observed) -> str | None:
        """Most communicating unassigned executor connected to the pair, or None."""
        best_key, best = None, None
        for c in set(any_index) | set(index_0):
            i = self.lowest_free(c)  # 0 when free: c#0 also carries the global edges
            if i is None:
                continue
            edges = any_index.get(c, 0) + (index_0.get(c, 0) if i == 0 else 0)
            ex = executor_id(c, i)
            key = self._key(ex, edges, observed)
            if edges > 0 and (best_key is None or key > best_key):
                best_key, best = key, ex
        for ex, rate in observed.items():
            c, i = component_of(ex), index_of(ex)
            if rate <= 0 or self.assigned[c][i]:
                continue
            edges = any_index.get(c, 0) + (index_0.get(c, 0) if i == 0 else 0)
            key = self._key(ex, edges, observed)
            if best_key is None or key > best_key:
                best_key, best = key, ex
        return best


def _traffic(scenario: Scenario, graph: TopologyGraph) -> dict[str, list[tuple[str, float]]]:
    """Observed executor-to-executor rates, both directions; unknown executors ignored."""
    out: dict[str, list[tuple[str, float]]] = defaultdict(list)
    if scenario.observations is None:
        return out
    known = {ex for c in graph.order for ex in graph.executors(c)}
    for f in scenario.observations.traffic:
        if f.source in known and f.target in known and f.source != f.target:
            out[f.source].append((f.target, f.rate))
            out[f.target].append((f.source, f.rate))
    return out


def group_executors(graph: TopologyGraph, omega: int, traffic=None) -> list[list[str]]:
    """Algorithm 2: omega slot buckets of executors (some may stay empty).

    Examples
    --------
    a(2) -> b(2), omega 2, eps 2: each edge a#i -> b#i opens a slot.

    >>> from core.model import validate_scenario
    >>> sc = validate_scenario({"topology": {"components": [
    ...     {"id": "a", "parallelism": 2}, {"id": "b", "parallelism": 2}],
    ...     "streams": [{"from": "a", "to": "b"}]},
    ...     "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 2}]}})
    >>> from core.topology import build_graph
    >>> group_executors(build_graph(sc), 2)
    [['a#0', 'b#0'], ['a#1', 'b#1']]
    """
    grouper = _Grouper(graph, traffic or {})
    eps = math.ceil(graph.executor_count / omega)
    slots: list[list[str]] = []
    for ex in graph.executors_topological():
        if len(slots) == omega:
            break
        c, i = component_of(ex), index_of(ex)
        target = None if grouper.assigned[c][i] else grouper.first_free_target(c)
        if target is not None:
            slots.append(grouper.grow([ex, target], eps))
    slots += [[] for _ in range(omega - len(slots))]
    counter = 1
    for c in graph.order:
        for i in range(graph.parallelism[c]):
            if not grouper.assigned[c][i]:
                slots[counter % omega].append(executor_id(c, i))
                counter += 1
    return slots


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Group executors by communication, then fill the most powerful nodes first.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {"alpha": 0.8})
    >>> sorted({a.node for a in out.assignments})
    ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8']
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    alpha = float(params.get("alpha", DEFAULT_ALPHA))
    graph = problem.graph
    free = free_slots(scenario.cluster.nodes)
    total_free = sum(len(s) for s in free.values())
    w = scenario.workers
    omega = min(w, total_free)
    decisions = []
    if w > total_free:
        decisions.append(
            f"W = {w} workers requested but only {total_free} slots are free: "
            f"grouping into {total_free} slots, as Storm uses what it has"
        )
    groups = group_executors(graph, omega, _traffic(scenario, graph))
    eps = math.ceil(graph.executor_count / omega)
    order = sorted(
        (n for n in scenario.cluster.nodes if n.id in free),
        key=lambda n: (-computation_power(n, alpha), -len(free[n.id]), n.id),
    )
    node_slots = [(n, s) for n in order for s in free[n.id]]
    ranks = power_ranks(order, alpha)
    filled = sorted((g for g in enumerate(groups) if g[1]), key=lambda g: -len(g[1]))
    assignments = []
    for (number, members), (node, slot) in zip(filled, node_slots, strict=False):
        assignments.extend(assignment(ex, node.id, slot) for ex in members)
        decisions.append(
            f"slot group {number + 1} ({len(members)} executors: {', '.join(members)}) -> "
            f"{node.id} slot {slot}: executors that communicate share a slot (at most {eps}, "
            f"leftovers round robin); fullest groups go first to the most powerful node with "
            f"a free slot ({node.id}: power {computation_power(node, alpha):.2f}, "
            f"rank {ranks[node.id]} of {max(ranks.values())}, equal powers share a rank)"
        )
    return Outcome(
        assignments=tuple(assignments),
        decisions=tuple(decisions),
        details={"eps": eps, "omega": omega},
    )


SPEC = SchedulerSpec(
    id="top-storm",
    name="TOP-Storm",
    paper=(
        "A. Muhammad, M. Aleem, M. A. Islam, TOP-Storm: A topology-based resource-aware "
        "scheduler for Stream Processing Engine, Cluster Computing, 2020, "
        "doi:10.1007/s10586-020-03117-y"
    ),
    params=(
        Param(
            "alpha",
            DEFAULT_ALPHA,
            "Weight of processing speed against RAM in a node's computation power (Eq. 2).",
            float,
            0.0,
            1.0,
        ),
    ),
    run=schedule,
    summary="Packs communicating executors into W slots and gives the fullest slots to the "
    "most powerful nodes first, using as few nodes as possible.",
)

"""Static placement metrics: resources used, edge locality, cohesion, coupling.

Cohesion and coupling are the L/F paper's (Son & Moon, Electronics 2020):
closeness = 1 / distance, distance 1 between executors of one worker and 40
between workers (both configurable; a separate inter-node distance may be
given, by default equal to the inter-worker one).

- cohesion = sum over every stream u -> v, over each executor of u, of its
  maximum closeness to any executor of v. Higher = more locality.
- coupling = sum over every executor of its maximum closeness to another
  executor of its own component (0 for a component with one executor).
  Lower = more fairness (instances spread out).
- Both count the topology's own components: Storm's acker (``__acker``) and
  the streams into it are left out, as the paper computes them over the
  job's POs (Fig. 6's figures hold only without them).

Edge locality counts executor-level edges (see
:func:`core.topology.executor_edges`) by where their ends sit; counts come
from per-worker tallies, so a 1,000 x 1,000 shuffle costs no million-pair
loop. ``local-or-shuffle`` counts only the edges it uses: to executors of the
same worker when there are any, else to all.

References
----------
.. [1] D. Son, Y. Moon, "Locality/Fairness-Aware Job Scheduling in
   Distributed Stream Processing Engines", Electronics 9(11), 2020.
   https://doi.org/10.3390/electronics9111857
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from core.model import ACKER_ID
from core.placement import Schedule
from core.topology import TopologyGraph

INTRA_WORKER_DISTANCE = 1.0  # L/F paper
INTER_WORKER_DISTANCE = 40.0  # L/F paper


@dataclass(frozen=True)
class PlacementMetrics:
    nodes_used: int
    slots_used: int
    executors_per_slot: Mapping[str, int]  # "node:slot" -> executors
    intra_worker_edges: int
    inter_worker_edges: int
    inter_node_edges: int
    cohesion: float
    coupling: float

    def as_dict(self) -> dict:
        return {
            "nodes_used": self.nodes_used,
            "slots_used": self.slots_used,
            "cohesion": round(self.cohesion, 6),
            "coupling": round(self.coupling, 6),
            "inter_node_streams": self.inter_node_edges,
            "inter_worker_streams": self.inter_worker_edges,
            "intra_worker_streams": self.intra_worker_edges,
            "executors_per_slot": dict(self.executors_per_slot),
        }


def _closeness(same_worker: bool, same_node: bool, distances: tuple[float, float, float]) -> float:
    intra, inter_worker, inter_node = distances
    if same_worker:
        return 1.0 / intra
    return 1.0 / (inter_worker if same_node else inter_node)


def cohesion_coupling(
    graph: TopologyGraph,
    placement: Mapping[str, tuple[str, int]],
    intra_worker: float = INTRA_WORKER_DISTANCE,
    inter_worker: float = INTER_WORKER_DISTANCE,
    inter_node: float | None = None,
) -> tuple[float, float]:
    """The L/F paper's cohesion and coupling of a placement.

    Examples
    --------
    Two components of one executor each in one worker: cohesion 1, coupling 0.

    >>> from core.model import validate_scenario
    >>> from core.topology import build_graph
    >>> sc = validate_scenario({"topology": {"components": [
    ...     {"id": "a", "parallelism": 1}, {"id": "b", "parallelism": 1}],
    ...     "streams": [{"from": "a", "to": "b"}]},
    ...     "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 1}]}})
    >>> cohesion_coupling(build_graph(sc), {"a#0": ("n", 0), "b#0": ("n", 0)})
    (1.0, 0.0)
    """
    distances = (intra_worker, inter_worker, inter_worker if inter_node is None else inter_node)
    cohesion = 0.0
    for s in graph.streams:
        if s.target == ACKER_ID:  # the paper's Eq. 1 and 2 count the job's POs, not Storm's
            continue
        down = graph.executors(s.target)
        workers = {placement[e] for e in down}
        nodes = {placement[e][0] for e in down}
        for e in graph.executors(s.source):
            slot = placement[e]
            cohesion += _closeness(slot in workers, slot[0] in nodes, distances)
    coupling = 0.0
    for c in graph.order:
        execs = graph.executors(c)
        if len(execs) < 2 or c == ACKER_ID:
            continue
        per_worker = Counter(placement[e] for e in execs)
        per_node = Counter(placement[e][0] for e in execs)
        for e in execs:
            slot = placement[e]
            coupling += _closeness(per_worker[slot] > 1, per_node[slot[0]] > 1, distances)
    return cohesion, coupling


def edge_locality(
    graph: TopologyGraph, placement: Mapping[str, tuple[str, int]]
) -> tuple[int, int, int]:
    """Executor-level edges (intra-worker, inter-worker same node, inter-node)."""
    intra = same_node = total = 0
    for s in graph.streams:
        ups = graph.executors(s.source)
        downs = graph.executors(s.target)
        if s.grouping == "global":
            downs = downs[:1]
        down_worker = Counter(placement[e] for e in downs)
        down_node = Counter(placement[e][0] for e in downs)
        for e in ups:
            slot = placement[e]
            w, n = down_worker[slot], down_node[slot[0]]
            if s.grouping == "local-or-shuffle" and w > 0:
                intra += w
                total += w
                continue
            intra += w
            same_node += n - w
            total += len(downs)
    return intra, same_node, total - intra - same_node


def placement_metrics(
    graph: TopologyGraph,
    placement: Mapping[str, tuple[str, int]],
    intra_worker: float = INTRA_WORKER_DISTANCE,
    inter_worker: float = INTER_WORKER_DISTANCE,
    inter_node: float | None = None,
) -> PlacementMetrics:
    """All static metrics of a placement (executor -> (node, slot))."""
    per_slot = Counter(placement.values())
    intra, inter_w, inter_n = edge_locality(graph, placement)
    cohesion, coupling = cohesion_coupling(graph, placement, intra_worker, inter_worker, inter_node)
    return PlacementMetrics(
        nodes_used=len({node for node, _ in per_slot}),
        slots_used=len(per_slot),
        executors_per_slot={f"{n}:{s}": k for (n, s), k in sorted(per_slot.items())},
        intra_worker_edges=intra,
        inter_worker_edges=inter_w,
        inter_node_edges=inter_n,
        cohesion=cohesion,
        coupling=coupling,
    )


def schedule_metrics(
    schedule: Schedule, graph: TopologyGraph, **distances: float
) -> PlacementMetrics:
    """Metrics of a scheduler's result (graph built with the schedule's parallelism)."""
    return placement_metrics(graph, schedule.placement(), **distances)


@dataclass(frozen=True)
class PlacementChanges:
    """Executors that sit elsewhere in placement ``b`` than in ``a``.

    ``moved_node`` changed node; ``moved_slot`` stayed on its node but changed
    worker; ``only_a`` / ``only_b`` exist in one placement only (a scheduler
    that chose another parallelism).
    """

    moved_node: tuple[str, ...]
    moved_slot: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]

    @property
    def moved(self) -> tuple[str, ...]:
        return self.moved_node + self.moved_slot


def placement_changes(
    a: Mapping[str, tuple[str, int]], b: Mapping[str, tuple[str, int]]
) -> PlacementChanges:
    """Which executors moved between two placements (executor -> (node, slot)).

    Examples
    --------
    >>> a = {"x#0": ("n1", 0), "x#1": ("n1", 1), "y#0": ("n2", 0), "z#0": ("n1", 0)}
    >>> b = {"x#0": ("n1", 0), "x#1": ("n1", 0), "y#0": ("n1", 0), "w#0": ("n2", 0)}
    >>> c = placement_changes(a, b)
    >>> c.moved_node, c.moved_slot, c.only_a, c.only_b
    (('y#0',), ('x#1',), ('z#0',), ('w#0',))
    """
    common = [e for e in a if e in b]
    return PlacementChanges(
        moved_node=tuple(e for e in common if a[e][0] != b[e][0]),
        moved_slot=tuple(e for e in common if a[e][0] == b[e][0] and a[e][1] != b[e][1]),
        only_a=tuple(e for e in a if e not in b),
        only_b=tuple(e for e in b if e not in a),
    )

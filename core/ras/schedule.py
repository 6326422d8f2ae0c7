"""Place a set of topologies in Storm's order on the capacity the earlier ones left.

Order: ``topology.priority`` ascending (0 is the most important, Storm's
defaults.yaml), then name, a simplification of
``DefaultSchedulingPriorityStrategy`` (which also weighs each user's resource
guarantee; slotscope's topologies carry no guarantees). No eviction is attempted.
A topology that does not fit gets a report in words: what it needed and what was
free, node by node (STORM-3530 asks for exactly this).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.ras.constraint import ConstraintStrategy
from core.ras.model import RasCluster, RasError, RasTopology
from core.ras.strategies import (
    BaseStrategy,
    DefaultStrategy,
    GenericStrategy,
    RoundRobinStrategy,
    SchedulingResult,
)

STRATEGIES: dict[str, type[BaseStrategy]] = {
    "ras-default": DefaultStrategy,
    "ras-generic": GenericStrategy,
    "ras-round-robin": RoundRobinStrategy,
    "ras-constraint": ConstraintStrategy,
}
REPORT_NODES = 10  # nodes listed by name in a "did not fit" report


@dataclass
class ClusterSchedule:
    """Outcome of :func:`schedule_cluster`."""

    strategy: str
    order: list[str]
    results: dict[str, SchedulingResult]
    reports: dict[str, str] = field(default_factory=dict)

    @property
    def scheduled(self) -> list[str]:
        """Topologies fully scheduled, in scheduling order."""
        return [t for t in self.order if self.results[t].success]


def get_strategy(name: str) -> BaseStrategy:
    """A strategy instance by id (``ras-default`` ...)."""
    if name not in STRATEGIES:
        raise RasError(f"strategy: unknown '{name}', known: {', '.join(STRATEGIES)}")
    return STRATEGIES[name]()


JAVA_CLASSES = {
    "DefaultResourceAwareStrategy": "ras-default",
    "GenericResourceAwareStrategy": "ras-generic",
    "RoundRobinResourceAwareStrategy": "ras-round-robin",
    "ConstraintSolverStrategy": "ras-constraint",
}
TOPOLOGY_OWN = "topology"  # strategy argument: each topology's topology.scheduler.strategy


def storm_order(topologies: Sequence[RasTopology], priority_strategy: str = "default"):
    """Topologies in the order Nimbus schedules them (one submitter, no guarantees).

    ``DefaultSchedulingPriorityStrategy``: ``topology.priority`` ascending, then
    submission time, then id; slotscope's topologies share one submission time, so
    priority then name. ``FIFOSchedulingPriorityStrategy``: by submission time, then id,
    so by name.
    """
    if priority_strategy == "fifo":
        return sorted(topologies, key=lambda t: t.name)
    return sorted(topologies, key=lambda t: (t.priority, t.name))


def node_free_table(cluster: RasCluster) -> list[dict[str, object]]:
    """Free capacity node by node: id, rack, CPU %, memory MB, free slots (for views)."""
    cpu, mem, slots = cluster.avail_cpu(), cluster.avail_mem(), cluster.free_slot_count()
    return [
        {
            "node": cluster.node_ids[i],
            "rack": cluster.supervisors[i].rack,
            "cpu_pct_free": float(cpu[i]),
            "memory_mb_free": float(mem[i]),
            "slots_free": int(slots[i]),
        }
        for i in range(cluster.size)
    ]


def explain_unfit(
    cluster: RasCluster, topo: RasTopology, result: SchedulingResult, strategy: str = ""
) -> str:
    """What ``topo`` needed and what was free, node by node, in words."""
    cpu = float(np.dot(topo.comp_cpu[topo.exec_comp], np.ones(topo.executors)))
    mem = float((topo.comp_onheap + topo.comp_offheap)[topo.exec_comp].sum())
    big = int(np.argmax(topo.comp_onheap + topo.comp_offheap))
    big_c = topo.all_components[big]
    free_cpu, free_mem = cluster.avail_cpu(), cluster.avail_mem()
    free_slots = cluster.free_slot_count()
    fits = (
        (free_cpu >= topo.comp_cpu[big])
        & (free_mem >= topo.comp_onheap[big] + topo.comp_offheap[big])
        & (free_slots > 0)
    )
    lines = [
        f"{topo.name} did not fit: {result.message}.",
        f"It needs {topo.executors} executors: {cpu:,.0f} % CPU and {mem:,.0f} MB in all; "
        f"its largest, '{big_c.id}', needs {topo.comp_cpu[big]:g} % CPU and "
        f"{topo.comp_onheap[big] + topo.comp_offheap[big]:g} MB, and a worker may hold "
        f"{topo.worker_max_heap_mb:g} MB of heap.",
        f"Free at its turn: {free_cpu.sum():,.0f} % CPU, {free_mem.sum():,.0f} MB and "
        f"{int(free_slots.sum())} slots on {cluster.size} nodes; "
        f"{int(fits.sum())} nodes could take its largest executor.",
    ]
    if strategy == "ras-round-robin":
        alone = sum(
            1 for i in range(cluster.size) if not cluster.running_topologies(i) - {topo.name}
        )
        lines.append(
            f"Round robin takes only nodes no other topology runs on "
            f"(getTruncatedNodeList): {alone} of {cluster.size}."
        )
    order = np.lexsort((-free_cpu, -free_mem))[:REPORT_NODES]
    for i in order:
        lines.append(
            f"  {cluster.node_ids[i]} ({cluster.supervisors[i].rack}): {free_cpu[i]:g} % CPU, "
            f"{free_mem[i]:g} MB, {int(free_slots[i])} free slots"
        )
    if cluster.size > REPORT_NODES:
        lines.append(f"  ... and {cluster.size - REPORT_NODES} more nodes with less free memory")
    return "\n".join(lines)


def schedule_cluster(
    cluster: RasCluster, topologies: Sequence[RasTopology], strategy: str | BaseStrategy
) -> ClusterSchedule:
    """Schedule every topology not yet placed, in Storm's order, with one strategy.

    Parameters
    ----------
    cluster
        The cluster; placements are written into it (``cluster.assignments``).
    topologies
        The topology set; names must be unique.
    strategy
        A strategy id (``ras-default``, ``ras-generic``, ``ras-round-robin``,
        ``ras-constraint``) or instance, or ``"topology"``: each topology's own
        ``topology.scheduler.strategy``, as Nimbus (and Storm's TestLargeCluster) does.
    """
    names = [t.name for t in topologies]
    if len(set(names)) != len(names):
        raise RasError("topologies: duplicate topology names")
    own = strategy == TOPOLOGY_OWN
    strat = None if own else get_strategy(strategy) if isinstance(strategy, str) else strategy
    ordered = storm_order(topologies, cluster.priority_strategy)
    results: dict[str, SchedulingResult] = {}
    reports: dict[str, str] = {}
    for topo in ordered:
        placed = len(cluster.assignments.get(topo.name, {}))
        if placed == topo.executors:  # Cluster.needsSchedulingRas is false
            results[topo.name] = SchedulingResult(
                True, "Fully Scheduled", placed=placed, executors=topo.executors
            )
            continue
        use = get_strategy(JAVA_CLASSES.get(topo.strategy_class, "ras-default")) if own else strat
        res = use.schedule(cluster, topo)
        results[topo.name] = res
        if not res.success:
            reports[topo.name] = explain_unfit(cluster, topo, res, use.name)
    name = TOPOLOGY_OWN if strat is None else strat.name
    return ClusterSchedule(name, [t.name for t in ordered], results, reports)

"""Storm's ``ResourceAwareScheduler``: a topology set in priority order, with eviction.

One Nimbus scheduling round (:func:`schedule_cluster`) ported from
``storm-server/src/main/java/org/apache/storm/scheduler/resource/ResourceAwareScheduler.java``
(``schedule``, ``scheduleTopology``, ``TopologySchedulingResources``), step by step:

1. The order (:func:`storm_order`): ``DefaultSchedulingPriorityStrategy.getOrderedTopologies``
   (``strategies/priority/``): users in ``HashMap`` order, each with its topologies by
   ``topology.priority``, then up time (older first), then id; repeatedly the user with
   the lowest score ``max((assigned + next - guaranteed) / available)`` over CPU and
   memory gives its next topology, whose request is taken off what is available.
   ``FIFOSchedulingPriorityStrategy``: a user over its guarantee is scored by the up
   time of its newest topology instead, so the newest go first and the oldest last.
2. Each topology in that order that is not fully scheduled (``needsSchedulingRas``) is
   scheduled with its strategy, on the cluster as the earlier ones left it, in up to
   ``max_scheduling_attempts`` (5) attempts: if the cluster's free CPU, memory and
   generic resources (plus what the topology already holds) cover its request
   (``canScheduleAvailable``), the strategy runs; success keeps its placement.
3. When the strategy fails for want of resources, the topologies *after* it in the
   order, the last first, that hold workers are evicted one by one (their workers
   freed) until what was evicted covers what the topology still needs
   (``canScheduleRemainingRequired``), and it is tried again. Nothing to evict: it
   fails ("Not enough resources to schedule after evicting lower priority
   topologies."). Evictions happen on a working copy: they stand only if the topology
   is then scheduled; otherwise the evicted topologies keep their placements.
4. An evicted topology comes later in the same order, so it is scheduled again in the
   same round (it may fit elsewhere, or evict lower ones in turn, or fail).

Eviction needs running topologies: in one round on an empty cluster every topology
after the current one is still unplaced, so nothing is evicted. It happens across
rounds (Storm's tests submit topologies between rounds; :func:`schedule_rounds` runs
one round per submission). A topology that does not fit gets a report in words: what
it needed and what was free, node by node (STORM-3530 asks for exactly this), and
whether it was evicted and for which topology.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.importers.stormser import STORM_STRATEGY_IDS
from core.ras.constraint import ConstraintStrategy
from core.ras.javaorder import hash_order, java_string_hash
from core.ras.model import RasCluster, RasError, RasTopology, TopologyPlacement
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
    """Outcome of :func:`schedule_cluster` (or of the last of :func:`schedule_rounds`).

    ``evicted`` is ``ResourceAwareScheduler.getEvictedTopologiesMap``: topology
    scheduled -> the topologies evicted to make room for it, this round (every round
    for :func:`schedule_rounds`); ``evicted_by`` the reverse.
    """

    strategy: str
    order: list[str]
    results: dict[str, SchedulingResult]
    reports: dict[str, str] = field(default_factory=dict)
    evicted: dict[str, set[str]] = field(default_factory=dict)
    evicted_by: dict[str, str] = field(default_factory=dict)

    @property
    def scheduled(self) -> list[str]:
        """Topologies fully scheduled, in scheduling order."""
        return [t for t in self.order if self.results[t].success]


def get_strategy(name: str) -> BaseStrategy:
    """A strategy instance by id (``ras-default`` ...)."""
    if name not in STRATEGIES:
        raise RasError(f"strategy: unknown '{name}', known: {', '.join(STRATEGIES)}")
    return STRATEGIES[name]()


JAVA_CLASSES = STORM_STRATEGY_IDS  # Storm's class name -> the ras-* id porting it
TOPOLOGY_OWN = "topology"  # strategy argument: each topology's topology.scheduler.strategy


NOT_ENOUGH, INVALID, OTHER = "not-enough-resources", "invalid-topology", "other"


def failure_status(result: SchedulingResult) -> str:
    """Storm's ``SchedulingStatus`` of a failed result: ``FAIL_INVALID_TOPOLOGY`` for no
    spout, ``FAIL_OTHER`` for too many executors to search or an infeasible constraint
    (``BaseResourceAwareStrategy.checkSchedulingFeasibility``,
    ``ConstraintSolverStrategy``), else ``FAIL_NOT_ENOUGH_RESOURCES``."""
    if result.message.startswith("Cannot find a Spout"):
        return INVALID
    if result.message.startswith(("Unassigned Executor count", "Scheduling not feasible")):
        return OTHER
    return NOT_ENOUGH


def requested(topo: RasTopology, executors: Sequence[int] | None = None) -> np.ndarray:
    """[CPU %, memory MB] of ``topo``'s executors (all by default):
    ``getApproximateResources`` / ``getTotalRequestedCpu`` + on- and off-heap."""
    comps = topo.exec_comp if executors is None else topo.exec_comp[np.asarray(executors, int)]
    mem = topo.comp_onheap + topo.comp_offheap
    return np.array([topo.comp_cpu[comps].sum(), mem[comps].sum()])


@dataclass
class _SimulatedUser:
    """``DefaultSchedulingPriorityStrategy.SimulatedUser`` (and FIFO's)."""

    guaranteed: np.ndarray  # [CPU %, MB]
    tds: list[RasTopology]
    fifo: bool
    now: float
    assigned: np.ndarray = field(default_factory=lambda: np.zeros(2))

    def next_highest(self) -> RasTopology | None:
        return self.tds[0] if self.tds else None

    def _score(self, avail: np.ndarray, td: RasTopology | None) -> float:
        if td is None or (avail <= 0).any():
            return float(np.finfo(float).max)
        return float(((self.assigned + requested(td) - self.guaranteed) / avail).max())

    def score(self, avail: np.ndarray) -> float:
        score = self._score(avail, self.next_highest())
        if not self.fifo or score < 0:
            return score
        # FIFO: over its guarantee, the user's newest topology's up time decides
        self.tds.sort(key=lambda t: (self.now - t.launch_time, t.name))
        td = self.next_highest()
        return float(self.now - td.launch_time) if td else float(np.finfo(float).max)


def storm_order(cluster: RasCluster, topologies: Sequence[RasTopology]) -> list[RasTopology]:
    """Topologies in the order Nimbus schedules them (step 1 of the module doc).

    With one user and no guarantee (slotscope's scenarios), this is ``priority``, then
    launch time, then name.
    """
    now = max((t.launch_time for t in topologies), default=0.0)
    names: list[str] = list(dict.fromkeys(t.submitter for t in topologies))
    users = []
    for i in hash_order([java_string_hash(u) for u in names]):  # userMap.values()
        mine = [t for t in topologies if t.submitter == names[i]]
        mine.sort(key=lambda t: (t.priority, t.launch_time, t.name))
        guaranteed = np.array(cluster.user_pools.get(names[i], (0.0, 0.0)), dtype=float)
        users.append(_SimulatedUser(guaranteed, mine, cluster.priority_strategy == "fifo", now))
    avail = np.array([cluster.total_cpu.sum(), cluster.total_mem.sum()])
    ordered: list[RasTopology] = []
    while users:
        scores = [u.score(avail) for u in users]
        users = [users[i] for i in sorted(range(len(users)), key=lambda i: (scores[i], i))]
        first = users[0]
        td = first.next_highest()
        if td is None:
            users.pop(0)
            continue
        first.tds.pop(0)
        first.assigned = first.assigned + requested(td)
        avail = avail - requested(td)
        ordered.append(td)
    return ordered


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
        if topo.isolated_machines is not None:
            lines.append(
                f"Its topology.isolate.machines keeps at most {topo.isolated_machines} of "
                f"them: {min(alone, topo.isolated_machines)} nodes in all."
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


def _need(cluster: RasCluster, topo: RasTopology, executors=None) -> np.ndarray:
    """[CPU %, MB, generic...] of ``topo``'s executors (``getApproximateResources``)."""
    comps = topo.exec_comp if executors is None else topo.exec_comp[np.asarray(executors, int)]
    counts = np.bincount(comps, minlength=len(topo.all_components)).astype(float)
    gen = [cluster.generic_vector(c.request) for c in topo.all_components]
    generic = counts @ np.array(gen) if gen and len(cluster.generic_names) else np.zeros(0)
    return np.concatenate([requested(topo, executors), generic])


def _free(cluster: RasCluster) -> np.ndarray:
    """The cluster's free [CPU %, MB, generic...]
    (``Cluster.getNonBlacklistedClusterAvailableResources``)."""
    return np.concatenate(
        [
            [
                (cluster.total_cpu - cluster.used_cpu).sum(),
                (cluster.total_mem - cluster.used_mem).sum(),
            ],
            (cluster.total_gen - cluster.used_gen).sum(axis=0),
        ]
    )


def _held(cluster: RasCluster, topo: RasTopology) -> np.ndarray:
    """What ``topo`` holds now: its executors' CPU and generic request, and its memory as
    ``computeScheduledTopologyMemory`` counts it (workers' on- and off-heap, shared
    included, plus its shared off-heap node memory)."""
    placed = cluster.placement_of(topo.name)
    held = _need(cluster, topo, sorted(placed.executors))
    held[1] = sum(float(r[1] + r[2]) for r in placed.workers.values())
    held[1] += sum(placed.node_shared.values())
    return held


def _remaining_message(remaining: np.ndarray, free: np.ndarray) -> str:
    """``getRemainingRequiredResourcesMessage``."""
    out = ""
    if remaining[1] > 0:
        out += f"Additional Memory Required: {remaining[1]} MB (Available: {free[1]} MB). "
    if remaining[0] > 0:
        out += f"Additional CPU Required: {remaining[0]}% CPU (Available: {free[0]} % CPU)."
    return out


def _schedule_topology(
    cluster: RasCluster,
    topo: RasTopology,
    ordered: Sequence[RasTopology],
    strategy: BaseStrategy,
) -> tuple[SchedulingResult, list[str]]:
    """``ResourceAwareScheduler.scheduleTopology``: (result, topologies it evicted).

    Steps 2-3 of the module doc. Evictions are undone unless ``topo`` is scheduled.
    """
    required = _need(cluster, topo)
    taken: list[TopologyPlacement] = []
    below = [t for t in reversed(ordered)][: len(ordered) - 1 - ordered.index(topo)]

    def give_back(result: SchedulingResult) -> tuple[SchedulingResult, list[str]]:
        for placement in taken:
            cluster.restore(placement)
        return result, []

    for _attempt in range(cluster.max_scheduling_attempts):
        scheduled = _need(cluster, topo, sorted(cluster.assignments.get(topo.name, {})))
        if ((_free(cluster) + scheduled - required) >= -1e-9).all():  # canScheduleAvailable
            result = strategy.schedule(cluster, topo)
        else:
            result = SchedulingResult(False, "", executors=topo.executors)
        if result.success:
            return result, [p.topology for p in taken]
        if failure_status(result) != NOT_ENOUGH:
            return give_back(result)
        remaining = np.maximum(required - scheduled, 0.0)  # setRemainingRequiredResources
        remaining[1] = required[1] - scheduled[1]
        evicted_now = 0
        for other in below:
            if not cluster.topology_slots.get(other.name):
                continue
            remaining = remaining - _held(cluster, other)  # adjustResourcesForEvictedTopology
            taken.append(cluster.placement_of(other.name))
            cluster.unassign(other.name)
            evicted_now += 1
            enough = ((_free(cluster) + scheduled - required) >= -1e-9).all()
            if enough and (remaining <= 1e-9).all():  # canSchedule: stop evicting
                break
        if not evicted_now:
            message = (
                "Not enough resources to schedule after evicting lower priority topologies. "
                + _remaining_message(remaining, _free(cluster) - scheduled)
                + result.message
            )
            return give_back(
                SchedulingResult(
                    False, message, result.states, result.backtracks, result.placed, topo.executors
                )
            )
    message = (
        f"Failed to make enough resources for {topo.name} by evicting lower priority "
        f"topologies within {cluster.max_scheduling_attempts} attempts. "
    )
    return give_back(SchedulingResult(False, message, executors=topo.executors))


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
    ordered = storm_order(cluster, topologies)
    out = ClusterSchedule(
        TOPOLOGY_OWN if strat is None else strat.name, [t.name for t in ordered], {}
    )
    for topo in ordered:
        placed = len(cluster.assignments.get(topo.name, {}))
        if placed == topo.executors:  # Cluster.needsSchedulingRas is false
            out.results[topo.name] = SchedulingResult(
                True, "Fully Scheduled", placed=placed, executors=topo.executors
            )
            continue
        use = get_strategy(JAVA_CLASSES.get(topo.strategy_class, "ras-default")) if own else strat
        res, evicted = _schedule_topology(cluster, topo, ordered, use)
        out.results[topo.name] = res
        if evicted:
            out.evicted.setdefault(topo.name, set()).update(evicted)
            out.evicted_by.update({name: topo.name for name in evicted})
        if not res.success:
            out.reports[topo.name] = explain_unfit(cluster, topo, res, use.name)
            by = out.evicted_by.get(topo.name)
            if by is not None:
                out.reports[topo.name] = (
                    f"{topo.name} was running and was evicted to make room for {by}, which "
                    f"comes before it in Storm's order (priority "
                    f"{next(t.priority for t in ordered if t.name == by)} against "
                    f"{topo.priority}); it then found no room again.\n" + out.reports[topo.name]
                )
    return out


def schedule_rounds(
    cluster: RasCluster,
    topologies: Sequence[RasTopology],
    strategy: str | BaseStrategy,
) -> ClusterSchedule:
    """One Nimbus round after each submission: topologies in the given (submission)
    order, round k scheduling the first k on what the earlier rounds left, so a later,
    more important topology may evict running less important ones (Storm's eviction
    tests submit topologies between rounds the same way). Launch times are the
    submission order where all are equal. The result is the last round's, with every
    round's evictions.
    """
    if len({t.launch_time for t in topologies}) <= 1:
        for i, t in enumerate(topologies):
            t.launch_time = float(i)
    evicted: dict[str, set[str]] = {}
    evicted_by: dict[str, str] = {}
    last = ClusterSchedule(str(strategy), [], {})
    for k in range(1, len(topologies) + 1):
        last = schedule_cluster(cluster, topologies[:k], strategy)
        for name, gone in last.evicted.items():
            evicted.setdefault(name, set()).update(gone)
        evicted_by.update(last.evicted_by)
    last.evicted, last.evicted_by = evicted, evicted_by
    for name, by in evicted_by.items():
        if name in last.reports and "was evicted" not in last.reports[name]:
            last.reports[name] = (
                f"{name} was running and was evicted to make room for {by} (an earlier round); "
                f"it then found no room again.\n" + last.reports[name]
            )
    return last

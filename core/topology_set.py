"""Every scheduler on a topology set: one cluster shared by several topologies.

:func:`schedule_set` runs one scheduler on every topology of a scenario
(``scenario.topology_set``) and returns one :class:`TopologyOutcome` per topology
plus the cluster's combined placement (:class:`SetSchedule`). How a scheduler treats
a set is stated once, in :data:`SET_TREATMENT` (``slotscope schedulers`` prints it;
docs/schedulers.md, "Topology sets"):

- ``sequential`` (even, rstorm, aniello-offline, top-storm, lf, hetero): topologies
  one after another in Storm's order (:func:`core.ras.schedule.storm_order`:
  ``priority`` ascending, then name, as ``DefaultSchedulingPriorityStrategy`` with one
  submitter), each on the capacity the earlier ones left (:class:`Residual`: their
  slots taken, their executors' declared CPU and memory subtracted). hetero picks each
  topology's parallelism and fills the nodes it is given (Nasiri et al.), so the first
  topologies may take the cluster: a later one's report names them (:func:`explain_unfit`).
- ``joint`` (the searches optimal and slotscope): one search of the whole set
  (:func:`_joint`) while its executors x nodes are within :data:`SIZE_BOUNDS`: the
  search run once on the set's union (``scenario.topology``, ids ``topology/component``,
  one ``__acker`` component whose executors :func:`set_ids` deals to the topologies in
  Storm's order), its placement kept to the set's rules (:func:`kept_to_the_set`: one
  topology per worker, each within its declared workers), against the placement of the
  searches run topology by topology (``sequential`` above, the start); the better by the
  union's model score (most topologies placed, then R*, latency, nodes), then improved by
  :func:`improve_in_set` (single-executor moves that keep the rules). A topology is
  placed whole or not at all, and the result is never worse than the start. Over the
  bound, or with a parameter that picks the parallelism, they run ``sequential`` and say
  why. Their ``time_limit`` is the set's: :data:`UNION_SHARE` of it for the union,
  :data:`START_SHARE` for the start, the rest for the local search.
- ``online`` (aniello-online): every topology re-placed from its own observed
  traffic (fed its ``running_placement``'s simulated run, as for one topology), in
  Storm's order on the residual cluster.
- ``toss``: TOSS's Alg. 1 partitions every topology of the set into its groups
  (one per worker) and Alg. 2 gives all groups, set order, to the least loaded node
  of one priority queue keyed by the load the groups already placed put on it.
- ``ras`` (ras-*): :func:`core.ras.schedule.schedule_cluster`, Storm's own order and
  resource accounting on one RAS cluster.

A topology that does not fit is placed nowhere and reported in words, Storm's
STORM-3530 style (:func:`explain_unfit`): what it needed and what was free, node by
node. Searched topology by topology, the searches are offered, per topology, the nodes
with most free CPU, as many as :data:`SIZE_BOUNDS` allows for its executors
(:func:`_candidates`), so their sub-problem stays within the bound whatever the
cluster's size; one whose workers alone
need more nodes than that is not run on it and says so. The ras-* schedulers run each
topology's own strategy where it gives one and evict by priority as Storm does
(:mod:`core.schedulers.storm_ras`, :mod:`core.ras.schedule`).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.hardware import computation_power, total_cores
from core.model import ACKER_ID, Cluster, Node, Scenario, Topology, qualified, union_of
from core.placement import Assignment, Schedule, SchedulerError, Status, assignment
from core.problem import Problem, problem_of
from core.ras.scenario import from_scenario
from core.ras.schedule import TOPOLOGY_OWN, schedule_cluster, schedule_rounds
from core.registry import get_scheduler
from core.schedulers import feed
from core.schedulers.base import resolve_params, run_spec
from core.schedulers.storm_ras import (
    FORCE,
    PER_SUBMISSION,
    ROUNDS,
    STORM_CLASSES,
    check_rounds,
    strategy_for,
)
from core.schedulers.toss import (
    check_alphas,
    expected_rates,
    group_sizes,
    partition,
    predicted_load,
)
from core.search.enumeration import score_key
from core.search.polish import MoveTargets, improve
from core.simulator.capacity import Evaluator

CPU_PCT_PER_CORE = 100.0  # Storm counts CPU in percent of one core
MB_PER_GB = 1024.0
REPORT_NODES = 10  # nodes listed by name in a "did not fit" report
REPORT_GROWN = 3  # earlier topologies given more than they declared, named in that report
# Why a scheduler gives a topology more executors or workers than it declared (explain_unfit)
GROWS: dict[str, str] = {
    "hetero": (
        "hetero picks each topology's parallelism as Nasiri et al.'s algorithm does: it adds "
        "instances of the bottleneck component until the nodes it is given are full, one "
        "worker on every node (declared workers are not used), so on a shared cluster the "
        "first topologies in Storm's order take what the later ones need; this is the "
        "paper's algorithm (docs/schedulers.md, hetero), not a shortage of the cluster"
    ),
    "": "Their scheduler picks the parallelism itself, and the workers.",
}
NOT_RUN = "not-run"  # a scheduler bounded out of a topology too large for it

SEQUENTIAL, ONLINE, TOSS, RAS, JOINT = "sequential", "online", "toss", "ras", "joint"
ORDER_TEXT = "in Storm's order (priority ascending, then name)"
RESIDUAL_TEXT = "on the capacity the earlier ones left (slots taken, declared CPU and memory used)"
SET_TREATMENT: dict[str, tuple[str, str]] = {
    **{
        sid: (SEQUENTIAL, f"one topology at a time {ORDER_TEXT}, {RESIDUAL_TEXT}")
        for sid in ("even", "rstorm", "aniello-offline", "top-storm", "lf")
    },
    "hetero": (
        SEQUENTIAL,
        f"one topology at a time {ORDER_TEXT}, {RESIDUAL_TEXT}; it picks each topology's "
        "parallelism and fills the nodes it is given, one worker on each (Nasiri et al.'s "
        "algorithm), so the first topologies may take the cluster: a later one's report "
        "names them",
    ),
    "aniello-online": (
        ONLINE,
        f"re-places every topology from its own observed traffic, {ORDER_TEXT}, {RESIDUAL_TEXT}",
    ),
    "toss": (
        TOSS,
        "Alg. 1 partitions every topology into its groups, Alg. 2 gives all groups of the "
        "set to the least loaded node of one queue",
    ),
    **{
        sid: (
            RAS,
            "Storm's schedule_cluster: its own order and resource accounting; each topology "
            "with its own strategy where its scheduler_params.ras.strategy gives one (Storm's "
            "topology.scheduler.strategy, as Nimbus and TestLargeCluster; the storm-large "
            f"presets carry the corpus's), {sid} elsewhere; force=true forces {sid} on all; "
            "rounds=submission: a Nimbus round after each topology is submitted (list "
            "order), so a more important one evicts running less important ones",
        )
        for sid in ("ras-default", "ras-generic", "ras-round-robin", "ras-constraint")
    },
    **{
        sid: (
            JOINT,
            "a joint search of the set while its executors x nodes stay within 100,000: the "
            "search run once on the set's union (every topology on the whole cluster), its "
            "placement made to keep one topology per worker and each topology within its "
            "declared workers, against the placement of the searches run topology by "
            "topology; the better by the set's model score (R*, then latency, then nodes, "
            "most topologies placed first), improved by a local search that keeps those "
            "rules; a topology is placed whole or not at all. Over the bound (the "
            f"storm-large presets) or with a parameter that picks parallelism: each topology "
            f"searched {ORDER_TEXT}, {RESIDUAL_TEXT}, offered the nodes with most free CPU, "
            "100,000 // executors of them and at most its workers (not run only when its "
            "workers alone need more), and the result says why",
        )
        for sid in ("optimal", "slotscope")
    },
}
# Largest sub-problem (executors x nodes) a scheduler is run on inside a set: the
# searches score many placements of the whole topology per step, so each is offered
# bound // executors nodes (_candidates). Others: no bound (their memory grows with
# executors + nodes; bench/bench_topology_set.py measures).
SIZE_BOUNDS: dict[str, int] = {"optimal": 100_000, "slotscope": 100_000}
SHARED_LIMIT = "time_limit"  # a search's wall-clock limit is the set's, shared by executors
SEARCH_FLOOR_S = 1.0  # a topology's share of a set's time_limit starts from up to this, s
# A joint search's time_limit: this share for the search on the set's union, this for the
# searches topology by topology (its start), the rest for the local search of the set.
UNION_SHARE, START_SHARE = 0.4, 0.4
PICKS_PARALLELISM = ("search_parallelism", "choose_parallelism")  # no joint search with these


def treatment(scheduler_id: str) -> tuple[str, str]:
    """(kind, one sentence) of how a scheduler treats a topology set."""
    return SET_TREATMENT.get(
        scheduler_id, (SEQUENTIAL, f"one topology at a time {ORDER_TEXT}, {RESIDUAL_TEXT}")
    )


@dataclass(frozen=True)
class TopologyOutcome:
    """One topology's result inside a set."""

    topology: str
    priority: int
    status: str  # a Status value, or NOT_RUN
    executors: int
    assignments: tuple[Assignment, ...]  # executor ids as the set names them
    message: str = ""
    decisions: tuple[str, ...] = ()
    elapsed_ms: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == Status.OK.value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "topology": self.topology,
            "priority": self.priority,
            "status": self.status,
            "executors": self.executors,
            "placed": len(self.assignments),
            "workers": len({(a.node, a.slot) for a in self.assignments}),
            "nodes": len({a.node for a in self.assignments}),
            "elapsed_ms": self.elapsed_ms,
            "message": self.message,
            "decisions": list(self.decisions),
            "assignments": [[a.executor, a.node, a.slot] for a in self.assignments],
        }


@dataclass(frozen=True)
class SetSchedule:
    """One scheduler on a topology set: per-topology outcomes and the combined placement."""

    scheduler: str
    treatment: str
    order: tuple[str, ...]
    outcomes: Mapping[str, TopologyOutcome]
    elapsed_ms: float
    notes: tuple[str, ...] = field(default=())

    @property
    def assignments(self) -> tuple[Assignment, ...]:
        """The cluster's combined placement (every placed topology)."""
        return tuple(a for name in self.order for a in self.outcomes[name].assignments)

    @property
    def scheduled(self) -> list[str]:
        """Topologies fully placed, in scheduling order."""
        return [name for name in self.order if self.outcomes[name].ok]

    def to_dict(self, with_assignments: bool = True) -> dict[str, Any]:
        """JSON-ready form."""
        topologies = []
        for name in self.order:
            doc = self.outcomes[name].to_dict()
            if not with_assignments:
                doc.pop("assignments")
            topologies.append(doc)
        return {
            "scheduler": self.scheduler,
            "treatment": self.treatment,
            "order": list(self.order),
            "scheduled": len(self.scheduled),
            "topologies": topologies,
            "elapsed_ms": self.elapsed_ms,
            "notes": list(self.notes),
        }


def executor_requests(topology: Topology) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Executor ids with their declared CPU (%) and memory (MB, on-heap + off-heap, as
    Storm's ``getTotalMemoryMb``): components, then ackers (their own request)."""
    ids, cpu, mem = [], [], []
    requests = component_requests(topology)
    for c in topology.components:
        ids += [f"{c.id}#{i}" for i in range(c.parallelism)]
        cpu += [requests[c.id][0]] * c.parallelism
        mem += [requests[c.id][1]] * c.parallelism
    ids += [f"{ACKER_ID}#{i}" for i in range(topology.ackers)]
    cpu += [requests[ACKER_ID][0]] * topology.ackers
    mem += [requests[ACKER_ID][1]] * topology.ackers
    return ids, np.asarray(cpu, dtype=float), np.asarray(mem, dtype=float)


def component_requests(topology: Topology) -> dict[str, tuple[float, float]]:
    """Component id (and ``__acker``) -> declared (CPU %, on-heap + off-heap MB) of one
    executor."""
    out = {c.id: (c.cpu_pct, c.memory_mb + c.offheap_mb) for c in topology.components}
    out[ACKER_ID] = (
        topology.acker_cpu_pct,
        topology.acker_memory_mb + topology.acker_offheap_mb,
    )
    return out


class Residual:
    """What is left of a cluster: free ports, CPU (%) and memory (MB) per node."""

    def __init__(self, nodes: Sequence[Node]):
        self.nodes = list(nodes)
        self.index = {n.id: i for i, n in enumerate(self.nodes)}
        self.free_ports = [list(range(n.slots)) for n in self.nodes]
        self.cpu = np.array([total_cores(n) * CPU_PCT_PER_CORE for n in self.nodes], dtype=float)
        self.mem = np.array([n.ram_gb * MB_PER_GB for n in self.nodes], dtype=float)
        self.grown: list[str] = []  # earlier topologies given more than they declared

    def free_slots(self) -> np.ndarray:
        """Free slots per node; a node without a whole core or any memory left offers none."""
        slots = np.array([len(p) for p in self.free_ports])
        return np.where((self.cpu >= CPU_PCT_PER_CORE) & (self.mem > 0), slots, 0)

    def cluster(self, only: np.ndarray | None = None) -> Cluster:
        """The residual as scenario nodes: free slots (renumbered 0..k-1), whole free cores
        (the used share rounded up), free memory; ``only``: these node indices alone."""
        slots = self.free_slots()
        nodes = []
        for i in range(len(self.nodes)) if only is None else (int(x) for x in only):
            n = self.nodes[i]
            cores = max(1, int(self.cpu[i] // CPU_PCT_PER_CORE) // n.sockets)
            ram_gb = max(float(self.mem[i]) / MB_PER_GB, 1e-6)
            nodes.append(
                n.model_copy(update={"slots": int(slots[i]), "cores": cores, "ram_gb": ram_gb})
            )
        return Cluster.model_construct(nodes=nodes)

    def take(self, node: str, slot: int) -> int:
        """The port of a residual node's slot index (0..k-1 over its free ports)."""
        return self.free_ports[self.index[node]][slot]

    def commit(self, placed: Sequence[tuple[str, int, float, float]]) -> None:
        """Subtract (node, port, cpu %, MB) of a placed topology's executors."""
        used: dict[int, set[int]] = {}
        for node, port, cpu, mem in placed:
            i = self.index[node]
            self.cpu[i] -= cpu
            self.mem[i] -= mem
            used.setdefault(i, set()).add(port)
        for i, ports in used.items():
            self.free_ports[i] = [p for p in self.free_ports[i] if p not in ports]


def explain_unfit(topology: Topology, residual: Residual, reason: str, scheduler: str = "") -> str:
    """What ``topology`` needed and what was free, node by node, in words
    (:func:`core.ras.schedule.explain_unfit`'s style, on scenario nodes)."""
    _ids, cpu, mem = executor_requests(topology)
    big = int(np.argmax(cpu + mem / MB_PER_GB)) if cpu.size else 0
    slots = residual.free_slots()
    free_cpu, free_mem = np.maximum(residual.cpu, 0.0), np.maximum(residual.mem, 0.0)
    fits = (free_cpu >= cpu[big]) & (free_mem >= mem[big]) & (slots > 0)
    over = int(((residual.cpu < 0) | (residual.mem < 0)).sum())
    by = f" under {scheduler}" if scheduler else ""
    lines = [
        f"{topology.name} did not fit{by}: {reason}",
        f"It needs {cpu.size} executors: {cpu.sum():,.0f} % CPU and {mem.sum():,.0f} MB in all "
        f"(declared), {topology.workers or 'any number of'} workers; its largest executor "
        f"needs {cpu[big]:g} % CPU and {mem[big]:g} MB.",
        f"Free at its turn: {free_cpu.sum():,.0f} % CPU, {free_mem.sum():,.0f} MB and "
        f"{int(slots.sum())} slots on {len(residual.nodes)} nodes; {int(fits.sum())} nodes "
        f"could take its largest executor.",
    ]
    if over:
        lines.append(
            f"{over} nodes are over-committed (the earlier topologies' declared CPU or memory "
            "exceeds them: their scheduler does not weigh declared resources)."
        )
    if residual.grown:
        named = "; ".join(residual.grown[:REPORT_GROWN])
        more = len(residual.grown) - REPORT_GROWN
        lines.append(
            f"Earlier topologies were given more than they declared: {named}"
            + (f"; and {more} more" if more > 0 else "")
            + f". {GROWS.get(scheduler, GROWS[''])}"
        )
    order = np.lexsort((-free_cpu, -free_mem))[:REPORT_NODES]
    for i in order:
        n = residual.nodes[i]
        lines.append(
            f"  {n.id} ({n.rack}): {free_cpu[i]:g} % CPU, {free_mem[i]:g} MB, "
            f"{int(slots[i])} free slots"
        )
    if len(residual.nodes) > REPORT_NODES:
        lines.append(
            f"  ... and {len(residual.nodes) - REPORT_NODES} more nodes with less free memory"
        )
    return "\n".join(lines)


def storm_order(topologies: Sequence[Topology]) -> list[Topology]:
    """Storm's scheduling order (core/ras/schedule.py ``storm_order``): priority, name."""
    return sorted(topologies, key=lambda t: (t.priority, t.name))


def one_topology(scenario: Scenario, topology: Topology, cluster: Cluster) -> Scenario:
    """One topology of the set alone on (what is left of) the cluster; references by
    qualified id (``topology/component``) become the topology's own ids."""
    prefix = qualified(topology.name, "")
    own = {c.id for c in topology.components} | {ACKER_ID}
    per_type = {
        cid.removeprefix(prefix): prof
        for cid, prof in scenario.profiling.per_type.items()
        if cid.removeprefix(prefix) in own
    }
    observations = scenario.observations
    if observations is not None and scenario.is_set:

        def mine(executor: str) -> bool:
            return executor.startswith(prefix)

        observations = observations.model_copy(
            update={
                "traffic": [
                    f.model_copy(
                        update={
                            "source": f.source.removeprefix(prefix),
                            "target": f.target.removeprefix(prefix),
                        }
                    )
                    for f in observations.traffic
                    if mine(f.source) and mine(f.target)
                ],
                "executor_load_hz": {
                    e.removeprefix(prefix): hz
                    for e, hz in observations.executor_load_hz.items()
                    if mine(e)
                },
            }
        )
    return scenario.model_copy(
        update={
            "name": topology.name,
            "topology": topology,
            "topologies": None,
            "cluster": cluster,
            "profiling": scenario.profiling.model_copy(update={"per_type": per_type}),
            "observations": observations,
        }
    )


def _candidates(
    scheduler: str, topology: Topology, residual: Residual
) -> tuple[np.ndarray | None, str]:
    """(node indices ``scheduler`` is offered for ``topology``, why it is not run).

    Unbounded schedulers get every node (None). A search gets the nodes with a free slot,
    most free CPU first (then memory), as many as its bound allows for the topology's
    executors (``bound // executors``) and no more than its ``workers`` (W workers use at
    most W nodes), but at least as many as its workers need slots; when those are over
    the bound it is not run. Its sub-problem, executors x nodes, thus stays within the
    bound whatever the cluster's size.
    """
    bound = SIZE_BOUNDS.get(scheduler)
    if bound is None:
        return None, ""
    free = residual.free_slots()
    usable = np.flatnonzero(free > 0)
    order = usable[np.lexsort((usable, -residual.mem[usable], -residual.cpu[usable]))]
    executors = _executors(topology)
    workers = topology.workers or 1
    need = int(np.searchsorted(np.cumsum(free[order]), workers) + 1)
    if need > order.size:
        return None, ""  # not enough slots anywhere: the search says so on all nodes left
    if executors * need > bound:
        return None, (
            f"{scheduler} was not run on {topology.name}: its {executors:,} executors on the "
            f"{need} nodes its {workers} workers need are {executors * need:,} executor-node "
            f"pairs, over its bound of {bound:,} inside a topology set (its search would not "
            "finish in memory and time that grow with executors plus nodes)"
        )
    offered = min(order.size, bound // executors)
    if topology.workers is not None:  # W workers use at most W nodes: the W freest suffice
        offered = min(offered, topology.workers)
    return np.sort(order[: max(need, offered)]), ""


def _narrowed(nodes: int, topology: Topology) -> str:
    return (
        f"searched on the {nodes} nodes with most free CPU (then memory): as many as its "
        f"{topology.workers or 'any number of'} workers may use, and its "
        f"{_executors(topology):,} executors x {nodes} nodes stay within the bound inside a "
        "topology set"
    )


def _own_ids(scenario: Scenario, topology: Topology, executor: str) -> str:
    return qualified(topology.name, executor) if scenario.is_set else executor


def _params(spec_id: str, topology: Topology, params: Mapping[str, Any] | None) -> dict:
    return {**(params or {}), **topology.scheduler_params.get(spec_id, {})}


def _executors(topology: Topology) -> int:
    return sum(c.parallelism for c in topology.components) + topology.ackers


def _share_limit(spec_id: str, params: dict, topology: Topology, scenario: Scenario) -> dict:
    """A search's ``time_limit`` is the whole set's: each topology gets a floor (up to
    :data:`SEARCH_FLOOR_S`, at most half the limit over the set) plus the share of its
    executors of the rest, so the shares add up to the limit and a small topology is
    not starved (CP-SAT's model building alone takes a tenth of a second); at least the
    parameter's minimum; its own ``scheduler_params`` win."""
    spec = get_scheduler(spec_id)
    limit = next((p for p in spec.params if p.name == SHARED_LIMIT), None)
    if limit is None or SHARED_LIMIT in topology.scheduler_params.get(spec_id, {}):
        return params
    topologies = scenario.topology_set
    total = sum(_executors(t) for t in topologies)
    whole = float(limit.parse(params.get(SHARED_LIMIT, limit.default)))
    floor = min(SEARCH_FLOOR_S, whole / (2 * len(topologies)))
    share = floor + (whole - floor * len(topologies)) * _executors(topology) / total
    return {**params, SHARED_LIMIT: max(share, limit.minimum or 0.0)}


def schedule_in_turn(
    scenario: Scenario, scheduler: str, params: Mapping[str, Any] | None, rate: float | None
) -> tuple[list[str], dict[str, TopologyOutcome]]:
    """Every topology one after another, in Storm's order, on the capacity the earlier
    ones left (``sequential`` in this module's docstring): (order, outcomes by name).
    The searches' fallback and their joint search's start; ``rate`` feeds schedulers
    that reschedule a running placement (None: not fed)."""
    spec = get_scheduler(scheduler)
    residual = Residual(scenario.cluster.nodes)
    order = storm_order(scenario.topology_set)
    outcomes: dict[str, TopologyOutcome] = {}
    for topo in order:
        start = time.perf_counter()
        ids, cpu, mem = executor_requests(topo)
        request = dict(zip(ids, zip(cpu, mem, strict=True), strict=True))
        only, skipped = _candidates(scheduler, topo, residual)
        with_room = int((residual.free_slots() > 0).sum())
        if skipped:
            outcomes[topo.name] = TopologyOutcome(
                topo.name, topo.priority, NOT_RUN, len(ids), (), skipped
            )
            continue
        if int(residual.free_slots().sum()) == 0:
            ports = sum(len(p) for p in residual.free_ports)
            reason = (
                f"no free slot is left on the cluster ({ports:,} ports are unused, on nodes "
                "whose CPU or memory the earlier topologies' declared requests use up)."
                if ports
                else "no free slot is left on the cluster."
            )
            outcomes[topo.name] = TopologyOutcome(
                topo.name,
                topo.priority,
                Status.NOT_ENOUGH_RESOURCES.value,
                len(ids),
                (),
                explain_unfit(topo, residual, reason, scheduler),
            )
            continue
        sub = one_topology(scenario, topo, residual.cluster(only))
        if rate is not None:
            sub = feed(sub, spec, rate)
        own = _share_limit(scheduler, _params(scheduler, topo, params), topo, scenario)
        schedule = run_spec(spec, sub, own)
        outcome = _placed(scenario, topo, schedule, residual, request, start)
        if only is not None and only.size < with_room:
            outcome = replace(outcome, decisions=(_narrowed(only.size, topo), *outcome.decisions))
        outcomes[topo.name] = outcome
    return [t.name for t in order], outcomes


def _placed(
    scenario: Scenario,
    topo: Topology,
    schedule: Schedule,
    residual: Residual,
    request: Mapping[str, tuple[float, float]],
    start: float,
) -> TopologyOutcome:
    """A sub-scenario's schedule as a set outcome; its capacity taken from the residual."""
    executors = sum(schedule.parallelism.values()) if schedule.parallelism else len(request)
    executors += topo.ackers if schedule.parallelism and ACKER_ID not in schedule.parallelism else 0
    complete = schedule.ok and len(schedule.assignments) >= executors
    if not complete:
        reason = (
            schedule.message.splitlines()[0]
            if schedule.message
            else "not every executor was placed."
        )
        return TopologyOutcome(
            topo.name,
            topo.priority,
            schedule.status.value if not schedule.ok else Status.NOT_ENOUGH_RESOURCES.value,
            executors,
            (),
            explain_unfit(topo, residual, reason, schedule.scheduler),
            schedule.decisions,
            (time.perf_counter() - start) * 1000.0,
        )
    comp_req = component_requests(topo)
    placed, used = [], []
    for a in schedule.assignments:
        port = residual.take(a.node, a.slot)
        cpu, mem = request.get(a.executor) or comp_req[a.component]
        used.append((a.node, port, cpu, mem))
        placed.append(assignment(_own_ids(scenario, topo, a.executor), a.node, port))
    residual.commit(used)
    grown = _grown(topo, placed)
    if grown:
        residual.grown.append(grown)
    return TopologyOutcome(
        topo.name,
        topo.priority,
        Status.OK.value,
        executors,
        tuple(placed),
        schedule.message,
        (f"given {grown}", *schedule.decisions) if grown else schedule.decisions,
        (time.perf_counter() - start) * 1000.0,
    )


def _grown(topo: Topology, placed: Sequence[Assignment]) -> str:
    """ "name: E executors in W workers on N nodes (declared ...)" when a topology was given
    more executors or workers than it declared; "" otherwise."""
    declared = _executors(topo)
    workers = len({(a.node, a.slot) for a in placed})
    if len(placed) <= declared and (topo.workers is None or workers <= topo.workers):
        return ""
    nodes = len({a.node for a in placed})
    asked = (
        "any number of workers"
        if topo.workers is None
        else f"{topo.workers:,} worker{'s' if topo.workers > 1 else ''}"
    )
    return (
        f"{topo.name} {len(placed):,} executors in {workers:,} workers on {nodes:,} nodes "
        f"(declared {declared:,} executors, {asked})"
    )


def _ras(
    scenario: Scenario, scheduler: str, params: Mapping[str, Any] | None
) -> tuple[list[str], dict[str, TopologyOutcome]]:
    """Storm's schedule_cluster, each topology with its own strategy unless forced."""
    cluster, topologies = from_scenario(scenario)
    resolved = resolve_params(get_scheduler(scheduler), params)
    force, rounds = bool(resolved[FORCE.name]), check_rounds(resolved[ROUNDS.name])
    chosen = {
        t.name: strategy_for(t, scheduler, force, f"topologies[{i}]")
        for i, t in enumerate(scenario.topology_set)
    }
    for topo in topologies:
        topo.strategy_class = STORM_CLASSES[chosen[topo.name]]
    run = schedule_rounds if rounds == PER_SUBMISSION else schedule_cluster
    result = run(cluster, topologies, TOPOLOGY_OWN)
    by_name = {t.name: t for t in scenario.topology_set}
    outcomes: dict[str, TopologyOutcome] = {}
    for topo in topologies:
        res = result.results[topo.name]
        own = by_name[topo.name]
        if not res.success:
            outcomes[topo.name] = TopologyOutcome(
                topo.name,
                own.priority,
                Status.NOT_ENOUGH_RESOURCES.value,
                topo.executors,
                (),
                result.reports.get(topo.name, res.message),
                (f"{chosen[topo.name]}{_own_note(chosen[topo.name], scheduler)}",),
            )
            continue
        placed = []
        for executor, (node, port) in sorted(cluster.assignments[topo.name].items()):
            comp = topo.all_components[int(topo.exec_comp[executor])]
            index = executor - int(topo.comp_first_exec[topo.comp_index[comp.id]])
            name = _own_ids(scenario, own, f"{comp.id}#{index}")
            placed.append(assignment(name, cluster.node_ids[node], port))
        evictions: tuple[str, ...] = ()
        if topo.name in result.evicted:
            gone = ", ".join(sorted(result.evicted[topo.name]))
            evictions += (f"evicted {gone} to make room (Storm's eviction by priority)",)
        if topo.name in result.evicted_by:
            evictions += (f"evicted for {result.evicted_by[topo.name]}, then scheduled again",)
        outcomes[topo.name] = TopologyOutcome(
            topo.name,
            own.priority,
            Status.OK.value,
            topo.executors,
            tuple(placed),
            decisions=(
                f"{chosen[topo.name]}{_own_note(chosen[topo.name], scheduler)}: {res.message} "
                f"({res.states} states traversed)",
                *evictions,
            ),
        )
    return result.order, outcomes


def _own_note(used: str, scheduler: str) -> str:
    return "" if used == scheduler else f" (its own strategy, over {scheduler})"


def _toss(
    scenario: Scenario, params: Mapping[str, Any] | None
) -> tuple[list[str], dict[str, TopologyOutcome]]:
    """TOSS's Alg. 1 over the set (each topology's groups), then Alg. 2 once for all."""
    spec = get_scheduler("toss")
    nodes = [n for n in scenario.cluster.nodes if n.slots > 0]
    free = {n.id: list(range(n.slots)) for n in nodes}
    by_id = {n.id: n for n in nodes}
    background = scenario.observations.node_cpu_util if scenario.observations else {}
    heap = [(background.get(n.id, 0.0), -computation_power(n), n.id) for n in nodes]
    heapq.heapify(heap)
    order = list(scenario.topology_set)  # Alg. 1 line 4: for topology w_i in the set
    groups: list[tuple[Topology, Problem, list[str]]] = []
    outcomes: dict[str, TopologyOutcome] = {}
    rates: dict[str, Any] = {}
    for topo in order:
        resolved = resolve_params(spec, _params("toss", topo, params))
        problem = problem_of(one_topology(scenario, topo, scenario.cluster))
        graph = problem.graph
        workers = topo.workers or len(nodes)
        alphas = check_alphas(resolved.get("alphas") or []) or [1.0 / workers] * workers
        rates[topo.name] = expected_rates(graph, 1.0)
        groups += [
            (topo, problem, members)
            for members, _chains in partition(graph, group_sizes(graph.executor_count, alphas))
            if members
        ]
    placed: dict[str, list[Assignment]] = {t.name: [] for t in order}
    short: dict[str, int] = {}
    for topo, problem, members in groups:  # Alg. 2: pop the least loaded node per group
        if not heap:
            short[topo.name] = short.get(topo.name, 0) + 1
            continue
        key, neg_power, node_id = heapq.heappop(heap)
        slot = free[node_id].pop(0)
        unit = predicted_load(
            members, by_id[node_id], problem.scenario, problem.graph, rates[topo.name]
        )
        if free[node_id]:
            heapq.heappush(heap, (key + scenario.workload.rate * unit, neg_power, node_id))
        placed[topo.name] += [
            assignment(_own_ids(scenario, topo, ex), node_id, slot) for ex in members
        ]
    residual = Residual(scenario.cluster.nodes)
    for topo in order:
        executors = _executors(topo)
        if topo.name in short:
            reason = f"{short[topo.name]} of its groups found no free slot left."
            outcomes[topo.name] = TopologyOutcome(
                topo.name,
                topo.priority,
                Status.NOT_ENOUGH_RESOURCES.value,
                executors,
                (),
                explain_unfit(topo, residual, reason, "toss"),
            )
            continue
        outcomes[topo.name] = TopologyOutcome(
            topo.name, topo.priority, Status.OK.value, executors, tuple(placed[topo.name])
        )
    return [t.name for t in order], outcomes


@dataclass(frozen=True)
class SetIds:
    """How the executors of a set's union belong to its topologies: every id is the set's
    (``topology/component#i``) but the ackers, the union's one ``__acker`` component
    (``__acker#k``, k counted over the topologies in the order given, as
    ``dashboard/set_placement.union_assignments`` renumbers them)."""

    to_union: dict[str, str]  # set id -> union id
    to_set: dict[str, str]  # union id -> set id
    owner: dict[str, int]  # union id -> index of its topology in the order given


def set_ids(order: Sequence[Topology]) -> SetIds:
    """:class:`SetIds` of ``order`` (Storm's order in :func:`schedule_set`)."""
    to_union: dict[str, str] = {}
    owner: dict[str, int] = {}
    ackers = 0
    for i, topo in enumerate(order):
        for executor in executor_requests(topo)[0]:
            own = qualified(topo.name, executor)
            union = own
            if executor.startswith(f"{ACKER_ID}#"):
                union, ackers = f"{ACKER_ID}#{ackers}", ackers + 1
            to_union[own] = union
            owner[union] = i
    return SetIds(to_union, {u: own for own, u in to_union.items()}, owner)


def union_scenario(scenario: Scenario, subset: Sequence[Topology]) -> Scenario:
    """The set's union of ``subset`` alone (the scenario itself when it is the whole set):
    one topology, ids qualified, for the model to score a placement of those topologies."""
    if {t.name for t in subset} == {t.name for t in scenario.topology_set}:
        return scenario
    return scenario.model_copy(update={"topologies": None, "topology": union_of(list(subset))})


def kept_to_the_set(
    ev: Evaluator, slots: np.ndarray, owner: np.ndarray, workers: Sequence[int]
) -> tuple[np.ndarray | None, int]:
    """A union placement made to respect the set: (placement or None, executors moved).

    A worker holds one topology's executors, as in Storm: where several share a slot,
    the topology with most executors there keeps it and each other one moves to a free
    slot of the same node (else the cluster's first free slot; None when none is left).
    Then a topology over its declared ``workers`` has its smallest worker (the first of
    equals) merged into its largest one on the same node (else its largest overall),
    until it is within them.

    >>> import numpy as np
    >>> from core.model import validate_scenario
    >>> sc = validate_scenario({"topology": {"components": [{"id": "s", "parallelism": 3}]},
    ...     "cluster": {"nodes": [{"id": "n", "cores": 2, "ghz": 2, "slots": 4}]}})
    >>> fixed, moved = kept_to_the_set(Evaluator(sc), np.array([0, 0, 1]), np.array([0, 1, 0]),
    ...     [1, 1])
    >>> fixed.tolist(), moved  # s#1 leaves topology 0's slot, then its 2 workers merge
    ([1, 2, 1], 2)
    """
    slots = np.asarray(slots, dtype=np.int64).copy()
    node_of, start = ev.nodes.slot_node, ev.nodes.slot_start
    taken = np.zeros(int(ev.nodes.slots), dtype=bool)
    taken[slots] = True
    moved = 0
    for g in np.unique(slots).tolist():
        here = np.flatnonzero(slots == g)
        tops, counts = np.unique(owner[here], return_counts=True)
        for t in tops[tops != tops[np.argmax(counts)]].tolist():
            n = int(node_of[g])
            free = np.flatnonzero(~taken[start[n] : start[n + 1]]) + start[n]
            free = free if free.size else np.flatnonzero(~taken)
            if not free.size:
                return None, moved
            mine = here[owner[here] == t]
            slots[mine] = int(free[0])
            taken[int(free[0])] = True
            moved += mine.size
    for t, allowed in enumerate(workers):
        mine = np.flatnonzero(owner == t)
        used, counts = np.unique(slots[mine], return_counts=True)
        while used.size > allowed:
            small = int(np.argmin(counts))
            rest = np.flatnonzero(np.arange(used.size) != small)
            near = rest[node_of[used[rest]] == node_of[used[small]]]
            pool = near if near.size else rest
            into = int(pool[np.argmax(counts[pool])])
            movers = mine[slots[mine] == used[small]]
            slots[movers] = used[into]
            moved += movers.size
            used, counts = np.unique(slots[mine], return_counts=True)
    return slots, moved


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def set_targets(ev: Evaluator, owner: np.ndarray, workers: Sequence[int]) -> MoveTargets:
    """Where an executor of a set may move (:data:`core.search.polish.MoveTargets`): to a
    worker of its own topology, or to a free slot (the first of each node) while its
    topology is under its declared ``workers`` or it leaves a worker of its own."""
    node_of = ev.nodes.slot_node

    def of(best: np.ndarray) -> Callable[[int], list[int]]:
        slot_owner = np.full(int(ev.nodes.slots), -1, dtype=np.int64)
        slot_owner[best] = owner
        free = np.flatnonzero(slot_owner < 0)
        fresh = free[np.unique(node_of[free], return_index=True)[1]].tolist()
        own_slots = [np.unique(best[owner == t]) for t in range(len(workers))]

        def targets(e: int) -> list[int]:
            t, home = int(owner[e]), int(best[e])
            out = own_slots[t].tolist()
            if own_slots[t].size < workers[t] or np.count_nonzero(best == home) == 1:
                out += fresh
            return out

        return targets

    return of


def improve_in_set(
    ev: Evaluator, slots: np.ndarray, owner: np.ndarray, workers: Sequence[int], budget_s: float
) -> tuple[np.ndarray, int]:
    """:func:`core.search.polish.improve` keeping the set's rules (:func:`set_targets`): a
    move is kept when the loads, sorted from the largest down, fall lexicographically (R*
    never falls). Returns (placement, moves kept); ends at a local optimum or ``budget_s``
    seconds."""
    return improve(ev, slots, sum(workers), budget_s, set_targets(ev, owner, workers))


@dataclass(frozen=True)
class Candidate:
    """A placement of (some of) a set's topologies, scored on their union."""

    label: str
    names: tuple[str, ...]  # topologies placed (whole), in Storm's order
    ev: Evaluator
    owner: np.ndarray  # topology index (into ``names``) of every executor, ev order
    workers: tuple[int, ...]  # declared workers of each, in ``names`` order
    slots: np.ndarray
    ids: SetIds

    @property
    def key(self) -> tuple:
        """Best first: most topologies placed, then :func:`score_key` (R*, latency, nodes)."""
        return (-len(self.names), *score_key(self.ev.score(self.slots)))

    def with_slots(self, label: str, slots: np.ndarray) -> Candidate:
        return replace(self, label=label, slots=slots)


def _candidate(
    scenario: Scenario, label: str, subset: Sequence[Topology], placement: Mapping[str, Any]
) -> Candidate:
    """A candidate from a union placement (union id -> (node, slot)) of ``subset``."""
    ids = set_ids(subset)
    ev = Evaluator(union_scenario(scenario, subset))
    owner = np.array([ids.owner[e] for e in ev.executors], dtype=np.int64)
    every = len(scenario.cluster.nodes)
    workers = tuple(t.workers or every for t in subset)
    names = tuple(t.name for t in subset)
    return Candidate(label, names, ev, owner, workers, ev.encode(placement), ids)


def _joint_refused(scenario: Scenario, scheduler: str, resolved: Mapping[str, Any]) -> str:
    """Why a joint search of the set is not run ("" when it is)."""
    picks = [p for p in PICKS_PARALLELISM if resolved.get(p)]
    if picks:
        return (
            f"searched topology by topology: {picks[0]}=true picks each topology's "
            "parallelism, which a joint search of the set does not"
        )
    executors = sum(_executors(t) for t in scenario.topology_set)
    nodes = sum(1 for n in scenario.cluster.nodes if n.slots > 0)
    bound = SIZE_BOUNDS[scheduler]
    if executors * nodes > bound:
        return (
            f"searched topology by topology, not jointly: the set's {executors:,} executors "
            f"on {nodes:,} nodes are {executors * nodes:,} executor-node pairs, over "
            f"{scheduler}'s bound of {bound:,} for a joint search (its model would not fit "
            "in memory and time that grow with executors plus nodes)"
        )
    return ""


def _union_candidate(
    scenario: Scenario, spec_id: str, params: dict, order: Sequence[Topology]
) -> tuple[Candidate | None, str]:
    """The search on the set's union, kept to the set's rules: (candidate, what happened)."""
    try:
        schedule = run_spec(get_scheduler(spec_id), scenario, params)
    except SchedulerError as err:
        return None, f"the search on the union failed: {err}"
    if not schedule.ok:
        first = (schedule.message or schedule.status.value).splitlines()[0]
        return None, f"the search on the union found no placement ({first})"
    placement = {a.executor: (a.node, a.slot) for a in schedule.assignments}
    try:
        cand = _candidate(scenario, "union search", order, placement)
    except Exception as err:  # a placement of another parallelism: not this set's executors
        return None, f"the search on the union placed other executors ({err})"
    found = cand.ev.score(cand.slots).max_rate
    slots, moved = kept_to_the_set(cand.ev, cand.slots, cand.owner, cand.workers)
    if slots is None:
        return None, (
            f"the search on the union (R* {found:,.0f}/s) shares workers between topologies "
            "and no free slot is left to part them"
        )
    kept = cand.with_slots("union search", slots)
    text = f"the search on the union: R* {found:,.0f}/s"
    if moved:
        text += (
            f", {moved} executors moved to keep one topology per worker and each within "
            f"its workers: R* {kept.ev.score(slots).max_rate:,.0f}/s"
        )
    return kept, text


def _joint(
    scenario: Scenario, scheduler: str, params: Mapping[str, Any] | None, rate: float | None
) -> tuple[list[str], dict[str, TopologyOutcome], str]:
    """A joint search of the set (docstring of this module), or the per-topology searches
    with the reason: (order, outcomes, what was done)."""
    spec = get_scheduler(scheduler)
    resolved = resolve_params(spec, params)
    refused = _joint_refused(scenario, scheduler, resolved) if scenario.is_set else ""
    if refused or not scenario.is_set:
        order, outcomes = schedule_in_turn(scenario, scheduler, params, rate)
        return order, outcomes, refused or treatment(scheduler)[1]
    began = time.perf_counter()
    limit = float(resolved[SHARED_LIMIT])
    order = storm_order(scenario.topology_set)
    names, outcomes = schedule_in_turn(
        scenario, scheduler, {**(params or {}), SHARED_LIMIT: START_SHARE * limit}, rate
    )
    placed = [t for t in order if outcomes[t.name].ok]
    texts = [f"the searches topology by topology placed {len(placed)} of {len(order)}"]
    candidates: list[Candidate] = []
    if placed:
        ids = set_ids(placed)
        start = {
            ids.to_union[a.executor]: (a.node, a.slot)
            for t in placed
            for a in outcomes[t.name].assignments
        }
        candidates.append(_candidate(scenario, "topology-by-topology", placed, start))
        texts[0] += f" (R* {candidates[0].ev.score(candidates[0].slots).max_rate:,.0f}/s)"
    union_params = {**(params or {}), SHARED_LIMIT: max(UNION_SHARE * limit, 0.1)}
    union, union_text = _union_candidate(scenario, scheduler, union_params, order)
    texts.append(union_text)
    if union is not None:
        candidates.append(union)
    if not candidates:
        return names, outcomes, "; ".join(texts)
    best = min(candidates, key=lambda c: c.key)
    budget = max(limit - (time.perf_counter() - began), 0.0)
    slots, moves = improve_in_set(best.ev, best.slots, best.owner, best.workers, budget)
    improved = best.with_slots(f"{best.label} placement, improved", slots)
    final = min((best, improved), key=lambda c: c.key)
    score = final.ev.score(final.slots)
    texts.append(
        f"kept the {best.label} placement"
        + (f", improved by {moves} moves within the set's rules" if final is improved else "")
        + f": {len(final.names)} of {len(order)} topologies, R* {score.max_rate:,.0f}/s, "
        f"latency estimate {score.latency_estimate_ms:.3f} ms, {_count(score.nodes_used, 'node')}"
    )
    summary = (
        f"joint search of the set ({_count(sum(_executors(t) for t in order), 'executor')} on "
        f"{_count(len(scenario.cluster.nodes), 'node')}): " + "; ".join(texts)
    )
    placement = final.ev.decode(final.slots)
    for i, name in enumerate(final.names):
        mine = [
            assignment(final.ids.to_set[e], node, slot)
            for e, (node, slot) in placement.items()
            if final.ids.owner[e] == i
        ]
        was = outcomes[name]
        workers = len({(a.node, a.slot) for a in mine})
        line = (
            f"placed by {scheduler}'s joint search of the set: {workers} of its "
            f"{final.workers[i]} workers, on {len({a.node for a in mine})} nodes"
        )
        outcomes[name] = TopologyOutcome(
            name,
            was.priority,
            Status.OK.value,
            len(mine),
            tuple(mine),
            "",
            (line,),
            was.elapsed_ms,
        )
    return names, outcomes, summary


def schedule_set(
    scenario: Scenario | Problem,
    scheduler: str,
    params: Mapping[str, Any] | None = None,
    rate: float | None = None,
) -> SetSchedule:
    """Run one scheduler on every topology of a scenario's set.

    Parameters
    ----------
    scenario
        A validated scenario (a set, or one topology: a set of one) or its Problem.
    scheduler
        A registry id (``slotscope schedulers``).
    params
        Scheduler parameters for every topology; a topology's own
        ``scheduler_params[scheduler]`` override them.
    rate
        Offered rate, tuples/s per spout, at which schedulers with a
        ``running_placement`` (aniello-online) are fed observations; default: the
        scenario's ``workload.rate``.

    Raises
    ------
    SchedulerError
        An unknown scheduler or parameter.
    """
    if isinstance(scenario, Problem):
        scenario = scenario.scenario
    spec = get_scheduler(scheduler)
    resolve_params(spec, params)  # a bad parameter is said before any work
    kind, sentence = treatment(scheduler)
    start = time.perf_counter()
    if kind == RAS:
        order, outcomes = _ras(scenario, scheduler, params)
    elif kind == TOSS:
        order, outcomes = _toss(scenario, params)
    elif kind == JOINT:
        order, outcomes, sentence = _joint(scenario, scheduler, params, None)
    else:
        fed = scenario.workload.rate if rate is None else rate
        order, outcomes = schedule_in_turn(
            scenario, scheduler, params, fed if spec.running_placement else None
        )
    elapsed = (time.perf_counter() - start) * 1000.0
    if not outcomes:
        raise SchedulerError(f"{scheduler}: the scenario holds no topology")
    return SetSchedule(scheduler, sentence, tuple(order), outcomes, elapsed)

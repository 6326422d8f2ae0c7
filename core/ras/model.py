"""The cluster and topology model of Storm's resource-aware scheduler (RAS).

Units follow Storm: CPU in percent of one core (``supervisor.cpu.capacity``,
``topology.component.cpu.pcore.percent``), memory in MB (on-heap and off-heap, as
``NormalizedResourceRequest`` keeps them), generic resources (e.g. ``gpu.count``) by
name. A node offers CPU, total memory and generic resources
(``NormalizedResourceOffer``); a worker slot takes the sum of its executors' requests
plus the shared memory their components declare (``Cluster.calculateWorkerResources``);
a node's used resources are its workers' plus the topology's shared off-heap node
memory (``Cluster.getAllScheduledResourcesForNode``). Arrays are per node and per
executor only, so memory grows with executors + nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.ras.javaorder import worker_slot_order

ACKER_ID = "__acker"  # org.apache.storm.daemon.Acker.ACKER_COMPONENT_ID
DEFAULT_RACK = "/default-rack"  # DNSToSwitchMapping.DEFAULT_RACK
# Storm conf/defaults.yaml
DEFAULT_CPU_PCT = 10.0  # topology.component.cpu.pcore.percent
DEFAULT_ONHEAP_MB = 128.0  # topology.component.resources.onheap.memory.mb
DEFAULT_OFFHEAP_MB = 0.0  # topology.component.resources.offheap.memory.mb
DEFAULT_WORKER_MAX_HEAP_MB = 768.0  # topology.worker.max.heap.size.mb
DEFAULT_PRIORITY = 29  # topology.priority
DEFAULT_ACKERS_PER_WORKER = 1  # topology.ras.acker.executors.per.worker
DEFAULT_TOPO_MAX_STATE_SEARCH = 10_000  # topology.ras.constraint.max.state.search
DEFAULT_DAEMON_MAX_STATE_SEARCH = 100_000  # resource.aware.scheduler.constraint.max.state.search
DEFAULT_MAX_SCHEDULING_ATTEMPTS = 5  # resource.aware.scheduler.max.topology.scheduling.attempts
DEFAULT_MAX_TIME_SECS = 60  # scheduling.timeout.seconds.per.topology (DaemonConfig default)
# ResourceNameNormalizer: Config names and Constants.COMMON_* names of one resource
CPU_KEYS = ("topology.component.cpu.pcore.percent", "cpu.pcore.percent", "cpu")
ONHEAP_KEYS = ("topology.component.resources.onheap.memory.mb", "onheap.memory.mb", "onheap")
OFFHEAP_KEYS = ("topology.component.resources.offheap.memory.mb", "offheap.memory.mb", "offheap")


class RasError(ValueError):
    """Bad input to the RAS model; the message is one line naming the field."""


@dataclass(frozen=True)
class Request:
    """One executor's request (``NormalizedResourceRequest``): CPU %, MB, generic."""

    cpu: float = DEFAULT_CPU_PCT
    onheap: float = DEFAULT_ONHEAP_MB
    offheap: float = DEFAULT_OFFHEAP_MB
    generic: Mapping[str, float] = field(default_factory=dict)

    @property
    def memory(self) -> float:
        """On-heap + off-heap MB (``getTotalMemoryMb``)."""
        return self.onheap + self.offheap


@dataclass(frozen=True)
class RasComponent:
    """A spout or bolt: executors, per-executor request, upstream components."""

    id: str
    parallelism: int
    request: Request = Request()
    kind: str = "bolt"
    inputs: tuple[str, ...] = ()
    shared_memory: tuple[str, ...] = ()
    shuffle_inputs: tuple[str, ...] = ()  # upstream components feeding it by (local-or-)shuffle


def _num(conf: Mapping[str, Any], key: str, default: float | None) -> float | None:
    value = conf.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return float(value)


def request_from_conf(
    component_conf: Mapping[str, Any], topo_conf: Mapping[str, Any], component_id: str
) -> Request:
    """``NormalizedResourceRequest(ComponentCommon, topoConf, componentId)``.

    The component's json_conf wins (its ``topology.component.resources.map`` over its
    legacy keys), then the topology conf (acker keys for ``__acker``), then defaults.
    """
    values: dict[str, float] = {}
    topo_map = topo_conf.get("topology.component.resources.map") or {}
    values.update({k: float(v) for k, v in topo_map.items() if isinstance(v, int | float)})
    if component_id == ACKER_ID:
        for key, name in (
            ("topology.acker.resources.onheap.memory.mb", "onheap"),
            ("topology.acker.resources.offheap.memory.mb", "offheap"),
            ("topology.acker.cpu.pcore.percent", "cpu"),
        ):
            v = _num(topo_conf, key, None)
            if v is not None:
                values[name] = v
    legacy = (
        ("topology.component.cpu.pcore.percent", "cpu", DEFAULT_CPU_PCT),
        ("topology.component.resources.offheap.memory.mb", "offheap", DEFAULT_OFFHEAP_MB),
        ("topology.component.resources.onheap.memory.mb", "onheap", DEFAULT_ONHEAP_MB),
    )
    defaults = {name: _num(topo_conf, key, dflt) for key, name, dflt in legacy}
    own: dict[str, float] = {}
    for key, name, _ in legacy:
        v = _num(component_conf, key, None)
        if v is not None:
            own[name] = v
    comp_map = component_conf.get("topology.component.resources.map") or {}
    own.update({k: float(v) for k, v in comp_map.items() if isinstance(v, int | float)})
    merged = {**values, **own}
    cpu = onheap = offheap = None
    generic: dict[str, float] = {}
    for key, value in merged.items():
        if key in CPU_KEYS:
            cpu = value
        elif key in ONHEAP_KEYS:
            onheap = value
        elif key in OFFHEAP_KEYS:
            offheap = value
        elif key not in ("memory.mb",):
            generic[key] = value
    return Request(
        cpu if cpu is not None else float(defaults["cpu"] or 0.0),
        onheap if onheap is not None else float(defaults["onheap"] or 0.0),
        offheap if offheap is not None else float(defaults["offheap"] or 0.0),
        {k: v for k, v in generic.items() if v != 0.0},
    )


@dataclass
class RasTopology:
    """A topology as ``TopologyDetails`` presents it to a strategy.

    Executors are numbered component by component (spouts, then bolts, in the given
    order, as ``genExecsAndComps``), then ``ackers`` acker executors.
    """

    name: str
    components: Sequence[RasComponent]
    priority: int = DEFAULT_PRIORITY
    worker_max_heap_mb: float = DEFAULT_WORKER_MAX_HEAP_MB
    ackers: int = 0
    acker_request: Request = Request()
    ackers_per_worker: int = DEFAULT_ACKERS_PER_WORKER
    one_executor_per_worker: bool = False
    one_component_per_worker: bool = False
    max_state_search: int = DEFAULT_TOPO_MAX_STATE_SEARCH
    max_time_secs: float | None = None
    # name -> core.importers.stormser.SharedMemory (not imported: that module reads this
    # one's request_from_conf, so an import back would close a circle)
    shared_memory: Mapping[str, Any] = field(default_factory=dict)
    favored_hosts: Sequence[str] = ()
    unfavored_hosts: Sequence[str] = ()
    isolated_machines: int | None = None
    order_by_proximity: bool = False  # topology.ras.order.executors.by.proximity.needs
    incompatible: Mapping[str, frozenset[str]] = field(default_factory=dict)
    max_node_colocation: Mapping[str, int] = field(default_factory=dict)
    submitter: str = "user"  # topology.submitter.user (a user of the priority strategy)
    launch_time: float = 0.0  # TopologyDetails launchTime, s: earlier is older (longer up)
    strategy_class: str = "DefaultResourceAwareStrategy"  # topology.scheduler.strategy
    timeout_secs: float = DEFAULT_MAX_TIME_SECS  # scheduling.timeout.seconds.per.topology

    def __post_init__(self) -> None:
        ids = [c.id for c in self.components]
        if len(set(ids)) != len(ids):
            raise RasError(f"topology '{self.name}': duplicate component ids")
        for c in self.components:
            if c.parallelism < 0:
                raise RasError(f"topology '{self.name}': component '{c.id}' parallelism < 0")
        all_comps = list(self.components)
        if self.ackers > 0:
            all_comps.append(
                RasComponent(ACKER_ID, self.ackers, self.acker_request, "bolt", (), ())
            )
        self.all_components: list[RasComponent] = all_comps
        self.comp_index = {c.id: i for i, c in enumerate(all_comps)}
        counts = np.array([c.parallelism for c in all_comps], dtype=np.int64)
        self.exec_comp = np.repeat(np.arange(len(all_comps)), counts)
        self.comp_first_exec = np.concatenate([[0], np.cumsum(counts)])[:-1]
        self.comp_cpu = np.array([c.request.cpu for c in all_comps], dtype=float)
        self.comp_onheap = np.array([c.request.onheap for c in all_comps], dtype=float)
        self.comp_offheap = np.array([c.request.offheap for c in all_comps], dtype=float)
        self.acker_comp = self.comp_index.get(ACKER_ID, -1)
        self.has_node_shared = any(s.off_heap_node > 0 for s in self.shared_memory.values())
        self.has_shared = any(c.shared_memory for c in all_comps)

    @property
    def executors(self) -> int:
        """Executors of the topology, ackers included."""
        return int(self.exec_comp.size)

    def has_spouts(self) -> bool:
        """``TopologyDetails.hasSpouts``: a non-system spout exists."""
        return any(c.kind == "spout" and not c.id.startswith("__") for c in self.components)

    def request(self, comp: int) -> Request:
        """The request of every executor of component index ``comp``."""
        return self.all_components[comp].request


@dataclass(frozen=True)
class TopologyPlacement:
    """One topology's placement on a cluster: executor -> (node, slot), worker
    resources per (node, slot), shared off-heap node memory per node (MB)."""

    topology: str
    executors: Mapping[int, tuple[int, int]]
    workers: Mapping[tuple[int, int], np.ndarray]
    node_shared: Mapping[int, float]


@dataclass(frozen=True)
class Supervisor:
    """One supervisor (``SupervisorDetails``): id, host, rack, ports, capacity."""

    id: str
    host: str
    rack: str
    ports: tuple[int, ...]
    cpu: float
    memory: float
    generic: Mapping[str, float] = field(default_factory=dict)


class RasCluster:
    """Nodes with their capacity and what the scheduled topologies use of it.

    Parameters
    ----------
    supervisors
        The supervisors; ids must be unique.
    min_worker_cpu
        ``storm.worker.min.cpu.pcore.percent`` (default 0): a worker's CPU floor, %.
    daemon_max_state_search
        ``resource.aware.scheduler.constraint.max.state.search`` (Nimbus' limit).
    generic_names
        Generic resource names to index first (others follow as supervisors declare them).
    priority_strategy
        ``resource.aware.scheduler.priority.strategy``: "default"
        (``DefaultSchedulingPriorityStrategy``) or "fifo" (``FIFOSchedulingPriorityStrategy``).
    user_pools
        ``resource.aware.scheduler.user.pools``: user -> (guaranteed CPU %, guaranteed
        memory MB); a user not named has no guarantee.
    max_scheduling_attempts
        ``resource.aware.scheduler.max.topology.scheduling.attempts`` (Storm's default 5):
        rounds of eviction and retry for one topology.
    """

    def __init__(
        self,
        supervisors: Sequence[Supervisor],
        min_worker_cpu: float = 0.0,
        daemon_max_state_search: int = DEFAULT_DAEMON_MAX_STATE_SEARCH,
        generic_names: Sequence[str] = (),
        priority_strategy: str = "default",
        user_pools: Mapping[str, tuple[float, float]] | None = None,
        max_scheduling_attempts: int = DEFAULT_MAX_SCHEDULING_ATTEMPTS,
    ):
        ids = [s.id for s in supervisors]
        if len(set(ids)) != len(ids):
            raise RasError("cluster: duplicate supervisor ids")
        if not supervisors:
            raise RasError("cluster: no supervisors")
        self.supervisors = list(supervisors)
        self.node_ids = ids
        self.node_index = {s: i for i, s in enumerate(ids)}
        self.min_worker_cpu = float(min_worker_cpu)
        self.daemon_max_state_search = int(daemon_max_state_search)
        if priority_strategy not in ("default", "fifo"):
            raise RasError(f"priority_strategy: unknown '{priority_strategy}'")
        self.priority_strategy = priority_strategy
        self.user_pools = {u: (float(c), float(m)) for u, (c, m) in (user_pools or {}).items()}
        self.max_scheduling_attempts = int(max_scheduling_attempts)
        names = list(generic_names)
        for s in supervisors:
            for g in s.generic:
                if g not in names:
                    names.append(g)
        self.generic_names = names
        n, k = len(ids), len(names)
        self.total_cpu = np.array([s.cpu for s in supervisors], dtype=float)
        self.total_mem = np.array([s.memory for s in supervisors], dtype=float)
        self.total_gen = np.zeros((n, k))
        for i, s in enumerate(supervisors):
            for g, v in s.generic.items():
                self.total_gen[i, names.index(g)] = v
        self.used_cpu = np.zeros(n)
        self.used_mem = np.zeros(n)
        self.used_gen = np.zeros((n, k))
        hosts = sorted({s.host for s in supervisors})
        racks = sorted({s.rack for s in supervisors})
        self.host_names = hosts
        self.rack_names = racks
        hidx = {h: i for i, h in enumerate(hosts)}
        ridx = {r: i for i, r in enumerate(racks)}
        self.node_host = np.array([hidx[s.host] for s in supervisors], dtype=np.int64)
        self.node_rack = np.array([ridx[s.rack] for s in supervisors], dtype=np.int64)
        self.host_rack = np.zeros(len(hosts), dtype=np.int64)
        self.host_rack[self.node_host] = self.node_rack
        self.rack_nodes = [np.flatnonzero(self.node_rack == r) for r in range(len(racks))]
        # free resources summed per rack, recomputed for racks whose nodes changed
        self._rack_sums = np.zeros((len(racks), 2 + k))
        self._rack_dirty: set[int] = set(range(len(racks)))
        self.nslots = np.array([len(s.ports) for s in supervisors], dtype=np.int64)
        # slot order per node: Java HashSet<WorkerSlot> iteration order
        self.slot_order: list[list[int]] = [worker_slot_order(s.id, s.ports) for s in supervisors]
        # per-slot owner (topology name or None) and worker resources [cpu, on, off, gen...]
        self.slot_owner: list[list[str | None]] = [[None] * len(s.ports) for s in supervisors]
        self.worker_res: dict[tuple[int, int], np.ndarray] = {}
        self.node_shared_offheap: dict[tuple[str, int], float] = {}
        self.assignments: dict[str, dict[int, tuple[int, int]]] = {}
        self.topology_slots: dict[str, set[tuple[int, int]]] = {}

    @property
    def size(self) -> int:
        """Number of nodes."""
        return len(self.node_ids)

    def generic_vector(self, request: Request) -> np.ndarray:
        """A request's generic resources in the cluster's resource order."""
        vec = np.zeros(len(self.generic_names))
        for g, v in request.generic.items():
            if g in self.generic_names:
                vec[self.generic_names.index(g)] = v
            elif v > 0:
                return np.full(len(self.generic_names), np.inf)
        return vec

    def avail_cpu(self) -> np.ndarray:
        """Free CPU per node, % (clamped at 0 as ``NormalizedResourceOffer.remove``)."""
        return np.maximum(self.total_cpu - self.used_cpu, 0.0)

    def avail_mem(self) -> np.ndarray:
        """Free memory per node, MB."""
        return np.maximum(self.total_mem - self.used_mem, 0.0)

    def avail_gen(self) -> np.ndarray:
        """Free generic resources per node."""
        return np.maximum(self.total_gen - self.used_gen, 0.0)

    def free_slots(self, node: int) -> list[int]:
        """Slots of ``node`` not used by any topology, in Java's HashSet order."""
        owners = self.slot_owner[node]
        return [s for s in self.slot_order[node] if owners[s] is None]

    def free_slot_count(self) -> np.ndarray:
        """Free slots per node."""
        return np.array([sum(o is None for o in owners) for owners in self.slot_owner])

    def running_topologies(self, node: int) -> set[str]:
        """Topologies with a worker on ``node``."""
        return {o for o in self.slot_owner[node] if o is not None}

    def add_worker_usage(self, node: int, slot: int, topo: str, res: np.ndarray) -> None:
        """Set the resources of worker (node, slot) of ``topo`` (replacing its old ones)."""
        key = (node, slot)
        old = self.worker_res.get(key)
        if old is not None:
            self._sub(node, old)
        self.worker_res[key] = res
        self.slot_owner[node][slot] = topo
        self.topology_slots.setdefault(topo, set()).add(key)
        self._add(node, res)

    def free_worker(self, node: int, slot: int) -> None:
        """Free worker (node, slot) and its resources."""
        key = (node, slot)
        old = self.worker_res.pop(key, None)
        if old is not None:
            self._sub(node, old)
        topo = self.slot_owner[node][slot]
        self.slot_owner[node][slot] = None
        if topo is not None:
            self.topology_slots.get(topo, set()).discard(key)

    def rack_free(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Free CPU %, memory MB and generic resources summed over each rack's nodes.

        Each node's free amount is clamped at 0 first (``NormalizedResourceOffer.remove``),
        as ``NodeSorterHostProximity.createClusterSummarizedResources`` adds them up.
        """
        for r in self._rack_dirty:
            nodes = self.rack_nodes[r]
            self._rack_sums[r, 0] = np.maximum(
                self.total_cpu[nodes] - self.used_cpu[nodes], 0
            ).sum()
            self._rack_sums[r, 1] = np.maximum(
                self.total_mem[nodes] - self.used_mem[nodes], 0
            ).sum()
            if self._rack_sums.shape[1] > 2:
                free = np.maximum(self.total_gen[nodes] - self.used_gen[nodes], 0)
                self._rack_sums[r, 2:] = free.sum(axis=0)
        self._rack_dirty.clear()
        return self._rack_sums[:, 0], self._rack_sums[:, 1], self._rack_sums[:, 2:]

    def set_node_shared(self, topo: str, node: int, mb: float) -> None:
        """Set ``topo``'s shared off-heap node memory on ``node``, MB."""
        old = self.node_shared_offheap.get((topo, node), 0.0)
        self.used_mem[node] += mb - old
        self._rack_dirty.add(int(self.node_rack[node]))
        if mb:
            self.node_shared_offheap[(topo, node)] = mb
        else:
            self.node_shared_offheap.pop((topo, node), None)

    def _add(self, node: int, res: np.ndarray) -> None:
        self._rack_dirty.add(int(self.node_rack[node]))
        self.used_cpu[node] += res[0]
        self.used_mem[node] += res[1] + res[2]
        if res.size > 3:
            self.used_gen[node] += res[3:]

    def _sub(self, node: int, res: np.ndarray) -> None:
        self._rack_dirty.add(int(self.node_rack[node]))
        self.used_cpu[node] -= res[0]
        self.used_mem[node] -= res[1] + res[2]
        if res.size > 3:
            self.used_gen[node] -= res[3:]

    def free_slot(self, node: int, slot: int) -> None:
        """``Cluster.freeSlot``: free one worker and forget the executors it ran."""
        owner = self.slot_owner[node][slot]
        self.free_worker(node, slot)
        if owner is not None and owner in self.assignments:
            placed = self.assignments[owner]
            for e in [e for e, where in placed.items() if where == (node, slot)]:
                del placed[e]

    def placement_of(self, topo: str) -> TopologyPlacement:
        """What ``topo`` holds now (executors, workers with their resources, shared node
        memory), to put back with :meth:`restore` (Storm evicts on a working copy)."""
        return TopologyPlacement(
            topo,
            dict(self.assignments.get(topo, {})),
            {key: self.worker_res[key].copy() for key in self.topology_slots.get(topo, ())},
            {n: mb for (t, n), mb in self.node_shared_offheap.items() if t == topo},
        )

    def restore(self, placement: TopologyPlacement) -> None:
        """Put a placement taken by :meth:`placement_of` back."""
        for (node, slot), res in placement.workers.items():
            self.add_worker_usage(node, slot, placement.topology, res)
        for node, mb in placement.node_shared.items():
            self.set_node_shared(placement.topology, node, mb)
        if placement.executors:
            self.assignments[placement.topology] = dict(placement.executors)

    def unassign(self, topo: str) -> None:
        """``Cluster.unassign``: free every worker of ``topo``."""
        for node, slot in list(self.topology_slots.get(topo, ())):
            self.free_worker(node, slot)
        for key in [k for k in self.node_shared_offheap if k[0] == topo]:
            self.set_node_shared(topo, key[1], 0.0)
        self.assignments.pop(topo, None)
        self.topology_slots.pop(topo, None)

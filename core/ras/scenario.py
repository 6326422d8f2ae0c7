"""A slotscope scenario as a RAS cluster and topology set.

Nodes become supervisors: CPU = cores x sockets x 100 % (Storm counts CPU in percent of
one core, ``supervisor.cpu.capacity``), memory = ``ram_gb`` x 1,024 MB, ports
0..slots-1, one host per node, the node's ``rack``. Components keep their declarations
(``cpu_pct`` as ``topology.component.cpu.pcore.percent``, ``memory_mb`` as on-heap MB,
``offheap_mb`` as off-heap MB), streams give each component its upstream components
(sorted, as :func:`core.ras.corpus.topology_from_doc`; with shuffle and local-or-shuffle
marked for ``ExecSorterByProximity``), ``topology.ackers`` gives acker executors with the
topology's acker request (``acker_cpu_pct``, ``acker_memory_mb``, ``acker_offheap_mb``:
Storm's ``topology.acker.*`` keys, defaults.yaml's 10 %, 128 MB, 0 MB where unset),
``topology.priority`` Storm's scheduling order. The worker heap limit is the topology's
``worker_max_heap_mb`` (``topology.worker.max.heap.size.mb``), else Storm's default 768 MB.
The constraint solver's settings (``topology.ras.constraints``,
``topology.spread.components``, its search limits, one executor or component per worker),
the acker executors bound per new worker, isolated machines and favoured and unfavoured
hosts come from ``scheduler_params.ras`` under their Storm names,
as ``slotscope import`` and the storm-large presets write them from Nimbus's conf, and
its ``strategy`` gives Storm's strategy class. Not carried by the scenario format: generic
resources (``network.resource.units``) and shared memory (no corpus topology declares any).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.importers.stormser import (
    ACKERS_PER_WORKER_KEY,
    FAVORED_KEY,
    ISOLATE_KEY,
    MAX_STATE_SEARCH_KEY,
    MAX_TIME_SECS_KEY,
    ONE_COMPONENT_KEY,
    ONE_EXECUTOR_KEY,
    OWN_SCHEDULER_KEY,
    STORM_STRATEGY_IDS,
    STRATEGY_PARAM,
    UNFAVORED_KEY,
)
from core.ras.constraint import parse_constraints
from core.ras.model import (
    DEFAULT_ACKERS_PER_WORKER,
    DEFAULT_WORKER_MAX_HEAP_MB,
    RasCluster,
    RasComponent,
    RasTopology,
    Request,
    Supervisor,
)

CPU_PCT_PER_CORE = 100.0  # Storm: percent of one core
MB_PER_GB = 1024.0
SHUFFLES = ("shuffle", "local-or-shuffle")


def cluster_from_scenario(scenario: Any) -> RasCluster:
    """The scenario's nodes as a :class:`RasCluster`."""
    sups = [
        Supervisor(
            n.id,
            n.id,
            n.rack,
            tuple(range(n.slots)),
            n.cores * n.sockets * CPU_PCT_PER_CORE,
            n.ram_gb * MB_PER_GB,
        )
        for n in scenario.cluster.nodes
    ]
    return RasCluster(sups)


def topology_from_scenario(
    topology: Any, worker_max_heap_mb: float = DEFAULT_WORKER_MAX_HEAP_MB
) -> RasTopology:
    """One scenario topology (core/model.py ``Topology``) as a :class:`RasTopology`."""
    inputs: dict[str, list[str]] = {c.id: [] for c in topology.components}
    shuffled: dict[str, list[str]] = {c.id: [] for c in topology.components}
    for s in topology.streams:
        inputs[s.target].append(s.source)
        if s.grouping in SHUFFLES:
            shuffled[s.target].append(s.source)
    comps = [
        RasComponent(
            c.id,
            c.parallelism,
            Request(c.cpu_pct, c.memory_mb, c.offheap_mb),
            c.kind or ("bolt" if inputs[c.id] else "spout"),
            tuple(sorted(set(inputs[c.id]))),
            shuffle_inputs=tuple(sorted(set(shuffled[c.id]))),
        )
        for c in topology.components
    ]
    own = topology.scheduler_params.get(OWN_SCHEDULER_KEY, {})
    return RasTopology(
        topology.name,
        comps,
        priority=topology.priority,
        worker_max_heap_mb=worker_max_heap_mb,
        ackers=topology.ackers,
        acker_request=Request(
            topology.acker_cpu_pct, topology.acker_memory_mb, topology.acker_offheap_mb
        ),
        **solver_fields(own, set(inputs)),
        **setting_fields(own),
    )


def _whole(value: Any) -> int | None:
    """A conf number as Storm's ``ObjectReader.getInt`` reads it, else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


def setting_fields(conf: Mapping[str, Any]) -> dict[str, Any]:
    """:class:`RasTopology` fields from the other Storm settings ``scheduler_params.ras``
    carries (:func:`core.importers.stormser.scheduling_settings`) and its ``strategy``
    (a ras-* id or Storm's class name), read as :func:`core.ras.corpus.topology_from_doc`
    reads the conf; absent: Storm's defaults."""
    per_worker = _whole(conf.get(ACKERS_PER_WORKER_KEY))
    strategy = str(conf.get(STRATEGY_PARAM) or "").rsplit(".", 1)[-1]
    classes = {sid: java for java, sid in STORM_STRATEGY_IDS.items()}
    return {
        "ackers_per_worker": DEFAULT_ACKERS_PER_WORKER if per_worker is None else per_worker,
        "isolated_machines": _whole(conf.get(ISOLATE_KEY)),
        "favored_hosts": tuple(str(h) for h in conf.get(FAVORED_KEY) or ()),
        "unfavored_hosts": tuple(str(h) for h in conf.get(UNFAVORED_KEY) or ()),
        "strategy_class": classes.get(
            strategy, strategy if strategy in STORM_STRATEGY_IDS else "DefaultResourceAwareStrategy"
        ),
    }


def solver_fields(conf: Mapping[str, Any], components: set[str]) -> dict[str, Any]:
    """:class:`RasTopology` fields from the constraint-solver settings a topology's
    ``scheduler_params.ras`` carries under their Storm names (``slotscope import`` writes
    them from Nimbus's conf, :func:`core.importers.stormser.solver_settings`), read as
    :func:`core.ras.corpus.topology_from_doc` reads the conf; absent: Storm's defaults."""
    incompatible, max_node = parse_constraints(conf, components)
    out: dict[str, Any] = {
        "incompatible": incompatible,
        "max_node_colocation": max_node,
        "one_executor_per_worker": bool(conf.get(ONE_EXECUTOR_KEY, False)),
        "one_component_per_worker": bool(conf.get(ONE_COMPONENT_KEY, False)),
    }
    for key, name in (
        (MAX_STATE_SEARCH_KEY, "max_state_search"),
        (MAX_TIME_SECS_KEY, "max_time_secs"),
    ):
        value = conf.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = int(value)
    return out


def from_scenario(scenario: Any) -> tuple[RasCluster, list[RasTopology]]:
    """The cluster and every topology of a scenario (``scenario.topology_set``), each
    with its own ``worker_max_heap_mb`` where given (else Storm's default)."""
    return cluster_from_scenario(scenario), [
        topology_from_scenario(t, t.worker_max_heap_mb or DEFAULT_WORKER_MAX_HEAP_MB)
        for t in scenario.topology_set
    ]

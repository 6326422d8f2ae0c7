"""Apache Storm's large-cluster corpus as RAS clusters and topologies.

The data (core/presets/data/storm_large_clusters.json.gz, Apache License 2.0, see
NOTICE-apache-storm.txt beside it) holds the 135 topologies of Storm's
storm-server/src/test/resources/clusterconf/largeCluster01..03, reduced by
bench/storm_corpus.py, and the supervisor distributions of
``TestLargeCluster.SupervisorDistribution``. :func:`large_cluster` builds the
supervisors exactly as ``TestLargeCluster.createSupervisors`` does: racks in the
iteration order of Java's ``HashMap`` keyed by rack id (so ``r001`` is not
necessarily rack 0), supervisor ``rNNNsMMM`` on host ``host-MMM-rack-NNN`` in rack
``rack-NNN`` (``GenSupervisorsDnsToSwitchMapping``), ports 0..slots-1, and every
supervisor offering 50 ``network.resource.units``. :func:`corpus_topologies`
builds topologies as ``TestLargeCluster.createTopoDetailsArray`` does: spout and bolt
executors only (no acker executors), state search 10,000 and one acker per worker
where the conf does not say, with components lacking a parallelism hint run once (as
Nimbus would) or not at all (as that test does; ``semantics="test"``).
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

from core.importers.stormser import SharedMemory, StormComponent, StormInput, StormSerTopology
from core.ras.constraint import parse_constraints
from core.ras.javaorder import hash_order, java_string_hash
from core.ras.model import (
    DEFAULT_PRIORITY,
    DEFAULT_WORKER_MAX_HEAP_MB,
    RasCluster,
    RasComponent,
    RasError,
    RasTopology,
    Supervisor,
    request_from_conf,
)

DATA_FILE = (
    Path(__file__).resolve().parent.parent / "presets" / "data" / "storm_large_clusters.json.gz"
)
CLUSTER_NAMES = ("largeCluster01", "largeCluster02", "largeCluster03")
NETWORK_UNITS = 50.0  # TestLargeCluster.createAndAddOneSupervisor: network.resource.units
TEST_MAX_STATE_SEARCH = 10_000  # TestLargeCluster.createTopoDetailsArray


@functools.lru_cache(maxsize=1)
def load_corpus() -> dict[str, Any]:
    """The shipped corpus document."""
    try:
        return json.loads(gzip.decompress(DATA_FILE.read_bytes()))
    except (OSError, ValueError) as err:
        raise RasError(f"corpus: cannot read {DATA_FILE.name} ({err})") from None


def _cluster_doc(name: str) -> dict[str, Any]:
    doc = load_corpus()["clusters"]
    if name not in doc:
        raise RasError(f"cluster: unknown '{name}', known: {', '.join(CLUSTER_NAMES)}")
    return doc[name]


def large_cluster_supervisors(name: str, reduced_per_rack: int = 0) -> list[Supervisor]:
    """``TestLargeCluster.createSupervisors(name, reduced_per_rack)``."""
    rows = _cluster_doc(name)["supervisors"]
    rack_ids: list[str] = []
    by_rack: dict[str, list[list]] = {}
    for row in rows:
        if row[1] not in by_rack:
            rack_ids.append(row[1])
            by_rack[row[1]] = []
        by_rack[row[1]].append(row)
    order = hash_order([java_string_hash(r) for r in rack_ids])
    sups: list[Supervisor] = []
    for rack_num, i in enumerate(order):
        rows_here = by_rack[rack_ids[i]]
        count = sum(r[0] for r in rows_here)
        if count > abs(reduced_per_rack):
            count -= abs(reduced_per_rack)
        in_rack = 0
        for cnt, _rack, slots, mem, cpu in rows_here:
            for _ in range(cnt):
                if in_rack < count:
                    sups.append(
                        Supervisor(
                            f"r{rack_num:03d}s{in_rack:03d}",
                            f"host-{in_rack:03d}-rack-{rack_num:03d}",
                            f"rack-{rack_num:03d}",
                            tuple(range(slots)),
                            float(cpu),
                            float(mem),
                            {"network.resource.units": NETWORK_UNITS},
                        )
                    )
                in_rack += 1
    return sups


def daemon_conf(name: str) -> dict[str, Any]:
    """Nimbus' conf in TestLargeCluster: the first topology's conf (``topoDetailsArray[0]``).

    ``storm.worker.min.cpu.pcore.percent`` (a worker's CPU floor, %; 100 in
    largeCluster01), ``resource.aware.scheduler.constraint.max.state.search`` (10,000
    where absent) and ``resource.aware.scheduler.priority.strategy`` come from there.
    """
    conf = dict(_cluster_doc(name)["topologies"][0]["conf"])
    conf.setdefault("resource.aware.scheduler.constraint.max.state.search", TEST_MAX_STATE_SEARCH)
    return conf


def large_cluster(name: str) -> RasCluster:
    """A fresh RAS cluster of TestLargeCluster's supervisors with its Nimbus conf."""
    conf = daemon_conf(name)
    priority = str(conf.get("resource.aware.scheduler.priority.strategy", ""))
    return RasCluster(
        large_cluster_supervisors(name),
        min_worker_cpu=float(conf.get("storm.worker.min.cpu.pcore.percent") or 0.0),
        daemon_max_state_search=int(conf["resource.aware.scheduler.constraint.max.state.search"]),
        priority_strategy="fifo"
        if priority.endswith("FIFOSchedulingPriorityStrategy")
        else "default",
    )


def topology_from_doc(
    doc: dict[str, Any], unset_hint: int = 1, ackers: bool = False
) -> RasTopology:
    """A RAS topology from one corpus entry (or any dict of the same shape).

    ``unset_hint``: executors of a component whose parallelism hint the file leaves
    unset: 1 as Nimbus runs it (``Thrift.getParallelismHint``), 0 as Storm's
    TestLargeCluster counts it (``genExecsAndComps`` reads the raw Thrift field).
    ``ackers``: add the conf's ``topology.acker.executors`` acker executors (with the
    conf's acker requests), as Nimbus would; TestLargeCluster has none.
    """
    conf = dict(doc.get("conf", {}))
    conf.setdefault("topology.ras.constraint.max.state.search", TEST_MAX_STATE_SEARCH)
    conf.setdefault("topology.ras.acker.executors.per.worker", 1)
    comps = []
    for cid, kind, parallelism, cconf, inputs in doc["components"]:
        comps.append(
            RasComponent(
                cid,
                int(parallelism) if parallelism is not None else unset_hint,
                request_from_conf(cconf, conf, cid),
                kind,
                tuple(sorted({src for src, _grouping in inputs})),
                shuffle_inputs=tuple(
                    sorted({src for src, g in inputs if g in ("shuffle", "local_or_shuffle")})
                ),
            )
        )
    shared = {k: SharedMemory(k, *map(float, v)) for k, v in doc.get("shared", {}).items()}
    incompatible, max_node = parse_constraints(conf, {c.id for c in comps})

    def _int(key: str, default: int | None) -> int | None:
        v = conf.get(key)
        return int(v) if isinstance(v, int | float) and not isinstance(v, bool) else default

    heap = conf.get("topology.worker.max.heap.size.mb")
    return RasTopology(
        name=str(conf.get("topology.name") or doc["name"]),
        components=comps,
        priority=_int("topology.priority", DEFAULT_PRIORITY),
        worker_max_heap_mb=float(heap)
        if isinstance(heap, int | float)
        else DEFAULT_WORKER_MAX_HEAP_MB,
        ackers=(_int("topology.acker.executors", 0) or 0) if ackers else 0,
        acker_request=request_from_conf({}, conf, "__acker"),
        ackers_per_worker=_int("topology.ras.acker.executors.per.worker", 1),
        one_executor_per_worker=bool(conf.get("topology.ras.one.executor.per.worker", False)),
        one_component_per_worker=bool(conf.get("topology.ras.one.component.per.worker", False)),
        max_state_search=_int("topology.ras.constraint.max.state.search", TEST_MAX_STATE_SEARCH),
        max_time_secs=_int("topology.ras.constraint.max.time.secs", None),
        shared_memory=shared,
        favored_hosts=tuple(conf.get("topology.scheduler.favored.nodes") or ()),
        unfavored_hosts=tuple(conf.get("topology.scheduler.unfavored.nodes") or ()),
        isolated_machines=_int("topology.isolate.machines", None),
        order_by_proximity=bool(conf.get("topology.ras.order.executors.by.proximity.needs")),
        incompatible=incompatible,
        max_node_colocation=max_node,
        # TestLargeCluster.createTopoDetailsArray builds every TopologyDetails with owner
        # "user" (the conf's topology.submitter.user is not read): one user, no guarantee
        submitter="user",
        strategy_class=str(
            conf.get("topology.scheduler.strategy", "DefaultResourceAwareStrategy")
        ).rsplit(".", 1)[-1],
        timeout_secs=float(_int("scheduling.timeout.seconds.per.topology", 60) or 60),
    )


SEMANTICS = ("nimbus", "test")


def corpus_topologies(
    name: str, semantics: str = "nimbus", ackers: bool = False
) -> list[RasTopology]:
    """Every usable topology of one corpus cluster.

    ``semantics="nimbus"``: components without a parallelism hint run 1 executor, as
    on a real cluster (24,403 / 36,150 / 1,414 executors in largeCluster01/02/03).
    ``semantics="test"``: they run none, exactly as Storm's TestLargeCluster builds its
    TopologyDetails (24,349 / 36,086 / 1,221); topologies left without executors are
    skipped there, as that test does. ``ackers=True`` adds each topology's declared
    acker executors (3,037 / 3,787 / 760), which TestLargeCluster leaves out.
    """
    if semantics not in SEMANTICS:
        raise RasError(f"semantics: unknown '{semantics}', known: {', '.join(SEMANTICS)}")
    unset = 1 if semantics == "nimbus" else 0
    tops = [topology_from_doc(t, unset, ackers) for t in _cluster_doc(name)["topologies"]]
    return [t for t in tops if t.executors > 0]


CPU_PCT_PER_CORE = 100.0  # Storm counts CPU in percent of one core
MB_PER_GB = 1024.0
SCENARIO_GHZ = 3.0  # stated default clock for corpus nodes (not in the corpus), GHz


def scenario_nodes(name: str) -> list[dict[str, Any]]:
    """The cluster's supervisors as scenario nodes (core/model.py ``Node`` dicts).

    ``cores`` = CPU % / 100 (Storm's percent of one core), ``ram_gb`` = MB / 1024,
    ``slots`` = ports, ``rack`` as TestLargeCluster; the clock is not in Storm's test
    and is the stated default ``SCENARIO_GHZ``.
    """
    return [
        {
            "id": s.id,
            "cores": max(1, round(s.cpu / CPU_PCT_PER_CORE)),
            "ghz": SCENARIO_GHZ,
            "slots": len(s.ports),
            "ram_gb": s.memory / MB_PER_GB,
            "rack": s.rack,
        }
        for s in large_cluster_supervisors(name)
    ]


def corpus_stormser(name: str):
    """The corpus topologies of one cluster as :class:`StormSerTopology` values.

    Feed them to :func:`core.importers.stormser.to_scenario_topology` for scenario
    topology dicts.
    """

    out = []
    for doc in _cluster_doc(name)["topologies"]:
        comps = tuple(
            StormComponent(
                cid,
                kind,
                1 if par is None else int(par),
                tuple(StormInput(src, "default", grouping) for src, grouping in inputs),
                dict(cconf),
                hint_set=par is not None,
            )
            for cid, kind, par, cconf, inputs in doc["components"]
        )
        shared = {k: SharedMemory(k, *map(float, v)) for k, v in doc.get("shared", {}).items()}
        out.append(StormSerTopology(doc["name"], comps, dict(doc["conf"]), shared))
    return out

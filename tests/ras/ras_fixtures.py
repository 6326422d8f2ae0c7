"""Builders after Storm's TestUtilsForResourceAwareScheduler (genSupervisors, genTopology)."""

from __future__ import annotations

from collections.abc import Mapping

from core.ras import RasCluster, RasComponent, RasTopology, Request, Supervisor
from core.ras.sorter import LazyNodeSorting
from core.ras.strategies import TopologyRun

MAX_DOUBLE = 1.7976931348623157e308  # Double.MAX_VALUE (genTopology's default max heap)


def gen_supervisors_numa(
    rack: int,
    supers: int,
    zones: int,
    ports: int,
    super_start: int,
    cpu: float,
    mem: float,
    misc: Mapping[str, float] | None = None,
    multiplier: float = 1.0,
    rack_name: str | None = None,
) -> list[Supervisor]:
    """``genSupervisorsWithRacksAndNuma`` for one rack (numRacks = 1)."""
    out = []
    for s in range(super_start, super_start + supers):
        zone = s % zones
        if zones > 1:
            sid, host = f"r{rack:03d}s{s:03d}n{zone}", f"host-{s // zones:03d}-rack-{rack:03d}"
        else:
            sid, host = f"r{rack:03d}s{s:03d}", f"host-{s:03d}-rack-{rack:03d}"
        scale = multiplier**zone
        out.append(
            Supervisor(
                sid,
                host,
                rack_name or f"rack-{rack:03d}",
                tuple(range(ports)),
                cpu * scale,
                mem * scale,
                dict(misc or {}),
            )
        )
    return out


def gen_topology(
    name: str,
    spouts: int,
    bolts: int,
    spout_par: int,
    bolt_par: int,
    cpu: float,
    onheap: float,
    offheap: float,
    max_heap: float = MAX_DOUBLE,
    priority: int = 0,
    extra: tuple[RasComponent, ...] = (),
) -> RasTopology:
    """``genTopology``: spout-i, then bolt-i fed by spout-(i mod spouts) with shuffle."""
    req = Request(cpu, onheap, offheap)
    comps = [RasComponent(f"spout-{i}", spout_par, req, "spout") for i in range(spouts)]
    comps += [
        RasComponent(f"bolt-{i}", bolt_par, req, "bolt", (f"spout-{i % spouts}",))
        for i in range(bolts)
    ]
    return RasTopology(name, comps + list(extra), priority=priority, worker_max_heap_mb=max_heap)


def sorted_racks(
    cluster: RasCluster, topo: RasTopology, comp: int | None = None, sort_type: str = "common"
) -> list[str]:
    """``NodeSorterHostProximity.getSortedRacks`` after ``prepare(exec of comp)``."""
    run = TopologyRun(cluster, topo)
    sorting = LazyNodeSorting(run, None if comp is None else run.req_gen[comp], sort_type)
    return [cluster.rack_names[r] for r in sorting.racks]


def sorted_nodes(cluster: RasCluster, topo: RasTopology, sort_type: str = "common") -> list[str]:
    """``sortAllNodes`` after ``prepare(null)``: node ids in order."""
    run = TopologyRun(cluster, topo)
    sorting = LazyNodeSorting(run, None, sort_type)
    return [cluster.node_ids[n] for n in sorting.all_nodes()]


def java_map_order(names: list[str]) -> list[str]:
    """Iteration order of a default ``HashMap<String, ...>`` filled with ``names`` in order."""
    from core.ras.javaorder import hash_order, java_string_hash

    return [names[i] for i in hash_order([java_string_hash(n) for n in names])]


def chain_topology(
    ackers: int,
    ackers_per_worker: int,
    cpu=50.0,
    onheap=450.0,
    acker_cpu=50.0,
    acker_heap=250.0,
    gpus: Mapping[str, float] | None = None,
) -> RasTopology:
    """The spout -> bolt-1 -> bolt-2 -> bolt-3 topology of TestDefaultResourceAwareStrategy.

    Executors are numbered as ``genExecsAndComps(systemTopology(...))``: spouts, then bolts
    in the iteration order of the topology's bolt ``HashMap`` (bolt-1, bolt-3, bolt-2),
    then ``__acker``.
    """
    req = Request(cpu, onheap, 0.0)
    inputs = {"bolt-1": ("spout",), "bolt-2": ("bolt-1",), "bolt-3": ("bolt-2",)}
    bolts = [b for b in java_map_order(["bolt-1", "bolt-2", "bolt-3", "__acker"]) if b != "__acker"]
    comps = [RasComponent("spout", 1, req, "spout")]
    gpus = gpus or {}
    comps += [
        RasComponent(
            b,
            2,
            Request(cpu, onheap, 0.0, {"gpu.count": gpus[b]} if b in gpus else {}),
            "bolt",
            inputs[b],
        )
        for b in bolts
    ]
    return RasTopology(
        "testTopology",
        comps,
        priority=0,
        worker_max_heap_mb=2000.0,
        ackers=ackers,
        acker_request=Request(acker_cpu, acker_heap, 0.0),
        ackers_per_worker=ackers_per_worker,
    )


def gen_supervisors(
    count: int, ports: int, cpu: float, mem: float, misc: Mapping[str, float] | None = None
) -> list[Supervisor]:
    """``genSupervisors(numSup, numPorts, cpu, mem[, misc])``: r000sNNN on host-NNN-rack-000."""
    return gen_supervisors_numa(0, count, 1, ports, 0, cpu, mem, misc)


def worker_sets(cluster: RasCluster, name: str) -> set[frozenset[int]]:
    """Executors per worker slot of a topology, as a set of sets."""
    per: dict[tuple[int, int], set[int]] = {}
    for e, where in cluster.assignments[name].items():
        per.setdefault(where, set()).add(e)
    return {frozenset(v) for v in per.values()}

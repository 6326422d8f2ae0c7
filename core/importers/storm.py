"""Apache Storm UI REST responses -> a slotscope scenario.

Three responses of the Storm UI daemon (``docs/STORM-UI-REST-API.md`` in
apache/storm) make one scenario:

``/api/v1/topology/:id``
    ``spouts[].spoutId`` / ``bolts[].boltId`` and their ``executors`` (the
    parallelism), ``workersTotal`` (W), bolts' ``executeLatency`` (ms per tuple in
    ``execute()``, taken as ``cpu_us``), ``emitted / executed`` (the selectivity),
    spouts' ``emitted`` over the window (the offered rate), ``requestedCpu`` and
    ``requestedMemOnHeap`` (R-Storm's declared needs).
``/api/v1/topology/:id/visualization``
    each component's ``:inputs`` (``:component``, ``:grouping``): the streams.
    ``:grouping`` is the field name of Storm's thrift ``Grouping`` union, so a
    global grouping (fields grouping on no field) arrives as ``fields``.
``/api/v1/supervisor/summary``
    the nodes: ``host``, ``slotsTotal``, ``totalCpu`` (% of one core) and
    ``totalMem`` (MB). Storm does not report a clock: nodes get the reference clock.

System components (ids starting with ``__``) are not topology components; the
``__acker`` bolt's executors (with ``sys=1``) become ``topology.ackers``.

References
----------
Apache Storm, "Storm UI REST API", docs/STORM-UI-REST-API.md,
https://github.com/apache/storm/blob/master/docs/STORM-UI-REST-API.md
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from core.importers.common import (
    CPU_PCT_PER_CORE,
    DEFAULT_CPU_US,
    DEFAULT_GHZ,
    DEFAULT_RATE,
    MB_PER_GB,
    STORM_CPU_PCT_PER_NODE,
    STORM_MEMORY_MB_PER_NODE,
    STORM_SLOTS_PER_NODE,
    Imported,
    Reader,
    default_nodes,
    number,
    validated,
)
from core.model import ACKER_ID, MAX_COMPONENTS, MAX_EXECUTORS, MAX_MAGNITUDE, MAX_NODES

US_PER_MS = 1000.0
ALL_TIME = ":all-time"  # Storm's window name for statistics since the topology started

# Storm thrift Grouping field name -> slotscope grouping. ``none`` is shuffle in Storm
# (Concepts.md: "Currently, none groupings are equivalent to shuffle groupings").
GROUPINGS = {
    "shuffle": "shuffle",
    "fields": "fields",
    "all": "all",
    "local_or_shuffle": "local-or-shuffle",
    "none": "shuffle",
    "global": "global",
}
APPROXIMATED = {  # groupings slotscope has no model of, and why shuffle stands in
    "direct": "the emitter picks the task; modelled as shuffle",
    "custom_object": "a user-defined CustomStreamGrouping; modelled as shuffle",
    "custom_serialized": "a user-defined CustomStreamGrouping; modelled as shuffle",
}

TOPOLOGY = "storm topology"
VISUALIZATION = "storm visualization"
SUPERVISORS = "storm supervisor summary"


def is_system(component_id: str) -> bool:
    """Storm's system components (``__acker``, ``__system``, ``__metrics...``)."""
    return component_id.startswith("__")


def _figure(
    r: Reader, item: Mapping[str, Any], key: str, path: str, most: float = MAX_MAGNITUDE
) -> float | None:
    """A measured or declared figure of the response (None when absent or not a number:
    the caller assumes a default); refused, naming the response's field, above ``most``
    (the scenario's ``MAX_MAGNITUDE`` in the unit the scenario takes it)."""
    value = number(item.get(key))
    if value is not None and value > most:
        raise r.fail(f"{path}.{key}", f"{value:g} is too large (at most {most:g})")
    return value


def _selectivity(r: Reader, bolt: Mapping[str, Any], path: str) -> float | None:
    """``emitted / executed`` of a bolt (None when either is missing or executed is 0);
    a negative count or a ratio above ``MAX_MAGNITUDE`` is refused naming the count."""
    emitted, executed = _figure(r, bolt, "emitted", path), _figure(r, bolt, "executed", path)
    for key, count in (("emitted", emitted), ("executed", executed)):
        if count is not None and count < 0:
            raise r.fail(f"{path}.{key}", f"expected a tuple count >= 0, got {count:g}")
    if emitted is None or not executed:
        return None
    ratio = emitted / executed
    if not ratio <= MAX_MAGNITUDE:  # inf too
        raise r.fail(
            f"{path}.emitted",
            f"{emitted:g} tuples emitted for {executed:g} executed is a selectivity above "
            f"{MAX_MAGNITUDE:g}",
        )
    return round(ratio, 6)


def _components(topo: Mapping[str, Any], warnings: list[str]) -> tuple[list[dict], int]:
    r = Reader(TOPOLOGY)
    components: list[dict[str, Any]] = []
    ackers = 0
    no_cpu: list[str] = []
    executors = 0
    for kind, key, id_key in (("spout", "spouts", "spoutId"), ("bolt", "bolts", "boltId")):
        for i, raw in enumerate(r.items(topo, key)):
            path = f"{key}[{i}]"
            item = r.obj(raw, path)
            cid = r.text(item, id_key, path, numbers=False)
            parallelism = r.count(item, "executors", path)
            executors += parallelism  # checked before anything is built from it
            if executors > MAX_EXECUTORS:
                raise r.fail(
                    f"{path}.executors",
                    f"{parallelism:,} brings the topology to {executors:,} executors, the "
                    f"limit is {MAX_EXECUTORS:,}",
                )
            if len(components) >= MAX_COMPONENTS and not is_system(cid):
                raise r.fail(path, f"more than {MAX_COMPONENTS:,} components, the limit")
            if cid == ACKER_ID:
                ackers = parallelism
                continue
            if is_system(cid):
                continue
            comp: dict[str, Any] = {"id": cid, "parallelism": parallelism, "kind": kind}
            latency_ms = _figure(r, item, "executeLatency", path, MAX_MAGNITUDE / US_PER_MS)
            if latency_ms and latency_ms > 0:
                comp["cpu_us"] = round(latency_ms * US_PER_MS, 6)
            else:
                no_cpu.append(cid)
            if kind == "bolt" and (selectivity := _selectivity(r, item, path)) is not None:
                comp["selectivity"] = selectivity
            cpu_pct = _figure(r, item, "requestedCpu", path)
            mem_mb = _figure(r, item, "requestedMemOnHeap", path)
            if cpu_pct and cpu_pct > 0:
                comp["cpu_pct"] = cpu_pct
            if mem_mb and mem_mb > 0:
                comp["memory_mb"] = mem_mb
            components.append(comp)
    if not components:
        raise r.fail("spouts", "the topology has no spout or bolt (only system components)")
    if no_cpu:
        warnings.append(
            f"cpu_us of {', '.join(no_cpu)}: Storm reports no execute latency for it; "
            f"default {DEFAULT_CPU_US:g} us per tuple"
        )
    return components, ackers


def _streams(viz: Mapping[str, Any], known: set[str], warnings: list[str]) -> list[dict[str, Any]]:
    r = Reader(VISUALIZATION)
    streams: dict[tuple[str, str], dict[str, Any]] = {}
    for target, raw in viz.items():
        spec = r.obj(raw, target)
        inputs = r.items(spec, ":inputs", target)
        if is_system(target):
            continue
        if target not in known:
            raise r.fail(target, "component is not in the topology response's spouts or bolts")
        for j, raw_input in enumerate(inputs):
            path = f"{target}.:inputs[{j}]"
            inp = r.obj(raw_input, path)
            source = r.text(inp, ":component", path, numbers=False)
            grouping = r.text(inp, ":grouping", path, numbers=False)
            if is_system(source):
                continue
            if source not in known:
                raise r.fail(f"{path}.:component", f"unknown component '{source}'")
            if grouping in GROUPINGS:
                mapped = GROUPINGS[grouping]
            elif grouping in APPROXIMATED:
                mapped = "shuffle"
                warnings.append(
                    f"stream {source} -> {target}: {grouping} grouping is {APPROXIMATED[grouping]}"
                )
            else:
                known_names = ", ".join(sorted(GROUPINGS) + sorted(APPROXIMATED))
                raise r.fail(
                    f"{path}.:grouping",
                    f"unknown grouping '{grouping}' (Storm's are {known_names})",
                )
            pair = (source, target)
            if pair in streams:
                if streams[pair]["grouping"] != mapped:
                    warnings.append(
                        f"stream {source} -> {target}: several Storm streams with different "
                        f"groupings; kept {streams[pair]['grouping']}"
                    )
                continue
            streams[pair] = {"from": source, "to": target, "grouping": mapped}
    return list(streams.values())


def _nodes(sups: Mapping[str, Any], warnings: list[str]) -> list[dict[str, Any]]:
    r = Reader(SUPERVISORS)
    rows = r.items(sups, "supervisors")
    if len(rows) > MAX_NODES:
        raise r.fail("supervisors", f"{len(rows):,} supervisors, the limit is {MAX_NODES:,} nodes")
    named = (r.obj(s, f"supervisors[{i}]").get("host") for i, s in enumerate(rows))
    hosts = Counter(h for h in named if isinstance(h, str))  # as r.text reads them
    nodes, no_cpu, no_mem, skipped = [], [], [], []
    for i, raw in enumerate(rows):
        path = f"supervisors[{i}]"
        sup = r.obj(raw, path)
        host = r.text(sup, "host", path, numbers=False)
        node_id = host if hosts[host] == 1 else f"{host}/{r.text(sup, 'id', path, numbers=False)}"
        if sup.get("blacklisted") is True:
            skipped.append(node_id)
            continue
        slots = r.count(sup, "slotsTotal", path, minimum=0)
        cpu_pct, mem_mb = _figure(r, sup, "totalCpu", path), _figure(r, sup, "totalMem", path)
        if not cpu_pct or cpu_pct <= 0:
            no_cpu.append(node_id)
            cpu_pct = STORM_CPU_PCT_PER_NODE
        if not mem_mb or mem_mb <= 0:
            no_mem.append(node_id)
            mem_mb = STORM_MEMORY_MB_PER_NODE
        nodes.append(
            {
                "id": node_id,
                "cores": max(1, round(cpu_pct / CPU_PCT_PER_CORE)),
                "ghz": DEFAULT_GHZ,
                "ram_gb": mem_mb / MB_PER_GB,
                "slots": slots,
            }
        )
    if not nodes:
        raise r.fail("supervisors", "no supervisor to place executors on")
    warnings.append(
        f"node clock: Storm does not report it; {DEFAULT_GHZ:g} GHz (the reference clock) "
        "on every node"
    )
    if no_cpu:
        warnings.append(
            f"cores of {', '.join(no_cpu)}: no totalCpu; Storm's default supervisor.cpu.capacity "
            f"{STORM_CPU_PCT_PER_NODE:g} % = {STORM_CPU_PCT_PER_NODE / CPU_PCT_PER_CORE:g} cores"
        )
    if no_mem:
        warnings.append(
            f"memory of {', '.join(no_mem)}: no totalMem; Storm's default "
            f"supervisor.memory.capacity.mb {STORM_MEMORY_MB_PER_NODE:g} MB"
        )
    if skipped:
        warnings.append(f"blacklisted supervisors left out: {', '.join(skipped)}")
    return nodes


def _rate(topo: Mapping[str, Any], warnings: list[str]) -> float:
    """Mean spout emit rate over the response's window, tuples/s per spout component."""
    window = str(topo.get("window", ALL_TIME))
    seconds = number(topo.get("uptimeSeconds")) if window == ALL_TIME else number(window)
    uptime = number(topo.get("uptimeSeconds"))
    if seconds and uptime:
        seconds = min(seconds, uptime)  # a 10-minute window on a 2-minute-old topology
    r = Reader(TOPOLOGY)
    spouts = enumerate(topo.get("spouts", []))
    emitted = [_figure(r, s, "emitted", f"spouts[{i}]") for i, s in spouts if isinstance(s, dict)]
    emitted = [e for e in emitted if e is not None]
    if not seconds or seconds <= 0 or not emitted or sum(emitted) <= 0:
        warnings.append(
            f"offered rate: no spout emit counts over a known window; default {DEFAULT_RATE:g} "
            "tuples/s per spout"
        )
        return DEFAULT_RATE
    rate = sum(emitted) / len(emitted) / seconds
    if not rate <= MAX_MAGNITUDE:
        raise r.fail(
            "spouts",
            f"their emitted counts over {seconds:g} s make {rate:g} tuples/s per spout, above "
            f"{MAX_MAGNITUDE:g}",
        )
    return round(rate, 3)


def _ackers(topo: Mapping[str, Any], listed: int, workers: int | None, warnings: list[str]) -> int:
    """Acker executors: listed (sys=1), else topology.acker.executors, else one per worker.

    Storm's Config.TOPOLOGY_ACKER_EXECUTORS: "If not setting this variable or setting it
    as null ... Nimbus will set it to TOPOLOGY_WORKERS" (without RAS).
    """
    if listed:
        return listed
    conf = topo.get("configuration")
    value = conf.get("topology.acker.executors") if isinstance(conf, Mapping) else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        if value > MAX_EXECUTORS:
            raise Reader(TOPOLOGY).fail(
                "configuration.topology.acker.executors",
                f"{value:,} ackers, more than the limit of {MAX_EXECUTORS:,} executors",
            )
        return value
    if workers:
        warnings.append(
            f"ackers: the response does not list __acker (ask with ?sys=1); {workers}, one "
            "per worker, as Storm sets topology.acker.executors when it is unset"
        )
    return workers or 0


def storm_scenario(
    topology: Mapping[str, Any],
    visualization: Mapping[str, Any] | None,
    supervisors: Mapping[str, Any] | None,
) -> Imported:
    """A validated scenario from Storm UI REST responses (parsed JSON).

    Raises
    ------
    ScenarioError
        A missing or unusable field, named with its response and path.
    """
    r = Reader(TOPOLOGY)
    r.obj(topology, "")
    warnings: list[str] = []
    components, ackers = _components(topology, warnings)
    if visualization is None:
        raise r.fail(
            "",
            "the topology response lists components, not streams: also give "
            "/api/v1/topology/<id>/visualization",
        )
    streams = _streams(
        Reader(VISUALIZATION).obj(visualization, ""), {c["id"] for c in components}, warnings
    )
    fed = {s["to"] for s in streams}
    orphans = [c["id"] for c in components if c["kind"] == "bolt" and c["id"] not in fed]
    if orphans:
        raise Reader(VISUALIZATION).fail(
            "", f"no input stream for bolt {', '.join(orphans)}: is it the same topology's?"
        )
    workers = topology.get("workersTotal")
    workers = workers if isinstance(workers, int) and workers >= 1 else None
    if workers and supervisors is None and workers > MAX_NODES * STORM_SLOTS_PER_NODE:
        raise r.fail(
            "workersTotal",
            f"{workers:,} workers need more than the limit of {MAX_NODES:,} default nodes of "
            f"{STORM_SLOTS_PER_NODE} slots: give /api/v1/supervisor/summary too",
        )
    if supervisors is None:
        nodes = default_nodes(workers or 1, STORM_SLOTS_PER_NODE, "supervisor")
        warnings.append(
            f"nodes: no /api/v1/supervisor/summary given; {len(nodes)} node(s) with Storm's "
            f"default {STORM_SLOTS_PER_NODE} slots, {STORM_CPU_PCT_PER_NODE / 100:g} cores and "
            f"{STORM_MEMORY_MB_PER_NODE:g} MB"
        )
    else:
        nodes = _nodes(Reader(SUPERVISORS).obj(supervisors, ""), warnings)
    name = str(topology.get("name") or topology.get("id") or "storm-topology")
    source_id = topology.get("id", name)
    topo_doc: dict[str, Any] = {"name": name, "components": components, "streams": streams}
    if workers:
        topo_doc["workers"] = workers
    ackers = _ackers(topology, ackers, workers, warnings)
    if ackers:
        topo_doc["ackers"] = ackers
    scenario = validated(
        {
            "name": name,
            "description": f"Imported from the Storm UI REST API (topology {source_id}).",
            "topology": topo_doc,
            "cluster": {"nodes": nodes},
            "workload": {"rate": _rate(topology, warnings)},
        },
        TOPOLOGY,
    )
    return Imported(scenario, warnings, "storm")

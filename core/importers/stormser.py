"""Read a topology as Nimbus stores it: ``NAME-stormcode.ser`` and ``NAME-stormconf.ser``.

``NAME-stormcode.ser`` is a gzip of a Thrift binary-protocol ``StormTopology``
(storm-client/src/storm.thrift: ``StormTopology`` 1 spouts, 2 bolts, 3 state_spouts,
9 component_to_shared_memory, 10 shared_memory; ``SpoutSpec``/``Bolt`` 2 common;
``ComponentCommon`` 1 inputs (``GlobalStreamId`` -> ``Grouping``), 2 streams,
3 parallelism_hint, 4 json_conf; ``Grouping`` is a union: 1 fields, 2 shuffle, 3 all,
4 none, 5 direct, 6 custom_object, 7 custom_serialized, 8 local_or_shuffle;
``SharedMemory`` 1 name, 2 on_heap, 3 off_heap_worker, 4 off_heap_node).
``NAME-stormconf.ser`` is a gzip of the topology's JSON conf (Storm's
``Utils.fromCompressedJsonConf``). Storm's own test reader is
``TestLargeCluster.createTopoDetailsArray``; executors are numbered as
``TestUtilsForResourceAwareScheduler.genExecsAndComps`` does (spouts, then bolts, one
task per executor).

The Thrift reader below is a minimal binary-protocol decoder written for these
structs: it keeps field ids and values and skips what the schedulers do not need
(serialized component objects are kept as their length only).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.importers.fetch import read_file
from core.model import ScenarioError

# Thrift binary protocol type ids (TType)
T_STOP, T_BOOL, T_BYTE, T_DOUBLE, T_I16, T_I32, T_I64, T_STRING = 0, 2, 3, 4, 6, 8, 10, 11
T_STRUCT, T_MAP, T_SET, T_LIST = 12, 13, 14, 15
MAX_DEPTH = 64  # nesting limit of the reader (StormTopology nests 5 deep)

GROUPING_FIELDS = {  # storm.thrift union Grouping: field id -> name
    1: "fields",
    2: "shuffle",
    3: "all",
    4: "none",
    5: "direct",
    6: "custom_object",
    7: "custom_serialized",
    8: "local_or_shuffle",
}
# Storm conf keys the schedulers read (Config.java names)
CONF_KEYS = (
    "topology.name",
    "topology.workers",
    "topology.acker.executors",
    "topology.priority",
    "topology.scheduler.strategy",
    "topology.worker.max.heap.size.mb",
    "topology.submitter.user",
    "topology.component.cpu.pcore.percent",
    "topology.component.resources.onheap.memory.mb",
    "topology.component.resources.offheap.memory.mb",
    "topology.component.resources.map",
    "topology.acker.cpu.pcore.percent",
    "topology.acker.resources.onheap.memory.mb",
    "topology.acker.resources.offheap.memory.mb",
    "topology.ras.acker.executors.per.worker",
    "topology.ras.one.executor.per.worker",
    "topology.ras.one.component.per.worker",
    "topology.ras.constraint.max.state.search",
    "topology.ras.constraint.max.time.secs",
    "topology.ras.constraints",
    "topology.spread.components",
    "topology.ras.order.executors.by.proximity.needs",
    "topology.scheduler.favored.nodes",
    "topology.scheduler.unfavored.nodes",
    "topology.isolate.machines",
    # Nimbus (daemon) keys Storm's TestLargeCluster takes from the first topology's conf
    "storm.worker.min.cpu.pcore.percent",
    "resource.aware.scheduler.constraint.max.state.search",
    "resource.aware.scheduler.priority.strategy",
    "scheduling.timeout.seconds.per.topology",
)
# Storm 2's scheduling strategies (storm-server/.../scheduler/resource/strategies/
# scheduling/, ``topology.scheduler.strategy``; Storm 0.10 named the same classes under
# ``backtype.storm``) -> the ras-* scheduler that ports each: stated here once, the
# lowest module that needs it (core/ras and core/schedulers/storm_ras.py read it).
STORM_STRATEGY_IDS = {
    "DefaultResourceAwareStrategy": "ras-default",
    "GenericResourceAwareStrategy": "ras-generic",
    "RoundRobinResourceAwareStrategy": "ras-round-robin",
    "ConstraintSolverStrategy": "ras-constraint",
}
# the topology's own scheduler parameters: scheduler_params[OWN_SCHEDULER_KEY]
# [STRATEGY_PARAM], read by every ras-* scheduler (core/schedulers/storm_ras.py)
OWN_SCHEDULER_KEY, STRATEGY_PARAM = "ras", "strategy"
# ConstraintSolverStrategy's settings and the worker rules of every strategy, carried
# under their Storm names in scheduler_params[OWN_SCHEDULER_KEY] where the conf sets them
# off Storm's default (core/ras/scenario.py reads them as core/ras/corpus.py reads the conf)
CONSTRAINTS_KEY = "topology.ras.constraints"
SPREAD_KEY = "topology.spread.components"
MAX_STATE_SEARCH_KEY = "topology.ras.constraint.max.state.search"
MAX_TIME_SECS_KEY = "topology.ras.constraint.max.time.secs"
ONE_EXECUTOR_KEY = "topology.ras.one.executor.per.worker"
ONE_COMPONENT_KEY = "topology.ras.one.component.per.worker"
# ConstraintSolverStrategy.DEFAULT_STATE_SEARCH (Storm 2.0.0): the topology's search limit
# where its conf sets none (core.ras.model.DEFAULT_TOPO_MAX_STATE_SEARCH, the same number;
# not imported from there, as core.ras.model imports this module)
STORM_DEFAULT_STATE_SEARCH = 10_000
SOLVER_CONF_KEYS = (
    CONSTRAINTS_KEY,
    SPREAD_KEY,
    MAX_STATE_SEARCH_KEY,
    MAX_TIME_SECS_KEY,
    ONE_EXECUTOR_KEY,
    ONE_COMPONENT_KEY,
)
# Storm's other per-topology scheduling settings the ras-* port reads (core/ras/model.py
# RasTopology), carried like the solver's under their Storm names where the conf sets them
# off Storm's default (defaults.yaml: one acker bound per new worker; the rest unset)
ACKERS_PER_WORKER_KEY = "topology.ras.acker.executors.per.worker"
STORM_DEFAULT_ACKERS_PER_WORKER = 1
ISOLATE_KEY = "topology.isolate.machines"
FAVORED_KEY = "topology.scheduler.favored.nodes"
UNFAVORED_KEY = "topology.scheduler.unfavored.nodes"
SETTING_CONF_KEYS = (ACKERS_PER_WORKER_KEY, ISOLATE_KEY, FAVORED_KEY, UNFAVORED_KEY)
# Storm's defaults.yaml requests, which the scenario format's fields default to
STORM_DEFAULT_REQUEST = {"cpu_pct": 10.0, "memory_mb": 128.0, "offheap_mb": 0.0}
# per-component json_conf keys that carry resource requests (NormalizedResourceRequest)
COMPONENT_CONF_KEYS = (
    "topology.component.cpu.pcore.percent",
    "topology.component.resources.onheap.memory.mb",
    "topology.component.resources.offheap.memory.mb",
    "topology.component.resources.map",
)


class StormSerError(ScenarioError):
    """A stormcode/stormconf file that cannot be read; the message is one line."""


@dataclass(frozen=True)
class StormInput:
    """One input of a component: the upstream component, its stream and the grouping."""

    component: str
    stream: str
    grouping: str
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class StormComponent:
    """A spout or bolt as StormTopology declares it.

    ``parallelism`` is what Nimbus runs: the hint, or 1 where the file leaves it unset
    (``Thrift.getParallelismHint``). Storm's TestLargeCluster counts such a component
    as 0 executors instead (``genExecsAndComps`` reads the raw field); ``hint_set``
    tells the two apart.
    """

    id: str
    kind: str  # "spout" or "bolt"
    parallelism: int
    inputs: tuple[StormInput, ...] = ()
    conf: Mapping[str, Any] = field(default_factory=dict)
    shared_memory: tuple[str, ...] = ()
    hint_set: bool = True  # parallelism_hint present; unset means 1 (Thrift.getParallelismHint)


@dataclass(frozen=True)
class SharedMemory:
    """storm.thrift ``SharedMemory``: MB on heap, off heap per worker, off heap per node."""

    name: str
    on_heap: float = 0.0
    off_heap_worker: float = 0.0
    off_heap_node: float = 0.0


@dataclass(frozen=True)
class StormSerTopology:
    """A topology read from a stormcode/stormconf pair."""

    name: str
    components: tuple[StormComponent, ...]
    conf: Mapping[str, Any]
    shared_memory: Mapping[str, SharedMemory] = field(default_factory=dict)
    storm_version: str = ""

    @property
    def executors(self) -> int:
        """Spout and bolt executors (one per unit of parallelism hint), without ackers."""
        return sum(c.parallelism for c in self.components)


class _Reader:
    """Thrift binary protocol over a byte string (TBinaryProtocol, non-strict reads)."""

    def __init__(self, data: bytes, source: str):
        self.data = data
        self.pos = 0
        self.source = source

    def _take(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise StormSerError(self.source, f"truncated Thrift data at byte {self.pos}")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def _size(self) -> int:
        (n,) = struct.unpack(">i", self._take(4))
        if n < 0 or n > len(self.data) - self.pos:
            raise StormSerError(self.source, f"bad Thrift length {n} at byte {self.pos - 4}")
        return n

    def value(self, ttype: int, depth: int) -> Any:
        """One value of Thrift type ``ttype``; strings come back as ``bytes``."""
        if depth > MAX_DEPTH:
            raise StormSerError(self.source, "Thrift data nested too deep")
        fixed = {T_BOOL: ">?", T_BYTE: ">b", T_DOUBLE: ">d", T_I16: ">h", T_I32: ">i", T_I64: ">q"}
        if ttype in fixed:
            fmt = fixed[ttype]
            return struct.unpack(fmt, self._take(struct.calcsize(fmt)))[0]
        if ttype == T_STRING:
            return self._take(self._size())
        if ttype == T_STRUCT:
            return self.struct(depth + 1)
        if ttype == T_MAP:
            ktype, vtype = self._take(1)[0], self._take(1)[0]
            n = self._size()
            return [(self.value(ktype, depth + 1), self.value(vtype, depth + 1)) for _ in range(n)]
        if ttype in (T_SET, T_LIST):
            etype = self._take(1)[0]
            n = self._size()
            return [self.value(etype, depth + 1) for _ in range(n)]
        raise StormSerError(self.source, f"unknown Thrift type {ttype} at byte {self.pos}")

    def struct(self, depth: int = 0) -> dict[int, Any]:
        """A struct as {field id: value} up to its stop byte."""
        out: dict[int, Any] = {}
        while True:
            ttype = self._take(1)[0]
            if ttype == T_STOP:
                return out
            (fid,) = struct.unpack(">h", self._take(2))
            out[fid] = self.value(ttype, depth)


def _text(raw: Any, source: str, what: str) -> str:
    if not isinstance(raw, bytes):
        raise StormSerError(source, f"{what}: expected a string")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise StormSerError(source, f"{what}: not UTF-8 ({err.reason})") from None


# What one file may unpack to: the corpus's largest (1.1 MB of gzip) is far below; a
# gzip bomb stops here instead of filling memory.
MAX_UNPACKED_BYTES = 64 * 2**20


def _gunzip(data: bytes, source: str) -> bytes:
    if not data:
        raise StormSerError(source, "the file is empty")
    unpack = zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip framing
    try:
        out = unpack.decompress(data, MAX_UNPACKED_BYTES + 1)
    except zlib.error as err:
        raise StormSerError(source, f"not a complete gzip file ({err})") from None
    if len(out) > MAX_UNPACKED_BYTES:
        raise StormSerError(source, f"unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
    if not unpack.eof:
        raise StormSerError(source, "not a complete gzip file (it ends early)")
    return out


def _grouping(raw: Any) -> tuple[str, tuple[str, ...]]:
    if not isinstance(raw, dict) or len(raw) != 1:
        return "custom_object", ()
    fid, value = next(iter(raw.items()))
    name = GROUPING_FIELDS.get(fid, "custom_object")
    if name == "fields":
        names = tuple(v.decode("utf-8", "replace") for v in value if isinstance(v, bytes))
        return ("fields" if names else "global"), names
    return name, ()


def _component(
    cid: str, kind: str, spec: Any, shared: Mapping[str, tuple[str, ...]], source: str
) -> StormComponent:
    if not isinstance(spec, dict) or not isinstance(spec.get(2), dict):
        raise StormSerError(source, f"{kind} '{cid}': no ComponentCommon")
    common = spec[2]
    hint_set = 3 in common
    hint = common.get(3, 1)  # Thrift.getParallelismHint: 1 when unset (as Nimbus runs it)
    if not isinstance(hint, int) or hint < 0:
        raise StormSerError(source, f"{kind} '{cid}': parallelism_hint {hint!r} is not >= 0")
    inputs = []
    for key, grouping in common.get(1, []):
        if not isinstance(key, dict):
            raise StormSerError(source, f"{kind} '{cid}': input without a GlobalStreamId")
        gname, gfields = _grouping(grouping)
        inputs.append(
            StormInput(
                _text(key.get(1), source, f"{kind} '{cid}' input componentId"),
                _text(key.get(2, b"default"), source, f"{kind} '{cid}' input streamId"),
                gname,
                gfields,
            )
        )
    conf: dict[str, Any] = {}
    if 4 in common:
        text = _text(common[4], source, f"{kind} '{cid}' json_conf")
        try:
            parsed = json.loads(text) if text.strip() else {}
        except json.JSONDecodeError as err:
            raise StormSerError(source, f"{kind} '{cid}' json_conf: {err.msg}") from None
        if isinstance(parsed, dict):
            conf = {k: parsed[k] for k in COMPONENT_CONF_KEYS if k in parsed}
    return StormComponent(cid, kind, hint, tuple(inputs), conf, shared.get(cid, ()), hint_set)


def parse_stormcode(data: bytes, source: str = "stormcode") -> dict[str, Any]:
    """Decode gzip + Thrift ``StormTopology`` bytes into plain values.

    Returns
    -------
    dict
        ``components`` (list of :class:`StormComponent`, spouts first, each group in
        file order), ``shared_memory`` (name -> :class:`SharedMemory`) and
        ``storm_version``.
    """
    reader = _Reader(_gunzip(data, source), source)
    topo = reader.struct()
    if reader.pos != len(reader.data):
        raise StormSerError(source, f"{len(reader.data) - reader.pos} bytes after the topology")
    for fid, name in ((1, "spouts"), (2, "bolts")):
        if not isinstance(topo.get(fid), list):
            raise StormSerError(source, f"StormTopology has no {name} map")
    shared_names: dict[str, tuple[str, ...]] = {}
    for comp, names in topo.get(9, []):
        shared_names[_text(comp, source, "component_to_shared_memory")] = tuple(
            _text(n, source, "shared memory name") for n in names
        )
    shared: dict[str, SharedMemory] = {}
    for name, spec in topo.get(10, []):
        key = _text(name, source, "shared_memory name")
        shared[key] = SharedMemory(
            key,
            float(spec.get(2, 0.0)),
            float(spec.get(3, 0.0)),
            float(spec.get(4, 0.0)),
        )
    components = [
        _component(_text(k, source, "spout id"), "spout", v, shared_names, source)
        for k, v in topo[1]
    ]
    components += [
        _component(_text(k, source, "bolt id"), "bolt", v, shared_names, source) for k, v in topo[2]
    ]
    version = topo.get(7, b"")
    return {
        "components": components,
        "shared_memory": shared,
        "storm_version": version.decode("utf-8", "replace") if isinstance(version, bytes) else "",
    }


def parse_stormconf(data: bytes, source: str = "stormconf") -> dict[str, Any]:
    """Decode a gzip JSON topology conf, keeping the keys the schedulers read (CONF_KEYS)."""
    try:
        conf = json.loads(_gunzip(data, source).decode("utf-8"))
    except UnicodeDecodeError:
        raise StormSerError(source, "the conf is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise StormSerError(source, f"the conf is not JSON ({err.msg})") from None
    if not isinstance(conf, dict):
        raise StormSerError(source, "the conf is not a JSON object")
    return {k: conf[k] for k in CONF_KEYS if k in conf}


def _read(path: Path) -> bytes:
    """The file's bytes, kind and size checked first (:func:`core.importers.fetch.read_file`)."""
    try:
        return read_file(str(path))
    except ScenarioError as err:
        raise StormSerError(err.path, err.message) from None


def read_stormser(code_path: str | Path, conf_path: str | Path | None = None) -> StormSerTopology:
    """Read ``NAME-stormcode.ser`` and its ``NAME-stormconf.ser`` (found beside it if omitted).

    Raises
    ------
    StormSerError
        One line naming the file, for empty, truncated or malformed input, or a
        topology without executors (Storm's test skips those).
    """
    code_path = Path(code_path)
    if conf_path is None:
        stem = code_path.name.removesuffix("code.ser")
        conf_path = code_path.with_name(stem + "conf.ser")
    conf_path = Path(conf_path)
    parsed = parse_stormcode(_read(code_path), str(code_path))
    conf = parse_stormconf(_read(conf_path), str(conf_path))
    name = str(conf.get("topology.name") or code_path.name.removesuffix("-stormcode.ser"))
    topo = StormSerTopology(
        name, tuple(parsed["components"]), conf, parsed["shared_memory"], parsed["storm_version"]
    )
    if topo.executors == 0:
        raise StormSerError(str(code_path), f"topology '{name}' has no spout or bolt executors")
    return topo


def read_stormser_folder(folder: str | Path) -> tuple[list[StormSerTopology], list[str]]:
    """Every pair in a folder, sorted by name, and one line per pair that could not be used."""
    folder = Path(folder)
    topologies: list[StormSerTopology] = []
    problems: list[str] = []
    for code in sorted(folder.glob("*code.ser")):
        try:
            topologies.append(read_stormser(code))
        except StormSerError as err:
            problems.append(str(err))
    return topologies, problems


def _scenario_grouping(inp: StormInput) -> tuple[str, str | None]:
    mapping = {
        "shuffle": "shuffle",
        "fields": "fields",
        "local_or_shuffle": "local-or-shuffle",
        "all": "all",
        "global": "global",
    }
    if inp.grouping in mapping:
        return mapping[inp.grouping], None
    return "shuffle", f"{inp.grouping} grouping taken as shuffle"


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in edges.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def _without_cycles(
    streams: dict[tuple[str, str], dict[str, Any]], notes: list[str]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Streams from the spouts outward (breadth first), leaving out each one that would
    close a cycle (noted), so the stream back toward the spouts is the one dropped."""
    out_edges: dict[str, list[str]] = {}
    for src, dst in streams:
        out_edges.setdefault(src, []).append(dst)
    targets = {dst for _src, dst in streams}
    depth = {src: 0 for src in out_edges if src not in targets}
    frontier = list(depth)
    while frontier:
        nxt = []
        for node in frontier:
            for dst in out_edges.get(node, ()):
                if dst not in depth:
                    depth[dst] = depth[node] + 1
                    nxt.append(dst)
        frontier = nxt
    order = sorted(streams, key=lambda k: depth.get(k[0], len(streams)))
    kept: dict[tuple[str, str], dict[str, Any]] = {}
    edges: dict[str, set[str]] = {}
    for src, dst in order:
        stream = streams[(src, dst)]
        if _reaches(edges, dst, src):
            notes.append(f"stream '{src}' -> '{dst}' closes a cycle and is dropped")
            continue
        kept[(src, dst)] = stream
        edges.setdefault(src, set()).add(dst)
    return kept


def to_scenario_topology(topo: StormSerTopology) -> tuple[dict[str, Any], list[str]]:
    """A slotscope scenario ``topology`` dict (core/model.py) for one stormser topology.

    CPU, on-heap and off-heap memory (``cpu_pct``, ``memory_mb``, ``offheap_mb``) come
    from each component's json_conf, else the topology conf, else Storm's defaults.yaml
    (10 % of a core, 128 MB, 0 MB), as ``NormalizedResourceRequest`` resolves them (the
    ras-* port's :func:`core.ras.model.request_from_conf`); the acker executors' request
    the same way from the conf's acker keys (``acker_cpu_pct``, ``acker_memory_mb``,
    ``acker_offheap_mb``, written where they differ from Storm's defaults). Generic
    resources (e.g. ``network.resource.units``) are not carried and are noted. Streams between
    the same pair of components are merged, self-loops, inputs from unknown (system)
    components and streams closing a cycle are dropped (the scenario format is
    acyclic), bolts left without input become sources, and groupings the scenario
    format lacks become shuffle; each such change is returned as one line. Workers,
    acker executors, worker heap and priority are the conf's; its
    ``topology.scheduler.strategy`` becomes ``scheduler_params.ras.strategy`` (a ras-*
    id, :func:`own_strategy`), which the ras-* schedulers run as Nimbus does, and the
    constraint solver's settings and the other scheduling settings off Storm's defaults
    join it under their Storm names (:func:`solver_settings`, :func:`scheduling_settings`),
    which :mod:`core.ras.scenario` reads.
    """
    notes: list[str] = []
    ids = {c.id for c in topo.components}
    components = []
    generic: dict[str, float] = {}
    for c in topo.components:
        if c.parallelism < 1:
            notes.append(f"component '{c.id}' has parallelism 0 and is left out")
            continue
        request, extra = _request(c.conf, topo.conf, c.id)
        for name, amount in extra.items():
            generic[name] = max(generic.get(name, 0.0), amount)
        comp: dict[str, Any] = {"id": c.id, "parallelism": c.parallelism, "kind": c.kind}
        comp.update({k: v for k, v in request.items() if k != "offheap_mb" or v})
        components.append(comp)
    if generic:
        shown = ", ".join(f"{k} (up to {v:g} per executor)" for k, v in sorted(generic.items()))
        notes.append(f"generic resources requested, not carried by the scenario format: {shown}")
    kept = {c["id"] for c in components}
    streams: dict[tuple[str, str], dict[str, Any]] = {}
    for c in topo.components:
        for inp in c.inputs:
            if inp.component not in ids or inp.component not in kept or c.id not in kept:
                notes.append(f"input of '{c.id}' from '{inp.component}' dropped")
                continue
            if inp.component == c.id:
                notes.append(f"stream from '{c.id}' to itself dropped")
                continue
            grouping, note = _scenario_grouping(inp)
            if note:
                notes.append(f"'{inp.component}' -> '{c.id}': {note}")
            streams.setdefault(
                (inp.component, c.id), {"from": inp.component, "to": c.id, "grouping": grouping}
            )
    streams = _without_cycles(streams, notes)
    fed = {target for _source, target in streams}
    for comp in components:
        if comp["kind"] == "bolt" and comp["id"] not in fed:
            del comp["kind"]
            notes.append(f"bolt '{comp['id']}' has no input stream left and is taken as a source")
    out: dict[str, Any] = {"name": topo.name, "components": components}
    workers = topo.conf.get("topology.workers")
    if isinstance(workers, int) and workers >= 1:
        out["workers"] = workers
    ackers = topo.conf.get("topology.acker.executors")
    if isinstance(ackers, int) and ackers >= 0:
        out["ackers"] = ackers
    heap = topo.conf.get("topology.worker.max.heap.size.mb")
    if isinstance(heap, int | float) and not isinstance(heap, bool) and 0 < heap <= 1_048_576:
        out["worker_max_heap_mb"] = float(heap)
    priority = topo.conf.get("topology.priority")
    if isinstance(priority, int) and not isinstance(priority, bool) and priority >= 0:
        out["priority"] = priority  # Storm's scheduling order in a topology set
    acker, _generic = _request({}, topo.conf, ACKER_COMPONENT_ID)
    for key, value in acker.items():
        if value != STORM_DEFAULT_REQUEST[key]:
            out[f"acker_{key}"] = value
    own = {**solver_settings(topo.conf, kept, notes), **scheduling_settings(topo.conf)}
    strategy = own_strategy(topo.conf, notes)
    if strategy is not None:
        own = {STRATEGY_PARAM: strategy, **own}
    if own:
        out["scheduler_params"] = {OWN_SCHEDULER_KEY: own}
    out["streams"] = list(streams.values())
    return out, notes


ACKER_COMPONENT_ID = "__acker"  # org.apache.storm.daemon.Acker.ACKER_COMPONENT_ID


def _request(
    component_conf: Mapping[str, Any], topo_conf: Mapping[str, Any], component_id: str
) -> tuple[dict[str, float], dict[str, float]]:
    """One executor's request as the scenario fields carry it (``cpu_pct``, ``memory_mb``,
    ``offheap_mb``) and its generic resources, resolved exactly as the ras-* port resolves
    Nimbus's conf (:func:`core.ras.model.request_from_conf`: the component's
    ``topology.component.resources.map`` over its legacy keys, then the topology conf, the
    acker's own keys for ``__acker``, then Storm's defaults.yaml)."""
    from core.ras.model import request_from_conf  # here: core.ras imports this module

    req = request_from_conf(component_conf, topo_conf, component_id)
    fields = {"cpu_pct": req.cpu, "memory_mb": req.onheap, "offheap_mb": req.offheap}
    return fields, dict(req.generic)


def scheduling_settings(conf: Mapping[str, Any]) -> dict[str, Any]:
    """The conf's other scheduling settings the ras-* port reads (:data:`SETTING_CONF_KEYS`:
    acker executors bound per new worker, isolated machines, favoured and unfavoured hosts)
    that differ from Storm's defaults, under their Storm names. Nimbus's own
    ``scheduling.timeout.seconds.per.topology``, which the corpus confs also carry, is a
    daemon setting and stays out: the ras-* schedulers run with Storm's default.

    >>> scheduling_settings({"topology.ras.acker.executors.per.worker": 1,
    ...                      "topology.isolate.machines": 3})
    {'topology.isolate.machines': 3}
    """
    out: dict[str, Any] = {}
    for key in SETTING_CONF_KEYS:
        value = conf.get(key)
        if value in (None, [], {}) or isinstance(value, bool):
            continue
        if key == ACKERS_PER_WORKER_KEY and value == STORM_DEFAULT_ACKERS_PER_WORKER:
            continue
        out[key] = list(value) if isinstance(value, list | tuple) else value
    return out


def _named_components(value: Any) -> list[str]:
    """Component names a constraints or spread value mentions (either of Storm's forms)."""
    if isinstance(value, Mapping):
        names = [str(k) for k in value]
        for spec in value.values():
            if isinstance(spec, Mapping):
                others = spec.get("incompatibleComponents", [])
                names += [str(o) for o in (others if isinstance(others, list) else [others])]
        return names
    if isinstance(value, list):
        return [str(v) for item in value for v in (item if isinstance(item, list) else [item])]
    return []


def solver_settings(
    conf: Mapping[str, Any], components: set[str], notes: list[str] | None = None
) -> dict[str, Any]:
    """The conf's constraint-solver settings (:data:`SOLVER_CONF_KEYS`) that differ from
    Storm's defaults, under their Storm names, as ``scheduler_params.ras`` carries them.

    Constraints naming components the topology does not have are kept as given (Storm's
    ``ConstraintSolverConfig`` skips those names) and said in ``notes``.

    >>> solver_settings({"topology.ras.constraints": [["a", "b"]],
    ...                  "topology.ras.constraint.max.state.search": 10000,
    ...                  "topology.ras.one.component.per.worker": True}, {"a", "b"})
    {'topology.ras.constraints': [['a', 'b']], 'topology.ras.one.component.per.worker': True}
    """
    out: dict[str, Any] = {}
    for key in SOLVER_CONF_KEYS:
        value = conf.get(key)
        if value in (None, False, [], {}) or (
            key == MAX_STATE_SEARCH_KEY and value == STORM_DEFAULT_STATE_SEARCH
        ):
            continue
        out[key] = value
    unknown = sorted(
        {n for key in (CONSTRAINTS_KEY, SPREAD_KEY) for n in _named_components(out.get(key))}
        - components
    )
    if unknown and notes is not None:
        more = f" and {len(unknown) - 6} more" if len(unknown) > 6 else ""
        shown = ", ".join(unknown[:6]) + more
        notes.append(
            f"{CONSTRAINTS_KEY} / {SPREAD_KEY} name components the topology does not have "
            f"({shown}): Storm's constraint solver skips them"
        )
    return out


def own_strategy(conf: Mapping[str, Any], notes: list[str] | None = None) -> str | None:
    """The ras-* id of the conf's ``topology.scheduler.strategy``, or None.

    None when the conf names no strategy (the scheduler run then decides) or one that
    is not Storm's (a custom class; said in ``notes``).

    >>> own_strategy({"topology.scheduler.strategy": "backtype.storm.scheduler.resource."
    ...               "strategies.scheduling.GenericResourceAwareStrategy"})
    'ras-generic'
    """
    raw = conf.get("topology.scheduler.strategy")
    if raw is None:
        return None
    strategy = STORM_STRATEGY_IDS.get(str(raw).rsplit(".", 1)[-1])
    if strategy is None and notes is not None:
        notes.append(
            f"topology.scheduler.strategy {str(raw)[:120]!r} is none of Storm's resource-aware "
            "strategies: the scheduler run chooses"
        )
    return strategy

"""Import a real topology: Apache Storm UI REST responses or an Apache Flink job plan.

``import_documents`` takes parsed JSON documents (files or HTTP responses), tells
what each one is (:func:`classify`), and builds one validated scenario with the
list of what had to be assumed (:class:`~core.importers.common.Imported`).
``import_sources`` does the same from file paths and URLs (``slotscope import``).

Accepted documents:

=====================  =================================================
``storm-topology``     ``/api/v1/topology/:id`` (``spouts``, ``bolts``)
``storm-visualization`` ``/api/v1/topology/:id/visualization``
``storm-supervisors``  ``/api/v1/supervisor/summary`` (``supervisors``)
``flink-plan``         ``get_execution_plan()``, ``/jobs/:id/plan``, ``/jobs/:id``
=====================  =================================================
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.importers.common import (
    CPU_PCT_PER_CORE,
    MB_PER_GB,
    STORM_CPU_PCT_PER_NODE,
    STORM_MEMORY_MB_PER_NODE,
    STORM_SLOTS_PER_NODE,
    Imported,
    default_nodes,
    parse_document,
)
from core.importers.fetch import FETCH_TIMEOUT_S, documents_from_url, is_url, read_file
from core.importers.flink import flink_scenario, is_flink_plan
from core.importers.storm import storm_scenario
from core.importers.stormser import (
    MAX_STATE_SEARCH_KEY,
    OWN_SCHEDULER_KEY,
    STORM_DEFAULT_STATE_SEARCH,
    STORM_STRATEGY_IDS,
    STRATEGY_PARAM,
    StormSerTopology,
    read_stormser,
    read_stormser_folder,
    to_scenario_topology,
)
from core.model import ScenarioError, validate_scenario

STORM_TOPOLOGY = "storm-topology"
STORM_VISUALIZATION = "storm-visualization"
STORM_SUPERVISORS = "storm-supervisors"
FLINK_PLAN = "flink-plan"
KINDS = (STORM_TOPOLOGY, STORM_VISUALIZATION, STORM_SUPERVISORS, FLINK_PLAN)
EXPECTED = (
    "expected a Storm UI response (/api/v1/topology/:id with 'spouts' and 'bolts', "
    "/api/v1/topology/:id/visualization, /api/v1/supervisor/summary with 'supervisors') "
    "or a Flink job plan ('nodes')"
)

__all__ = ["Imported", "classify", "import_documents", "import_sources", "parse_document"]


def classify(doc: Any, source: str = "document") -> str:
    """What a parsed JSON document is: one of :data:`KINDS`; ScenarioError otherwise.

    >>> classify({"supervisors": []}), classify({"nodes": [{"pact": "Data Source"}]})
    ('storm-supervisors', 'flink-plan')
    """
    if not isinstance(doc, Mapping):
        raise ScenarioError(source, f"not a JSON object: {EXPECTED}")
    if ("topology" in doc or "topologies" in doc) and "cluster" in doc:
        raise ScenarioError(
            source, "this is already a slotscope scenario: load it as a scenario, not an import"
        )
    if "spouts" in doc or "bolts" in doc:
        return STORM_TOPOLOGY
    if "supervisors" in doc:
        return STORM_SUPERVISORS
    if is_flink_plan(doc):
        return FLINK_PLAN
    if doc and all(isinstance(v, Mapping) and ":inputs" in v for v in doc.values()):
        return STORM_VISUALIZATION
    keys = ", ".join(repr(k) for k in list(doc)[:6]) or "none"
    raise ScenarioError(source, f"unrecognised document (top-level fields: {keys}): {EXPECTED}")


def import_documents(docs: Sequence[tuple[str, Any]], notes: Sequence[str] = ()) -> Imported:
    """One scenario from (source name, parsed JSON) pairs.

    Storm needs its topology response and its visualization; the supervisor summary
    is optional (default nodes otherwise). A Flink plan stands alone. ``notes`` (what
    could not be fetched) lead the warnings; the scenario's description names the
    topic of every warning, so the file says what was assumed.

    Raises
    ------
    ScenarioError
        An unrecognised, duplicated, missing or malformed document, named.
    """
    if not docs:
        raise ScenarioError("import", "nothing to import")
    found: dict[str, tuple[str, Any]] = {}
    for source, doc in docs:
        kind = classify(doc, source)
        if kind in found:
            raise ScenarioError(
                source, f"a second {kind} document (the first is {found[kind][0]}): give one"
            )
        found[kind] = (source, doc)
    if FLINK_PLAN in found:
        if len(found) > 1:
            others = ", ".join(src for k, (src, _) in found.items() if k != FLINK_PLAN)
            raise ScenarioError(others, "a Flink plan is imported alone, without Storm responses")
        imported = flink_scenario(found[FLINK_PLAN][1])
    elif STORM_TOPOLOGY not in found:
        given = ", ".join(src for src, _ in found.values())
        raise ScenarioError(
            given, "the Storm topology response (/api/v1/topology/:id) is missing: give it too"
        )
    else:
        imported = storm_scenario(
            found[STORM_TOPOLOGY][1],
            found.get(STORM_VISUALIZATION, (None, None))[1],
            found.get(STORM_SUPERVISORS, (None, None))[1],
        )
    imported.warnings[:0] = list(notes)
    return _described(imported)


def _described(imported: Imported) -> Imported:
    """The scenario's description ends with the topics of the assumptions made."""
    if not imported.warnings:
        return imported
    topics = list(dict.fromkeys(w.split(":", 1)[0] for w in imported.warnings))
    sc = imported.scenario
    text = f"{sc.description} Assumed, as the source does not give them: {'; '.join(topics)}."
    imported.scenario = sc.model_copy(update={"description": text})
    return imported


STORMCODE_SUFFIX = "-stormcode.ser"  # Nimbus's stored topology (its conf beside it)
SHARE_DECIMALS = 9  # sums rounded to this before a ceiling (so 6.000000001 nodes is 6)
TOP_UP_FRACTION = 0.01  # least share of nodes added per try when a topology does not fit
TOP_UP_TRIES = 10  # tries before the import keeps the cluster and says what did not fit
DEFAULT_STRATEGY = "ras-default"  # topology.scheduler.strategy's default in Storm 2
WORKLOAD_NOTE = (
    "workload: no offered rate, per-tuple CPU or tuple size in Nimbus's files; the "
    "scenario format's defaults"
)


@dataclass(frozen=True)
class Demand:
    """What one stored topology asks of a cluster, by Storm's accounting: per group of
    identical executors (each kept component, then the ackers) the count and the request
    of one executor (``NormalizedResourceRequest``: CPU %, on-heap and off-heap MB)."""

    name: str
    count: np.ndarray  # executors per group
    cpu: np.ndarray  # % of one core per executor
    onheap: np.ndarray  # MB per executor
    offheap: np.ndarray  # MB per executor
    labels: tuple[str, ...]  # component id per group ("__acker" for the ackers)
    workers: int  # topology.workers (1 when the conf has none)
    max_heap_mb: float  # topology.worker.max.heap.size.mb (Storm's 768 by default)
    max_states: int  # the search's state limit: the topology's and Nimbus' default, lower

    @property
    def memory(self) -> np.ndarray:
        """On-heap + off-heap MB per executor (``getTotalMemoryMb``)."""
        return self.onheap + self.offheap

    @property
    def heap_workers(self) -> int:
        """Workers the on-heap memory needs at the worker heap limit (a lower bound)."""
        return _ceil(float(self.count @ self.onheap) / self.max_heap_mb)


def _ceil(value: float) -> int:
    return max(1, math.ceil(round(value, SHARE_DECIMALS)))


def storm_demand(topology: StormSerTopology, doc: Mapping[str, Any]) -> Demand:
    """:class:`Demand` of a stored topology as its scenario ``doc`` keeps it: each kept
    component with Storm's request from its json_conf, the topology conf and defaults.yaml
    (:func:`core.ras.model.request_from_conf`), and ``doc["ackers"]`` acker executors with
    the conf's acker request, at least Storm's component default that the ras-*
    schedulers charge an acker (10 % and 128 MB, :mod:`core.ras.scenario`)."""
    from core.ras.model import (  # here: core.ras imports this package
        ACKER_ID,
        DEFAULT_DAEMON_MAX_STATE_SEARCH,
        DEFAULT_WORKER_MAX_HEAP_MB,
        Request,
        request_from_conf,
    )

    confs = {c.id: c.conf for c in topology.components}
    groups = [
        (c["id"], int(c["parallelism"]), request_from_conf(confs[c["id"]], topology.conf, c["id"]))
        for c in doc["components"]
    ]
    states = doc.get("scheduler_params", {}).get(OWN_SCHEDULER_KEY, {}).get(MAX_STATE_SEARCH_KEY)
    if not isinstance(states, int | float) or isinstance(states, bool):
        states = STORM_DEFAULT_STATE_SEARCH
    ackers = int(doc.get("ackers") or 0)
    if ackers:
        declared, charged = request_from_conf({}, topology.conf, ACKER_ID), Request()
        acker = Request(
            max(declared.cpu, charged.cpu),
            max(declared.onheap, charged.onheap),
            max(declared.offheap, charged.offheap),
        )
        groups.append((ACKER_ID, ackers, acker))
    return Demand(
        str(doc["name"]),
        np.array([n for _, n, _ in groups], dtype=float),
        np.array([r.cpu for _, _, r in groups], dtype=float),
        np.array([r.onheap for _, _, r in groups], dtype=float),
        np.array([r.offheap for _, _, r in groups], dtype=float),
        tuple(cid for cid, _, _ in groups),
        int(doc.get("workers") or 1),
        float(doc.get("worker_max_heap_mb") or DEFAULT_WORKER_MAX_HEAP_MB),
        min(int(states), DEFAULT_DAEMON_MAX_STATE_SEARCH),
    )


@dataclass(frozen=True)
class ClusterSize:
    """Storm's default supervisors enough for a set of :class:`Demand`.

    ``needs`` gives the nodes each reason alone asks for: ``CPU`` (total CPU / a node's),
    ``memory`` (total on-heap + off-heap MB / a node's), ``slots`` (workers / 4 slots: each
    topology's ``topology.workers``, and at least its on-heap over its worker heap limit)
    and ``shares`` (each executor takes the larger of its CPU and memory share of a
    node, summed: CPU and memory together). ``nodes`` is their largest; a node is Storm's
    default unless the largest executor needs more CPU or memory (then whole cores, GB).
    """

    nodes: int
    cpu_pct: float  # per node, % of one core
    memory_mb: float  # per node, MB
    needs: Mapping[str, int]
    totals: Mapping[str, float]  # "CPU" %, "memory" MB, "slots" workers, "shares" nodes
    shares: Mapping[str, float]  # topology -> its node shares
    larger: str = ""  # what a node has over Storm's default and why, or ""

    @property
    def deciding(self) -> list[str]:
        """The reasons whose node count is ``nodes`` (ties listed)."""
        return [k for k, v in self.needs.items() if v == max(self.needs.values())]


def size_cluster(demands: Sequence[Demand]) -> ClusterSize:
    """Storm's default supervisors (defaults.yaml: 400 % CPU, 4,096 MB, 4 slots) for the
    demands together, each executor fitting one node.

    >>> d = Demand("t", np.array([4.0]), np.array([100.0]), np.array([512.0]),
    ...            np.array([0.0]), ("c",), 1, 768.0, 10_000)
    >>> size = size_cluster([d]); size.nodes, size.deciding
    (1, ['CPU', 'memory', 'slots', 'shares'])
    """
    big_cpu = max(float(d.cpu.max(initial=0.0)) for d in demands)
    big_mem = max(float(d.memory.max(initial=0.0)) for d in demands)
    node_cpu = max(STORM_CPU_PCT_PER_NODE, math.ceil(big_cpu / CPU_PCT_PER_CORE) * CPU_PCT_PER_CORE)
    node_mem = max(STORM_MEMORY_MB_PER_NODE, math.ceil(big_mem / MB_PER_GB) * MB_PER_GB)
    larger = []
    for big, node, default, unit, what in (
        (big_cpu, node_cpu, STORM_CPU_PCT_PER_NODE, " % CPU", "cpu"),
        (big_mem, node_mem, STORM_MEMORY_MB_PER_NODE, " MB", "memory"),
    ):
        if node > default:
            demand, group = max(
                ((d, i) for d in demands for i in range(d.count.size)),
                key=lambda di: getattr(di[0], what)[di[1]],
            )
            larger.append(
                f"{node:,.0f}{unit} (one executor of {demand.name}'s "
                f"'{demand.labels[group]}' asks {big:,.0f}{unit})"
            )
    cpu = sum(float(d.count @ d.cpu) for d in demands)
    memory = sum(float(d.count @ d.memory) for d in demands)
    slots = sum(max(d.workers, d.heap_workers) for d in demands)
    by_topology = {
        d.name: float(d.count @ np.maximum(d.cpu / node_cpu, d.memory / node_mem)) for d in demands
    }
    shares = sum(by_topology.values())
    needs = {
        "CPU": _ceil(cpu / node_cpu),
        "memory": _ceil(memory / node_mem),
        "slots": _ceil(slots / STORM_SLOTS_PER_NODE),
        "shares": _ceil(shares),
    }
    return ClusterSize(
        max(needs.values()),
        node_cpu,
        node_mem,
        needs,
        {"CPU": cpu, "memory": memory, "slots": float(slots), "shares": shares},
        by_topology,
        " and ".join(larger),
    )


def _nodes(size: ClusterSize, count: int) -> list[dict[str, Any]]:
    nodes = default_nodes(count * STORM_SLOTS_PER_NODE, STORM_SLOTS_PER_NODE, "supervisor")
    for node in nodes:
        node["cores"] = int(size.cpu_pct / CPU_PCT_PER_CORE)
        node["ram_gb"] = size.memory_mb / MB_PER_GB
    return nodes


def unscheduled(scenario: Any) -> dict[str, float]:
    """Topologies Storm's resource-aware scheduler leaves unscheduled on the scenario's
    cluster, each run with its own strategy (``scheduler_params.ras.strategy``, else
    Storm's default), in one Nimbus round, as the ras-* schedulers run them: name ->
    the fraction of its executors its strategy had not placed when it gave up."""
    from core.ras.scenario import from_scenario  # here: core.ras imports this package
    from core.ras.schedule import TOPOLOGY_OWN, schedule_cluster  # the same

    classes = {sid: java for java, sid in STORM_STRATEGY_IDS.items()}
    cluster, topologies = from_scenario(scenario)
    for own, topo in zip(scenario.topology_set, topologies, strict=True):
        strategy = own.scheduler_params.get(OWN_SCHEDULER_KEY, {}).get(STRATEGY_PARAM)
        topo.strategy_class = classes.get(strategy, classes[DEFAULT_STRATEGY])
    result = schedule_cluster(cluster, topologies, TOPOLOGY_OWN)
    return {
        name: 1.0 - res.placed / res.executors if res.executors else 1.0
        for name, res in result.results.items()
        if not res.success
    }


def _never_fit(demands: Sequence[Demand]) -> dict[str, str]:
    """Topology -> why no cluster holds it: more executors than its search's state limit
    (``checkSchedulingFeasibility``) or an executor's on-heap over its worker heap."""
    out = {}
    for d in demands:
        executors = int(d.count.sum())
        if executors >= d.max_states:
            out[d.name] = (
                f"{d.name}'s {executors:,} executors reach its search's limit of "
                f"{d.max_states:,} states (topology.ras.constraint.max.state.search)"
            )
            continue
        over = np.flatnonzero(d.onheap > d.max_heap_mb)
        if over.size:
            i = int(over[0])
            out[d.name] = (
                f"{d.name}'s '{d.labels[i]}' asks {d.onheap[i]:,.0f} MB on-heap, over its "
                f"worker heap limit of {d.max_heap_mb:,.0f} MB (topology.worker.max.heap.size.mb)"
            )
    return out


def sized_scenario(
    data: dict[str, Any], demands: Sequence[Demand], warnings: list[str]
) -> Imported:
    """The scenario ``data`` on Storm's default supervisors sized for ``demands``
    (:func:`size_cluster`), then checked with Storm's own strategies
    (:func:`unscheduled`): while a topology does not fit, more nodes (the node shares of
    what its strategy had left unplaced, at least 1 % and one node), up to
    :data:`TOP_UP_TRIES` times. How many nodes and why is the ``nodes:`` warning."""
    size = size_cluster(demands)
    count = size.nodes
    data["cluster"] = {"nodes": _nodes(size, count)}
    scenario = validate_scenario(data)
    never = _never_fit(demands)
    left = {t: f for t, f in unscheduled(scenario).items() if t not in never}
    tries = 0
    while left and tries < TOP_UP_TRIES:
        tries += 1
        unplaced = sum(size.shares[t] * f for t, f in left.items())
        count += max(math.ceil(count * TOP_UP_FRACTION), math.ceil(round(unplaced, SHARE_DECIMALS)))
        data["cluster"] = {"nodes": _nodes(size, count)}
        scenario = validate_scenario(data)
        left = {t: f for t, f in unscheduled(scenario).items() if t not in never}
    subject = "the set" if len(demands) > 1 else "it"
    warnings += [_nodes_note(size, count, left, never, subject), WORKLOAD_NOTE]
    return Imported(scenario, warnings)


def _nodes_note(
    size: ClusterSize, count: int, left: Mapping[str, float], never: Mapping[str, str], subject: str
) -> str:
    """The ``nodes:`` warning: how many supervisors, of what, and which reason decided."""
    t, need = size.totals, size.needs
    decides = {k: ", decides" if k in size.deciding else "" for k in need}
    node = (
        f"each Storm's default ({STORM_SLOTS_PER_NODE} slots, "
        f"{STORM_CPU_PCT_PER_NODE:,.0f} % CPU, {STORM_MEMORY_MB_PER_NODE:,.0f} MB)"
    )
    text = (
        f"nodes: Nimbus's files carry no cluster; {count:,} supervisor(s), {node}"
        + (f" but with {size.larger}" if size.larger else "")
        + f". By Storm's accounting (ackers included) {subject} asks {t['CPU']:,.0f} % CPU "
        f"({need['CPU']:,} nodes{decides['CPU']}), {t['memory']:,.0f} MB on-heap + off-heap "
        f"({need['memory']:,}{decides['memory']}), {t['slots']:,.0f} workers at "
        f"{STORM_SLOTS_PER_NODE} per node ({need['slots']:,}{decides['slots']}) and "
        f"{t['shares']:,.2f} node shares, each executor at the larger of its CPU and memory "
        f"share of a node ({need['shares']:,}{decides['shares']})"
    )
    if count > size.nodes and not left:
        text += f"; Storm's strategies packed it only with {count - size.nodes:,} more"
    if left:
        text += (
            f"; on {count:,} nodes, after {TOP_UP_TRIES} tries with more, Storm's strategies "
            f"still do not fit {', '.join(left)}"
        )
    if never:
        text += "; never fits: " + "; ".join(never.values())
    return text


def check_executors(docs: Sequence[Mapping[str, Any]], limit: int | None) -> None:
    """ScenarioError when the topologies ``docs`` hold more than ``limit`` executors (ackers
    included): checked before the cluster is sized, which runs Storm's strategies."""
    executors = sum(
        sum(int(c["parallelism"]) for c in doc["components"]) + int(doc.get("ackers") or 0)
        for doc in docs
    )
    if limit is not None and executors > limit:
        raise ScenarioError(
            "topologies", f"{executors:,} executors in all: at most {limit:,} are taken here"
        )


def stormser_scenario(path: str, max_executors: int | None = None) -> Imported:
    """One scenario from a topology as Nimbus stores it: ``NAME-stormcode.ser`` with its
    ``NAME-stormconf.ser`` beside it (:mod:`core.importers.stormser`). The files carry no
    cluster, rates or per-tuple costs: Storm's default supervisors enough for the topology
    by Storm's accounting (:func:`sized_scenario`), and the scenario format's defaults,
    each said in a warning."""
    topology = read_stormser(path)
    doc, notes = to_scenario_topology(topology)
    check_executors([doc], max_executors)
    data = {
        "name": topology.name,
        "description": f"{topology.name}, read from Nimbus's {Path(path).name}.",
        "topology": doc,
    }
    imported = sized_scenario(
        data, [storm_demand(topology, doc)], [f"topology: {note}" for note in notes]
    )
    imported.source = path
    return _described(imported)


def stormser_folder_scenario(folder: str, max_executors: int | None = None) -> Imported:
    """A topology-set scenario from a folder of topologies as Nimbus stores them (every
    ``NAME-stormcode.ser`` with its ``NAME-stormconf.ser``): one topology each, sorted by
    name, on Storm's default supervisors enough for the whole set (:func:`sized_scenario`);
    a pair that cannot be read is left out and said in a warning (Storm's own corpus has
    an empty file)."""
    read, problems = read_stormser_folder(folder)
    if not read:
        found = f": {problems[0]}" if problems else ""
        raise ScenarioError(folder, f"no readable NAME{STORMCODE_SUFFIX} in the folder{found}")
    docs, demands, warnings = [], [], [f"topologies: left out, {p}" for p in problems]
    for topology in read:
        doc, notes = to_scenario_topology(topology)
        docs.append(doc)
        demands.append(storm_demand(topology, doc))
        warnings += [f"topology {topology.name}: {note}" for note in notes]
    check_executors(docs, max_executors)
    name = Path(folder).resolve().name or "topologies"
    data: dict[str, Any] = {
        "name": name,
        "description": f"{len(docs)} topologies read from Nimbus's files in {name}/.",
    }
    data["topologies" if len(docs) > 1 else "topology"] = docs if len(docs) > 1 else docs[0]
    imported = sized_scenario(data, demands, warnings)
    imported.source = folder
    return _described(imported)


def import_sources(sources: Sequence[str], timeout_s: float | None = None) -> Imported:
    """One scenario from file paths and http(s) URLs (a Storm UI or Flink REST address),
    from one topology as Nimbus stores it (``NAME-stormcode.ser``), or from a folder of
    them (a topology set)."""
    folders = [s for s in sources if not is_url(s) and os.path.isdir(s)]  # False on OSError
    if folders:
        if len(sources) > 1:
            raise ScenarioError(folders[0], "a folder of stored topologies is imported alone")
        return stormser_folder_scenario(folders[0])
    stored = [s for s in sources if s.endswith(STORMCODE_SUFFIX)]
    if stored:
        if len(sources) > 1:
            raise ScenarioError(
                stored[0], "a stored topology is imported alone (its stormconf is found beside it)"
            )
        return stormser_scenario(stored[0])
    docs: list[tuple[str, Any]] = []
    extra: list[str] = []
    for src in sources:
        if is_url(src):
            got, notes = documents_from_url(src, timeout_s or FETCH_TIMEOUT_S)
            docs += got
            extra += notes
        else:
            docs.append((src, parse_document(read_file(src), src)))
    return import_documents(docs, extra)

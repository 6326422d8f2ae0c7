"""Apache Flink job plans -> a slotscope scenario.

Two shapes of the same plan are read:

``StreamExecutionEnvironment.get_execution_plan()`` (the StreamGraph)
    ``{"nodes": [{"id": 1, "contents": "split", "pact": "Operator",
    "parallelism": 4, "predecessors": [{"id": 1, "ship_strategy": "REBALANCE"}]}]}``:
    one node per operator.
REST ``GET /jobs/:jobid/plan`` (the JobGraph, ``JobPlanInfo``)
    ``{"plan": {"jid": ..., "name": ..., "nodes": [{"id": "<hex>", "description":
    "split<br/>", "parallelism": 4, "inputs": [{"id": ..., "ship_strategy": "HASH"}]}]}}``:
    one node per chain of operators (what Flink runs as one task). ``GET /jobs/:jobid``
    carries the same ``plan``.

Ship strategies (Flink's ``StreamPartitioner.toString()``) become Storm groupings:
HASH (``key_by``) -> fields, REBALANCE -> shuffle, FORWARD -> local-or-shuffle,
BROADCAST -> all, GLOBAL -> global, SHUFFLE (random) -> shuffle. Others
(RESCALE, CUSTOM, ...) have no Storm grouping: they are modelled as shuffle and
named in the warnings. A Flink plan carries no CPU cost, selectivity, rate or
hardware: those get documented defaults, listed in the warnings.

References
----------
Apache Flink, "REST API: /jobs/:jobid/plan",
https://nightlies.apache.org/flink/flink-docs-stable/docs/ops/rest_api/
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from core.importers.common import (
    DEFAULT_CPU_US,
    DEFAULT_RATE,
    FLINK_SLOTS_PER_TASKMANAGER,
    STORM_CPU_PCT_PER_NODE,
    STORM_MEMORY_MB_PER_NODE,
    Imported,
    Reader,
    default_nodes,
    unique_ids,
    validated,
)
from core.model import MAX_COMPONENTS, MAX_EXECUTORS, MAX_NODES, Component

SHIP_STRATEGIES = {
    "HASH": "fields",
    "REBALANCE": "shuffle",
    "FORWARD": "local-or-shuffle",
    "BROADCAST": "all",
    "GLOBAL": "global",
    "SHUFFLE": "shuffle",
}
SOURCE_PACT = "Data Source"  # StreamGraph plans mark sources with this pact
DEFAULT_SELECTIVITY = Component.model_fields["selectivity"].default
PLAN = "flink plan"
_TAGS = re.compile(r"<[^>]+>")


def is_flink_plan(doc: Any) -> bool:
    """A Flink plan in either shape (or a job-details document carrying one).

    >>> is_flink_plan({"nodes": [{"id": 1, "parallelism": 2}]}), is_flink_plan({"nodes": []})
    (True, False)
    """
    if isinstance(doc, Mapping) and isinstance(doc.get("plan"), Mapping):
        doc = doc["plan"]
    if not isinstance(doc, Mapping) or not isinstance(doc.get("nodes"), list):
        return False
    marks = {"pact", "contents", "parallelism", "predecessors", "inputs"}
    return "jid" in doc or any(isinstance(n, Mapping) and marks & n.keys() for n in doc["nodes"])


def _label(text: str) -> str:
    """An operator's name from its plan text (REST descriptions carry HTML breaks).

    >>> _label("Source: Collection Source<br/>")
    'Source: Collection Source'
    """
    return " ".join(_TAGS.sub(" ", text).split())


def _parallelism(r: Reader, node: Mapping[str, Any], path: str, before: int) -> int:
    """An operator's parallelism, checked against the limits before anything is built:
    each parallel instance is an executor (at most ``MAX_EXECUTORS`` in all), and the
    widest operator sets the TaskManagers of one slot each (at most ``MAX_NODES``)."""
    p = r.count(node, "parallelism", path)
    most = MAX_NODES * FLINK_SLOTS_PER_TASKMANAGER
    if p > most:
        raise r.fail(
            f"{path}.parallelism",
            f"{p:,} needs {p:,} TaskManagers of {FLINK_SLOTS_PER_TASKMANAGER} slot, more than "
            f"the limit of {MAX_NODES:,} nodes",
        )
    if before + p > MAX_EXECUTORS:
        raise r.fail(
            f"{path}.parallelism",
            f"{p:,} brings the plan to {before + p:,} executors, the limit is {MAX_EXECUTORS:,}",
        )
    return p


def flink_scenario(doc: Mapping[str, Any]) -> Imported:
    """A validated scenario from a Flink plan (parsed JSON).

    Raises
    ------
    ScenarioError
        A missing or unusable field, named with its path.
    """
    r = Reader(PLAN)
    r.obj(doc, "")
    job = doc
    prefix = ""
    if isinstance(doc.get("plan"), Mapping):
        job, prefix = doc["plan"], "plan"
    nodes_path = f"{prefix}.nodes" if prefix else "nodes"
    rows = r.items(job, "nodes", prefix)
    if not rows:
        raise r.fail(nodes_path, "the plan has no operator")
    if len(rows) > MAX_COMPONENTS:
        raise r.fail(nodes_path, f"{len(rows):,} operators, the limit is {MAX_COMPONENTS:,}")
    keys, names, parallelism, sources = [], [], [], []
    for i, raw in enumerate(rows):
        path = f"{nodes_path}[{i}]"
        node = r.obj(raw, path)
        keys.append(r.text(node, "id", path))
        label_key = next((k for k in ("contents", "description", "type") if node.get(k)), None)
        if label_key is None:
            raise r.fail(f"{path}.contents", "required field is missing (no operator name)")
        names.append(_label(r.text(node, label_key, path)) or keys[-1])
        parallelism.append(_parallelism(r, node, path, sum(parallelism)))
        sources.append(node.get("pact") == SOURCE_PACT)
    if len(set(keys)) != len(keys):
        dup = next(k for k, n in Counter(keys).items() if n > 1)
        raise r.fail(nodes_path, f"duplicate operator id {dup!r}")
    ids = dict(zip(keys, unique_ids(names, keys), strict=True))
    warnings: list[str] = []
    streams: dict[tuple[str, str], dict[str, Any]] = {}
    for i, raw in enumerate(rows):
        node, target = raw, ids[keys[i]]
        edge_key = "predecessors" if "predecessors" in node else "inputs"
        edges = node.get(edge_key)
        if edges is not None and not isinstance(edges, list):
            raise r.fail(f"{nodes_path}[{i}].{edge_key}", f"expected a list, got {edges!r}")
        for j, raw_edge in enumerate(edges or []):
            path = f"{nodes_path}[{i}].{edge_key}[{j}]"
            edge = r.obj(raw_edge, path)
            upstream = r.text(edge, "id", path)
            if upstream not in ids:
                raise r.fail(f"{path}.id", f"unknown operator id {upstream!r}")
            strategy = r.text(edge, "ship_strategy", path).upper()
            source = ids[upstream]
            grouping = SHIP_STRATEGIES.get(strategy)
            if grouping is None:
                grouping = "shuffle"
                warnings.append(
                    f"stream {source} -> {target}: Flink ship strategy {strategy} has no Storm "
                    f"grouping (known: {', '.join(SHIP_STRATEGIES)}); modelled as shuffle"
                )
            if (source, target) in streams:
                continue  # e.g. a union of one stream with itself: one stream here
            streams[(source, target)] = {"from": source, "to": target, "grouping": grouping}
    components = []
    for key, p, is_source in zip(keys, parallelism, sources, strict=True):
        comp: dict[str, Any] = {"id": ids[key], "parallelism": p}
        if is_source:
            comp["kind"] = "spout"
        components.append(comp)
    slots = max(parallelism)  # Flink's default slot sharing: one slot per parallel pipeline
    nodes = default_nodes(slots, FLINK_SLOTS_PER_TASKMANAGER, "taskmanager")
    warnings += [
        f"cpu_us: a Flink plan has no CPU costs; default {DEFAULT_CPU_US:g} us per tuple for "
        "every operator",
        f"selectivity: a Flink plan has no record counts; default {DEFAULT_SELECTIVITY:g} for "
        "every operator",
        f"offered rate: a Flink plan has none; default {DEFAULT_RATE:g} tuples/s per source",
        f"nodes: a Flink plan has no cluster; {len(nodes)} TaskManager(s) with Flink's default "
        f"{FLINK_SLOTS_PER_TASKMANAGER} slot each (enough for parallelism {slots}), Storm's "
        f"default supervisor hardware: {STORM_CPU_PCT_PER_NODE / 100:g} cores, "
        f"{STORM_MEMORY_MB_PER_NODE:g} MB, reference clock",
    ]
    name = str(job.get("name") or "flink-job")
    scenario = validated(
        {
            "name": name,
            "description": f"Imported from an Apache Flink job plan ({len(rows)} operators).",
            "topology": {
                "name": name,
                "workers": slots,
                "components": components,
                "streams": list(streams.values()),
            },
            "cluster": {"nodes": nodes},
        },
        PLAN,
    )
    return Imported(scenario, warnings, "flink")

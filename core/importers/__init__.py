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

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from core.importers.common import (
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
from core.importers.stormser import read_stormser, read_stormser_folder, to_scenario_topology
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


def stormser_scenario(path: str) -> Imported:
    """One scenario from a topology as Nimbus stores it: ``NAME-stormcode.ser`` with its
    ``NAME-stormconf.ser`` beside it (:mod:`core.importers.stormser`). The files carry no
    cluster, rates or per-tuple costs: Storm's default supervisors for the topology's
    workers, and the scenario format's defaults, each said in a warning."""
    topology = read_stormser(path)
    doc, notes = to_scenario_topology(topology)
    workers = int(doc.get("workers") or 1)
    nodes = default_nodes(workers, STORM_SLOTS_PER_NODE, "supervisor")
    warnings = [f"topology: {note}" for note in notes] + [
        f"nodes: Nimbus's files carry no cluster; {len(nodes)} node(s) with Storm's default "
        f"{STORM_SLOTS_PER_NODE} slots, {STORM_CPU_PCT_PER_NODE / 100:g} cores and "
        f"{STORM_MEMORY_MB_PER_NODE:g} MB",
        "workload: no offered rate, per-tuple CPU or tuple size in Nimbus's files; the "
        "scenario format's defaults",
    ]
    scenario = validate_scenario(
        {
            "name": topology.name,
            "description": f"{topology.name}, read from Nimbus's {Path(path).name}.",
            "topology": doc,
            "cluster": {"nodes": nodes},
        }
    )
    return _described(Imported(scenario, warnings, source=path))


def stormser_folder_scenario(folder: str) -> Imported:
    """A topology-set scenario from a folder of topologies as Nimbus stores them (every
    ``NAME-stormcode.ser`` with its ``NAME-stormconf.ser``): one topology each, sorted by
    name, on Storm's default supervisors for all their workers; a pair that cannot be
    read is left out and said in a warning (Storm's own corpus has an empty file)."""
    read, problems = read_stormser_folder(folder)
    if not read:
        found = f": {problems[0]}" if problems else ""
        raise ScenarioError(folder, f"no readable NAME{STORMCODE_SUFFIX} in the folder{found}")
    docs, warnings = [], [f"topologies: left out, {p}" for p in problems]
    for topology in read:
        doc, notes = to_scenario_topology(topology)
        docs.append(doc)
        warnings += [f"topology {topology.name}: {note}" for note in notes]
    workers = sum(int(d.get("workers") or 1) for d in docs)
    nodes = default_nodes(workers, STORM_SLOTS_PER_NODE, "supervisor")
    warnings += [
        f"nodes: Nimbus's files carry no cluster; {len(nodes)} node(s) with Storm's default "
        f"{STORM_SLOTS_PER_NODE} slots, {STORM_CPU_PCT_PER_NODE / 100:g} cores and "
        f"{STORM_MEMORY_MB_PER_NODE:g} MB for the {workers} workers of the set",
        "workload: no offered rate, per-tuple CPU or tuple size in Nimbus's files; the "
        "scenario format's defaults",
    ]
    name = Path(folder).resolve().name or "topologies"
    data: dict[str, Any] = {
        "name": name,
        "description": f"{len(docs)} topologies read from Nimbus's files in {name}/.",
        "cluster": {"nodes": nodes},
    }
    data["topologies" if len(docs) > 1 else "topology"] = docs if len(docs) > 1 else docs[0]
    return _described(Imported(validate_scenario(data), warnings, source=folder))


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

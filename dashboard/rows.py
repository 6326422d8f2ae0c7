"""Scenario <-> editor grid rows, and validation errors -> the cell to mark.

The three editors (nodes, components, streams) hold one row per list item
of the scenario, in the scenario's order, so ``cluster.nodes[2].cores`` is
row 2, column ``cores`` of the nodes grid. Rows carry every field of their
item (hidden ones too, so nothing is lost), a stable row id ``_rid``, the
derived hardware columns of nodes, and ``_err_<column>`` where a validation
message marks a cell. All functions are pure.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from core.hardware import computation_power, processing_speed
from core.model import Node, Scenario, ScenarioError, validate_scenario

NODES, COMPONENTS, STREAMS = "nodes", "components", "streams"
GRIDS = (NODES, COMPONENTS, STREAMS)

COLUMNS: Mapping[str, tuple[str, ...]] = {
    NODES: (
        "id",
        "cpu_model",
        "type",
        "sockets",
        "cores",
        "threads",
        "ghz",
        "flops_per_cycle",
        "ram_gb",
        "slots",
        "rack",
    ),
    COMPONENTS: (
        "id",
        "parallelism",
        "cpu_us",
        "selectivity",
        "tuple_bytes",
        "cpu_pct",
        "memory_mb",
    ),
    STREAMS: ("from", "to", "grouping"),
}
DERIVED = ("processing_speed", "computation_power")
ROW_ID = "_rid"
ERROR_PREFIX = "_err_"

_SECTIONS = {
    NODES: ("cluster", "nodes"),
    COMPONENTS: ("topology", "components"),
    STREAMS: ("topology", "streams"),
}
_PATH = re.compile(r"^(cluster\.nodes|topology\.components|topology\.streams)\[(\d+)\](?:\.(\w+))?")
_GRID_OF_PATH = {
    "cluster.nodes": NODES,
    "topology.components": COMPONENTS,
    "topology.streams": STREAMS,
}


@dataclass(frozen=True)
class CellError:
    """Where a validation message belongs: a grid cell, or (grid None) the whole scenario."""

    message: str
    grid: str | None = None
    row: int | None = None
    column: str | None = None


def error_column(name: str) -> str:
    return ERROR_PREFIX + name


def model_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row's scenario fields: no row id, marks or derived columns, no empty cells."""
    return {
        k: v
        for k, v in row.items()
        if not k.startswith("_") and k not in DERIVED and v is not None and v != ""
    }


def with_derived(row: Mapping[str, Any], alpha: float = 0.8) -> dict[str, Any]:
    """A node row with processing speed and computation power (blank when invalid)."""
    out = dict(row)
    try:
        node = Node.model_validate(model_fields(row))
    except ValidationError:
        out.update(processing_speed=None, computation_power=None)
        return out
    out["processing_speed"] = round(processing_speed(node), 1)
    out["computation_power"] = round(computation_power(node, alpha), 1)
    return out


def scenario_rows(scenario: Scenario) -> dict[str, list[dict[str, Any]]]:
    """The editor rows of a scenario, one per node, component and stream."""
    if scenario.topologies is not None:  # a set: one topology at a time (dashboard/set_page.py)
        return set_rows(scenario)
    data = scenario.to_json_dict()
    out = {}
    for grid, (section, key) in _SECTIONS.items():
        rows = [{**item, ROW_ID: f"{grid}-{i}"} for i, item in enumerate(data[section][key])]
        out[grid] = [with_derived(r) for r in rows] if grid == NODES else rows
    return out


def scenario_data(
    base: Mapping[str, Any],
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
    workers: Any = None,
    ackers: Any = None,
) -> dict[str, Any]:
    """Scenario JSON: ``base`` with the grids' rows and the topology's W and ackers."""
    if "topologies" in base:  # a set: the rows go to the topology they name
        return set_data(base, rows, workers, ackers)
    data = json.loads(json.dumps(base))
    for grid, (section, key) in _SECTIONS.items():
        data.setdefault(section, {})[key] = [model_fields(r) for r in rows.get(grid, ())]
    topology = data["topology"]
    for field, value in (("workers", workers), ("ackers", ackers)):
        if value is None or value == "":
            topology.pop(field, None)
        else:
            topology[field] = value
    return data


def scenario_from_rows(
    base: Mapping[str, Any],
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
    workers: Any = None,
    ackers: Any = None,
) -> Scenario:
    """The validated scenario the editors describe (raises ScenarioError)."""
    return validate_scenario(scenario_data(base, rows, workers, ackers))


def locate(err: ScenarioError) -> CellError:
    """The grid cell a validation error names, when it names one.

    >>> locate(ScenarioError("cluster.nodes[2].cores", "bad")).column
    'cores'
    >>> locate(ScenarioError("topology.streams[0]", "unknown component 'x' in 'to'")).column
    'to'
    """
    match = _PATH.match(err.path or "")
    if not match:
        return CellError(str(err))
    grid = _GRID_OF_PATH[match.group(1)]
    row, field = int(match.group(2)), match.group(3)
    if field in COLUMNS[grid]:
        column = field
    elif grid == STREAMS:
        to_side = "in 'to'" in err.message or "duplicate" in err.message or "itself" in err.message
        column = "to" if to_side else "from"
    else:
        column = "id"
    return CellError(str(err), grid, row, column)


def clear_marks(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if not k.startswith(ERROR_PREFIX)} for r in rows]


def mark(
    rows: Iterable[Mapping[str, Any]], cell: CellError | None, grid: str
) -> list[dict[str, Any]]:
    """Rows with every old mark cleared and ``cell``'s message on its cell (if in ``grid``)."""
    out = clear_marks(rows)
    if cell is not None and cell.grid == grid and cell.row is not None and cell.row < len(out):
        out[cell.row][error_column(cell.column or "id")] = cell.message
    return out


def _fresh_id(prefix: str, taken: Iterable[str]) -> str:
    used = set(taken)
    k = 1
    while f"{prefix}{k}" in used:
        k += 1
    return f"{prefix}{k}"


def _row_id() -> str:
    return f"new-{uuid.uuid4().hex[:10]}"


def new_row(grid: str, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A new row with documented defaults and a fresh id (streams start empty)."""
    ids = [str(r.get("id", "")) for r in rows]
    if grid == NODES:
        row = {
            "id": _fresh_id("n", ids),
            "cores": 4,
            "ghz": 3.0,
            "slots": 2,
            "sockets": 1,
            "flops_per_cycle": 16,
            "ram_gb": 16,
            "rack": "default",
        }
        return with_derived({**row, ROW_ID: _row_id()})
    if grid == COMPONENTS:
        return {
            "id": _fresh_id("c", ids),
            "parallelism": 1,
            "cpu_us": 10.0,
            "selectivity": 1.0,
            "tuple_bytes": 200,
            "cpu_pct": 10.0,
            "memory_mb": 128.0,
            ROW_ID: _row_id(),
        }
    return {"from": "", "to": "", "grouping": "shuffle", ROW_ID: _row_id()}


def duplicate_rows(
    grid: str, rows: Sequence[Mapping[str, Any]], selected: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Rows with a copy of each selected row after the last row (ids made unique)."""
    chosen = {r.get(ROW_ID) for r in selected or ()}
    out = clear_marks(rows)
    ids = [str(r.get("id", "")) for r in out]
    for r in list(out):
        if r.get(ROW_ID) not in chosen:
            continue
        copy = {**r, ROW_ID: _row_id()}
        if grid != STREAMS:
            copy["id"] = _fresh_id(f"{r.get('id', 'x')}-", ids)
            ids.append(copy["id"])
        out.append(copy)
    return out


def delete_rows(
    rows: Sequence[Mapping[str, Any]], selected: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    chosen = {r.get(ROW_ID) for r in selected or ()}
    return [r for r in clear_marks(rows) if r.get(ROW_ID) not in chosen]


def rows_after(
    op: str, grid: str, rows: Sequence[Mapping[str, Any]], selected: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The rows after a row operation: ``add``, ``duplicate`` or ``delete`` (of the selection)."""
    if op == "add":
        return clear_marks(rows) + [new_row(grid, rows)]
    if op == "duplicate":
        return duplicate_rows(grid, rows, selected)
    if op == "delete":
        return delete_rows(rows, selected)
    raise ValueError(f"unknown row operation '{op}'")


def scenario_outputs(scenario: Scenario) -> tuple[Any, ...]:
    """What loading a scenario sets: base store, the three grids, W, ackers, rate."""
    if scenario.topologies is not None:  # a set: the base holds it whole
        return set_outputs(scenario)
    rows = scenario_rows(scenario)
    topo = scenario.topology
    return (
        scenario.to_json_dict(),
        rows["nodes"],
        rows["components"],
        rows["streams"],
        topo.workers,
        topo.ackers,
        scenario.workload.rate,
    )


# A topology set in the editors (dashboard/set_page.py draws its line and picker): the
# grids show one topology at a time, each component and stream row marked with its name.
TOPOLOGY_KEY = "_topology"  # hidden row field: the set's topology a row belongs to


def picked_scenario(scenario: Scenario, name: str | None = None) -> Scenario:
    """The scenario with the one topology ``name`` (the first when None or unknown) in
    place of the set: what the editors show. Not validated again (each topology of a
    valid set is valid on its own)."""
    topologies = scenario.topology_set
    chosen = next((t for t in topologies if t.name == name), topologies[0])
    return scenario.model_copy(update={"topologies": None, "topology": chosen})


def _marked(rows: Sequence[Mapping[str, Any]], name: str) -> list[dict[str, Any]]:
    return [{**r, TOPOLOGY_KEY: name} for r in rows]


def set_outputs(scenario: Scenario, name: str | None = None) -> tuple[Any, ...]:
    """:func:`dashboard.rows.scenario_outputs` of a set: the whole set as the base store,
    the grids and W / ackers of topology ``name`` (default the first), the rate."""
    single = picked_scenario(scenario, name)
    out = list(scenario_outputs(single))
    out[0] = scenario.to_json_dict()
    out[2] = _marked(out[2], single.topology.name)
    out[3] = _marked(out[3], single.topology.name)
    return tuple(out)


def set_rows(scenario: Scenario, name: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """The editor rows of a set: the cluster's nodes, topology ``name``'s components and
    streams (each marked with the topology's name)."""
    out = set_outputs(scenario, name)
    return {NODES: out[1], COMPONENTS: out[2], STREAMS: out[3]}


def rows_topology(rows: Mapping[str, Sequence[Mapping[str, Any]]]) -> str | None:
    """The topology the component and stream rows belong to (None when no row says)."""
    for grid in (COMPONENTS, STREAMS):
        for row in rows.get(grid) or ():
            if row.get(TOPOLOGY_KEY):
                return str(row[TOPOLOGY_KEY])
    return None


def set_data(
    base: Mapping[str, Any],
    rows: Mapping[str, Sequence[Mapping[str, Any]]],
    workers: Any = None,
    ackers: Any = None,
) -> dict[str, Any]:
    """Scenario JSON of a set: ``base`` with the nodes grid as its cluster and the
    component and stream grids (and W, ackers) as the topology their rows name. When no
    row names a topology of the set, only the nodes are applied."""
    data = json.loads(json.dumps(base))
    names = [t.get("name") for t in data["topologies"]]
    name = rows_topology(rows)
    if name not in names:
        data.setdefault("cluster", {})["nodes"] = [model_fields(r) for r in rows.get(NODES, ())]
        return data
    index = names.index(name)
    single = {k: v for k, v in data.items() if k != "topologies"}
    single["topology"] = data["topologies"][index]
    edited = scenario_data(single, rows, workers, ackers)
    data["topologies"][index] = edited["topology"]
    data["cluster"] = edited["cluster"]
    return data

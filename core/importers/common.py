"""Shared pieces of the importers: reading fields with messages, defaults, the result.

Every reader names the field it could not use (``storm topology: spouts[0].executors:
expected an integer >= 1, got 'x'``) and raises :class:`~core.model.ScenarioError`, so
the command line and the dashboard show one line, never a traceback.

Defaults for what Storm or Flink do not report come from their own shipped defaults:
Storm's ``conf/defaults.yaml`` (``supervisor.slots.ports`` 6700-6703, so 4 slots;
``supervisor.cpu.capacity: 400.0``, i.e. 4 cores at 100 % each;
``supervisor.memory.capacity.mb: 4096.0``) and Flink's ``taskmanager.numberOfTaskSlots``
(default 1, ``TaskManagerOptions.NUM_TASK_SLOTS``). The clock is the scenario's
reference clock (``profiling.reference_ghz``, 3.0 GHz), so an imported node runs each
tuple in exactly the component's ``cpu_us``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.model import (
    Component,
    Profiling,
    Scenario,
    ScenarioError,
    Workload,
    validate_scenario,
)
from core.settings import MAX_SCENARIO_BYTES

STORM_SLOTS_PER_NODE = 4  # Storm defaults.yaml supervisor.slots.ports: 6700-6703
STORM_CPU_PCT_PER_NODE = 400.0  # Storm defaults.yaml supervisor.cpu.capacity, % of one core
STORM_MEMORY_MB_PER_NODE = 4096.0  # Storm defaults.yaml supervisor.memory.capacity.mb, MB
FLINK_SLOTS_PER_TASKMANAGER = 1  # Flink taskmanager.numberOfTaskSlots default
CPU_PCT_PER_CORE = 100.0  # Storm counts CPU in percent of one core
MB_PER_GB = 1024.0
DEFAULT_GHZ = Profiling().reference_ghz  # GHz: the clock cpu_us is measured on
DEFAULT_CPU_US = Component.model_fields["cpu_us"].default  # us per tuple
DEFAULT_RATE = Workload().rate  # tuples/s per spout component
MAX_ID_CHARS = 40  # component ids made from operator names are cut to this length
KEY_CHARS = 8  # characters of an operator key (Flink REST ids are 32 hex) to tell twins apart
_NOT_ID = re.compile(r"[^A-Za-z0-9_.]+")


@dataclass
class Imported:
    """An imported scenario and what the importer had to assume (shown to the user)."""

    scenario: Scenario
    warnings: list[str] = field(default_factory=list)
    source: str = ""

    def document(self) -> dict[str, Any]:
        """The scenario as JSON, ready to write to a file."""
        return self.scenario.to_json_dict()


class Reader:
    """Reads fields of one JSON document, naming the path on any problem."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, path: str, message: str) -> ScenarioError:
        return ScenarioError(f"{self.source}: {path}" if path else self.source, message)

    def obj(self, value: Any, path: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a JSON object, got {_kind(value)}")
        return value

    def items(self, doc: Mapping[str, Any], key: str, path: str = "") -> list[Any]:
        where = _join(path, key)
        if key not in doc:
            raise self.fail(where, "required field is missing")
        value = doc[key]
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {_kind(value)}")
        return value

    def text(self, doc: Mapping[str, Any], key: str, path: str = "", numbers: bool = True) -> str:
        """A printable, non-blank string; an integer too (as its digits) when ``numbers``
        (Flink's operator ids are numbers; every field Storm's UI sends as text is not)."""
        where = _join(path, key)
        if key not in doc:
            raise self.fail(where, "required field is missing")
        value = doc[key]
        kinds = str | int if numbers else str
        if not isinstance(value, kinds) or isinstance(value, bool) or str(value) == "":
            raise self.fail(where, f"expected a non-empty string, got {value!r}")
        if not str(value).strip() or not str(value).isprintable():  # it names a node or a part
            raise self.fail(where, f"expected printable text, got {value!r}")
        return str(value)

    def count(self, doc: Mapping[str, Any], key: str, path: str = "", minimum: int = 1) -> int:
        where = _join(path, key)
        if key not in doc:
            raise self.fail(where, "required field is missing")
        value = doc[key]
        whole = isinstance(value, int) or (  # an int of any size: no float conversion
            isinstance(value, float) and math.isfinite(value) and value == int(value)
        )
        if isinstance(value, bool) or not whole or value < minimum:
            raise self.fail(where, f"expected an integer >= {minimum}, got {value!r}")
        return int(value)


def validated(data: Mapping[str, Any], source: str) -> Scenario:
    """The built scenario, validated; a problem names the source and the scenario field
    (``flink plan: as a scenario, topology.streams: the topology has a cycle: a -> b -> a``).
    """
    try:
        return validate_scenario(data)
    except ScenarioError as err:
        raise ScenarioError(f"{source}: as a scenario, {err.path}", err.message) from None


def number(value: Any) -> float | None:
    """A finite number from a JSON number or a numeric string (Storm sends "0.048"); else None.

    >>> number("0.048"), number(3), number(None), number("n/a"), number(True)
    (0.048, 3.0, None, None, None)
    """
    if isinstance(value, bool) or value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def default_nodes(slots_needed: int, slots_per_node: int, prefix: str) -> list[dict[str, Any]]:
    """Identical nodes with Storm's default supervisor hardware, enough for ``slots_needed``.

    >>> [(n["id"], n["slots"], n["cores"]) for n in default_nodes(5, 4, "node")]
    [('node1', 4, 4), ('node2', 4, 4)]
    """
    count = max(1, math.ceil(slots_needed / slots_per_node))
    return [
        {
            "id": f"{prefix}{i + 1}",
            "cores": int(STORM_CPU_PCT_PER_NODE / CPU_PCT_PER_CORE),
            "ghz": DEFAULT_GHZ,
            "ram_gb": STORM_MEMORY_MB_PER_NODE / MB_PER_GB,
            "slots": slots_per_node,
        }
        for i in range(count)
    ]


def slug(name: str, max_chars: int = MAX_ID_CHARS) -> str:
    """An operator name as a component id: letters, digits, ``_`` and ``.``, runs of
    anything else as one ``-`` (ids end up in executor ids ``split#0`` and graph selectors).

    >>> slug("Source: Collection Source"), slug("split, _stream_key_by_map_operator")
    ('Source-Collection-Source', 'split-_stream_key_by_map_operator')
    """
    return _NOT_ID.sub("-", name).strip("-")[:max_chars].rstrip("-") or "operator"


def unique_ids(names: list[str], keys: list[str]) -> list[str]:
    """Operator names as unique component ids; a name used twice gets its key appended.

    >>> unique_ids(["map", "map", "Sink: out"], ["3", "5", "7"])
    ['map-3', 'map-5', 'Sink-out']
    """
    slugs = [slug(n) for n in names]
    seen: dict[str, int] = {}
    for n in slugs:
        seen[n] = seen.get(n, 0) + 1
    return [
        f"{n}-{slug(k, KEY_CHARS)}" if seen[n] > 1 else n for n, k in zip(slugs, keys, strict=True)
    ]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), type(value).__name__)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def parse_document(raw: bytes | str, source: str) -> Any:
    """Strict JSON text -> data, with the size limit of scenarios; ScenarioError if refused.

    Strict: ``NaN``, ``Infinity`` and numbers too large for a float (``1e400``) are
    refused, as JSON itself has no such numbers; so is nesting deeper than Python
    can parse.

    >>> parse_document('{"rate": Infinity}', "s.json")
    Traceback (most recent call last):
    ...
    core.model.ScenarioError: s.json: not valid JSON (Infinity is not a JSON number)
    """
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(source, f"{len(raw):,} bytes, the limit is {MAX_SCENARIO_BYTES:,}")
    try:
        return json.loads(raw, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise ScenarioError(
            source, "JSON nested too deeply (a scenario has a few levels)"
        ) from None
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError is a ValueError
        raise ScenarioError(source, f"not valid JSON ({err})") from None

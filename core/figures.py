"""The figures slotscope reports, stated once, and one scheduler's result as a typed value.

:data:`FIGURES` is the registry: for every figure its key (its path in a
result row of the ``simulate --json`` contract, ``latency_ms.p99`` for a
nested one), label, unit, which way is better, how to format it and one line
for a glossary. The CLI's table and CSV, the dashboard's charts, ranking,
compare table, difference table and Papers view read labels, units, formats
and directions from here.

:class:`Result` is one result row as a frozen value with typed fields;
:meth:`Result.from_json` reads a row of today's contract, :meth:`Result.to_json`
gives it back with exactly the same keys, order and values. A row whose
placement could not be made is a :class:`Skipped`.

A new figure is one :class:`Figure` entry here, one field of :class:`Result`
(``tests/test_figures.py`` checks that the two agree) and the code that
computes it (the simulator's row, or a property of :class:`Result` for a
figure derived from the row). This module imports nothing of the project.

Examples
--------
>>> FIGURES["latency_ms.p99"].heading, FIGURES["latency_ms.p99"].better
('p99 ms', 'lower')
>>> FIGURES["max_rate"].format(19474.2)
'19,474'
>>> FIGURES["max_rate"].format(None)
'—'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "FIGURES",
    "IDENTITY_KEYS",
    "NUMBER",
    "Better",
    "Figure",
    "Latency",
    "Result",
    "ResultError",
    "Skipped",
    "Traffic",
    "VIOLATIONS_KEY",
    "glossary",
    "is_ok",
    "ok_results",
    "row_keys",
    "row_of",
]

Better = Literal["higher", "lower"] | None
Kind = Literal["number", "count", "flag", "text", "per_node"]
Where = Literal["row", "derived", "analysis"]
NUMBER: tuple[Kind, ...] = ("number", "count")
MISSING = "—"  # what a figure without a value shows

IDENTITY_KEYS = ("scheduler", "rate", "replica")  # what a row is a result of, first in JSON
STATUS_KEY = "status"  # after the figures every row carries, before the optional ones
VIOLATIONS_KEY = "violations"  # why the placement cannot run (sentences), just before the status


class ResultError(ValueError):
    """A result row that is not of the contract; the message names the field."""


@dataclass(frozen=True)
class Figure:
    """One figure: what it is, its unit, which way is better and how it is written.

    Attributes
    ----------
    key : str
        Its path in a result row (``throughput``, ``latency_ms.p99``,
        ``traffic.inter_node``); for a derived or analytic figure, its name.
    label : str
        Its name in a sentence or a long table ("Max rate R*").
    short : str
        Its name in a compact table header ("R*").
    unit : str
        Unit of the value ("tuples/s", "ms", "B/s", "MB"; "" for a count, a
        flag or text; "%" for a fraction 0..1, which ``spec`` writes as a
        percentage).
    better : {"higher", "lower", None}
        Which way is better; None when neither is (a flag, a utilisation).
    spec : str
        Format spec of one value (``format(value, spec)``); "" for a flag or text.
    description : str
        One line for a glossary (what, measured how, at which rate).
    kind : {"number", "count", "flag", "text", "per_node"}
        float, int, bool, str, or one float per node (node id -> value).
    where : {"row", "derived", "analysis"}
        In the JSON row; computed from the row (a property of :class:`Result`);
        or from the analytic model only (the dashboard's panels and ranking).
    optional : bool
        In the row only sometimes (``gap_to_best``: when ``optimal`` ran).
    """

    key: str
    label: str
    short: str
    unit: str
    better: Better
    spec: str
    description: str
    kind: Kind = "number"
    where: Where = "row"
    optional: bool = False

    @property
    def heading(self) -> str:
        """Short name and unit, for a table header ("p99 ms", "nodes")."""
        return f"{self.short} {self.unit}".strip() if self.unit not in ("", "%") else self.short

    @property
    def direction(self) -> int:
        """+1 when higher is better, -1 when lower is, 0 when neither."""
        return {"higher": 1, "lower": -1, None: 0}[self.better]

    @property
    def top(self) -> str:
        """The row key holding it (``latency_ms`` for ``latency_ms.p99``)."""
        return self.key.split(".", 1)[0]

    def format(self, value: Any) -> str:
        """One value as text; "—" for None or NaN.

        >>> FIGURES["latency_ms.p50"].format(20.387), FIGURES["saturated"].format(True)
        ('20.39', 'yes')
        >>> FIGURES["cpu_peak"].format(0.9), FIGURES["nodes_used"].format(8)
        ('90%', '8')
        """
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return MISSING
        if self.kind == "flag":
            return "yes" if value else "no"
        if self.kind == "text":
            return str(value)
        return format(value, self.spec)

    def best(self, values: Iterable[float | None]) -> float | None:
        """The best of ``values`` (None and NaN left out); None when none or no direction.

        >>> FIGURES["max_rate"].best([1.0, None, 3.0]), FIGURES["nodes_used"].best([4, 2])
        (3.0, 2)
        """
        known = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
        if not known or self.better is None:
            return None
        return max(known) if self.better == "higher" else min(known)

    def compare(self, a: float | None, b: float | None, rel: float = 1e-9) -> str:
        """ "better", "worse" or "" (equal within ``rel``, unknown, or no direction): b against a.

        >>> FIGURES["latency_ms.p99"].compare(2.0, 1.5), FIGURES["max_rate"].compare(2.0, 1.5)
        ('better', 'worse')
        """
        if a is None or b is None or self.better is None:
            return ""
        d = b - a
        if abs(d) <= rel * max(1.0, abs(a)):
            return ""
        return "better" if d * self.direction > 0 else "worse"

    def of(self, result: Result) -> Any:
        """This figure's value in a result (a row figure or a derived one)."""
        if self.where == "analysis":
            raise ResultError(f"{self.key}: an analytic figure, not in a result row")
        value: Any = result
        for part in self.key.split("."):
            value = getattr(value, part)
        return value


def _traffic(key: str, kind: str, short: str, better: Better) -> Figure:
    """One class of executor-to-executor traffic, in tuples/s (``traffic``) or B/s."""
    where = {
        "intra_worker": "inside one worker",
        "inter_worker": "in different workers of one node",
    }
    tuples = key == "traffic"
    return Figure(
        f"{key}.{kind}",
        f"{short.split(' (')[0].capitalize()} {'traffic' if tuples else 'bytes'}",
        short,
        "tuples/s" if tuples else "B/s",
        better,
        ",.0f",
        f"{'Tuples' if tuples else 'Bytes'} per second between executors "
        f"{where.get(kind, 'on different nodes')}, at R_eff",
    )


def _latency(p: str, label: str, what: str) -> Figure:
    return Figure(
        f"latency_ms.{p}",
        label,
        p,
        "ms",
        "lower",
        ",.2f",
        f"{what} complete latency of the simulated tuple trees (trace at the offered rate; "
        "None when R* is 0)",
    )


_REGISTRY: tuple[Figure, ...] = (
    Figure(
        "throughput",
        "Throughput",
        "throughput",
        "tuples/s",
        "higher",
        ",.0f",
        "Tuples processed per second by all executors together (each spout tuple, plus every "
        "tuple each bolt receives) at R_eff = min(offered rate, R*); not the acked/sec of "
        "Storm's ThroughputVsLatency (completed spout tuple trees: R_eff per spout component)",
    ),
    Figure(
        "sink_throughput",
        "Sink throughput",
        "sinks",
        "tuples/s",
        "higher",
        ",.0f",
        "Tuples per second reaching the sink components at R_eff",
    ),
    Figure(
        "max_rate",
        "Max rate R*",
        "R*",
        "tuples/s",
        "higher",
        ",.0f",
        "Largest offered rate per spout component the placement sustains (None: unbounded)",
    ),
    Figure(
        "saturated",
        "Saturated",
        "SAT",
        "",
        None,
        "",
        "The offered rate exceeds R*: the spouts are throttled to R*",
        kind="flag",
    ),
    Figure(
        "bottleneck",
        "Bottleneck",
        "bottleneck",
        "",
        None,
        "",
        "The capacity that binds R* (an executor thread, a node's CPU or NIC)",
        kind="text",
    ),
    _latency("p50", "p50 latency", "Median"),
    _latency("p95", "p95 latency", "95th percentile"),
    _latency("p99", "p99 latency", "99th percentile"),
    _latency("mean", "Mean latency", "Mean"),
    _latency("max", "Max latency", "Largest"),
    Figure(
        "nodes_used",
        "Nodes",
        "nodes",
        "",
        "lower",
        ",.0f",
        "Nodes hosting at least one executor",
        kind="count",
    ),
    Figure(
        "slots_used",
        "Slots",
        "slots",
        "",
        "lower",
        ",.0f",
        "Worker slots (JVMs) hosting at least one executor",
        kind="count",
    ),
    Figure(
        "cpu_util",
        "CPU utilisation",
        "CPU",
        "%",
        None,
        ".0%",
        "Per node: cores busy over the node's cores at R_eff (0..1)",
        kind="per_node",
    ),
    Figure(
        "memory_mb",
        "Memory",
        "memory",
        "MB",
        "lower",
        ",.0f",
        "Per node: worker heaps and executor memory",
        kind="per_node",
    ),
    *(
        _traffic(key, kind, short, better)
        for key in ("traffic", "traffic_bytes")
        for kind, short, better in (
            ("intra_worker", "intra-worker", None),
            ("inter_worker", "inter-worker (same node)", None),
            ("inter_node", "inter-node", "lower"),
        )
    ),
    Figure(
        "placement_ms",
        "Placement time",
        "placement",
        "ms",
        "lower",
        ",.2f",
        "Wall time the scheduler took to place the topology",
    ),
    Figure(
        "gap_to_best",
        "Gap to best",
        "gap",
        "%",
        "lower",
        ".1%",
        "1 - throughput / the best throughput at the same rate and replica (when optimal ran)",
        optional=True,
    ),
    Figure(
        "cpu_peak",
        "Peak node CPU",
        "peak CPU",
        "%",
        None,
        ".0%",
        "The busiest node's CPU utilisation (largest of cpu_util)",
        where="derived",
    ),
    Figure(
        "latency_estimate_ms",
        "Latency estimate",
        "latency (est.)",
        "ms",
        "lower",
        ",.2f",
        "Analytic mean complete latency at R_eff (Little's law when saturated); no trace",
        where="analysis",
    ),
)

FIGURES: Mapping[str, Figure] = MappingProxyType({f.key: f for f in _REGISTRY})


def glossary() -> str:
    """Every figure, one line each: key, label, unit, better, description.

    >>> glossary().splitlines()[0]
    "throughput  Throughput [tuples/s], higher is better: Tuples processed per second by all \
executors together (each spout tuple, plus every tuple each bolt receives) at R_eff = \
min(offered rate, R*); not the acked/sec of Storm's ThroughputVsLatency (completed \
spout tuple trees: R_eff per spout component)"
    """
    lines = []
    for f in FIGURES.values():
        unit = f" [{f.unit}]" if f.unit else ""
        better = f", {f.better} is better" if f.better else ""
        lines.append(f"{f.key}  {f.label}{unit}{better}: {f.description}")
    return "\n".join(lines)


def row_keys(with_optional: bool = False) -> tuple[str, ...]:
    """The top-level keys of a result row, in the contract's order.

    >>> row_keys()[:4], row_keys()[-3:], row_keys(True)[-1]
    (('scheduler', 'rate', 'replica', 'throughput'), ('placement_ms', 'violations', 'status'), \
'gap_to_best')
    """
    always = [f.top for f in FIGURES.values() if f.where == "row" and not f.optional]
    extra = [f.top for f in FIGURES.values() if f.where == "row" and f.optional]
    keys = [*IDENTITY_KEYS, *always, VIOLATIONS_KEY, STATUS_KEY, *(extra if with_optional else ())]
    return tuple(dict.fromkeys(keys))


def _parts(top: str) -> tuple[str, ...]:
    """The nested keys of a row key (``latency_ms`` -> p50 ... max), in order."""
    return tuple(f.key.split(".", 1)[1] for f in FIGURES.values() if f.top == top and "." in f.key)


@dataclass(frozen=True)
class Latency:
    """Complete latency percentiles of the simulated trees, ms (None when R* is 0)."""

    p50: float | None
    p95: float | None
    p99: float | None
    mean: float | None
    max: float | None


@dataclass(frozen=True)
class Traffic:
    """Executor-to-executor traffic by where it travels (tuples/s or B/s)."""

    intra_worker: float
    inter_worker: float
    inter_node: float


_NESTED = {"latency_ms": Latency, "traffic": Traffic, "traffic_bytes": Traffic}


def _number(field: str, value: Any, none: bool = False) -> float | None:
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ResultError(f"{field}: {value!r} is not a number")
    return float(value)


def _count(field: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ResultError(f"{field}: {value!r} is not an integer")
    return int(value)


def _per_node(field: str, value: Any) -> Mapping[str, float]:
    if not isinstance(value, Mapping):
        raise ResultError(f"{field}: {value!r} is not a mapping of node id to number")
    return MappingProxyType({str(k): _number(f"{field}.{k}", v) for k, v in value.items()})


def _sentences(field: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ResultError(f"{field}: {value!r} is not a list of sentences")
    if not all(isinstance(v, str) for v in value):
        raise ResultError(f"{field}: {value!r} holds something other than sentences")
    return tuple(value)


def _read(row: Mapping[str, Any], key: str) -> Any:
    if key not in row:
        raise ResultError(f"{key}: missing from the result row")
    return row[key]


@dataclass(frozen=True)
class Result:
    """One scheduler's simulated result at one offered rate and replica.

    Rates in tuples/s per spout component, traffic in tuples/s and B/s, CPU
    utilisation 0..1 of a node's cores, memory in MB, times in ms. The
    figures' meaning, unit and direction are in :data:`FIGURES`. ``violations``
    is not a figure: the sentences saying why the placement could not run as
    placed (a node needing more memory than its RAM), empty when it can.
    """

    scheduler: str
    rate: float
    replica: int
    throughput: float
    sink_throughput: float
    max_rate: float | None
    saturated: bool
    bottleneck: str
    latency_ms: Latency
    nodes_used: int
    slots_used: int
    cpu_util: Mapping[str, float]
    memory_mb: Mapping[str, float]
    traffic: Traffic
    traffic_bytes: Traffic
    placement_ms: float
    status: str = "ok"
    gap_to_best: float | None = None
    violations: tuple[str, ...] = ()

    @property
    def runnable(self) -> bool:
        """Whether the placement can run as placed (no :attr:`violations`)."""
        return not self.violations

    @property
    def cpu_peak(self) -> float:
        """The busiest node's CPU utilisation, 0..1 (0 with no nodes)."""
        return max(self.cpu_util.values(), default=0.0)

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> Result:
        """A result from one row of the ``simulate --json`` contract.

        Raises
        ------
        ResultError
            A field missing or of the wrong type (its key first).
        """
        values: dict[str, Any] = {
            "scheduler": str(_read(row, "scheduler")),
            "rate": _number("rate", _read(row, "rate")),
            "replica": _count("replica", _read(row, "replica")),
            "status": str(row.get(STATUS_KEY, "ok")),
            "violations": _sentences(VIOLATIONS_KEY, row.get(VIOLATIONS_KEY, ())),
        }
        for top in dict.fromkeys(f.top for f in FIGURES.values() if f.where == "row"):
            figure = FIGURES.get(top)
            if figure is not None and figure.optional:
                value = row.get(top)
                values[top] = None if value is None else _number(top, value)
                continue
            value = _read(row, top)
            if top in _NESTED:
                if not isinstance(value, Mapping):
                    raise ResultError(f"{top}: {value!r} is not a mapping")
                nested = {p: _read(value, p) for p in _parts(top)}
                none = top == "latency_ms"
                values[top] = _NESTED[top](
                    **{p: _number(f"{top}.{p}", v, none) for p, v in nested.items()}
                )
            elif figure.kind == "per_node":
                values[top] = _per_node(top, value)
            elif figure.kind == "count":
                values[top] = _count(top, value)
            elif figure.kind == "flag":
                values[top] = bool(value)
            elif figure.kind == "text":
                values[top] = str(value)
            else:
                values[top] = _number(top, value, none=top == "max_rate")
        return cls(**values)

    def to_json(self) -> dict[str, Any]:
        """The row of the ``simulate --json`` contract: today's keys, order and values."""
        out: dict[str, Any] = {}
        for top in row_keys(with_optional=True):
            value = getattr(self, top)
            if top in _NESTED:
                value = {p: getattr(value, p) for p in _parts(top)}
            elif isinstance(value, Mapping):
                value = dict(value)
            elif top == VIOLATIONS_KEY:
                value = list(value)
            elif value is None and FIGURES.get(top) is not None and FIGURES[top].optional:
                continue
            out[top] = value
        return out

    def with_gap(self, best_throughput: float) -> Result:
        """This result with ``gap_to_best`` = 1 - throughput / ``best_throughput`` (>= 0)."""
        return replace(self, gap_to_best=max(0.0, 1.0 - self.throughput / best_throughput))


@dataclass(frozen=True)
class Skipped:
    """A task whose placement could not be made: why, and how long the scheduler took."""

    scheduler: str
    rate: float
    replica: int
    status: str
    message: str
    placement_ms: float

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> Skipped:
        return cls(
            scheduler=str(_read(row, "scheduler")),
            rate=_number("rate", _read(row, "rate")),
            replica=_count("replica", _read(row, "replica")),
            status=str(_read(row, STATUS_KEY)),
            message=str(row.get("message", "")),
            placement_ms=_number("placement_ms", row.get("placement_ms", 0.0)),
        )

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def row_of(row: Mapping[str, Any]) -> Result | Skipped:
    """A row of the contract as a :class:`Result`, or a :class:`Skipped` when its status
    is not ``ok``."""
    return Result.from_json(row) if row.get(STATUS_KEY, "ok") == "ok" else Skipped.from_json(row)


def is_ok(row: Mapping[str, Any]) -> bool:
    """Whether a row is a simulated result (failed placements carry only a status)."""
    return row.get(STATUS_KEY, "ok") == "ok" and "throughput" in row


def ok_results(rows: Sequence[Mapping[str, Any]]) -> list[Result]:
    """The simulated results among ``rows`` (rows of failed placements left out)."""
    return [Result.from_json(r) for r in rows if is_ok(r)]

"""What every scheduler shares: its result, its parameters, Storm's slot order.

A scheduler is a pure function ``schedule(scenario, params) -> Outcome``; the
registry (``core.schedulers``) validates the parameters, times the call and
wraps the outcome into an immutable :class:`Schedule`. The scenario is never
changed.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.model import Node, Scenario


class Status(enum.StrEnum):
    """Outcome of a scheduling attempt (Storm's SchedulingStatus)."""

    OK = "ok"
    NOT_ENOUGH_RESOURCES = "not-enough-resources"
    INVALID_TOPOLOGY = "invalid-topology"


class SchedulerError(ValueError):
    """Bad scheduler id or parameter; the message names it."""


@dataclass(frozen=True)
class Assignment:
    executor: str
    component: str
    node: str
    slot: int


@dataclass(frozen=True)
class Outcome:
    """What a scheduler function returns.

    ``assignments`` place every executor; ``parallelism`` is set only by
    schedulers that choose their own (``hetero``); ``details`` holds
    scheduler-specific figures (JSON-ready).
    """

    assignments: tuple[Assignment, ...]
    decisions: tuple[str, ...]
    status: Status = Status.OK
    message: str = ""
    parallelism: Mapping[str, int] | None = None
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Schedule:
    """The immutable result of one scheduler on one scenario."""

    scheduler: str
    status: Status
    params: Mapping[str, Any]
    parallelism: Mapping[str, int]
    assignments: tuple[Assignment, ...]
    decisions: tuple[str, ...]
    elapsed_ms: float
    message: str = ""
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    def placement(self) -> dict[str, tuple[str, int]]:
        """executor -> (node, slot)."""
        return {a.executor: (a.node, a.slot) for a in self.assignments}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for shipping a schedule to a Spark task)."""
        return {
            "scheduler": self.scheduler,
            "status": self.status.value,
            "params": dict(self.params),
            "parallelism": dict(self.parallelism),
            "assignments": [[a.executor, a.node, a.slot] for a in self.assignments],
            "decisions": list(self.decisions),
            "elapsed_ms": self.elapsed_ms,
            "message": self.message,
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Schedule:
        return cls(
            scheduler=data["scheduler"],
            status=Status(data["status"]),
            params=data["params"],
            parallelism=data["parallelism"],
            assignments=tuple(assignment(e, n, int(s)) for e, n, s in data["assignments"]),
            decisions=tuple(data["decisions"]),
            elapsed_ms=data["elapsed_ms"],
            message=data["message"],
            details=data["details"],
        )


@dataclass(frozen=True)
class Param:
    """A scheduler parameter with its default and valid range."""

    name: str
    default: Any
    description: str
    kind: type | str = float  # float, int, bool, str, or "floats" (a list)
    minimum: float | None = None
    maximum: float | None = None

    def parse(self, value: Any) -> Any:
        """Convert a value (possibly a CLI string) and check its range."""
        try:
            converted = self._convert(value)
        except (TypeError, ValueError):
            kind = self.kind if isinstance(self.kind, str) else self.kind.__name__
            raise SchedulerError(f"parameter {self.name}: expected {kind}, got {value!r}") from None
        if self.kind == "floats":
            for item in converted:
                self._check(item)
        elif self.kind in (int, float):
            self._check(converted)
        return converted

    def _convert(self, value: Any) -> Any:
        if self.kind == "floats":
            parts = value.split(",") if isinstance(value, str) else value
            return [float(v) for v in parts if not isinstance(v, str) or v.strip()]
        if self.kind is bool:
            if isinstance(value, str):
                low = value.strip().lower()
                if low not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(value)
                return low in ("true", "1", "yes")
            return bool(value)
        if self.kind is int:
            number = float(value)
            if number != int(number):
                raise ValueError(value)
            return int(number)
        if self.kind is float:
            return float(value)
        return str(value)

    def _check(self, v: float) -> None:
        if (
            v != v
            or (self.minimum is not None and v < self.minimum)
            or (self.maximum is not None and v > self.maximum)
        ):
            lo = "-inf" if self.minimum is None else f"{self.minimum:g}"
            hi = "inf" if self.maximum is None else f"{self.maximum:g}"
            raise SchedulerError(f"parameter {self.name}: {v!r} is outside [{lo}, {hi}]")


@dataclass(frozen=True)
class SchedulerSpec:
    """A registry entry: who the scheduler is and how to call it."""

    id: str
    name: str
    paper: str
    params: tuple[Param, ...]
    run: Callable[[Scenario, Mapping[str, Any]], Outcome]
    summary: str = ""


def free_slots(nodes: Iterable[Node]) -> dict[str, list[int]]:
    """Free slot indices per node id (all of a node's slots are free to us)."""
    return {n.id: list(range(n.slots)) for n in nodes if n.slots > 0}


def sort_slots(free: Mapping[str, Sequence[int]]) -> list[tuple[str, int]]:
    """Storm's ``EvenScheduler.sortSlots``.

    Group free slots by node; nodes in id order, slots by port ascending;
    stable-sort the groups by number of free slots, most first; interleave:
    the first slot of every node, then the second, ...

    Examples
    --------
    >>> sort_slots({"s1": [0, 1], "s2": [0, 1, 2]})
    [('s2', 0), ('s1', 0), ('s2', 1), ('s1', 1), ('s2', 2)]
    """
    groups = [[(node, s) for s in sorted(free[node])] for node in sorted(free) if free[node]]
    groups.sort(key=len, reverse=True)  # stable: ties keep node id order
    out = []
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def assignment(executor: str, node: str, slot: int) -> Assignment:
    return Assignment(executor=executor, component=executor.rsplit("#", 1)[0], node=node, slot=slot)

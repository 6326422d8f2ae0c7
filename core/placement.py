"""What a placement is: the result types every layer above shares.

A scheduler returns an :class:`Outcome`; the registry (``core.schedulers``)
wraps it into an immutable :class:`Schedule`, which the simulator, the metrics
and the comparison read. This module imports nothing of the project, so the
simulator and the metrics depend on it and on nothing above.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Assignment", "Outcome", "Schedule", "SchedulerError", "Status", "assignment"]


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


def assignment(executor: str, node: str, slot: int) -> Assignment:
    return Assignment(executor=executor, component=executor.rsplit("#", 1)[0], node=node, slot=slot)

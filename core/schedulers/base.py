"""What every scheduler shares: its result, its parameters, Storm's slot order.

A scheduler is a pure function ``schedule(problem, params) -> Outcome`` of a
:class:`core.problem.Problem` (the scenario, its graph, the cluster as arrays,
built once per scenario content; the scenario carries any runtime
observations it uses); :func:`run_spec` looks the Problem up, validates the
parameters, times the call and wraps the outcome into an immutable
:class:`Schedule`. The scenario is never changed. The result types
live on the ground floor, :mod:`core.placement`, and are re-exported here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.model import Node, Scenario
from core.placement import (
    Assignment,
    Outcome,
    Schedule,
    SchedulerError,
    Status,
    assignment,
)
from core.problem import Problem, problem_of

__all__ = [
    "Assignment",
    "Outcome",
    "Param",
    "Schedule",
    "SchedulerError",
    "SchedulerSpec",
    "Status",
    "assignment",
    "free_slots",
    "resolve_params",
    "run_spec",
    "sort_slots",
]


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
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(float("1e400"))
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
    run: Callable[[Problem, Mapping[str, Any]], Outcome]  # (problem, resolved params)
    summary: str = ""
    # The scheduler whose placement is assumed running when the scenario has no
    # runtime observations: comparisons simulate it and feed its observations
    # (aniello-online reschedules what aniello-offline deployed, so "traffic
    # before/after" compares like with like). None: fed nothing.
    running_placement: str | None = None
    # False for a scheduler that picks its own parallelism (hetero): searches
    # that keep the user's parallelism need not run it as a starting point.
    keeps_parallelism: bool = True


def resolve_params(spec: SchedulerSpec, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with the given values, each converted and range-checked."""
    known = {p.name: p for p in spec.params}
    for name in params or {}:
        if name not in known:
            valid = ", ".join(known) or "none"
            raise SchedulerError(
                f"unknown parameter '{name}' of scheduler '{spec.id}' (valid: {valid})"
            )
    resolved = {p.name: p.default for p in spec.params}
    for name, value in (params or {}).items():
        resolved[name] = known[name].parse(value)
    return resolved


def run_spec(
    spec: SchedulerSpec, scenario: Scenario | Problem, params: Mapping[str, Any] | None = None
) -> Schedule:
    """Run one scheduler on a validated scenario: check its parameters, time it, wrap it.

    The scheduler gets the scenario's :class:`core.problem.Problem`
    (:func:`core.problem.problem_of`: built once per scenario content).

    Raises
    ------
    SchedulerError
        A parameter unknown or out of range.
    """
    resolved = resolve_params(spec, params)
    start = time.perf_counter()
    problem = problem_of(scenario)
    out = spec.run(problem, resolved)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    if out.parallelism is not None:
        parallelism = dict(out.parallelism)
    else:
        parallelism = dict(problem.graph.parallelism)
    return Schedule(
        scheduler=spec.id,
        status=out.status,
        params=resolved,
        parallelism=parallelism,
        assignments=out.assignments,
        decisions=out.decisions,
        elapsed_ms=elapsed_ms,
        message=out.message,
        details=dict(out.details),
    )


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

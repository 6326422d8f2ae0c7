"""The scheduler registry: one literal dict, one public entry point.

>>> list(SCHEDULERS)[0]
'even'
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from core.model import Scenario
from core.schedulers import (
    aniello_offline,
    aniello_online,
    even,
    hetero,
    lf,
    optimal,
    rstorm,
    slotscope,
    top_storm,
    toss,
)
from core.schedulers.base import (
    Assignment,
    Outcome,
    Param,
    Schedule,
    SchedulerError,
    SchedulerSpec,
    Status,
)

SCHEDULERS: dict[str, SchedulerSpec] = {
    "even": even.SPEC,
    "rstorm": rstorm.SPEC,
    "aniello-offline": aniello_offline.SPEC,
    "aniello-online": aniello_online.SPEC,
    "toss": toss.SPEC,
    "top-storm": top_storm.SPEC,
    "lf": lf.SPEC,
    "hetero": hetero.SPEC,
    "optimal": optimal.SPEC,
    "slotscope": slotscope.SPEC,
}

__all__ = [
    "SCHEDULERS",
    "Assignment",
    "Outcome",
    "Param",
    "Schedule",
    "SchedulerError",
    "SchedulerSpec",
    "Status",
    "get_scheduler",
    "resolve_params",
    "run_scheduler",
]


def get_scheduler(scheduler_id: str) -> SchedulerSpec:
    """The registry entry for an id; an unknown id lists the valid ones."""
    try:
        return SCHEDULERS[scheduler_id]
    except KeyError:
        valid = ", ".join(SCHEDULERS)
        raise SchedulerError(f"unknown scheduler '{scheduler_id}' (valid: {valid})") from None


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


def run_scheduler(
    scenario: Scenario, scheduler_id: str, params: Mapping[str, Any] | None = None
) -> Schedule:
    """Run one scheduler on a validated scenario.

    Raises
    ------
    SchedulerError
        Unknown scheduler or parameter, or a parameter out of range.
    """
    spec = get_scheduler(scheduler_id)
    resolved = resolve_params(spec, params)
    start = time.perf_counter()
    out = spec.run(scenario, resolved)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    if out.parallelism is not None:
        parallelism = dict(out.parallelism)
    else:
        from core.topology import build_graph

        parallelism = dict(build_graph(scenario).parallelism)
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

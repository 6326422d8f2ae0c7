"""The scheduler registry: one literal dict, one public entry point.

It sits above everything it lists: the paper schedulers
(:mod:`core.schedulers.papers`) and the searches that start from them or
score placements (``optimal``, ``slotscope``), which take the task mapper as
an argument and never run a job themselves.

>>> list(SCHEDULERS)[0]
'even'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.model import Scenario
from core.placement import Assignment, Outcome, Schedule, SchedulerError, Status
from core.schedulers import optimal, slotscope
from core.schedulers.base import Param, SchedulerSpec, resolve_params, run_spec
from core.schedulers.papers import PAPERS, feed, with_observations

# the paper schedulers (in the order comparisons list them), then the searches
SCHEDULERS: dict[str, SchedulerSpec] = {
    **PAPERS,
    "optimal": optimal.SPEC,
    "slotscope": slotscope.SPEC,
}

__all__ = [
    "PAPERS",
    "SCHEDULERS",
    "Assignment",
    "Outcome",
    "Param",
    "Schedule",
    "SchedulerError",
    "SchedulerSpec",
    "Status",
    "feed",
    "get_scheduler",
    "resolve_params",
    "run_scheduler",
    "with_observations",
]


def get_scheduler(scheduler_id: str) -> SchedulerSpec:
    """The registry entry for an id; an unknown id lists the valid ones."""
    try:
        return SCHEDULERS[scheduler_id]
    except KeyError:
        valid = ", ".join(SCHEDULERS)
        raise SchedulerError(f"unknown scheduler '{scheduler_id}' (valid: {valid})") from None


def run_scheduler(
    scenario: Scenario, scheduler_id: str, params: Mapping[str, Any] | None = None
) -> Schedule:
    """Run one scheduler on a validated scenario.

    Raises
    ------
    SchedulerError
        Unknown scheduler or parameter, or a parameter out of range.
    """
    return run_spec(get_scheduler(scheduler_id), scenario, params)

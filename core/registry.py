"""The scheduler registry: every scheduler slotscope offers, one literal dict.

It sits above both kinds of scheduler: the paper schedulers
(:mod:`core.schedulers`, :data:`~core.schedulers.PAPER_SCHEDULERS`), Storm 2's
resource-aware strategies (:mod:`core.schedulers.storm_ras`, ported in
:mod:`core.ras`) and the
searches (:mod:`core.search`: ``optimal``, ``slotscope``), which start from the
paper schedulers or score placements and take the task mapper as an argument,
never running a job themselves.

>>> list(SCHEDULERS)[0]
'even'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.model import Scenario
from core.placement import Assignment, Outcome, Schedule, SchedulerError, Status
from core.schedulers import PAPER_SCHEDULERS, feed, storm_ras, with_observations
from core.schedulers.base import Param, SchedulerSpec, resolve_params, run_spec
from core.search import optimal, slotscope

# the paper schedulers (in the order comparisons list them), Storm 2's resource-aware
# strategies, then the searches
SCHEDULERS: dict[str, SchedulerSpec] = {
    **PAPER_SCHEDULERS,
    **storm_ras.SPECS,
    "optimal": optimal.SPEC,
    "slotscope": slotscope.SPEC,
}

__all__ = [
    "PAPER_SCHEDULERS",
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

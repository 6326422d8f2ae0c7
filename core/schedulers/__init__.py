"""The schedulers from the papers and Storm's own, and the runtime observations some read.

Each module here is one paper's scheduler (``even.py`` is the model file),
each a pure function of (problem, params): a scenario carries its runtime
observations. :data:`PAPER_SCHEDULERS` lists them in the order comparisons
show them; ``storm_ras`` adds Storm 2's resource-aware strategies (ported in
:mod:`core.ras`), which the registry lists after them. The searches
(:mod:`core.search`) sit above and start from the paper schedulers; the full
registry, :mod:`core.registry`, sits above both.

>>> list(PAPER_SCHEDULERS)[:3]
['even', 'rstorm', 'aniello-offline']
"""

from __future__ import annotations

import core.schedulers.aniello_offline as aniello_offline
import core.schedulers.aniello_online as aniello_online
import core.schedulers.even as even
import core.schedulers.hetero as hetero
import core.schedulers.lf as lf
import core.schedulers.rstorm as rstorm
import core.schedulers.top_storm as top_storm
import core.schedulers.toss as toss
from core.model import Scenario, with_changes
from core.placement import Schedule
from core.schedulers.base import SchedulerSpec, run_spec
from core.simulator import observe

PAPER_SCHEDULERS: dict[str, SchedulerSpec] = {
    "even": even.SPEC,
    "rstorm": rstorm.SPEC,
    "aniello-offline": aniello_offline.SPEC,
    "aniello-online": aniello_online.SPEC,
    "toss": toss.SPEC,
    "top-storm": top_storm.SPEC,
    "lf": lf.SPEC,
    "hetero": hetero.SPEC,
}


def with_observations(
    scenario: Scenario, rate: float, running: str, current: Schedule | None = None
) -> Scenario:
    """The scenario with runtime observations from simulating ``running``'s placement
    (``current`` when the caller has it already, e.g. the dashboard's memo).

    A scenario that has observed traffic already is returned as it is.
    """
    if scenario.observations is not None and scenario.observations.traffic:
        return scenario
    current = current or run_spec(PAPER_SCHEDULERS[running], scenario)
    return with_changes(scenario, observations=observe(scenario, current, rate))


def feed(
    scenario: Scenario, spec: SchedulerSpec, rate: float, current: Schedule | None = None
) -> Scenario:
    """The scenario ``spec`` schedules: fed observations of its ``running_placement``
    when it has one (TOSS is not fed: its node workload is other topologies' load,
    0 here, unless the scenario gives background load)."""
    if spec.running_placement is None:
        return scenario
    return with_observations(scenario, rate, spec.running_placement, current)

"""What if a node fails: how each scheduler re-places, and what the placement then costs.

A failed node leaves the cluster with its workers. What happens next is the
scheduler's own behaviour in Storm:

- ``even``: Storm's EvenScheduler keeps every executor whose worker is alive
  and deals only the lost ones over free slots
  (:func:`core.schedulers.even.reschedule`);
- every other scheduler here computes a whole-topology placement from the
  cluster it is given, so it re-places all executors on the surviving nodes,
  as on a resubmission (executors may move even off healthy nodes).

``KEEPS_SURVIVORS`` names the schedulers of the first kind; the dashboard says
which kind each one is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.metrics import PlacementChanges, placement_changes
from core.model import Scenario, ScenarioError, with_changes
from core.schedulers import Schedule, feed, get_scheduler, run_scheduler
from core.schedulers import even as even_scheduler
from core.schedulers.base import Outcome

# scheduler id -> re-placement that keeps alive assignments, as Storm runs it
KEEPS_SURVIVORS: Mapping[str, Callable[[Scenario, Mapping[str, tuple[str, int]]], Outcome]] = {
    "even": even_scheduler.reschedule,
}


@dataclass(frozen=True)
class Failover:
    """One scheduler's placement after a node failure."""

    scenario: Scenario  # the cluster without the failed node
    schedule: Schedule
    changes: PlacementChanges  # against the placement before the failure
    keeps_survivors: bool


def without_node(scenario: Scenario, node_id: str) -> Scenario:
    """The scenario with one node (and its slots) gone.

    Raises
    ------
    ScenarioError
        Unknown node, or no slot left anywhere.
    """
    nodes = [n for n in scenario.cluster.nodes if n.id != node_id]
    if len(nodes) == len(scenario.cluster.nodes):
        raise ScenarioError("cluster.nodes", f"no node '{node_id}' to fail")
    if not nodes:
        raise ScenarioError("cluster.nodes", f"'{node_id}' is the only node: nothing would be left")
    dumped = [n.model_dump(exclude_none=True, mode="json") for n in nodes]
    return with_changes(scenario, cluster={"nodes": dumped})


def failover(
    scenario: Scenario,
    node_id: str,
    scheduler: str,
    params: Mapping[str, Any],
    before: Schedule,
    rate: float,
) -> Failover:
    """How ``scheduler`` re-places ``before`` when ``node_id`` fails.

    Parameters
    ----------
    scenario : Scenario
        The healthy scenario ``before`` was computed on.
    node_id : str
    scheduler : str
    params : mapping
        The scheduler's parameters (as for ``before``).
    before : Schedule
    rate : float
        Offered rate, for the schedulers fed by runtime observations.
    """
    smaller = without_node(scenario, node_id)
    keep = KEEPS_SURVIVORS.get(scheduler)
    if keep is not None:
        alive = {e: where for e, where in before.placement().items() if where[0] != node_id}
        out = keep(smaller, alive)
        after = Schedule(
            scheduler=scheduler,
            status=out.status,
            params=dict(before.params),
            parallelism=dict(before.parallelism),
            assignments=out.assignments,
            decisions=out.decisions,
            elapsed_ms=0.0,
            message=out.message,
        )
    else:
        after = run_scheduler(feed(smaller, get_scheduler(scheduler), rate), scheduler, params)
    changes = placement_changes(before.placement(), after.placement())
    return Failover(smaller, after, changes, keep is not None)

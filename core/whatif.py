"""What if a node or a slot fails: how each scheduler re-places, and what that costs.

A failed node leaves the cluster with its workers; a failed slot (a worker
port its supervisor can no longer offer) leaves its node with one slot less,
the node's later slots numbered down by one. What happens next is the
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
from core.registry import Schedule, feed, get_scheduler, run_scheduler
from core.schedulers import even as even_scheduler
from core.schedulers.base import Outcome

# scheduler id -> re-placement that keeps alive assignments, as Storm runs it
KEEPS_SURVIVORS: Mapping[str, Callable[[Scenario, Mapping[str, tuple[str, int]]], Outcome]] = {
    "even": even_scheduler.reschedule,
}


@dataclass(frozen=True)
class Failure:
    """What fails: a whole node, or one of its slots."""

    node: str
    slot: int | None = None  # None: the node

    def __str__(self) -> str:
        return self.node if self.slot is None else f"{self.node} slot {self.slot}"

    def hits(self, where: tuple[str, int]) -> bool:
        """True when an executor at ``where`` (node, slot) loses its worker."""
        return where[0] == self.node and self.slot in (None, where[1])

    def survivor(self, where: tuple[str, int]) -> tuple[str, int]:
        """Where a surviving worker's executor sits after the failure (slots renumbered)."""
        node, slot = where
        if self.slot is not None and node == self.node and slot > self.slot:
            return node, slot - 1
        return where


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


def without_slot(scenario: Scenario, node_id: str, slot: int) -> Scenario:
    """The scenario with one slot of a node gone (the node offers one slot less).

    Raises
    ------
    ScenarioError
        Unknown node or slot, or no slot left anywhere.
    """
    nodes = [n.model_dump(exclude_none=True, mode="json") for n in scenario.cluster.nodes]
    node = next((n for n in nodes if n["id"] == node_id), None)
    if node is None:
        raise ScenarioError("cluster.nodes", f"no node '{node_id}' to fail")
    if not 0 <= slot < node["slots"]:
        raise ScenarioError(
            "cluster.nodes", f"'{node_id}' has no slot {slot} (it offers {node['slots']})"
        )
    if sum(n["slots"] for n in nodes) == 1:
        raise ScenarioError("cluster.nodes", f"slot {slot} of '{node_id}' is the only slot")
    node["slots"] -= 1
    return with_changes(scenario, cluster={"nodes": nodes})


def without(scenario: Scenario, failure: Failure) -> Scenario:
    """The scenario after ``failure``."""
    if failure.slot is None:
        return without_node(scenario, failure.node)
    return without_slot(scenario, failure.node, failure.slot)


def failover(
    scenario: Scenario,
    failure: Failure | str,
    scheduler: str,
    params: Mapping[str, Any],
    before: Schedule,
    rate: float,
) -> Failover:
    """How ``scheduler`` re-places ``before`` when a node or slot fails.

    Parameters
    ----------
    scenario : Scenario
        The healthy scenario ``before`` was computed on.
    failure : Failure or str
        What fails (a node id alone: that node).
    scheduler : str
    params : mapping
        The scheduler's parameters (as for ``before``).
    before : Schedule
    rate : float
        Offered rate, for the schedulers fed by runtime observations.
    """
    failure = Failure(failure) if isinstance(failure, str) else failure
    smaller = without(scenario, failure)
    keep = KEEPS_SURVIVORS.get(scheduler)
    if keep is not None:
        alive = {
            e: failure.survivor(where)
            for e, where in before.placement().items()
            if not failure.hits(where)
        }
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
    # against where each executor was, in the slot numbers after the failure
    # (an executor whose worker died has no such slot: it always counts as moved)
    was = {
        e: (where[0], -1) if failure.hits(where) else failure.survivor(where)
        for e, where in before.placement().items()
    }
    changes = placement_changes(was, after.placement())
    return Failover(smaller, after, changes, keep is not None)

"""Storm's default scheduler (EvenScheduler, used by DefaultScheduler).

r = min(W, free slots) slots are taken from the head of Storm's ``sortSlots``
order (nodes interleaved, those with most free slots first); executors in
task-id order (components by id, then index) go round robin: executor i ->
slot i mod r. When W exceeds the free slots Storm does not fail: it uses the
free slots it has, and so do we (the decisions say so).

References
----------
.. [1] Apache Storm, ``storm-server/src/main/java/org/apache/storm/scheduler/
   EvenScheduler.java`` (``sortSlots``, ``scheduleTopology``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.model import Scenario
from core.schedulers.base import Outcome, SchedulerSpec, assignment, free_slots, sort_slots
from core.topology import build_graph


def schedule(scenario: Scenario, params: Mapping[str, Any]) -> Outcome:
    """Place executors round robin over Storm's interleaved slot order.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {})
    >>> [(a.executor, a.node) for a in out.assignments][:2]
    [('c1#0', 'n1'), ('c2#0', 'n2')]
    """
    graph = build_graph(scenario)
    slots = sort_slots(free_slots(scenario.cluster.nodes))
    w = scenario.workers
    r = min(w, len(slots))
    chosen = slots[:r]
    decisions = []
    if w > len(slots):
        decisions.append(
            f"W = {w} workers requested but only {len(slots)} slots are free: "
            f"using all {len(slots)}, as Storm does"
        )
    executors = graph.executors_task_order()
    assignments = []
    for i, ex in enumerate(executors):
        node, slot = chosen[i % r]
        assignments.append(assignment(ex, node, slot))
        decisions.append(
            f"{ex} -> {node} slot {slot}: task {i} in task-id order, round robin over "
            f"{r} slots interleaved across nodes (slot {i % r + 1} of {r})"
        )
    return Outcome(assignments=tuple(assignments), decisions=tuple(decisions))


SPEC = SchedulerSpec(
    id="even",
    name="Storm default (EvenScheduler)",
    paper="Apache Storm EvenScheduler / DefaultScheduler",
    params=(),
    run=schedule,
    summary="Round robin of executors in task-id order over slots interleaved across nodes.",
)

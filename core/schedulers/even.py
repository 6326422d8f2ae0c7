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
from core.problem import Problem, problem_of
from core.schedulers.base import (
    Outcome,
    SchedulerSpec,
    Status,
    assignment,
    free_slots,
    sort_slots,
)


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Place executors round robin over Storm's interleaved slot order.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {})
    >>> [(a.executor, a.node) for a in out.assignments][:2]
    [('__acker#0', 'n1'), ('__acker#1', 'n2')]
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    graph = problem.graph
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


def reschedule(scenario: Scenario, alive: Mapping[str, tuple[str, int]]) -> Outcome:
    """Storm's EvenScheduler after a failure: alive assignments stay, the rest is dealt out.

    ``alive`` maps the executors whose worker survived to their (node, slot).
    As ``EvenScheduler.scheduleTopology`` does: the slots to use are
    min(W, free slots + alive workers); the first (that many - alive workers)
    free slots in ``sortSlots`` order take the other executors round robin in
    task-id order. With no slot to take them, they stay unassigned
    (``not-enough-resources``), as in Storm.

    Examples
    --------
    >>> from core.presets import preset
    >>> from core.model import with_changes
    >>> sc = preset("lf-linear")  # 8 nodes of 1 slot, W = 8, one executor each
    >>> nodes = [n for n in sc.cluster.nodes if n.id != "n2"]
    >>> smaller = with_changes(sc, cluster={"nodes": [n.model_dump() for n in nodes]})
    >>> alive = {a.executor: (a.node, a.slot) for a in schedule(sc, {}).assignments
    ...          if a.node != "n2"}
    >>> out = reschedule(smaller, alive)
    >>> out.status.value, [(a.executor, a.node) for a in out.assignments if a.executor == "c2#0"]
    ('not-enough-resources', [])
    """
    graph = problem_of(scenario).graph
    used = {where for where in alive.values()}
    free = {
        n.id: [s for s in range(n.slots) if (n.id, s) not in used] for n in scenario.cluster.nodes
    }
    slots = sort_slots(free)
    to_use = min(scenario.workers, len(slots) + len(used))
    chosen = slots[: max(0, to_use - len(used))]
    kept = [assignment(e, *alive[e]) for e in graph.executors_task_order() if e in alive]
    lost = [e for e in graph.executors_task_order() if e not in alive]
    decisions = [f"{a.executor} stays on {a.node} slot {a.slot}: its worker is alive" for a in kept]
    if lost and not chosen:
        return Outcome(
            assignments=tuple(kept),
            decisions=tuple(decisions),
            status=Status.NOT_ENOUGH_RESOURCES,
            message=(
                f"{len(lost)} executors lost their worker and no free slot is left within "
                f"W = {scenario.workers}: Storm leaves them unassigned"
            ),
        )
    moved = []
    for i, ex in enumerate(lost):
        node, slot = chosen[i % len(chosen)]
        moved.append(assignment(ex, node, slot))
        decisions.append(
            f"{ex} -> {node} slot {slot}: its worker died; round robin over the "
            f"{len(chosen)} free slots in sortSlots order"
        )
    return Outcome(assignments=tuple(kept + moved), decisions=tuple(decisions))


SPEC = SchedulerSpec(
    id="even",
    name="Storm default (EvenScheduler)",
    paper="Apache Storm EvenScheduler / DefaultScheduler",
    params=(),
    run=schedule,
    summary="Round robin of executors in task-id order over slots interleaved across nodes.",
)

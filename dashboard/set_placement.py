"""A topology set's placement as the placement panels draw it (no Dash: evaluation
processes import it).

For a set of several topologies the panels place the set as
:func:`core.topology_set.schedule_set` does, the same call as Simulate's sweep, the
Cluster view and ``slotscope schedule``: one topology after another, in priority order,
each on what the ones before left free, as Storm does; the searches (optimal,
slotscope) search the set jointly where it is within their size bound, each topology in
its own workers (``SET_TREATMENT`` says how each scheduler treats a set). The combined
placement is stated on the set's union (docs/model.md:
component ids ``topology/component``), the single topology every panel, metric and
analysis already reads. Only the ackers differ: each topology has its own
(``topology/__acker#i``), the union has one acker component fed by all, so each is
renumbered into it (``__acker#k``) in scheduling order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.model import ACKER_ID, QUALIFIER, Scenario
from core.placement import Assignment, Schedule, Status, assignment
from core.problem import Problem
from core.topology_set import SetSchedule, schedule_set

MAX_NAMED = 5  # topologies not placed that a schedule's message names


def is_set(scenario: Scenario | Problem) -> bool:
    """Whether the scenario (or the Problem's) holds several topologies."""
    sc = scenario.scenario if isinstance(scenario, Problem) else scenario
    return sc.is_set


def union_assignments(assignments: Sequence[Assignment]) -> tuple[Assignment, ...]:
    """A set's assignments with executor ids of its union: each topology's ackers become
    the union's (``__acker#0``, ``#1``, … in the order given); every other id is already
    the union's.

    >>> [a.executor for a in union_assignments([assignment("a/__acker#0", "n1", 0),
    ...     assignment("a/s#0", "n1", 0), assignment("b/__acker#0", "n2", 0)])]
    ['__acker#0', 'a/s#0', '__acker#1']
    """
    acker_suffix = f"{QUALIFIER}{ACKER_ID}"
    out, ackers = [], 0
    for a in assignments:
        if a.component.endswith(acker_suffix):
            out.append(assignment(f"{ACKER_ID}#{ackers}", a.node, a.slot))
            ackers += 1
        else:
            out.append(a)
    return tuple(out)


def union_parallelism(scenario: Scenario, placed: Sequence[Assignment]) -> dict[str, int]:
    """The union's parallelism: as declared, but as ``placed`` (the assignments of the
    topologies placed whole) where a scheduler picks its own (hetero); ackers as the
    union counts them."""
    topology = scenario.topology
    parallelism = {c.id: c.parallelism for c in topology.components}
    counted: dict[str, int] = {}
    for a in placed:
        if not a.component.endswith(ACKER_ID):
            counted[a.component] = counted.get(a.component, 0) + 1
    parallelism.update(counted)
    if topology.ackers:
        parallelism[ACKER_ID] = topology.ackers
    return parallelism


def _status(result: SetSchedule) -> tuple[Status, str]:
    """The combined status and, when a topology was not placed, a message naming them."""
    missing = [name for name in result.order if not result.outcomes[name].ok]
    if not missing:
        return Status.OK, ""
    statuses = {result.outcomes[name].status for name in missing}
    status = (
        Status.INVALID_TOPOLOGY
        if statuses == {Status.INVALID_TOPOLOGY.value}
        else Status.NOT_ENOUGH_RESOURCES
    )
    named = ", ".join(
        f"{name} ({result.outcomes[name].status.replace('-', ' ')})" for name in missing[:MAX_NAMED]
    )
    more = f" and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else ""
    first = (result.outcomes[missing[0]].message or "").split("\n", 1)[0]
    message = (
        f"{len(result.order) - len(missing)} of {len(result.order)} topologies placed; "
        f"not placed: {named}{more}." + (f" {first}" if first else "")
    )
    return status, message


def union_schedule(
    scenario: Scenario | Problem,
    scheduler: str,
    params: Mapping[str, Any] | None = None,
    rate: float | None = None,
) -> Schedule:
    """One scheduler on a set, as :func:`schedule_set` treats it, as one schedule of the
    set's union (raises SchedulerError as :func:`schedule_set` does).

    ``rate`` (tuples/s per spout) feeds schedulers that reschedule a running placement."""
    sc = scenario.scenario if isinstance(scenario, Problem) else scenario
    result = schedule_set(scenario, scheduler, params, rate=rate)
    assignments = union_assignments(result.assignments)
    placed_whole = [a for name in result.scheduled for a in result.outcomes[name].assignments]
    status, message = _status(result)
    decisions = tuple(
        f"{name}: {d}" for name in result.order for d in result.outcomes[name].decisions
    )
    return Schedule(
        scheduler=scheduler,
        status=status,
        params=dict(params or {}),
        parallelism=union_parallelism(sc, placed_whole),
        assignments=assignments,
        decisions=(result.treatment, *result.notes, *decisions),
        elapsed_ms=result.elapsed_ms,
        message=message,
        details={"set_order": list(result.order), "set_scheduled": len(result.scheduled)},
    )

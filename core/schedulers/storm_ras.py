"""Storm 2's resource-aware strategies as slotscope schedulers (``ras-*``).

Each runs the port in :mod:`core.ras` on the scenario's one topology: the nodes
become supervisors (CPU = cores x 100 %, memory = RAM, one host per node, the
node's rack), the components keep their R-Storm declarations (``cpu_pct`` as
``topology.component.cpu.pcore.percent``, ``memory_mb`` as on-heap MB), ackers
get Storm's default request, and the worker heap limit is Storm's default
``topology.worker.max.heap.size.mb`` (:mod:`core.ras.scenario`). As in Storm 2,
the strategies ignore ``workers``: a worker takes executors until its heap is
full. A topology Storm could not schedule is placed nowhere (Storm's RAS never
schedules part of one) and the message says, node by node, what it needed and
what was free (:func:`core.ras.schedule.explain_unfit`).

References
----------
.. [1] Apache Storm, ``storm-server/src/main/java/org/apache/storm/scheduler/
   resource/strategies/scheduling/`` (``DefaultResourceAwareStrategy``,
   ``GenericResourceAwareStrategy``, ``RoundRobinResourceAwareStrategy``,
   ``ConstraintSolverStrategy``); see docs/schedulers.md, "Storm 2's
   resource-aware strategies".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.model import Scenario
from core.problem import Problem, problem_of
from core.ras.scenario import from_scenario
from core.ras.schedule import schedule_cluster
from core.schedulers.base import Outcome, SchedulerSpec, Status, assignment

STORM_CLASSES = {
    "ras-default": "DefaultResourceAwareStrategy",
    "ras-generic": "GenericResourceAwareStrategy",
    "ras-round-robin": "RoundRobinResourceAwareStrategy",
    "ras-constraint": "ConstraintSolverStrategy",
}


def run_strategy(strategy: str, problem: Problem | Scenario) -> Outcome:
    """Place the scenario's topology with one of Storm 2's strategies.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = run_strategy("ras-default", preset("lf-linear"))
    >>> out.status.value, len(out.assignments)
    ('ok', 8)
    """
    scenario = problem_of(problem).scenario
    cluster, (topology,) = from_scenario(scenario)
    result = schedule_cluster(cluster, [topology], strategy)
    outcome = result.results[topology.name]
    if not outcome.success:
        return Outcome(
            assignments=(),
            decisions=(
                f"{STORM_CLASSES[strategy]} could not schedule all {topology.executors} "
                f"executors ({outcome.placed} placed before it gave up, "
                f"{outcome.states} states traversed)",
            ),
            status=Status.NOT_ENOUGH_RESOURCES,
            message=result.reports.get(topology.name, outcome.message),
        )
    placed = cluster.assignments[topology.name]
    assignments = []
    for executor, (node, port) in sorted(placed.items()):
        comp = topology.all_components[int(topology.exec_comp[executor])]
        index = executor - int(topology.comp_first_exec[topology.comp_index[comp.id]])
        assignments.append(assignment(f"{comp.id}#{index}", cluster.node_ids[node], port))
    decisions = (
        f"{STORM_CLASSES[strategy]}: all {topology.executors} executors scheduled "
        f"({outcome.states} states traversed, backtracked {outcome.backtracks} times) in "
        f"{len({where for where in placed.values()})} workers; workers asked: "
        f"{scenario.workers}, ignored as Storm 2's resource-aware scheduler does",
    )
    return Outcome(assignments=tuple(assignments), decisions=decisions)


def _spec(strategy: str, summary: str) -> SchedulerSpec:
    def run(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
        return run_strategy(strategy, problem)

    return SchedulerSpec(
        id=strategy,
        name=f"Storm 2 {STORM_CLASSES[strategy]}",
        paper="Apache Storm 2 resource-aware scheduler",
        params=(),
        run=run,
        summary=summary,
    )


SPECS: dict[str, SchedulerSpec] = {
    "ras-default": _spec(
        "ras-default",
        "Storm 2's default: racks, then hosts, by subordinate resource availability; "
        "executors by connection count",
    ),
    "ras-generic": _spec(
        "ras-generic",
        "Storm 2's generic-resource variant of the default (GPUs and other resources)",
    ),
    "ras-round-robin": _spec(
        "ras-round-robin",
        "Storm 2's round robin over nodes no other topology uses",
    ),
    "ras-constraint": _spec(
        "ras-constraint",
        "Storm 2's constraint solver: incompatible components, most per node, "
        "a bounded backtracking search",
    ),
}

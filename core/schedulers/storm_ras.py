"""Storm 2's resource-aware strategies as slotscope schedulers (``ras-*``).

Each runs the port in :mod:`core.ras` on the scenario's one topology: the nodes
become supervisors (CPU = cores x 100 %, memory = RAM, one host per node, the
node's rack), the components keep their R-Storm declarations (``cpu_pct`` as
``topology.component.cpu.pcore.percent``, ``memory_mb`` and ``offheap_mb`` as
on-heap and off-heap MB), ackers their own request (``acker_cpu_pct``,
``acker_memory_mb``, ``acker_offheap_mb``: Storm's defaults unless the conf set
them), and the worker heap limit is the topology's ``worker_max_heap_mb``, else
Storm's default ``topology.worker.max.heap.size.mb`` (:mod:`core.ras.scenario`). As in Storm 2,
the strategies ignore ``workers``: a worker takes executors until its heap is
full. A topology Storm could not schedule is placed nowhere (Storm's RAS never
schedules part of one) and the message says, node by node, what it needed and
what was free (:func:`core.ras.schedule.explain_unfit`).

Each topology runs its own strategy where the scenario gives one
(``scheduler_params: {"ras": {"strategy": "ras-generic"}}``, Storm's
``topology.scheduler.strategy``), as Nimbus does (``ResourceAwareScheduler.scheduleTopology``
reads the strategy from the topology's conf) and as Storm's ``TestLargeCluster`` runs
the corpus; elsewhere the chosen ras-* strategy. ``force=true`` runs the chosen one on
every topology (:func:`strategy_for`).

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

from core.importers.stormser import OWN_SCHEDULER_KEY, STORM_STRATEGY_IDS, STRATEGY_PARAM
from core.model import Scenario, Topology
from core.problem import Problem, problem_of
from core.ras.scenario import from_scenario
from core.ras.schedule import schedule_cluster
from core.schedulers.base import (
    Outcome,
    Param,
    SchedulerError,
    SchedulerSpec,
    Status,
    assignment,
)

STORM_CLASSES = {sid: java for java, sid in STORM_STRATEGY_IDS.items()}  # ras-* id -> class


OWN_KEY = OWN_SCHEDULER_KEY  # a topology's scheduler_params key read by every ras-* scheduler
# STRATEGY_PARAM, its value: a ras-* id or Storm's class name
FORCE = Param(
    "force",
    False,
    "true: this strategy on every topology; false (default): a topology's own strategy "
    "(scheduler_params.ras.strategy, Storm's topology.scheduler.strategy) wins, as in "
    "Nimbus and Storm's TestLargeCluster",
    bool,
)
ONE_ROUND, PER_SUBMISSION = "one", "submission"
ROUNDS = Param(
    "rounds",
    ONE_ROUND,
    f"on a topology set: '{ONE_ROUND}' Nimbus round over the whole set (as Storm's "
    f"TestLargeCluster; nothing is running yet, so nothing is evicted) or a round after each "
    f"'{PER_SUBMISSION}', the topologies submitted in list order: a later, more important "
    "topology then evicts running less important ones (Storm's eviction by priority)",
    str,
)
JAVA_IDS = {java: sid for sid, java in STORM_CLASSES.items()}


def check_rounds(value: Any) -> str:
    """The ``rounds`` parameter, checked: ``one`` or ``submission``."""
    if value not in (ONE_ROUND, PER_SUBMISSION):
        raise SchedulerError(
            f"parameter {ROUNDS.name}: {value!r}, expected '{ONE_ROUND}' or '{PER_SUBMISSION}'"
        )
    return str(value)


def strategy_for(topology: Topology, chosen: str, force: bool, where: str = "topology") -> str:
    """The ras-* strategy id a topology is scheduled with.

    Its own ``scheduler_params["ras"]["strategy"]`` (or under the chosen id; a ras-* id,
    or Storm's class name, with or without its package) unless ``force``; else ``chosen``.

    Raises
    ------
    SchedulerError
        An unknown strategy, naming the field.
    """
    own = {
        **topology.scheduler_params.get(OWN_KEY, {}),
        **topology.scheduler_params.get(chosen, {}),
    }.get(STRATEGY_PARAM)
    if force or own is None:
        return chosen
    name = str(own).rsplit(".", 1)[-1]
    if name in STORM_CLASSES:
        return name
    if name in JAVA_IDS:
        return JAVA_IDS[name]
    raise SchedulerError(
        f"{where}.scheduler_params.{OWN_KEY}.{STRATEGY_PARAM}: unknown strategy {own!r} "
        f"(known: {', '.join(STORM_CLASSES)} or their Storm class names)"
    )


def run_strategy(strategy: str, problem: Problem | Scenario, force: bool = False) -> Outcome:
    """Place the scenario's topology with one of Storm 2's strategies.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = run_strategy("ras-default", preset("lf-linear"))
    >>> out.status.value, len(out.assignments)
    ('ok', 16)
    """
    scenario = problem_of(problem).scenario
    cluster, (topology,) = from_scenario(scenario)
    chosen = strategy
    strategy = strategy_for(scenario.topology, chosen, force)
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
    if strategy != chosen:
        decisions += (
            f"{STORM_CLASSES[strategy]} is the topology's own strategy "
            f"(scheduler_params.{OWN_KEY}.{STRATEGY_PARAM}), over {chosen} "
            "(force=true runs the chosen one)",
        )
    return Outcome(assignments=tuple(assignments), decisions=decisions)


def _spec(strategy: str, summary: str) -> SchedulerSpec:
    def run(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
        check_rounds(params.get(ROUNDS.name, ONE_ROUND))  # one topology: one round either way
        return run_strategy(strategy, problem, bool(params.get(FORCE.name, False)))

    return SchedulerSpec(
        id=strategy,
        name=f"Storm 2 {STORM_CLASSES[strategy]}",
        paper="Apache Storm 2 resource-aware scheduler",
        params=(FORCE, ROUNDS),
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

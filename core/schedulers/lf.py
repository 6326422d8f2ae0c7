"""L/F: the Locality/Fairness-aware scheduler of Son & Moon (Electronics 2020).

L/F cuts the topology into *pipelines*, chains of one executor per component
that feed each other, and gives each pipeline a worker of its own: the tuples
of a pipeline never leave their worker (locality, high cohesion), and the
executors of one component are spread over workers (fairness, low coupling).

1. Slots: Storm's ``sortSlots`` order (as ``even``); r = W slots from its
   head. When W exceeds the free slots, all free slots are used, as Storm
   does, and a decision says so.
2. Pipeline extraction: while components have unassigned executors, start at
   the first such component in topological order and walk depth-first: a
   component not yet in this pipeline that still has an unassigned executor
   gives its next executor (lowest index) to the pipeline, then its
   predecessors are visited, then its successors, each in topological order.
   A component already in the pipeline, or exhausted, ends that branch of the
   walk (the walk does not pass through it): the paper's text ("the
   preceding POs and succeeding POs are divided into different pipelines on
   the basis of the PO") and its Algorithm 4.
3. Pipeline i -> slot i mod r, with all its executors. Pipelines of ackers
   alone (see below) continue the round robin over the u = min(p, r) slots
   that the p pipelines of the topology's own components use.

Option ``bridge`` (default off): the walk passes *through* an exhausted
component (once per pipeline, taking nothing from it) on to its predecessors
and successors, so the components on both sides of it share a pipeline.

The paper's Fig. 6 (8 single-slot nodes, W = 8, its five synthetic
workloads) with Storm 1.2.3's 8 ackers in the walk (below): the text's walk
gives Fig. 6a's cohesion gains over ``even`` (3900%, 71.78%, 71.02%, 32.03%,
59.45%) and Fig. 6b's "same coupling in all configurations": on star
(8,6,4,2,2,4,6,8), once c4 is exhausted, the walk goes from c3 through
``__acker`` (a successor of every component) to c6-c8, 8 pipelines, coupling
1.0 as ``even``'s. Without ackers it cuts 14 pipelines, the last six doubling
up on workers 1-6 with executors of c6-c8, coupling 12.7; ``bridge`` then
cuts 8, coupling 1.0. On linear, ascent, descent and diamond the walks give
the same placement.

Where the paper is silent (all deterministic):

- "Topological order" is :attr:`core.topology.TopologyGraph.order`: ties
  broken by the order in which the scenario lists the components.
- Storm's acker component (``__acker``), when the topology has ackers, is a
  component of the walk fed by every other: each pipeline the walk cuts from
  the topology's own components takes one acker executor. Storm 1.2.3 starts
  one acker per worker (``topology.acker.executors: null`` in
  ``conf/defaults.yaml``, ``add-acker!`` in ``daemon/common.clj``), more than
  there are pipelines when a pipeline holds several components; the ackers
  left over then join the workers the pipelines use, dealt on round robin
  over them, instead of opening workers of their own. The paper's own
  figures say so: on linear "the L/F job scheduler uses only one process"
  (Sec. 4.3), and page view's used heap is half even's, 298.5 against
  591.2 MB (Sec. 4.5): four workers, not eight. Its latencies are complete
  latencies, which need ackers (with none, Storm 1.2.3's spout acks a tuple
  as it emits it), so the ackers ran in those workers.

The paper's placement metrics (cohesion, coupling) live in
:mod:`core.metrics`, since every scheduler is measured with them.

References
----------
.. [1] D. Son, Y. Moon, "Locality/Fairness-Aware Job Scheduling in
   Distributed Stream Processing Engines", Electronics 9(11):1857, 2020.
   https://doi.org/10.3390/electronics9111857
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.model import ACKER_ID, Scenario
from core.problem import Problem, problem_of
from core.schedulers.base import Outcome, Param, SchedulerSpec, assignment, free_slots, sort_slots
from core.topology import TopologyGraph, component_of, executor_id


def extract_pipelines(graph: TopologyGraph, bridge: bool = False) -> list[list[str]]:
    """The L/F pipelines of a topology, in extraction order.

    Examples
    --------
    A line a -> b with 2 and 1 executors: one full pipeline, then what is left.

    >>> from core.model import validate_scenario
    >>> sc = validate_scenario({"topology": {"components": [
    ...     {"id": "a", "parallelism": 2}, {"id": "b", "parallelism": 1}],
    ...     "streams": [{"from": "a", "to": "b"}]},
    ...     "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 2}]}})
    >>> from core.topology import build_graph
    >>> extract_pipelines(build_graph(sc))
    [['a#0', 'b#0'], ['a#1']]
    """
    taken = dict.fromkeys(graph.order, 0)  # executors of each component already taken
    remaining = [c for c in graph.order if graph.parallelism[c] > 0]
    pipelines: list[list[str]] = []
    start = 0  # first component (in topological order) that may still remain
    while start < len(remaining):
        head = remaining[start]
        if taken[head] >= graph.parallelism[head]:
            start += 1
            continue
        pipelines.append(_walk(graph, head, taken, bridge))
    return pipelines


def _walk(graph: TopologyGraph, head: str, taken: dict[str, int], bridge: bool) -> list[str]:
    """One depth-first walk from ``head``: predecessors first, then successors.

    Iterative form of ``visit(c): take(c); for p in preds: visit(p); for s in
    succs: visit(s)`` guarded by "not in this pipeline and not exhausted", so a
    500-component chain cannot hit Python's recursion limit.
    """
    pipeline: list[str] = []
    in_pipeline: set[str] = set()

    def take(c: str) -> bool:
        if c in in_pipeline or taken[c] >= graph.parallelism[c]:
            return False
        in_pipeline.add(c)
        pipeline.append(executor_id(c, taken[c]))
        taken[c] += 1
        return True

    passed: set[str] = set()  # exhausted components this walk went through (bridge)

    def through(c: str) -> bool:
        if not bridge or c in in_pipeline or c in passed:
            return False
        passed.add(c)
        return True

    take(head)
    stack = [iter(graph.preds[head] + graph.succs[head])]
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
        elif take(nxt) or through(nxt):
            stack.append(iter(graph.preds[nxt] + graph.succs[nxt]))
    return pipeline


def _ackers_only(pipeline: list[str]) -> bool:
    """Whether a pipeline holds acker executors and nothing else."""
    return all(component_of(ex) == ACKER_ID for ex in pipeline)


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Deal L/F pipelines round robin over Storm's sorted slots.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {})
    >>> sorted({(a.node, a.slot) for a in out.assignments})
    [('n1', 0)]
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    graph = problem.graph
    slots = sort_slots(free_slots(scenario.cluster.nodes))
    w = scenario.workers
    r = min(w, len(slots))
    decisions = []
    if w > len(slots):
        decisions.append(
            f"W = {w} workers requested but only {len(slots)} slots are free: "
            f"using all {len(slots)}, as Storm does"
        )
    pipelines = extract_pipelines(graph, bool(params.get("bridge", False)))
    own = sum(not _ackers_only(pipe) for pipe in pipelines)
    used = max(1, min(own, r))  # the workers the topology's own pipelines take
    assignments = []
    for i, pipe in enumerate(pipelines):
        leftover = _ackers_only(pipe)  # the walk cuts these last: the acker follows all
        worker = i % used if leftover else i % r
        node, slot = slots[worker]
        assignments.extend(assignment(ex, node, slot) for ex in pipe)
        why = (
            f"ackers left over join the {used} worker(s) the pipelines use"
            if leftover
            else "each executor feeds the next inside one worker; "
            "L/F deals pipelines round robin over the sorted slots"
        )
        decisions.append(
            f"pipeline {i + 1} of {len(pipelines)} ({', '.join(pipe)}) -> {node} slot {slot} "
            f"(worker {worker + 1} of {r}): {why}"
        )
    return Outcome(
        assignments=tuple(assignments),
        decisions=tuple(decisions),
        details={"pipelines": len(pipelines)},
    )


SPEC = SchedulerSpec(
    id="lf",
    name="L/F (locality/fairness-aware)",
    paper=(
        "D. Son, Y. Moon, Locality/Fairness-Aware Job Scheduling in Distributed Stream "
        "Processing Engines, Electronics 9(11):1857, 2020, doi:10.3390/electronics9111857"
    ),
    params=(
        Param(
            "bridge",
            False,
            "Walk on through exhausted components (off: the paper's text, a branch ends there).",
            bool,
        ),
    ),
    run=schedule,
    summary="Cuts the topology into pipelines (one executor per component) and gives each "
    "pipeline one worker, round robin over Storm's sorted slots.",
)

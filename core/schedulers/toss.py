"""TOSS: topology-based scheduling for Storm clusters (Zhou et al., IPDPSW 2020).

TOSS cuts the executors into one group per worker along chains of the
topology (spout to sink), so components that feed each other share a worker,
then gives each group to the least loaded node.

Partition phase (the slides' Algorithm 1). E = executors; for each fraction
``alpha_i`` (default: W equal parts) group i holds ``E_i = round(E x
alpha_i)`` executors, the last group the rest. For each group a chain is
found by depth-first search from a spout to a sink, children in id order,
and the cursor C is set to the chain's head (lines 8-9). While group i has
fewer than E_i executors: add C's next unassigned executor, move C to the
next component on the chain that still has unassigned executors, back to the
head after the chain's end. When the chain's components are exhausted, the
next chain is found the same way among the components that still have
unassigned executors. Each group becomes one worker.

Allocation phase (Algorithm 2). A priority queue of nodes keyed by their
runtime workload (ties: more computation power, then node id): pop the least
loaded node, give the group its lowest free slot, add the group's predicted
load, push the node back if it has free slots left.

Where the slides are silent (all deterministic):

- Self-tuning of alpha (Algorithm 1, line 2, "Self-tuning parameter set
  alpha") is not specified by the slides: no rule, objective or measurement
  is given. Here ``alphas`` is not tuned: it is used as given and only sets
  how many executors each group (worker) takes; the default, W equal parts,
  gives every worker ``E/W`` executors as Storm's even scheduler would.
- Runtime workload of a node (Algorithm 2, line 2): the load other
  topologies put on it. A scenario holds one topology, so that is 0 unless
  ``scenario.observations.node_cpu_util`` gives the background utilisation
  (0..1) of nodes; a decision says which. The utilisation observed while this
  very topology runs is not background load: comparisons do not feed TOSS
  from a simulation of another scheduler's placement.
- Predicted load of a group on a node: the CPU utilisation (0..1) its
  executors would add there, ``sum cpu_us x expected rate / (1e6 x cores x
  per-core speed)``. Expected rate per executor: spouts share the offered
  rate (``workload.rate`` per spout component); a stream carries its source's
  processed rate times selectivity, split evenly over the target's executors
  (shuffle, fields, local-or-shuffle), copied to each (all), or sent to
  index 0 (global), as in the simulator's analytic layer. Every predicted
  load is proportional to the offered rate, so without background load the
  queue is ordered by load per offered tuple/s and the placement does not
  depend on the rate (the decisions show loads at the offered rate).
- ``round`` is round-half-up; a group never takes more than what is left
  (so with E < W some groups stay empty and take no worker).
- A chain starts at the first component, in id order, that still has
  unassigned executors and none of whose predecessors do (the spouts at
  first); children are visited in id order, Storm's acker component
  (``__acker``) after the topology's own.
- Computation power is TOP-Storm's Eq. 2 with alpha 0.8 (:mod:`core.hardware`).
- When W exceeds the free slots, the default is one equal part per free
  slot (Storm uses what it has); explicit ``alphas`` with more parts than
  free slots give status ``not-enough-resources``.

References
----------
.. [1] Y. Zhou, Y. Liu, C. Zhang, X. Peng, X. Qin, "TOSS: A Topology-based
   Scheduler for Storm Clusters", 2020 IEEE International Parallel and
   Distributed Processing Symposium Workshops (IPDPSW), pp. 587-596, 2020.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.hardware import computation_power, core_speed, total_cores
from core.model import ACKER_ID, Node, Scenario
from core.problem import Problem, problem_of
from core.schedulers.base import (
    Outcome,
    Param,
    SchedulerError,
    SchedulerSpec,
    Status,
    assignment,
    free_slots,
)
from core.topology import TopologyGraph, executor_id

ALPHA_TOLERANCE = 1e-6  # how far sum(alphas) may be from 1


def check_alphas(alphas: Sequence[float]) -> list[float]:
    """The fractions as floats, each in (0, 1], summing to 1.

    Raises
    ------
    SchedulerError
        Naming the ``alphas`` parameter.
    """
    values = [float(a) for a in alphas]
    for a in values:
        if not 0.0 < a <= 1.0:
            raise SchedulerError(f"parameter alphas: {a!r} is outside (0, 1]")
    if values and abs(sum(values) - 1.0) > ALPHA_TOLERANCE:
        raise SchedulerError(f"parameter alphas: the fractions sum to {sum(values):g}, not 1")
    return values


def group_sizes(executors: int, alphas: Sequence[float]) -> list[int]:
    """E_i = round(E x alpha_i), round half up, the last group the rest.

    >>> group_sizes(10, [0.25, 0.25, 0.5])
    [3, 3, 4]
    """
    sizes, left = [], executors
    for a in alphas[:-1]:
        size = min(left, math.floor(executors * a + 0.5))
        sizes.append(size)
        left -= size
    return [*sizes, left]


def expected_rates(graph: TopologyGraph, rate: float) -> dict[str, list[float]]:
    """Expected tuples/s processed by each executor, per component."""
    grouping = {(s.source, s.target): s.grouping for s in graph.streams}
    total: dict[str, float] = {}
    rates: dict[str, list[float]] = {}
    for c in graph.order:
        p = graph.parallelism[c]
        each, first = (rate / p, 0.0) if not graph.preds[c] else (0.0, 0.0)
        for u in graph.preds[c]:
            out = total[u] * graph.components[u].selectivity
            g = grouping[(u, c)]
            if g == "global":
                first += out
            elif g == "all":
                each += out
            else:
                each += out / p
        rates[c] = [each + (first if i == 0 else 0.0) for i in range(p)]
        total[c] = each * p + first
    return rates


def _chain(graph: TopologyGraph, left: Mapping[str, int]) -> list[str]:
    """A spout-to-sink chain among components with unassigned executors."""

    def by_id(c: str) -> tuple[bool, str]:
        return (c == ACKER_ID, c)

    c = min(
        (c for c in graph.order if left[c] and not any(left[p] for p in graph.preds[c])),
        key=by_id,
    )
    chain = [c]
    while kids := [d for d in graph.succs[c] if left[d]]:
        c = min(kids, key=by_id)
        chain.append(c)
    return chain


def partition(graph: TopologyGraph, sizes: Sequence[int]) -> list[tuple[list[str], list[str]]]:
    """The partition phase: per group, its executors and the chains they came from.

    Examples
    --------
    >>> from core.model import validate_scenario
    >>> sc = validate_scenario({"topology": {"components": [
    ...     {"id": "a", "parallelism": 2}, {"id": "b", "parallelism": 2}],
    ...     "streams": [{"from": "a", "to": "b"}]},
    ...     "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 2}]}})
    >>> from core.topology import build_graph
    >>> [g for g, _ in partition(build_graph(sc), [2, 2])]
    [['a#0', 'b#0'], ['a#1', 'b#1']]
    """
    left = dict(graph.parallelism)
    groups = []
    for size in sizes:
        live: list[str] = []  # components of the current chain with executors left
        pos, current = 0, ""  # a new chain, cursor at its head, for every group
        members: list[str] = []
        chains: list[str] = []
        while len(members) < size:
            if not live:
                live, pos = _chain(graph, left), 0
                current = " -> ".join(live)
            if current not in chains:
                chains.append(current)
            c = live[pos]
            members.append(executor_id(c, graph.parallelism[c] - left[c]))
            left[c] -= 1
            if left[c] == 0:
                live.pop(pos)
            else:
                pos += 1
            if pos >= len(live):
                pos = 0
        groups.append((members, chains))
    return groups


def predicted_load(
    members: Sequence[str], node: Node, scenario: Scenario, graph: TopologyGraph, rates
) -> float:
    """CPU utilisation (0..1) the group would add to ``node``."""
    busy_us = 0.0
    for ex in members:
        c, i = ex.rsplit("#", 1)
        busy_us += graph.components[c].cpu_us * rates[c][int(i)]
    capacity_us = 1e6 * total_cores(node) * core_speed(node, scenario.profiling)
    return busy_us / capacity_us


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Partition executors along chains, then fill the least loaded nodes.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {"alphas": [0.5, 0.5]})
    >>> sorted({(a.node, a.slot) for a in out.assignments})
    [('n1', 0), ('n2', 0)]
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    alphas = check_alphas(params.get("alphas") or [])
    graph = problem.graph
    nodes = [n for n in scenario.cluster.nodes if n.slots > 0]
    free = free_slots(nodes)
    total_free = sum(len(s) for s in free.values())
    decisions = []
    if not alphas:
        parts = min(scenario.workers, total_free)
        if scenario.workers > total_free:
            decisions.append(
                f"W = {scenario.workers} workers requested but only {total_free} slots are "
                f"free: {parts} equal groups, as Storm uses what it has"
            )
        alphas = [1.0 / parts] * parts
    elif len(alphas) > total_free:
        message = f"alphas asks for {len(alphas)} workers; the cluster has {total_free} free slots"
        return Outcome((), (message,), Status.NOT_ENOUGH_RESOURCES, message)

    background = scenario.observations.node_cpu_util if scenario.observations else {}
    rate = scenario.workload.rate
    if background:
        decisions.append(
            "node workload = the observed background utilisation (other topologies' load); "
            "nodes without an observation start at 0"
        )
        scale = rate  # queue keys in utilisation: background + group loads at the offered rate
    else:
        decisions.append(
            "no runtime observations of node CPU: the only topology, so every node's "
            "workload from other topologies is 0; ties go to the most powerful node, then "
            "by node id, and the placement does not depend on the offered rate"
        )
        scale = 1.0  # queue keys per offered tuple/s: the same order at every rate
    heap = [(background.get(n.id, 0.0), -computation_power(n), n.id) for n in nodes]
    heapq.heapify(heap)
    by_id = {n.id: n for n in nodes}
    unit_rates = expected_rates(graph, 1.0)  # tuples/s per offered tuple/s
    groups = partition(graph, group_sizes(graph.executor_count, alphas))
    assignments = []
    for number, (members, chains) in enumerate(groups):
        if not members:
            decisions.append(f"group {number + 1} of {len(groups)} is empty: no worker needed")
            continue
        key, neg_power, node_id = heapq.heappop(heap)
        node = by_id[node_id]
        slot = free[node_id].pop(0)
        unit = predicted_load(members, node, scenario, graph, unit_rates)
        if free[node_id]:
            heapq.heappush(heap, (key + scale * unit, neg_power, node_id))
        load = key if background else key * rate  # workload at the offered rate
        assignments.extend(assignment(ex, node_id, slot) for ex in members)
        decisions.append(
            f"group {number + 1} of {len(groups)} ({len(members)} executors: "
            f"{', '.join(members)}) -> {node_id} slot {slot}: executors taken in turn along "
            f"the chain {'; '.join(chains)} share one worker; {node_id} was the least loaded "
            f"node with a free slot (workload {load:.3f}, power {-neg_power:.2f}), "
            f"predicted +{rate * unit:.3f}"
        )
    return Outcome(assignments=tuple(assignments), decisions=tuple(decisions))


SPEC = SchedulerSpec(
    id="toss",
    name="TOSS",
    paper=(
        "Y. Zhou, Y. Liu, C. Zhang, X. Peng, X. Qin, TOSS: A Topology-based Scheduler for "
        "Storm Clusters, IPDPSW 2020, pp. 587-596"
    ),
    params=(
        Param(
            "alphas",
            (),
            "Share of the executors per worker, in (0, 1], summing to 1; empty = W equal parts.",
            "floats",
            0.0,
            1.0,
        ),
    ),
    run=schedule,
    summary="Cuts executors into one group per worker along spout-to-sink chains and gives "
    "each group to the least loaded node.",
)

"""Aniello, Baldoni and Querzoni's traffic-based (online) scheduler.

From measured executor-to-executor tuple rates and executor CPU loads (Hz) of
the running placement it computes one with less inter-node traffic, and
adopts it only when that is worth a reschedule.

1. Executors into ``S = min(W, E, free slots)`` workers of at most
   ``M(alpha) = ceil(E/S) + ceil(alpha x ((E - S + 1) - ceil(E/S)))``
   executors (the paper's Sec. 3 and the authors' ``Topology``: ``alpha`` in
   [0, 1], default 0; 0 balances executors over workers, 1 allows all but
   S - 1 in one) and at most ``gamma`` x the total load each.
   Executor pairs by traffic, highest first: if neither is placed, both go to
   the least loaded worker that can take both (else each to the least loaded
   one that can take it); if one or both are placed, every combination of
   their workers and the least loaded worker able to take the heavier one is
   tried, keeping the least inter-worker traffic. Then each empty worker gets
   the executor whose move adds the least inter-worker traffic.
2. Worker pairs by inter-worker traffic go onto nodes the same way (free
   slots; CPU capacity ``capacity_factor x cores x GHz``).
3. Reschedule when inter-node traffic drops by ``traffic_improvement``
   percent or more, or when an overloaded node is relieved; otherwise the
   running placement stays. Without observations (cold start) the result is
   aniello-offline's placement, and the decisions say so. The running
   placement is aniello-offline's (defaults): what a cold start deployed.
   Observations should be taken from that placement (comparisons simulate
   it, ``running_placement`` of :data:`SPEC`), so that traffic before and
   after and the overloaded nodes describe the same running system.

The pair-by-pair packing of both phases is :mod:`core.schedulers.aniello_packing`.

Choices where the paper and its code are silent (all deterministic):

- ``gamma`` is the largest share of the total load one worker may carry
  (1.0: no limit, like the authors' default); their code measures it against
  the average worker load instead.
- Flows both ways between two executors add up to one pair; equal traffic
  goes in topological order of the executors. Flows naming unknown executors
  are ignored and counted in ``details``.
- Least loaded: lowest load, then lowest worker index or first node in
  scenario order. Equally good combinations: the first tried wins (workers in
  index order, or for nodes the first worker's node, the second's; then the
  least loaded).
- Executors without observed traffic go, in topological order, to the least
  loaded worker with room before empty workers are filled; workers without
  inter-worker traffic go, in index order, to the least loaded node (the
  authors left both to Storm's EvenScheduler). Worker slots on a node are
  numbered in worker order.
- Left out: the authors' cap on workers per node (their ``beta``/``delta``),
  their "use more nodes" pass, and a double count of load in ``Node.assign``.
- A node is overloaded when its observed CPU utilisation (else its
  executors' load) reaches ``capacity_factor``; relieved when the new
  placement leaves it less load. A placement already without inter-node
  traffic cannot improve on traffic.
- If some executor or worker fits nowhere, the running placement stays and
  the decisions say why (the authors' scheduler aborts likewise).

References
----------
.. [1] L. Aniello, R. Baldoni, L. Querzoni, "Adaptive Online Scheduling in
   Storm", Proc. 7th ACM Int. Conf. on Distributed Event-Based Systems
   (DEBS 2013), pp. 207-218. https://doi.org/10.1145/2488222.2488267
.. [2] The authors' code: ``storm-adaptive-schedulers``,
   ``src/storm/scheduler/OnlineScheduler.java``, ``Topology.java``,
   ``Slot.java``, ``Node.java``, ``NodeManager.java``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

import core.schedulers.aniello_offline as aniello_offline
from core.model import Observations, Scenario
from core.problem import Problem, problem_of
from core.schedulers.aniello_offline import executors_per_worker
from core.schedulers.aniello_packing import (
    EPS,
    Bins,
    Flows,
    Infeasible,
    fill_empty,
    hottest,
    inter_traffic,
    pack,
)
from core.schedulers.base import Outcome, Param, SchedulerSpec, assignment

HZ_PER_GHZ = 1e9


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Traffic-based placement from observations; offline placement on a cold start.

    Examples
    --------
    >>> from core.presets import preset
    >>> schedule(preset("lf-linear"), {}).decisions[0]
    "No runtime observations (cold start): using aniello-offline's placement"
    """
    problem = problem_of(problem)
    return schedule_measured(problem, params, measured(problem.scenario.observations))


class Measured(NamedTuple):
    """Runtime observations as this scheduler reads them (:class:`core.model.Observations`
    or, without building its models, ``core.simulator.observed_values``)."""

    flows: Sequence[tuple[str, str, float]]  # (sender, receiver, tuples/s)
    executor_load_hz: Mapping[str, float]  # CPU load of each executor, Hz
    node_cpu_util: Mapping[str, float]  # CPU utilisation of each node, 0..1


def measured(obs: Observations | None) -> Measured | None:
    """The observations a scenario carries, as :class:`Measured` (None: no traffic)."""
    if obs is None or not obs.traffic:
        return None
    flows = [(f.source, f.target, f.rate) for f in obs.traffic]
    return Measured(flows, obs.executor_load_hz, obs.node_cpu_util)


def schedule_measured(problem: Problem, params: Mapping[str, Any], obs: Measured | None) -> Outcome:
    """:func:`schedule` from observations ``obs`` (None or no flows: a cold start) rather
    than the scenario's: the dashboard hands it the simulator's values."""
    scenario = problem.scenario
    factor = float(params.get("capacity_factor", 1.0))
    improvement = float(params.get("traffic_improvement", 10.0))
    current = aniello_offline.schedule(problem, aniello_offline.DEFAULTS)
    if obs is None or not obs.flows:
        first = "No runtime observations (cold start): using aniello-offline's placement"
        details = {"traffic_before": None, "traffic_after": None, "reschedule": False}
        return Outcome(current.assignments, (first, *current.decisions), details=details)
    execs = problem.graph.executors_topological()
    index = {e: i for i, e in enumerate(execs)}
    flows, known = observed_flows(obs.flows, index)
    loads = np.array([obs.executor_load_hz.get(e, 0.0) for e in execs], dtype=float)
    nodes = scenario.cluster.nodes
    full = np.array([n.sockets * n.cores * n.ghz * HZ_PER_GHZ for n in nodes])  # Hz
    node_ix = {n.id: k for k, n in enumerate(nodes)}
    cur = {a.executor: (a.node, a.slot) for a in current.assignments}
    cur_node = [node_ix[cur[e][0]] for e in execs]
    before = inter_traffic(flows, cur_node)
    details: dict[str, Any] = {
        "observed_pairs": len(flows[0]),
        "ignored_flows": len(obs.flows) - known,
        "traffic_before": round(before, 3),
        "traffic_after": None,
        "reschedule": False,
    }
    try:
        plan, reasons, cap = _plan(scenario, execs, flows, loads, factor * full, params)
    except Infeasible as err:
        first = f"Keep the running placement (aniello-offline's): {err}"
        lines = [f"{e} -> {n} slot {s}: running placement kept" for e, (n, s) in cur.items()]
        return Outcome(current.assignments, (first, *lines), details=details)
    new_node = [node_ix[plan[e][0]] for e in execs]
    after = inter_traffic(flows, new_node)
    topo_now = np.bincount(cur_node, weights=loads, minlength=len(nodes))
    util = np.array([obs.node_cpu_util.get(n.id, np.nan) for n in nodes])
    now = np.where(np.isnan(util), topo_now, util * full)  # Hz, other work included
    new = now - topo_now + np.bincount(new_node, weights=loads, minlength=len(nodes))
    over = [k for k in range(len(nodes)) if now[k] > 0 and now[k] >= factor * full[k] - EPS]
    relieved = [nodes[k].id for k in over if new[k] < now[k] - EPS]
    by_traffic = before > 0 and after <= before * (1 - improvement / 100) + EPS
    reschedule = by_traffic or bool(relieved)
    details.update(traffic_after=round(after, 3), reschedule=reschedule, executors_per_worker=cap)
    details.update(overloaded_nodes=[nodes[k].id for k in over], relieved_nodes=relieved)
    drop = 100.0 * (before - after) / before if before > 0 else 0.0
    change = (
        f"inter-node traffic {before:.4g} -> {after:.4g} tuples/s "
        f"({drop:.1f}% less, {improvement:g}% required)"
    )
    if reschedule:
        cause = change if by_traffic else f"relieves overloaded {', '.join(relieved)}; {change}"
        decisions = [f"Reschedule: {cause}"]
        decisions += [f"{e} -> {plan[e][0]} slot {plan[e][1]}: {reasons[e]}" for e in execs]
    else:
        decisions = [
            f"Keep the running placement (aniello-offline's): {change}; no overloaded node relieved"
        ]
        decisions += [
            f"{e} -> {cur[e][0]} slot {cur[e][1]}: running placement kept (the traffic-based plan "
            f"would put it on {plan[e][0]} slot {plan[e][1]}: {reasons[e]})"
            for e in execs
        ]
    chosen = plan if reschedule else cur
    assignments = tuple(assignment(e, *chosen[e]) for e in execs)
    return Outcome(assignments=assignments, decisions=tuple(decisions), details=details)


def observed_flows(
    traffic: Sequence[tuple[str, str, float]], index: Mapping[str, int]
) -> tuple[Flows, int]:
    """The observed flows (sender, receiver, tuples/s) between known executors as
    undirected pairs, hottest first (:func:`hottest`; executors by their ``index``), and
    how many flows were known.

    One pass over the flows (tens of thousands on the x10 presets).
    """
    ends = np.fromiter(
        (k for u, v, _ in traffic for k in (index.get(u, -1), index.get(v, -1))),
        dtype=np.int64,
        count=2 * len(traffic),
    ).reshape(-1, 2)
    rates = np.fromiter((r for _, _, r in traffic), dtype=float, count=len(traffic))
    known = (ends >= 0).all(axis=1)
    return hottest(ends[known, 0], ends[known, 1], rates[known]), int(np.count_nonzero(known))


def _plan(
    scenario: Scenario,
    execs: Sequence[str],
    flows: Flows,
    loads: np.ndarray,
    capacity: np.ndarray,
    params: Mapping[str, Any],
) -> tuple[dict[str, tuple[str, int]], dict[str, str], int]:
    """Both phases: (node, slot) and a reason per executor, and the executors-per-worker cap."""
    nodes = scenario.cluster.nodes
    n_slots = min(scenario.workers, len(execs), sum(n.slots for n in nodes))
    total = float(loads.sum())
    load_cap = float(params.get("gamma", 1.0)) * total if total > 0 else math.inf
    cap = executors_per_worker(len(execs), n_slots, float(params.get("alpha", 0.0)))
    workers = Bins([cap] * n_slots, [load_cap] * n_slots)
    names = (execs.__getitem__, lambda b: f"worker w{b}", "worker")
    slot_of, why, adj = pack(loads, flows, workers, names, keep_order=True)
    fill_empty(slot_of, adj, loads, workers, why)
    used = np.array(workers.count) > 0
    slot_loads = np.where(used, np.array(workers.load), 0.0)
    slot_flows = hottest(slot_of[flows[0]], slot_of[flows[1]], flows[2])
    hosts = Bins([n.slots for n in nodes], capacity)
    names = (lambda s: f"w{s}", lambda k: nodes[k].id, "node")
    node_of, slot_why, _ = pack(slot_loads, slot_flows, hosts, names, False, active=used)
    port = {int(s): int(np.count_nonzero(node_of[:s] == node_of[s])) for s in np.flatnonzero(used)}
    plan, reasons = {}, {}
    for i, e in enumerate(execs):
        s = int(slot_of[i])
        plan[e] = (nodes[int(node_of[s])].id, port[s])
        reasons[e] = f"{why[i]}; worker w{s} -> {plan[e][0]}: {slot_why[s]}"
    return plan, reasons, cap


SPEC = SchedulerSpec(
    id="aniello-online",
    name="Aniello et al. online (traffic-based)",
    paper="L. Aniello, R. Baldoni, L. Querzoni, Adaptive Online Scheduling in Storm, DEBS 2013",
    params=(
        Param(
            "alpha",
            0.0,
            "Executors per worker: 0 = balanced (ceil(E/S)), 1 = all but S - 1 in one.",
            minimum=0.0,
            maximum=1.0,
        ),
        Param("gamma", 1.0, "Largest share of the total load per worker.", minimum=1e-6, maximum=1),
        Param("capacity_factor", 1.0, "Usable share of cores x GHz.", minimum=0.01, maximum=1),
        Param(
            "traffic_improvement",
            10.0,
            "Traffic drop (%) worth a reschedule.",
            minimum=0,
            maximum=100,
        ),
    ),
    run=schedule,
    running_placement="aniello-offline",
    summary="Hot executor pairs share a worker, hot worker pairs a node; rescheduled if worth it.",
)

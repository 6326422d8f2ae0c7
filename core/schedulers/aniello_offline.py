"""Aniello, Baldoni and Querzoni's topology-based (offline) scheduler.

The scheduler looks only at the topology's shape: executors of a component go
to the workers that already hold executors of its input components, so that a
tuple is often handed over inside one worker; then the workers are dealt round
robin over a chosen number of nodes.

1. ``W`` empty workers ("buckets"), each holding at most
   ``cap = ceil(E/W) + ceil(alpha * ((E - W + 1) - ceil(E/W)))`` executors.
2. Components in topological order. For component number ``i``: *primary*
   buckets have room and hold an executor of one of its input components;
   *secondary* buckets are the other ones with room. From component
   ``floor(epsilon * C)`` on, every still-empty secondary bucket is moved to
   the front of the primary list (so every worker ends up used). Executors go
   round robin over the primary buckets (full ones dropped); only when none has
   room, round robin over the secondary ones.
3. Nodes sorted by free slots, most first; ``min`` = fewest nodes whose slots
   cover ``W``, ``max = min(nodes, W)``; ``min + ceil(beta * (max - min))``
   nodes are used and the buckets are dealt round robin over their free slots.

Choices where the paper and its code are silent (all deterministic):

- Nodes with equally many free slots keep the order in which the scenario
  lists them (the authors' code inherits a ``HashMap`` order); a node's slots
  are taken lowest index first.
- Executors of a component go in index order; components in the topological
  order of :func:`core.topology.build_graph` (ties: scenario order).
- Empty buckets promoted to the primary list are inserted one by one at its
  front, as the authors' ``OfflineScheduler`` does, so they end up in reverse
  index order (the last empty bucket is served first).
- Storm's ackers (``__acker``) are a component like any other here, fed by
  every component, so they join the workers of their inputs (the authors
  left them to Storm's EvenScheduler).
- When ``E < W`` the alpha term of ``cap`` would be negative (the authors'
  code then fails and falls back to EvenScheduler); it is clamped at 0.
- More workers than free slots is not an error: like Storm, the free slots
  are used and the decisions say so.
- Rounding: ``ceil`` and ``floor`` of ``alpha * ...`` and ``epsilon * C`` are
  taken with a 1e-9 tolerance so that 0.1 * 30 counts as 3, as intended.

References
----------
.. [1] L. Aniello, R. Baldoni, L. Querzoni, "Adaptive Online Scheduling in
   Storm", Proc. 7th ACM Int. Conf. on Distributed Event-Based Systems
   (DEBS 2013), pp. 207-218. https://doi.org/10.1145/2488222.2488267
.. [2] The authors' code: ``storm-adaptive-schedulers``,
   ``src/storm/scheduler/OfflineScheduler.java`` and ``NodeHelper.java``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.model import Node, Scenario
from core.problem import Problem, problem_of
from core.schedulers.base import Outcome, Param, SchedulerSpec, assignment
from core.topology import TopologyGraph

DEFAULTS: dict[str, float] = {"alpha": 0.0, "beta": 1.0, "epsilon": 0.5}
_TOLERANCE = 1e-9  # float noise allowed in ceil/floor of parameter products


def executors_per_worker(executors: int, workers: int, alpha: float) -> int:
    """The cap of executors per worker.

    Examples
    --------
    >>> executors_per_worker(8, 3, 0.0), executors_per_worker(8, 3, 1.0)
    (3, 6)
    """
    base = -(-executors // workers)
    extra = math.ceil(alpha * ((executors - workers + 1) - base) - _TOLERANCE)
    return base + max(0, extra)


def fill_buckets(
    graph: TopologyGraph, workers: int, cap: int, epsilon: float
) -> tuple[list[list[str]], dict[str, str]]:
    """Step 2: executors into ``workers`` buckets; also a reason per executor."""
    buckets: list[list[str]] = [[] for _ in range(workers)]
    held: list[set[str]] = [set() for _ in range(workers)]  # components per bucket
    where: dict[str, set[int]] = {}  # component -> buckets holding its executors
    reasons: dict[str, str] = {}
    order = graph.order
    force_from = math.floor(epsilon * len(order) + _TOLERANCE)
    for i, comp in enumerate(order):
        inputs = graph.preds[comp]
        near = set().union(*(where.get(p, set()) for p in inputs))
        primary = [b for b in range(workers) if len(buckets[b]) < cap and b in near]
        secondary = [b for b in range(workers) if len(buckets[b]) < cap and b not in near]
        promoted: set[int] = set()
        if i >= force_from:
            for b in [b for b in secondary if not buckets[b]]:
                secondary.remove(b)
                primary.insert(0, b)
                promoted.add(b)
        p_idx = s_idx = 0
        for ex in graph.executors(comp):
            p_idx, chosen = _next_with_room(primary, p_idx, buckets, cap)
            kind = "primary" if chosen is not None else "secondary"
            if chosen is None:
                s_idx, chosen = _next_with_room(secondary, s_idx, buckets, cap)
            if chosen is None:  # cannot happen: workers x cap >= E
                raise RuntimeError(f"no worker can take {ex}")
            name = f"worker {chosen + 1} of {workers}"
            if kind == "secondary" and inputs:
                why = f"no worker holding its inputs has room: {name}, round robin over the others"
            elif kind == "secondary":
                why = f"a source: {name}, round robin over the workers"
            elif chosen in promoted:
                why = (
                    f"{name} was still empty and is put to use (component {i + 1} of "
                    f"{len(order)}; epsilon forces empty workers from component {force_from + 1})"
                )
            else:
                shared = ", ".join(p for p in inputs if p in held[chosen])
                why = f"{name} already holds its input {shared} (round robin over such workers)"
            buckets[chosen].append(ex)
            held[chosen].add(comp)
            where.setdefault(comp, set()).add(chosen)
            reasons[ex] = why
    return buckets, reasons


def _next_with_room(
    slots: list[int], idx: int, buckets: Sequence[list[str]], cap: int
) -> tuple[int, int | None]:
    """Round robin step over ``slots`` (dropping full ones, as the authors do)."""
    while slots and len(buckets[slots[idx]]) == cap:
        slots.pop(idx)
        if idx == len(slots):
            idx = 0
    if not slots:
        return idx, None
    chosen = slots[idx]
    return (idx + 1) % len(slots), chosen


def deal_workers(
    nodes: Sequence[Node], workers: int, beta: float
) -> tuple[list[tuple[str, int]], int, int, int]:
    """Step 3 (``NodeHelper``): a (node, slot) per bucket, and min/max/used nodes."""
    ranked = sorted((n for n in nodes if n.slots > 0), key=lambda n: -n.slots)
    lo, covered = 0, 0
    while covered < workers:
        covered += ranked[lo].slots
        lo += 1
    hi = min(len(ranked), workers)
    use = lo + math.ceil(beta * (hi - lo) - _TOLERANCE)
    free = [list(range(n.slots)) for n in ranked[:use]]
    out = []
    k = 0
    for _ in range(workers):
        while not free[k]:
            k = (k + 1) % use
        out.append((ranked[k].id, free[k].pop(0)))
        k = (k + 1) % use
    return out, lo, hi, use


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Place executors near their inputs, then deal the workers over nodes.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), DEFAULTS)
    >>> [(a.executor, a.node, a.slot) for a in out.assignments][:2]
    [('c1#0', 'n1', 0), ('c2#0', 'n1', 0)]
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    alpha = float(params.get("alpha", DEFAULTS["alpha"]))
    beta = float(params.get("beta", DEFAULTS["beta"]))
    epsilon = float(params.get("epsilon", DEFAULTS["epsilon"]))
    graph = problem.graph
    nodes = scenario.cluster.nodes
    free = sum(n.slots for n in nodes)
    w = min(scenario.workers, free)
    e = graph.executor_count
    cap = executors_per_worker(e, w, alpha)
    buckets, reasons = fill_buckets(graph, w, cap, epsilon)
    slots, lo, hi, use = deal_workers(nodes, w, beta)
    decisions = []
    if scenario.workers > free:
        decisions.append(
            f"W = {scenario.workers} workers requested but only {free} slots are free: "
            f"using all {free}, as Storm does"
        )
    decisions.append(
        f"{e} executors into {w} workers, at most {cap} per worker (alpha {alpha:g}); "
        f"workers dealt round robin over {use} nodes (fewest possible {lo}, "
        f"most useful {hi}, beta {beta:g})"
    )
    placed = {}
    for b, bucket in enumerate(buckets):
        node, slot = slots[b]
        for ex in bucket:
            placed[ex] = (node, slot)
    assignments = []
    for ex in graph.executors_topological():
        node, slot = placed[ex]
        assignments.append(assignment(ex, node, slot))
        decisions.append(f"{ex} -> {node} slot {slot}: {reasons[ex]}")
    return Outcome(assignments=tuple(assignments), decisions=tuple(decisions))


SPEC = SchedulerSpec(
    id="aniello-offline",
    name="Aniello et al. offline (topology-based)",
    paper="L. Aniello, R. Baldoni, L. Querzoni, Adaptive Online Scheduling in Storm, DEBS 2013",
    params=(
        Param(
            "alpha",
            DEFAULTS["alpha"],
            "Executors per worker: 0 = balanced (ceil(E/W)), 1 = as many as possible in one.",
            minimum=0.0,
            maximum=1.0,
        ),
        Param(
            "beta",
            DEFAULTS["beta"],
            "Nodes used: 0 = fewest that hold W workers, 1 = min(nodes, W).",
            minimum=0.0,
            maximum=1.0,
        ),
        Param(
            "epsilon",
            DEFAULTS["epsilon"],
            "Share of components (topological order) after which empty workers must be used.",
            minimum=0.0,
            maximum=1.0,
        ),
    ),
    run=schedule,
    summary="Executors join workers holding their input components; workers dealt over nodes.",
)

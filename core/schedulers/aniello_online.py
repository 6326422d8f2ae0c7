"""Aniello, Baldoni and Querzoni's traffic-based (online) scheduler.

From measured executor-to-executor tuple rates and executor CPU loads (Hz) of
the placement that is running, it computes a placement with less inter-node
traffic, and adopts it only when that is worth a reschedule.

1. Executors into ``S = min(W, E, free slots)`` workers of at most ``ceil(E/S)``
   executors and at most ``gamma`` x the total load each. Executor pairs by
   traffic, highest first: if neither is placed, both go to the least loaded
   worker that can take both (else each to the least loaded that can take
   it); if one or both are placed, every combination of their workers and the
   least loaded worker able to take the heavier one is tried, keeping the one
   with the least inter-worker traffic. Then every empty worker receives the
   executor whose move raises inter-worker traffic least.
2. Worker pairs by inter-worker traffic, highest first, go onto nodes the same
   way: least loaded node with free slots and CPU capacity
   (``capacity_factor x cores x GHz``) for both, or the best combination.
3. Reschedule when inter-node traffic drops by at least
   ``traffic_improvement`` percent, or when an overloaded node is relieved.
   Otherwise the running placement stays.

Without observations (cold start) it returns aniello-offline's placement and
says so. The running placement is taken to be aniello-offline's (default
parameters), which is what a cold start would have deployed.

Choices where the paper and its code are silent (all deterministic):

- ``gamma`` is the largest share of the topology's total load one worker may
  carry (1.0: no limit, the authors' code default); the authors' own code
  measures it against the average worker load instead.
- Flows in both directions between two executors add up to one pair; pairs
  of equal traffic go in topological order of their executors. Flows naming
  unknown executors are ignored and counted in ``details``.
- "Least loaded": lowest load, then lowest worker index / first node in
  scenario order. Among equally good combinations the first tried wins
  (workers in index order, then the least loaded one; for nodes, the node of
  the first worker, of the second, then the least loaded).
- Executors without observed traffic go, in topological order, to the least
  loaded worker with room before empty workers are filled; workers without
  inter-worker traffic go, in index order, to the least loaded node (the
  authors left both to Storm's EvenScheduler).
- Each worker's slot on its node: slots numbered in worker index order.
- The authors' extra cap on workers per node (from their ``beta``/``delta``)
  and their "use more nodes" pass are not part of the specification and are
  left out; so is a double counting of load in their ``Node.assign``.
- A node is overloaded when its observed CPU utilisation (or, if not
  observed, its executors' load) reaches ``capacity_factor``; it is relieved
  when the new placement puts less load on it. No traffic drop is possible
  from a placement whose inter-node traffic is already 0.
- If no worker or node can take an executor or worker, the running placement
  stays and the decisions say why (the authors' scheduler aborts likewise).

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

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from core.model import Scenario
from core.schedulers import aniello_offline
from core.schedulers.base import Outcome, Param, SchedulerSpec, assignment
from core.topology import build_graph

HZ_PER_GHZ = 1e9
_EPS = 1e-9  # float slack on capacity checks
_TIE = 1e-6  # tuples/s: traffic differences below this are ties

Pair = tuple[int, int, float]  # item, item, traffic (tuples/s)


class _Infeasible(Exception):
    """Some executor or worker fits nowhere: keep the running placement."""


class _Bins:
    """Workers (or nodes) with a count cap and a load cap each.

    ``least_loaded`` keeps a lazy heap of (load, index): the lowest load wins,
    then the lowest index, which is the authors' first-found strict minimum.
    """

    def __init__(self, count_cap: Sequence[int], load_cap: Sequence[float]):
        self.count_cap = [int(c) for c in count_cap]
        self.load_cap = [float(c) + _EPS for c in load_cap]
        self.uniform = len(set(self.load_cap)) <= 1  # then one failed load check ends a search
        self.count = [0] * len(self.count_cap)
        self.load = [0.0] * len(self.count_cap)
        self.heap = [(0.0, b) for b, c in enumerate(self.count_cap) if c > 0]

    def fits(self, b: int, k: int, load: float) -> bool:
        return self.count[b] + k <= self.count_cap[b] and self.load[b] + load <= self.load_cap[b]

    def least_loaded(self, k: int, load: float) -> int | None:
        heap, skipped, found = self.heap, [], None
        while heap:
            held, b = heap[0]
            if held != self.load[b] or self.count[b] >= self.count_cap[b]:
                heapq.heappop(heap)  # stale entry, or a full bin (pushed again when freed)
            elif self.fits(b, k, load):
                found = b
                break
            elif self.uniform and self.count[b] + k <= self.count_cap[b]:
                break  # every other bin with room carries at least this load
            else:
                skipped.append(heapq.heappop(heap))
        for entry in skipped:
            heapq.heappush(heap, entry)
        return found

    def put(self, b: int, load: float, sign: int = 1) -> None:
        self.count[b] += sign
        self.load[b] += sign * load
        if self.count[b] < self.count_cap[b]:
            heapq.heappush(self.heap, (self.load[b], b))


def _pack(
    loads: np.ndarray,
    pairs: Sequence[Pair],
    adj: Sequence[dict[int, float]],
    bins: _Bins,
    names: tuple[Callable[[int], str], Callable[[int], str], str],
    keep_order: bool,
    active: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Aniello's pair-by-pair placement of items (executors or workers) into bins.

    ``names`` name an item, a bin and the kind of bin; ``keep_order`` lists
    the pair's bins in index order (workers) rather than pair order (nodes);
    items with ``active`` False and no traffic are left out (empty workers).
    """
    item, where, kind = names
    loads = loads.tolist()
    bin_of = [-1] * len(loads)
    near: list[dict[int, float]] = [{} for _ in loads]  # traffic to placed neighbours, per bin
    near_all = [0.0] * len(loads)  # traffic to all placed neighbours
    why = [""] * len(loads)

    def put(x: int, b: int, sign: int = 1) -> None:
        bin_of[x] = b if sign > 0 else -1
        bins.put(b, loads[x], sign)
        for o, r in adj[x].items():
            near[o][b] = near[o].get(b, 0.0) + sign * r
            near_all[o] += sign * r

    def single(x: int) -> int:
        b = bins.least_loaded(1, loads[x])
        if b is None:
            raise _Infeasible(f"no {kind} can take {item(x)}")
        put(x, b)
        return b

    def hot(other: int, rate: float) -> str:
        return f"{rate:.4g} tuples/s with {item(other)}"

    for x, y, rate in pairs:
        if bin_of[x] < 0 and bin_of[y] < 0:
            b = bins.least_loaded(2, loads[x] + loads[y])
            if b is not None:
                put(x, b), put(y, b)
                for z, o in ((x, y), (y, x)):
                    why[z] = (
                        f"{hot(o, rate)}: both into {where(b)}, least loaded with room for both"
                    )
                continue
            b = single(x)
            why[x] = f"{hot(y, rate)}: no {kind} had room for both; {where(b)} is the least loaded"
            if bins.fits(b, 1, loads[y]):
                put(y, b)
                why[y] = (
                    f"{hot(x, rate)}: no {kind} had room for both, but {where(b)} still fits it"
                )
            else:
                b = single(y)
                why[y] = f"{hot(x, rate)}: no room beside it; {where(b)} is the least loaded other"
            continue
        was = {x: bin_of[x], y: bin_of[y]}
        cands = [b for b in was.values() if b >= 0]
        cands = sorted(set(cands)) if keep_order else list(dict.fromkeys(cands))
        extra = bins.least_loaded(1, max(loads[x], loads[y]))
        if extra is not None and extra not in cands:
            cands.append(extra)
        best = _best_combination(x, y, rate, was, cands, loads, bins, near, near_all)
        if best is None:
            raise _Infeasible(f"no combination of {kind}s takes {item(x)} and {item(y)}")
        cost, bx, by = best
        moves = [(z, o, b) for z, o, b in ((x, y, bx), (y, x, by)) if b != was[z]]
        for z, _, _ in moves:
            if was[z] >= 0:
                put(z, was[z], -1)
        for z, o, b in moves:  # an item that stays keeps the reason it got there
            put(z, b)
            tried = ", ".join(where(c) for c in cands)
            why[z] = (
                f"{hot(o, rate)}: {where(b)} is the best of {tried} for traffic between "
                f"{kind}s ({cost:.4g} tuples/s on their links)"
            )
    for x in range(len(loads)):
        if bin_of[x] < 0 and (active is None or active[x]):
            b = single(x)
            why[x] = f"no observed traffic: {where(b)} is the least loaded {kind} with room"
    return np.array(bin_of, dtype=np.int64), why


def _best_combination(
    x: int,
    y: int,
    rate: float,
    was: Mapping[int, int],
    cands: Sequence[int],
    loads: Sequence[float],
    bins: _Bins,
    near: Sequence[Mapping[int, float]],
    near_all: Sequence[float],
) -> tuple[float, int, int] | None:
    """(traffic, bin for x, bin for y) crossing bins least, judged with x and y taken out.

    The first combination tried wins ties (x's bins outer, y's inner, as the
    authors' loops); ``None`` when no combination fits.
    """
    out_x = near_all[x] - (rate if was[y] >= 0 else 0.0)  # x's other links, all crossing
    out_y = near_all[y] - (rate if was[x] >= 0 else 0.0)
    lx, ly = loads[x], loads[y]
    per_bin = {}
    for b in cands:
        count = bins.count[b] - (was[x] == b) - (was[y] == b)
        held = bins.load[b] - (lx if was[x] == b else 0.0) - (ly if was[y] == b else 0.0)
        cap, load_cap = bins.count_cap[b], bins.load_cap[b]
        per_bin[b] = (
            count + 1 <= cap and held + lx <= load_cap,  # x fits
            count + 1 <= cap and held + ly <= load_cap,  # y fits
            count + 2 <= cap and held + lx + ly <= load_cap,  # both fit
            out_x - near[x].get(b, 0.0) + (rate if was[y] == b else 0.0),  # x's links crossing
            out_y - near[y].get(b, 0.0) + (rate if was[x] == b else 0.0),
        )
    best = None
    for bx in cands:
        x_fits, _, both_fit, x_cost, _ = per_bin[bx]
        if not x_fits:
            continue
        for by in cands:
            _, y_fits, _, _, y_cost = per_bin[by]
            together = by == bx
            cost = x_cost + y_cost + (0.0 if together else rate)
            fits = both_fit if together else y_fits
            if fits and (best is None or cost < best[0] - _TIE):
                best = (cost, bx, by)
    return best


def _fill_empty(
    slot_of: np.ndarray,
    adj: Sequence[dict[int, float]],
    loads: np.ndarray,
    bins: _Bins,
    why: list[str],
) -> None:
    """Move into each empty worker the executor whose move adds least traffic."""
    empty = [s for s, k in enumerate(bins.count) if k == 0]
    if not empty:
        return
    so = slot_of.tolist()
    own = np.array([sum(r for o, r in adj[e].items() if so[o] == so[e]) for e in range(len(so))])
    for target in empty:
        movable = (np.array(bins.count)[slot_of] > 1) & (loads <= bins.load_cap[target])
        if not movable.any():
            continue
        cost = np.where(movable, np.round(own, 6), np.inf)
        ties = np.flatnonzero(cost == cost.min())
        e = int(ties[np.lexsort((ties, slot_of[ties]))[0]])
        old = int(slot_of[e])
        for o, r in adj[e].items():
            if slot_of[o] == old:
                own[o] -= r
        bins.put(old, loads[e], -1)
        bins.put(target, loads[e])
        slot_of[e] = target
        why[e] = (
            f"moved to fill empty worker w{target} (adds {own[e]:.4g} tuples/s between workers)"
        )
        own[e] = 0.0


def _hottest(pairs: Iterable[Pair]) -> list[Pair]:
    """Undirected pairs with summed traffic, hottest first (ties: lower indices first)."""
    merged: dict[tuple[int, int], float] = {}
    for i, j, r in pairs:
        if i != j:
            key = (min(i, j), max(i, j))
            merged[key] = merged.get(key, 0.0) + r
    return sorted(((i, j, r) for (i, j), r in merged.items()), key=lambda p: (-p[2], p[0], p[1]))


def _adjacency(n: int, pairs: Sequence[Pair]) -> list[dict[int, float]]:
    adj: list[dict[int, float]] = [{} for _ in range(n)]
    for i, j, r in pairs:
        adj[i][j] = r
        adj[j][i] = r
    return adj


def _inter(pairs: Sequence[Pair], group: Sequence[Any]) -> float:
    return float(sum(r for i, j, r in pairs if group[i] != group[j]))


def schedule(scenario: Scenario, params: Mapping[str, Any]) -> Outcome:
    """Traffic-based placement from observations; offline placement on a cold start."""
    gamma = float(params.get("gamma", 1.0))
    factor = float(params.get("capacity_factor", 1.0))
    improvement = float(params.get("traffic_improvement", 10.0))
    current = aniello_offline.schedule(scenario, aniello_offline.DEFAULTS)
    obs = scenario.observations
    if obs is None or not obs.traffic:
        first = "No runtime observations (cold start): using aniello-offline's placement"
        return Outcome(
            assignments=current.assignments,
            decisions=(first, *current.decisions),
            details={"traffic_before": None, "traffic_after": None, "reschedule": False},
        )
    graph = build_graph(scenario)
    execs = graph.executors_topological()
    index = {e: i for i, e in enumerate(execs)}
    known = [f for f in obs.traffic if f.source in index and f.target in index]
    unknown = len(obs.traffic) - len(known)
    pairs = _hottest((index[f.source], index[f.target], f.rate) for f in known)
    adj = _adjacency(len(execs), pairs)
    loads = np.array([obs.executor_load_hz.get(e, 0.0) for e in execs], dtype=float)
    nodes = scenario.cluster.nodes
    capacity = np.array([factor * n.sockets * n.cores * n.ghz * HZ_PER_GHZ for n in nodes])
    node_ix = {n.id: k for k, n in enumerate(nodes)}
    cur = {a.executor: (a.node, a.slot) for a in current.assignments}
    cur_node = [node_ix[cur[e][0]] for e in execs]
    before = _inter(pairs, cur_node)
    details: dict[str, Any] = {"observed_pairs": len(pairs), "ignored_flows": unknown}
    try:
        plan, reasons = _plan(scenario, execs, pairs, adj, loads, capacity, gamma)
    except _Infeasible as err:
        details.update(traffic_before=round(before, 3), traffic_after=None, reschedule=False)
        first = f"Keep the running placement (aniello-offline's): {err}"
        lines = [
            f"{a.executor} -> {a.node} slot {a.slot}: running placement kept"
            for a in current.assignments
        ]
        return Outcome(assignments=current.assignments, decisions=(first, *lines), details=details)
    new_node = [node_ix[plan[e][0]] for e in execs]
    after = _inter(pairs, new_node)
    full = capacity / factor
    topo_now = np.bincount(cur_node, weights=loads, minlength=len(nodes))
    topo_new = np.bincount(new_node, weights=loads, minlength=len(nodes))
    util = np.array([obs.node_cpu_util.get(n.id, np.nan) for n in nodes])
    now = np.where(np.isnan(util), topo_now, util * full)
    new = now - topo_now + topo_new
    over = [nodes[k].id for k in range(len(nodes)) if now[k] > 0 and now[k] >= capacity[k] - _EPS]
    relieved = [nid for nid in over if new[node_ix[nid]] < now[node_ix[nid]] - _EPS]
    drop = 100.0 * (before - after) / before if before > 0 else 0.0
    by_traffic = before > 0 and after <= before * (1 - improvement / 100) + _EPS
    reschedule = by_traffic or bool(relieved)
    details.update(
        traffic_before=round(before, 3),
        traffic_after=round(after, 3),
        reschedule=reschedule,
        overloaded_nodes=over,
        relieved_nodes=relieved,
    )
    change = (
        f"inter-node traffic {before:.4g} -> {after:.4g} tuples/s "
        f"({drop:.1f}% less, {improvement:g}% required)"
    )
    if reschedule:
        cause = change if by_traffic else f"relieves overloaded {', '.join(relieved)}; {change}"
        decisions = [f"Reschedule: {cause}"]
        decisions += [f"{e} -> {plan[e][0]} slot {plan[e][1]}: {reasons[e]}" for e in execs]
        chosen = plan
    else:
        decisions = [
            f"Keep the running placement (aniello-offline's): {change}; no overloaded node relieved"
        ]
        decisions += [
            f"{e} -> {cur[e][0]} slot {cur[e][1]}: running placement kept (the traffic-based plan "
            f"would put it on {plan[e][0]} slot {plan[e][1]}: {reasons[e]})"
            for e in execs
        ]
        chosen = cur
    assignments = tuple(assignment(e, *chosen[e]) for e in execs)
    return Outcome(assignments=assignments, decisions=tuple(decisions), details=details)


def _plan(
    scenario: Scenario,
    execs: Sequence[str],
    pairs: Sequence[Pair],
    adj: Sequence[dict[int, float]],
    loads: np.ndarray,
    capacity: np.ndarray,
    gamma: float,
) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Both phases: executors to workers, workers to nodes; (node, slot) per executor."""
    nodes = scenario.cluster.nodes
    n_slots = min(scenario.workers, len(execs), sum(n.slots for n in nodes))
    per_slot = math.ceil(len(execs) / n_slots)
    total = float(loads.sum())
    load_cap = gamma * total if total > 0 else math.inf
    workers = _Bins([per_slot] * n_slots, [load_cap] * n_slots)
    slot_of, why = _pack(
        loads,
        pairs,
        adj,
        workers,
        (execs.__getitem__, lambda b: f"worker w{b}", "worker"),
        keep_order=True,
    )
    _fill_empty(slot_of, adj, loads, workers, why)
    slot_pairs = _hottest((int(slot_of[i]), int(slot_of[j]), r) for i, j, r in pairs)
    used = np.array(workers.count) > 0
    slot_loads = np.where(used, np.array(workers.load), 0.0)
    hosts = _Bins([n.slots for n in nodes], capacity)
    node_of, slot_why = _pack(
        slot_loads,
        slot_pairs,
        _adjacency(n_slots, slot_pairs),
        hosts,
        (lambda s: f"w{s}", lambda k: nodes[k].id, "node"),
        keep_order=False,
        active=used,
    )
    port = {int(s): int(np.count_nonzero(node_of[:s] == node_of[s])) for s in np.flatnonzero(used)}
    plan, reasons = {}, {}
    for i, e in enumerate(execs):
        s = int(slot_of[i])
        plan[e] = (nodes[int(node_of[s])].id, port[s])
        reasons[e] = f"{why[i]}; worker w{s} -> {plan[e][0]}: {slot_why[s]}"
    return plan, reasons


SPEC = SchedulerSpec(
    id="aniello-online",
    name="Aniello et al. online (traffic-based)",
    paper="L. Aniello, R. Baldoni, L. Querzoni, Adaptive Online Scheduling in Storm, DEBS 2013",
    params=(
        Param(
            "gamma",
            1.0,
            "Largest share of the total load one worker may carry.",
            minimum=0.01,
            maximum=1.0,
        ),
        Param(
            "capacity_factor",
            1.0,
            "Usable share of a node's CPU (cores x GHz) before it counts as overloaded.",
            minimum=0.01,
            maximum=1.0,
        ),
        Param(
            "traffic_improvement",
            10.0,
            "Reschedule only if inter-node traffic drops by at least this many percent.",
            minimum=0.0,
            maximum=100.0,
        ),
    ),
    run=schedule,
    summary=(
        "Hottest executor pairs share a worker, hottest worker pairs a node; "
        "reschedules only when worth it."
    ),
)

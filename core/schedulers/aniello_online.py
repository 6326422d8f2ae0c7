"""Aniello, Baldoni and Querzoni's traffic-based (online) scheduler.

From measured executor-to-executor tuple rates and executor CPU loads (Hz) of
the running placement it computes one with less inter-node traffic, and
adopts it only when that is worth a reschedule.

1. Executors into ``S = min(W, E, free slots)`` workers of at most
   ``ceil(E/S)`` executors and at most ``gamma`` x the total load each.
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

import heapq
import math
from collections.abc import Callable, Mapping, Sequence
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
Flows = tuple[np.ndarray, np.ndarray, np.ndarray]  # the same pairs as three arrays


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
        self.uniform = len(set(self.load_cap)) <= 1  # one failed load check ends a search
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
                heapq.heappop(heap)  # stale, or full (pushed again when freed)
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
    bins: _Bins,
    names: tuple[Callable[[int], str], Callable[[int], str], str],
    keep_order: bool,
    active: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str], list[dict[int, float]]]:
    """Aniello's pair-by-pair placement of items (executors or workers) into bins.

    ``names`` name an item, a bin and the kind of bin; ``keep_order`` lists
    a pair's bins in index order (workers) rather than pair order (nodes);
    items with ``active`` False and no traffic stay out (empty workers).
    Returns each item's bin, the reason, and the items' adjacency.
    """
    item, where, kind = names
    loads = loads.tolist()
    adj: list[dict[int, float]] = [{} for _ in loads]
    for i, j, r in pairs:
        adj[i][j] = adj[j][i] = r
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

    for x, y, rate in pairs:
        hot = {x: f"{rate:.4g} tuples/s with {item(y)}", y: f"{rate:.4g} tuples/s with {item(x)}"}
        wx, wy = bin_of[x], bin_of[y]
        if wx < 0 and wy < 0:
            b = bins.least_loaded(2, loads[x] + loads[y])
            if b is not None:
                put(x, b), put(y, b)
                why[x] = why[y] = f"both into {where(b)}, least loaded with room for both"
            else:
                b = single(x)
                why[x] = f"no {kind} had room for both; {where(b)} is the least loaded"
                if bins.fits(b, 1, loads[y]):
                    put(y, b)
                    why[y] = f"no {kind} had room for both, but {where(b)} still fits it"
                else:
                    why[y] = f"no room beside it; {where(single(y))} is the least loaded other"
            why[x], why[y] = f"{hot[x]}: {why[x]}", f"{hot[y]}: {why[y]}"
            continue
        if wx < 0 or wy < 0 or wx == wy:
            cands = [max(wx, wy)]
        else:
            cands = [min(wx, wy), max(wx, wy)] if keep_order else [wx, wy]
        extra = bins.least_loaded(1, max(loads[x], loads[y]))
        if extra is not None and extra not in cands:
            cands.append(extra)
        best = _best_combination(x, y, rate, (wx, wy), cands, loads, bins, near, near_all)
        if best is None:
            raise _Infeasible(f"no combination of {kind}s takes {item(x)} and {item(y)}")
        cost, bx, by = best
        moves = [(z, b, w) for z, b, w in ((x, bx, wx), (y, by, wy)) if b != w]
        for z, _, w in moves:
            if w >= 0:
                put(z, w, -1)
        for z, b, _ in moves:  # an item that stays keeps the reason it got there
            put(z, b)
            tried = ", ".join(where(c) for c in cands)
            why[z] = f"{hot[z]}: {where(b)} is the best of {tried} ({cost:.4g} tuples/s cross)"
    for x in range(len(loads)):
        if bin_of[x] < 0 and (active is None or active[x]):
            b = single(x)
            why[x] = f"no traffic with the others: {where(b)} is the least loaded {kind} with room"
    return np.array(bin_of, dtype=np.int64), why, adj


def _best_combination(
    x: int,
    y: int,
    rate: float,
    was: tuple[int, int],
    cands: Sequence[int],
    loads: Sequence[float],
    bins: _Bins,
    near: Sequence[Mapping[int, float]],
    near_all: Sequence[float],
) -> tuple[float, int, int] | None:
    """(crossing traffic, bin for x, bin for y), judged with x and y taken out.

    The first combination tried wins ties (x's bins outer, y's inner, as the
    authors' loops); ``None`` when no combination fits.
    """
    wx, wy = was
    out_x = near_all[x] - (rate if wy >= 0 else 0.0)  # x's other links, all crossing
    out_y = near_all[y] - (rate if wx >= 0 else 0.0)
    lx, ly = loads[x], loads[y]
    per_bin = {}
    for b in cands:
        count = bins.count[b] - (wx == b) - (wy == b)
        held = bins.load[b] - (lx if wx == b else 0.0) - (ly if wy == b else 0.0)
        cap, load_cap = bins.count_cap[b], bins.load_cap[b]
        per_bin[b] = (
            count + 1 <= cap and held + lx <= load_cap,  # x fits
            count + 1 <= cap and held + ly <= load_cap,  # y fits
            count + 2 <= cap and held + lx + ly <= load_cap,  # both fit
            out_x - near[x].get(b, 0.0) + (rate if wy == b else 0.0),  # x's links crossing
            out_y - near[y].get(b, 0.0) + (rate if wx == b else 0.0),
        )
    best = None
    for bx in cands:
        x_fits, _, both_fit, x_cost, _ = per_bin[bx]
        for by in cands if x_fits else ():
            _, y_fits, _, _, y_cost = per_bin[by]
            together = by == bx
            cost = x_cost + y_cost + (0.0 if together else rate)
            if (both_fit if together else y_fits) and (best is None or cost < best[0] - _TIE):
                best = (cost, bx, by)
    return best


def _fill_empty(
    slot_of: np.ndarray, adj: Sequence[dict[int, float]], loads: np.ndarray, bins: _Bins, why: list
) -> None:
    """Move into each empty worker the executor whose move adds least traffic."""
    empty = [s for s, k in enumerate(bins.count) if k == 0]
    so = slot_of.tolist()
    own = np.array([sum(r for o, r in adj[e].items() if so[o] == so[e]) for e in range(len(so))])
    for target in empty:
        movable = (np.array(bins.count)[slot_of] > 1) & (loads <= bins.load_cap[target])
        if not movable.any():
            continue
        cost = np.where(movable, np.round(own, 6), np.inf)
        ties = np.flatnonzero(cost == cost.min())
        e = int(ties[np.lexsort((ties, slot_of[ties]))[0]])  # first worker, first executor
        old = int(slot_of[e])
        for o, r in adj[e].items():
            if slot_of[o] == old:
                own[o] -= r
        bins.put(old, loads[e], -1)
        bins.put(target, loads[e])
        slot_of[e] = target
        why[e] = f"moved to fill empty worker w{target} (adds {own[e]:.4g} tuples/s across workers)"
        own[e] = 0.0


def _hottest(i: np.ndarray, j: np.ndarray, r: np.ndarray) -> Flows:
    """Undirected pairs with summed traffic, hottest first (ties: lower indices first)."""
    keep = i != j
    lo, hi, r = np.minimum(i, j)[keep], np.maximum(i, j)[keep], r[keep]
    base = int(hi.max()) + 1 if hi.size else 1
    keys, where = np.unique(lo * base + hi, return_inverse=True)
    total = np.bincount(where, weights=r, minlength=len(keys))
    lo, hi = keys // base, keys % base
    order = np.lexsort((hi, lo, -total))
    return lo[order], hi[order], total[order]


def _inter(flows: Flows, group: Sequence[int]) -> float:
    """Traffic between items in different groups (nodes)."""
    lo, hi, r = flows
    group = np.asarray(group)
    return float(r[group[lo] != group[hi]].sum())


def _as_pairs(flows: Flows) -> list[Pair]:
    return list(zip(*(a.tolist() for a in flows), strict=True))


def schedule(scenario: Scenario, params: Mapping[str, Any]) -> Outcome:
    """Traffic-based placement from observations; offline placement on a cold start.

    Examples
    --------
    >>> from core.presets import preset
    >>> schedule(preset("lf-linear"), {}).decisions[0]
    "No runtime observations (cold start): using aniello-offline's placement"
    """
    factor = float(params.get("capacity_factor", 1.0))
    improvement = float(params.get("traffic_improvement", 10.0))
    current = aniello_offline.schedule(scenario, aniello_offline.DEFAULTS)
    obs = scenario.observations
    if obs is None or not obs.traffic:
        first = "No runtime observations (cold start): using aniello-offline's placement"
        details = {"traffic_before": None, "traffic_after": None, "reschedule": False}
        return Outcome(current.assignments, (first, *current.decisions), details=details)
    execs = build_graph(scenario).executors_topological()
    index = {e: i for i, e in enumerate(execs)}
    known = [f for f in obs.traffic if f.source in index and f.target in index]
    flows = _hottest(
        np.array([index[f.source] for f in known], dtype=np.int64),
        np.array([index[f.target] for f in known], dtype=np.int64),
        np.array([f.rate for f in known], dtype=float),
    )
    loads = np.array([obs.executor_load_hz.get(e, 0.0) for e in execs], dtype=float)
    nodes = scenario.cluster.nodes
    full = np.array([n.sockets * n.cores * n.ghz * HZ_PER_GHZ for n in nodes])  # Hz
    node_ix = {n.id: k for k, n in enumerate(nodes)}
    cur = {a.executor: (a.node, a.slot) for a in current.assignments}
    cur_node = [node_ix[cur[e][0]] for e in execs]
    before = _inter(flows, cur_node)
    details: dict[str, Any] = {
        "observed_pairs": len(flows[0]),
        "ignored_flows": len(obs.traffic) - len(known),
        "traffic_before": round(before, 3),
        "traffic_after": None,
        "reschedule": False,
    }
    try:
        plan, reasons = _plan(scenario, execs, flows, loads, factor * full, params)
    except _Infeasible as err:
        first = f"Keep the running placement (aniello-offline's): {err}"
        lines = [f"{e} -> {n} slot {s}: running placement kept" for e, (n, s) in cur.items()]
        return Outcome(current.assignments, (first, *lines), details=details)
    new_node = [node_ix[plan[e][0]] for e in execs]
    after = _inter(flows, new_node)
    topo_now = np.bincount(cur_node, weights=loads, minlength=len(nodes))
    util = np.array([obs.node_cpu_util.get(n.id, np.nan) for n in nodes])
    now = np.where(np.isnan(util), topo_now, util * full)  # Hz, other work included
    new = now - topo_now + np.bincount(new_node, weights=loads, minlength=len(nodes))
    over = [k for k in range(len(nodes)) if now[k] > 0 and now[k] >= factor * full[k] - _EPS]
    relieved = [nodes[k].id for k in over if new[k] < now[k] - _EPS]
    by_traffic = before > 0 and after <= before * (1 - improvement / 100) + _EPS
    reschedule = by_traffic or bool(relieved)
    details.update(traffic_after=round(after, 3), reschedule=reschedule)
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


def _plan(
    scenario: Scenario,
    execs: Sequence[str],
    flows: Flows,
    loads: np.ndarray,
    capacity: np.ndarray,
    params: Mapping[str, Any],
) -> tuple[dict[str, tuple[str, int]], dict[str, str]]:
    """Both phases: executors to workers, workers to nodes; (node, slot) per executor."""
    nodes = scenario.cluster.nodes
    n_slots = min(scenario.workers, len(execs), sum(n.slots for n in nodes))
    total = float(loads.sum())
    load_cap = float(params.get("gamma", 1.0)) * total if total > 0 else math.inf
    workers = _Bins([math.ceil(len(execs) / n_slots)] * n_slots, [load_cap] * n_slots)
    names = (execs.__getitem__, lambda b: f"worker w{b}", "worker")
    slot_of, why, adj = _pack(loads, _as_pairs(flows), workers, names, keep_order=True)
    _fill_empty(slot_of, adj, loads, workers, why)
    used = np.array(workers.count) > 0
    slot_loads = np.where(used, np.array(workers.load), 0.0)
    slot_pairs = _as_pairs(_hottest(slot_of[flows[0]], slot_of[flows[1]], flows[2]))
    hosts = _Bins([n.slots for n in nodes], capacity)
    names = (lambda s: f"w{s}", lambda k: nodes[k].id, "node")
    node_of, slot_why, _ = _pack(slot_loads, slot_pairs, hosts, names, False, active=used)
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
    summary="Hot executor pairs share a worker, hot worker pairs a node; rescheduled if worth it.",
)

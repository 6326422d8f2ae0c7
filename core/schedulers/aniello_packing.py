"""The pair-by-pair packing of Aniello et al.'s online scheduler.

Items (executors, or workers) go into bins (workers, or nodes) with a count
cap and a load cap each, hottest pair of items first; used by
:mod:`core.schedulers.aniello_online` for both of its phases. The choices
(ties, least loaded) are written in that module's docstring.

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
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

EPS = 1e-9  # float slack on capacity checks
_TIE = 1e-6  # tuples/s: traffic differences below this are ties
DENSE_CELLS = 1 << 22  # items x bins up to this: the traffic to placed neighbours is one array
SCAN_FIRST = 256  # pairs checked together first for "both stay" (then 512, 1024, ...)
# pairs in a row that stayed before pack scans again: where changes come every few pairs a
# scan (a few hundred microseconds) finds one at once, and a pair by hand costs ~3 us
SCAN_AFTER = 64
SCAN_CELLS = 1 << 18  # at most this many (pair, bin) cells in one check

Pair = tuple[int, int, float]  # item, item, traffic (tuples/s)
Flows = tuple[np.ndarray, np.ndarray, np.ndarray]  # the same pairs as three arrays


class Infeasible(Exception):
    """Some executor or worker fits nowhere: keep the running placement."""


class Bins:
    """Workers (or nodes) with a count cap and a load cap each.

    ``least_loaded`` keeps a lazy heap of (load, index): the lowest load wins,
    then the lowest index, which is the authors' first-found strict minimum.
    """

    def __init__(self, count_cap: Sequence[int], load_cap: Sequence[float]):
        self.count_cap = [int(c) for c in count_cap]
        self.load_cap = [float(c) + EPS for c in load_cap]
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


def pack(
    loads: np.ndarray,
    flows: Flows,
    bins: Bins,
    names: tuple[Callable[[int], str], Callable[[int], str], str],
    keep_order: bool,
    active: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str], list[dict[int, float]]]:
    """Aniello's pair-by-pair placement of items (executors or workers) into bins.

    ``flows`` are the item pairs, hottest first (:func:`hottest`); ``names``
    name an item, a bin and the kind of bin; ``keep_order`` lists a pair's bins
    in index order (workers) rather than pair order (nodes); items with
    ``active`` False and no traffic stay out (empty workers). Runs of pairs
    that would leave both items where they are are found by :class:`StayScan`
    and skipped (the same placement and reasons, in fewer Python steps), once
    ``SCAN_AFTER`` pairs in a row changed nothing.
    Returns each item's bin, the reason, and the items' adjacency.
    """
    item, where, kind = names
    pairs = as_pairs(flows)
    load_of = np.asarray(loads, dtype=float)
    loads = load_of.tolist()
    adj: list[dict[int, float]] = [{} for _ in loads]
    for i, j, r in pairs:
        adj[i][j] = adj[j][i] = r
    bin_of = [-1] * len(loads)
    placed = np.full(len(loads), -1, dtype=np.int64)  # bin_of as an array, for the scan
    add, near, near_all, tables = neighbour_tables(adj, len(bins.count_cap))
    scan = None if tables is None else StayScan(flows, load_of, bins, placed, tables, keep_order)
    why = [""] * len(loads)

    def put(x: int, b: int, sign: int = 1) -> None:
        bins.put(b, loads[x], sign)
        bin_of[x] = placed[x] = b if sign > 0 else -1
        add(x, b, sign)

    def single(x: int) -> int:
        b = bins.least_loaded(1, loads[x])
        if b is None:
            raise Infeasible(f"no {kind} can take {item(x)}")
        put(x, b)
        return b

    def hot(other: int, rate: float) -> str:
        return f"{rate:.4g} tuples/s with {item(other)}"

    k, size, quiet = 0, SCAN_FIRST, 0  # quiet: pairs in a row that changed nothing
    while k < len(pairs):
        x, y, rate = pairs[k]
        if scan is not None and quiet >= SCAN_AFTER and bin_of[x] >= 0 and bin_of[y] >= 0:
            end = min(k + size, len(pairs))  # skip in one array step the pairs that stay
            stop = scan.first_change(k, end)
            if stop == end:
                k, size = end, min(2 * size, scan.max_rows)
                continue
            k, size, quiet = stop, SCAN_FIRST, 0
            x, y, rate = pairs[k]
        k += 1
        wx, wy = bin_of[x], bin_of[y]
        if wx < 0 and wy < 0:
            quiet = 0
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
            why[x], why[y] = f"{hot(y, rate)}: {why[x]}", f"{hot(x, rate)}: {why[y]}"
            continue
        if wx < 0 or wy < 0 or wx == wy:
            cands = [wx if wx > wy else wy]
        else:
            cands = [wy, wx] if keep_order and wy < wx else [wx, wy]
        lx, ly = loads[x], loads[y]
        extra = bins.least_loaded(1, ly if ly > lx else lx)
        if extra is not None and extra not in cands:
            cands.append(extra)
        best = best_combination(x, y, rate, (wx, wy), cands, loads, bins, near, near_all)
        if best is None:
            raise Infeasible(f"no combination of {kind}s takes {item(x)} and {item(y)}")
        cost, bx, by = best
        if bx == wx and by == wy:
            quiet += 1
            continue  # both stay: most pairs once the hottest are placed
        quiet = 0
        moves = [(z, b, w) for z, b, w in ((x, bx, wx), (y, by, wy)) if b != w]
        for z, _, w in moves:
            if w >= 0:
                put(z, w, -1)
        for z, b, _ in moves:  # an item that stays keeps the reason it got there
            put(z, b)
            tried = ", ".join(where(c) for c in cands)
            why[z] = (
                f"{hot(y if z == x else x, rate)}: {where(b)} is the best of {tried} "
                f"({cost:.4g} tuples/s cross)"
            )
    for x in range(len(loads)):
        if bin_of[x] < 0 and (active is None or active[x]):
            b = single(x)
            why[x] = f"no traffic with the others: {where(b)} is the least loaded {kind} with room"
    return np.array(bin_of, dtype=np.int64), why, adj


def neighbour_traffic(
    adj: Sequence[Mapping[int, float]], n_bins: int
) -> tuple[Callable[[int, int, int], None], Callable[[int, int], float], Callable[[int], float]]:
    """:func:`neighbour_tables` without the arrays."""
    return neighbour_tables(adj, n_bins)[:3]


def neighbour_tables(
    adj: Sequence[Mapping[int, float]], n_bins: int
) -> tuple[
    Callable[[int, int, int], None],
    Callable[[int, int], float],
    Callable[[int], float],
    tuple[np.ndarray, np.ndarray] | None,
]:
    """Each item's traffic to its placed neighbours: per bin, and in all.

    Returns ``add(x, b, sign)``, called when item x enters (sign 1) or leaves (-1)
    bin b; ``near(b, x)``, x's traffic to neighbours in b; ``near_all(x)``, to all
    placed neighbours. Each sum is a running sum in the order of the calls, so
    both layouts give the same floats: one array of bins x items (a placement
    touches a neighbour row at once) when it holds at most ``DENSE_CELLS``,
    else a dict of bins per item. The fourth value is the dense layout's
    (bins x items, items) arrays, updated in place; None for the dict layout.
    """
    n = len(adj)
    if n * n_bins <= DENSE_CELLS:
        table, total = np.zeros((n_bins, n)), np.zeros(n)
        others = [np.fromiter(a, dtype=np.int64, count=len(a)) for a in adj]
        rates = [np.fromiter(a.values(), dtype=float, count=len(a)) for a in adj]

        def add_dense(x: int, b: int, sign: int) -> None:
            o, r, row = others[x], rates[x], table[b]
            if sign > 0:
                row[o] += r
                total[o] += r
            else:
                row[o] -= r
                total[o] -= r

        return add_dense, table.item, total.item, (table, total)
    near = [defaultdict(float) for _ in adj]
    near_all = [0.0] * n

    def add_sparse(x: int, b: int, sign: int) -> None:
        if sign > 0:
            for o, r in adj[x].items():
                near[o][b] += r
                near_all[o] += r
        else:
            for o, r in adj[x].items():
                near[o][b] -= r
                near_all[o] -= r

    return add_sparse, lambda b, x: near[x].get(b, 0.0), near_all.__getitem__, None


class StayScan:
    """Finds, in one array step over a run of pairs, the first that changes anything.

    Once the hottest pairs are placed, most pairs find both items best where
    they are: :func:`pack` would try their combinations and move nothing. This
    computes, for pairs ``start .. end - 1`` under the current placement, what
    :func:`pack` and :func:`best_combination` compute for each (the same
    candidates in the same order, the same floating-point operations in the
    same order, the same ties), and returns the first pair that has an item
    not yet placed or would move one (or fits nowhere); :func:`pack` skips the
    pairs before it, which leave every bin, load and reason as they were, and
    handles that one itself. Only for the dense layout of
    :func:`neighbour_tables`.
    """

    def __init__(
        self,
        flows: Flows,
        loads: np.ndarray,
        bins: Bins,
        placed: np.ndarray,
        tables: tuple[np.ndarray, np.ndarray],
        keep_order: bool,
    ):
        self.x, self.y, self.rate = flows
        self.loads, self.bins, self.placed, self.keep_order = loads, bins, placed, keep_order
        self.table, self.total = tables
        self.count_cap = np.array(bins.count_cap, dtype=np.int64)
        self.load_cap = np.array(bins.load_cap, dtype=float)
        self.max_rows = max(SCAN_FIRST, SCAN_CELLS // max(1, len(bins.count_cap)))

    def least_loaded(self, load: np.ndarray, count: np.ndarray, held: np.ndarray) -> np.ndarray:
        """:meth:`Bins.least_loaded` for one item of each ``load`` (-1: none fits): the
        lowest load, then the lowest index, among bins with room that fit it."""
        room = np.flatnonzero(count < self.count_cap)
        if room.size == 0:
            return np.full(len(load), -1, dtype=np.int64)
        order = room[np.lexsort((room, held[room]))]
        if self.bins.uniform:  # one load cap: the least loaded bin fits, or none does
            fits = held[order[0]] + load <= self.load_cap[order[0]]
            return np.where(fits, order[0], -1)
        fit = held[order][None, :] + load[:, None] <= self.load_cap[order][None, :]
        return np.where(fit.any(axis=1), order[fit.argmax(axis=1)], -1)

    def first_change(self, start: int, end: int) -> int:
        """The first pair of ``start .. end - 1`` that :func:`pack` must handle (``end``:
        none; every pair before it has both items placed, where they stay)."""
        x, y, rate = self.x[start:end], self.y[start:end], self.rate[start:end]
        wx, wy = self.placed[x], self.placed[y]
        both_placed = (wx >= 0) & (wy >= 0)
        if not both_placed[0]:
            return start
        count = np.array(self.bins.count, dtype=np.int64)
        held = np.array(self.bins.load, dtype=float)
        lx, ly = self.loads[x], self.loads[y]
        extra = self.least_loaded(np.where(ly > lx, ly, lx), count, held)
        same = wx == wy
        swap = (wy < wx) if self.keep_order else np.zeros(len(x), dtype=bool)
        first = np.where(same | ~swap, wx, wy)
        second = np.where(same, -1, np.where(swap, wx, wy))
        extra = np.where((extra == first) | (extra == second), -1, extra)
        cands = np.stack([first, np.where(same, extra, second), np.where(same, -1, extra)])
        out_x = self.total[x] - rate  # x's other links, all crossing
        out_y = self.total[y] - rate
        x_cost, y_cost, x_fits, y_fits, both_fit = [], [], [], [], []
        for b in cands:
            valid = b >= 0
            b = np.where(valid, b, 0)
            on_x, on_y = wx == b, wy == b
            n = count[b] - on_x - on_y
            room = held[b]
            room = np.where(on_x, room - lx, room)
            room = np.where(on_y, room - ly, room)
            cap, limit = self.count_cap[b], self.load_cap[b]
            cost = out_x - self.table[b, x]
            x_cost.append(np.where(on_y, cost + rate, cost))
            cost = out_y - self.table[b, y]
            y_cost.append(np.where(on_x, cost + rate, cost))
            x_fits.append(valid & (n + 1 <= cap) & (room + lx <= limit))
            y_fits.append(valid & (n + 1 <= cap) & (room + ly <= limit))
            both_fit.append(valid & (n + 2 <= cap) & (room + lx + ly <= limit))
        found = np.zeros(len(x), dtype=bool)
        bar = np.zeros(len(x))
        best_x = np.full(len(x), -1, dtype=np.int64)
        best_y = best_x.copy()
        for i in range(3):  # x's bins outer, y's inner, as best_combination
            for j in range(3):
                if i == j:
                    ok = x_fits[i] & both_fit[i]
                    cost = x_cost[i] + y_cost[i] + 0.0
                else:
                    ok = x_fits[i] & y_fits[j]
                    cost = x_cost[i] + y_cost[j] + rate
                take = ok & (~found | (cost < bar))
                found |= take
                bar = np.where(take, cost - _TIE, bar)
                best_x = np.where(take, cands[i], best_x)
                best_y = np.where(take, cands[j], best_y)
        stays = both_placed & found & (best_x == wx) & (best_y == wy)
        changes = np.flatnonzero(~stays)
        return start + int(changes[0]) if changes.size else end


def best_combination(
    x: int,
    y: int,
    rate: float,
    was: tuple[int, int],
    cands: Sequence[int],
    loads: Sequence[float],
    bins: Bins,
    near: Callable[[int, int], float],
    near_all: Callable[[int], float],
) -> tuple[float, int, int] | None:
    """(crossing traffic, bin for x, bin for y), judged with x and y taken out.

    The first combination tried wins ties (x's bins outer, y's inner, as the
    authors' loops); ``None`` when no combination fits.
    """
    wx, wy = was
    out_x = near_all(x) - (rate if wy >= 0 else 0.0)  # x's other links, all crossing
    out_y = near_all(y) - (rate if wx >= 0 else 0.0)
    lx, ly = loads[x], loads[y]
    count, load, count_cap, load_cap = bins.count, bins.load, bins.count_cap, bins.load_cap
    per_bin = []  # bin, x fits, y fits, both fit, x's links crossing, y's links crossing
    for b in cands:
        on_x, on_y = wx == b, wy == b
        n, held = count[b] - on_x - on_y, load[b]
        if on_x:
            held -= lx
        if on_y:
            held -= ly
        cap, room = count_cap[b], load_cap[b]
        x_cost = out_x - near(b, x)
        if on_y:
            x_cost += rate
        y_cost = out_y - near(b, y)
        if on_x:
            y_cost += rate
        per_bin.append(
            (
                b,
                n + 1 <= cap and held + lx <= room,
                n + 1 <= cap and held + ly <= room,
                n + 2 <= cap and held + lx + ly <= room,
                x_cost,
                y_cost,
            )
        )
    best, bar = None, 0.0  # bar: what a later combination must beat
    for bx, x_fits, _, both_fit, x_cost, _ in per_bin:
        if not x_fits:
            continue
        for by, _, y_fits, _, _, y_cost in per_bin:
            if by == bx:
                if both_fit:
                    cost = x_cost + y_cost + 0.0
                    if best is None or cost < bar:
                        best, bar = (cost, bx, by), cost - _TIE
            elif y_fits:
                cost = x_cost + y_cost + rate
                if best is None or cost < bar:
                    best, bar = (cost, bx, by), cost - _TIE
    return best


def fill_empty(
    slot_of: np.ndarray, adj: Sequence[dict[int, float]], loads: np.ndarray, bins: Bins, why: list
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


def hottest(i: np.ndarray, j: np.ndarray, r: np.ndarray) -> Flows:
    """Undirected pairs with summed traffic, hottest first (ties: lower indices first)."""
    keep = i != j
    lo, hi, r = np.minimum(i, j)[keep], np.maximum(i, j)[keep], r[keep]
    base = int(hi.max()) + 1 if hi.size else 1
    keys, where = np.unique(lo * base + hi, return_inverse=True)
    total = np.bincount(where, weights=r, minlength=len(keys))
    lo, hi = keys // base, keys % base
    order = np.lexsort((hi, lo, -total))
    return lo[order], hi[order], total[order]


def inter_traffic(flows: Flows, group: Sequence[int]) -> float:
    """Traffic between items in different groups (nodes)."""
    lo, hi, r = flows
    group = np.asarray(group)
    return float(r[group[lo] != group[hi]].sum())


def as_pairs(flows: Flows) -> list[Pair]:
    return list(zip(*(a.tolist() for a in flows), strict=True))

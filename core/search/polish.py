"""Local search on the analytic model: move single executors while the loads improve.

CP-SAT's placement is exact only for the groupings its model holds; with
local-or-shuffle it optimises a relaxation, and on the largest presets it
stops at a time limit. This search takes any placement and moves one
executor at a time to another worker slot (a slot in use, or a fresh slot
while fewer than W are used), re-scoring every move with the
:class:`~core.simulator.capacity.Evaluator`, so it sees local-or-shuffle
exactly (e.g. a spout moved into a worker of its own stops keeping its whole
output on an overloaded node).

A move is kept when it makes the loads, sorted from the largest down
(every node's CPU per core, every NIC, every thread, per unit R), smaller
in lexicographic order: R* (one over the largest) never falls, and a tie
at the top is broken by the next load, so a bottleneck shared by several
nodes can be relieved one node at a time. Loads are compared on a grid of
1e-9 of the start's largest load, so every kept move is a strict step in a
finite order and the search ends; it also ends at ``budget_s`` seconds
(checked before every move scored: one executor's targets alone are
thousands of slots on the largest clusters).
Candidates: the busiest thread and the executors on the busiest node
first, then every other executor (a thread may be relieved by moving its
receivers), each to every other slot; the first move that improves is kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from core.simulator.capacity import Evaluator

GRID = 1e-9  # load comparison grid, relative to the start's largest load


def load_profile(ev: Evaluator, slots: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Every load per unit R (largest first), the busiest node, the busiest thread."""
    loads = ev.loads(slots)
    headroom = np.maximum(ev.coef.capacity_cores - loads.fixed, 1e-300)  # the node bound's
    node = loads.node_cpu / headroom
    everything = np.concatenate([node, loads.nic, loads.cpu])
    return np.sort(everything)[::-1], int(np.argmax(node)), int(np.argmax(loads.cpu))


# Where each executor may move, given the placement at the start of a pass:
# ``targets(best)(e)`` is the list of global slots executor ``e`` is tried in.
MoveTargets = Callable[[np.ndarray], Callable[[int], list[int]]]


def load_key(profile: np.ndarray, grid: float) -> tuple[int, ...]:
    """A load profile on the comparison grid: what a kept move must make smaller."""
    return tuple(np.round(profile / grid).astype(np.int64).tolist())


def slot_targets(ev: Evaluator, workers: int) -> MoveTargets:
    """Every executor to any slot in use, or to the first free slot of every node while
    fewer than ``workers`` slots are in use."""
    start = ev.nodes.slot_start

    def of(best: np.ndarray) -> Callable[[int], list[int]]:
        used = np.unique(best)
        targets = used.tolist()
        if len(used) < workers:  # the first free slot of every node
            taken = set(targets)
            for n in range(len(start) - 1):
                free = [g for g in range(start[n], start[n + 1]) if g not in taken]
                targets += free[:1]
        return lambda _e: targets

    return of


def improve(
    ev: Evaluator,
    slots: np.ndarray,
    workers: int,
    budget_s: float,
    targets: MoveTargets | None = None,
) -> tuple[np.ndarray, int]:
    """A placement at least as good as ``slots`` (global slot per executor) and the moves.

    Parameters
    ----------
    ev : Evaluator
    slots : ndarray of int
        The start placement.
    workers : int
        W, the most worker slots the placement may use (read by the default targets).
    budget_s : float
        Wall-clock budget, seconds.
    targets : MoveTargets, optional
        Where each executor may move; :func:`slot_targets` by default (a topology set
        restricts it: core/topology_set.py).
    """
    deadline = time.perf_counter() + budget_s
    targets = targets or slot_targets(ev, workers)
    best = np.asarray(slots, dtype=np.int64).copy()
    profile, node, thread = load_profile(ev, best)
    if not profile.size or profile[0] <= 0:
        return best, 0
    grid = GRID * float(profile[0])
    key = load_key(profile, grid)
    node_of = ev.nodes.slot_node
    moves = 0
    while time.perf_counter() < deadline:
        targets_of = targets(best)
        on_node = np.flatnonzero(node_of[best] == node).tolist()
        focus = [thread] + [e for e in on_node if e != thread]
        movers = focus + sorted(set(range(len(best))) - set(focus))
        found = None
        for e in movers:
            home = int(best[e])
            for g in targets_of(e):
                if g == home:
                    continue
                if time.perf_counter() >= deadline:  # one mover's targets may take minutes
                    break
                best[e] = g
                cand, c_node, c_thread = load_profile(ev, best)
                c_key = load_key(cand, grid)
                best[e] = home
                if c_key < key:
                    found = (e, g, c_key, c_node, c_thread)
                    break
            if found is not None or time.perf_counter() >= deadline:
                break
        if found is None:
            break
        e, g, key, node, thread = found
        best[e] = g
        moves += 1
    return best, moves

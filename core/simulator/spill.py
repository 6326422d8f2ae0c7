"""Storm 2.0.0's shuffle: how much each sender worker keeps local, and R* with it.

Storm 2.0.0 routes a shuffle stream through ``LoadAwareShuffleGrouping``
(``storm-client/.../grouping/LoadAwareShuffleGrouping.java``): a sender
keeps to the closest scope (its worker, its host, its rack, everything) that
holds targets, evenly within it while their loads are alike, and widens the
scope when the mean load of its targets passes
``topology.localityaware.higher.bound`` (0.8), narrowing again below
``topology.localityaware.lower.bound`` (0.2) (``conf/defaults.yaml``;
STORM-2686). A target's load is the fill of its receive queue
(``WorkerState.getQueueLoad``: population / capacity): near 0 for a target
that keeps up, towards 1 for one that does not. So in the steady state:

- while the sender worker's own targets keep up (utilisation below 1), it
  keeps all its tuples there (``core.simulator.rates``: the stream is
  worker-first, like local-or-shuffle);
- when they cannot, their queues fill, the scope widens, they drain, it
  narrows: over time the local targets take what they can process and the
  rest goes wider. The model: worker w keeps a share ``keep[k, w]`` of
  stream k and spreads the rest evenly over all the stream's targets, with
  ``keep`` the fixed point of ``keep <- min(1, keep / rho)``, ``rho`` the
  utilisation at rate R of the busiest of w's targets (its thread, or its
  node's CPU, whichever is fuller). At the fixed point a worker either keeps
  everything (rho <= 1) or keeps just what its targets can take (rho = 1).

Every load is affine in the kept shares when no spilling stream feeds
another (the rates of a stream are linear in its sender's arrivals), so the
loads are taken once with every share at 1 and once with each (stream,
worker) share moved (:class:`Linear`: the placement passes in one batch,
:func:`resources_many`), and the fixed point is solved on that affine model by
Newton steps on the shares whose targets are full. When spilling streams feed
each other the loads are polynomial in the shares: the model is taken again at
the solution (at most 3 models). The solver's small steps run on Python floats
(a few shares and loads: numpy's per-call cost dominated), every product of
matrices and solve on numpy, so its answers are bit-for-bit the plain numpy
form's; :func:`spill_max_rate` remembers answers across problems that differ
only in what R* does not read (:func:`content_key`: the offered rate).

R* is then the largest R at which that steady state fits every thread, node
CPU and NIC (:func:`spill_max_rate`: the steady state followed as R rises,
piece by piece in closed form, checked by settling just below and above;
bisection from the all-local R* where that path is degenerate). Left out:
the host and rack scopes (a worker without targets spreads over all of them
at once: exact with one worker of the topology per node on one rack), the
weights that steer the widened scope away from its loaded targets (the spill
here is even), and the scope's oscillation (STORM-3602, fixed after 2.0.0):
docs/model.md, "Storm 2.0.0's shuffle".
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock
from weakref import WeakKeyDictionary

import numpy as np

try:  # numpy's LAPACK gufuncs: np.linalg.solve without its per-call checks (same dgesv)
    from numpy.linalg import _umath_linalg as _lapack

    _lapack.solve(np.eye(1), np.ones((1, 1)), signature="dd->d")  # the calls _gesv makes
    _lapack.solve1(np.eye(1), np.ones(1), signature="dd->d")
except Exception:  # pragma: no cover - a numpy without them (private API): np.linalg.solve
    _lapack = None

from core.simulator.coefficients import (
    THREAD_CORES,
    Coefficients,
    UnitLoads,
    max_rate,
    node_cpu_load,
    unit_loads,
)
from core.simulator.placed_rates import placed_unit_rates, row_bincount, row_take
from core.simulator.rates import UnitRates

NEWTON_STEPS = 50  # steps towards the kept shares at one rate
FIT_STEPS = 20  # ... when asking whether a rate fits (not settled by then: it does not)
SPILL_TOL = 1e-9  # ... until every full target is this close to utilisation 1
FIT_TOL = 1e-9  # a steady state fits when every load x R is at most 1 + this
BISECT_STEPS = 30  # R* to 2^-30 of the bracket when the path is not followed exactly
MAX_DOUBLINGS = 8  # R* at most 2^8 x the all-local R*
AFFINE_TOL = 1e-9  # the affine model is exact when it predicts the loads this closely
MODEL_PASSES = 3  # affine models taken (at the shares found) until one is exact
PATH_STEPS = 64  # pieces of the path in s = 1/R before giving up on following it
TIE = 1e-9  # loads this close (relative) to s are at their bound
EDGE = 1e-7  # the path's R* is checked by settling this close below and above it
EDGE_STEPS = 6  # ... above it from the shares just below: not settled by then, it does not fit
MEMO_BYTES = 32 << 20  # kept shares and placements the memo of R* holds at most, bytes
MEMO_ENTRIES = 8192  # ... and answers
MODEL_CELLS = 1 << 21  # kept shares (streams x workers each) one pass of linear_many holds


def placed(coef: Coefficients, slot_of: np.ndarray, keep: np.ndarray | None):
    """The unit rates and loads of one placement with the kept shares ``keep``."""
    r = placed_unit_rates(coef.plan, slot_of, coef.dims[1], keep)
    o_tot = r.out_total[coef.table.tgt_sid]
    return r, unit_loads(coef, slot_of, r.arrival, r.src_out, r.local_total, o_tot)


def resources(coef: Coefficients, u: UnitLoads) -> np.ndarray:
    """Every bound's load per unit R as one vector: threads (E, in cores over
    ``THREAD_CORES``), node CPU shares (N), NICs (N)."""
    node = node_cpu_load(coef, u.node_cpu, u.fixed)
    return np.concatenate([u.cpu / THREAD_CORES, node, u.nic], axis=-1)


def all_kept(coef: Coefficients) -> np.ndarray:
    """Kept shares of 1 for every stream and worker (the routing below saturation)."""
    return np.ones((len(coef.table.streams), coef.dims[1]))


def resources_many(coef: Coefficients, slot_of: np.ndarray, keeps: np.ndarray) -> np.ndarray:
    """:func:`resources` of one placement under each kept-share matrix of ``keeps``
    (B, streams, workers), one row each, in one pass; ``slot_of`` is that placement (E,)
    or one placement a row (B, E).

    The arithmetic of :func:`core.simulator.placed_rates.placed_unit_rates` and
    :func:`core.simulator.coefficients.unit_loads` row by row, in the same order (every
    bin sums its entries in the order one placement's does, every row sum is that row's
    pairwise sum), so each row is bit-for-bit ``resources(coef, placed(coef, slot_of,
    keeps[b])[1])`` (``tests/simulator/test_spill.py``).
    """
    plan, workers = coef.plan, coef.dims[1]
    n_rows = len(keeps)
    per_row = slot_of.ndim == 2
    lam = np.tile(plan.spout_share, (n_rows, 1))
    src_out = np.zeros((n_rows, plan.n_entries))
    out_total = np.zeros((n_rows, plan.n_streams))
    local_total = np.zeros((n_rows, plan.n_streams))
    for d_lo, d_hi, ins in plan.steps:
        lam_d = lam[:, d_lo:d_hi]
        wd = None
        for k, u_lo, u_hi, mult, local, weights, s_lo, s_hi in ins:
            out = lam[:, u_lo:u_hi] * mult
            if local:
                if wd is None:
                    wd = slot_of[..., d_lo:d_hi]
                    if per_row:
                        count = row_bincount(wd, None, workers)
                        count_d = row_take(count, wd)
                    else:
                        count = np.bincount(wd, minlength=workers)
                        count_d = count[wd]
                wu = slot_of[..., u_lo:u_hi]
                if per_row:
                    share = out * row_take(keeps[:, k], wu) if plan.spill[k] else out
                    kept = np.where(row_take(count, wu) > 0, share, 0.0)
                else:
                    share = out * keeps[:, k][:, wu] if plan.spill[k] else out
                    kept = np.where(count[wu] > 0, share, 0.0)
                keys = wu + (np.arange(n_rows) * workers)[:, None]
                mass = np.bincount(keys.ravel(), kept.ravel(), n_rows * workers)
                mass = mass.reshape(n_rows, workers)
                local_total[:, k] = np.add.reduce(kept, axis=1)
                out = out - kept
                lam_d += (row_take(mass, wd) if per_row else mass[:, wd]) / count_d
            total = np.add.reduce(out, axis=1)
            lam_d += total[:, None] * weights
            src_out[:, s_lo:s_hi] = out
            out_total[:, k] = total
    rows = slot_of if per_row else np.broadcast_to(slot_of, (n_rows, len(slot_of)))
    o_tot = out_total[:, coef.table.tgt_sid]
    return resources(coef, unit_loads(coef, rows, lam, src_out, local_total, o_tot))


@dataclass(frozen=True, eq=False)
class Linear:
    """The loads of one placement as an affine function of its kept shares.

    ``pairs`` are the (stream, worker) shares that matter: a spilling stream's
    worker holding both senders and targets of it. ``res(x) = base + grad @ (x
    - at)`` for the shares ``x`` of the pairs; ``watch[p]`` lists the loads
    whose largest is pair p's rho (its targets' threads and their nodes' CPU).

    Built once per model for the solvers' small steps, which run on Python floats
    (a few pairs and loads: numpy's per-call cost would dominate): ``rows`` (the
    gradient's rows as lists), ``watching`` (each pair's loads, unpadded),
    ``watchers[m]`` (the pairs watching load m) and ``holders[m]`` (those of them
    whose share, kept less, unloads it: ``grad[m, p] > 0``).
    """

    stream: np.ndarray  # (P,)
    worker: np.ndarray  # (P,)
    keep: np.ndarray  # (S, workers) the shares it was taken at
    at: np.ndarray  # (P,) the pairs' shares there
    base: np.ndarray  # (M,) loads per unit R there
    grad: np.ndarray  # (M, P)
    watch: np.ndarray  # (P, m) load indices, padded by repeating the first
    rows: tuple[list[float], ...] = ()  # (M,) grad's rows
    watching: tuple[tuple[int, ...], ...] = ()  # (P,) watch's rows, unpadded
    watchers: tuple[tuple[int, ...], ...] = ()  # (M,) pairs watching each load
    holders: tuple[tuple[int, ...], ...] = ()  # (M,) ... whose share holds it

    def loads(self, x: np.ndarray) -> np.ndarray:
        return self.base + self.grad @ (x - self.at)

    def shares(self, x: np.ndarray) -> np.ndarray:
        keep = self.keep.copy()
        keep[self.stream, self.worker] = x
        return keep


def spill_pairs(coef: Coefficients, slot_of: np.ndarray) -> tuple[list, list, list]:
    """The (stream, worker) pairs whose kept share matters, and the loads each watches:
    per spilling stream, each worker holding both senders and targets of it; its
    targets' threads and their nodes' CPU (in that order)."""
    t = coef.table
    n_e = len(t.executors)
    node_of = coef.nodes.slot_node[slot_of].tolist()
    slots = slot_of.tolist()
    start = t.comp_start.tolist()
    stream, worker, watch = [], [], []
    for k in np.flatnonzero(t.spill).tolist():
        u, d = int(t.src_comp[k]), int(t.dst_comp[k])
        senders = set(slots[start[u] : start[u + 1]])
        tgt = range(start[d], start[d + 1])
        for w in sorted(senders & {slots[i] for i in tgt}):
            here = [i for i in tgt if slots[i] == w]
            stream.append(k)
            worker.append(w)
            watch.append(here + [n_e + node_of[i] for i in here])
    return stream, worker, watch


def linear(coef: Coefficients, slot_of: np.ndarray, keep: np.ndarray) -> Linear:
    """The :class:`Linear` model of a placement's loads around the shares ``keep``.

    Its slopes are differences: each pair's share moved by a half (down from 1/2 or
    more, else up), every such placement pass taken in one batch
    (:func:`resources_many`). A difference, not a derivative: where the loads bend
    (a NIC's larger direction changes, spilling streams feed each other) it is the
    secant the model is checked against (:func:`_exact`).
    """
    slot_of = np.asarray(slot_of, dtype=np.int64)
    probe = _probe(coef, slot_of, keep)
    return _linear(keep, probe, resources_many(coef, slot_of, probe[-1]))


def linear_many(coef: Coefficients, placements: np.ndarray, keep: np.ndarray) -> list[Linear]:
    """:func:`linear` of every row of ``placements`` (B, E) around the same shares
    ``keep``, their placement passes taken together (:func:`resources_many` a row its
    own placement, at most ``MODEL_CELLS`` kept shares a pass), bit-for-bit each."""
    placements = np.asarray(placements, dtype=np.int64)
    probes = [_probe(coef, row, keep) for row in placements]
    per_pass = max(1, MODEL_CELLS // max(keep.size, 1))
    models: list[Linear] = []
    start = 0
    while start < len(probes):
        end, rows = start, 0
        while end < len(probes) and (end == start or rows + len(probes[end][-1]) <= per_pass):
            rows += len(probes[end][-1])
            end += 1
        chunk = probes[start:end]
        counts = [len(p[-1]) for p in chunk]
        slots = np.repeat(placements[start:end], counts, axis=0)
        res = resources_many(coef, slots, np.concatenate([p[-1] for p in chunk]))
        cuts = np.cumsum(counts)[:-1]
        models += [_linear(keep, p, r) for p, r in zip(chunk, np.split(res, cuts), strict=True)]
        start = end
    return models


def _probe(coef: Coefficients, slot_of: np.ndarray, keep: np.ndarray):
    """What :func:`linear` moves: the pairs (:func:`spill_pairs`), their watched loads
    (padded), their shares in ``keep``, the steps and the kept-share matrices (``keep``,
    then ``keep`` with each pair's share moved by its step)."""
    stream, worker, watch = spill_pairs(coef, slot_of)
    width = max((len(w) for w in watch), default=1)
    padded = np.array([(w * (width // len(w) + 1))[:width] for w in watch], dtype=np.int64).reshape(
        -1, width
    )
    stream_a, worker_a = np.array(stream, np.int64), np.array(worker, np.int64)
    n_pairs = len(stream)
    at = keep[stream_a, worker_a]
    step = np.where(at >= 0.5, -0.5, 0.5)
    keeps = np.repeat(keep[None], n_pairs + 1, axis=0)
    keeps[np.arange(1, n_pairs + 1), stream_a, worker_a] += step
    return stream_a, worker_a, watch, padded, at, step, keeps


def _linear(keep: np.ndarray, probe, res: np.ndarray) -> Linear:
    """The :class:`Linear` model from :func:`_probe`'s moves and their loads ``res``."""
    stream_a, worker_a, watch, padded, at, step, _ = probe
    base = res[0]
    grad = np.ascontiguousarray(((res[1:] - base) / step[:, None]).T)
    rows = grad.tolist()
    watchers: list[list[int]] = [[] for _ in range(len(base))]
    for p, loads in enumerate(watch):
        for m in sorted(set(loads)):
            watchers[m].append(p)
    return Linear(
        stream_a,
        worker_a,
        keep,
        at,
        base,
        grad,
        padded,
        tuple(rows),
        tuple(tuple(w) for w in watch),
        tuple(tuple(ps) for ps in watchers),
        tuple(tuple(p for p in ps if rows[m][p] > 0) for m, ps in enumerate(watchers)),
    )


def _groups(top: list[int], cols: list[int]) -> tuple[list[int], list[int], list[int]]:
    """Active pairs ``cols`` grouped by busiest target (``top[p]``): the targets in
    increasing order (G), each pair's group, and each group's first pair (a group moves
    at the ratio of its shares: Storm's update ``keep <- keep / rho`` scales them alike)."""
    tops = sorted({top[p] for p in cols})
    index = {m: g for g, m in enumerate(tops)}
    group = [index[top[p]] for p in cols]
    first = [-1] * len(tops)
    for p, g in zip(cols, group, strict=True):
        if first[g] < 0:
            first[g] = p
    return tops, group, first


def _scale(cols: list[int], group: list[int], x: list[float]) -> np.ndarray:
    """The (P, G) matrix of the active pairs' shares per group (floored at 1e-300)."""
    width = max(group, default=-1) + 1
    scale = [[0.0] * width for _ in x]
    for p, g in zip(cols, group, strict=True):
        scale[p][g] = max(x[p], 1e-300)
    return np.array(scale).reshape(len(x), width)


def _gesv(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``np.linalg.solve(a, b)`` for one small square ``a`` (bit-for-bit: the same LAPACK
    ``dgesv``, without the wrapper's checks, a third of the solver's time), or None where
    it raises LinAlgError (singular: LAPACK flags it as an invalid operation)."""
    if _lapack is None:  # pragma: no cover
        try:
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            return None
    solve = _lapack.solve1 if b.ndim == 1 else _lapack.solve
    try:
        with np.errstate(invalid="raise", over="ignore", divide="ignore", under="ignore"):
            return solve(a, b, signature="dd->d")
    except FloatingPointError:
        return None


def _finite(v: float) -> float:
    """``np.nan_to_num(v, nan=0.0, posinf=1.0, neginf=-1.0)`` of one value."""
    if v != v:
        return 0.0
    if v in (math.inf, -math.inf):
        return 1.0 if v > 0 else -1.0
    return v


def _busiest(model: Linear, res: list[float]) -> tuple[list[int], list[float]]:
    """Each pair's busiest watched load (the first of equal ones) and that load."""
    top, peak = [], []
    for watched in model.watching:
        where = watched[0]
        best = res[where]
        for m in watched:
            if res[m] > best:
                best, where = res[m], m
        top.append(where)
        peak.append(best)
    return top, peak


def settle(
    model: Linear, rate: float, x: np.ndarray, steps: int = NEWTON_STEPS
) -> tuple[np.ndarray, bool]:
    """The pairs' kept shares at ``rate`` on the affine model, from ``x``.

    A pair whose busiest target is over utilisation 1, or that keeps less
    than everything, is active. Active pairs whose rho grows with their own
    share solve ``rho = 1`` by Newton steps, clipped to [0, 1]; pairs with the
    same busiest target (workers of one node, its CPU full) share one
    equation and move together at the ratio of their shares, as Storm's update
    ``keep <- keep / rho`` moves them. One whose rho does not grow with its
    share (spilling loads its own node with serialisation) spills everything
    while its targets are full and keeps everything otherwise. A pair at 1
    with rho <= 1 keeps everything, one at 0 with rho >= 1 spills everything.
    Returns the shares and whether they settled within ``steps`` (above R*
    they need not: no share makes every target keep up). A state met again ends it
    at once, unsettled, with the state the last step would reach: each step is a
    function of the state, so the steps cycle for ever (above R*, mostly).

    The small steps run on Python floats; every product of matrices is numpy's, so
    the result is bit-for-bit that of the all-numpy form (``tests/simulator/test_spill.py``).
    """
    grad, base, at, rows = model.grad, model.base, model.at, model.rows
    x = np.array(x, dtype=float)
    seen: dict[tuple[float, ...], int] = {}  # each state visited, and at which step
    visited: list[np.ndarray] = []
    for step_no in range(steps):
        state = tuple(x.tolist())
        if state in seen:  # a cycle: the steps are a function of x, so it never settles
            first = seen[state]
            return visited[first + (steps - first) % (step_no - first)], False
        seen[state] = step_no
        visited.append(x)
        top, peak = _busiest(model, (base + grad @ (x - at)).tolist())
        old = x.tolist()
        new = old[:]
        cols: list[int] = []
        active = settled = False
        for p, (xp, m) in enumerate(zip(old, top, strict=True)):
            r = rate * peak[p]
            if (xp < 1.0 or r > 1.0) and not (xp <= 0.0 and r >= 1.0):
                if not active:
                    active = settled = True
                if not abs(r - 1.0) <= SPILL_TOL:
                    settled = False
                if rows[m][p] > 0:
                    cols.append(p)
                else:
                    new[p] = 0.0 if r > 1.0 else 1.0
        if not active or settled:
            return x, True
        if cols:
            tops, group, first = _groups(top, cols)
            jac = rate * (grad[tops] @ _scale(cols, group, old))
            rho = [rate * peak[p] for p in first]
            if len(tops) == 1 and jac[0, 0] != 0.0:  # LAPACK's one division
                step = [(1.0 - rho[0]) / float(jac[0, 0])]
            else:
                solved = _gesv(jac, 1.0 - np.array(rho))
                if solved is not None:
                    step = solved.tolist()
                else:
                    step = [1.0 / r - 1.0 if r != 0.0 else math.inf for r in rho]
            step = [_finite(v) for v in step]
            for p, g in zip(cols, group, strict=True):
                v = old[p] * (1.0 + step[g]) if old[p] > 0.0 else step[g]
                new[p] = min(max(v, 0.0), 1.0)
        moved = max(abs(a - b) for a, b in zip(new, old, strict=True))
        x = np.array(new)
        if moved <= SPILL_TOL:
            return x, True
    return x, False


def _exact(model: Linear, coef: Coefficients, slot_of: np.ndarray, x: np.ndarray):
    """The exact rates and loads at the pairs' shares ``x``, and whether the affine model
    predicted them."""
    r, u = placed(coef, slot_of, model.shares(x))
    res = resources(coef, u)
    scale = np.maximum(np.abs(res).max(initial=0.0), 1e-300)
    return r, u, bool(np.abs(res - model.loads(x)).max(initial=0.0) <= AFFINE_TOL * scale)


def spill_keep(
    coef: Coefficients, slot_of: np.ndarray, rate: float
) -> tuple[np.ndarray, UnitRates, UnitLoads]:
    """The kept shares of Storm 2's shuffle at offered rate ``rate`` (tuples/s), and the
    rates and loads they give (below the all-local R* every share is 1)."""
    keep = all_kept(coef)
    r, u = placed(coef, slot_of, keep)
    if rate * float(resources(coef, u).max(initial=0.0)) <= 1.0:
        return keep, r, u  # no target is full: nothing spills (what settle finds at once)
    model = linear(coef, slot_of, keep)
    for rounds in range(1, MODEL_PASSES + 1):
        found = _path(model, 1.0 / rate)  # the state reached as R rises, polished by settle
        x = settle(model, rate, found[1] if found is not None and not found[2] else model.at)[0]
        r, u, exact = _exact(model, coef, slot_of, x)
        if exact or rounds == MODEL_PASSES:  # else spilling streams feed each other: again
            break
        model = linear(coef, slot_of, model.shares(x))
    return model.shares(x), r, u


def _fits(
    model: Linear, rate: float, start: np.ndarray, steps: int = FIT_STEPS
) -> tuple[bool, np.ndarray]:
    """Whether the steady state at ``rate`` (settled from ``start`` within ``steps``)
    fits every bound, and its shares."""
    shares, settled = settle(model, rate, start, steps)
    return settled and float(model.loads(shares).max()) * rate <= 1.0 + FIT_TOL, shares


def _enter(model: Linear, loads: list[float], s: float, mode: list[bool], top: list[int]) -> bool:
    """At ``s``, the pairs whose targets reach their bound join the active set (or move
    their busiest target to the one that reached it). False when a load reaches its
    bound that no pair's share can hold there: R* = 1 / s."""
    bound = s * (1.0 - TIE)
    for m, v in enumerate(loads):
        if not v >= bound or any(mode[p] and top[p] == m for p in model.watchers[m]):
            continue
        held = model.holders[m]
        if not held:
            return False
        for p in held:
            mode[p], top[p] = True, m
    return True


def _piece(model: Linear, cols: list[int], top: list[int], x: list[float]):
    """The path's piece with the pairs ``cols`` active: the shares and loads as affine
    functions of s, ``(x_zero, x_slope, x0, slope)`` (lists); None when it is degenerate.

    The active pairs, grouped by busiest target (:func:`_groups`), solve
    ``load_top(x) = s``, each group at the ratio of its shares; the others keep theirs.
    """
    grad = model.grad
    tops, group, _ = _groups(top, cols)
    fixed = x[:]
    for p in cols:
        fixed[p] = 0.0
    c = model.base + grad @ (np.array(fixed) - model.at)
    scale = _scale(cols, group, x)
    h = grad @ scale
    if len(tops) == 1:  # LAPACK's solve of one unknown: one reciprocal
        d = float(h[tops[0], 0])
        if d == 0.0:
            return None
        inv = 1.0 / d
        ya, yb = np.array([inv]), np.array([float(c[tops[0]]) * inv])
    else:
        solved = _gesv(h[tops], np.stack([np.ones(len(tops)), c[tops]], 1))
        if solved is None:
            return None
        ya, yb = solved.T
    rise, zero = ya.tolist(), yb.tolist()
    if not all(map(math.isfinite, rise + zero)):
        return None
    # scale has one share a row: scale @ y is that share times its group's y, exactly
    x_zero, x_slope = fixed, [0.0] * len(x)
    for p, g in zip(cols, group, strict=True):
        share = max(x[p], 1e-300)
        x_slope[p] = share * rise[g]
        x_zero[p] = x_zero[p] - share * zero[g]
    return x_zero, x_slope, (c - h @ yb).tolist(), (h @ ya).tolist()


def _path(model: Linear, until: float = 0.0) -> tuple[float, np.ndarray, bool] | None:
    """R* on the affine model by following the steady state as R rises, the shares there
    and True; or, when ``until`` (s = 1/R) comes first, that rate, its shares and False;
    None when the path is degenerate (then :func:`_bisect`).

    In s = 1/R, between two events the active pairs (grouped by busiest target,
    :func:`_groups`) solve ``load_top(x) = s``: the shares and every load are affine in s
    (:func:`_piece`). Events as s falls: a load reaches s (its pairs join,
    :func:`_enter`, or R* = 1/s when none can hold it), an active share reaches 1 (it
    keeps everything again) or 0 (its targets cannot be held any more: R* = 1/s).
    """
    n_pairs = len(model.at)
    x = [1.0] * n_pairs
    loads = model.loads(np.ones(n_pairs)).tolist()
    s = max(loads, default=0.0)
    floor = s * 2.0 ** -(MAX_DOUBLINGS + 1)
    mode = [False] * n_pairs  # active
    top = [-1] * n_pairs
    stuck = 0  # events in a row at the same s
    for _ in range(PATH_STEPS):
        if not _enter(model, loads, s, mode, top):
            return 1.0 / s, np.array(x), True
        cols = [p for p in range(n_pairs) if mode[p]]
        piece = _piece(model, cols, top, x)
        if piece is None:
            return None
        x_zero, x_slope, x0, slope = piece  # shares and loads = ... + ... * s
        # loads moving with an active pair's busiest target are not events
        follow = {top[p] for p in cols}
        tie = TIE * max(map(abs, slope), default=0.0)
        for p in cols:
            bar = slope[top[p]] + tie
            for m in model.watching[p]:
                if abs(loads[m] - s) <= TIE * s and slope[m] <= bar:
                    follow.add(m)
        fall = s - max(floor, until)
        for m, (v, k) in enumerate(zip(loads, slope, strict=True)):
            if 1.0 - k > 0 and m not in follow:  # room s - v closes at 1 - k per unit fall
                fall = min(fall, max(s - v, 0.0) / (1.0 - k))
        for p in cols:
            xs = x_zero[p] + x_slope[p] * s
            if x_slope[p] > 0:
                fall = min(fall, xs / x_slope[p])
            elif x_slope[p] < 0:
                fall = min(fall, (1.0 - xs) / -x_slope[p])
        step = max(fall, 0.0)
        stuck = stuck + 1 if step <= TIE * s else 0
        if stuck > n_pairs + 1:  # pairs join and leave at once: none can hold its targets
            return 1.0 / s, np.array(x), True
        s -= step
        if s <= floor:
            return None
        x = [min(max(a + b * s, 0.0), 1.0) for a, b in zip(x_zero, x_slope, strict=True)]
        loads = [a + b * s for a, b in zip(x0, slope, strict=True)]
        if any(x[p] <= TIE for p in cols):
            return 1.0 / s, np.array(x), True
        if s <= until * (1.0 + 1e-12):
            return 1.0 / s, np.array(x), False
        for p in cols:
            if x[p] >= 1.0 - TIE:
                mode[p] = False
                x[p] = 1.0
    return None


def _bisect(model: Linear, low: float, x: np.ndarray) -> tuple[float, np.ndarray]:
    """R* on the affine model by doublings of ``low`` while they fit, then bisection,
    each rate settled from the shares of the last that fit."""
    high = 2.0 * low
    for _ in range(MAX_DOUBLINGS):
        ok, shares = _fits(model, high, x)
        if not ok:
            break
        low, x, high = high, shares, 2.0 * high
    for _ in range(BISECT_STEPS):
        mid = 0.5 * (low + high)
        ok, shares = _fits(model, mid, x)
        if ok:
            low, x = mid, shares
        else:
            high = mid
    return low, x


def _max_rate(model: Linear) -> tuple[float, np.ndarray]:
    """R* on the affine model and the pairs' shares there: the path (:func:`_path`) when
    settling confirms it just below and above, else :func:`_bisect`."""
    x = model.at
    peak = float(model.base.max(initial=0.0))
    low = max_rate(peak)
    if not 0 < low < np.inf:
        return low, x
    if not (model.grad[model.base >= peak * (1.0 - FIT_TOL)] > 0).any():
        return low, x  # no share, kept less, unloads a busiest bound: spilling cannot help
    found = _path(model)
    if found is not None:
        rate, shares, _ = found
        below, kept = _fits(model, rate * (1.0 - EDGE), shares)
        if below and (rate <= low or not _fits(model, rate * (1.0 + EDGE), kept, EDGE_STEPS)[0]):
            return rate, shares
    return _bisect(model, low, x)


def spill_max_rate(coef: Coefficients, slot_of: np.ndarray) -> tuple[float, np.ndarray]:
    """R* of a placement under Storm 2's shuffle, and the kept shares at R*.

    The largest rate whose steady state (:func:`spill_keep`) fits every
    thread, node CPU and NIC, followed as R rises on the affine model of the
    loads (:func:`_path`; bisection where that path is degenerate), the model
    taken again at the solution until it is exact there (``MODEL_PASSES``).

    Remembered per (:func:`content_key`, placement) for the latest answers, up to
    ``MEMO_BYTES`` of shares and placements and ``MEMO_ENTRIES`` answers: problems
    that differ only in what R* does not read (the offered rate: a rate sweep's
    searches visit the same placements) share them.
    """
    slot_of = np.asarray(slot_of, dtype=np.int64)
    key = (content_key(coef), slot_of.tobytes())
    with _MEMO_LOCK:
        found = _MEMO.get(key)
        if found is not None:
            _MEMO.move_to_end(key)
            return found[0], found[1].copy()
    rate, keep = _solve_max_rate(coef, slot_of)
    size = keep.nbytes + len(key[1])
    if size <= MEMO_BYTES:
        with _MEMO_LOCK:
            if key not in _MEMO:
                _MEMO[key] = (rate, keep.copy())
                _MEMO_USED[0] += size
            while _MEMO_USED[0] > MEMO_BYTES or len(_MEMO) > MEMO_ENTRIES:
                (_, slots), (_, kept) = _MEMO.popitem(last=False)
                _MEMO_USED[0] -= kept.nbytes + len(slots)
    return rate, keep


def spill_below(coef: Coefficients, placements: np.ndarray, rate: float) -> list[bool]:
    """Whether each placement's R* (:func:`spill_max_rate`) is certainly below ``rate``,
    for every row of ``placements`` (B, E): a test for a search that keeps only
    placements reaching ``rate``, at a fraction of R*'s cost (one affine model, their
    placement passes taken together, one settling; no path, no bisection).

    True when the steady state at ``rate``, settled on the affine model of the loads
    around every share kept (:func:`settle`, as :func:`_fits` asks it), does not fit and
    the model is exact at its shares, taken again there while it is not
    (``MODEL_PASSES``); or when it does not settle (:func:`_fits`'s "does not fit")
    while the loads it reads (threads, CPU) are affine in the shares, so every model's
    (no spilling stream feeds another: :func:`_feeds_spill`). False when that
    state fits, or when unsure, so a False only means that R* must be computed. A
    remembered R* answers at once. Checked against R* on random placements of every
    Storm 2 preset (``tests/simulator/test_spill.py``).
    """
    placements = np.atleast_2d(np.asarray(placements, dtype=np.int64))
    digest = content_key(coef)
    with _MEMO_LOCK:
        found = [_MEMO.get((digest, row.tobytes())) for row in placements]
    answers = [None if f is None else bool(f[0] < rate) for f in found]
    todo = [b for b, answer in enumerate(answers) if answer is None]
    models = linear_many(coef, placements[todo], all_kept(coef))
    for b, model in zip(todo, models, strict=True):
        answers[b] = _below(coef, placements[b], rate, model)
    return answers


def _below(coef: Coefficients, slot_of: np.ndarray, rate: float, model: Linear) -> bool:
    """:func:`spill_below` of one placement from its model around every share kept."""
    if rate * float(model.base.max(initial=0.0)) <= 1.0 + FIT_TOL:
        return False  # fits with every share kept: R* >= rate
    shares = model.at
    for rounds in range(1, MODEL_PASSES + 1):
        shares, settled = settle(model, rate, shares)
        if not settled:  # no share lets every target keep up, as _fits answers, where the
            # settling's loads (threads, CPU) are affine: the model's everywhere
            return not _feeds_spill(coef)
        if float(model.loads(shares).max(initial=0.0)) * rate <= 1.0 + FIT_TOL:
            return False
        if _exact(model, coef, slot_of, shares)[2]:
            return True
        if rounds < MODEL_PASSES:  # spilling streams feed each other: the model again there
            model = linear(coef, slot_of, model.shares(shares))
            shares = model.at
    return False


def _feeds_spill(coef: Coefficients) -> bool:
    """Whether a spilling stream's targets feed, at any depth, another spilling stream's
    senders through streams that route by the sender's worker (local ones: a fields or
    all stream's targets get shares of its total, wherever it was sent): then the loads
    are polynomial in the kept shares, not affine."""
    with _MEMO_LOCK:
        found = _FEEDS.get(coef)
    if found is not None:
        return found
    t = coef.table
    src, dst = t.src_comp.tolist(), t.dst_comp.tolist()
    spilling = np.flatnonzero(t.spill).tolist()
    senders = {src[k] for k in spilling}
    routed = [(s, d) for s, d, local in zip(src, dst, t.local.tolist(), strict=True) if local]
    reached, todo = set(), [dst[k] for k in spilling]
    while todo:
        c = todo.pop()
        if c not in reached:
            reached.add(c)
            todo += [d for s, d in routed if s == c]
    found = bool(reached & senders)
    with _MEMO_LOCK:
        _FEEDS[coef] = found
    return found


def _solve_max_rate(coef: Coefficients, slot_of: np.ndarray) -> tuple[float, np.ndarray]:
    """:func:`spill_max_rate` computed."""
    model = linear(coef, slot_of, all_kept(coef))
    rate, x = _max_rate(model)
    for _ in range(MODEL_PASSES - 1):
        if not (len(x) and 0 < rate < np.inf) or _exact(model, coef, slot_of, x)[2]:
            break
        model = linear(coef, slot_of, model.shares(x))
        rate, x = _max_rate(model)
    return rate, model.shares(x)


_MEMO: OrderedDict[tuple[bytes, bytes], tuple[float, np.ndarray]] = OrderedDict()
_MEMO_USED = [0]  # bytes of kept shares and placements in _MEMO
_MEMO_LOCK = Lock()
_KEYS: WeakKeyDictionary[Coefficients, bytes] = WeakKeyDictionary()
_FEEDS: WeakKeyDictionary[Coefficients, bool] = WeakKeyDictionary()


def memo_size() -> tuple[int, int]:
    """Answers :func:`spill_max_rate` remembers, and their bytes of shares and placements."""
    with _MEMO_LOCK:
        return len(_MEMO), _MEMO_USED[0]


def forget() -> None:
    """Empty :func:`spill_max_rate`'s memo (a benchmark timing the solver itself)."""
    with _MEMO_LOCK:
        _MEMO.clear()
        _MEMO_USED[0] = 0


def content_key(coef: Coefficients) -> bytes:
    """A digest of everything :func:`spill_max_rate` reads from ``coef`` (the stream
    table, the service, fixed and serialisation costs, the cluster's capacities and
    slots): two problems with one digest give every placement the same R* and shares.
    Taken once per Coefficients."""
    with _MEMO_LOCK:
        found = _KEYS.get(coef)
    if found is not None:
        return found
    digest = hashlib.blake2b(digest_size=20)
    t, nodes = coef.table, coef.nodes
    parts = (
        coef.service_s,
        coef.fixed_cores,
        coef.worker_cores,
        coef.capacity_cores,
        coef.ser_s,
        coef.deser_s,
        coef.bits,
        coef.nic_bits_per_s,
        coef.dims,
        len(t.executors),
        t.exec_comp,
        t.comp_start,
        t.spout_share,
        t.src_comp,
        t.dst_comp,
        t.multiplier,
        t.tuple_bytes,
        t.local,
        t.spill,
        len(t.weights),
        *t.weights,
        t.in_streams,
        t.src_sid,
        t.src_ex,
        t.src_start,
        t.tgt_sid,
        t.tgt_ex,
        t.tgt_w,
        nodes.slot_start,
        nodes.slot_node,
    )
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(f"{part.dtype}{part.shape}".encode())
            digest.update(np.ascontiguousarray(part).tobytes())
        else:
            digest.update(repr(part).encode())
        digest.update(b"|")
    key = digest.digest()
    with _MEMO_LOCK:
        _KEYS[coef] = key
    return key

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
worker) share moved (:class:`Linear`: one placement pass per share), and the
fixed point is solved on that affine model by Newton steps on the shares
whose targets are full. When spilling streams feed each other the loads are
polynomial in the shares: the model is taken again at the solution (at most 3 models).

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

from dataclasses import dataclass

import numpy as np

from core.simulator.coefficients import (
    THREAD_CORES,
    Coefficients,
    UnitLoads,
    max_rate,
    node_cpu_load,
    unit_loads,
)
from core.simulator.placed_rates import placed_unit_rates
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


def placed(coef: Coefficients, slot_of: np.ndarray, keep: np.ndarray | None):
    """The unit rates and loads of one placement with the kept shares ``keep``."""
    r = placed_unit_rates(coef.plan, slot_of, coef.dims[1], keep)
    o_tot = r.out_total[coef.table.tgt_sid]
    return r, unit_loads(coef, slot_of, r.arrival, r.src_out, r.local_total, o_tot)


def resources(coef: Coefficients, u: UnitLoads) -> np.ndarray:
    """Every bound's load per unit R as one vector: threads (E, in cores over
    ``THREAD_CORES``), node CPU shares (N), NICs (N)."""
    node = node_cpu_load(coef, u.node_cpu, u.fixed)
    return np.concatenate([u.cpu / THREAD_CORES, node, u.nic])


def all_kept(coef: Coefficients) -> np.ndarray:
    """Kept shares of 1 for every stream and worker (the routing below saturation)."""
    return np.ones((len(coef.table.streams), coef.dims[1]))


@dataclass(frozen=True, eq=False)
class Linear:
    """The loads of one placement as an affine function of its kept shares.

    ``pairs`` are the (stream, worker) shares that matter: a spilling stream's
    worker holding both senders and targets of it. ``res(x) = base + grad @ (x
    - at)`` for the shares ``x`` of the pairs; ``watch[p]`` lists the loads
    whose largest is pair p's rho (its targets' threads and their nodes' CPU).
    """

    stream: np.ndarray  # (P,)
    worker: np.ndarray  # (P,)
    keep: np.ndarray  # (S, workers) the shares it was taken at
    at: np.ndarray  # (P,) the pairs' shares there
    base: np.ndarray  # (M,) loads per unit R there
    grad: np.ndarray  # (M, P)
    watch: np.ndarray  # (P, m) load indices, padded by repeating the first

    def loads(self, x: np.ndarray) -> np.ndarray:
        return self.base + self.grad @ (x - self.at)

    def shares(self, x: np.ndarray) -> np.ndarray:
        keep = self.keep.copy()
        keep[self.stream, self.worker] = x
        return keep


def linear(coef: Coefficients, slot_of: np.ndarray, keep: np.ndarray) -> Linear:
    """The :class:`Linear` model of a placement's loads around the shares ``keep``."""
    t = coef.table
    n_e = len(t.executors)
    node_of = coef.nodes.slot_node[slot_of]
    stream, worker, watch = [], [], []
    for k in np.flatnonzero(t.spill).tolist():
        u, d = t.src_comp[k], t.dst_comp[k]
        senders = set(slot_of[t.comp_start[u] : t.comp_start[u + 1]].tolist())
        tgt = np.arange(t.comp_start[d], t.comp_start[d + 1])
        for w in sorted(senders & set(slot_of[tgt].tolist())):
            here = tgt[slot_of[tgt] == w]
            stream.append(k)
            worker.append(w)
            watch.append(np.concatenate([here, n_e + node_of[here]]))
    width = max((len(w) for w in watch), default=1)
    padded = np.array([np.resize(w, width) for w in watch], dtype=np.int64).reshape(-1, width)
    stream_a, worker_a = np.array(stream, np.int64), np.array(worker, np.int64)
    at = keep[stream_a, worker_a]
    base = resources(coef, placed(coef, slot_of, keep)[1])
    grad = np.zeros((len(base), len(stream)))
    for p in range(len(stream)):
        step = -0.5 if at[p] >= 0.5 else 0.5
        moved = keep.copy()
        moved[stream[p], worker[p]] += step
        grad[:, p] = (resources(coef, placed(coef, slot_of, moved)[1]) - base) / step
    return Linear(stream_a, worker_a, keep, at, base, grad, padded)


def _groups(top: np.ndarray, cols: np.ndarray, x: np.ndarray):
    """Active pairs ``cols`` grouped by busiest target: the targets (G,), each pair's group,
    and the (P, G) matrix of the pairs' current shares per group (a group moves at the
    ratio of its shares: Storm's update ``keep <- keep / rho`` scales them alike)."""
    tops, group = np.unique(top[cols], return_inverse=True)
    scale = np.zeros((len(x), len(tops)))
    scale[cols, group] = np.maximum(x[cols], 1e-300)
    return tops, group, scale


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
    they need not: no share makes every target keep up).
    """
    rows = np.arange(len(x))
    watch, grad, base, at = model.watch, model.grad, model.base, model.at
    x = x.copy()
    for _ in range(steps):
        res = base + grad @ (x - at)
        top = watch[rows, res[watch].argmax(1)]
        rho = rate * res[top]
        active = ((x < 1.0) | (rho > 1.0)) & ~((x <= 0.0) & (rho >= 1.0))
        if not active.any() or np.abs(rho[active] - 1.0).max() <= SPILL_TOL:
            return x, True
        rising = active & (grad[top, rows] > 0)
        new = x.copy()
        flat = active & ~rising
        if flat.any():
            new[flat] = np.where(rho[flat] > 1.0, 0.0, 1.0)
        cols = np.flatnonzero(rising)
        if len(cols):
            tops, group, scale = _groups(top, cols, x)
            jac = rate * (grad[tops] @ scale)
            first = cols[np.unique(group, return_index=True)[1]]
            try:
                step = np.linalg.solve(jac, 1.0 - rho[first])
            except np.linalg.LinAlgError:
                step = 1.0 / rho[first] - 1.0
            step = np.nan_to_num(step, nan=0.0, posinf=1.0, neginf=-1.0)[group]
            grown = x[cols] * (1.0 + step)
            new[cols] = np.clip(np.where(x[cols] > 0.0, grown, step), 0.0, 1.0)
        moved = np.abs(new - x).max()
        x = new
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


def _enter(
    model: Linear,
    member: np.ndarray,
    loads: np.ndarray,
    s: float,
    mode: np.ndarray,
    top: np.ndarray,
) -> bool:
    """At ``s``, the pairs whose targets reach their bound join the active set (or move
    their busiest target to the one that reached it); ``member[m, p]``: pair p watches
    load m. False when a load reaches its bound that no pair's share can hold there:
    R* = 1 / s."""
    grad = model.grad
    for m in np.flatnonzero(loads >= s * (1.0 - TIE)).tolist():
        pairs = np.flatnonzero(member[m])
        if (mode[pairs] & (top[pairs] == m)).any():
            continue
        held = pairs[grad[m, pairs] > 0]
        if not len(held):
            return False
        mode[held], top[held] = True, m
    return True


def _path(model: Linear, until: float = 0.0) -> tuple[float, np.ndarray, bool] | None:
    """R* on the affine model by following the steady state as R rises, the shares there
    and True; or, when ``until`` (s = 1/R) comes first, that rate, its shares and False;
    None when the path is degenerate (then :func:`_bisect`).

    In s = 1/R, between two events the active pairs (grouped by busiest target,
    :func:`_groups`) solve ``load_top(x) = s``: the shares and every load are affine in s.
    Events as s falls: a load reaches s (its pairs join, :func:`_enter`, or R* = 1/s when
    none can hold it), an active share reaches 1 (it keeps everything again) or 0 (its
    targets cannot be held any more: R* = 1/s).
    """
    grad, base, watch = model.grad, model.base, model.watch
    x = np.ones(len(model.at))
    loads = model.loads(x)
    s = float(loads.max(initial=0.0))
    floor = s * 2.0 ** -(MAX_DOUBLINGS + 1)
    mode = np.zeros(len(x), bool)  # active
    top = np.full(len(x), -1)
    stuck = 0  # events in a row at the same s
    member = np.zeros((len(base), len(x)), bool)
    member[watch, np.arange(len(x))[:, None]] = True
    for _ in range(PATH_STEPS):
        if not _enter(model, member, loads, s, mode, top):
            return 1.0 / s, x, True
        cols = np.flatnonzero(mode)
        tops, group, scale = _groups(top, cols, x)
        fixed = np.where(mode, 0.0, x)
        c = base + grad @ (fixed - model.at)
        h = grad @ scale
        try:
            ya, yb = np.linalg.solve(h[tops], np.stack([np.ones(len(tops)), c[tops]], 1)).T
        except np.linalg.LinAlgError:
            return None
        if not (np.isfinite(ya).all() and np.isfinite(yb).all()):
            return None
        slope, x0 = h @ ya, c - h @ yb  # loads = x0 + slope * s
        x_slope, x_zero = scale @ ya, fixed - scale @ yb  # shares likewise
        # loads moving with an active pair's busiest target are not events
        near = watch[cols]
        same = np.abs(loads[near] - s) <= TIE * s
        flat = slope[near] <= slope[top[cols]][:, None] + TIE * np.abs(slope).max()
        follow = np.zeros(len(c), bool)
        follow[near[same & flat]] = True
        follow[tops] = True
        room = s - loads  # >= 0; closes at 1 - slope per unit fall of s
        closing = (1.0 - slope > 0) & ~follow
        fall = [s - max(floor, until)]
        if closing.any():
            fall.append(float((np.maximum(room[closing], 0.0) / (1.0 - slope[closing])).min()))
        xs = x_zero[cols] + x_slope[cols] * s
        down, up = x_slope[cols] > 0, x_slope[cols] < 0
        if down.any():
            fall.append(float((xs[down] / x_slope[cols][down]).min()))
        if up.any():
            fall.append(float(((1.0 - xs[up]) / -x_slope[cols][up]).min()))
        step = max(min(fall), 0.0)
        stuck = stuck + 1 if step <= TIE * s else 0
        if stuck > len(x) + 1:  # pairs join and leave at once: none can hold its targets
            return 1.0 / s, x, True
        s -= step
        if s <= floor:
            return None
        x = np.clip(x_zero + x_slope * s, 0.0, 1.0)
        loads = x0 + slope * s
        if (x[cols] <= TIE).any():
            return 1.0 / s, x, True
        if s <= until * (1.0 + 1e-12):
            return 1.0 / s, x, False
        back = cols[x[cols] >= 1.0 - TIE]
        mode[back], x[back] = False, 1.0
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
    """
    model = linear(coef, slot_of, all_kept(coef))
    rate, x = _max_rate(model)
    for _ in range(MODEL_PASSES - 1):
        if not (len(x) and 0 < rate < np.inf) or _exact(model, coef, slot_of, x)[2]:
            break
        model = linear(coef, slot_of, model.shares(x))
        rate, x = _max_rate(model)
    return rate, model.shares(x)

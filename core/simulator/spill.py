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
polynomial in the shares: the model is taken again at the solution, once.

R* is then the largest R at which that steady state fits every thread, node
CPU and NIC (:func:`spill_max_rate`, by bisection from the rate at which the
all-local routing saturates). Left out: the host and rack scopes (a worker
without targets spreads over all of them at once: exact with one worker of
the topology per node on one rack), the weights that steer the widened scope
away from its loaded targets (the spill here is even), and the scope's
oscillation (STORM-3602, fixed after 2.0.0): docs/model.md, "Storm 2.0.0's
shuffle".
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
FIT_STEPS = 8  # ... when asking whether a rate fits (not settled by then: it does not)
SPILL_TOL = 1e-9  # ... until every full target is this close to utilisation 1
FIT_TOL = 1e-6  # a steady state fits when every load x R is at most 1 + this
BISECT_STEPS = 12  # R* to 2^-12 of the bracket (0.02% of the all-local R*)
MAX_DOUBLINGS = 8  # R* at most 2^8 x the all-local R*
AFFINE_TOL = 1e-9  # the affine model is exact when it predicts the loads this closely


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


def settle(
    model: Linear, rate: float, x: np.ndarray, steps: int = NEWTON_STEPS
) -> tuple[np.ndarray, bool]:
    """The pairs' kept shares at ``rate`` on the affine model, from ``x``.

    A pair whose busiest target is over utilisation 1, or that keeps less
    than everything, is active. Active pairs whose rho grows with their own
    share solve ``rho_p = 1`` together by Newton steps (the Jacobian of their
    rho over their shares), clipped to [0, 1]; one whose rho does not grow
    with its share (spilling loads its own node with serialisation) spills
    everything while its targets are full and keeps everything otherwise. A
    pair at 1 with rho <= 1 keeps everything, one at 0 with rho >= 1 spills
    everything. Returns the shares and whether they settled within ``steps``
    (above R* they need not: no share makes every target keep up).
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
            jac = rate * grad[top[cols][:, None], cols]
            try:
                step = np.linalg.solve(jac, 1.0 - rho[cols])
            except np.linalg.LinAlgError:
                step = x[cols] / rho[cols] - x[cols]
            new[cols] = np.clip(x[cols] + step, 0.0, 1.0)
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
    x = settle(model, rate, model.at)[0]
    r, u, exact = _exact(model, coef, slot_of, x)
    if not exact:  # spilling streams feed each other: once more around the solution
        model = linear(coef, slot_of, model.shares(x))
        x = settle(model, rate, model.at)[0]
        r, u, _ = _exact(model, coef, slot_of, x)
    return model.shares(x), r, u


def _max_rate(model: Linear) -> tuple[float, np.ndarray]:
    """R* on the affine model, and the pairs' shares there: bisection between the rate at
    which the shares the model was taken at saturate and a doubling that does not fit."""
    x = model.at
    peak = float(model.base.max(initial=0.0))
    low = max_rate(peak)
    if not 0 < low < np.inf:
        return low, x
    if not (model.grad[model.base >= peak * (1.0 - FIT_TOL)] > 0).any():
        return low, x  # no share, kept less, unloads a busiest bound: spilling cannot help

    def fits(rate: float, start: np.ndarray) -> tuple[bool, np.ndarray]:
        shares, settled = settle(model, rate, start, FIT_STEPS)
        return settled and float(model.loads(shares).max()) * rate <= 1.0 + FIT_TOL, shares

    high = 2.0 * low
    for _ in range(MAX_DOUBLINGS):
        ok, shares = fits(high, x)
        if not ok:
            break
        low, x, high = high, shares, 2.0 * high
    for _ in range(BISECT_STEPS):
        mid = 0.5 * (low + high)
        ok, shares = fits(mid, x)
        if ok:
            low, x = mid, shares
        else:
            high = mid
    return low, x


def spill_max_rate(coef: Coefficients, slot_of: np.ndarray) -> tuple[float, np.ndarray]:
    """R* of a placement under Storm 2's shuffle, and the kept shares at R*.

    The largest rate whose steady state (:func:`spill_keep`) fits every
    thread, node CPU and NIC, by bisection between the all-local R* (which
    fits: nothing spills there) and a rate that does not fit, on the affine
    model of the loads (taken again at the solution when it was not exact).
    """
    model = linear(coef, slot_of, all_kept(coef))
    rate, x = _max_rate(model)
    if len(x) and 0 < rate < np.inf and not _exact(model, coef, slot_of, x)[2]:
        model = linear(coef, slot_of, model.shares(x))
        rate, x = _max_rate(model)
    return rate, model.shares(x)

"""CPU contention: executors on one node share its cores (processor sharing).

A Storm executor is one thread, so it gets at most one core; when more of a
node's executors are busy than the node has cores, the cores are shared
among them and each one's service slows. With ``B_-e`` the number of *other*
busy executors on executor e's node and ``c`` its cores (less its fixed
overheads), e's service time is stretched by

    f_e = E[max(1, (1 + B_-e) / c)],

``B_-e`` Poisson-binomial over the other executors' busy fractions
``u_k = min(1, a_k f_k)``, ``a_k`` the busy fraction at full speed (its CPU
demand in cores). As f depends on u and u on f, the factors are the least
fixed point of that map, found by Newton steps on u (the Jacobian is a
diagonal plus a rank-one term per node: Sherman-Morrison); at a node
exactly at its cores the last of ``CONTENTION_MAX_ITER`` steps is taken.
On one core it has a closed form: f_e = 1 + sum of the other u_k, so
with S = sum_k a_k / (1 + a_k) the node is busy U = S / (1 - S) and
u_e = a_e (1 + U) / (1 + a_e); two 100 us executors in series at 90% node
CPU get f = 1 / 0.55 and, as M/M/1 servers, ~2.0 ms mean (a shared-core
event simulation: ~1.9 ms, ``tests/simulator/shared_core_oracle.py``).
A node with no more executors than cores never inflates.

References
----------
.. [1] L. Kleinrock, "Time-shared systems: a theoretical treatment",
   J. ACM 14(2), 1967, pp. 242-261, doi:10.1145/321386.321388
   (processor sharing).
.. [2] A. Toshniwal et al., "Storm @Twitter", SIGMOD 2014, pp. 147-156,
   doi:10.1145/2588555.2595641 (an executor is one thread).
"""

from __future__ import annotations

import numpy as np

CONTENTION_TOL = 1e-7  # converged when no busy fraction moves more than this
CONTENTION_MAX_ITER = 12  # Newton steps (quadratic; a few unless a node is at its cores)
MEAN_FIELD_SWEEPS = 60  # sweeps of the mean-field fixed point (geometric)
NEWTON_FLOOR = 1e-3  # below this a Newton step is ill-conditioned: take a plain one
# The exact factors hold one (crowded nodes x width x width) array, width the most
# executors on one node: 49,000 ackers on 5 nodes made it 11 GB. Past this many cells
# (32 MB a copy) the mean field is used instead: exact on one core, a lower bound on
# more (Jensen), and close when a node runs hundreds of executors (its busy count then
# concentrates around its mean).
EXACT_CELLS = 4_000_000


def contention_factors(demand: np.ndarray, node_of: np.ndarray, cores: np.ndarray) -> np.ndarray:
    """Service-time stretch f_e >= 1 of every executor from its node's contention.

    Parameters
    ----------
    demand : ndarray, shape (E,)
        Busy fraction of each executor at full speed (cores it demands).
    node_of : ndarray, shape (E,)
        Node index of each executor.
    cores : ndarray, shape (N,)
        Cores available to the executors of each node (> 0).

    Examples
    --------
    >>> f = contention_factors(np.array([0.45, 0.45]), np.array([0, 0]), np.array([1.0]))
    >>> np.round(f, 4).tolist()
    [1.8182, 1.8182]
    >>> contention_factors(np.array([0.9, 0.9]), np.array([0, 1]), np.ones(2)).tolist()
    [1.0, 1.0]
    """
    n_e = len(demand)
    f = np.ones(n_e)
    count = np.bincount(node_of, None, len(cores))
    crowded = count > cores
    if not crowded.any():
        return f
    sel = np.flatnonzero(crowded[node_of])
    nodes, inverse = np.unique(node_of[sel], return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    sel, inverse = sel[order], inverse[order]
    sizes = np.bincount(inverse)
    width = int(sizes.max())
    if len(nodes) * width * width > EXACT_CELLS:
        return mean_field_factors(demand, node_of, cores)
    col = np.arange(len(sel)) - (np.cumsum(sizes) - sizes)[inverse]
    a = np.zeros((len(nodes), width))
    a[inverse, col] = demand[sel]
    c = cores[nodes][:, None]
    if np.all(c == 1.0):
        fk = _one_core(a)
        f[sel] = fk[inverse, col]
        return f
    gain = np.maximum(1.0, (1.0 + np.arange(width + 1)) / c)  # (K, width + 1)
    step = np.diff(gain, axis=1)  # g(k + 1) - g(k)
    gain = gain[:, :width]
    start = np.zeros_like(a)
    start[inverse, col] = mean_field_factors(demand, node_of, cores)[sel]
    u = np.minimum(1.0, a * start)  # the mean-field bound: Newton starts below the root
    for _ in range(CONTENTION_MAX_ITER):
        q = _leave_one_out(u)
        fk = (q * gain[:, None, :]).sum(2)
        target = np.minimum(1.0, a * fk)
        residual = target - u
        if np.max(np.abs(residual)) <= CONTENTION_TOL:
            break
        # Newton on u = min(1, a f(u)): d f_e / d u_k ~ E[g(B_-e + 1) - g(B_-e)] for
        # every other k on the node, so the Jacobian is diag + rank one (Sherman-Morrison)
        d = np.where(a * fk < 1.0, a * (q * step[:, None, :]).sum(2), 0.0)
        y, z = residual / (1.0 + d), d / (1.0 + d)
        denom = 1.0 - z.sum(1, keepdims=True)
        ok = denom > NEWTON_FLOOR
        newton = y + z * y.sum(1, keepdims=True) / np.where(ok, denom, 1.0)
        u = np.clip(u + np.where(ok, newton, residual), 0.0, 1.0)
    f[sel] = fk[inverse, col]
    return f


def mean_field_factors(demand: np.ndarray, node_of: np.ndarray, cores: np.ndarray) -> np.ndarray:
    """A fast lower bound of :func:`contention_factors`: B_-e replaced by its mean.

    f_e = max(1, (1 + T_n - u_e) / c), T_n the node's total busy fraction;
    exact on one core (f is linear in B there) and on nodes with no more
    executors than cores, below the exact factor otherwise (Jensen). Solved
    on every crowded node at once: a closed form when every executor is
    stretched and none always busy, then fixed-point sweeps to settle those; what
    :meth:`core.simulator.capacity.Evaluator.score` uses in a search's hot loop.

    Examples
    --------
    >>> f = mean_field_factors(np.array([0.45, 0.45]), np.array([0, 0]), np.array([1.0]))
    >>> np.round(f, 4).tolist()
    [1.8182, 1.8182]
    """
    n_n = len(cores)
    count = np.bincount(node_of, None, n_n)
    crowded = count > cores
    if not crowded.any():
        return np.ones(len(demand))
    c = cores[node_of]
    # start from the closed form where every executor is stretched and none capped:
    # u_e = a_e (1 + T) / (c + a_e), T = S / (1 - S), S = sum a / (c + a)
    c_a = c + demand
    s = np.bincount(node_of, demand / c_a, n_n)
    total = np.where(s < 1.0, s / np.maximum(1.0 - s, 1e-12), count)[node_of]
    u = np.minimum(1.0, demand * (1.0 + total) / c_a)
    f = np.where(crowded[node_of], np.maximum(1.0, (1.0 + total - u) / c), 1.0)
    for _ in range(MEAN_FIELD_SWEEPS):
        u = np.minimum(1.0, demand * f)
        total = np.bincount(node_of, u, n_n)[node_of]
        new = np.maximum(1.0, (1.0 + total - u) / c)
        if np.max(np.abs(new - f)) <= CONTENTION_TOL:
            return new
        f = new
    return f


def _one_core(a: np.ndarray) -> np.ndarray:
    """The fixed point on one core in closed form (module docstring), per row of ``a``.

    Executors whose busy fraction would pass 1 are busy all the time: with
    that set C, T = sum u = (|C| + S) / (1 - S), S = sum over the others of
    a / (1 + a); C grows until it is consistent (largest demands first).
    """
    capped = np.zeros(a.shape, dtype=bool)
    for _ in range(a.shape[1] + 1):
        free = np.where(capped, 0.0, a / (1.0 + a))
        s = free.sum(1, keepdims=True)
        n_c = capped.sum(1, keepdims=True)
        with np.errstate(divide="ignore"):
            total = np.where(s < 1.0, (n_c + s) / np.maximum(1.0 - s, 1e-300), np.inf)
        grow = (a > 0) & (a * total >= 1.0)
        if not (grow & ~capped).any():
            break
        capped |= grow
    total = np.where(np.isinf(total), capped.sum(1, keepdims=True), total)
    u = np.where(capped, 1.0, a * (1.0 + total) / (1.0 + a))
    return 1.0 + total - u


def _leave_one_out(u: np.ndarray) -> np.ndarray:
    """P(k of the others busy) for every executor: shape (K, width, width), k < width.

    The node's Poisson-binomial PMF by convolution, then one executor's
    Bernoulli divided out, forwards where u <= 1/2 and backwards above
    (each direction is stable there).
    """
    k_nodes, width = u.shape
    q = 1.0 - u
    pmf = np.zeros((k_nodes, width + 1))
    pmf[:, 0] = 1.0
    for j in range(width):
        uj, qj = u[:, j : j + 1], q[:, j : j + 1]
        pmf[:, 1:] = pmf[:, 1:] * qj + pmf[:, :-1] * uj
        pmf[:, 0] *= qj[:, 0]
    p = pmf[:, None, :]  # (K, 1, width + 1)
    lo = u <= 0.5
    any_lo = bool(lo.any())
    all_lo = any_lo and bool(lo.all())
    out = np.zeros((k_nodes, width, width))
    # forwards: Q(k) = (P(k) - u Q(k-1)) / (1 - u)
    if any_lo:
        inv_q = np.where(lo, 1.0 / np.where(lo, q, 1.0), 0.0)
        prev = np.zeros_like(u)
        for k in range(width):
            prev = (p[:, :, k] - u * prev) * inv_q
            out[:, :, k] = prev
        if all_lo:  # the usual case: every executor busy at most half the time
            return np.clip(out, 0.0, 1.0)
    # backwards: Q(k-1) = (P(k) - (1 - u) Q(k)) / u
    inv_u = np.where(~lo, 1.0 / np.where(lo, 1.0, u), 0.0)
    nxt = np.zeros_like(u)
    bwd = np.zeros_like(out)
    for k in range(width, 0, -1):
        nxt = (p[:, :, k] - q * nxt) * inv_u
        bwd[:, :, k - 1] = nxt
    return np.clip(np.where(lo[:, :, None], out, bwd) if any_lo else bwd, 0.0, 1.0)

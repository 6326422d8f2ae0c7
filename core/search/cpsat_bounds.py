"""Upper bounds on R* that hold for every placement, and CP-SAT cuts built on them.

The CP-SAT count model's own bound is weak at high parallelism: the linear
relaxation of the products N[c, n] N[d, n] lets every stream pair share a
worker, so only compute is left to bound R*. The bounds here charge the
serialisation that no placement can avoid, and hold for the analytic model
(:mod:`core.simulator.capacity`) itself, so :mod:`core.search.optimal`
may print them beside the solver's.

Notation (per unit of offered rate R): component c with p_c executors,
visits v_c, compute seconds per tuple t_cn on node n, t_c = min_n t_cn;
A_c = v_c t_c its least total compute; stream k (c -> d) with T_k tuples,
sigma_k, delta_k seconds to (de)serialise one tuple across workers, and
w_k = T_k (sigma_k + delta_k); C_n cores on node n. L = 1 / R* is the
largest load (thread, node CPU / cores, NIC), so every load <= L.

**Compute bound** (every grouping, local-or-shuffle included). Node CPU
loads sum to at least sum_c A_c (a component's tuples are computed
somewhere, each at no less than t_c), and node n's load is at most L C_n
(with fixed overheads f: L (C_n - f) <= L C_n). A thread of c computes at
least its tuples times t_c: when no local-or-shuffle stream enters c, every
executor's tuples are fixed by the groupings (a stream's total is its
source's visits, its split over c's executors the grouping's), so the
busiest executor's count is known; else some executor takes at least the
mean v_c / p_c. So L >= max(sum_c A_c / sum_n C_n, max_c t_c (busiest
tuples of c)).

**Serialisation bound** (executors of each component interchangeable and
no local-or-shuffle: the count model's case; fractions x_cn = N_cn / p_c).
A pair of stream k in one worker saves its (de)serialisation; pairs in one
worker are on one node, so node n saves at most s_n = sum_k w_k x_cn x_dn.
Summing node loads: L sum_n C_n >= sum_c A_c + sum_k w_k - sum_n s_n.
With y_c = A_c x_cn and S_n = sum_c y_c, s_n = sum_k (w_k / (A_c A_d)) y_c y_d
<= b (1 - 1/omega) / 2 S_n^2 = mu S_n^2, where b is the largest
w / (A_c A_d) over pairs of components joined by streams and omega the clique
number of that (undirected) graph: the Motzkin-Straus theorem, max over the
simplex of sum over edges x_i x_j = (1 - 1/omega) / 2 [1]. S_n is at most
node n's load, so S_n <= L C_n, and sum_n S_n = sum_c A_c. So
sum_n s_n <= mu Phi(L), Phi(L) = max {sum S_n^2 : 0 <= S_n <= L C_n,
sum S_n = sum A_c}, which filling the largest nodes first attains (moving
mass from a smaller S_j to a larger S_i raises the sum of squares; if
S_i < S_j while C_i >= C_j, swap them first). L C + mu Phi(L) grows with L,
so the least L with L C + mu Phi(L) >= sum A_c + sum w_k, found by
bisection, bounds L from below.

**Cut for the count model** (same reasoning in the model's integer units).
With lim_ub the model's load of a known placement, every placement at least
as good has each node's weighted compute Y_n = sum_c q_c N_cn <= lim C_n <=
lim_ub C_n (q_c the model's compute coefficient of one executor of c on its
fastest node, at most the node's), and its savings sum_k (cs_k + cd_k) Q_kn
<= mu' Y_n^2 <= mu' lim_ub C_n Y_n, a linear cut (mu' as mu from the model's
integer coefficients). It never removes the optimum, which is at least as
good as the known placement.

References
----------
.. [1] T. S. Motzkin, E. G. Straus, "Maxima for graphs and a new proof of
   a theorem of Turan", Canadian J. Math. 17:533-540, 1965.
   https://doi.org/10.4153/CJM-1965-053-6
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from ortools.sat.python import cp_model

# Node constraints carry rate-independent CPU (fixed overheads, worker JVMs) in
# units of 1e-5 cores: 1e5 x load + fixed <= L x round(1e5 x cores).
FIXED_SCALE = 100_000
PROBE_S = 5.0  # seconds for the model's load of the start placement (all counts fixed)
BISECTION_STEPS = 60  # halvings of the load interval: far below float resolution


def clique_number(n: int, edges: Sequence[tuple[int, int]]) -> int:
    """Size of the largest clique of an undirected graph on vertices 0..n-1.

    Examples
    --------
    >>> clique_number(4, [(0, 1), (1, 2), (2, 3)])
    2
    >>> clique_number(4, [(0, 1), (1, 2), (0, 2), (2, 3)])
    3
    """
    adj = [0] * n
    for a, b in edges:
        if a != b:
            adj[a] |= 1 << b
            adj[b] |= 1 << a
    best = 1 if n else 0

    def grow(size: int, candidates: int) -> None:
        nonlocal best
        if candidates == 0:
            best = max(best, size)
            return
        if size + candidates.bit_count() <= best:
            return
        while candidates:
            v = candidates.bit_length() - 1
            candidates &= ~(1 << v)
            grow(size + 1, candidates & adj[v])
            if size + candidates.bit_count() <= best:
                return

    grow(0, (1 << n) - 1)
    return best


def motzkin_straus(n: int, weights: dict[tuple[int, int], float]) -> float:
    """mu with sum over pairs of weight y_a y_b <= mu (sum y)^2 for every y >= 0.

    ``weights`` maps unordered pairs (a, b), a != b, to non-negative weights;
    mu = (largest weight) (1 - 1/omega) / 2 over the graph of positive pairs.
    """
    edges = [pair for pair, w in weights.items() if w > 0]
    if not edges:
        return 0.0
    omega = clique_number(n, edges)
    return max(weights[e] for e in edges) * (1.0 - 1.0 / omega) / 2.0


def max_square_sum(caps: np.ndarray, total: float) -> float:
    """max sum S_n^2 over 0 <= S_n <= caps_n with sum S_n = total (inf if infeasible)."""
    left, out = float(total), 0.0
    for cap in sorted(np.asarray(caps, dtype=float).tolist(), reverse=True):
        take = min(cap, left)
        out += take * take
        left -= take
        if left <= 0:
            return out
    return math.inf if left > 1e-12 * max(total, 1.0) else out


def compute_load(compute: np.ndarray, thread: np.ndarray, cores: np.ndarray) -> float:
    """Least L for every placement: total compute over all cores, or the busiest thread.

    ``compute``: A_c, each component's least total compute per unit R, s;
    ``thread``: the least compute of each component's busiest thread, s;
    ``cores``: C_n.
    """
    spread = float(np.sum(compute)) / float(np.sum(cores))
    return max(spread, float(np.max(thread, initial=0.0)))


def serialisation_load(
    compute: np.ndarray,
    cores: np.ndarray,
    streams: Sequence[tuple[int, int, float, float]],
) -> float:
    """Least node-CPU L given the serialisation no placement avoids (module doc).

    Parameters
    ----------
    compute : ndarray
        A_c per component, s per unit R (the least over nodes).
    cores : ndarray
        C_n per node.
    streams : sequence of (c, d, T_k sigma_k, T_k delta_k)
        Every stream's components and its all-crossing serialisation and
        deserialisation, s per unit R.
    """
    total_a = float(np.sum(compute))
    total_w = sum(a + b for _, _, a, b in streams)
    cores = np.asarray(cores, dtype=float)
    c_sum = float(cores.sum())
    low = total_a / c_sum
    if total_w <= 0:
        return low
    pair: dict[tuple[int, int], float] = {}
    linear = np.zeros(len(compute))
    for c, d, out_s, in_s in streams:
        if compute[c] <= 0 or compute[d] <= 0:
            return low  # a component without compute: no Motzkin-Straus weight
        key = (min(c, d), max(c, d))
        pair[key] = pair.get(key, 0.0) + (out_s + in_s) / (compute[c] * compute[d])
        linear[c] += out_s
        linear[d] += in_s
    mu = motzkin_straus(len(compute), pair)
    busy = compute > 0  # an idle component (no compute, no streams) holds no share
    rho = float(np.min(linear[busy] / compute[busy]))
    need = total_a + total_w

    def enough(load: float) -> bool:
        caps = node_compute_caps(load * cores, mu, rho)
        phi = max_square_sum(caps, total_a)
        return math.isfinite(phi) and load * c_sum + mu * phi >= need

    high = need / c_sum  # no savings at all: always enough
    if enough(low):
        return low
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (low + high)
        low, high = (low, mid) if enough(mid) else (mid, high)
    return low


def node_compute_caps(capacity: np.ndarray, mu: float, rho: float) -> np.ndarray:
    """Largest compute S_n a node of load capacity K_n = L C_n can hold.

    Its load is at least f(S) = S + max(0, rho S - mu S^2): its compute, plus
    its (de)serialisation if every pair crossed (at least rho S, rho the least
    ratio of a component's all-crossing serialisation to its compute) less
    the most its pairs can save (mu S^2, and never more than that
    serialisation). f(S) <= K with S <= K holds exactly for S <= K when
    K >= rho / mu, else for S up to the smaller root of mu S^2 - (1 + rho) S
    + K (f is concave there, f(K) > K, so {f <= K} is [0, root]).
    """
    k = np.asarray(capacity, dtype=float)
    if mu <= 0:
        return k / (1.0 + rho)
    disc = np.maximum((1.0 + rho) ** 2 - 4.0 * mu * k, 0.0)
    root = ((1.0 + rho) - np.sqrt(disc)) / (2.0 * mu)
    return np.where(k >= rho / mu, k, np.minimum(root, k))


def least_load(
    visits: np.ndarray,
    busiest: np.ndarray,
    service: np.ndarray,
    cores: np.ndarray,
    streams: Sequence[tuple[int, int, float, float]] | None,
) -> float:
    """The largest of the module's lower bounds on L = 1 / R* for one scenario.

    Parameters
    ----------
    visits : ndarray
        v_c per component (graph order).
    busiest : ndarray
        Tuples per unit R that some executor of c processes in every
        placement: its busiest executor's when no local-or-shuffle stream
        enters c (shares fixed by the grouping), else the mean v_c / p_c.
    service : ndarray
        t_cn, seconds per tuple of component c on node n.
    cores : ndarray
        C_n per node.
    streams : sequence of (c, d, T_k sigma_k, T_k delta_k), or None
        Every stream with its all-crossing (de)serialisation per unit R when
        the serialisation bound applies (interchangeable executors, no
        local-or-shuffle); None for the compute bound alone.
    """
    fastest = service.min(axis=1)
    compute = np.asarray(visits, dtype=float) * fastest
    low = compute_load(compute, np.asarray(busiest, dtype=float) * fastest, cores)
    if streams:
        low = max(low, serialisation_load(compute, cores, streams))
    return low


def start_load(m, cnt, counts, lim) -> int | None:
    """The count model's L (integer units) at ``counts`` (component x node), None if unsolved.

    ``m`` is the model, ``cnt`` its count variables N[c][n], ``lim`` its L;
    a copy with every count fixed is solved (one point: fast).
    """
    probe = m.Clone()
    for c, row in enumerate(cnt):
        for n, v in enumerate(row):
            probe.Add(probe.GetIntVarFromProtoIndex(v.Index()) == int(counts[c][n]))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = PROBE_S
    solver.parameters.num_search_workers = 1
    if solver.Solve(probe) != cp_model.OPTIMAL:
        return None
    return int(solver.Value(probe.GetIntVarFromProtoIndex(lim.Index())))


def cut_savings(m, lim, lim_ub, cnt, same, saving, q_c, cores) -> None:
    """Add the count model's serialisation cut (module doc) to ``m``.

    L <= ``lim_ub`` and, per node n, sum_k (cs_k + cd_k) Q[k, n] <= mu' lim_ub C_n Y_n
    with Y_n = sum_c q_c N[c, n]. ``same[k][n]``: Q[k, n]; ``saving``: (cs_k + cd_k,
    c, d) per stream; ``q_c``: an executor's compute on its fastest node; ``cores``: C_n.
    """
    weights: dict[tuple[int, int], float] = {}
    for coef, c, d in saving:
        if q_c[c] <= 0 or q_c[d] <= 0:
            return
        key = (min(c, d), max(c, d))
        weights[key] = weights.get(key, 0.0) + coef / (q_c[c] * q_c[d])
    mu = motzkin_straus(len(q_c), weights)
    m.Add(lim <= lim_ub)
    if mu <= 0:
        return
    for n in range(len(cores)):
        # Y_n <= lim cores_n: the node constraint is S load + fixed <= lim round(S C_n)
        per_y = mu * lim_ub * round(float(cores[n]) * FIXED_SCALE) / FIXED_SCALE
        rhs = [math.ceil(per_y * q_c[c]) * cnt[c][n] for c in range(len(q_c))]
        lhs = [coef * same[i][n] for i, (coef, _, _) in enumerate(saving)]
        m.Add(sum(lhs) <= sum(rhs))

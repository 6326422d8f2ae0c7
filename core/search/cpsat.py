"""The placement that maximises R*, as a CP-SAT model (OR-Tools).

R* is the analytic model's maximum sustainable rate
(:mod:`core.simulator.capacity`): the offered rate at which the first of
three bounds binds. Every load is linear in R, so maximising R* is
minimising L = max(load per unit R) over the bounds, and L = 1 / R*.

Variables (executor e, global slot g on node n(g), node n):

- x[e, g] in {0, 1}, sum_g x[e, g] = 1 (every executor in one slot);
- y[e, n] = sum_(g on n) x[e, g] (a bool: e is on n);
- u[g] >= x[e, g] (slot used), sum_g u[g] <= W (the topology's workers);
- for every pair (i, j) of a stream k (i sends, j receives):
  s[i, j] (same slot), m[i, j, n] (both on n), z[i, j, n] (same slot on n),
  with z <= m <= y[i, n], m <= y[j, n], s = sum_n z[i, j, n] and the clauses
  s and x[i, g] => x[j, g] (so s = 1 only in one slot). These indicators
  only lower loads, so at the optimum they take their largest feasible
  value: the products x[i, g] x[j, g] of the exact model, linearised.

Loads per unit R (a_e: tuples e processes; o_i: tuples i sends on k; w_j:
j's share of k, W_k = sum w_j, O_k = sum o_i; t_cn: compute seconds per
tuple of component c on node n; sigma_k, delta_k: serialisation and
deserialisation seconds per tuple; b_k bytes per tuple; B_n NIC bits/s):

1. thread: cpu_e = a_e sum_n t_(c(e)n) y[e, n]
   + sum_(k, j) o_e w_j sigma_k (1 - s[e, j]) + sum_(k, i) o_i w_e delta_k (1 - s[i, e]) <= L;
2. node CPU: sum_e a_e t_(c(e)n) y[e, n] + sum_(i, j) o_i w_j (sigma_k + delta_k)
   ... split as sigma_k (y[i, n] - z[i, j, n]) + delta_k (y[j, n] - z[i, j, n])
   <= L (cores_n - sum_e f_(c(e)n) y[e, n] - j sum_(g on n) u[g]), the
   products L y[e, n] and L u[g] written as p >= L when the literal holds
   (only with fixed overheads: f, the profiled MET of Nasiri et al.; j, a
   worker JVM's own CPU, ``network.worker_cpu_cores``);
3. NIC: 8 sum_(i, j) o_i w_j b_k (y[i, n] - m[i, j, n]) <= L B_n, and the same
   with y[j, n] (inbound; full duplex).

This is exactly the analytic model's capacity bounds for every grouping
whose rates do not depend on the placement (shuffle, fields, all, global),
and for local-or-shuffle into a component of one executor (it receives the
whole stream either way, and its senders serialise exactly the tuples that
leave their worker: shuffle). Other local-or-shuffle streams are modelled
as shuffle (their rates move with the placement, which no linear model
holds); the result says so (``exact=False``), the solver's bound proves
nothing for them, and :mod:`core.search.optimal` prints the compute
bound of :mod:`core.search.cpsat_bounds` instead (an upper bound valid
for every placement, not an exact model). A shuffle under Storm 2
(``storm_version`` 2 or later: locality-first, with a spill that moves with
the rate, :mod:`core.simulator.spill`) is held the same way as
local-or-shuffle: its target component gets the same tuples whatever the
shares, so the compute bound holds for it too. Coefficients
are rounded to integers at ``SCALE`` (relative error ~1e-6 on the loads);
the chosen placement is always re-scored with the :class:`Evaluator`.

Symmetry breaking: slots of a node are interchangeable (u[g] >= u[g + 1]),
and so are nodes with identical hardware (used slots non-increasing along
each class) and executors of one component with equal rates and shares
(their slot numbers non-decreasing).

References
----------
.. [1] L. Perron, F. Didier, "CP-SAT", OR-Tools v9.12, Google, 2024.
   https://developers.google.com/optimization
.. [2] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "A scheduling
   algorithm to maximize storm throughput in heterogeneous cluster",
   Journal of Big Data 10:103, 2023. https://doi.org/10.1186/s40537-023-00771-y
"""

from __future__ import annotations

import math

import numpy as np
from ortools.sat.python import cp_model

from core.model import Scenario
from core.search.cpsat_counts import (
    FIXED_SCALE,
    Solution,
    analytic_bound,
    applies,
    model_rates,
    run_model,
    shuffle_exact,
)
from core.search.cpsat_counts import solve as solve_counts
from core.simulator.capacity import Evaluator
from core.simulator.coefficients import THREAD_CORES

__all__ = ["Solution", "analytic_bound", "solve", "solve_auto"]

SCALE_TOP = 10**7  # the largest load coefficient, in integer units (CP-SAT works in integers)


def solve_auto(
    scenario: Scenario,
    ev: Evaluator,
    time_limit_s: float,
    workers: int = 2,
    hint: np.ndarray | None = None,
    symmetry: bool = True,
) -> Solution:
    """:func:`solve`, or the count model when it is exact and this one too large."""
    pick = solve_counts if applies(ev) else solve
    return pick(scenario, ev, time_limit_s, workers, hint=hint, symmetry=symmetry)


def _pairs(table, rates):
    """(stream, sender, receiver, o_i w_j) for every flow of the rank-one part."""
    out = []
    for k in range(len(table.streams)):
        srcs = table.src_ex[table.src_start[k] : table.src_start[k + 1]]
        o = rates.src_out[table.src_start[k] : table.src_start[k + 1]]
        tgt_mask = table.tgt_sid == k
        tgts, w = table.tgt_ex[tgt_mask], table.tgt_w[tgt_mask]
        for i, oi in zip(srcs.tolist(), o.tolist(), strict=True):
            for j, wj in zip(tgts.tolist(), w.tolist(), strict=True):
                if oi * wj > 0 and i != j:
                    out.append((k, i, j, oi * wj))
    return out


def solve(
    scenario: Scenario,
    ev: Evaluator,
    time_limit_s: float,
    workers: int = 2,
    hint: np.ndarray | None = None,
    symmetry: bool = True,
) -> Solution:
    """Maximise R* over placements of ``ev``'s executors (see module doc).

    Parameters
    ----------
    scenario : Scenario
    ev : Evaluator
        Fixes the parallelism; its executor order is the result's.
    time_limit_s : float
        Wall-clock limit of the solver, seconds.
    workers : int
        CP-SAT search workers (threads).
    hint : ndarray, optional
        A placement to start from (global slots).
    symmetry : bool
        Break symmetry between slots of a node and identical nodes.
    """
    coef = ev.coef  # the capacity model's coefficients (core.simulator.coefficients)
    table, nodes, service, fixed = coef.table, coef.nodes, coef.service_s, coef.fixed_cores
    exact = shuffle_exact(table)
    rates = model_rates(table)
    ser, deser, bits = coef.ser_s, coef.deser_s, coef.bits
    n_e, n_n, n_g = len(table.executors), len(nodes.ids), nodes.slots
    comp = table.exec_comp
    pairs = _pairs(table, rates)
    nic_per_bit = 1.0 / coef.nic_bits_per_s

    # scale: the largest single load (everything on its slowest node) maps to SCALE_TOP
    worst = float((rates.arrival * service[comp].max(axis=1)).sum())
    worst += sum(f * (ser[k] + deser[k]) for k, _, _, f in pairs)
    worst += sum(f * bits[k] for k, _, _, f in pairs) * float(nic_per_bit.max())
    scale = SCALE_TOP / worst if worst > 0 else 1.0

    def q(v: float) -> int:
        return int(round(v * scale))

    m = cp_model.CpModel()
    x = [[m.NewBoolVar(f"x{e}_{g}") for g in range(n_g)] for e in range(n_e)]
    y = [[m.NewBoolVar(f"y{e}_{n}") for n in range(n_n)] for e in range(n_e)]
    u = [m.NewBoolVar(f"u{g}") for g in range(n_g)]
    lim = m.NewIntVar(0, SCALE_TOP * 4, "L")
    for e in range(n_e):
        m.AddExactlyOne(x[e])
        for n in range(n_n):
            lo, hi = int(nodes.slot_start[n]), int(nodes.slot_start[n + 1])
            m.Add(y[e][n] == sum(x[e][lo:hi]))
        for g in range(n_g):
            m.AddImplication(x[e][g], u[g])
    m.Add(sum(u) <= scenario.workers)
    if symmetry:
        _break_symmetry(m, scenario, nodes, u)
        slot_of = [sum(g * x[e][g] for g in range(1, n_g)) for e in range(n_e)]
        for a, b in _twins(table, rates):
            m.Add(slot_of[a] <= slot_of[b])

    cpu = [[] for _ in range(n_e)]  # (coefficient, literal or 1) terms of each thread load
    node_terms = [[] for _ in range(n_n)]
    nic_out = [[] for _ in range(n_n)]
    nic_in = [[] for _ in range(n_n)]
    for e in range(n_e):
        for n in range(n_n):
            c = q(rates.arrival[e] * service[comp[e], n])
            cpu[e].append(c * y[e][n])
            node_terms[n].append(c * y[e][n])
    for k, i, j, f in pairs:
        s = m.NewBoolVar(f"s{i}_{j}")
        zs, cs, cd = [], q(f * ser[k]), q(f * deser[k])
        cpu[i].append(cs - cs * s)
        cpu[j].append(cd - cd * s)
        nb = f * bits[k]
        for n in range(n_n):
            z = m.NewBoolVar(f"z{i}_{j}_{n}")
            m.AddImplication(z, y[i][n])
            m.AddImplication(z, y[j][n])
            zs.append(z)
            node_terms[n].append(cs * y[i][n] - cs * z + cd * y[j][n] - cd * z)
            if nb > 0:
                mm = m.NewBoolVar(f"m{i}_{j}_{n}")
                m.AddImplication(mm, y[i][n])
                m.AddImplication(mm, y[j][n])
                m.AddImplication(z, mm)
                c = q(nb * nic_per_bit[n])
                nic_out[n].append(c * y[i][n] - c * mm)
                nic_in[n].append(c * y[j][n] - c * mm)
        m.Add(s == sum(zs))
        for g in range(n_g):
            m.AddBoolOr([s.Not(), x[i][g].Not(), x[j][g]])
    for e in range(n_e):
        m.Add(sum(cpu[e]) <= lim * THREAD_CORES)
    has_fixed = fixed is not None
    jvm = int(round(coef.worker_cores * FIXED_SCALE))
    for n in range(n_n):
        cores = float(coef.capacity_cores[n])
        held = []  # fixed overheads: L x f summed over the executors and workers on n
        if has_fixed:
            for e in range(n_e):
                fe = int(round(fixed[comp[e], n] * FIXED_SCALE))
                if fe:
                    p = m.NewIntVar(0, SCALE_TOP * 4, f"p{e}_{n}")
                    m.Add(p >= lim).OnlyEnforceIf(y[e][n])
                    held.append(fe * p)
        if jvm:
            for g in range(int(nodes.slot_start[n]), int(nodes.slot_start[n + 1])):
                p = m.NewIntVar(0, SCALE_TOP * 4, f"w{g}")
                m.Add(p >= lim).OnlyEnforceIf(u[g])
                held.append(jvm * p)
        cores_n = int(round(cores * FIXED_SCALE))
        m.Add(FIXED_SCALE * sum(node_terms[n]) + sum(held) <= lim * cores_n)
        if nic_out[n]:
            m.Add(sum(nic_out[n]) <= lim)
            m.Add(sum(nic_in[n]) <= lim)
    m.Minimize(lim)
    if hint is not None:
        for e, g in enumerate(np.asarray(hint).tolist()):
            for h in range(n_g):
                m.AddHint(x[e][h], int(h == g))

    def read(solver: cp_model.CpSolver) -> np.ndarray:
        return np.array(
            [next(g for g in range(n_g) if solver.BooleanValue(x[e][g])) for e in range(n_e)],
            dtype=np.int64,
        )

    return run_model(m, time_limit_s, workers, scale, exact, "per-executor", read)


def _twins(table, rates) -> list[tuple[int, int]]:
    """Consecutive executors of one component that no bound can tell apart.

    Equal arrivals and an equal share of every stream into the component
    (shuffle, all, global; fields only with equal key mass): swapping them
    changes no load, so their slots may be taken in non-decreasing order.
    """
    out = []
    for c in range(len(table.comp_start) - 1):
        lo, hi = int(table.comp_start[c]), int(table.comp_start[c + 1])
        shares = [table.tgt_w[table.tgt_ex == e] for e in range(lo, hi)]
        for e in range(lo, hi - 1):
            same_rate = math.isclose(rates.arrival[e], rates.arrival[e + 1], rel_tol=1e-12)
            if same_rate and np.allclose(shares[e - lo], shares[e + 1 - lo], rtol=1e-12):
                out.append((e, e + 1))
    return out


def _break_symmetry(m: cp_model.CpModel, scenario: Scenario, nodes, u) -> None:
    """Slots open in order within a node; identical nodes ordered by slots used."""
    classes: dict[tuple, list[int]] = {}
    for n, node in enumerate(scenario.cluster.nodes):
        lo, hi = int(nodes.slot_start[n]), int(nodes.slot_start[n + 1])
        for g in range(lo, hi - 1):
            m.AddImplication(u[g + 1], u[g])
        key = tuple(sorted(node.model_dump(exclude={"id"}).items(), key=lambda kv: kv[0]))
        classes.setdefault(repr(key), []).append(n)
    for members in classes.values():
        for a, b in zip(members, members[1:], strict=False):
            ua = u[int(nodes.slot_start[a]) : int(nodes.slot_start[a + 1])]
            ub = u[int(nodes.slot_start[b]) : int(nodes.slot_start[b + 1])]
            m.Add(sum(ua) >= sum(ub))

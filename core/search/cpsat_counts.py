"""The R*-maximising placement as a CP-SAT model over executor counts.

When every component's executors are interchangeable (equal arrivals,
every stream from all of one component's executors, with equal outputs, to
all of another's, with equal shares: shuffle, all, fields with equal key
mass, local-or-shuffle relaxed as shuffle), a placement is fixed up to
symmetry by how many executors of each component sit in each slot. This
model has counts as variables instead of the per-executor booleans of
:mod:`core.search.cpsat`, so it stays small on hundreds of executors.

One worker per node is enough. Moving all of a node's executors into one of
its slots raises no load: a thread's serialisation falls (more of its
receivers share its worker), the node's CPU falls (more pairs in one
worker), the NIC is unchanged, and no more workers are used. So the model
counts executors per node and decodes them into the node's first slot (no
bound of the analytic model limits a worker; memory is only warned about).

Variables (component c with p_c executors, node n):

- N[c, n] in [0, p_c], sum_n N[c, n] = p_c;
- v[n] (node used) with N[c, n] <= p_c h[c, n], h[c, n] => v[n],
  v[n] <= sum_c N[c, n] and sum_n v[n] <= W (h[c, n]: c is on n);
- for every stream k (c -> d): Q[k, n] = N[c, n] N[d, n] (pairs of k in
  the node's worker), a CP-SAT multiplication constraint, so the model is
  exact.

Loads per unit R, with f_k = o_k w_k the flow of one pair of k (o_k: tuples
one sender of c sends, w_k: one receiver's share) and the per-executor
model's integer coefficients (same ``SCALE_TOP`` scaling, same rounding):

1. thread, enforced when h[c, n]: a_c t_cn + sum_(k out of c)
   f_k sigma_k (p_d - N[d, n]) + sum_(k into c) f_k delta_k (p_b - N[b, n]) <= L;
2. node CPU: sum_c a_c t_cn N[c, n] + sum_k f_k sigma_k (p_d N[c, n] - Q[k, n])
   + f_k delta_k (p_c N[d, n] - Q[k, n]) <= L (cores_n - sum_c f_cn N[c, n]),
   the product L N[c, n] a multiplication variable (only with fixed
   overheads f);
3. NIC: 8 b_k f_k (p_d N[c, n] - Q[k, n]) summed over k <= L B_n, and the
   same with p_c N[d, n] (inbound).

These are the per-executor model's loads with its pair indicators summed
(at its optimum too one worker per node suffices), so both have the same
integer optimum. Symmetry breaking: nodes with identical hardware are
ordered by the first component's count. Counts decode in executor order
(the first N[c, n0] executors of c to node n0, ...).

The solver's own bound is weak on the x10 presets (the products' linear
relaxation lets every pair share a worker). Given a start placement, the
model gets the serialisation cut of :mod:`core.search.cpsat_bounds`
(L at most the start's load, and per node the pairs' savings at most
mu' lim_ub C_n times its weighted compute), which never removes the
optimum; :func:`analytic_bound` is that module's bound for the scenario,
which :mod:`core.search.optimal` prints when tighter than the solver's.

References
----------
.. [1] L. Perron, F. Didier, "CP-SAT", OR-Tools v9.12, Google, 2024.
   https://developers.google.com/optimization
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from core.model import Scenario
from core.search.cpsat_bounds import FIXED_SCALE, cut_savings, least_load, start_load
from core.simulator.capacity import Evaluator
from core.simulator.coefficients import THREAD_CORES
from core.simulator.rates import UnitRates, unit_rates

SCALE_TOP = 10**7  # as core.search.cpsat: the largest load in integer units
LARGE = 60  # executors above which the per-executor model is too large to solve


@dataclass(frozen=True)
class Solution:
    """A CP-SAT placement and what the solver proved about it.

    ``slots`` is the global slot of every executor (the Evaluator's order);
    ``bound`` the proven upper bound on R* (tuples/s, inf when none);
    ``status`` "optimal", "feasible" or "unknown"; ``exact`` False when the
    model relaxes a placement-dependent grouping (local-or-shuffle);
    ``model`` "per-executor" (this module) or "counts"
    (:mod:`core.search.cpsat_counts`).
    """

    slots: np.ndarray | None
    status: str
    bound: float
    model_rate: float
    wall_s: float
    exact: bool
    variables: int
    model: str = "per-executor"


@dataclass(frozen=True)
class Flow:
    """Stream ``k`` from component ``src`` to ``dst``: ``f`` per executor pair."""

    k: int
    src: int
    dst: int
    f: float


def shuffle_exact(table) -> bool:
    """True when modelling local-or-shuffle as shuffle is exact: every such stream's
    target has one executor, which receives the whole stream either way (and its
    senders serialise exactly the tuples that leave their worker, as with shuffle)."""
    par = table.graph.parallelism
    return all(par[s.target] == 1 for s, lsp in zip(table.streams, table.local, strict=True) if lsp)


def model_rates(table) -> UnitRates:
    """Rates per unit R as both CP-SAT models see them: a local-or-shuffle stream as
    shuffle (every executor in a worker of its own)."""
    return unit_rates(table, np.arange(len(table.executors)) if table.has_local else None)


def flows(table, rates) -> list[Flow] | None:
    """The per-stream pair flows, or None when some executors are not interchangeable."""
    starts = [int(v) for v in table.comp_start]
    for c in range(len(starts) - 1):
        a = rates.arrival[starts[c] : starts[c + 1]]
        if len(a) and not np.allclose(a, a[0], rtol=1e-12, atol=0.0):
            return None
    comp = table.exec_comp
    out = []
    for k in range(len(table.streams)):
        srcs = table.src_ex[table.src_start[k] : table.src_start[k + 1]]
        o = rates.src_out[table.src_start[k] : table.src_start[k + 1]]
        mask = table.tgt_sid == k
        tgts, w = table.tgt_ex[mask], table.tgt_w[mask]
        if not len(srcs) or not len(tgts):
            continue
        c, d = int(comp[srcs[0]]), int(comp[tgts[0]])
        whole_c = sorted(srcs.tolist()) == list(range(starts[c], starts[c + 1]))
        whole_d = sorted(tgts.tolist()) == list(range(starts[d], starts[d + 1]))
        if c == d or not (whole_c and whole_d):
            return None
        if not (np.allclose(o, o[0], rtol=1e-12, atol=0.0) and np.allclose(w, w[0], rtol=1e-12)):
            return None
        if o[0] * w[0] > 0:
            out.append(Flow(k, c, d, float(o[0] * w[0])))
    return out


def applies(ev: Evaluator) -> bool:
    """True when the count model is exact for ``ev`` and the per-executor one too large."""
    return len(ev.table.executors) > LARGE and flows(ev.table, model_rates(ev.table)) is not None


def solve(
    scenario: Scenario,
    ev: Evaluator,
    time_limit_s: float,
    workers: int = 2,
    hint: np.ndarray | None = None,
    symmetry: bool = True,
):
    """Maximise R* over executor counts per slot (see module doc).

    Same parameters and result (:class:`Solution`) as
    :func:`core.search.cpsat.solve`; raises ValueError when the
    executors of some component are not interchangeable.
    """
    coef = ev.coef  # the capacity model's coefficients (core.simulator.coefficients)
    table = coef.table
    rates = model_rates(table)
    fl = flows(table, rates)
    if fl is None:
        raise ValueError("the count model needs interchangeable executors")
    nodes, service, fixed = coef.nodes, coef.service_s, coef.fixed_cores
    exact = shuffle_exact(table)
    ser, deser, bits = coef.ser_s, coef.deser_s, coef.bits
    starts = [int(v) for v in table.comp_start]
    n_c, n_n = len(starts) - 1, len(nodes.ids)
    size = [starts[c + 1] - starts[c] for c in range(n_c)]
    arrival = [float(rates.arrival[starts[c]]) if size[c] else 0.0 for c in range(n_c)]
    nic_per_bit = 1.0 / coef.nic_bits_per_s
    pairs = [size[x.src] * size[x.dst] for x in fl]

    worst = sum(size[c] * arrival[c] * float(service[c].max()) for c in range(n_c))
    worst += sum(p * x.f * (ser[x.k] + deser[x.k]) for p, x in zip(pairs, fl, strict=True))
    worst += sum(p * x.f * bits[x.k] for p, x in zip(pairs, fl, strict=True)) * float(
        nic_per_bit.max()
    )
    scale = SCALE_TOP / worst if worst > 0 else 1.0

    def q(v: float) -> int:
        return int(round(v * scale))

    m = cp_model.CpModel()
    cnt = [[m.NewIntVar(0, size[c], f"N{c}_{n}") for n in range(n_n)] for c in range(n_c)]
    has = [[m.NewBoolVar(f"h{c}_{n}") for n in range(n_n)] for c in range(n_c)]
    used = [m.NewBoolVar(f"v{n}") for n in range(n_n)]
    lim = m.NewIntVar(0, SCALE_TOP * 4, "L")
    for c in range(n_c):
        m.Add(sum(cnt[c]) == size[c])
        for n in range(n_n):
            m.Add(cnt[c][n] <= size[c] * has[c][n])
            m.AddImplication(has[c][n], used[n])
    for n in range(n_n):
        m.Add(used[n] <= sum(cnt[c][n] for c in range(n_c)))
    m.Add(sum(used) <= scenario.workers)
    if symmetry and n_c:
        _break_symmetry(m, scenario, cnt[0])
    same = []
    for x in fl:
        row = []
        for n in range(n_n):
            v = m.NewIntVar(0, size[x.src] * size[x.dst], f"Q{x.k}_{n}")
            m.AddMultiplicationEquality(v, [cnt[x.src][n], cnt[x.dst][n]])
            row.append(v)
        same.append(row)

    cs = [q(x.f * ser[x.k]) for x in fl]
    cd = [q(x.f * deser[x.k]) for x in fl]
    for c in range(n_c):
        for n in range(n_n):
            terms = [q(arrival[c] * service[c, n])]
            for i, x in enumerate(fl):
                if x.src == c:
                    terms.append(cs[i] * (size[x.dst] - cnt[x.dst][n]))
                if x.dst == c:
                    terms.append(cd[i] * (size[x.src] - cnt[x.src][n]))
            m.Add(sum(terms) <= lim * THREAD_CORES).OnlyEnforceIf(has[c][n])
    has_fixed = fixed is not None
    jvm = int(round(coef.worker_cores * FIXED_SCALE))
    for n in range(n_n):
        load = [q(arrival[c] * service[c, n]) * cnt[c][n] for c in range(n_c)]
        nic_out, nic_in = [], []
        for i, x in enumerate(fl):
            load.append(cs[i] * (size[x.dst] * cnt[x.src][n] - same[i][n]))
            load.append(cd[i] * (size[x.src] * cnt[x.dst][n] - same[i][n]))
            nb = x.f * bits[x.k]
            if nb > 0:
                cb = q(nb * nic_per_bit[n])
                nic_out.append(cb * (size[x.dst] * cnt[x.src][n] - same[i][n]))
                nic_in.append(cb * (size[x.src] * cnt[x.dst][n] - same[i][n]))
        held = []
        if has_fixed:
            for c in range(n_c):
                fe = int(round(fixed[c, n] * FIXED_SCALE))
                if fe and size[c]:
                    p = m.NewIntVar(0, SCALE_TOP * 4 * size[c], f"p{c}_{n}")
                    m.AddMultiplicationEquality(p, [cnt[c][n], lim])
                    held.append(fe * p)
        if jvm:  # the node's one worker (decode puts its executors in its first slot)
            p = m.NewIntVar(0, SCALE_TOP * 4, f"w{n}")
            m.Add(p >= lim).OnlyEnforceIf(used[n])
            held.append(jvm * p)
        cores_n = int(round(float(coef.capacity_cores[n]) * FIXED_SCALE))
        m.Add(FIXED_SCALE * sum(load) + sum(held) <= lim * cores_n)
        if nic_out:
            m.Add(sum(nic_out) <= lim)
            m.Add(sum(nic_in) <= lim)
    m.Minimize(lim)
    if hint is not None:
        h = nodes.slot_node[np.asarray(hint)]
        start = np.array(
            [np.bincount(h[starts[c] : starts[c + 1]], minlength=n_n) for c in range(n_c)]
        )
        if symmetry and n_c:
            start = _canonical(start, scenario)
        for c in range(n_c):
            for n in range(n_n):
                m.AddHint(cnt[c][n], int(start[c][n]))
        lim_ub = start_load(m, cnt, start, lim)
        if lim_ub is not None:
            q_c = [q(arrival[c] * float(service[c].min())) for c in range(n_c)]
            saving = [[cs[i] + cd[i], x.src, x.dst] for i, x in enumerate(fl)]
            cut_savings(m, lim, lim_ub, cnt, same, saving, q_c, coef.capacity_cores)

    def read(solver: cp_model.CpSolver) -> np.ndarray:
        counts = [[solver.Value(cnt[c][n]) for n in range(n_n)] for c in range(n_c)]
        return nodes.slot_start[decode(counts)].astype(np.int64)

    return run_model(m, time_limit_s, workers, scale, exact, "counts", read)


def analytic_bound(scenario: Scenario, ev: Evaluator) -> float:
    """An upper bound on R* (tuples/s) that holds for every placement of ``ev``.

    The serialisation bound of :mod:`core.search.cpsat_bounds` when the
    executors are interchangeable and no stream is local-or-shuffle, else its
    compute bound (valid for local-or-shuffle too).
    """
    coef = ev.coef
    table, service = coef.table, coef.service_s
    rates = model_rates(table)
    size = np.diff(table.comp_start)
    visits = np.bincount(table.exec_comp, rates.arrival, len(size))
    fed_locally = set(table.dst_comp[table.local].tolist())
    busiest = np.array(
        [
            0.0
            if not size[c]
            else visits[c] / size[c]
            if c in fed_locally
            else rates.arrival[table.comp_start[c] : table.comp_start[c + 1]].max()
            for c in range(len(size))
        ]
    )
    fl = flows(table, rates) if shuffle_exact(table) else None
    streams = None
    if fl is not None:
        streams = [
            (x.src, x.dst, t * coef.ser_s[x.k], t * coef.deser_s[x.k])
            for x in fl
            for t in [x.f * size[x.src] * size[x.dst]]
        ]
    low = least_load(visits, busiest, service, coef.capacity_cores, streams)
    return math.inf if low <= 0 else 1.0 / low


def run_model(m, time_limit_s, workers, scale, exact, model, read_slots) -> Solution:
    """Solve ``m`` (minimising L = ``scale`` / R*) and read its placement with ``read_slots``."""
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = float(time_limit_s)
    solver.parameters.num_search_workers = int(workers)
    code = solver.Solve(m)
    status = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible"}.get(code, "unknown")
    variables = len(m.Proto().variables)
    if status == "unknown":
        return Solution(None, status, math.inf, 0.0, solver.WallTime(), exact, variables, model)
    slots = read_slots(solver)
    best_l = solver.BestObjectiveBound()
    bound = math.inf if best_l <= 0 else scale / best_l
    value = solver.ObjectiveValue()
    model_rate = math.inf if value <= 0 else scale / value
    return Solution(slots, status, bound, model_rate, solver.WallTime(), exact, variables, model)


def decode(counts: list[list[int]]) -> np.ndarray:
    """Per-executor nodes: component by component, nodes in order of their counts."""
    out = [g for row in counts for g, k in enumerate(row) for _ in range(int(k))]
    return np.asarray(out, dtype=np.int64)


def _node_classes(scenario: Scenario) -> list[list[int]]:
    """Nodes with identical hardware (every field but the id), in listed order."""
    classes: dict[str, list[int]] = {}
    for n, node in enumerate(scenario.cluster.nodes):
        key = tuple(sorted(node.model_dump(exclude={"id"}).items(), key=lambda kv: kv[0]))
        classes.setdefault(repr(key), []).append(n)
    return list(classes.values())


def _break_symmetry(m: cp_model.CpModel, scenario: Scenario, first) -> None:
    """Nodes with identical hardware ordered by the first component's count."""
    for members in _node_classes(scenario):
        for a, b in zip(members, members[1:], strict=False):
            m.Add(first[a] >= first[b])


def _canonical(counts: np.ndarray, scenario: Scenario) -> np.ndarray:
    """``counts`` (component x node) with identical nodes swapped into the symmetry
    breaking's order (first component's count non-increasing): the same loads."""
    out = counts.copy()
    for members in _node_classes(scenario):
        order = sorted(members, key=lambda n: -counts[0, n])
        out[:, members] = counts[:, order]
    return out

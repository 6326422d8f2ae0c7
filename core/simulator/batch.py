"""Scores of many placements at once: :meth:`Evaluator.score` over the rows of a matrix.

A local search tries every target of one executor against the same current
placement; one numpy pass over all those candidates replaces as many Python
calls. Every row goes through the arithmetic of ``score`` in the same order:
bincounts with one block of bins per row (each bin sums its entries in the
same sequence), row-wise reductions, and the mean-field sweeps stopped row by
row where the single call would stop. So the scores are bit-for-bit those of
``score`` (``tests/simulator/test_batch.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.simulator.acking import AckHop, ack_return_s
from core.simulator.batching import mean_hop_waits_s
from core.simulator.coefficients import (
    CORE_FLOOR,
    Coefficients,
    UnitLoads,
    max_rate,
    pair_sums,
    peak_loads,
    unit_loads,
)
from core.simulator.contention import CONTENTION_TOL, MEAN_FIELD_SWEEPS
from core.simulator.costs import HopDelays
from core.simulator.placed_rates import placed_unit_rates_many, row_bincount, row_take
from core.simulator.results import RHO_CAP, Score


@dataclass(frozen=True, eq=False)
class PathModel:
    """What the latency estimate needs beyond the capacity coefficients, per Problem.

    Attributes
    ----------
    coef : Coefficients
        The capacity model (:mod:`core.simulator.coefficients`).
    delays : HopDelays
        Fixed delays per locality class, flush period, racks.
    ack : AckHop or None
        The acker's message back to the spout (:mod:`core.simulator.acking`).
    in_streams : tuple
        Per component (topological order), its input streams as (stream, source component).
    inv_visit : ndarray, shape (C,)
        1 / tuples each component processes per unit R (0 where none).
    src_spout : ndarray of bool, shape (S,)
        The stream's source is a spout.
    visit_total : float
        Tuples processed per unit R, all components together.
    cv2 : float
        Squared coefficient of variation of service times.
    rate : float
        The workload's offered rate, tuples/s (the default of ``rate``).
    """

    coef: Coefficients
    delays: HopDelays
    ack: AckHop | None
    in_streams: tuple[tuple[tuple[int, int], ...], ...]
    inv_visit: np.ndarray
    src_spout: np.ndarray
    visit_total: float
    cv2: float
    rate: float


def placed_rates(coef: Coefficients, slot_of: np.ndarray):
    """Arrival, sender output, local totals, per-target stream totals and stream totals
    of every row of ``slot_of`` (one row for all when no rate moves with the placement)."""
    if coef.static is not None:
        r = coef.static
        return r.arrival, r.src_out, r.local_total, coef.o_tot, coef.total
    plan = coef.plan
    arrival, src_out, out_total, local_total = placed_unit_rates_many(plan, slot_of, coef.dims[1])
    o_tot = out_total[:, coef.table.tgt_sid]
    return arrival, src_out, local_total, o_tot, out_total * plan.weight_total + local_total


def score_many(model: PathModel, slots: np.ndarray, rate: float | None = None) -> list[Score]:
    """``[Evaluator.score(row, rate) for row in slots]`` in one pass; ``slots`` is (B, E)."""
    coef = model.coef
    t, nodes, n_n = coef.table, coef.nodes, coef.dims[2]
    slot_of = np.atleast_2d(np.asarray(slots, dtype=np.int64))
    n_rows = slot_of.shape[0]
    if n_rows == 0:
        return []
    arrival, src_out, local_total, o_tot, total = placed_rates(coef, slot_of)
    loads = unit_loads(coef, slot_of, arrival, src_out, local_total, o_tot)
    node_of, service, serdes, cpu = loads.node_of, loads.service, loads.serdes, loads.cpu
    peaks = peak_loads(coef, loads)
    rates = [
        max_rate(max(thread, node, link))
        for thread, node, link in zip(
            peaks.thread.tolist(), peaks.node.tolist(), peaks.nic.tolist(), strict=True
        )
    ]
    r0 = model.rate if rate is None else float(rate)
    r_eff = [min(r0, m) for m in rates]
    if not coef.has_fixed:
        cores = np.broadcast_to(coef.free_cores, (n_rows, n_n))
    else:
        cores = np.maximum(coef.capacity_cores - loads.fixed, CORE_FLOOR)
    r_col = np.array(r_eff)[:, None]
    stretch = _mean_field(r_col * cpu, node_of, cores)
    lam = r_col * arrival
    compute = service * stretch
    mean = compute + serdes * stretch
    rho = np.minimum(lam * mean, RHO_CAP)
    sojourn = mean + lam * (compute * compute * model.cv2 + mean * mean) / (2.0 * (1.0 - rho))
    n_c = len(model.in_streams)
    weighted = row_bincount(np.broadcast_to(t.exec_comp, sojourn.shape), arrival * sojourn, n_c)
    comp_s = weighted * model.inv_visit
    delay, flows = _hop_delays(model, loads, comp_s, src_out, local_total, total)
    path = np.zeros((n_rows, n_c))
    for c, ins in enumerate(model.in_streams):
        best = np.zeros(n_rows)
        for k, u in ins:
            cand = path[:, u] + delay[:, k]
            best = np.where(flows[:, k] & (cand > best), cand, best)
        path[:, c] = comp_s[:, c] + best
    if model.ack is not None:
        a = model.ack.component
        back = ack_return_s(model.ack, nodes, model.delays, slot_of, node_of, comp_s[:, a])
        path[:, a] = path[:, a] + back
    latency = (path.max(1) * 1e3).tolist()
    used = np.count_nonzero(row_bincount(node_of, None, n_n), axis=1).tolist()
    return [
        Score(
            throughput=r * model.visit_total,
            max_rate=m,
            latency_estimate_ms=lat_ms,
            nodes_used=n,
        )
        for r, m, lat_ms, n in zip(r_eff, rates, latency, used, strict=True)
    ]


def _hop_delays(
    model: PathModel,
    loads: UnitLoads,
    comp_s: np.ndarray,
    src_out: np.ndarray,
    local_total: np.ndarray,
    total: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Mean transfer delay of every stream, s, and whether it carries tuples, (B, S)."""
    t, delays = model.coef.table, model.delays
    lat = delays.class_s
    sw, sn = loads.same_worker, loads.same_node
    total = np.broadcast_to(total, sw.shape)
    sr = _same_rack(model, loads.node_of, src_out, local_total) if delays.racks > 1 else sn
    delay_sum = (
        sw * lat[0] + (sn - sw) * lat[1] + (sr - sn) * lat[2] + (total - sr) * lat[3] + loads.wire
    )
    delay = delay_sum / np.where(total > 0, total, 1.0)
    if delays.flush_s > 0:
        share = 1.0 - sw / np.where(total > 0, total, 1.0)
        waits = mean_hop_waits_s(delays.flush_s, comp_s[:, t.src_comp], model.src_spout, share)
        delay = delay + waits
    return delay, total > 0


def _mean_field(demand: np.ndarray, node_of: np.ndarray, cores: np.ndarray) -> np.ndarray:
    """:func:`core.simulator.contention.mean_field_factors` of every row, (B, E).

    Each row's sweeps stop where that row's single call would stop.
    """
    n_n = cores.shape[1]
    count = row_bincount(node_of, None, n_n)
    crowded = count > cores
    result = np.ones(demand.shape)
    rows = np.flatnonzero(crowded.any(1))
    if rows.size == 0:
        return result
    d, where, cnt = demand[rows], node_of[rows], count[rows]
    c = row_take(cores[rows], where)
    c_a = c + d
    s = row_bincount(where, d / c_a, n_n)
    total = row_take(np.where(s < 1.0, s / np.maximum(1.0 - s, 1e-12), cnt), where)
    u = np.minimum(1.0, d * (1.0 + total) / c_a)
    stretched = row_take(crowded[rows], where)
    f = np.where(stretched, np.maximum(1.0, (1.0 + total - u) / c), 1.0)
    out = np.empty_like(f)
    active = np.arange(len(rows))
    # the rows still sweeping, compacted only when some stop; each node's bins per row
    bins = where + (np.arange(len(rows)) * n_n)[:, None]
    for _ in range(MEAN_FIELD_SWEEPS):
        u = np.minimum(1.0, d * f)
        total = np.bincount(bins.ravel(), u.ravel(), len(bins) * n_n).take(bins)
        new = np.maximum(1.0, (1.0 + total - u) / c)
        done = np.max(np.abs(new - f), axis=1) <= CONTENTION_TOL
        f = new
        if done.any():
            out[active[done]] = new[done]
            going = ~done
            active, d, c, f = active[going], d[going], c[going], f[going]
            if active.size == 0:
                break
            bins = where[active] + (np.arange(active.size) * n_n)[:, None]
    out[active] = f
    result[rows] = out
    return result


def _same_rack(model: PathModel, node_of, src_out, local_total) -> np.ndarray:
    """Tuples per unit R of every stream that stay inside one rack, (B, S)."""
    t, n_r, coef = model.coef.table, model.delays.racks, model.coef
    rack = coef.nodes.rack[node_of]
    src_r, tgt_r = t.src_sid * n_r, t.tgt_sid * n_r
    src, tgt = src_r + rack[:, t.src_ex], tgt_r + rack[:, t.tgt_ex]
    return pair_sums(src, src_out, tgt, t.tgt_w, len(t.streams), n_r)[0] + local_total

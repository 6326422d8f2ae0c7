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

import math
from typing import Any

import numpy as np

from core.simulator.acking import ack_return_s
from core.simulator.batching import mean_hop_waits_s
from core.simulator.contention import CONTENTION_TOL, MEAN_FIELD_SWEEPS
from core.simulator.costs import BITS_PER_BYTE
from core.simulator.placed_rates import placed_unit_rates_many, row_bincount, row_take
from core.simulator.results import CORE_FLOOR, RHO_CAP, Score, node_cpu_load

# The scorer is a core.simulator.capacity.Evaluator, which imports this module.
Evaluator = Any


def _rates(ev: Evaluator, slot_of: np.ndarray):
    """Arrival, sender output and stream totals per row (broadcastable when static)."""
    if ev._static is not None:
        r = ev._static
        return r.arrival, r.src_out, r.out_total, r.local_total, ev._totals[1], ev._total
    arrival, src_out, out_total, local_total = placed_unit_rates_many(
        ev._plan, slot_of, ev._dims[1]
    )
    return (
        arrival,
        src_out,
        out_total,
        local_total,
        out_total[:, ev.table.tgt_sid],
        out_total * ev._plan.weight_total + local_total,
    )


def score_many(ev: Evaluator, slots: np.ndarray, rate: float | None = None) -> list[Score]:
    """``[ev.score(row, rate) for row in slots]`` in one pass; ``slots`` is (B, E)."""
    t, nodes = ev.table, ev.nodes
    n_s, n_g, n_n = ev._dims
    slot_of = np.atleast_2d(np.asarray(slots, dtype=np.int64))
    n_rows = slot_of.shape[0]
    if n_rows == 0:
        return []
    node_of = nodes.slot_node[slot_of]
    arrival, src_out, out_total, local_total, o_tot, total = _rates(ev, slot_of)
    w_tot = ev._totals[0] if ev._static is not None else ev._w_tot
    ks = ev._src_g + slot_of[:, t.src_ex]
    kt = ev._tgt_g + slot_of[:, t.tgt_ex]
    nsrc, ntgt = node_of[:, t.src_ex], node_of[:, t.tgt_ex]
    ns, nt = ev._src_n + nsrc, ev._tgt_n + ntgt
    out_g = row_bincount(ks, src_out, n_s * n_g)
    w_g = row_bincount(kt, t.tgt_w, n_s * n_g)
    out_n = row_bincount(ns, src_out, n_s * n_n)
    w_n = row_bincount(nt, t.tgt_w, n_s * n_n)
    same_worker = (out_g * w_g).reshape(n_rows, n_s, n_g).sum(2) + local_total
    same_node = (out_n * w_n).reshape(n_rows, n_s, n_n).sum(2) + local_total
    ser = src_out * (w_tot - row_take(w_g, ks)) * ev._ser_i
    deser = t.tgt_w * (o_tot - row_take(out_g, kt)) * ev._deser_j
    send_n = src_out * (w_tot - row_take(w_n, ns))
    recv_n = t.tgt_w * (o_tot - row_take(out_n, nt))
    service = ev.service_s[t.exec_comp[None, :], node_of]
    n_e = slot_of.shape[1]
    serdes = row_bincount(
        np.broadcast_to(ev._both_ex, (n_rows, len(ev._both_ex))),
        np.concatenate([ser, deser], axis=1),
        n_e,
    )
    cpu = arrival * service + serdes
    busy = arrival > 0
    serdes = np.where(busy, serdes / np.where(busy, arrival, 1.0), 0.0)
    node_cpu = row_bincount(node_of, cpu, n_n)
    if ev._fixed is not None:
        fixed = row_bincount(node_of, ev._fixed[t.exec_comp[None, :], node_of], n_n)
    else:
        fixed = np.zeros((n_rows, n_n))
    if ev._worker_cores > 0:
        in_use = row_bincount(slot_of, None, n_g) > 0
        fixed = fixed + ev._worker_cores * row_bincount(
            np.broadcast_to(nodes.slot_node, in_use.shape), in_use, n_n
        )
    nic_out = row_bincount(nsrc, send_n * ev._bytes_i, n_n)
    nic_in = row_bincount(ntgt, recv_n * ev._bytes_j, n_n)
    nic = np.maximum(nic_out, nic_in) * BITS_PER_BYTE / nodes.nic_bits_per_s
    wire = row_bincount(
        np.broadcast_to(t.src_sid, nsrc.shape),
        send_n * ev._bytes_i * BITS_PER_BYTE / nodes.nic_bits_per_s[nsrc],
        n_s,
    )
    max_rate = _max_rates(ev, cpu, node_cpu, fixed, nic)
    r0 = ev.scenario.workload.rate if rate is None else float(rate)
    r_eff = [min(r0, m) for m in max_rate]
    if not ev._has_fixed:
        cores = np.broadcast_to(ev._free_cores, (n_rows, n_n))
    else:
        cores = np.maximum(nodes.cores - fixed, CORE_FLOOR)
    r_col = np.array(r_eff)[:, None]
    stretch = _mean_field(r_col * cpu, node_of, cores)
    lam = r_col * arrival
    compute = service * stretch
    mean = compute + serdes * stretch
    rho = np.minimum(lam * mean, RHO_CAP)
    sojourn = mean + lam * (compute * compute * ev._cv2 + mean * mean) / (2.0 * (1.0 - rho))
    n_c = len(ev._in)
    weighted = row_bincount(np.broadcast_to(t.exec_comp, sojourn.shape), arrival * sojourn, n_c)
    comp_s = weighted * ev._inv_visit
    sw, sn = same_worker, same_node
    total = np.broadcast_to(total, sw.shape)
    sr = _same_rack(ev, node_of, src_out, local_total) if ev._racks > 1 else sn
    lat = ev._class_s
    delay_sum = sw * lat[0] + (sn - sw) * lat[1] + (sr - sn) * lat[2] + (total - sr) * lat[3] + wire
    delay = delay_sum / np.where(total > 0, total, 1.0)
    if ev._flush_s > 0:
        share = 1.0 - sw / np.where(total > 0, total, 1.0)
        delay = delay + mean_hop_waits_s(ev._flush_s, comp_s[:, t.src_comp], ev._src_spout, share)
    flows = total > 0
    path = np.zeros((n_rows, n_c))
    for c, ins in enumerate(ev._in):
        best = np.zeros(n_rows)
        for k, u in ins:
            cand = path[:, u] + delay[:, k]
            best = np.where(flows[:, k] & (cand > best), cand, best)
        path[:, c] = comp_s[:, c] + best
    if ev._ack is not None:
        a = ev._ack.component
        path[:, a] = path[:, a] + ack_return_s(ev, slot_of, node_of, comp_s[:, a])
    latency = (path.max(1) * 1e3).tolist()
    used = np.count_nonzero(row_bincount(node_of, None, n_n), axis=1).tolist()
    return [
        Score(
            throughput=r * ev._visit_total,
            max_rate=m,
            latency_estimate_ms=lat_ms,
            nodes_used=n,
        )
        for r, m, lat_ms, n in zip(r_eff, max_rate, latency, used, strict=True)
    ]


def _max_rates(ev: Evaluator, cpu, node_cpu, fixed, nic) -> list[float]:
    """R* of every row, as :meth:`Evaluator._bounds` (the first of equal loads wins)."""
    node_load = node_cpu_load(node_cpu, ev.nodes.cores - fixed, ev._has_fixed)
    rows = np.arange(cpu.shape[0])
    peaks = zip(
        cpu[rows, cpu.argmax(1)].tolist(),
        node_load[rows, node_load.argmax(1)].tolist(),
        nic[rows, nic.argmax(1)].tolist(),
        strict=True,
    )
    out = []
    for thread, node, link in peaks:
        load = thread
        if node > load:
            load = node
        if link > load:
            load = link
        out.append(math.inf if load <= 0 else (0.0 if math.isinf(load) else 1.0 / load))
    return out


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


def _same_rack(ev: Evaluator, node_of, src_out, local_total) -> np.ndarray:
    """Tuples per unit R of every stream that stay inside one rack, (B, S)."""
    t, n_r = ev.table, ev._racks
    rack = ev.nodes.rack[node_of]
    out_r = row_bincount(ev._src_r + rack[:, t.src_ex], src_out, len(t.streams) * n_r)
    w_r = row_bincount(ev._tgt_r + rack[:, t.tgt_ex], t.tgt_w, len(t.streams) * n_r)
    return (out_r * w_r).reshape(node_of.shape[0], -1, n_r).sum(2) + local_total

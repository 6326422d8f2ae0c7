"""Per-unit rates of one placement, fast: the loop of :func:`rates.unit_rates` unrolled once.

A search scores thousands of placements of one topology; with a
local-or-shuffle stream every placement has its own rates
(:func:`core.simulator.rates.unit_rates`). A :class:`RatePlan` does that
function's per-topology work once (slices, multipliers, weights as plain
Python values) and :func:`placed_unit_rates` then runs only the arithmetic,
in the same order, so its results are bit-for-bit those of ``unit_rates``
(``tests/simulator/test_placed_rates.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.simulator.rates import StreamTable, UnitRates

# (stream, source executors lo..hi, multiplier, local-or-shuffle, target weights, entries lo..hi)
_sum = np.add.reduce  # ndarray.sum without its Python wrapper: the same pairwise sum

InStream = tuple[int, int, int, float, bool, np.ndarray, int, int]


@dataclass(frozen=True, eq=False)
class RatePlan:
    """A stream table's rate recurrence as plain values, component by component."""

    spout_share: np.ndarray  # (E,)
    steps: tuple[tuple[int, int, tuple[InStream, ...]], ...]  # executors lo..hi, in-streams
    n_entries: int
    n_streams: int
    weight_total: np.ndarray  # (S,)
    spill: np.ndarray  # (S,) bool: Storm 2's shuffle (its kept share may be below 1)


def rate_plan(table: StreamTable) -> RatePlan:
    """The placement-independent part of :func:`rates.unit_rates` for ``table``."""
    start = table.comp_start.tolist()
    src_start = table.src_start.tolist()
    steps = []
    for d in range(len(start) - 1):
        ins = []
        for k in table.in_streams[d]:
            u = int(table.src_comp[k])
            ins.append(
                (
                    k,
                    start[u],
                    start[u + 1],
                    table.multiplier[k],
                    bool(table.local[k]),
                    table.weights[k],
                    src_start[k],
                    src_start[k + 1],
                )
            )
        steps.append((start[d], start[d + 1], tuple(ins)))
    return RatePlan(
        spout_share=table.spout_share,
        steps=tuple(steps),
        n_entries=len(table.src_ex),
        n_streams=len(table.streams),
        weight_total=np.array([w.sum() for w in table.weights]),
        spill=table.spill,
    )


def placed_unit_rates(
    plan: RatePlan, worker_of: np.ndarray, workers: int, keep: np.ndarray | None = None
) -> UnitRates:
    """:func:`rates.unit_rates` of ``plan``'s table with executors in ``worker_of``.

    ``workers`` is above every label in ``worker_of`` (e.g. the cluster's slots);
    ``keep`` (S, workers): Storm 2's shuffle's kept share per sender worker.
    """
    lam = plan.spout_share.copy()
    src_out = np.zeros(plan.n_entries)
    out_total = np.zeros(plan.n_streams)
    local_total = np.zeros(plan.n_streams)
    for d_lo, d_hi, ins in plan.steps:
        lam_d = lam[d_lo:d_hi]
        wd = None
        for k, u_lo, u_hi, mult, local, weights, s_lo, s_hi in ins:
            out = lam[u_lo:u_hi] * mult
            if local:
                if wd is None:
                    wd = worker_of[d_lo:d_hi]
                    count = np.bincount(wd, minlength=workers)
                    count_d = count[wd]
                wu = worker_of[u_lo:u_hi]
                share = out * keep[k][wu] if keep is not None and plan.spill[k] else out
                kept = np.where(count[wu] > 0, share, 0.0)
                mass = np.bincount(wu, weights=kept, minlength=workers)
                local_total[k] = _sum(kept)
                out = out - kept
                lam_d += mass[wd] / count_d
            total = _sum(out)
            lam_d += total * weights
            src_out[s_lo:s_hi] = out
            out_total[k] = total
    return UnitRates(lam, src_out, out_total, plan.weight_total, local_total, keep)


def row_bincount(keys: np.ndarray, weights: np.ndarray | None, bins: int) -> np.ndarray:
    """Row-wise ``np.bincount(keys[b], weights[b], bins)``, shape (B, bins).

    One ``bincount`` over the rows laid end to end, each row with its own block
    of bins, so every bin sums its entries in the order one row's call does.
    ``weights`` may be one row for all (broadcast).
    """
    n_rows = keys.shape[0]
    if n_rows == 1 and (weights is None or weights.ndim == 1 or weights.shape[0] == 1):
        w = None if weights is None else (weights if weights.ndim == 1 else weights[0])
        return np.bincount(keys[0], w, bins)[None, :]
    flat = (keys + (np.arange(n_rows) * bins)[:, None]).ravel()
    w = weights
    if w is not None:
        w = (w if w.shape == keys.shape else np.broadcast_to(w, keys.shape)).ravel()
    return np.bincount(flat, w, n_rows * bins).reshape(n_rows, bins)


def row_take(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Row-wise ``values[b, index[b]]``, as ``np.take_along_axis(values, index, 1)``
    (a third of its time on the search's small batches: one flat ``take``)."""
    n_rows, width = values.shape
    if n_rows == 1:
        return values[0].take(index)
    return values.ravel().take(index + (np.arange(n_rows) * width)[:, None])


def placed_unit_rates_many(
    plan: RatePlan, worker_of: np.ndarray, workers: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`placed_unit_rates` of every row of ``worker_of`` (B, E) in one pass.

    Returns ``(arrival, src_out, out_total, local_total)`` with one row per
    placement. The same arithmetic in the same order, row by row (row-wise sums
    are the pairwise sums of each row), so every row is bit-for-bit
    ``placed_unit_rates`` of that row (``tests/simulator/test_placed_rates.py``).
    """
    n_rows = worker_of.shape[0]
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
                    wd = worker_of[:, d_lo:d_hi]
                    count = row_bincount(wd, None, workers)
                    count_d = row_take(count, wd)
                wu = worker_of[:, u_lo:u_hi]
                kept = np.where(row_take(count, wu) > 0, out, 0.0)
                mass = row_bincount(wu, kept, workers)
                local_total[:, k] = _sum(kept, axis=1)
                out = out - kept
                lam_d += row_take(mass, wd) / count_d
            total = _sum(out, axis=1)
            lam_d += total[:, None] * weights
            src_out[:, s_lo:s_hi] = out
            out_total[:, k] = total
    return lam, src_out, out_total, local_total

"""The heaviest executor-to-executor flows without building all of them.

:func:`core.simulator.rates.executor_flows` with ``limit`` builds and sorts
every non-zero flow to keep the ``limit`` heaviest: 10^8 pairs (2.4 GB) on
two components of 10,000 executors. :func:`heaviest_flows` returns the same
list (the flows above the ``limit``-th largest rate, then as many of those
equal to it as fit, first in stream order, all in stream order;
``tests/simulator/test_flows.py``) from a few candidates per stream, so its
memory grows with ``limit`` and the executors, never with their product:

- a stream's rank-one part, out[i] x w[j]: with senders and receivers sorted
  by rate (stable), the cell of ranks (a, b) is preceded, in the order
  (larger rate, then stream order), by every cell of ranks (a', b') <= (a, b),
  so it is among the ``limit`` heaviest only when (a + 1)(b + 1) <= limit;
- a local-or-shuffle sender that keeps its tuples in its worker sends one
  equal share to each receiver there: its cells are preceded by every cell
  of the senders ranked above it, so the candidates are the first cells of
  the senders in rank order until ``limit`` are taken. Under Storm 2's
  shuffle a sender keeps a share and spills the rest: a pair's two parts are
  summed into one flow (its candidates as above, so past ``limit`` flows a
  pair's sum may rank lower than exactly).
"""

from __future__ import annotations

import numpy as np

from core.simulator.rates import StreamTable, kept_share, unit_rates


def _rank_one(out: np.ndarray, weights: np.ndarray, limit: int):
    """Candidate cells (i, j, out[i] * w[j]) of an outer product's ``limit`` heaviest."""
    rows, cols = np.flatnonzero(out), np.flatnonzero(weights)
    rows = rows[np.argsort(-out[rows], kind="stable")][:limit]
    cols = cols[np.argsort(-weights[cols], kind="stable")]
    per_row = np.minimum(len(cols), limit // np.arange(1, len(rows) + 1))
    i = np.repeat(rows, per_row)
    first = np.repeat(np.cumsum(per_row) - per_row, per_row)
    j = cols[np.arange(len(i)) - first]
    return i, j, out[i] * weights[j]


def _local(share: np.ndarray, worker_u: np.ndarray, worker_d: np.ndarray, limit: int):
    """Candidate cells of the in-worker part: sender i sends ``share[i]`` to each receiver
    in its worker; the first ``limit`` cells in (larger share, stream order)."""
    order = np.argsort(worker_d, kind="stable")
    count = np.bincount(worker_d, minlength=int(max(worker_u.max(), worker_d.max())) + 1)
    begin = np.concatenate([[0], np.cumsum(count)])
    senders = np.flatnonzero((share > 0) & (count[worker_u] > 0))
    senders = senders[np.argsort(-share[senders], kind="stable")]
    taken = np.minimum(count[worker_u[senders]], limit)
    keep = np.cumsum(taken) - taken < limit  # senders that still add a cell
    senders, taken = senders[keep], taken[keep]
    i = np.repeat(senders, taken)
    first = np.repeat(np.cumsum(taken) - taken, taken)
    j = order[begin[worker_u[i]] + np.arange(len(i)) - first]
    return i, j, share[i]


def _select(u: np.ndarray, v: np.ndarray, r: np.ndarray, limit: int):
    """The ``limit`` heaviest of flows in stream order (ties: the first), in stream order."""
    if len(r) <= limit:
        return u, v, r
    kth = np.partition(r, len(r) - limit)[len(r) - limit]  # the limit-th largest rate
    above = np.flatnonzero(r > kth)
    ties = np.flatnonzero(r == kth)[: limit - len(above)]
    keep = np.sort(np.concatenate([above, ties]))
    return u[keep], v[keep], r[keep]


def heaviest_flows(
    table: StreamTable,
    worker_of: np.ndarray | None,
    rate: float,
    limit: int,
    keep: np.ndarray | None = None,
) -> list[tuple[str, str, float]]:
    """``executor_flows(table, worker_of, rate, limit, keep)`` from O(limit log limit)
    candidates per stream (see the module docstring)."""
    rates = unit_rates(table, worker_of, keep)
    start = table.comp_start
    kept = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
    for k in range(len(table.streams)):
        u0, d0 = start[table.src_comp[k]], start[table.dst_comp[k]]
        u1, d1 = start[table.src_comp[k] + 1], start[table.dst_comp[k] + 1]
        out = rates.src_out[table.src_start[k] : table.src_start[k + 1]] * rate
        i, j, r = _rank_one(out, table.weights[k], limit)
        if table.local[k]:
            lam_u = rates.arrival[u0:u1] * table.multiplier[k] * rate
            wu, wd = worker_of[u0:u1], worker_of[d0:d1]
            if table.spill[k]:
                lam_u = lam_u * kept_share(keep, k, wu)
            count = np.bincount(wd, minlength=int(max(wu.max(), wd.max())) + 1)[wu]
            li, lj, lr = _local(lam_u / np.maximum(count, 1), wu, wd, limit)
            i, j, r = np.concatenate([i, li]), np.concatenate([j, lj]), np.concatenate([r, lr])
            if table.spill[k]:  # a sender keeps a share and spills the rest: one flow a pair
                cells, at = np.unique(i * (d1 - d0) + j, return_inverse=True)
                i, j, r = cells // (d1 - d0), cells % (d1 - d0), np.bincount(at, r, len(cells))
        nonzero = r != 0  # products that underflow to 0 are no flow
        i, j, r = i[nonzero], j[nonzero], r[nonzero]
        cells = np.argsort(i * (d1 - d0) + j, kind="stable")  # stream order: row by row
        kept = _select(
            np.concatenate([kept[0], i[cells] + u0]),
            np.concatenate([kept[1], j[cells] + d0]),
            np.concatenate([kept[2], r[cells]]),
            limit,
        )
    names = table.executors
    u, v, r = kept
    return [
        (names[a], names[b], c) for a, b, c in zip(u.tolist(), v.tolist(), r.tolist(), strict=True)
    ]

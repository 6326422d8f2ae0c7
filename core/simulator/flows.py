"""The heaviest executor-to-executor flows without sorting all of them.

:func:`core.simulator.rates.executor_flows` with ``limit`` sorts every
non-zero flow to keep the ``limit`` heaviest: 10^7 pairs on a
10,000-executor topology, seconds of a ``observe`` call.
:func:`heaviest_flows` selects them with one partition (linear time) and
returns the same list: the flows above the ``limit``-th largest rate, then
as many of those equal to it as fit, first in stream order, all in stream
order (``tests/simulator/test_flows.py``).
"""

from __future__ import annotations

import numpy as np

from core.simulator.rates import StreamTable, unit_rates


def heaviest_flows(
    table: StreamTable, worker_of: np.ndarray | None, rate: float, limit: int
) -> list[tuple[str, str, float]]:
    """``executor_flows(table, worker_of, rate, limit)``, selected in linear time."""
    everything = _flow_arrays(table, worker_of, rate)
    if everything is None:
        return []
    u, v, r = everything
    if len(r) > limit:
        kth = np.partition(r, len(r) - limit)[len(r) - limit]  # the limit-th largest rate
        above = np.flatnonzero(r > kth)
        ties = np.flatnonzero(r == kth)[: limit - len(above)]
        keep = np.sort(np.concatenate([above, ties]))
        u, v, r = u[keep], v[keep], r[keep]
    names = table.executors
    return [
        (names[a], names[b], c) for a, b, c in zip(u.tolist(), v.tolist(), r.tolist(), strict=True)
    ]


def _flow_arrays(table: StreamTable, worker_of: np.ndarray | None, rate: float):
    """Sender, receiver and tuples/s of every non-zero flow, stream by stream.

    The arrays :func:`core.simulator.rates.executor_flows` builds, built the same way.
    """
    rates = unit_rates(table, worker_of)
    start = table.comp_start
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    val: list[np.ndarray] = []
    for k in range(len(table.streams)):
        us = range(start[table.src_comp[k]], start[table.src_comp[k] + 1])
        ds = range(start[table.dst_comp[k]], start[table.dst_comp[k] + 1])
        out = rates.src_out[table.src_start[k] : table.src_start[k + 1]] * rate
        pair = np.outer(out, table.weights[k])
        if table.local[k]:
            lam_u = rates.arrival[us.start : us.stop] * table.multiplier[k] * rate
            wu, wd = worker_of[us.start : us.stop], worker_of[ds.start : ds.stop]
            same = wu[:, None] == wd[None, :]
            count = same.sum(axis=1, keepdims=True)
            pair += np.where(same, lam_u[:, None] / np.maximum(count, 1), 0.0)
        i, j = np.nonzero(pair)
        src.append(i + us.start)
        dst.append(j + ds.start)
        val.append(pair[i, j])
    if not val:
        return None
    return np.concatenate(src), np.concatenate(dst), np.concatenate(val)

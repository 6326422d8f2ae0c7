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

from core.simulator.rates import StreamTable, flow_arrays


def heaviest_flows(
    table: StreamTable, worker_of: np.ndarray | None, rate: float, limit: int
) -> list[tuple[str, str, float]]:
    """``executor_flows(table, worker_of, rate, limit)``, selected in linear time."""
    everything = flow_arrays(table, worker_of, rate)
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

"""FIFO single servers in closed form: the Lindley recursion with numpy.

D_n = max(A_n, D_(n-1)) + S_n is, with C the cumulative service,
D = C + running max of (A - C_prev): one sort, one cumulative sum and one
``np.maximum.accumulate`` per server, no Python loop over tuples.
"""

from __future__ import annotations

import numpy as np


def fifo_departures(
    arrival: np.ndarray,
    service: np.ndarray,
    server: np.ndarray,
    servers: int,
    free_s: np.ndarray | None = None,
) -> np.ndarray:
    """Departure times of FIFO single servers, in the input's order.

    Each server serves its tuples by arrival time, ties in input order,
    starting no earlier than ``free_s[server]`` (default: idle from -inf).

    Examples
    --------
    >>> fifo_departures(np.array([0.0, 1.0, 1.5]), np.array([2.0, 1.0, 1.0]),
    ...                 np.array([0, 0, 1]), 2).tolist()
    [2.0, 3.0, 2.5]
    """
    if servers > 1:
        # a radix sort by server (stable), then by time within each server
        by_server = np.argsort(
            server.astype(np.int16 if servers < 2**15 else np.int64), kind="stable"
        )
        bounds = np.cumsum(np.bincount(server, minlength=servers)).tolist()
    else:
        by_server, bounds = None, [len(arrival)]
    out = np.empty_like(arrival)
    lo = 0
    for k, hi in enumerate(bounds):
        if hi > lo:
            idx = slice(lo, hi) if by_server is None else by_server[lo:hi]
            a = arrival[idx]
            order = np.argsort(a, kind="stable")
            a, s = a[order], service[idx][order]
            if free_s is not None:
                a[0] = max(a[0], free_s[k])
            cum = np.cumsum(s)
            a[1:] -= cum[:-1]
            np.maximum.accumulate(a, out=a)
            a += cum
            out[order if by_server is None else idx[order]] = a
        lo = hi
    return out

"""Rates: visit ratios, per-executor arrival rates, executor-to-executor flows.

Every rate here is *per unit of offered rate*: multiply by R, the offered
rate of each spout component in tuples/s. A spout component's R is shared
evenly by its executors. A stream carries ``selectivity`` tuples per tuple
its source processes; a stream into Storm's acker (``__acker``) carries one
ack per tuple processed (the spout's "init" message included), whatever the
selectivity. How a stream's tuples split over the target's executors:

- ``shuffle``: evenly, 1/p each (Storm 0.x/1.x); under Storm 2
  (``graph.locality_first``) like local-or-shuffle, each sender worker keeping
  a share ``keep[k, w]`` (1 below saturation, :mod:`core.simulator.spill`) and
  spreading the rest evenly;
- ``fields``: the Zipf(``key_skew``) mass of the ``keys`` keys that hash to
  each executor (a fixed 64-bit mix of the key index, modulo p, standing for
  Storm's ``hashCode mod p``); acks are keyed by random 64-bit tuple ids, so
  an acker stream splits evenly;
- ``local-or-shuffle``: evenly over the target's executors in the sender's
  own worker when it has any, else evenly over all of them (depends on the
  placement: pass ``worker_of``);
- ``all``: every executor receives every tuple;
- ``global``: executor 0 (Storm's lowest task id) receives everything.

A stream's flows are a rank-one product ``out[u] x weight[d]`` except for
local-or-shuffle, which is split into a local part (in-worker only) and a
remote part (rank one, even weights).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from core.model import ACKER_ID, Stream
from core.topology import TopologyGraph

# splitmix64 constants (Steele, Lea, Flood, OOPSLA 2014): a fixed, portable
# integer mix standing for Java's hashCode of a field value.
_MIX_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


def is_ack_stream(stream: Stream) -> bool:
    """True for the streams Storm wires from every component to ``__acker``."""
    return stream.target == ACKER_ID


def stream_multiplier(graph: TopologyGraph, stream: Stream) -> float:
    """Tuples sent on ``stream`` per tuple its source processes.

    The source's selectivity, or on an acker stream one ack per tuple
    processed when the spouts are reliable, else none.
    """
    if is_ack_stream(stream):
        return 1.0 if graph.reliable_spouts else 0.0
    return graph.components[stream.source].selectivity


def stream_bytes(graph: TopologyGraph, stream: Stream) -> int:
    """Bytes per tuple on ``stream``: the source's tuple size, or an ack's size."""
    if is_ack_stream(stream):
        return graph.components[ACKER_ID].tuple_bytes
    return graph.components[stream.source].tuple_bytes


def worker_first(graph: TopologyGraph, stream: Stream) -> bool:
    """True when a sender keeps the stream's tuples in its own worker when it holds targets.

    ``local-or-shuffle`` always; ``shuffle`` under Storm 2's locality-first
    shuffle (``graph.locality_first``, :func:`core.topology.locality_first_shuffle`).
    """
    if stream.grouping == "local-or-shuffle":
        return True
    return stream.grouping == "shuffle" and graph.locality_first


def visit_ratios(graph: TopologyGraph) -> dict[str, float]:
    """Tuples each component processes per unit of offered rate.

    Examples
    --------
    >>> from core.model import validate_scenario
    >>> from core.topology import build_graph
    >>> sc = validate_scenario({"topology": {"components": [
    ...     {"id": "spout", "parallelism": 1},
    ...     {"id": "split", "parallelism": 2, "selectivity": 10},
    ...     {"id": "count", "parallelism": 3, "selectivity": 0}],
    ...     "streams": [{"from": "spout", "to": "split"},
    ...                 {"from": "split", "to": "count", "grouping": "fields"}]},
    ...     "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 1}]}})
    >>> visit_ratios(build_graph(sc))
    {'spout': 1.0, 'split': 1.0, 'count': 10.0}
    """
    visits: dict[str, float] = {}
    for c in graph.order:
        if not graph.preds[c]:
            visits[c] = 1.0
            continue
        total = 0.0
        for u in graph.preds[c]:
            s = graph.stream(u, c)
            copies = graph.parallelism[c] if s.grouping == "all" else 1
            total += visits[u] * stream_multiplier(graph, s) * copies
        visits[c] = total
    return visits


def zipf_weights(keys: int, skew: float) -> np.ndarray:
    """Popularity of keys 0..keys-1: proportional to (k + 1) ** -skew, summing to 1."""
    w = np.arange(1, keys + 1, dtype=float) ** -float(skew)
    return w / w.sum()


def key_executor(keys: int, parallelism: int) -> np.ndarray:
    """The executor index (0..p-1) each key 0..keys-1 hashes to.

    Examples
    --------
    >>> key_executor(6, 3).tolist()
    [1, 2, 1, 0, 1, 2]
    """
    z = np.arange(keys, dtype=np.uint64) + _MIX_GAMMA
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(parallelism)).astype(np.int64)


def target_weights(graph: TopologyGraph, stream: Stream) -> np.ndarray:
    """Share of the stream's tuples each target executor receives (rank-one part).

    For local-or-shuffle this is the even fallback used by senders whose
    worker holds no target executor.
    """
    p = graph.parallelism[stream.target]
    if stream.grouping == "global":
        w = np.zeros(p)
        w[0] = 1.0
        return w
    if stream.grouping == "all":
        return np.ones(p)
    if stream.grouping == "fields" and not is_ack_stream(stream):
        ex = key_executor(stream.keys, p)
        return np.bincount(ex, weights=zipf_weights(stream.keys, stream.key_skew), minlength=p)
    return np.full(p, 1.0 / p)


@dataclass(frozen=True, eq=False)
class StreamTable:
    """The topology's streams and executors as flat arrays (built once).

    Executors are numbered in topological order (``graph.executors_topological``).
    Source entries list (stream, sending executor) pairs stream by stream;
    target entries (stream, receiving executor, weight) likewise.
    """

    graph: TopologyGraph
    executors: tuple[str, ...]
    exec_comp: np.ndarray  # (E,) position of the executor's component in graph.order
    comp_start: np.ndarray  # (C + 1,) first executor index of each component
    spout_share: np.ndarray  # (E,) 1/p for spout executors, else 0
    streams: tuple[Stream, ...]
    src_comp: np.ndarray  # (S,)
    dst_comp: np.ndarray  # (S,)
    multiplier: np.ndarray  # (S,) tuples per processed source tuple
    tuple_bytes: np.ndarray  # (S,) bytes per tuple
    local: np.ndarray  # (S,) bool: kept in the sender's worker when it holds targets
    spill: np.ndarray  # (S,) bool: Storm 2's shuffle, which spills what local targets can't take
    weights: tuple[np.ndarray, ...]  # per stream, one weight per target executor
    in_streams: tuple[tuple[int, ...], ...]  # per component, streams into it
    src_sid: np.ndarray  # (I,) source entries
    src_ex: np.ndarray
    src_start: np.ndarray  # (S + 1,) where each stream's source entries start
    tgt_sid: np.ndarray  # (J,) target entries
    tgt_ex: np.ndarray
    tgt_w: np.ndarray

    @property
    def has_local(self) -> bool:
        """True when some rate depends on the placement (local-or-shuffle)."""
        return bool(self.local.any())

    @property
    def has_spill(self) -> bool:
        """True when some rate also depends on the rate (Storm 2's shuffle)."""
        return bool(self.spill.any())


def stream_table(graph: TopologyGraph) -> StreamTable:
    """Flatten a topology graph into a :class:`StreamTable`."""
    pos = {c: i for i, c in enumerate(graph.order)}
    sizes = [graph.parallelism[c] for c in graph.order]
    comp_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    exec_comp = np.repeat(np.arange(len(sizes)), sizes)
    spout_share = np.zeros(int(comp_start[-1]))
    for c in graph.spouts:
        i = pos[c]
        spout_share[comp_start[i] : comp_start[i + 1]] = 1.0 / sizes[i]
    streams = tuple(sorted(graph.streams, key=lambda s: (pos[s.source], pos[s.target])))
    src_sid, src_ex, tgt_sid, tgt_ex, tgt_w, weights = [], [], [], [], [], []
    for k, s in enumerate(streams):
        u, d = pos[s.source], pos[s.target]
        src_sid.append(np.full(sizes[u], k))
        src_ex.append(np.arange(comp_start[u], comp_start[u + 1]))
        w = target_weights(graph, s)
        weights.append(w)
        tgt_sid.append(np.full(sizes[d], k))
        tgt_ex.append(np.arange(comp_start[d], comp_start[d + 1]))
        tgt_w.append(w)
    src_counts = [sizes[pos[s.source]] for s in streams]
    in_streams = tuple(
        tuple(k for k, s in enumerate(streams) if pos[s.target] == i) for i in range(len(sizes))
    )
    cat = np.concatenate
    return StreamTable(
        graph=graph,
        executors=tuple(graph.executors_topological()),
        exec_comp=exec_comp,
        comp_start=comp_start,
        spout_share=spout_share,
        streams=streams,
        src_comp=np.array([pos[s.source] for s in streams], dtype=np.int64),
        dst_comp=np.array([pos[s.target] for s in streams], dtype=np.int64),
        multiplier=np.array([stream_multiplier(graph, s) for s in streams], dtype=float),
        tuple_bytes=np.array([stream_bytes(graph, s) for s in streams], dtype=float),
        local=np.array([worker_first(graph, s) for s in streams], dtype=bool),
        spill=np.array([s.grouping == "shuffle" and graph.locality_first for s in streams], bool),
        weights=tuple(weights),
        in_streams=in_streams,
        src_sid=cat(src_sid).astype(np.int64) if streams else np.zeros(0, np.int64),
        src_ex=cat(src_ex).astype(np.int64) if streams else np.zeros(0, np.int64),
        src_start=np.concatenate([[0], np.cumsum(src_counts)]).astype(np.int64),
        tgt_sid=cat(tgt_sid).astype(np.int64) if streams else np.zeros(0, np.int64),
        tgt_ex=cat(tgt_ex).astype(np.int64) if streams else np.zeros(0, np.int64),
        tgt_w=cat(tgt_w).astype(float) if streams else np.zeros(0),
    )


@dataclass(frozen=True, eq=False)
class UnitRates:
    """Rates per unit of offered rate for one placement.

    ``src_out`` and ``out_total`` hold the rank-one (for local-or-shuffle:
    remote) part of each stream; ``local_total`` the part a local-or-shuffle
    stream keeps inside the sender's worker. ``keep``: for Storm 2's shuffle,
    the share of its tuples each sender worker keeps (``keep[k, w]``, the rest
    spread evenly over all targets); None when every such share is 1.
    """

    arrival: np.ndarray  # (E,) tuples each executor processes
    src_out: np.ndarray  # (I,) tuples each sender puts on the rank-one part
    out_total: np.ndarray  # (S,)
    weight_total: np.ndarray  # (S,)
    local_total: np.ndarray  # (S,)
    keep: np.ndarray | None = None  # (S, workers) kept share per sender worker


def kept_share(keep: np.ndarray | None, k: int, sender_worker: np.ndarray) -> np.ndarray | float:
    """The share of stream k's tuples each sender keeps in its worker (1 when ``keep`` is None)."""
    return 1.0 if keep is None else keep[k][sender_worker]


def unit_rates(
    table: StreamTable, worker_of: np.ndarray | None = None, keep: np.ndarray | None = None
) -> UnitRates:
    """Arrival rate of every executor and send rate of every stream entry.

    Parameters
    ----------
    table : StreamTable
    worker_of : ndarray of int, optional
        Worker number of every executor (any labels, equal = same worker);
        required when a stream is local-or-shuffle.
    keep : ndarray, shape (S, workers), optional
        Storm 2's shuffle: the share each sender worker keeps (``keep[k, w]``,
        read on spill streams only); default: all of it.
    """
    if table.has_local and worker_of is None:
        raise ValueError("local-or-shuffle rates depend on the placement: pass worker_of")
    lam = table.spout_share.copy()
    n_streams = len(table.streams)
    src_out = np.zeros(len(table.src_ex))
    out_total = np.zeros(n_streams)
    local_total = np.zeros(n_streams)
    workers = int(worker_of.max()) + 1 if worker_of is not None and len(worker_of) else 0
    start = table.comp_start
    for d in range(len(start) - 1):
        ds = slice(start[d], start[d + 1])
        for k in table.in_streams[d]:
            u = table.src_comp[k]
            out = lam[start[u] : start[u + 1]] * table.multiplier[k]
            if table.local[k]:
                wu, wd = worker_of[start[u] : start[u + 1]], worker_of[ds]
                count = np.bincount(wd, minlength=workers)
                share = out * keep[k][wu] if keep is not None and table.spill[k] else out
                kept = np.where(count[wu] > 0, share, 0.0)
                mass = np.bincount(wu, weights=kept, minlength=workers)
                local_total[k] = kept.sum()
                out = out - kept
                lam[ds] += mass[wd] / count[wd]
            lam[ds] += out.sum() * table.weights[k]
            src_out[table.src_start[k] : table.src_start[k + 1]] = out
            out_total[k] = out.sum()
    weight_total = np.array([w.sum() for w in table.weights])
    return UnitRates(lam, src_out, out_total, weight_total, local_total, keep)


def executor_rates(
    graph: TopologyGraph, placement: Mapping[str, object] | None = None
) -> dict[str, float]:
    """Tuples each executor processes per unit of offered rate.

    ``placement`` (executor -> worker, any hashable) is needed only for
    local-or-shuffle streams.
    """
    table = stream_table(graph)
    rates = unit_rates(table, _workers(table, placement))
    return dict(zip(table.executors, rates.arrival.tolist(), strict=True))


def executor_flows(
    table: StreamTable,
    worker_of: np.ndarray | None,
    rate: float = 1.0,
    limit: int | None = None,
    keep: np.ndarray | None = None,
) -> list[tuple[str, str, float]]:
    """Every non-zero executor-to-executor flow at offered rate ``rate``, tuples/s.

    With ``limit``, only the ``limit`` heaviest flows (ties in stream order).

    Parameters
    ----------
    table : StreamTable
    worker_of : ndarray of int or None
        Worker label of every executor (needed for local-or-shuffle only).
    rate : float
        Offered rate per spout component, tuples/s.

    Returns
    -------
    list of (str, str, float)
        (sending executor, receiving executor, tuples/s), stream by stream.
    """
    everything = flow_arrays(table, worker_of, rate, keep)
    if everything is None:
        return []
    u, v, r = everything
    if limit is not None and len(r) > limit:
        keep = np.sort(np.argsort(-r, kind="stable")[:limit])
        u, v, r = u[keep], v[keep], r[keep]
    return [
        (table.executors[a], table.executors[b], c)
        for a, b, c in zip(u.tolist(), v.tolist(), r.tolist(), strict=True)
    ]


def flow_arrays(
    table: StreamTable,
    worker_of: np.ndarray | None,
    rate: float,
    keep: np.ndarray | None = None,
):
    """Sender, receiver (executor indices) and tuples/s of every non-zero flow, stream by
    stream; None when the topology has no streams. ``keep``: as in :func:`unit_rates`."""
    rates = unit_rates(table, worker_of, keep)
    start = table.comp_start
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    val: list[np.ndarray] = []
    for k in range(len(table.streams)):
        us = range(start[table.src_comp[k]], start[table.src_comp[k] + 1])
        ds = range(start[table.dst_comp[k]], start[table.dst_comp[k] + 1])
        out = rates.src_out[table.src_start[k] : table.src_start[k + 1]] * rate
        if table.local[k]:
            pair = np.outer(out, table.weights[k])
            lam_u = rates.arrival[us.start : us.stop] * table.multiplier[k] * rate
            wu, wd = worker_of[us.start : us.stop], worker_of[ds.start : ds.stop]
            if table.spill[k]:
                lam_u = lam_u * kept_share(keep, k, wu)
            same = wu[:, None] == wd[None, :]
            count = same.sum(axis=1, keepdims=True)
            pair += np.where(same, lam_u[:, None] / np.maximum(count, 1), 0.0)
            i, j = np.nonzero(pair)
            flows = pair[i, j]
        else:  # an outer product: its non-zero cells are those of non-zero rows x columns
            rows, cols = np.flatnonzero(out), np.flatnonzero(table.weights[k])
            i, j = np.repeat(rows, len(cols)), np.tile(cols, len(rows))
            flows = np.outer(out[rows], table.weights[k][cols]).ravel()
            if not flows.all():  # products that underflow to 0 are no flow either
                i, j, flows = i[flows != 0], j[flows != 0], flows[flows != 0]
        src.append(i + us.start)
        dst.append(j + ds.start)
        val.append(flows)
    if not val:
        return None
    return np.concatenate(src), np.concatenate(dst), np.concatenate(val)


def _workers(table: StreamTable, placement: Mapping[str, object] | None) -> np.ndarray | None:
    if placement is None:
        return None
    labels: dict[object, int] = {}
    return np.array([labels.setdefault(placement[e], len(labels)) for e in table.executors])

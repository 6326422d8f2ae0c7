"""The capacity model, stated once: what each executor costs per unit of rate, and each bound.

Every load of a placement is linear in the offered rate R, so the model is a
set of coefficients per unit of R, built once per :class:`core.problem.Problem`
(:func:`coefficients`), and three bounds on them:

1. **thread**: an executor is one thread, so its CPU, in cores,
   ``a_e t_(c(e), n) + sum (tuples leaving its worker) x (de)serialisation``
   is at most ``THREAD_CORES`` (one core) per unit of R x R;
2. **node CPU**: the sum of its executors' CPU is at most its capacity less
   the rate-independent overheads: ``capacity_cores[n] - sum_e f_(c(e), n) -
   worker_cores x (workers in use on n)``. The capacity is the node's
   physical cores plus what its extra hardware threads yield
   (:func:`capacity_cores`);
3. **NIC**: the bits a node sends to other nodes, and those it receives, are
   each at most its NIC's bits/s (full duplex).

R* = 1 / (the largest of the three loads per unit of R).

The coefficients: ``service_s[c, n]`` (seconds of one core per tuple of
component c on node n: its ``cpu_us`` or profiled ``e_ms`` plus Storm's
executor overhead, at node n's single-thread speed: all-core clock x work per
clock relative to Skylake over the reference clock, from the node's
``cpu_model`` entry of the CPU table unless typed, :func:`core.hardware.core_speed`,
:func:`core.problem.service_matrix`); ``ser_s[k]``,
``deser_s[k]`` (sender and receiver CPU per tuple of stream k that leaves
its worker); ``fixed_cores[c, n]`` (Nasiri et al.'s MET per executor);
``worker_cores`` (a worker JVM's own CPU); ``bits[k]`` (bits per tuple of
stream k); ``nic_bits_per_s[n]``; ``capacity_cores[n]``.

Its consumers: :class:`core.simulator.capacity.Evaluator` (one placement)
and :func:`core.simulator.batch.score_many` (many) through
:func:`unit_loads` and :func:`peak_loads`; the CP-SAT models
(:mod:`core.search.cpsat`, :mod:`core.search.cpsat_counts`) read the same
coefficients into integer constraints. A new capacity term goes here, and
nowhere else.

References
----------
.. [1] D. T. Marr et al., "Hyper-Threading Technology Architecture and
   Microarchitecture", Intel Technology Journal 6(1), 2002: a second hardware
   thread per core gave up to 30% more throughput on server benchmarks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from core.hardware import NodeArrays
from core.model import Scenario
from core.problem import Problem
from core.simulator.costs import BITS_PER_BYTE, deserialize_s, serialize_s
from core.simulator.placed_rates import RatePlan, rate_plan, row_bincount, row_take
from core.simulator.rates import StreamTable, UnitRates, stream_table, unit_rates

THREAD_CORES = 1  # an executor is one thread: at most one core, whatever its node
CORE_FLOOR = 1e-6  # cores left to a node's executors when fixed overheads take them all
# Throughput a second hardware thread of a core adds, in cores: Intel's "up to 30%" for
# Hyper-Threading on server benchmarks [1]; measured gains run from about 0 (or a small
# loss) on compute-bound code to 0.3, so the default is the top of that range.
SMT_YIELD = 0.3


def capacity_cores(scenario: Scenario) -> np.ndarray:
    """Cores each node's executors may use, in cores of single-thread throughput.

    Physical cores plus the throughput the extra hardware threads add, per
    socket: ``sockets x (cores + (threads - cores) x smt_yield)``
    (``Node.threads``, default ``cores``, or the ``cpu_model``'s threads per
    core x cores; ``Node.smt_yield``, default ``SMT_YIELD`` with extra
    threads, else 0). Without SMT it is the physical cores. One executor
    thread still uses at most one core (``THREAD_CORES``): SMT adds room for
    more threads, not speed to one.

    Examples
    --------
    >>> from core.model import Cluster, Node, Scenario
    >>> node = Node(id="a", cores=4, ghz=3.0, slots=1, threads=8, smt_yield=0.25)
    >>> float(capacity_cores(Scenario.model_construct(cluster=Cluster(nodes=[node])))[0])
    5.0
    """
    out = []
    for n in scenario.cluster.nodes:
        threads = n.cores if n.threads is None else n.threads
        default = SMT_YIELD if threads > n.cores else 0.0
        gain = default if n.smt_yield is None else n.smt_yield
        out.append(n.sockets * (n.cores + (threads - n.cores) * gain))
    return np.array(out, dtype=float)


@dataclass(frozen=True, eq=False)
class Coefficients:
    """The capacity model's coefficients per unit of offered rate for one Problem.

    Attributes
    ----------
    problem : Problem
    table : StreamTable
        Streams and executors as flat arrays (:mod:`core.simulator.rates`).
    nodes : NodeArrays
    service_s : ndarray, shape (C, N)
        Seconds of one core per tuple of component c on node n.
    fixed_cores : ndarray (C, N) or None
        Rate-independent cores per executor of c on n (None: all zero).
    worker_cores : float
        Rate-independent cores of each worker JVM in use.
    capacity_cores : ndarray, shape (N,)
        Cores a node's executors may use (:func:`capacity_cores`).
    free_cores : ndarray, shape (N,)
        ``capacity_cores``, at least ``CORE_FLOOR``: what processor sharing
        divides when there are no fixed overheads.
    ser_s, deser_s : ndarray, shape (S,)
        Sender / receiver CPU per tuple of a stream leaving its worker, s.
    bits : ndarray, shape (S,)
        Bits per tuple of each stream.
    nic_bits_per_s : ndarray, shape (N,)
    static : UnitRates or None
        The rates when no stream is local-or-shuffle (they move with the
        placement otherwise: ``plan``).
    """

    problem: Problem
    table: StreamTable
    nodes: NodeArrays
    service_s: np.ndarray
    fixed_cores: np.ndarray | None
    worker_cores: float
    capacity_cores: np.ndarray
    free_cores: np.ndarray
    ser_s: np.ndarray
    deser_s: np.ndarray
    bits: np.ndarray
    nic_bits_per_s: np.ndarray
    static: UnitRates | None
    plan: RatePlan | None
    # index arrays of the load arithmetic (bins of stream x slot, stream x node)
    dims: tuple[int, int, int]  # streams, global slots, nodes
    src_g: np.ndarray
    tgt_g: np.ndarray
    src_n: np.ndarray
    tgt_n: np.ndarray
    both_ex: np.ndarray
    ser_i: np.ndarray  # (I,) per source entry
    deser_j: np.ndarray  # (J,) per target entry
    bytes_i: np.ndarray
    bytes_j: np.ndarray
    w_tot: np.ndarray  # (I,) the stream's target weights' total, per source entry
    o_tot: np.ndarray | None  # (J,) static: the stream's sent total, per target entry
    total: np.ndarray | None  # (S,) static: tuples per unit R of each stream

    @property
    def has_fixed(self) -> bool:
        """True when some CPU does not scale with the rate (MET or worker JVMs)."""
        return self.fixed_cores is not None or self.worker_cores > 0


@lru_cache(maxsize=16)
def coefficients(problem: Problem) -> Coefficients:
    """The :class:`Coefficients` of a Problem (built once per Problem)."""
    t = stream_table(problem.graph)
    nodes = problem.nodes
    net = problem.scenario.network
    fixed = problem.fixed_cores
    capacity = capacity_cores(problem.scenario)
    ser = np.asarray(serialize_s(net, t.tuple_bytes), dtype=float)
    deser = np.asarray(deserialize_s(net, t.tuple_bytes), dtype=float)
    n_s, n_g, n_n = len(t.streams), nodes.slots, len(nodes.ids)
    static = None if t.has_local else unit_rates(t)
    plan = None
    if static is None:
        plan = rate_plan(t)
        w_tot, o_tot, total = plan.weight_total[t.src_sid], None, None
    else:
        w_tot, o_tot = static.weight_total[t.src_sid], static.out_total[t.tgt_sid]
        total = static.out_total * static.weight_total + static.local_total
    return Coefficients(
        problem=problem,
        table=t,
        nodes=nodes,
        service_s=problem.service_s,
        fixed_cores=fixed if fixed.any() else None,
        worker_cores=float(net.worker_cpu_cores),
        capacity_cores=capacity,
        free_cores=np.maximum(capacity - np.zeros(n_n), CORE_FLOOR),
        ser_s=ser,
        deser_s=deser,
        bits=t.tuple_bytes * BITS_PER_BYTE,
        nic_bits_per_s=nodes.nic_bits_per_s,
        static=static,
        plan=plan,
        dims=(n_s, n_g, n_n),
        src_g=t.src_sid * n_g,
        tgt_g=t.tgt_sid * n_g,
        src_n=t.src_sid * n_n,
        tgt_n=t.tgt_sid * n_n,
        both_ex=np.concatenate([t.src_ex, t.tgt_ex]),
        ser_i=ser[t.src_sid],
        deser_j=deser[t.tgt_sid],
        bytes_i=t.tuple_bytes[t.src_sid],
        bytes_j=t.tuple_bytes[t.tgt_sid],
        w_tot=w_tot,
        o_tot=o_tot,
        total=total,
    )


class UnitLoads(NamedTuple):
    """Loads of one placement (1-D) or of B placements (rows), per unit of offered rate.

    Shapes are given for B rows; one placement drops the leading B.
    """

    node_of: np.ndarray  # (B, E)
    service: np.ndarray  # (B, E) compute seconds per tuple on its node
    serdes: np.ndarray  # (B, E) (de)serialisation seconds per tuple processed
    cpu: np.ndarray  # (B, E) cores per unit R (the thread bound's loads)
    node_cpu: np.ndarray  # (B, N) cores per unit R
    fixed: np.ndarray  # (B, N) rate-independent cores
    nic: np.ndarray  # (B, N) NIC utilisation per unit R, the larger of out and in
    same_worker: np.ndarray  # (B, S) tuples per unit R that stay in a worker
    same_node: np.ndarray  # (B, S)
    wire: np.ndarray  # (B, S) wire seconds x tuples per unit R


def _count(keys: np.ndarray, weights: np.ndarray | None, bins: int) -> np.ndarray:
    """``np.bincount`` of one placement's keys, or of every row's (same order per bin)."""
    if keys.ndim == 1:
        return np.bincount(keys, weights, bins)
    if weights is not None and weights.ndim == 1 and weights.shape != keys.shape:
        weights = np.broadcast_to(weights, keys.shape)
    return row_bincount(keys, weights, bins)


def _take(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]`` for one placement, row by row for many."""
    return values[index] if index.ndim == 1 else row_take(values, index)


# (stream, slot) and (stream, node) bins counted densely up to this many per placement
# (32 MB of float64); above, only the bins some entry falls in (issue 23: 1,000 streams
# on 5,000 nodes of 256 slots were 1.3 x 10^9 dense bins, 10 GB an array).
DENSE_BINS = 1 << 22


def pair_sums(
    keys_src: np.ndarray,
    out: np.ndarray,
    keys_tgt: np.ndarray,
    weight: np.ndarray,
    n_s: int,
    width: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per stream, the sum over its bins (stream x ``width``) of the senders' output there
    times the receivers' weight there; and each sender entry's receiver weight in its bin,
    each receiver entry's sender output in its bin.

    Dense bins up to ``DENSE_BINS``; above, the bins in use only (``np.unique`` of the
    keys, row by row), so memory grows with the entries, never with streams x slots.
    Each bin sums its entries in the same order either way; the per-stream total sums
    the bins pairwise (dense) or in bin order (sparse).
    """
    lead = keys_src.shape[:-1]
    if n_s * width <= DENSE_BINS:
        out_b = _count(keys_src, out, n_s * width)
        w_b = _count(keys_tgt, weight, n_s * width)
        same = (out_b * w_b).reshape(*lead, n_s, width).sum(-1)
        return same, _take(w_b, keys_src), _take(out_b, keys_tgt)
    if not lead:
        return _sparse_pair_sums(keys_src, out, keys_tgt, weight, n_s, width)
    out_rows = np.broadcast_to(out, keys_src.shape)
    rows = [
        _sparse_pair_sums(keys_src[b], out_rows[b], keys_tgt[b], weight, n_s, width)
        for b in range(keys_src.shape[0])
    ]
    return tuple(np.stack(part) for part in zip(*rows, strict=True))


def _sparse_pair_sums(keys_src, out, keys_tgt, weight, n_s: int, width: int):
    """:func:`pair_sums` of one placement over the bins in use only."""
    used, index = np.unique(np.concatenate([keys_src, keys_tgt]), return_inverse=True)
    at_src, at_tgt = index[: len(keys_src)], index[len(keys_src) :]
    out_b = np.bincount(at_src, out, len(used))
    w_b = np.bincount(at_tgt, weight, len(used))
    same = np.bincount(used // width, out_b * w_b, n_s)
    return same, w_b[at_src], out_b[at_tgt]


def unit_loads(
    coef: Coefficients,
    slot_of: np.ndarray,
    arrival: np.ndarray,
    src_out: np.ndarray,
    local_total: np.ndarray,
    o_tot: np.ndarray,
) -> UnitLoads:
    """The loads per unit R of one placement (``slot_of`` of shape (E,)) or many ((B, E)).

    ``arrival`` (tuples each executor processes), ``src_out`` (tuples each
    sender puts on a stream's rank-one part), ``local_total`` and ``o_tot``
    (each target entry's stream total) are the rates per unit R, per row or
    one for all (:mod:`core.simulator.rates`). Every bin sums its entries in
    the same order whatever the number of rows, so a placement's loads are
    bit-for-bit those it has in a batch.
    """
    t, nodes = coef.table, coef.nodes
    n_s, n_g, n_n = coef.dims
    lead = slot_of.shape[:-1]  # () for one placement, (B,) for many
    n_e = slot_of.shape[-1]
    node_of = nodes.slot_node[slot_of]
    ks = coef.src_g + slot_of[..., t.src_ex]
    kt = coef.tgt_g + slot_of[..., t.tgt_ex]
    nsrc, ntgt = node_of[..., t.src_ex], node_of[..., t.tgt_ex]
    ns, nt = coef.src_n + nsrc, coef.tgt_n + ntgt
    same_worker, w_at_src, out_at_tgt = pair_sums(ks, src_out, kt, t.tgt_w, n_s, n_g)
    same_node, wn_at_src, outn_at_tgt = pair_sums(ns, src_out, nt, t.tgt_w, n_s, n_n)
    same_worker, same_node = same_worker + local_total, same_node + local_total
    # tuples leaving the worker: (de)serialised; leaving the node: on both NICs
    ser = src_out * (coef.w_tot - w_at_src) * coef.ser_i
    deser = t.tgt_w * (o_tot - out_at_tgt) * coef.deser_j
    send_n = src_out * (coef.w_tot - wn_at_src)
    recv_n = t.tgt_w * (o_tot - outn_at_tgt)
    service = coef.service_s[t.exec_comp, node_of]
    both = np.broadcast_to(coef.both_ex, (*lead, len(coef.both_ex))) if lead else coef.both_ex
    serdes = _count(both, np.concatenate([ser, deser], axis=-1), n_e)
    cpu = arrival * service + serdes
    busy = arrival > 0
    serdes = np.where(busy, serdes / np.where(busy, arrival, 1.0), 0.0)
    node_cpu = _count(node_of, cpu, n_n)
    if coef.fixed_cores is not None:
        fixed = _count(node_of, coef.fixed_cores[t.exec_comp, node_of], n_n)
    else:
        fixed = np.zeros((*lead, n_n))
    if coef.worker_cores > 0:
        in_use = _count(slot_of, None, n_g) > 0
        slot_node = np.broadcast_to(nodes.slot_node, in_use.shape) if lead else nodes.slot_node
        fixed = fixed + coef.worker_cores * _count(slot_node, in_use, n_n)
    nic_out = _count(nsrc, send_n * coef.bytes_i, n_n)
    nic_in = _count(ntgt, recv_n * coef.bytes_j, n_n)
    nic = np.maximum(nic_out, nic_in) * BITS_PER_BYTE / coef.nic_bits_per_s
    src_sid = np.broadcast_to(t.src_sid, nsrc.shape) if lead else t.src_sid
    wire = _count(src_sid, send_n * coef.bytes_i * BITS_PER_BYTE / coef.nic_bits_per_s[nsrc], n_s)
    return UnitLoads(
        node_of, service, serdes, cpu, node_cpu, fixed, nic, same_worker, same_node, wire
    )


def node_cpu_load(coef: Coefficients, node_cpu: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Each node's executor CPU per unit R over the cores its fixed overheads leave.

    inf where the overheads take all of the node's capacity.
    """
    headroom = coef.capacity_cores - fixed
    if not coef.has_fixed:
        return node_cpu / headroom
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(headroom > 0, node_cpu / np.maximum(headroom, 1e-300), np.inf)


class Peaks(NamedTuple):
    """The largest load per unit R of each bound, and where it is (per row for many)."""

    thread: np.ndarray  # cores of the busiest thread per unit R, over THREAD_CORES
    thread_at: np.ndarray  # its executor
    node: np.ndarray  # the busiest node's CPU load (share of its free capacity)
    node_at: np.ndarray
    nic: np.ndarray  # the busiest NIC's utilisation
    nic_at: np.ndarray


def peak_loads(coef: Coefficients, loads: UnitLoads) -> Peaks:
    """The three bounds' peaks of ``loads`` (the first of equal loads wins)."""
    thread = loads.cpu / THREAD_CORES
    node = node_cpu_load(coef, loads.node_cpu, loads.fixed)
    e, n, m = thread.argmax(-1), node.argmax(-1), loads.nic.argmax(-1)
    if thread.ndim == 1:
        return Peaks(thread[e], e, node[n], n, loads.nic[m], m)
    rows = np.arange(thread.shape[0])
    return Peaks(thread[rows, e], e, node[rows, n], n, loads.nic[rows, m], m)


def max_rate(load: float) -> float:
    """R* of the largest load per unit R: inf with no load, 0 when a load is infinite."""
    if load <= 0:
        return math.inf
    return 0.0 if math.isinf(load) else 1.0 / load

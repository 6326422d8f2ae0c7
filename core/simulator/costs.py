"""Costs: transfer delays, (de)serialisation, locality classes, memory.

Service times per component and node, Storm's per-tuple constants
(:class:`core.problem.StormCosts`) and the cluster as arrays
(:func:`core.hardware.node_arrays`) are part of the :class:`core.problem.Problem`.

Units: seconds inside the simulator (``_s``), microseconds in the scenario
(``_us``), bytes and bits as named. Sources of the network constants are the
:class:`core.model.Network` defaults (docs/model.md, "Parameters": Storm 2.0 notes,
Storm ``defaults.yaml``, datacenter latency tables).

Modelling choices (docs/model.md, "Per-tuple costs"):

- Service time of a component on a node = its profiled ``e_ms`` for the
  node's type when ``profiling.per_type`` has it, else ``cpu_us`` divided by
  the node's per-core speed relative to the reference core.
- ``met_pct`` (Nasiri et al.'s fixed overhead, percent of the machine) is a
  rate-independent CPU load of ``met_pct / 100 x cores`` per executor of that
  component on that node; it counts against the node, not the thread.
- Serialisation and deserialisation cost ``serialize_us`` / ``deserialize_us``
  per 200-byte tuple, scaled by ``tuple_bytes / 200``, on the sending and the
  receiving executor's CPU, for every tuple that leaves its worker. They are
  quoted in absolute microseconds and are not scaled by core speed.
- A tuple between nodes takes ``inter_node_us`` (``same_rack_us`` inside a
  rack when given) plus its bytes at the *sender's* NIC bandwidth.
- Storm's own per-tuple costs are the global constants of
  :class:`core.problem.StormCosts` (one place, overridable by name for calibration):
  every tuple an executor processes costs ``executor_overhead_us`` of its
  thread beyond the component's ``cpu_us`` (receive-queue hand-off,
  dispatch, metrics), at the node's core speed; acks are tuples of
  ``ack_tuple_bytes`` to the ``__acker`` executors (one per tuple
  processed, :mod:`core.simulator.rates`) costing the topology's
  ``acker_cpu_us`` there, so with ackers > 0 every tuple tree costs acker
  CPU and, across workers, (de)serialisation and traffic.

References
----------
.. [1] Apache Storm, ``conf/defaults.yaml`` (Storm 2.x):
   ``topology.producer.batch.size: 1``, ``topology.transfer.batch.size: 1``,
   ``topology.flush.tuple.freq.millis: 1``.
.. [2] Apache Storm 2.0.0 release notes and STORM-2306 (messaging subsystem
   redesign): intra-worker messaging latency around a microsecond.
.. [3] A. Toshniwal et al., "Storm @Twitter", SIGMOD 2014, pp. 147-156,
   doi:10.1145/2588555.2595641 (acking: 64-bit tuple ids XORed per root).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.hardware import MB_PER_GB, NodeArrays
from core.model import Network
from core.problem import US

BITS_PER_BYTE = 8
REFERENCE_TUPLE_BYTES = 200.0  # B; ser/deser costs are per ~200 B tuple (docs/model.md)

# Locality classes of a hop, in increasing distance.
INTRA_WORKER, INTER_WORKER, SAME_RACK, INTER_NODE = 0, 1, 2, 3


def serialize_s(net: Network, tuple_bytes: np.ndarray | float) -> np.ndarray | float:
    """Sender CPU to serialise one tuple of ``tuple_bytes`` bytes, seconds."""
    return net.serialize_us * US * tuple_bytes / REFERENCE_TUPLE_BYTES


def deserialize_s(net: Network, tuple_bytes: np.ndarray | float) -> np.ndarray | float:
    """Receiver CPU to deserialise one tuple of ``tuple_bytes`` bytes, seconds."""
    return net.deserialize_us * US * tuple_bytes / REFERENCE_TUPLE_BYTES


def class_latency_s(net: Network) -> np.ndarray:
    """Fixed one-way latency of each locality class, seconds (wire time excluded)."""
    rack = net.inter_node_us if net.same_rack_us is None else net.same_rack_us
    return np.array([net.intra_worker_us, net.inter_worker_us, rack, net.inter_node_us]) * US


CROSS_WORKER = np.array([0.0, 1.0, 1.0, 1.0])  # per locality class: the hop leaves its worker


@dataclass(frozen=True, eq=False)
class HopDelays:
    """The fixed delays of a hop in the analytic latency estimate, per scenario.

    ``class_s`` (4,): one-way latency of each locality class, s, a hop that
    leaves its worker charged half a transfer-thread sleep on average
    (:mod:`core.simulator.polling`); ``flush_s``: the worker's flush period
    when queues batch, else 0 (:mod:`core.simulator.batching`);
    ``spout_wait_s``: the acker's message waits half a spout sleep for the
    spout's wake-up; ``racks``: rack numbers in use (1 when racks are not
    modelled: no ``same_rack_us``).
    """

    class_s: np.ndarray
    flush_s: float
    spout_wait_s: float
    racks: int


def locality_class(
    src_worker: np.ndarray,
    dst_worker: np.ndarray,
    src_node: np.ndarray,
    dst_node: np.ndarray,
    rack: np.ndarray,
) -> np.ndarray:
    """Locality class (``INTRA_WORKER`` .. ``INTER_NODE``) of each hop."""
    same_node = src_node == dst_node
    cls = np.where(rack[src_node] == rack[dst_node], SAME_RACK, INTER_NODE)
    cls = np.where(same_node, INTER_WORKER, cls)
    return np.where(src_worker == dst_worker, INTRA_WORKER, cls)


def transfer_delay_s(
    net: Network,
    cls: np.ndarray,
    tuple_bytes: float,
    sender_bits_per_s: np.ndarray,
) -> np.ndarray:
    """Delay of each hop: its class latency, plus wire time when it leaves the node."""
    wire = tuple_bytes * BITS_PER_BYTE / sender_bits_per_s
    return class_latency_s(net)[cls] + np.where(cls >= SAME_RACK, wire, 0.0)


def memory_by_node(
    nodes: NodeArrays,
    slot_of: np.ndarray,
    executor_mb: np.ndarray,
    heap_mb: float,
    used_heap_mb: float | None = None,
) -> tuple[np.ndarray, list[str]]:
    """Memory per node (MB) of a placement, and its over-commit warnings.

    A used worker takes its heap (``heap_mb``, the JVM's -Xmx), or its
    executors' declared memory when that is more (an over-committed heap), or,
    when the scenario gives one, the used heap a paper measured per worker
    (``used_heap_mb``). The warnings name every over-committed heap and every
    node whose workers' heap ceilings exceed its RAM: -Xmx is a ceiling, not
    what a JVM uses, so that is a warning; what cannot run is
    :func:`memory_violations` of :func:`heap_used_by_node`.
    """
    per_slot = np.bincount(slot_of, executor_mb, nodes.slots)
    used = np.bincount(slot_of, None, nodes.slots) > 0
    ceiling = np.where(used, np.maximum(heap_mb, per_slot), 0.0)
    worker = ceiling if used_heap_mb is None else np.where(used, used_heap_mb, 0.0)
    memory = np.bincount(nodes.slot_node, worker, len(nodes.ids))
    ceilings = np.bincount(nodes.slot_node, ceiling, len(nodes.ids))
    warnings: list[str] = []
    if ceiling.max(initial=0.0) <= heap_mb and (ceilings <= nodes.ram_mb).all():
        return memory, warnings
    for g in np.flatnonzero(used & (per_slot > heap_mb)):
        j = nodes.slot_node[g]
        warnings.append(
            f"worker {nodes.ids[j]}:{g - nodes.slot_start[j]} heap over-committed: "
            f"{per_slot[g]:g} MB of executors in a {heap_mb:g} MB heap"
        )
    for j in np.flatnonzero(ceilings > nodes.ram_mb):
        warnings.append(
            f"node {nodes.ids[j]} memory over-committed: its workers' heap ceilings (-Xmx) "
            f"total {ceilings[j]:g} MB > {nodes.ram_mb[j]:g} MB RAM (a ceiling, not what "
            "they use)"
        )
    return memory, warnings


def heap_used_by_node(
    nodes: NodeArrays,
    slot_of: np.ndarray,
    executor_mb: np.ndarray,
    used_heap_mb: float | None = None,
) -> np.ndarray:
    """Heap a placement uses on each node, MB: what :func:`memory_violations` checks.

    Per worker in use: the used heap a paper measured per worker when the
    scenario gives it (``topology.worker_used_heap_mb``), else its executors'
    declared memory (``memory_mb`` + ``offheap_mb``: Storm's
    ``topology.component.resources.onheap.memory.mb``, 128 MB by default, and
    ``...offheap.memory.mb``, 0 by default; what Storm 2.0.0's resource-aware
    scheduler charges a node for each executor, ``Cluster.wouldFit``).
    A worker's -Xmx (``network.worker_heap_mb``) is a ceiling, not a use, so it
    does not enter.
    """
    if used_heap_mb is None:
        per_slot = np.bincount(slot_of, executor_mb, nodes.slots)
    else:
        per_slot = np.where(np.bincount(slot_of, None, nodes.slots) > 0, used_heap_mb, 0.0)
    return np.bincount(nodes.slot_node, per_slot, len(nodes.ids))


def _amounts(need_mb: float, have_mb: float) -> tuple[str, str]:
    """Two amounts of memory in GB with the fewest decimals (1 to 3) that tell them apart,
    else in MB.

    >>> _amounts(3840.0, 3788.8), _amounts(44236.8, 3788.8), _amounts(3789.0, 3788.8)
    (('3.8 GB', '3.7 GB'), ('43.2 GB', '3.7 GB'), ('3,789.0 MB', '3,788.8 MB'))
    """
    for digits in (1, 2, 3):
        need, have = f"{need_mb / MB_PER_GB:.{digits}f}", f"{have_mb / MB_PER_GB:.{digits}f}"
        if need != have:
            return f"{need} GB", f"{have} GB"
    return f"{need_mb:,.1f} MB", f"{have_mb:,.1f} MB"


def memory_violations(
    nodes: NodeArrays, slot_of: np.ndarray, memory_mb: np.ndarray
) -> tuple[str, ...]:
    """Why a placement cannot run: one sentence per node whose memory exceeds its RAM.

    ``memory_mb`` is the heap the placement uses per node
    (:func:`heap_used_by_node`: a measured used heap per worker, else the
    executors' declared on-heap memory); a node needing more than its
    ``ram_gb`` cannot hold those workers, so the placement is not runnable as
    placed. Empty when every node fits.

    Parameters
    ----------
    nodes : NodeArrays
    slot_of : numpy.ndarray of int, shape (E,)
        Global slot index of every executor.
    memory_mb : numpy.ndarray, shape (N,)
        Memory the placement needs on each node, MB.

    Sentences name the node, what it needs for how many executors and its
    RAM, in GB of 1024 MB (as ``ram_gb``), with enough decimals to tell the two apart.
    """
    over = np.flatnonzero(memory_mb > nodes.ram_mb)
    if not over.size:
        return ()
    executors = np.bincount(nodes.slot_node[slot_of], None, len(nodes.ids))
    out = []
    for j in over.tolist():
        need, have = _amounts(float(memory_mb[j]), float(nodes.ram_mb[j]))
        count = int(executors[j])
        noun = "executor" if count == 1 else "executors"
        out.append(f"node {nodes.ids[j]} needs {need} for {count} {noun} but has {have}")
    return tuple(out)

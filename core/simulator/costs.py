"""Costs: service times per component and node, transfer delays, per-node arrays.

Units: seconds inside the simulator (``_s``), microseconds in the scenario
(``_us``), bytes and bits as named. Sources of the network constants are the
:class:`core.model.Network` defaults (SIMULATOR.md: Storm 2.0 release notes,
Storm ``defaults.yaml``, datacenter latency tables).

Modelling choices (SIMULATOR.md leaves them open):

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
  :class:`StormCosts` (one place, overridable by name for calibration):
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

from dataclasses import dataclass, fields

import numpy as np

from core.hardware import core_speed, total_cores
from core.model import Network, Scenario
from core.topology import TopologyGraph

US = 1e-6  # seconds per microsecond
MS = 1e-3  # seconds per millisecond
BITS_PER_BYTE = 8
BITS_PER_GBIT = 1e9
MB_PER_GB = 1024.0  # RAM is quoted in GB; memory use in MB
REFERENCE_TUPLE_BYTES = 200.0  # B; SIMULATOR.md quotes ser/deser costs per ~200 B tuple


@dataclass(frozen=True)
class StormCosts:
    """Storm's own per-tuple costs: global constants, overridable by name.

    Transfer latencies and (de)serialisation are per scenario
    (:class:`core.model.Network`); their defaults are repeated here, with
    their sources, so a calibration script sees every global constant in one
    place (a test keeps the two equal). Defaults are sourced, not fitted.
    Queue batching depends on the Storm version, so it is per scenario only
    (``Network.batch_size``, ``batch_flush_ms``; :mod:`core.simulator.batching`).

    Attributes
    ----------
    executor_overhead_us : float
        Thread time per tuple processed beyond ``cpu_us``, us on the
        reference core (receive-queue hand-off, dispatch, metrics). Default
        0: the ~1 us intra-worker hand-off the Storm 2.0 release notes /
        STORM-2306 quote is already charged as ``intra_worker_us`` latency,
        and no source gives the thread time apart from it; the calibration
        step (issue 9 item 6) fits it.
    ack_tuple_bytes : float
        Size of an ack, B: root id + XOR of 64-bit tuple ids (Storm @Twitter).
    intra_worker_us, inter_worker_us, inter_node_us : float
        One-way transfer latency in a worker, between workers of a node and
        between nodes, us (SIMULATOR.md: Storm 2.0 release notes, Storm
        ``defaults.yaml``, datacenter latency tables).
    transfer_sleep_ms : float
        Storm 2.x worker transfer thread's sleep when idle, ms: a hop that
        leaves its worker waits for its next wake-up
        (:mod:`core.simulator.polling`; ``WorkerTransfer`` in Storm 2.0.0).
    spout_sleep_ms : float
        A spout executor's sleep when it emitted nothing, ms: the acker's
        message waits for its next wake-up (:mod:`core.simulator.polling`;
        the spout wait strategies of Storm 0.9.5 to 2.x).
    serialize_us, deserialize_us : float
        CPU per ~200 B tuple leaving / entering a worker, us (SIMULATOR.md).
    """

    executor_overhead_us: float = 0.0
    ack_tuple_bytes: float = 40.0
    intra_worker_us: float = 1.0
    inter_worker_us: float = 100.0
    inter_node_us: float = 250.0
    transfer_sleep_ms: float = 1.0
    spout_sleep_ms: float = 1.0
    serialize_us: float = 2.0
    deserialize_us: float = 3.0

    def override(self, **values: float) -> StormCosts:
        """A copy with the named constants replaced (unknown names rejected).

        Examples
        --------
        >>> StormCosts().override(executor_overhead_us=2.5).executor_overhead_us
        2.5
        """
        known = {f.name for f in fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown Storm cost constant(s): {', '.join(unknown)}")
        return StormCosts(**{**{n: getattr(self, n) for n in known}, **values})


DEFAULT_COSTS = StormCosts()

# Locality classes of a hop, in increasing distance.
INTRA_WORKER, INTER_WORKER, SAME_RACK, INTER_NODE = 0, 1, 2, 3


@dataclass(frozen=True, eq=False)
class NodeArrays:
    """The cluster as arrays; slots numbered node by node (global slot index)."""

    ids: tuple[str, ...]
    cores: np.ndarray  # (N,) total cores
    ghz: np.ndarray  # (N,)
    nic_bits_per_s: np.ndarray  # (N,)
    ram_mb: np.ndarray  # (N,)
    rack: np.ndarray  # (N,) rack number
    slot_start: np.ndarray  # (N + 1,) first global slot index of each node
    slot_node: np.ndarray  # (G,) node of each global slot

    @property
    def slots(self) -> int:
        return int(self.slot_start[-1])


def node_arrays(scenario: Scenario) -> NodeArrays:
    """Per-node hardware arrays of a scenario's cluster."""
    nodes = scenario.cluster.nodes
    net = scenario.network
    racks: dict[str, int] = {}
    slots = [n.slots for n in nodes]
    return NodeArrays(
        ids=tuple(n.id for n in nodes),
        cores=np.array([total_cores(n) for n in nodes], dtype=float),
        ghz=np.array([n.ghz for n in nodes], dtype=float),
        nic_bits_per_s=np.array(
            [(n.nic_gbps or net.bandwidth_gbps) * BITS_PER_GBIT for n in nodes], dtype=float
        ),
        ram_mb=np.array([n.ram_gb * MB_PER_GB for n in nodes], dtype=float),
        rack=np.array([racks.setdefault(n.rack, len(racks)) for n in nodes], dtype=np.int64),
        slot_start=np.concatenate([[0], np.cumsum(slots)]).astype(np.int64),
        slot_node=np.repeat(np.arange(len(nodes)), slots).astype(np.int64),
    )


def service_matrix(
    graph: TopologyGraph, scenario: Scenario, costs: StormCosts = DEFAULT_COSTS
) -> tuple[np.ndarray, np.ndarray]:
    """Mean compute time per tuple and fixed overhead, per component and node.

    Compute time = profiled ``e_ms`` (or ``cpu_us`` at the node's core speed)
    + Storm's ``costs.executor_overhead_us`` at the node's core speed.

    Returns
    -------
    service_s : ndarray, shape (components, nodes)
        Seconds of one core per tuple (components in ``graph.order``).
    fixed_cores : ndarray, shape (components, nodes)
        Rate-independent CPU load of one executor, in cores.
    """
    nodes = scenario.cluster.nodes
    profiles = scenario.profiling.per_type
    service = np.zeros((len(graph.order), len(nodes)))
    fixed = np.zeros_like(service)
    overhead = costs.executor_overhead_us * US
    for i, cid in enumerate(graph.order):
        comp = graph.components[cid]
        for j, node in enumerate(nodes):
            speed = core_speed(node, scenario.profiling)
            prof = profiles.get(cid, {}).get(node.type) if node.type is not None else None
            if prof is not None:
                service[i, j] = prof.e_ms * MS + overhead / speed
                fixed[i, j] = prof.met_pct / 100.0 * total_cores(node)
            else:
                service[i, j] = (comp.cpu_us * US + overhead) / speed
    return service, fixed


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
    nodes: NodeArrays, slot_of: np.ndarray, executor_mb: np.ndarray, heap_mb: float
) -> tuple[np.ndarray, list[str]]:
    """Memory per node (MB) of a placement, and its over-commit warnings.

    A used worker takes its heap, or its executors' declared memory when
    that is more (an over-committed heap); a node over its RAM is reported.
    """
    per_slot = np.bincount(slot_of, executor_mb, nodes.slots)
    used = np.bincount(slot_of, None, nodes.slots) > 0
    worker = np.where(used, np.maximum(heap_mb, per_slot), 0.0)
    memory = np.bincount(nodes.slot_node, worker, len(nodes.ids))
    warnings: list[str] = []
    if worker.max(initial=0.0) <= heap_mb and (memory <= nodes.ram_mb).all():
        return memory, warnings
    for g in np.flatnonzero(used & (per_slot > heap_mb)):
        j = nodes.slot_node[g]
        warnings.append(
            f"worker {nodes.ids[j]}:{g - nodes.slot_start[j]} heap over-committed: "
            f"{per_slot[g]:g} MB of executors in a {heap_mb:g} MB heap"
        )
    for j in np.flatnonzero(memory > nodes.ram_mb):
        warnings.append(
            f"node {nodes.ids[j]} memory over-committed: "
            f"{memory[j]:g} MB > {nodes.ram_mb[j]:g} MB RAM"
        )
    return memory, warnings

"""Node hardware: processing speed, computation power and their ranks.

TOP-Storm's Eq. 1-2 (Muhammad, Aleem, Islam, Cluster Computing 2020):
``speed = sockets x cores x ghz x flops_per_cycle`` (GFLOP/s) and
``power = alpha x speed + (1 - alpha) x ram_gb``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.model import Node, Profiling, Scenario

DEFAULT_ALPHA = 0.8  # TOP-Storm's weight of CPU against memory
BITS_PER_GBIT = 1e9
MB_PER_GB = 1024.0  # RAM is quoted in GB; memory use in MB


def processing_speed(node: Node) -> float:
    """Peak GFLOP/s of the node (TOP-Storm Eq. 1)."""
    return node.sockets * node.cores * node.ghz * node.flops_per_cycle


def computation_power(node: Node, alpha: float = DEFAULT_ALPHA) -> float:
    """TOP-Storm Eq. 2: alpha x processing speed + (1 - alpha) x RAM in GB."""
    return alpha * processing_speed(node) + (1 - alpha) * node.ram_gb


def power_ranks(nodes: Sequence[Node], alpha: float = DEFAULT_ALPHA) -> dict[str, int]:
    """Rank of each node by computation power: 1 = most powerful, dense ranking.

    Equal powers share a rank and the next power gets the next integer
    (1, 1, 1, 2, 3, ...), as TOP-Storm's Table 4 prints its "Index" column:
    three identical i7-6700 hosts all have index 1 and the next host index 2.
    Powers are compared after rounding to 9 decimals, so float noise does not
    split a tie.

    Examples
    --------
    >>> from core.model import Node
    >>> big = Node(id="big", cores=8, ghz=3.4, slots=1)
    >>> twin = dict(cores=4, ghz=3.0, slots=1)
    >>> power_ranks([big, Node(id="t1", **twin), Node(id="t2", **twin)])
    {'big': 1, 't1': 2, 't2': 2}

    References
    ----------
    .. [1] A. Muhammad, M. Aleem, M. A. Islam. TOP-Storm: a topology-based
       resource-aware scheduler for stream processing engine. Cluster
       Computing, 2020, Table 4. doi:10.1007/s10586-020-03117-y
    """
    powers = {n.id: round(computation_power(n, alpha), 9) for n in nodes}
    dense = {p: rank for rank, p in enumerate(sorted(set(powers.values()), reverse=True), 1)}
    return {nid: dense[p] for nid, p in powers.items()}


def core_speed(node: Node, profiling: Profiling) -> float:
    """Single-thread speed of one core relative to the reference core of ``cpu_us``.

    The node's ``speed`` when given (what a user measures, e.g. a benchmark
    ratio), else ``ghz / profiling.reference_ghz``. FLOPs per cycle do not
    enter: they are TOP-Storm's ranking input (Eq. 1, :func:`processing_speed`),
    and string and hash-map work does not run at FLOP rates (docs/model.md).
    Per-type profiling, where given, overrides this for service times
    (:func:`core.problem.service_matrix`).

    Examples
    --------
    >>> from core.model import Node, Profiling
    >>> core_speed(Node(id="a", cores=4, ghz=1.5, slots=1, flops_per_cycle=4), Profiling())
    0.5
    >>> core_speed(Node(id="b", cores=4, ghz=2.4, slots=1, speed=1.3), Profiling())
    1.3
    """
    if node.speed is not None:
        return node.speed
    return node.ghz / profiling.reference_ghz


def total_cores(node: Node) -> int:
    return node.sockets * node.cores


@dataclass(frozen=True, eq=False)
class NodeArrays:
    """The cluster as arrays; slots numbered node by node (global slot index).

    ``cores`` are physical cores (sockets x cores per socket); what the
    performance model lets a node's executors use is
    :attr:`core.simulator.coefficients.Coefficients.capacity_cores`.
    """

    ids: tuple[str, ...]
    cores: np.ndarray  # (N,) physical cores
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

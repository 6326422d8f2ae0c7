"""Node hardware: single-thread speed, processing speed, computation power and their ranks.

A node's single-thread speed, relative to the reference core on which every
``cpu_us`` is measured (a Skylake core at ``Profiling.reference_ghz``), is
``clock x per_clock / reference_ghz`` (:func:`core_speed`): the clock with
every core busy (all-core turbo when known) times the work its
microarchitecture does per clock relative to Skylake, both from the node's
``cpu_model`` entry of the CPU table (:mod:`core.cpus`) unless typed on the
node. This is the one place the table enters the performance model; hardware
threads enter through :func:`core.simulator.coefficients.capacity_cores`.

TOP-Storm's Eq. 1-2 (Muhammad, Aleem, Islam, Cluster Computing 2020):
``speed = sockets x logical CPUs x ghz x flops_per_cycle`` (GFLOP/s) and
``power = alpha x speed + (1 - alpha) x ram_gb``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from core import cpus
from core.model import Cluster, Node, Profiling, Scenario, with_changes

DEFAULT_ALPHA = 0.8  # TOP-Storm's weight of CPU against memory
BITS_PER_GBIT = 1e9
MB_PER_GB = 1024.0  # RAM is quoted in GB; memory use in MB


def logical_cpus(node: Node) -> int:
    """Hardware threads of the node, what the OS lists as CPUs (``threads``, default cores)."""
    return node.sockets * (node.cores if node.threads is None else node.threads)


def processing_speed(node: Node) -> float:
    """Peak GFLOP/s of the node as TOP-Storm's Eq. 1 counts it.

    Table 4's "x 8" after "i7-6700 @ 3.40GHz" is what Ubuntu lists: logical
    CPUs, hardware threads, not the 4 physical cores; Eq. 1 multiplies it by
    the base clock and the "FLOPs/cycle" column (Linux's BogoMIPS, see
    :mod:`core.presets.top_storm`).
    """
    return logical_cpus(node) * node.ghz * node.flops_per_cycle


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


def node_cpu(node: Node) -> cpus.Cpu | None:
    """The CPU table's entry the node names (None without ``cpu_model``)."""
    return None if node.cpu_model is None else cpus.lookup(node.cpu_model)


def clock_ghz(node: Node) -> float:
    """The node's clock with every core busy, GHz.

    ``all_core_ghz`` when typed; else the table's all-core turbo when the node
    runs its CPU at the table's base clock (a ``ghz`` typed apart from it is
    the clock the user means); else ``ghz``.

    >>> clock_ghz(Node(id="a", cpu_model="i7-6700", slots=1)), clock_ghz(
    ...     Node(id="b", cpu_model="i7-6700", ghz=3.0, slots=1))
    (3.7, 3.0)
    """
    if node.all_core_ghz is not None:
        return node.all_core_ghz
    cpu = node_cpu(node)
    if cpu is not None and cpu.all_core_ghz is not None and node.ghz == cpu.base_ghz:
        return cpu.all_core_ghz
    return node.ghz


def per_clock(node: Node) -> float:
    """Work per clock relative to a Skylake core: typed, else the table's, else 1."""
    if node.per_clock is not None:
        return node.per_clock
    cpu = node_cpu(node)
    return 1.0 if cpu is None else cpu.per_clock.factor


def per_clock_range(node: Node) -> tuple[float, float] | None:
    """The low and high ends of the node's sourced per-clock range, when they move its speed.

    None when the node names no CPU, its microarchitecture's sources agree (a
    single value), or the user fixed the speed (``speed`` or ``per_clock`` typed).
    """
    cpu = node_cpu(node)
    if cpu is None or node.speed is not None or node.per_clock is not None:
        return None
    factor = cpu.per_clock
    return (factor.low, factor.high) if factor.has_range else None


def core_speed(node: Node, profiling: Profiling) -> float:
    """Single-thread speed of one core relative to the reference core of ``cpu_us``.

    The node's ``speed`` when given (what a user measures, e.g. a benchmark
    ratio), else ``clock_ghz x per_clock / profiling.reference_ghz``: the
    all-core clock (:func:`clock_ghz`) times the work per clock relative to
    Skylake (:func:`per_clock`), over the reference core's clock. FLOPs per
    cycle do not enter: they are TOP-Storm's ranking input (Eq. 1,
    :func:`processing_speed`), and string and hash-map work does not run at
    FLOP rates (docs/model.md). Per-type profiling, where given, overrides this
    for service times (:func:`core.problem.service_matrix`).

    Examples
    --------
    >>> from core.model import Node, Profiling
    >>> core_speed(Node(id="a", cores=4, ghz=1.5, slots=1, flops_per_cycle=4), Profiling())
    0.5
    >>> core_speed(Node(id="b", cores=4, ghz=2.4, slots=1, speed=1.3), Profiling())
    1.3
    >>> round(core_speed(Node(id="c", cpu_model="i5-M460", slots=1), Profiling()), 4)
    0.5313
    """
    if node.speed is not None:
        return node.speed
    return clock_ghz(node) * per_clock(node) / profiling.reference_ghz


PerClockEnd = Literal["low", "high"]


def has_per_clock_range(scenario: Scenario) -> bool:
    """Whether some node's speed moves inside a sourced per-clock range."""
    return any(per_clock_range(n) is not None for n in scenario.cluster.nodes)


def at_per_clock_end(scenario: Scenario, end: PerClockEnd) -> Scenario:
    """The scenario with every node's table per-clock factor at the low or high end of its range.

    Nodes without a range (:func:`per_clock_range`) keep theirs; the result
    is the scenario itself when no node has one.
    """
    if not has_per_clock_range(scenario):
        return scenario
    nodes = []
    for n in scenario.cluster.nodes:
        span = per_clock_range(n)
        value = None if span is None else span[0 if end == "low" else 1]
        nodes.append(n if value is None else n.model_copy(update={"per_clock": value}))
    return with_changes(scenario, cluster=Cluster(nodes=nodes))


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

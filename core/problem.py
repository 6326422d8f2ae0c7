"""One scenario as every scheduler and scorer sees it: a :class:`Problem`, built once.

A :class:`Problem` holds a validated :class:`core.model.Scenario`, its
:class:`core.topology.TopologyGraph` at one parallelism, the cluster as
arrays (:class:`core.hardware.NodeArrays`) and what each component costs on
each node (:func:`service_matrix`). Storm hands every scheduling strategy
the same ``Cluster`` and ``TopologyDetails`` objects [1]_; slotscope hands
its schedulers, scorers, CP-SAT models and trace one Problem.

:func:`problem_of` builds it once per scenario *content* and parallelism: a
small LRU keyed by the SHA-256 of the scenario's canonical JSON, the sorted
parallelism and Storm's cost constants, so two equal scenarios parsed twice
share one Problem, and a schedule's own parallelism gets its own.

This module sits right above :mod:`core.model`, :mod:`core.topology` and
:mod:`core.hardware` and imports nothing else of the project (the simulator
builds on it; ``tests/test_imports.py`` keeps it so).

References
----------
.. [1] Apache Storm 2.x, ``storm-server/src/main/java/org/apache/storm/scheduler/
   IScheduler.java`` (``schedule(Topologies, Cluster)``) and
   ``scheduler/resource/strategies/scheduling/IStrategy.java``.
"""

from __future__ import annotations

import hashlib
import json
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from threading import Lock

import numpy as np

from core.hardware import NodeArrays, core_speed, node_arrays, total_cores
from core.model import Scenario
from core.topology import ACK_TUPLE_BYTES, TopologyGraph, build_graph, locality_first_shuffle

US = 1e-6  # seconds per microsecond
MS = 1e-3  # seconds per millisecond
PROBLEMS_KEPT = 16  # Problems the LRU keeps (a page refresh needs one or two)


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
        step fits it.
    ack_tuple_bytes : float
        Size of an ack, B: root id + XOR of 64-bit tuple ids (Storm @Twitter).
    intra_worker_us, inter_worker_us, inter_node_us : float
        One-way transfer latency in a worker, between workers of a node and
        between nodes, us (Storm 2.0 release notes, Storm ``defaults.yaml``,
        datacenter latency tables).
    transfer_sleep_ms : float
        Storm 2.x worker transfer thread's sleep when idle, ms: a hop that
        leaves its worker waits for its next wake-up
        (:mod:`core.simulator.polling`; ``WorkerTransfer`` in Storm 2.0.0).
    spout_sleep_ms : float
        A spout executor's sleep when it emitted nothing, ms: the acker's
        message waits for its next wake-up (:mod:`core.simulator.polling`;
        the spout wait strategies of Storm 0.9.5 to 2.x).
    serialize_us, deserialize_us : float
        CPU per ~200 B tuple leaving / entering a worker, us.
    """

    executor_overhead_us: float = 0.0
    ack_tuple_bytes: float = ACK_TUPLE_BYTES
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


def service_matrix(
    graph: TopologyGraph, scenario: Scenario, costs: StormCosts = DEFAULT_COSTS
) -> tuple[np.ndarray, np.ndarray]:
    """Mean compute time per tuple and fixed overhead, per component and node.

    Compute time = profiled ``e_ms`` for the node's ``type`` when
    ``profiling.per_type`` has it, else ``cpu_us`` at the node's per-core
    speed (:func:`core.hardware.core_speed`), plus Storm's
    ``costs.executor_overhead_us`` at the node's core speed. ``met_pct``
    (Nasiri et al.'s fixed overhead, percent of the machine) is a
    rate-independent load of ``met_pct / 100 x cores`` per executor.

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


@dataclass(frozen=True, eq=False)
class Problem:
    """A validated scenario with what every scheduler and scorer derives from it.

    Build with :func:`problem_of` (cached); never mutated.

    Attributes
    ----------
    scenario : Scenario
    graph : TopologyGraph
        At this Problem's parallelism (the scenario's, or a schedule's own).
    nodes : NodeArrays
        The cluster as arrays.
    service_s : ndarray, shape (components, nodes)
        Mean compute time per tuple, seconds of one core (:func:`service_matrix`).
    fixed_cores : ndarray, shape (components, nodes)
        Rate-independent CPU of one executor, cores.
    costs : StormCosts
    key : str
        The content key the cache found it by.
    """

    scenario: Scenario
    graph: TopologyGraph
    nodes: NodeArrays
    service_s: np.ndarray
    fixed_cores: np.ndarray
    costs: StormCosts
    key: str

    @property
    def parallelism(self) -> Mapping[str, int]:
        """Executors per component (the graph's)."""
        return self.graph.parallelism

    def at(self, parallelism: Mapping[str, int] | None) -> Problem:
        """The Problem of the same scenario at another parallelism (cached)."""
        if parallelism is None or dict(parallelism) == dict(self.graph.parallelism):
            return self
        return problem_of(self.scenario, parallelism, self.costs)


# id(scenario) -> (weak reference, content hash, topology hash)
_CONTENT: dict[int, tuple[weakref.ref, str, str]] = {}
_PROBLEMS: OrderedDict[str, Problem] = OrderedDict()
# (topology hash, parallelism) -> graph: a rate edit or observations keep the graph
_GRAPHS: OrderedDict[tuple[str, tuple], TopologyGraph] = OrderedDict()
_LOCK = Lock()
_BUILDS = {"problems": 0}  # Problems built (not found): what a test counts


def _digest(data: object) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _hashes(scenario: Scenario) -> tuple[str, str]:
    """(content hash, topology hash) of a scenario, computed once per scenario object."""
    found = _CONTENT.get(id(scenario))
    if found is not None and found[0]() is scenario:
        return found[1], found[2]
    data = scenario.model_dump(mode="json", by_alias=True)
    digests = _digest(data), _digest(data["topology"])
    ident = id(scenario)
    ref = weakref.ref(scenario, lambda _ref: _CONTENT.pop(ident, None))
    _CONTENT[ident] = (ref, *digests)
    return digests


def content_hash(scenario: Scenario) -> str:
    """SHA-256 of a scenario's canonical JSON, computed once per scenario object.

    Scenarios are frozen, so the hash of an object never changes; it is kept
    while the object lives.
    """
    return _hashes(scenario)[0]


def _parallelism(scenario: Scenario, parallelism: Mapping[str, int] | None) -> tuple:
    """The effective executors per component, sorted (as :func:`build_graph` applies them)."""
    own = {c.id: c.parallelism for c in scenario.topology.components}
    if parallelism:
        own.update({c: int(p) for c, p in parallelism.items() if c in own})
    return tuple(sorted(own.items()))


def graph_of(scenario: Scenario, parallelism: Mapping[str, int] | None = None) -> TopologyGraph:
    """The topology graph of a scenario at a parallelism, built once per topology content.

    Only the topology enters the graph, so scenarios that differ in their
    cluster, workload or observations share it (and the shuffle Storm's version
    implies: :func:`core.topology.locality_first_shuffle`).
    """
    key = (
        _hashes(scenario)[1],
        _parallelism(scenario, parallelism),
        locality_first_shuffle(scenario),
    )
    with _LOCK:
        found = _GRAPHS.get(key)
        if found is not None:
            _GRAPHS.move_to_end(key)
            return found
    graph = build_graph(scenario, parallelism)
    with _LOCK:
        _GRAPHS[key] = graph
        while len(_GRAPHS) > PROBLEMS_KEPT:
            _GRAPHS.popitem(last=False)
    return graph


def problem_key(
    scenario: Scenario, parallelism: Mapping[str, int] | None, costs: StormCosts
) -> str:
    """The cache key of a Problem: content hash, effective parallelism, cost constants."""
    extra = _digest([_parallelism(scenario, parallelism), asdict(costs)])
    return f"{content_hash(scenario)}:{extra[:16]}"


def problem_of(
    scenario: Scenario | Problem,
    parallelism: Mapping[str, int] | None = None,
    costs: StormCosts = DEFAULT_COSTS,
) -> Problem:
    """The :class:`Problem` of a validated scenario at a parallelism (built once).

    Parameters
    ----------
    scenario : Scenario or Problem
        A Problem is returned as is (at ``parallelism`` when one is given).
    parallelism : mapping, optional
        Executors per component overriding the scenario's own.
    costs : StormCosts, optional
        Storm's global per-tuple costs.

    Examples
    --------
    >>> from core.presets import preset
    >>> p = problem_of(preset("lf-linear"))
    >>> p is problem_of(preset("lf-linear")), p.service_s.shape
    (True, (9, 8))
    """
    if isinstance(scenario, Problem):
        if costs == scenario.costs:
            return scenario.at(parallelism)
        return problem_of(scenario.scenario, parallelism or scenario.parallelism, costs)
    key = problem_key(scenario, parallelism, costs)
    with _LOCK:
        found = _PROBLEMS.get(key)
        if found is not None:
            _PROBLEMS.move_to_end(key)
            return found
    graph = graph_of(scenario, parallelism)
    service, fixed = service_matrix(graph, scenario, costs)
    problem = Problem(scenario, graph, node_arrays(scenario), service, fixed, costs, key)
    with _LOCK:
        _BUILDS["problems"] += 1
        _PROBLEMS[key] = problem
        while len(_PROBLEMS) > PROBLEMS_KEPT:
            _PROBLEMS.popitem(last=False)
    return problem


def problems_built() -> int:
    """How many Problems :func:`problem_of` has built (cache misses) so far."""
    return _BUILDS["problems"]


def clear_problems() -> None:
    """Forget every cached Problem (benchmarks measure a cold start)."""
    with _LOCK:
        _PROBLEMS.clear()
        _GRAPHS.clear()

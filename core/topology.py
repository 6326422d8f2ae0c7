"""The topology as a graph: components, streams, executors, orders.

Everything a scheduler or the simulator needs to walk the DAG, computed once
per scenario into an immutable :class:`TopologyGraph`. Storm's ackers
(``topology.ackers`` > 0) appear here as the component ``__acker``, fed by a
fields-grouped stream from every other component, as Storm wires them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx

from core.model import ACKER_ID, Component, Scenario, Stream


@dataclass(frozen=True)
class TopologyGraph:
    """Components, streams and executors of a topology, with its orders.

    ``order`` is the topological order of component ids, ties broken by the
    order in which the scenario lists the components (so ``spout, split,
    count`` stays in that order). ``preds`` and ``succs`` list neighbours in
    that topological order.
    """

    components: Mapping[str, Component]
    streams: tuple[Stream, ...]
    parallelism: Mapping[str, int]
    order: tuple[str, ...]
    preds: Mapping[str, tuple[str, ...]]
    succs: Mapping[str, tuple[str, ...]]
    reliable_spouts: bool = True  # acks flow to the ackers (topology.reliable_spouts)
    # Storm 2.0.0's shuffle: a sender keeps its tuples in its own worker when it holds
    # targets (:func:`locality_first_shuffle`); else shuffle is uniform
    locality_first: bool = False

    @property
    def spouts(self) -> tuple[str, ...]:
        return tuple(c for c in self.order if not self.preds[c])

    @property
    def sinks(self) -> tuple[str, ...]:
        """Components without output streams (ackers excluded)."""
        return tuple(
            c
            for c in self.order
            if c != ACKER_ID and not [s for s in self.succs[c] if s != ACKER_ID]
        )

    def executors(self, component: str) -> list[str]:
        return [executor_id(component, i) for i in range(self.parallelism[component])]

    def executors_topological(self) -> list[str]:
        """All executors, components in topological order, then by index."""
        return [e for c in self.order for e in self.executors(c)]

    def executors_task_order(self) -> list[str]:
        """All executors in Storm's task-id order: components by id, then index."""
        return [e for c in sorted(self.components) for e in self.executors(c)]

    def stream(self, source: str, target: str) -> Stream:
        for s in self.streams:
            if s.source == source and s.target == target:
                return s
        raise KeyError((source, target))

    @property
    def executor_count(self) -> int:
        return sum(self.parallelism.values())


def executor_id(component: str, index: int) -> str:
    return f"{component}#{index}"


def component_of(executor: str) -> str:
    return executor.rsplit("#", 1)[0]


def index_of(executor: str) -> int:
    return int(executor.rsplit("#", 1)[1])


def storm_major(scenario: Scenario) -> int | None:
    """The major release of ``scenario.storm_version`` (None when unset)."""
    version = scenario.storm_version
    return None if version is None else int(version.split(".")[0])


def locality_first_shuffle(scenario: Scenario) -> bool:
    """True when the scenario's shuffle streams are Storm 2's locality-first shuffle.

    Storm 2.0.0 routes ``shuffle`` (and ``local-or-shuffle``) through
    ``LoadAwareShuffleGrouping`` (``daemon/GrouperFactory.java``; on unless
    ``topology.disable.loadaware.messaging``): a sender keeps to the closest of
    the scopes worker, host, rack, everything that holds targets, and widens it
    only when their mean load, the fill of their receive queues, passes
    ``topology.localityaware.higher.bound`` (0.8, ``defaults.yaml``). A target
    that keeps up has a near-empty queue, so in the steady state below
    saturation the sender keeps to its narrowest scope, evenly. Storm 1.x's
    ``LoadAwareShuffleGrouping`` weighs targets by ``101 - 100 x load``: even
    while they keep up, so uniform (Storm 1.2.3, same file). Unset: uniform.
    """
    major = storm_major(scenario)
    return major is not None and major >= 2


# An ack tuple, B: the root id and the XOR of 64-bit tuple ids (Storm @Twitter, SIGMOD 2014).
ACK_TUPLE_BYTES = 40


def acker_component(scenario: Scenario) -> Component:
    topo = scenario.topology
    return Component(
        id=ACKER_ID,
        parallelism=topo.ackers,
        kind="bolt",
        cpu_us=topo.acker_cpu_us,
        selectivity=0.0,
        tuple_bytes=ACK_TUPLE_BYTES,
        cpu_pct=topo.acker_cpu_pct,
        memory_mb=topo.acker_memory_mb,
        offheap_mb=topo.acker_offheap_mb,
    )


def build_graph(scenario: Scenario, parallelism: Mapping[str, int] | None = None) -> TopologyGraph:
    """The topology graph of a (validated) scenario.

    Parameters
    ----------
    scenario : Scenario
    parallelism : mapping, optional
        Executors per component overriding the scenario's own (the
        heterogeneity-aware scheduler chooses its own).
    """
    topo = scenario.topology
    comps = list(topo.components)
    streams = list(topo.streams)
    if topo.ackers > 0:
        comps.append(acker_component(scenario))
        streams += [
            Stream(**{"from": c.id, "to": ACKER_ID, "grouping": "fields"}) for c in topo.components
        ]
    position = {c.id: i for i, c in enumerate(comps)}
    graph = nx.DiGraph()
    graph.add_nodes_from(position)
    graph.add_edges_from((s.source, s.target) for s in streams)
    order = tuple(nx.lexicographical_topological_sort(graph, key=position.__getitem__))
    rank = {c: i for i, c in enumerate(order)}
    preds = {c: tuple(sorted(graph.predecessors(c), key=rank.__getitem__)) for c in order}
    succs = {c: tuple(sorted(graph.successors(c), key=rank.__getitem__)) for c in order}
    par = {c.id: c.parallelism for c in comps}
    if parallelism:
        par.update({c: int(p) for c, p in parallelism.items() if c in par})
    return TopologyGraph(
        components={c.id: c for c in comps},
        streams=tuple(streams),
        parallelism=par,
        order=order,
        preds=preds,
        succs=succs,
        reliable_spouts=topo.reliable_spouts,
        locality_first=locality_first_shuffle(scenario),
    )


def executor_edges(graph: TopologyGraph) -> list[tuple[str, str, Stream]]:
    """Executor-level edges: which executor can send to which, per stream.

    Shuffle, fields, all and local-or-shuffle connect every upstream executor
    to every downstream one (which of them are used depends on placement or
    keys); global sends everything to the downstream executor with the lowest
    task id (index 0), as Storm does.
    """
    edges = []
    for s in graph.streams:
        targets = graph.executors(s.target)
        if s.grouping == "global":
            targets = targets[:1]
        for u in graph.executors(s.source):
            edges.extend((u, v, s) for v in targets)
    return edges

"""The storm-large presets account resources as Storm does (issue 21 item 3).

A preset topology goes Nimbus conf -> scenario (core/importers/stormser.py
``to_scenario_topology``) -> RAS (core/ras/scenario.py ``from_scenario``); the corpus
path reads Nimbus's conf directly (core/ras/corpus.py ``topology_from_doc``, with
unset parallelism hints run once and the declared ackers, as Nimbus runs them). Both
must give the same :class:`RasTopology`: every request (CPU, on-heap, off-heap), the
acker request, worker heap, priority, constraints and Storm settings. The differences
that stay are the scenario format's, each checked to be only that:

- generic resources (``network.resource.units``, 33 corpus components) are not carried;
- the format is acyclic and has no self-loops: such streams are dropped (noted), and a
  bolt left without input is a source;
- groupings the format lacks (direct, custom, none) become shuffle, so a component's
  ``shuffle_inputs`` may grow; only ``topology.ras.order.executors.by.proximity.needs``
  reads them, and no corpus topology sets it;
- components with parallelism 0 are left out (they have no executors);
- ``scheduling.timeout.seconds.per.topology`` is Nimbus's (DaemonConfig) wall-clock
  limit, which the corpus path takes from each conf (300 or 900 s): a scenario runs at
  Storm's default 60 s. It changes nothing unless a search runs out of time.
"""

from __future__ import annotations

import dataclasses
import functools

import pytest

from core.importers.stormser import to_scenario_topology
from core.presets import preset
from core.presets.storm_large import PRESET_NAMES
from core.ras.corpus import (
    corpus_stormser,
    corpus_topologies,
    large_cluster_supervisors,
    load_corpus,
)
from core.ras.model import DEFAULT_MAX_TIME_SECS, RasCluster, RasTopology, Request
from core.ras.scenario import from_scenario
from core.ras.schedule import schedule_cluster

COMPONENT_FIELDS = {"components"}  # compared component by component below
NIMBUS_FIELDS = {"timeout_secs"}  # Nimbus's setting, not the topology's (see above)
GENERIC = {"network.resource.units"}  # the only generic resource the corpus requests


@functools.lru_cache(maxsize=3)
def _both(preset_name: str) -> tuple[list[RasTopology], dict[str, RasTopology]]:
    _cluster, scenario_tops = from_scenario(preset(preset_name))
    corpus = corpus_topologies(PRESET_NAMES[preset_name], "nimbus", ackers=True)
    return scenario_tops, {t.name: t for t in corpus}


@functools.lru_cache(maxsize=3)
def _notes(preset_name: str) -> dict[str, list[str]]:
    return {t.name: to_scenario_topology(t)[1] for t in corpus_stormser(PRESET_NAMES[preset_name])}


def _plain(request: Request) -> Request:
    return dataclasses.replace(request, generic={})


@pytest.mark.parametrize("name", list(PRESET_NAMES))
def test_preset_topologies_equal_the_corpus_in_storms_accounting(name):
    scenario_tops, corpus = _both(name)
    notes = _notes(name)
    assert len(scenario_tops) == len(corpus)
    for topo in scenario_tops:
        ref = corpus[topo.name]
        for f in dataclasses.fields(RasTopology):
            if f.name not in COMPONENT_FIELDS | NIMBUS_FIELDS:
                assert getattr(topo, f.name) == getattr(ref, f.name), (topo.name, f.name)
        assert topo.timeout_secs == DEFAULT_MAX_TIME_SECS
        assert not ref.order_by_proximity  # the only reader of shuffle_inputs
        kept = [c for c in ref.components if c.parallelism > 0]
        assert [c.id for c in topo.components] == [c.id for c in kept], topo.name
        said = "\n".join(notes[topo.name])
        for mine, theirs in zip(topo.components, kept, strict=True):
            where = (topo.name, mine.id)
            assert mine.parallelism == theirs.parallelism, where
            assert mine.request == _plain(theirs.request), where
            assert set(theirs.request.generic) <= GENERIC, where
            assert mine.shared_memory == theirs.shared_memory == (), where
            if mine.kind != theirs.kind:
                assert (mine.kind, theirs.kind) == ("spout", "bolt"), where
                assert f"bolt '{mine.id}' has no input stream left" in said, where
            assert set(mine.inputs) <= set(theirs.inputs), where
            for src in set(theirs.inputs) - set(mine.inputs):
                assert src == mine.id or f"'{src}' -> '{mine.id}'" in said, (where, src)
            assert set(theirs.shuffle_inputs) <= set(mine.shuffle_inputs) | (
                set(theirs.inputs) - set(mine.inputs)
            ), where


def test_the_corpus_declares_no_shared_memory():
    """So the scenario format need not carry it (storm.thrift ``shared_memory``)."""
    docs = [t for c in load_corpus()["clusters"].values() for t in c["topologies"]]
    assert len(docs) == 135
    assert not any(t.get("shared") for t in docs)


def test_storm_large_03_off_heap_and_acker_requests_reach_the_strategies():
    """Numbers from the corpus conf of largeCluster03's TopologyName00001:
    topology.component.resources.offheap.memory.mb 110; acker 100 % CPU, 350 MB on heap."""
    scenario_tops, _corpus = _both("storm-large-cluster-03")
    topo = next(t for t in scenario_tops if t.name == "TopologyName00001")
    spout = topo.all_components[topo.comp_index["Spout-0"]]
    assert spout.request == Request(100.0, 2500.0, 110.0)
    assert topo.acker_request == Request(100.0, 350.0, 110.0)
    assert topo.comp_offheap[topo.acker_comp] == 110.0


@pytest.mark.parametrize("name", list(PRESET_NAMES))
def test_preset_nodes_are_testlargeclusters_supervisors(name):
    cluster, _tops = from_scenario(preset(name))
    ref = large_cluster_supervisors(PRESET_NAMES[name])
    mine = [(s.id, s.rack, s.ports, s.cpu, s.memory) for s in cluster.supervisors]
    assert mine == [(s.id, s.rack, s.ports, s.cpu, s.memory) for s in ref]


def test_ras_default_places_storm_large_03_as_the_corpus_path():
    """ras-default on every topology of largeCluster03, through the preset and the corpus.

    Two differences of the scenario format are taken out of the corpus side: a scenario
    node is its own host (TestLargeCluster names hosts ``host-MMM-rack-NNN``, and
    NodeSorterHostProximity orders hosts by name among equals), and generic resources
    are not carried (the supervisors' 50 ``network.resource.units`` and Bolt-0 of
    TopologyName00048's 50). TopologyName00047's search is cut to 500 states on both
    sides to keep the test short; it does not fit either way, as Storm accounts it.
    """
    cluster, tops = from_scenario(preset("storm-large-cluster-03"))
    sups = [
        dataclasses.replace(s, host=s.id, generic={})
        for s in large_cluster_supervisors("largeCluster03")
    ]
    ref_cluster = RasCluster(sups, daemon_max_state_search=100_000)
    ref_tops = [
        dataclasses.replace(
            t,
            components=[dataclasses.replace(c, request=_plain(c.request)) for c in t.components],
        )
        for t in corpus_topologies("largeCluster03", "nimbus", ackers=True)
    ]
    for topo in (*tops, *ref_tops):
        if topo.name == "TopologyName00047":
            topo.max_state_search = 500
    mine = schedule_cluster(cluster, tops, "ras-default")
    theirs = schedule_cluster(ref_cluster, ref_tops, "ras-default")
    failed = sorted(n for n, r in mine.results.items() if not r.success)
    assert failed == sorted(n for n, r in theirs.results.items() if not r.success)
    assert failed == ["TopologyName00047"]
    assert cluster.assignments == ref_cluster.assignments
    assert len(cluster.assignments) == 49
    assert cluster.used_mem.tolist() == ref_cluster.used_mem.tolist()

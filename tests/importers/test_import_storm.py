"""Storm UI REST responses -> scenario: components, parallelism, groupings, nodes, messages."""

from __future__ import annotations

import copy

import pytest
from fixture_files import FIXTURES, mutated, mutations

from core.importers import import_documents, import_sources
from core.importers.storm import storm_scenario
from core.model import ScenarioError


def _by_id(scenario):
    return {c.id: c for c in scenario.topology.components}


def test_docs_sample_gives_wordcount3_with_its_parallelism_and_measured_costs(storm_docs):
    imported = storm_scenario(**storm_docs)
    sc = imported.scenario
    comps = _by_id(sc)
    assert sc.name == "WordCount3"
    assert {c: comps[c].parallelism for c in comps} == {"spout": 5, "count": 12, "split": 8}
    assert comps["spout"].kind == "spout" and comps["split"].kind == "bolt"
    # executeLatency "0.024" / "0.048" ms -> 24 / 48 us per tuple
    assert comps["split"].cpu_us == pytest.approx(24.0)
    assert comps["count"].cpu_us == pytest.approx(48.0)
    # emitted / executed: split 184500 / 28780
    assert comps["split"].selectivity == pytest.approx(184500 / 28780, abs=1e-6)
    assert sc.topology.workers == 3
    # no __acker listed, no topology.acker.executors: Storm uses one acker per worker
    assert sc.topology.ackers == 3
    # window "600": spout emitted 28880 in 600 s
    assert sc.workload.rate == pytest.approx(28880 / 600, abs=1e-3)


def test_visualization_inputs_become_streams_with_storm_groupings(storm_docs):
    sc = storm_scenario(**storm_docs).scenario
    streams = {(s.source, s.target): s.grouping for s in sc.topology.streams}
    # split -> count arrives twice (streams "default" and "counts"): one stream here;
    # the __acker's inputs are system streams and are left out
    assert streams == {("spout", "split"): "shuffle", ("split", "count"): "fields"}


def test_supervisor_summary_gives_nodes_cores_memory_and_slots(storm_docs):
    imported = storm_scenario(**storm_docs)
    (node,) = imported.scenario.cluster.nodes
    assert node.id == "10.11.1.7" and node.slots == 4
    assert node.cores == 4  # totalCpu 400 % of one core
    assert node.ram_gb == pytest.approx(3000 / 1024)  # totalMem 3000 MB
    assert node.ghz == pytest.approx(3.0)
    assert any(w.startswith("node clock:") for w in imported.warnings)
    assert any(w.startswith("cpu_us of spout:") for w in imported.warnings)


def test_storm_ui_fixtures_give_two_supervisors_and_an_all_time_rate():
    imported = import_sources(
        [
            str(FIXTURES / "storm_ui_topology_detail.json"),
            str(FIXTURES / "storm_ui_topology_visualization.json"),
            str(FIXTURES / "storm_ui_supervisor_summary.json"),
        ]
    )
    sc = imported.scenario
    assert [(n.id, n.slots, n.cores, n.ram_gb) for n in sc.cluster.nodes] == [
        ("supervisor-host-1", 4, 4, 4.0),
        ("supervisor-host-2", 4, 4, 4.0),
    ]
    assert {c.id: c.parallelism for c in sc.topology.components} == {
        "spout": 3,
        "split": 6,
        "count": 6,
    }
    assert _by_id(sc)["split"].selectivity == pytest.approx(3.0)
    # no window: all time, 200e9 emitted over uptimeSeconds 106210
    assert sc.workload.rate == pytest.approx(200e9 / 106210, abs=1e-3)


def test_listed_acker_executors_become_topology_ackers(storm_docs):
    topo = copy.deepcopy(storm_docs["topology"])
    topo["bolts"].append({"boltId": "__acker", "executors": 7})
    topo["bolts"].append({"boltId": "__system", "executors": 1})
    sc = storm_scenario(topo, storm_docs["visualization"], storm_docs["supervisors"]).scenario
    assert sc.topology.ackers == 7
    assert {c.id for c in sc.topology.components} == {"spout", "split", "count"}


def test_without_supervisors_default_storm_nodes_are_used_and_said(storm_docs):
    imported = storm_scenario(storm_docs["topology"], storm_docs["visualization"], None)
    nodes = imported.scenario.cluster.nodes
    # W = 3 workers, Storm's default 4 slots per supervisor -> one node
    assert [(n.slots, n.cores, n.ram_gb) for n in nodes] == [(4, 4, 4.0)]
    assert any("no /api/v1/supervisor/summary" in w for w in imported.warnings)


@pytest.mark.parametrize(
    ("grouping", "expected"),
    [("local_or_shuffle", "local-or-shuffle"), ("all", "all"), ("none", "shuffle")],
)
def test_storm_grouping_names_map_to_slotscope_groupings(storm_docs, grouping, expected):
    viz = copy.deepcopy(storm_docs["visualization"])
    viz["split"][":inputs"][0][":grouping"] = grouping
    sc = storm_scenario(storm_docs["topology"], viz, None).scenario
    assert {(s.source, s.target): s.grouping for s in sc.topology.streams}[
        ("spout", "split")
    ] == expected


def test_direct_grouping_is_modelled_as_shuffle_with_a_warning(storm_docs):
    viz = copy.deepcopy(storm_docs["visualization"])
    viz["split"][":inputs"][0][":grouping"] = "direct"
    imported = storm_scenario(storm_docs["topology"], viz, None)
    assert imported.scenario.topology.streams[0].grouping == "shuffle"
    assert "stream spout -> split: direct grouping" in " ".join(imported.warnings)


def _message(**kw) -> str:
    with pytest.raises(ScenarioError) as err:
        storm_scenario(**kw)
    return str(err.value)


def test_unknown_grouping_is_refused_naming_the_field(storm_docs):
    viz = copy.deepcopy(storm_docs["visualization"])
    viz["split"][":inputs"][0][":grouping"] = "zigzag"
    msg = _message(topology=storm_docs["topology"], visualization=viz, supervisors=None)
    assert msg.startswith("storm visualization: split.:inputs[0].:grouping: unknown grouping")
    assert "'zigzag'" in msg


def test_missing_and_bad_executors_are_named(storm_docs):
    topo = copy.deepcopy(storm_docs["topology"])
    del topo["spouts"][0]["executors"]
    msg = _message(topology=topo, visualization=storm_docs["visualization"], supervisors=None)
    assert msg == "storm topology: spouts[0].executors: required field is missing"
    topo["spouts"][0]["executors"] = "five"
    msg = _message(topology=topo, visualization=storm_docs["visualization"], supervisors=None)
    assert msg == "storm topology: spouts[0].executors: expected an integer >= 1, got 'five'"
    topo["spouts"][0]["executors"] = float("nan")  # Python's json reads a bare NaN
    msg = _message(topology=topo, visualization=storm_docs["visualization"], supervisors=None)
    assert msg == "storm topology: spouts[0].executors: expected an integer >= 1, got nan"


def test_stream_from_a_component_the_topology_lacks_is_named(storm_docs):
    topo = copy.deepcopy(storm_docs["topology"])
    topo["bolts"] = [b for b in topo["bolts"] if b["boltId"] != "count"]
    msg = _message(topology=topo, visualization=storm_docs["visualization"], supervisors=None)
    assert msg == (
        "storm visualization: count: component is not in the topology response's spouts or bolts"
    )


def test_a_bolt_the_visualization_does_not_feed_is_named(storm_docs):
    viz = {k: v for k, v in storm_docs["visualization"].items() if k != "count"}
    msg = _message(topology=storm_docs["topology"], visualization=viz, supervisors=None)
    assert msg == (
        "storm visualization: no input stream for bolt count: is it the same topology's?"
    )


def test_supervisor_without_slots_total_is_named(storm_docs):
    sups = copy.deepcopy(storm_docs["supervisors"])
    del sups["supervisors"][0]["slotsTotal"]
    msg = _message(
        topology=storm_docs["topology"], visualization=storm_docs["visualization"], supervisors=sups
    )
    assert msg == "storm supervisor summary: supervisors[0].slotsTotal: required field is missing"


def test_topology_without_visualization_asks_for_it(storm_docs):
    msg = _message(topology=storm_docs["topology"], visualization=None, supervisors=None)
    assert "/api/v1/topology/<id>/visualization" in msg


def test_docs_sample_as_published_is_refused_as_invalid_json():
    with pytest.raises(ScenarioError) as err:
        import_sources([str(FIXTURES / "storm_docs_topology_verbatim.json")])
    assert (
        "storm_docs_topology_verbatim.json: not valid JSON (Expecting ',' delimiter: line 33"
        in (str(err.value))
    )


@pytest.mark.parametrize("which", ["topology", "visualization", "supervisors"])
def test_any_damaged_field_gives_a_scenario_or_a_named_error_never_a_traceback(storm_docs, which):
    doc = storm_docs[which]
    if which == "topology":  # the configuration block is not read: skip its 40 keys
        doc = {k: v for k, v in doc.items() if k != "configuration"}
    tried = 0
    for path, replacement in mutations(doc):
        docs = dict(storm_docs, **{which: mutated(doc, path, replacement)})
        try:
            import_documents([(k, v) for k, v in docs.items()])
        except ScenarioError as err:
            assert str(err)
        tried += 1
    assert tried > 20


def test_counts_beyond_the_limits_fail_before_anything_is_built(storm_docs):
    docs = copy.deepcopy(storm_docs)
    docs["topology"]["bolts"][0]["executors"] = 50_000  # after the 5 spout executors
    with pytest.raises(
        ScenarioError, match=r"bolts\[0\].executors: 50,000 brings the topology to 50,005"
    ):
        storm_scenario(**docs)
    docs = copy.deepcopy(storm_docs)
    docs["topology"]["workersTotal"] = 10**9
    with pytest.raises(ScenarioError, match=r"workersTotal: 1,000,000,000 workers need more"):
        storm_scenario(**{**docs, "supervisors": None})
    one = docs["supervisors"]["supervisors"][0]
    docs["supervisors"] = {"supervisors": [dict(one, id=str(i)) for i in range(5_001)]}
    with pytest.raises(ScenarioError, match=r"supervisors: 5,001 supervisors, the limit is 5,000"):
        storm_scenario(**docs)


def test_a_supervisor_host_or_a_component_id_given_as_a_number_is_refused(storm_docs):
    docs = copy.deepcopy(storm_docs)
    docs["supervisors"]["supervisors"][0]["host"] = 7  # Storm sends a string
    assert _message(**docs) == (
        "storm supervisor summary: supervisors[0].host: expected a non-empty string, got 7"
    )
    docs = copy.deepcopy(storm_docs)
    docs["topology"]["bolts"][1]["boltId"] = 12
    assert (
        _message(**docs) == "storm topology: bolts[1].boltId: expected a non-empty string, got 12"
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("executeLatency", 1e308, "bolts[0].executeLatency: 1e+308 is too large (at most 1e+12)"),
        ("executeLatency", "2e12", "bolts[0].executeLatency: 2e+12 is too large (at most 1e+12)"),
        ("executed", -1, "bolts[0].executed: expected a tuple count >= 0, got -1"),
        ("emitted", -5, "bolts[0].emitted: expected a tuple count >= 0, got -5"),
        ("emitted", 1e308, "bolts[0].emitted: 1e+308 is too large (at most 1e+15)"),
        ("requestedCpu", 1e20, "bolts[0].requestedCpu: 1e+20 is too large (at most 1e+15)"),
    ],
)
def test_a_figure_the_scenario_cannot_take_is_refused_by_its_storm_name(
    storm_docs, key, value, message
):
    docs = copy.deepcopy(storm_docs)
    docs["topology"]["bolts"][0][key] = value
    assert _message(**docs) == f"storm topology: {message}"


def test_a_selectivity_past_the_limit_names_the_emitted_count(storm_docs):
    docs = copy.deepcopy(storm_docs)
    docs["topology"]["bolts"][0].update(emitted=1e15, executed=0.5)  # 2e15 tuples per tuple
    assert _message(**docs) == (
        "storm topology: bolts[0].emitted: 1e+15 tuples emitted for 0.5 executed is a "
        "selectivity above 1e+15"
    )
    docs["topology"]["bolts"][0].update(emitted=10, executed=4)  # within: 2.5
    assert _by_id(storm_scenario(**docs).scenario)["count"].selectivity == 2.5

"""The stormcode/stormconf reader: a hand-encoded Thrift StormTopology, and bad files."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

import pytest

from core.importers import import_sources
from core.importers.stormser import (
    StormSerError,
    parse_stormcode,
    read_stormser,
    to_scenario_topology,
)
from core.model import ScenarioError


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">i", len(raw)) + raw


def _field(ttype: int, fid: int, payload: bytes) -> bytes:
    return bytes([ttype]) + struct.pack(">h", fid) + payload


def _common(inputs: list[tuple[str, str, bytes]], hint: int, conf: dict | None) -> bytes:
    body = bytes([12, 12]) + struct.pack(">i", len(inputs))
    for comp, stream, grouping in inputs:
        body += _field(11, 1, _s(comp)) + _field(11, 2, _s(stream)) + b"\x00" + grouping
    out = _field(13, 1, body)
    out += _field(13, 2, bytes([11, 12]) + struct.pack(">i", 0))
    out += _field(8, 3, struct.pack(">i", hint))
    if conf is not None:
        out += _field(11, 4, _s(json.dumps(conf)))
    return out + b"\x00"


def _component(common: bytes) -> bytes:
    obj = _field(11, 1, _s("java-bytes")) + b"\x00"  # ComponentObject.serialized_java
    return _field(12, 1, obj) + _field(12, 2, common) + b"\x00"


SHUFFLE = _field(12, 2, b"\x00") + b"\x00"
FIELDS = _field(15, 1, bytes([11]) + struct.pack(">i", 1) + _s("word")) + b"\x00"


def _topology() -> bytes:
    spouts = bytes([11, 12]) + struct.pack(">i", 1)
    spouts += _s("spout") + _component(_common([], 2, {"topology.component.cpu.pcore.percent": 50}))
    bolts = bytes([11, 12]) + struct.pack(">i", 2)
    bolts += _s("split") + _component(
        _common(
            [("spout", "default", SHUFFLE)],
            3,
            {"topology.component.resources.onheap.memory.mb": 256},
        )
    )
    bolts += _s("count") + _component(_common([("split", "default", FIELDS)], 4, None))
    body = _field(13, 1, spouts) + _field(13, 2, bolts)
    body += _field(13, 3, bytes([11, 12]) + struct.pack(">i", 0)) + _field(11, 7, _s("2.6.0"))
    return gzip.compress(body + b"\x00")


def _conf() -> bytes:
    conf = {"topology.name": "wc", "topology.workers": 2, "topology.priority": 1, "other": 1}
    return gzip.compress(json.dumps(conf).encode())


def _write(tmp_path, code: bytes, conf: bytes):
    (tmp_path / "wc-stormcode.ser").write_bytes(code)
    (tmp_path / "wc-stormconf.ser").write_bytes(conf)
    return tmp_path / "wc-stormcode.ser"


def test_reads_components_groupings_and_conf(tmp_path):
    topo = read_stormser(_write(tmp_path, _topology(), _conf()))
    assert topo.name == "wc" and topo.storm_version == "2.6.0"
    assert [(c.id, c.kind, c.parallelism) for c in topo.components] == [
        ("spout", "spout", 2),
        ("split", "bolt", 3),
        ("count", "bolt", 4),
    ]
    assert topo.executors == 9
    split, count = topo.components[1], topo.components[2]
    assert (split.inputs[0].component, split.inputs[0].grouping) == ("spout", "shuffle")
    assert (count.inputs[0].grouping, count.inputs[0].fields) == ("fields", ("word",))
    assert topo.conf == {"topology.name": "wc", "topology.workers": 2, "topology.priority": 1}


def test_converts_to_scenario_topology(tmp_path):
    doc, notes = to_scenario_topology(read_stormser(_write(tmp_path, _topology(), _conf())))
    assert notes == []
    assert doc["workers"] == 2
    assert [(c["id"], c["cpu_pct"], c["memory_mb"]) for c in doc["components"]] == [
        ("spout", 50.0, 128.0),
        ("split", 10.0, 256.0),
        ("count", 10.0, 128.0),
    ]
    assert doc["streams"] == [
        {"from": "spout", "to": "split", "grouping": "shuffle"},
        {"from": "split", "to": "count", "grouping": "fields"},
    ]


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (b"", "the file is empty"),
        (b"\x1f\x8b\x08\x00garbage", "not a complete gzip file"),
        (gzip.compress(gzip.decompress(_topology())[:40]), "truncated Thrift data"),
        (gzip.compress(b"\x0d\x00\x01\x0b\x0c\x7f\xff\xff\xff"), "bad Thrift length"),
    ],
    # named ids: a gzip header carries the time, and pytest-xdist's workers must collect
    # the same test ids
    ids=["empty", "not-gzip", "truncated-thrift", "bad-thrift-length"],
)
def test_bad_files_give_one_line(tmp_path, code, words):
    with pytest.raises(StormSerError) as err:
        read_stormser(_write(tmp_path, code, _conf()))
    assert words in str(err.value) and "\n" not in str(err.value)


def test_topology_without_executors_is_refused(tmp_path):
    empty = b"".join(_field(13, fid, bytes([11, 12]) + struct.pack(">i", 0)) for fid in (1, 2, 3))
    with pytest.raises(StormSerError, match="no spout or bolt executors"):
        read_stormser(_write(tmp_path, gzip.compress(empty + b"\x00"), _conf()))


def test_bad_conf(tmp_path):
    with pytest.raises(StormSerError, match="not JSON"):
        read_stormser(_write(tmp_path, _topology(), gzip.compress(b"{no")))


def test_missing_file(tmp_path):
    with pytest.raises(StormSerError, match="no such file"):
        read_stormser(tmp_path / "x-stormcode.ser")


def test_parse_rejects_trailing_bytes():
    data = gzip.compress(gzip.decompress(_topology()) + b"xx")
    with pytest.raises(StormSerError, match="bytes after the topology"):
        parse_stormcode(data)


def test_converter_drops_cycles_self_loops_and_system_inputs():
    from core.importers.stormser import StormComponent, StormInput, StormSerTopology

    comps = (
        StormComponent("s", "spout", 1),
        StormComponent(
            "a",
            "bolt",
            2,
            (StormInput("s", "default", "shuffle"), StormInput("b", "default", "direct")),
        ),
        StormComponent(
            "b",
            "bolt",
            2,
            (StormInput("a", "default", "all"), StormInput("b", "default", "shuffle")),
        ),
        StormComponent("c", "bolt", 1, (StormInput("__system", "tick", "shuffle"),)),
    )
    doc, notes = to_scenario_topology(StormSerTopology("t", comps, {}))
    assert [(s["from"], s["to"], s["grouping"]) for s in doc["streams"]] == [
        ("s", "a", "shuffle"),
        ("a", "b", "all"),  # b -> a, back toward the spout, dropped
    ]
    assert "kind" not in doc["components"][3]  # 'c' lost its only input: a source now
    assert len(notes) == 5  # direct grouping, b -> a cycle, b -> b, __system input, 'c'


def test_corpus_converts_to_valid_scenarios():
    """Every largeCluster03 topology becomes a valid scenario on its 80 supervisors."""
    from core.model import validate_scenario
    from core.ras.corpus import corpus_stormser, scenario_nodes

    nodes = scenario_nodes("largeCluster03")
    assert len(nodes) == 80 and {n["cores"] for n in nodes} == {11}
    for topo in corpus_stormser("largeCluster03"):
        doc, _notes = to_scenario_topology(topo)
        sc = validate_scenario({"name": topo.name, "topology": doc, "cluster": {"nodes": nodes}})
        assert sum(c.parallelism for c in sc.topology.components) == topo.executors


def test_slotscope_import_reads_a_stored_topology_with_default_supervisors(tmp_path):
    imported = import_sources([str(_write(tmp_path, _topology(), _conf()))])
    sc = imported.scenario
    assert [c.id for c in sc.topology.components] == ["spout", "split", "count"]
    assert sc.topology.workers == 2
    # 2 workers on Storm's default supervisors of 4 slots, 4 cores, 4,096 MB: one node
    assert [(n.slots, n.cores, n.ram_gb) for n in sc.cluster.nodes] == [(4, 4, 4.0)]
    assert any(w.startswith("nodes: Nimbus's files carry no cluster") for w in imported.warnings)


def test_a_gzip_bomb_stops_at_the_unpacked_limit(tmp_path, monkeypatch):
    import core.importers.stormser as stormser

    monkeypatch.setattr(stormser, "MAX_UNPACKED_BYTES", 1000)
    bomb = gzip.compress(b"\x00" * 100_000)
    with pytest.raises(StormSerError, match="unpacks to more than 1,000 bytes"):
        read_stormser(_write(tmp_path, bomb, _conf()))


def test_a_stored_topology_is_imported_alone(tmp_path):
    code = str(_write(tmp_path, _topology(), _conf()))
    with pytest.raises(ScenarioError, match="imported alone"):
        import_sources([code, code])


def test_a_folder_of_stored_topologies_is_a_topology_set(tmp_path):
    _write(tmp_path, _topology(), _conf())  # wc: priority 1, 2 workers
    conf = {"topology.name": "wc2", "topology.workers": 3, "topology.worker.max.heap.size.mb": 2048}
    (tmp_path / "wc2-stormcode.ser").write_bytes(_topology())
    (tmp_path / "wc2-stormconf.ser").write_bytes(gzip.compress(json.dumps(conf).encode()))
    (tmp_path / "empty-stormcode.ser").write_bytes(b"")  # as one of Storm's own files
    (tmp_path / "empty-stormconf.ser").write_bytes(b"")
    imported = import_sources([str(tmp_path)])
    sc = imported.scenario
    assert sc.is_set and [t.name for t in sc.topology_set] == ["wc", "wc2"]
    assert [t.priority for t in sc.topology_set] == [1, 29]
    assert [t.worker_max_heap_mb for t in sc.topology_set] == [None, 2048.0]
    # 2 + 3 workers on Storm's default supervisors of 4 slots: two nodes
    assert len(sc.cluster.nodes) == 2
    assert any(w.startswith("topologies: left out") and "empty" in w for w in imported.warnings)
    assert sc.topology.components[0].id == "wc/spout"


def test_a_folder_without_stored_topologies_is_refused(tmp_path):
    with pytest.raises(ScenarioError, match="no readable NAME-stormcode.ser"):
        import_sources([str(tmp_path)])


# Five pairs of Storm's own corpus, byte for byte (fixtures/stormser/NOTICE-apache-storm.txt);
# the numbers below are read from their confs (zcat NAME-stormconf.ser).
STORED = Path(__file__).resolve().parent / "fixtures" / "stormser"
# name -> (strategy, priority, workers, acker executors, worker heap MB, spout+bolt executors)
STORED_CONFS = {
    # backtype.storm...ConstraintSolverStrategy (Storm 0.10's package), priority 0
    "TopologyName00026": ("ras-constraint", 0, 1, 30, 12800.0, 3550),
    # org.apache.storm...GenericResourceAwareStrategy; heap written 8192.0 in the conf
    "TopologyName00038": ("ras-generic", 29, 4, 3, 8192.0, 44),
    # backtype.storm...DefaultResourceAwareStrategy
    "TopologyName00048": ("ras-default", 2, 1, 8, 10240.0, 9),
    # org.apache.storm...DefaultResourceAwareStrategy
    "TopologyName00049": ("ras-default", 29, 2, 1, 8192.0, 3),
}


# the confs' constraint-solver settings off Storm's default (all five confs set
# max.state.search 10,000, Storm's default, and one executor / component per worker false)
TOPOLOGY_26_PAIRS = [
    "ProbabilisticLinkKafkaSpout",
    "DeterministicLinkKafkaSpout",
    "DeleteGraphSpout",
    "RccCmsPrivacySpout",
    "AscCmsPrivacySpout",
    "ProfileProxyBolt",
]
SOLVER_SETTINGS = {
    "TopologyName00026": {"topology.ras.constraints": [[c, c] for c in TOPOLOGY_26_PAIRS]},
    # Storm's other scheduling settings carried too (stormser.scheduling_settings)
    "TopologyName00048": {
        "topology.scheduler.unfavored.nodes": ["gsbl519n19.blue.ygrid.yahoo.com"]
    },
}


@pytest.mark.parametrize("name", sorted(STORED_CONFS))
def test_a_stored_topology_keeps_its_strategy_priority_workers_heap_and_ackers(name):
    doc, _notes = to_scenario_topology(read_stormser(STORED / f"{name}-stormcode.ser"))
    strategy, priority, workers, ackers, heap, executors = STORED_CONFS[name]
    own = {"strategy": strategy, **SOLVER_SETTINGS.get(name, {})}
    assert doc["scheduler_params"] == {"ras": own}
    assert (doc["priority"], doc["workers"], doc["ackers"]) == (priority, workers, ackers)
    assert doc["worker_max_heap_mb"] == heap
    assert sum(c["parallelism"] for c in doc["components"]) == executors


def test_an_unknown_or_absent_strategy_is_left_to_the_scheduler_run():
    from core.importers.stormser import StormComponent, StormSerTopology

    spout = (StormComponent("s", "spout", 1),)
    custom = {"topology.scheduler.strategy": "com.example.MyStrategy"}
    doc, notes = to_scenario_topology(StormSerTopology("t", spout, custom))
    assert "scheduler_params" not in doc
    assert notes == [
        "topology.scheduler.strategy 'com.example.MyStrategy' is none of Storm's "
        "resource-aware strategies: the scheduler run chooses"
    ]
    doc, notes = to_scenario_topology(StormSerTopology("t", spout, {}))
    assert "scheduler_params" not in doc and notes == []


def test_slotscope_import_of_the_stored_folder_writes_each_topologys_strategy(tmp_path, capsys):
    from core.cli import main

    out = tmp_path / "set.json"
    assert main(["import", str(STORED), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    got = {
        t["name"]: (
            t["scheduler_params"]["ras"]["strategy"],
            t["priority"],
            t["workers"],
            t["ackers"],
            t["worker_max_heap_mb"],
            sum(c["parallelism"] for c in t["components"]),
        )
        for t in doc["topologies"]
    }
    assert got == STORED_CONFS  # TopologyName00027, the corpus's empty one, left out
    err = capsys.readouterr().err
    assert "left out" in err and "TopologyName00027-stormcode.ser" in err
    assert (
        f"wrote {out}: stormser, 4 topologies, own strategies 1 ras-constraint, 2 ras-default, "
        "1 ras-generic, 21 components, 3,606 executors, 207 nodes"
    ) in err


def test_the_corpus_empty_topology_alone_is_refused_in_one_line():
    with pytest.raises(StormSerError) as err:
        read_stormser(STORED / "TopologyName00027-stormcode.ser")
    assert str(err.value).endswith(
        "TopologyName00027-stormcode.ser: topology 'TopologyName00027' has no spout or bolt "
        "executors"
    )


def test_a_ras_scheduler_runs_the_imported_topologys_own_strategy():
    from core.registry import run_scheduler

    sc = import_sources([str(STORED / "TopologyName00038-stormcode.ser")]).scenario
    assert sc.topology.scheduler_params == {"ras": {"strategy": "ras-generic"}}
    # asked for ras-default, Storm runs the conf's GenericResourceAwareStrategy
    decisions = run_scheduler(sc, "ras-default").decisions
    assert decisions[0].startswith("GenericResourceAwareStrategy: all 47 executors scheduled")
    # on one default supervisor (the import's cluster before it was sized) it says why not
    one = sc.model_copy(
        update={"cluster": sc.cluster.model_copy(update={"nodes": sc.cluster.nodes[:1]})}
    )
    decisions = run_scheduler(one, "ras-default").decisions
    assert decisions[0].startswith("GenericResourceAwareStrategy could not schedule all 47")


def test_import_and_the_corpus_preset_give_each_topology_the_same_strategy():
    from core.presets.storm_large import large_cluster_scenario
    from core.ras.corpus import corpus_stormser

    imported = [to_scenario_topology(t)[0] for t in corpus_stormser("largeCluster03")]
    preset_set = large_cluster_scenario("largeCluster03")["topologies"]
    assert [t["scheduler_params"] for t in imported] == [t["scheduler_params"] for t in preset_set]
    # largeCluster03's confs: 49 DefaultResourceAwareStrategy, 1 Generic (TopologyName00047)
    strategies = [t["scheduler_params"]["ras"]["strategy"] for t in imported]
    assert (strategies.count("ras-default"), strategies.count("ras-generic")) == (49, 1)


# The imported cluster, sized by Storm's accounting (core/importers/__init__.py
# size_cluster). Per fixture, by hand from its components' json_conf (CPU %, on-heap MB;
# off-heap 0 in all five) and its conf (ackers at topology.acker.cpu.pcore.percent where
# set, else 10 %; 128 MB; Storm's default supervisor 400 % CPU, 4,096 MB, 4 slots):
SIZED = {  # name -> (nodes, MB per node, {reason: nodes it alone needs})
    # 00049: Spout-0 x 2 + Bolt-0 x 1 + 1 acker, each 10 % and 128 MB: 40 % CPU, 512 MB,
    # 2 workers, 4 x max(10/400, 128/4096) = 0.125 node shares: one node by every reason
    "TopologyName00049": (1, 4096, {"CPU": 1, "memory": 1, "slots": 1, "shares": 1}),
    # 00038: 40 x (40 %, 512 MB) + Spout-0 4 x (100 %, 512 MB) + 3 ackers (10 %, 128 MB):
    # 2,030 % -> 5.075 -> 6; 22,912 MB -> 5.59 -> 6; 4 workers -> 1; shares 40 x 0.125 +
    # 4 x 0.25 + 3 x 0.03125 = 6.09 -> 7 (on 6 nodes GenericResourceAwareStrategy fails)
    "TopologyName00038": (7, 4096, {"CPU": 6, "memory": 6, "slots": 1, "shares": 7}),
    # 00048: Bolt-0 x 8 at 250 % and 10,240 MB, over a default node: 10,240 MB nodes;
    # + Spout-0 (100 %, 2,048 MB) + 8 ackers at 25 %: 2,300 % -> 5.75 -> 6; 84,992 MB
    # -> 8.3 -> 9; on-heap / 10,240 MB worker heap -> 9 workers -> 3; shares 8 x 1 + 0.25
    # + 8 x 0.0625 = 8.75 -> 9
    "TopologyName00048": (9, 10240, {"CPU": 6, "memory": 9, "slots": 3, "shares": 9}),
    # 00026: 3,550 executors + 30 ackers at 25 %: 76,850 % -> 192.1 -> 193; 349,696 MB ->
    # 85.4 -> 86; / 12,800 MB heap -> 28 workers -> 7; shares: Bolt-4 10 x 1 (4,096 MB),
    # Bolt-1 2,500 x 0.05, Bolt-2 500 x 0.075, Bolt-3 300 x 0.03125, Bolt-0 200 x 0.03125,
    # Spout-3 8 x 0.625, Spouts-0,1,2,4,5 32 x 0.125, ackers 30 x 0.0625: 199 exactly
    "TopologyName00026": (199, 4096, {"CPU": 193, "memory": 86, "slots": 7, "shares": 199}),
}


@pytest.mark.parametrize("name", sorted(SIZED))
def test_each_stored_topology_gets_the_hand_computed_supervisors_and_fits(name):
    from core.importers import size_cluster, storm_demand
    from core.registry import run_scheduler

    nodes, mb, needs = SIZED[name]
    path = STORED / f"{name}-stormcode.ser"
    topology = read_stormser(path)
    doc, _notes = to_scenario_topology(topology)
    assert size_cluster([storm_demand(topology, doc)]).needs == needs
    imported = import_sources([str(path)])
    sc = imported.scenario
    assert [(n.slots, n.cores, n.ram_gb) for n in sc.cluster.nodes] == [(4, 4, mb / 1024)] * nodes
    [note] = [w for w in imported.warnings if w.startswith("nodes:")]
    assert f"; {nodes:,} supervisor(s), each Storm's default" in note
    # the reasons asking for that many nodes are the ones said to decide
    assert note.count(", decides)") == sum(v == nodes for v in needs.values())
    # Storm schedules every executor (its own strategy, as asked of ras-default)
    out = run_scheduler(sc, "ras-default")
    executors = sum(c.parallelism for c in sc.topology.components) + sc.topology.ackers
    assert out.status.value == "ok" and len(out.assignments) == executors


def test_the_stored_folder_gets_supervisors_for_the_whole_set_and_every_topology_fits():
    from core.topology_set import schedule_set

    imported = import_sources([str(STORED)])
    sc = imported.scenario
    # 00048's 10,240 MB executor sets the node; CPU 76,850 + 2,030 + 2,300 + 40 = 81,220 %
    # -> 204; memory 458,112 MB / 10,240 -> 45; workers 28 + 4 + 9 + 2 = 43 -> 11; shares
    # on 400 % / 10,240 MB nodes 192.125 + 5.075 + 8.75 + 0.1 = 206.05 -> 207
    assert len(sc.cluster.nodes) == 207 and {n.ram_gb for n in sc.cluster.nodes} == {10.0}
    [note] = [w for w in imported.warnings if w.startswith("nodes:")]
    assert (
        "but with 10,240 MB (one executor of TopologyName00048's 'Bolt-0' asks 10,240 MB)" in note
    )
    assert "206.05 node shares" in note and "(207, decides)" in note
    result = schedule_set(sc, "ras-default")
    assert {o.status for o in result.outcomes.values()} == {"ok"}


def _stored_pair(tmp_path, name: str, components, conf: dict) -> Path:
    """A stored pair written from StormComponents (a Thrift StormTopology by hand)."""
    spouts = [c for c in components if c.kind == "spout"]
    bolts = [c for c in components if c.kind == "bolt"]

    def group(items):
        body = bytes([11, 12]) + struct.pack(">i", len(items))
        for c in items:
            body += _s(c.id) + _component(_common([], c.parallelism, dict(c.conf)))
        return body

    body = _field(13, 1, group(spouts)) + _field(13, 2, group(bolts)) + b"\x00"
    (tmp_path / f"{name}-stormcode.ser").write_bytes(gzip.compress(body))
    (tmp_path / f"{name}-stormconf.ser").write_bytes(gzip.compress(json.dumps(conf).encode()))
    return tmp_path / f"{name}-stormcode.ser"


def test_more_nodes_where_storms_strategy_cannot_pack_the_ceiling(tmp_path):
    from core.importers.stormser import StormComponent

    # 13 executors of 60 %: 780 % CPU and 1.95 node shares ask 2 nodes, but a 400 % node
    # holds 6 of them (360 %): 12 on 2 nodes; the 3rd node is Storm's strategy's (its
    # search limit lowered in the conf, so the failed try on 2 nodes ends early)
    spout = StormComponent("s", "spout", 13, conf={"topology.component.cpu.pcore.percent": 60})
    conf = {"topology.workers": 1, "topology.ras.constraint.max.state.search": 200}
    imported = import_sources([str(_stored_pair(tmp_path, "packed", [spout], conf))])
    assert len(imported.scenario.cluster.nodes) == 3
    [note] = [w for w in imported.warnings if w.startswith("nodes:")]
    assert "780 % CPU (2 nodes, decides)" in note
    assert note.endswith("; Storm's strategies packed it only with 1 more")


def test_an_executor_over_its_worker_heap_is_said_never_to_fit(tmp_path):
    from core.importers.stormser import StormComponent

    conf = {"topology.component.resources.onheap.memory.mb": 1000}
    spout = StormComponent("s", "spout", 1, conf=conf)
    path = _stored_pair(tmp_path, "heavy", [spout], {"topology.workers": 1})
    imported = import_sources([str(path)])
    assert len(imported.scenario.cluster.nodes) == 1  # no nodes added for it
    [note] = [w for w in imported.warnings if w.startswith("nodes:")]
    assert note.endswith(
        "never fits: heavy's 's' asks 1,000 MB on-heap, over its worker heap limit of 768 MB "
        "(topology.worker.max.heap.size.mb)"
    )


def test_the_corpus_constraints_name_components_the_anonymised_topology_lacks():
    _doc, notes = to_scenario_topology(read_stormser(STORED / "TopologyName00026-stormcode.ser"))
    assert notes == [
        "topology.ras.constraints / topology.spread.components name components the "
        "topology does not have (AscCmsPrivacySpout, DeleteGraphSpout, "
        "DeterministicLinkKafkaSpout, ProbabilisticLinkKafkaSpout, ProfileProxyBolt, "
        "RccCmsPrivacySpout): Storm's constraint solver skips them"
    ]


CONSTRAINED = {  # a hand-made conf on 00038's stored topology (its confs' names are gone)
    "topology.name": "constrained",
    "topology.scheduler.strategy": "org.apache.storm.scheduler.resource.strategies."
    "scheduling.ConstraintSolverStrategy",
    "topology.ras.constraints": {
        "Bolt-4": {"incompatibleComponents": ["Bolt-3"], "maxNodeCoLocationCnt": 2}
    },
    "topology.spread.components": ["Spout-0"],
}


def _constrained(tmp_path, conf: dict) -> Path:
    base = json.loads(gzip.decompress((STORED / "TopologyName00038-stormconf.ser").read_bytes()))
    (tmp_path / "constrained-stormcode.ser").write_bytes(
        (STORED / "TopologyName00038-stormcode.ser").read_bytes()
    )
    (tmp_path / "constrained-stormconf.ser").write_bytes(
        gzip.compress(json.dumps({**base, **conf}).encode())
    )
    return tmp_path / "constrained-stormcode.ser"


def _rules_broken(assignments) -> tuple[int, int, int]:
    """(workers holding Bolt-4 and Bolt-3, most Bolt-4 on a node, most Spout-0 on a node)."""
    from collections import Counter

    workers: dict[tuple[str, int], set[str]] = {}
    for a in assignments:
        workers.setdefault((a.node, a.slot), set()).add(a.executor.split("#")[0])
    per_node = Counter((a.node, a.executor.split("#")[0]) for a in assignments)
    return (
        sum({"Bolt-4", "Bolt-3"} <= comps for comps in workers.values()),
        max(n for (_node, comp), n in per_node.items() if comp == "Bolt-4"),
        max(n for (_node, comp), n in per_node.items() if comp == "Spout-0"),
    )


def test_the_confs_constraints_reach_ras_constraint_as_on_the_preset_path(tmp_path, monkeypatch):
    import core.presets.storm_large as storm_large
    from core.model import validate_scenario
    from core.ras.corpus import topology_from_doc
    from core.ras.scenario import cluster_from_scenario
    from core.ras.schedule import schedule_cluster
    from core.registry import run_scheduler

    path = _constrained(tmp_path, CONSTRAINED)
    sc = import_sources([str(path)]).scenario
    assert sc.topology.scheduler_params == {
        "ras": {
            "strategy": "ras-constraint",
            "topology.ras.constraints": CONSTRAINED["topology.ras.constraints"],
            "topology.spread.components": ["Spout-0"],
        }
    }
    placed = run_scheduler(sc, "ras-constraint").assignments
    assert len(placed) == 47 and _rules_broken(placed) == (0, 2, 1)
    # without them the same strategy breaks all three rules
    bare = sc.to_json_dict()
    bare["topology"]["scheduler_params"] = {"ras": {"strategy": "ras-constraint"}}
    assert _rules_broken(run_scheduler(validate_scenario(bare), "ras-constraint").assignments) == (
        1,
        6,
        3,
    )
    # the storm-large preset path for the same topology on the same nodes: same placement
    topology = read_stormser(path)
    nodes = sc.to_json_dict()["cluster"]["nodes"]
    monkeypatch.setattr(storm_large, "corpus_stormser", lambda _name: [topology])
    monkeypatch.setattr(storm_large, "scenario_nodes", lambda _name: nodes)
    doc = storm_large.large_cluster_scenario("largeCluster03")
    doc["topology"] = doc.pop("topologies")[0]
    preset_placed = run_scheduler(validate_scenario(doc), "ras-constraint").assignments
    key = sorted((a.executor, a.node, a.slot) for a in placed)
    assert sorted((a.executor, a.node, a.slot) for a in preset_placed) == key
    # and Storm's own TestLargeCluster reading of the conf (core.ras.corpus) agrees
    corpus_doc = {
        "name": topology.name,
        "conf": dict(topology.conf),
        "components": [
            [
                c.id,
                c.kind,
                c.parallelism,
                dict(c.conf),
                [[i.component, i.grouping] for i in c.inputs],
            ]
            for c in topology.components
        ],
    }
    ras_topology = topology_from_doc(corpus_doc, ackers=True)
    cluster = cluster_from_scenario(sc)
    assert schedule_cluster(cluster, [ras_topology], "ras-constraint").scheduled == ["constrained"]
    first = ras_topology.comp_first_exec
    got = sorted(
        (
            f"{ras_topology.all_components[int(ras_topology.exec_comp[e])].id}"
            f"#{e - int(first[int(ras_topology.exec_comp[e])])}",
            cluster.node_ids[node],
            slot,
        )
        for e, (node, slot) in cluster.assignments["constrained"].items()
    )
    assert got == key


def test_solver_settings_at_storms_defaults_are_not_carried(tmp_path):
    from core.importers.stormser import STORM_DEFAULT_STATE_SEARCH
    from core.ras.model import DEFAULT_TOPO_MAX_STATE_SEARCH

    assert STORM_DEFAULT_STATE_SEARCH == DEFAULT_TOPO_MAX_STATE_SEARCH  # stated twice, equal
    conf = {
        "topology.ras.constraint.max.state.search": 500,
        "topology.ras.one.component.per.worker": True,
        "topology.ras.one.executor.per.worker": False,
        "topology.ras.constraints": [],
    }
    sc = import_sources([str(_constrained(tmp_path, conf))]).scenario
    own = sc.topology.scheduler_params["ras"]
    assert own == {
        "strategy": "ras-generic",  # 00038's own
        "topology.ras.constraint.max.state.search": 500,
        "topology.ras.one.component.per.worker": True,
    }


def test_more_executors_than_the_search_limit_is_said_never_to_fit(tmp_path):
    from core.importers.stormser import StormComponent

    # 12 executors, a 10-state search: Storm refuses before searching (any cluster)
    spout = StormComponent("s", "spout", 12)
    conf = {"topology.workers": 1, "topology.ras.constraint.max.state.search": 10}
    imported = import_sources([str(_stored_pair(tmp_path, "searched", [spout], conf))])
    assert len(imported.scenario.cluster.nodes) == 1
    [note] = [w for w in imported.warnings if w.startswith("nodes:")]
    assert note.endswith(
        "never fits: searched's 12 executors reach its search's limit of 10 states "
        "(topology.ras.constraint.max.state.search)"
    )


def test_off_heap_acker_requests_and_storm_settings_are_carried_as_storm_resolves_them():
    """NormalizedResourceRequest (Storm 2.0.0): a component's resources.map over its legacy
    keys, then the topology conf; the acker's own keys, else the topology's component
    defaults (so 110 MB off heap here); generic resources are noted, not carried."""
    from core.importers.stormser import StormComponent, StormInput, StormSerTopology
    from core.model import validate_scenario
    from core.ras.scenario import from_scenario

    mapped = {
        "topology.component.resources.onheap.memory.mb": 999.0,  # the map wins
        "topology.component.resources.map": {
            "topology.component.cpu.pcore.percent": 30.0,
            "topology.component.resources.onheap.memory.mb": 256.0,
            "topology.component.resources.offheap.memory.mb": 64.0,
            "network.resource.units": 5.0,
        },
    }
    comps = (
        StormComponent("s", "spout", 2, (), mapped),
        StormComponent("b", "bolt", 1, (StormInput("s", "default", "shuffle"),)),
    )
    conf = {
        "topology.acker.executors": 3,
        "topology.component.cpu.pcore.percent": 20.0,
        "topology.component.resources.offheap.memory.mb": 110.0,
        "topology.acker.cpu.pcore.percent": 75.0,
        "topology.acker.resources.onheap.memory.mb": 480.0,
        "topology.ras.acker.executors.per.worker": 0,
        "topology.isolate.machines": 2,
        "topology.scheduler.favored.nodes": ["n1"],
    }
    doc, notes = to_scenario_topology(StormSerTopology("t", comps, conf))
    s, b = doc["components"]
    assert (s["cpu_pct"], s["memory_mb"], s["offheap_mb"]) == (30.0, 256.0, 64.0)
    assert (b["cpu_pct"], b["memory_mb"], b["offheap_mb"]) == (20.0, 128.0, 110.0)
    assert (doc["acker_cpu_pct"], doc["acker_memory_mb"], doc["acker_offheap_mb"]) == (
        75.0,
        480.0,
        110.0,
    )
    assert doc["scheduler_params"]["ras"] == {
        "topology.ras.acker.executors.per.worker": 0,
        "topology.isolate.machines": 2,
        "topology.scheduler.favored.nodes": ["n1"],
    }
    assert any("network.resource.units (up to 5 per executor)" in n for n in notes)
    nodes = [{"id": "n1", "cores": 4, "ghz": 3.0, "slots": 4}]
    sc = validate_scenario({"topology": doc, "cluster": {"nodes": nodes}})
    _cluster, (topo,) = from_scenario(sc)
    assert topo.comp_offheap.tolist() == [64.0, 110.0, 110.0]
    assert topo.acker_request.offheap == 110.0 and topo.acker_request.cpu == 75.0
    assert (topo.ackers_per_worker, topo.isolated_machines, tuple(topo.favored_hosts)) == (
        0,
        2,
        ("n1",),
    )


def test_storms_default_requests_are_not_written():
    """defaults.yaml's 10 %, 128 MB, 0 MB: no offheap_mb or acker fields in the scenario."""
    from core.importers.stormser import StormComponent, StormSerTopology

    doc, _notes = to_scenario_topology(
        StormSerTopology("t", (StormComponent("s", "spout", 1),), {"topology.acker.executors": 1})
    )
    assert doc["components"] == [
        {"id": "s", "parallelism": 1, "kind": "spout", "cpu_pct": 10.0, "memory_mb": 128.0}
    ]
    assert not {k for k in doc if k.startswith("acker_")}
    assert "scheduler_params" not in doc

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


@pytest.mark.parametrize("name", sorted(STORED_CONFS))
def test_a_stored_topology_keeps_its_strategy_priority_workers_heap_and_ackers(name):
    doc, _notes = to_scenario_topology(read_stormser(STORED / f"{name}-stormcode.ser"))
    strategy, priority, workers, ackers, heap, executors = STORED_CONFS[name]
    assert doc["scheduler_params"] == {"ras": {"strategy": strategy}}
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
        "1 ras-generic, 21 components, 3,606 executors, 2 nodes"
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
    # asked for ras-default, Storm runs the conf's GenericResourceAwareStrategy (on the
    # default supervisor its 2,030 % CPU do not fit: it says so)
    decisions = run_scheduler(sc, "ras-default").decisions
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

"""Flink job plans -> scenario: operators, parallelism, ship strategies as groupings.

The plans are PyFlink's own: regenerated into tmp_path by ``flink_jobs.py`` when
``.venv-flink`` (``make flink-venv``) exists, else the committed copies. The
regenerated ones are also checked against the committed ones.
"""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path

import pytest
from fixture_files import FIXTURES, load, mutated, mutations

from core.importers import import_documents, import_sources
from core.importers.flink import flink_scenario
from core.model import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
# `make flink-venv`'s interpreter; SLOTSCOPE_FLINK_PYTHON names another one with PyFlink
FLINK_PYTHON = Path(
    os.environ.get("SLOTSCOPE_FLINK_PYTHON") or ROOT / ".venv-flink" / "bin" / "python"
)
SCRIPT = Path(__file__).resolve().parent / "flink_jobs.py"
PLAN_SECONDS = 300  # s: generous limit for a cold JVM start and three plans


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> Path:
    """A directory with the three plans: fresh from PyFlink when it is installed."""
    if not FLINK_PYTHON.exists():
        return FIXTURES
    out = tmp_path_factory.mktemp("flink-plans")
    subprocess.run(
        [str(FLINK_PYTHON), str(SCRIPT), str(out)],
        check=True,
        timeout=PLAN_SECONDS,
        capture_output=True,
    )
    return out


def _scenario(plans: Path, name: str):
    return import_sources([str(plans / name)])


def _streams(sc):
    return {(s.source, s.target): s.grouping for s in sc.topology.streams}


def test_wordcount_plan_gives_operators_parallelism_and_key_by_as_fields(plans):
    imported = _scenario(plans, "flink_wordcount_plan.json")
    sc = imported.scenario
    split = "split-_stream_key_by_map_operator"  # PyFlink chains its key_by map into split
    assert {c.id: c.parallelism for c in sc.topology.components} == {
        "Source-Collection-Source": 1,
        split: 4,
        "count": 3,
        "Sink-sink": 1,
    }
    assert sc.component("Source-Collection-Source").kind == "spout"  # pact "Data Source"
    assert _streams(sc) == {
        ("Source-Collection-Source", split): "shuffle",  # REBALANCE (1 -> 4 subtasks)
        (split, "count"): "fields",  # HASH (key_by)
        ("count", "Sink-sink"): "shuffle",  # REBALANCE (3 -> 1)
    }
    # slot sharing: max parallelism 4 slots, Flink's default 1 slot per TaskManager
    assert sc.topology.workers == 4
    assert [(n.slots, n.cores) for n in sc.cluster.nodes] == [(1, 4)] * 4
    said = " ".join(imported.warnings)
    for topic in ("cpu_us:", "selectivity:", "offered rate:", "nodes:"):
        assert topic in said


def test_partitioning_plan_maps_each_ship_strategy(plans):
    imported = _scenario(plans, "flink_partitioning_plan.json")
    sc = imported.scenario
    assert {c.id: c.parallelism for c in sc.topology.components} == {
        "Source-Collection-Source": 1,
        "double-inc": 4,  # double and inc chained over forward()
        "copy": 3,
        "mix": 2,
        "total": 1,
        "scale": 2,
        "Sink-sink": 2,
    }
    assert _streams(sc) == {
        ("Source-Collection-Source", "double-inc"): "shuffle",  # REBALANCE
        ("double-inc", "copy"): "all",  # BROADCAST
        ("copy", "mix"): "shuffle",  # SHUFFLE
        ("mix", "total"): "global",  # GLOBAL
        ("total", "scale"): "shuffle",  # RESCALE: no Storm grouping, said so
        ("scale", "Sink-sink"): "local-or-shuffle",  # FORWARD
    }
    rescale = [w for w in imported.warnings if "RESCALE" in w]
    assert rescale == [
        "stream total -> scale: Flink ship strategy RESCALE has no Storm grouping "
        "(known: HASH, REBALANCE, FORWARD, BROADCAST, GLOBAL, SHUFFLE); modelled as shuffle"
    ]


def test_rest_plan_of_the_job_graph_gives_the_same_topology(plans):
    rest = _scenario(plans, "flink_wordcount_rest_plan.json").scenario
    stream = _scenario(plans, "flink_wordcount_plan.json").scenario
    assert rest.name == "Flink Streaming Job"
    assert {c.id: c.parallelism for c in rest.topology.components} == {
        c.id: c.parallelism for c in stream.topology.components
    }
    assert _streams(rest) == _streams(stream)


def test_job_details_document_carrying_the_plan_is_read():
    plan = load("flink_wordcount_rest_plan.json")["plan"]
    details = {"jid": plan["jid"], "name": "wc", "vertices": [], "plan": plan}
    sc = import_documents([("job.json", details)]).scenario
    assert sum(c.parallelism for c in sc.topology.components) == 9


def _message(doc) -> str:
    with pytest.raises(ScenarioError) as err:
        flink_scenario(doc)
    return str(err.value)


def test_missing_ship_strategy_is_named():
    doc = load("flink_wordcount_plan.json")
    del doc["nodes"][1]["predecessors"][0]["ship_strategy"]
    assert _message(doc) == (
        "flink plan: nodes[1].predecessors[0].ship_strategy: required field is missing"
    )


def test_unknown_upstream_and_bad_parallelism_are_named():
    doc = load("flink_wordcount_plan.json")
    bad = copy.deepcopy(doc)
    bad["nodes"][1]["predecessors"][0]["id"] = 99
    assert _message(bad) == "flink plan: nodes[1].predecessors[0].id: unknown operator id '99'"
    bad = copy.deepcopy(doc)
    bad["nodes"][2]["parallelism"] = 0
    assert _message(bad) == "flink plan: nodes[2].parallelism: expected an integer >= 1, got 0"
    rest = load("flink_wordcount_rest_plan.json")
    del rest["plan"]["nodes"][0]["parallelism"]
    assert _message(rest) == "flink plan: plan.nodes[0].parallelism: required field is missing"


def test_twin_operator_names_get_their_ids(plans):
    doc = load("flink_partitioning_plan.json")
    for node in doc["nodes"]:
        if node["contents"] in ("copy", "mix"):
            node["contents"] = "map"
    ids = {c.id for c in flink_scenario(doc).scenario.topology.components}
    assert {"map-16", "map-18"} <= ids


@pytest.mark.skipif(not FLINK_PYTHON.exists(), reason="no .venv-flink (make flink-venv)")
def test_committed_plans_match_what_pyflink_makes_now(plans):
    for name in ("flink_wordcount_plan.json", "flink_partitioning_plan.json"):
        fresh = import_sources([str(plans / name)]).scenario.to_json_dict()
        committed = import_sources([str(FIXTURES / name)]).scenario.to_json_dict()
        assert fresh == committed, name


@pytest.mark.parametrize(
    "name",
    ["flink_wordcount_plan.json", "flink_partitioning_plan.json", "flink_wordcount_rest_plan.json"],
)
def test_any_damaged_field_gives_a_scenario_or_a_named_error_never_a_traceback(name):
    doc = load(name)
    tried = 0
    for path, replacement in mutations(doc):
        try:
            import_documents([(name, mutated(doc, path, replacement))])
        except ScenarioError as err:
            assert str(err).startswith(name) or str(err).startswith("flink plan")
        tried += 1
    assert tried > 40


def test_a_plan_that_is_no_valid_scenario_names_the_source_and_the_field():
    doc = load("flink_wordcount_plan.json")
    source = next(n for n in doc["nodes"] if n["pact"] == "Data Source")
    source["predecessors"] = [{"id": 6, "ship_strategy": "FORWARD", "side": "second"}]
    assert _message(doc) == (
        "flink plan: as a scenario, topology.streams: the topology has a cycle: "
        "Source-Collection-Source -> split-_stream_key_by_map_operator -> count -> Sink-sink "
        "-> Source-Collection-Source"
    )


def test_parallelism_beyond_the_limits_fails_before_any_node_is_built():
    # issue 23: a 703-byte plan with parallelism 2e6 built a node per unit (3.2 GB)
    plan = {"nodes": [{"id": 1, "contents": "src", "parallelism": 2_000_000}]}
    with pytest.raises(ScenarioError) as err:
        flink_scenario(plan)
    assert str(err.value) == (
        "flink plan: nodes[0].parallelism: 2,000,000 needs 2,000,000 TaskManagers of 1 slot, "
        "more than the limit of 5,000 nodes"
    )
    wide = {"nodes": [{"id": i, "contents": f"op{i}", "parallelism": 4_000} for i in range(13)]}
    with pytest.raises(ScenarioError, match=r"nodes\[12\].parallelism: 4,000 brings the plan "):
        flink_scenario(wide)
    many = {"nodes": [{"id": i, "contents": "op", "parallelism": 1} for i in range(501)]}
    with pytest.raises(ScenarioError, match=r"nodes: 501 operators, the limit is 500"):
        flink_scenario(many)

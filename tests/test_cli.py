"""The command line contract: --json documents, exit status 2 with one line."""

import json
from pathlib import Path

import pytest

from core.cli import main

SCHEDULE_KEYS = {
    "scheduler",
    "status",
    "params",
    "parallelism",
    "assignments",
    "nodes",
    "metrics",
    "decisions",
    "elapsed_ms",
}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_schedule_json_follows_the_contract(capsys):
    code, out, err = run(capsys, "schedule", "lf-ascent", "--scheduler", "even", "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) >= SCHEDULE_KEYS
    assert doc["scheduler"] == "even" and doc["status"] == "ok"
    # the L/F presets run Storm 1.2.3's default of one acker per worker (W = 8)
    assert doc["parallelism"] == {**{f"c{i}": i for i in range(1, 9)}, "__acker": 8}
    assert len(doc["assignments"]) == 36 + 8
    first = doc["assignments"][0]
    # Storm's task-id order takes components by id: "__acker" sorts before "c1"
    assert first == {"executor": "__acker#0", "component": "__acker", "node": "n1", "slot": 0}
    node = doc["nodes"][0]
    assert set(node) == {"id", "processing_speed", "computation_power", "power_rank", "slots_used"}
    # L/F's nodes (E5-2620 v3): 1 socket x 12 hardware threads x 2.4 GHz x 16 FLOPs/cycle,
    # Eq. 1 counting logical CPUs as TOP-Storm's Table 4 does; power = 0.8 x 460.8 + 0.2 x 64 GB
    assert node["processing_speed"] == pytest.approx(460.8)
    assert node["computation_power"] == pytest.approx(381.44)
    assert node["power_rank"] == 1 and node["slots_used"] == 1
    m = doc["metrics"]
    assert {"nodes_used", "slots_used", "cohesion", "coupling", "inter_node_streams"} <= set(m)
    assert (m["nodes_used"], m["slots_used"]) == (8, 8)
    assert m["cohesion"] == pytest.approx(16.3)
    assert isinstance(m["inter_node_streams"], int)
    assert all(isinstance(d, str) for d in doc["decisions"])
    assert isinstance(doc["elapsed_ms"], float)


def test_power_rank_shares_ranks_and_uses_alpha(tmp_path, capsys):
    scenario = {
        "topology": {"components": [{"id": "a", "parallelism": 2}]},
        "cluster": {
            "nodes": [
                {"id": "big", "cores": 8, "ghz": 3.4, "ram_gb": 16, "slots": 2},
                {"id": "twin1", "cores": 4, "ghz": 3.0, "ram_gb": 8, "slots": 2},
                {"id": "twin2", "cores": 4, "ghz": 3.0, "ram_gb": 8, "slots": 2},
            ]
        },
    }
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    code, out, _ = run(capsys, "schedule", str(path), "--scheduler", "even", "--json")
    nodes = {n["id"]: n for n in json.loads(out)["nodes"]}
    assert [nodes[i]["power_rank"] for i in ("big", "twin1", "twin2")] == [1, 2, 2]
    assert nodes["big"]["processing_speed"] == pytest.approx(435.2)
    assert nodes["big"]["computation_power"] == pytest.approx(0.8 * 435.2 + 0.2 * 16)


def test_schedule_table_is_readable(capsys):
    code, out, _ = run(capsys, "schedule", "lf-linear", "--scheduler", "even")
    assert code == 0
    assert out.startswith("even: ok  (16 executors on 8 nodes, 8 slots")  # 8 + 8 ackers
    assert "cohesion 0.175" in out


def test_presets_and_preset(capsys):
    code, out, _ = run(capsys, "presets", "--json")
    names = [p["name"] for p in json.loads(out)]
    assert "lf-linear" in names and "lf-star-x10" in names
    code, out, _ = run(capsys, "preset", "lf-linear")
    assert json.loads(out)["topology"]["workers"] == 8


def test_schedulers_json_lists_ids_and_parameters(capsys):
    code, out, _ = run(capsys, "schedulers", "--json")
    rows = json.loads(out)
    assert rows[0]["id"] == "even"
    assert {"id", "name", "paper", "parameters"} <= set(rows[0])


def test_schema_is_json_schema(capsys):
    code, out, _ = run(capsys, "schema")
    schema = json.loads(out)
    assert "topology" in schema["properties"] and "$defs" in schema


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["schedule", "missing.json", "--scheduler", "even"], "missing.json: no such file"),
        (["schedule", "lf-linear", "--scheduler", "nope"], "unknown scheduler 'nope'"),
        (["schedule", "lf-linear", "--scheduler", "even", "--param", "x=1"], "unknown parameter"),
        (["schedule", "lf-linear", "--scheduler", "even", "--param", "novalue"], "expected K=V"),
        (["preset", "nope"], "unknown preset 'nope'"),
        (["frobnicate"], "invalid choice"),
        (["schedule", "lf-linear"], "--scheduler"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        (
            '{"topology": {"components": [{"id": "a", "parallelism": 0}]}, "cluster": '
            '{"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 1}]}}',
            "topology.components[0].parallelism",
        ),
        (
            '{"topology": {"components": [{"id": "a", "parallelism": 1}], "streams": '
            '[{"from": "a", "to": "cnt"}]}, "cluster": {"nodes": [{"id": "n", "cores": 1, '
            '"ghz": 1, "slots": 1}]}}',
            "topology.streams[0]: unknown component 'cnt'",
        ),
    ],
)
def test_bad_scenario_files_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "schedule", str(path), "--scheduler", "even", "--json")
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_directory_is_not_a_scenario(tmp_path, capsys):
    code, _, err = run(capsys, "schedule", str(tmp_path), "--scheduler", "even")
    assert code == 2 and "is a directory" in err


IMPORT_FIXTURES = f"{Path(__file__).resolve().parent}/importers/fixtures/"


def test_import_writes_a_valid_scenario_and_lists_the_assumptions(tmp_path, capsys):
    out = tmp_path / "wc3.json"
    code, stdout, err = run(
        capsys,
        "import",
        IMPORT_FIXTURES + "storm_docs_topology.json",
        IMPORT_FIXTURES + "storm_ui_topology_visualization.json",
        IMPORT_FIXTURES + "storm_docs_supervisor_summary.json",
        "--out",
        str(out),
    )
    assert code == 0 and stdout == ""
    lines = err.splitlines()
    assert lines[-1] == f"wrote {out}: WordCount3, 3 components, 25 executors, 1 nodes"
    assert any(line.startswith("slotscope: assumed: node clock:") for line in lines)
    # the file is a scenario every other command takes
    code, stdout, _ = run(capsys, "schedule", str(out), "--scheduler", "even", "--json")
    assert code == 0
    doc = json.loads(stdout)
    # and one acker per worker (W = 3)
    assert doc["parallelism"] == {"spout": 5, "count": 12, "split": 8, "__acker": 3}
    assert len(doc["assignments"]) == 25 + 3


def test_import_prints_the_scenario_without_out(capsys):
    code, stdout, _ = run(capsys, "import", IMPORT_FIXTURES + "flink_wordcount_plan.json")
    assert code == 0
    doc = json.loads(stdout)
    assert [s["grouping"] for s in doc["topology"]["streams"]] == ["fields", "shuffle", "shuffle"]


def test_import_of_bad_input_is_one_line_with_status_2(capsys):
    code, stdout, err = run(capsys, "import", IMPORT_FIXTURES + "storm_docs_topology.json")
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and "/api/v1/topology/<id>/visualization" in err
    code, _, err = run(capsys, "import", "http://127.0.0.1:1/api/v1/topology/x", "--timeout", "1")
    assert code == 2
    assert err.startswith("slotscope: http://127.0.0.1:1/api/v1/topology/x: could not connect")

"""``slotscope sweep``: the task list, the hand-checked figures of a 2-topology set, and
one real Spark run (local[1]) of the command."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from core import sweep
from core.model import validate_scenario
from core.placement import Status, assignment
from core.topology_set import SetSchedule, TopologyOutcome

ROOT = Path(__file__).resolve().parents[1]
NODES = [
    {"id": "n1", "cores": 2, "ghz": 3, "slots": 3, "rack": "r1"},
    {"id": "n2", "cores": 2, "ghz": 3, "slots": 3, "rack": "r1"},
    {"id": "n3", "cores": 2, "ghz": 3, "slots": 3, "rack": "r2"},
]
SET = {
    "name": "two",
    "topologies": [
        {
            "name": "a",
            "components": [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": 2}],
            "streams": [{"from": "s", "to": "b"}],
        },
        {
            "name": "z",
            "components": [
                {"id": "s", "parallelism": 2},
                {"id": "b", "parallelism": 2, "selectivity": 0},
            ],
            "streams": [{"from": "s", "to": "b"}],
        },
    ],
    "cluster": {"nodes": NODES},
}
# a: s#0 and b#0 share a worker, b#1 in another worker of n1.
# z: s#0 on n2 (rack r1), s#1 on n3 (rack r2); b#0 in another worker of n2, b#1 on n1.
PLACED = {
    "a": [("a/s#0", "n1", 0), ("a/b#0", "n1", 0), ("a/b#1", "n1", 1)],
    "z": [("z/s#0", "n2", 0), ("z/s#1", "n3", 0), ("z/b#0", "n2", 1), ("z/b#1", "n1", 2)],
}


def _set_schedule() -> SetSchedule:
    outcomes = {
        name: TopologyOutcome(
            name, 0, Status.OK.value, len(rows), tuple(assignment(*r) for r in rows)
        )
        for name, rows in PLACED.items()
    }
    return SetSchedule("by-hand", "sequential", ("a", "z"), outcomes, 0.0)


def test_figures_of_a_hand_placed_set():
    sc = validate_scenario(SET)
    row = sweep.summarise(sc, _set_schedule())
    # Offered 1,000 tuples/s per spout component (the default workload.rate), shuffle:
    # a's s#0 sends 500 to b#0 (same worker) and 500 to b#1 (other worker, same node).
    # z's s#0 (n2) sends 250 to b#0 (n2, other worker) and 250 to b#1 (n1, same rack);
    # z's s#1 (n3, rack r2) sends 250 to each, both in rack r1.
    assert row["traffic"] == {
        "intra_worker": 500.0,
        "inter_worker": 750.0,
        "inter_node": 250.0,
        "inter_rack": 500.0,
    }
    assert row["network_cost"] == 750 * 1 + 250 * 2 + 500 * 3
    assert row["steps_per_tuple"] == pytest.approx(2750 / 2000)
    assert (row["scheduled"], row["topologies"], row["nodes_used"], row["slots_used"]) == (
        2,
        2,
        3,
        6,
    )
    # Declared use (10 % CPU, 128 MB per executor): n1 holds 4 executors, n2 two, n3 one,
    # of 200 % and 16,384 MB: shares 4:2:1, mean 7/3, variance 14/9, CV = sqrt(14) / 7.
    assert row["cpu_cv"] == pytest.approx(math.sqrt(14) / 7)
    assert row["memory_cv"] == pytest.approx(math.sqrt(14) / 7)
    assert row["cpu_max"] == pytest.approx(0.2)
    assert row["memory_max"] == pytest.approx(512 / 16384)
    assert row["simulations"] == []


def test_simulation_per_topology_and_its_bound(monkeypatch):
    sc = validate_scenario(SET)
    row = sweep.summarise(sc, _set_schedule(), [100.0])
    (sim,) = row["simulations"]
    assert sim["simulated"] == 2
    assert [t["topology"] for t in sim["topologies"]] == ["a", "z"]
    assert all(t["r_star"] > 100.0 and not t["saturated"] for t in sim["topologies"])
    assert sim["r_star_min"] == min(t["r_star"] for t in sim["topologies"])
    monkeypatch.setattr(sweep, "SIMULATE_MAX_EXECUTORS", 3)
    (sim,) = sweep.summarise(sc, _set_schedule(), [100.0])["simulations"]
    assert sim["simulated"] == 1
    assert "over the sweep's bound of 3" in sim["topologies"][1]["not_simulated"]


def test_tasks_one_per_scheduler_and_per_rate_when_the_placement_depends_on_it():
    sc = validate_scenario(SET)
    tasks = sweep.sweep_tasks({"json": "{}"}, sc, ["even", "aniello-online"], [100.0, 200.0])
    assert [(t["scheduler"], t["fed_rate"], t["rates"]) for t in tasks] == [
        ("even", None, [100.0, 200.0]),
        ("aniello-online", 100.0, [100.0]),
        ("aniello-online", 200.0, [200.0]),
    ]


def test_csv_one_row_per_scheduler_and_rate():
    sc = validate_scenario(SET)
    row = sweep.summarise(sc, _set_schedule(), [100.0, 200.0])
    doc = sweep.sweep_document(sc, [row], [100.0, 200.0])
    rows = list(csv.DictReader(io.StringIO(sweep.sweep_csv(doc))))
    assert [r["rate"] for r in rows] == ["100.0", "200.0"]
    assert rows[0]["inter_worker"] == "750.0" and rows[0]["slots_used"] == "6"


def test_sweep_command_runs_one_spark_job_on_local_1(tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps(SET))
    argv = ["sweep", str(path), "--scheduler", "even", "--scheduler", "ras-default"]
    argv += ["--rate", "100", "--master", "local[1]", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "core", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert set(doc) == {
        "scenario",
        "topologies",
        "nodes",
        "traffic_rate",
        "rates",
        "network_metric",
        "engine",
        "elapsed_s",
        "results",
    }
    assert doc["engine"]["master"] == "local[1]"
    assert [r["scheduler"] for r in doc["results"]] == ["even", "ras-default"]
    sc = validate_scenario(SET)
    for row in doc["results"]:
        assert set(row) >= {"scheduled", "nodes_used", "slots_used", "traffic", "cpu_cv"}
        assert set(row["traffic"]) == set(sweep.SCOPES)
        assert row["scheduled"] == 2
        # every tuple is counted once, whatever the placement: 1,000 from a's spout,
        # 2 x 500 from z's
        assert sum(row["traffic"].values()) == pytest.approx(2000.0)
        task = {"source": {"json": json.dumps(SET)}, "scheduler": row["scheduler"]}
        direct = sweep.run_task({**task, "fed_rate": None, "rates": [100.0]})
        timing = {"schedule_ms", "task_s"}
        assert {k: v for k, v in row.items() if k not in timing} == {
            k: v for k, v in direct.items() if k not in timing
        }
    assert sc.is_set


def test_bad_flags_are_one_line_before_spark(tmp_path, capsys):
    from core.cli import main

    path = tmp_path / "two.json"
    path.write_text(json.dumps(SET))
    assert main(["sweep", str(path), "--scheduler", "nope"]) == 2
    assert main(["sweep", str(path), "--rate", "-5"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert "nope" in lines[0]
    assert lines[1].startswith("slotscope: --rate:")


def test_a_topology_that_did_not_fit_is_not_simulated_with_its_status():
    sc = validate_scenario(SET)
    placed = _set_schedule()
    missing = TopologyOutcome("z", 0, Status.NOT_ENOUGH_RESOURCES.value, 4, ())
    result = SetSchedule("by-hand", "sequential", ("a", "z"), {**placed.outcomes, "z": missing}, 0)
    row = sweep.summarise(sc, result, [100.0])
    assert (row["scheduled"], row["not_scheduled"], row["slots_used"]) == (1, ["z"], 2)
    (sim,) = row["simulations"]
    assert sim["simulated"] == 1
    assert sim["topologies"][1] == {
        "topology": "z",
        "not_simulated": "not scheduled (not enough resources)",
    }


def test_the_dashboard_s_parameters_reach_the_scheduler():
    sc = validate_scenario(SET)
    source = {"json": json.dumps(SET)}
    tasks = sweep.sweep_tasks(source, sc, ["even", "ras-default"], (), {"even": {"nope": 1}})
    assert [t.get("params") for t in tasks] == [{"nope": 1}, None]
    refused = sweep.run_task(tasks[0])
    assert "nope" in refused["error"]  # the scheduler saw the parameter, and refused it
    assert "error" not in sweep.run_task(tasks[1])


def test_simulate_on_a_set_says_in_one_line_to_use_sweep(tmp_path, capsys):
    from core.cli import main

    path = tmp_path / "two.json"
    path.write_text(json.dumps(SET))
    assert main(["simulate", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"slotscope: {path} is a set of 2 topologies: use 'slotscope sweep {path} --rate R' "
        "(R* and latency per topology)"
    )

"""``violations`` in the CLI's JSON: ``schedule --json`` and every ``simulate --json`` row
(Spark replaced by the built-in map, as in tests/test_figure_registry.py)."""

from __future__ import annotations

import json

from core import spark
from core.cli import main
from core.figures import Result, row_keys

# wordcount: hetero raises 25 executors to 210 (declared 128 MB each) on five nodes of
# 3.7 to 7.7 GB; even keeps one 768 MB worker a node
HETERO_FIRST = "node i7-8c needs 5.2 GB for 42 executors but has 3.7 GB"


def _in_process(monkeypatch):
    monkeypatch.setattr(spark, "map_tasks", lambda func, tasks, **_: map(func, tasks))
    monkeypatch.setattr(spark, "engine_info", lambda master=None: {"master": "in-process"})


def test_schedule_json_lists_the_violations(capsys):
    assert main(["schedule", "wordcount", "--scheduler", "hetero", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["violations"][0] == HETERO_FIRST
    assert len(doc["violations"]) == 3  # the three 3.7 GB i7 hosts are over their RAM
    assert main(["schedule", "wordcount", "--scheduler", "even", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["violations"] == []
    # the keys of the document before violations are kept, in order
    assert list(doc)[:3] == ["scheduler", "status", "params"] and list(doc)[-1] == "violations"


def test_schedule_text_says_it_cannot_run(capsys):
    assert main(["schedule", "wordcount", "--scheduler", "hetero"]) == 0
    assert f"cannot run: {HETERO_FIRST}" in capsys.readouterr().out.splitlines()


def test_every_simulate_row_carries_its_violations(monkeypatch, capsys):
    _in_process(monkeypatch)
    argv = ["simulate", "wordcount", "--scheduler", "even", "--scheduler", "hetero"]
    assert main([*argv, "--rate", "1000", "--tuples", "200", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {r["scheduler"]: r for r in doc["results"]}
    assert rows["even"]["violations"] == []
    assert rows["hetero"]["violations"][0] == HETERO_FIRST
    for r in doc["results"]:
        assert tuple(r) == row_keys()  # the contract's keys, violations before status
        assert Result.from_json(r).to_json() == r
    assert not Result.from_json(rows["hetero"]).runnable
    # the text table says so below the rows
    assert main([*argv, "--rate", "1000", "--tuples", "200"]) == 0
    assert f"hetero cannot run as placed: {HETERO_FIRST}" in capsys.readouterr().out

"""The registry of figures and the typed result: one home for every figure, the JSON kept."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math

import pytest

from core import spark
from core.cli import main
from core.comparison import comparison_tasks, run_task
from core.figures import (
    FIGURES,
    Latency,
    Result,
    ResultError,
    Skipped,
    Traffic,
    glossary,
    ok_results,
    row_keys,
)
from core.presets import preset
from core.report import results_csv, results_table
from tests.search.first_written import without_ackers


@pytest.fixture(scope="module")
def row() -> dict:
    """A real result row: even on lf-linear (8 components in a line, one per node) at 500/s,
    without the preset's ackers (the figures below are worked out for the topology alone)."""
    sc = without_ackers(preset("lf-linear"))
    return run_task(comparison_tasks(sc, [("even", {})], [500.0], 1, tuples=1000)[0])


def _in_process(monkeypatch):
    """The CLI's simulate with its Spark mapper replaced by the built-in map."""
    monkeypatch.setattr(spark, "map_tasks", lambda func, tasks, **_: map(func, tasks))
    monkeypatch.setattr(spark, "engine_info", lambda master=None: {"master": "in-process"})


def test_the_cli_json_keys_are_the_registry_keys(monkeypatch, capsys):
    _in_process(monkeypatch)
    argv = ["simulate", "lf-linear", "--scheduler", "even", "--scheduler", "lf"]
    argv += ["--rate", "500", "--tuples", "1000", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["scheduler"] for r in doc["results"]] == ["even", "lf"]
    for r in doc["results"]:
        assert tuple(r) == row_keys()  # the same keys in the same order
        for figure in FIGURES.values():
            if figure.where == "row" and not figure.optional:
                top, _, part = figure.key.partition(".")
                assert (part in r[top]) if part else (top in r), figure.key
        assert Result.from_json(r).to_json() == r


def test_the_cli_csv_columns_are_the_registry_keys_flattened(monkeypatch, capsys):
    _in_process(monkeypatch)
    argv = ["simulate", "lf-linear", "--scheduler", "even", "--rate", "500", "--tuples", "1000"]
    assert main([*argv, "--csv", "-"]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    nodes = [n.id for n in preset("lf-linear").cluster.nodes]
    expected = []
    for top in row_keys():
        parts = [f.key for f in FIGURES.values() if f.top == top and f.key != top]
        if top in ("cpu_util", "memory_mb"):
            parts = [f"{top}.{n}" for n in nodes]
        expected += parts or [top]
    assert header == expected


def test_every_row_figure_is_a_field_of_the_result_and_back():
    result_fields = {f.name for f in dataclasses.fields(Result)}
    tops = {f.top for f in FIGURES.values() if f.where == "row"}
    identity = {"scheduler", "rate", "replica", "status", "violations"}  # not figures
    assert tops | identity == result_fields
    nested = {"latency_ms": Latency, "traffic": Traffic, "traffic_bytes": Traffic}
    for top, kind in nested.items():
        parts = [f.key.split(".")[1] for f in FIGURES.values() if f.top == top]
        assert parts == [f.name for f in dataclasses.fields(kind)], top
    # derived figures are properties of Result; analytic ones are not in a row at all
    assert {f.key for f in FIGURES.values() if f.where == "derived"} == {"cpu_peak"}
    assert isinstance(Result.cpu_peak, property)


def test_to_json_gives_back_the_row_exactly(row):
    result = Result.from_json(row)
    assert result.to_json() == row
    assert json.dumps(result.to_json()) == json.dumps(row)  # keys, order and values
    # typed: lf-linear at 500/s, one executor per node, every tuple visits 8 components
    assert result.throughput == pytest.approx(8 * 500.0) and result.sink_throughput == 500.0
    assert result.latency_ms.p50 <= result.latency_ms.p99 <= result.latency_ms.max
    assert result.traffic.inter_node == pytest.approx(7 * 500.0)  # seven streams cross nodes
    assert result.nodes_used == result.slots_used == 8
    assert result.cpu_peak == max(row["cpu_util"].values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.throughput = 0.0  # type: ignore[misc]


def test_a_bad_row_names_its_field(row):
    with pytest.raises(ResultError, match=r"^throughput: missing"):
        Result.from_json({k: v for k, v in row.items() if k != "throughput"})
    with pytest.raises(ResultError, match=r"^latency_ms\.p99: 'x' is not a number"):
        Result.from_json({**row, "latency_ms": {**row["latency_ms"], "p99": "x"}})
    with pytest.raises(ResultError, match=r"^nodes_used: 2\.5 is not an integer"):
        Result.from_json({**row, "nodes_used": 2.5})
    # None where the contract allows it: an unbounded R*, no latency when R* is 0
    empty = dict.fromkeys(row["latency_ms"])
    r = Result.from_json({**row, "max_rate": None, "latency_ms": empty})
    assert r.max_rate is None and r.latency_ms.p99 is None
    assert r.to_json()["latency_ms"] == empty


def test_skipped_rows_and_ok_results():
    skipped = {
        "scheduler": "optimal",
        "rate": 10.0,
        "replica": 0,
        "status": "refused",
        "message": "search space too large",
        "placement_ms": 0.0,
    }
    assert Skipped.from_json(skipped).to_json() == skipped
    assert list(Skipped.from_json(skipped).to_json()) == list(skipped)
    assert ok_results([skipped]) == []


def test_formats_directions_and_best_values():
    assert FIGURES["throughput"].format(155794.2) == "155,794"
    assert FIGURES["latency_ms.p99"].format(math.nan) == "—"
    assert FIGURES["gap_to_best"].format(0.25) == "25.0%"
    assert FIGURES["nodes_used"].format(2.5) == "2"  # a replica mean of a count, rounded
    assert [FIGURES[k].direction for k in ("max_rate", "latency_ms.p99", "cpu_util")] == [1, -1, 0]
    assert FIGURES["nodes_used"].best([3, None, 2, 2]) == 2
    assert FIGURES["cpu_peak"].best([0.5, 0.9]) is None  # neither way is better
    assert FIGURES["max_rate"].compare(100.0, 100.0 + 1e-8) == ""  # equal within 1e-9
    headings = [FIGURES[k].heading for k in ("max_rate", "nodes_used", "traffic.inter_node")]
    assert headings == ["R* tuples/s", "nodes", "inter-node tuples/s"]


def test_every_figure_has_a_glossary_line_with_its_unit():
    lines = glossary().splitlines()
    assert len(lines) == len(FIGURES)
    for line, figure in zip(lines, FIGURES.values(), strict=True):
        assert line.startswith(f"{figure.key}  {figure.label}")
        assert figure.description in line
        assert (f"[{figure.unit}]" in line) == bool(figure.unit)


def test_the_table_reads_headings_and_formats_from_the_registry(row):
    skipped = Skipped("optimal", 500.0, 0, "refused", "the search space is too large", 0.0)
    doc = {
        "engine": {"master": "in-process", "tasks": 2, "wall_s": 0.5},
        "results": [row],
        "skipped": [skipped.to_json()],
    }
    lines = results_table(doc).splitlines()
    assert lines[0].split()[:5] == ["scheduler", "rate", "rep", "throughput", "tuples/s"]
    assert "R* tuples/s" in lines[0] and "p99 ms" in lines[0]
    assert lines[1].split()[:4] == ["even", "500", "0", "4,000"]
    assert lines[2].split()[:4] == ["optimal", "500", "0", "refused"]
    assert lines[2].rstrip().endswith("the search space is too large")
    assert lines[-1] == "2 tasks on in-process in 0.50 s"
    # CSV: one header and one line per row, the skipped row's message as the last column
    table = list(csv.reader(io.StringIO(results_csv([row, skipped.to_json()]))))
    assert table[0][-1] == "message" and table[2][table[0].index("status")] == "refused"

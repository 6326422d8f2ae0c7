"""Editor rows -> scenario validation, and the error at the right cell."""

from __future__ import annotations

import pytest
from dash import no_update

from core.model import ScenarioError
from core.presets import preset
from dashboard.editors import apply_edits, column_defs, topology_feedback
from dashboard.rows import (
    COMPONENTS,
    NODES,
    STREAMS,
    CellError,
    locate,
    mark,
    rows_after,
    scenario_from_rows,
    scenario_rows,
)


@pytest.fixture
def wordcount():
    """The WordCount preset: its JSON (the base) and its editor rows."""
    sc = preset("wordcount")
    return sc.to_json_dict(), scenario_rows(sc)


def _error(base, rows, **topology) -> CellError:
    with pytest.raises(ScenarioError) as err:
        scenario_from_rows(base, rows, **topology)
    return locate(err.value)


def test_rows_round_trip_to_the_same_scenario(wordcount):
    base, rows = wordcount
    assert [r["id"] for r in rows[NODES]] == ["i7-8c", "i7-4c", "i7-2c", "i5-4460", "i5-m460"]
    assert rows[NODES][0]["processing_speed"] == 185395.2  # 8 x 3.4 x 6816, Table 4
    assert rows[STREAMS][1]["from"] == "split"
    again = scenario_from_rows(base, rows, workers=5, ackers=3)
    assert again.to_json_dict() == base


def test_a_valid_edit_changes_the_scenario(wordcount):
    base, rows = wordcount
    rows[NODES][2]["cores"] = 1  # fewer: valid whatever hardware threads the node has
    rows[COMPONENTS][1]["parallelism"] = 20
    sc = scenario_from_rows(base, rows, workers=5, ackers=3)
    assert sc.cluster.nodes[2].cores == 1
    assert sc.component("split").parallelism == 20


@pytest.mark.parametrize(
    ("grid", "row", "field", "value", "column", "says"),
    [
        (NODES, 1, "cores", -2, "cores", "greater than 0"),
        (NODES, 3, "ghz", 0, "ghz", "greater than 0"),
        (NODES, 0, "slots", 1000, "slots", "less than or equal to 256"),
        (NODES, 4, "id", "i7-8c", "id", "duplicate node id 'i7-8c'"),
        (NODES, 2, "id", "", "id", "required field is missing"),
        (NODES, 1, "threads", 2, "threads", "2 hardware threads, fewer than its 4 cores"),
        (COMPONENTS, 1, "parallelism", 0, "parallelism", "greater than or equal to 1"),
        (COMPONENTS, 2, "cores", 1, "id", "unknown field"),
        (STREAMS, 1, "to", "cnt", "to", "unknown component 'cnt' in 'to'"),
        (STREAMS, 0, "from", "nope", "from", "unknown component 'nope' in 'from'"),
        (STREAMS, 0, "grouping", "random", "grouping", "input should be"),
    ],
)
def test_an_invalid_cell_is_located(wordcount, grid, row, field, value, column, says):
    base, rows = wordcount
    rows[grid][row][field] = value
    cell = _error(base, rows, workers=5, ackers=3)
    assert (cell.grid, cell.row, cell.column) == (grid, row, column)
    assert says in cell.message


def test_a_cycle_or_a_bad_worker_count_is_a_scenario_message(wordcount):
    base, rows = wordcount
    rows[STREAMS].append({"from": "count", "to": "spout", "grouping": "shuffle"})
    cell = _error(base, rows, workers=5, ackers=3)
    assert cell.grid is None and "the topology has a cycle" in cell.message
    rows[STREAMS].pop()
    cell = _error(base, rows, workers=0, ackers=3)
    assert cell.grid is None and cell.message.startswith("topology.workers")


def test_cores_above_the_threads_are_refused_at_threads_and_raising_threads_applies(wordcount):
    base, rows = wordcount
    # i5-m460 (row 4): 2 cores, 4 threads (the i5-M460's 2 threads per core)
    rows[NODES][4]["cores"] = 8
    out = apply_edits(edits=[None] * 3, rows=rows, workers=5, ackers=3, base=base, current=base)
    assert out["scenario"] is no_update
    assert "nodes row 5, column 'threads'" in str(out["message"])
    assert "4 hardware threads, fewer than its 8 cores" in str(out["message"])
    assert "Raise Threads with the cores" in str(out["message"])
    assert out["rows"][NODES][4]["_err_threads"].startswith("cluster.nodes[4].threads")
    assert any(c["field"] == "threads" and c["editable"] for c in column_defs(NODES))
    rows[NODES][4]["threads"] = 16
    out = apply_edits(edits=[None] * 3, rows=rows, workers=5, ackers=3, base=base, current=base)
    node = out["scenario"]["cluster"]["nodes"][4]
    assert (node["cores"], node["threads"], out["message"]) == (8, 16, "")
    # TOP-Storm Eq. 1: 16 logical CPUs x 2.53 GHz x 5054 (Table 4's BogoMIPS) = 204,585.92
    assert out["rows"][NODES][4]["processing_speed"] == 204585.9
    assert "_err_threads" not in out["rows"][NODES][4]


def test_the_cpu_model_is_shown_read_only_with_the_models_of_the_table():
    model = next(c for c in column_defs(NODES) if c["field"] == "cpu_model")
    assert model["editable"] is False
    assert all(name in model["headerTooltip"] for name in ("i7-6700", "i5-M460", "E5-2620v3"))
    editable = [c["field"] for c in column_defs(NODES) if c["editable"]]
    assert editable[:6] == ["id", "type", "sockets", "cores", "threads", "ghz"]


def test_mark_puts_the_message_on_one_cell_and_clears_old_marks(wordcount):
    _, rows = wordcount
    cell = CellError("cluster.nodes[1].cores: bad", NODES, 1, "cores")
    marked = mark(rows[NODES], cell, NODES)
    assert marked[1]["_err_cores"] == "cluster.nodes[1].cores: bad"
    assert sum(1 for r in marked for k in r if k.startswith("_err_")) == 1
    assert mark(marked, None, NODES) == rows[NODES]
    assert mark(rows[COMPONENTS], cell, COMPONENTS) == rows[COMPONENTS]


def test_columns_show_their_message_as_class_and_tooltip():
    cores = next(c for c in column_defs(NODES) if c["field"] == "cores")
    assert cores["cellClassRules"] == {"cell-invalid": "params.data._err_cores"}
    assert cores["tooltipField"] == "_err_cores"
    derived = [c for c in column_defs(NODES) if not c["editable"]]
    assert [c["field"] for c in derived] == ["cpu_model", "processing_speed", "computation_power"]


def test_add_duplicate_and_delete_rows(wordcount):
    base, rows = wordcount
    added = rows_after("add", NODES, rows[NODES], [])
    assert added[-1]["id"] == "n1" and added[-1]["processing_speed"] == 192.0
    copied = rows_after("duplicate", NODES, rows[NODES], [rows[NODES][0]])
    assert copied[-1]["id"] == "i7-8c-1" and copied[-1]["cores"] == rows[NODES][0]["cores"]
    assert copied[-1]["_rid"] != rows[NODES][0]["_rid"]
    kept = rows_after("delete", COMPONENTS, rows[COMPONENTS], [rows[COMPONENTS][2]])
    assert [r["id"] for r in kept] == ["spout", "split"]
    sc = scenario_from_rows(base, {**rows, NODES: added}, workers=5, ackers=3)
    assert len(sc.cluster.nodes) == 6


def test_a_new_stream_row_must_be_filled_in(wordcount):
    base, rows = wordcount
    rows[STREAMS] = rows_after("add", STREAMS, rows[STREAMS], [])
    cell = _error(base, rows, workers=5, ackers=3)
    assert (cell.grid, cell.row, cell.column) == (STREAMS, 2, "from")


def test_apply_edits_keeps_the_scenario_in_force_on_an_invalid_edit(wordcount):
    base, rows = wordcount
    rows[NODES][1]["cores"] = -2
    out = apply_edits(edits=[None] * 3, rows=rows, workers=5, ackers=3, base=base, current=base)
    assert out["scenario"] is no_update
    assert out["rows"][NODES][1]["_err_cores"].startswith("cluster.nodes[1].cores")
    assert out["rows"][COMPONENTS] is no_update
    assert "nodes row 2, column 'cores'" in str(out["message"])


def test_apply_edits_puts_a_valid_edit_in_force_with_fresh_derived_columns(wordcount):
    base, rows = wordcount
    rows[NODES][4]["ghz"] = 3.0
    out = apply_edits(edits=[None] * 3, rows=rows, workers=5, ackers=3, base=base, current=base)
    assert out["scenario"]["cluster"]["nodes"][4]["ghz"] == 3.0
    # TOP-Storm Eq. 1: logical CPUs x GHz x the "FLOPs/cycle" (BogoMIPS) column of Table 4
    logical = rows[NODES][4].get("threads") or rows[NODES][4]["cores"]
    assert out["rows"][NODES][4]["processing_speed"] == round(logical * 3.0 * 5054, 1)
    assert out["message"] == ""


def test_a_bad_worker_count_is_named_at_its_field(wordcount):
    base, rows = wordcount
    out = apply_edits(edits=[None] * 3, rows=rows, workers=0, ackers=3, base=base, current=base)
    message, workers_class, ackers_class = out["at_topology"]
    assert "topology.workers: input should be greater than or equal to 1 (got 0)" in str(message)
    assert (workers_class, ackers_class) == ("small-input invalid", "small-input")
    assert out["scenario"] is no_update
    out = apply_edits(edits=[None] * 3, rows=rows, workers=3, ackers=-1, base=base, current=base)
    assert out["at_topology"][1:] == ("small-input", "small-input invalid")
    # a grid cell's error is shown in the grid, not at W and ackers
    assert topology_feedback(ScenarioError("cluster.nodes[0].cores", "bad")) == (
        "",
        "small-input",
        "small-input",
    )

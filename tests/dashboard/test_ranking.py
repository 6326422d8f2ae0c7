"""The ranking strip: capacity first, best values marked, one narrative line."""

from core.presets import preset_json
from dashboard.compute import canonical, evaluate
from dashboard.ranking import Standing, best, leader, narrative, standing, strip


def test_leader_is_the_largest_rate_then_fewer_nodes():
    rows = [
        Standing("even", 100.0, 2.0, 5, 5, 9.0),
        Standing("a", 200.0, 3.0, 3, 3, 1.0),
        Standing("b", 200.0, 4.0, 2, 2, 1.0),
        Standing("broken", None, None, None, None, None),
    ]
    assert leader(rows).scheduler == "b"
    marks = best(rows)
    assert marks["max_rate"] == {"a", "b"}
    assert marks["latency_ms"] == {"even"}
    assert marks["nodes_used"] == {"b"}
    assert marks["inter_node"] == {"a", "b"}


def test_narrative_compares_the_leader_with_even():
    rows = [Standing("even", 80.0, 2.0, 5, 5, 9.0), Standing("lf", 200.0, 1.0, 4, 4, 0.0)]
    assert narrative(rows, 8, 100.0) == (
        "lf carries 2.5x even's rate on 4 of 8 nodes (2.0x headroom over the offered 100/s)"
    )
    assert narrative([Standing("x", None, None, None, None, None)], 3, 1.0).startswith("No ")


def test_standing_reads_the_analysis_of_a_real_placement():
    data = preset_json("lf-linear")
    ev = evaluate(canonical(data), "even", "{}", 500.0)
    s = standing(ev)
    assert s.max_rate == ev.analysis.max_rate > 500.0
    assert s.nodes_used == 8 and s.slots_used == 8
    # one executor per node in a line of eight: seven streams cross nodes at 500/s
    assert s.inter_node == 7 * 500.0


def test_strip_marks_the_best_cells():
    rows = [Standing("even", 100.0, 2.0, 5, 5, 9.0), Standing("lf", 150.0, 3.0, 5, 6, 0.0)]
    line, table = strip(rows, 5, 50.0)
    body = table.children[1].children
    assert [r.children[0].children for r in body] == ["lf", "even"]  # by R*, largest first
    lf_cells, even_cells = body[0].children[1:], body[1].children[1:]
    assert lf_cells[0].className == "best" and even_cells[0].className is None
    assert even_cells[1].className == "best"  # lower latency
    assert lf_cells[2].className == even_cells[2].className == "best"  # equal nodes

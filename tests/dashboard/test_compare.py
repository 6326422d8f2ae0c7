"""Compare two schedulers: moved executors and the difference table."""

from core.presets import preset_json
from dashboard.compare import changes_of, difference_table, moved_line, store_of
from dashboard.compute import canonical, evaluate
from dashboard.cyto_styles import moved_styles
from dashboard.ranking import Standing


def _pair(name: str, a: str, b: str, rate: float):
    text = canonical(preset_json(name))
    return evaluate(text, a, "{}", rate), evaluate(text, b, "{}", rate)


def test_lf_moves_every_executor_that_even_spreads_differently():
    # lf-ascent: even deals executors round robin over 8 single-slot nodes, lf keeps
    # each pipeline in one worker: count the executors whose node differs by hand
    ev, lf = _pair("lf-ascent", "even", "lf", 100.0)
    a, b = ev.schedule.placement(), lf.schedule.placement()
    expected = sorted(e for e in a if a[e][0] != b[e][0])
    changes = changes_of(ev, lf)
    assert sorted(changes.moved_node) == expected and expected
    assert changes.moved_slot == ()  # one slot per node: a move is always a node move
    assert store_of("even", "lf", changes)["moved_node"] == list(changes.moved_node)


def test_a_scheduler_compared_with_itself_moves_nothing():
    ev, ev2 = _pair("wordcount", "even", "even", 1000.0)
    assert moved_line(changes_of(ev, ev2), "even", "even") == (
        "even places every executor where even does"
    )


def test_difference_table_signs_follow_the_better_direction():
    a = Standing("even", 100.0, 2.0, 5, 5, 900.0)
    b = Standing("lf", 150.0, 3.0, 5, 4, 0.0)
    rows = difference_table(a, b).children[1].children
    cells = {r.children[0].children: r.children[3] for r in rows}
    assert (
        cells["R* tuples/s"].children == "+50 (+50%)" and cells["R* tuples/s"].className == "better"
    )
    assert cells["latency (est.) ms"].className == "worse"
    assert cells["nodes"].className is None  # equal
    assert cells["inter-node tuples/s"].children == "-900 (-100%)"


def test_moved_styles_outline_node_moves_solid_and_worker_moves_dashed():
    styles = moved_styles(["ex:a#0@", "ex:b#1@"], ["ex:c#0@"])
    assert styles[0]["selector"] == 'node[id ^= "ex:c#0@"]'
    assert styles[0]["style"]["border-style"] == "dashed"
    assert styles[1]["selector"] == 'node[id ^= "ex:a#0@"], node[id ^= "ex:b#1@"]'
    assert moved_styles([], []) == []


def test_a_pair_is_two_known_schedulers_and_its_result_says_what_moved():
    from dashboard.compare import PICK_TWO, pair_evaluations, result_of, store_of_pair

    text = canonical(preset_json("lf-ascent"))
    assert pair_evaluations(text, ("even", "even"), {}, 100.0) == PICK_TWO
    assert pair_evaluations(text, ("even", "nope"), {}, 100.0) == PICK_TWO
    assert store_of_pair(("even", None), pair_evaluations(text, ("even", None), {}, 100.0)) is None
    ev, lf = pair_evaluations(text, ("even", "lf"), {}, 100.0)
    moved = len(changes_of(ev, lf).moved_node)
    assert store_of_pair(("even", "lf"), (ev, lf))["moved_node"] == list(
        changes_of(ev, lf).moved_node
    )
    # one component (display-only HTML) holding the sentence and the table
    html_text = result_of(("even", "lf"), (ev, lf)).children
    assert f"lf places {moved} executors elsewhere than even" in html_text
    assert 'class="compare-table"' in html_text

"""The ranking strip: capacity first, best values marked, one narrative line."""

from core.presets import preset_json
from dashboard.compute import canonical, evaluate
from dashboard.ranking import (
    Standing,
    apart_lines,
    best,
    leader,
    narrative,
    ranked,
    standing,
    strip,
)


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
    data["topology"]["ackers"] = 0  # the line alone, without Storm 1.2.3's acker per worker
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


HETERO = "hetero raised the executors from 25 to 210"
TOO_BIG = ("node n1 needs 5.2 GB for 42 executors but has 3.7 GB",)


def test_the_ranking_compares_runnable_placements_of_the_topology_as_given():
    rows = [
        Standing("even", 100.0, 2.0, 5, 5, 9.0),
        Standing("hetero", 210.0, 1.0, 5, 5, 0.0, changed=HETERO),
        Standing("packed", 300.0, 0.5, 1, 1, 0.0, violations=TOO_BIG),
        Standing("lf", 150.0, 3.0, 4, 6, 0.0),
        Standing("broken", None, None, None, None, None),
    ]
    assert [s.scheduler for s in ranked(rows)] == ["lf", "even", "packed", "hetero", "broken"]
    assert leader(rows).scheduler == "lf"  # not hetero (2.1x), not packed (3x)
    assert narrative(rows, 5, 50.0).startswith("lf carries 1.5x even's rate on 4 of 5 nodes")
    assert apart_lines(rows) == [
        f"packed cannot run: {TOO_BIG[0]}",
        HETERO,
        "broken could not place the topology",
    ]
    line, apart, table = strip(rows, 5, 50.0)
    assert apart.children.startswith("Shown apart (not compared with the topology as given): ")
    body = table.children[1].children
    names = [
        r.children[0].children for r in body if getattr(r, "className", None) != "apart-reason"
    ]
    assert names == ["lf", "even", "packed", "hetero", "broken"]
    # a reason row under each scheduler shown apart; no best mark outside the ranked ones
    reasons = [r.children.children for r in body if getattr(r, "className", None) == "apart-reason"]
    assert reasons == apart_lines(rows)
    packed = next(r for r in body if r.children[0].children == "packed")
    assert packed.className == "apart" and packed.children[1].className is None
    lf = body[0].children
    assert lf[1].className == "best"  # the largest R* among the comparable


def test_no_runnable_placement_says_so():
    rows = [Standing("hetero", 210.0, 1.0, 5, 5, 0.0, changed=HETERO, violations=TOO_BIG)]
    assert narrative(rows, 5, 50.0) == (
        "No scheduler placed the topology as given so that it can run."
    )
    assert apart_lines(rows) == [f"{HETERO} and cannot run: {TOO_BIG[0]}"]


def test_the_simulated_p99_is_a_column_under_the_panels_name():
    rows = [
        Standing("even", 100.0, 0.8, 5, 5, 9.0, p99_ms=2.43),
        Standing("lf", 150.0, 0.9, 4, 6, 0.0, p99_ms=3.0),
    ]
    table = strip(rows, 5, 50.0)[-1]
    heads = [th.children for th in table.children[0].children.children]
    assert heads[2:4] == ["latency (est.) ms", "p99 ms"]  # the estimate and the trace's p99
    even = next(r for r in table.children[1].children if r.children[0].children == "even")
    assert [c.children for c in even.children[2:4]] == ["0.80", "2.43"]
    assert even.children[3].className == "best"


def test_hetero_on_wordcount_is_shown_apart_with_its_reasons():
    data = preset_json("wordcount")
    text, rate = canonical(data), float(data["workload"]["rate"])
    asked = {c["id"]: c["parallelism"] for c in data["topology"]["components"]}
    hetero = standing(evaluate(text, "hetero", "{}", rate), asked)
    even = standing(evaluate(text, "even", "{}", rate), asked)
    assert hetero.changed == HETERO and len(hetero.violations) == 3
    assert hetero.violations[0] == "node i7-8c needs 5.2 GB for 42 executors but has 3.7 GB"
    assert even.comparable and not hetero.comparable
    assert leader([hetero, even]).scheduler == "even"


def test_a_scheduler_placed_in_the_background_is_named_as_waiting(monkeypatch):
    from dashboard import ranking

    data = preset_json("lf-linear")
    ready = {"even"}  # lf's placement still runs in the background
    monkeypatch.setattr(ranking, "panel_ready", lambda text, s, params, rate: s in ready)
    children, waiting = ranking.ranking_strip(data, {}, 500.0, ["even", "lf"], None)
    assert waiting == ["lf"]
    table = children[-2]
    assert [r.children[0].children for r in table.children[1].children] == ["even"]
    assert children[-1].children == (
        "Still being placed in the background: lf (joins the ranking when its panel shows it)"
    )
    # its placement done (the page bumps the refresh store): ranked, nothing waiting
    ready.add("lf")
    children, waiting = ranking.ranking_strip(data, {}, 500.0, ["even", "lf"], None)
    assert waiting == [] and children[-1].className == "ranking-table"
    assert sorted(r.children[0].children for r in children[-1].children[1].children) == [
        "even",
        "lf",
    ]


def test_a_strip_with_every_placement_still_running_does_not_say_none_could_place():
    line, _table, pending = strip([], 5, 50.0, ["optimal"])
    assert line.children == "No placement is ready yet."
    assert pending.children.startswith("Still being placed in the background: optimal")


def test_a_set_placed_in_part_says_how_many_topologies_and_which_did_not_fit():
    ev = evaluate(canonical(preset_json("storm-large-cluster-03")), "even", "{}", 1000.0)
    line = standing(ev).apart()
    assert line == (
        "even: 49 of 50 topologies placed; not placed: TopologyName00049 (not enough resources)"
    )

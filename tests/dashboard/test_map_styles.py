"""Placement map stylesheets: complete at the first paint, outlines on aggregated maps."""

import pytest
from dash import no_update
from dash.exceptions import PreventUpdate

from core.presets import preset_json
from dashboard.compare import changes_of, store_of
from dashboard.compute import canonical, evaluate
from dashboard.map_styles import first_pair, map_styles, panel_stylesheet

X10 = "lf-diamond-x10"  # 400 executors on 8 nodes x 10 slots: an aggregated map


def _setup(name: str, a: str = "even", b: str = "lf"):
    data = preset_json(name)
    rate = float(data["workload"]["rate"])
    text = canonical(data)
    ea, eb = evaluate(text, a, "{}", rate), evaluate(text, b, "{}", rate)
    return data, text, rate, ea, eb, store_of(a, b, changes_of(ea, eb))


def _outlined(stylesheet, style: str) -> list[str]:
    return [
        sel.strip()
        for s in stylesheet
        if s["style"].get("border-style") == style and s["style"].get("border-width") == 3
        for sel in s["selector"].split(",")
    ]


def test_an_aggregated_map_outlines_the_slots_holding_moved_executors():
    data, text, rate, ea, _eb, compared = _setup(X10)
    placement = ea.schedule.placement()
    moved_node_slots = {placement[e] for e in compared["moved_node"]}
    assert moved_node_slots
    solid = _outlined(panel_stylesheet(False, compared, "even", text, "{}", rate), "solid")
    assert sorted(solid) == sorted(f'node[id = "slot:{n}:{s}"]' for n, s in moved_node_slots)


def test_the_first_paint_carries_the_pair_the_compare_store_gets():
    data, text, rate, ea, eb, compared = _setup("wordcount", "even", "top-storm")
    assert first_pair(data, ["even", "top-storm", "lf"], {}, rate) == compared
    assert first_pair(data, ["even"], {}, rate) is None
    styles = panel_stylesheet(False, compared, "even", text, "{}", rate)
    assert len(_outlined(styles, "solid")) + len(_outlined(styles, "dashed")) == len(
        compared["moved_node"]
    ) + len(compared["moved_slot"])
    assert _outlined(panel_stylesheet(False, compared, "lf", text, "{}", rate), "solid") == []


def test_map_styles_leaves_a_map_whose_stylesheet_is_already_right():
    data, text, rate, _ea, _eb, compared = _setup(X10)
    maps = [{"type": "placement-map", "sched": s} for s in ("even", "lf", "toss")]
    drawn = [panel_stylesheet(False, compared, m["sched"], text, "{}", rate) for m in maps]
    with pytest.raises(PreventUpdate):  # the page load's compare store: nothing to restyle
        map_styles(None, compared, maps, data, {}, rate, drawn)
    every_edge = map_styles(["all"], compared, maps, data, {}, rate, drawn)
    assert [len(s) for s in every_edge] == [len(s) for s in drawn]
    unpaired = map_styles(None, None, maps, data, {}, rate, drawn)
    assert [len(drawn[i]) - len(unpaired[i]) for i in (0, 1)] == [2, 2]  # outlines gone
    assert unpaired[2] is no_update  # toss is not in the pair

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


def test_a_map_of_one_pie_per_node_rings_the_pies_of_moved_executors():
    """Over MAX_SLOT_ELEMENTS slots the map draws one pie per node: the moved executors'
    nodes are ringed there (they were outlined on slot ids the map does not draw)."""
    from dashboard.compute import scenario_of
    from dashboard.elements import node_level, placement_elements

    data = preset_json("wordcount")
    nodes = data["cluster"]["nodes"]
    nodes += [{**n, "id": f"{n['id']}-b"} for n in nodes]
    for node in nodes:
        node["slots"] = 250  # 10 nodes x 250 = 2,500 slots: one pie per node
    rate = float(data["workload"]["rate"])
    text = canonical(data)
    ea, eb = evaluate(text, "even", "{}", rate), evaluate(text, "rstorm", "{}", rate)
    compared = store_of("even", "rstorm", changes_of(ea, eb))
    assert node_level(2_500) and compared["moved_node"]
    styles = panel_stylesheet(False, compared, "even", text, "{}", rate)
    solid = _outlined(styles, "solid")
    placement = ea.schedule.placement()
    moved_nodes = {placement[e][0] for e in compared["moved_node"]}
    assert sorted(solid) == sorted(f'node[id = "nodeagg:{n}"]' for n in moved_nodes)
    drawn = {
        e["data"]["id"]
        for e in placement_elements(scenario_of(text), ea.graph, placement, {}, traffic=False)
    }
    assert {s.split('"')[1] for s in solid} <= drawn  # every ring names a pie on the map


def test_no_label_is_drawn_under_12_px_at_the_least_zoom():
    """font-size x minZoom >= 12 px for every labelled style of both graphs (the browser
    test measures the drawn sizes; this pins the arithmetic they rest on)."""
    from dashboard.cyto_styles import (
        DAG_MIN_ZOOM,
        DAG_STYLESHEET,
        MAP_MIN_ZOOM,
        MIN_LABEL_PX,
        map_stylesheet,
    )

    for sheet, zoom in ((DAG_STYLESHEET, DAG_MIN_ZOOM), (map_stylesheet(), MAP_MIN_ZOOM)):
        sizes = [s["style"]["font-size"] for s in sheet if "font-size" in s["style"]]
        assert len(sizes) >= 2 and min(sizes) * zoom >= MIN_LABEL_PX, sizes


def test_a_node_label_of_three_lines_fits_between_rows_of_node_boxes():
    """The row below starts under the box above plus its label (3 lines of 14 px): labels
    no longer run into the slots of the row above."""
    from dashboard.compute import scenario_of
    from dashboard.cyto_styles import LABEL_FONT
    from dashboard.elements import placement_elements

    _data, text, _rate, ea, _eb, _ = _setup("wordcount")
    machines = [
        e
        for e in placement_elements(
            scenario_of(text), ea.graph, ea.schedule.placement(), {}, traffic=False
        )
        if "machine" in e["classes"]
    ]
    rows = sorted({m["position"]["y"] for m in machines})
    assert len(rows) >= 2
    by_row = {y: next(m for m in machines if m["position"]["y"] == y) for y in rows}
    above, below = by_row[rows[0]], by_row[rows[1]]
    bottom = above["position"]["y"] + above["data"]["h"] / 2
    top = below["position"]["y"] - below["data"]["h"] / 2
    assert top - bottom >= 3 * 1.2 * LABEL_FONT + 8  # 3 lines, text margin and padding

"""The page layout: which view a URL names, and the panels placed before the layout request."""

import json
import logging

from plotly.utils import PlotlyJSONEncoder

from core.presets import preset
from dashboard import compute, ids, jobs, layout, panel_content, panels, registry, view_state
from dashboard.app import server  # the app as served: every feature's callbacks registered
from dashboard.cyto_styles import MAP_LEAST_ZOOM
from dashboard.rows import TOPOLOGY_KEY


def test_a_url_query_names_the_preset_and_schedulers():
    name, selected, presenting = layout.view_of("preset=lf-star&schedulers=even,lf")
    assert (name, selected, presenting) == ("lf-star", ["even", "lf"], False)
    name, selected, presenting = layout.view_of("")
    assert (name, selected, presenting) == ("wordcount", registry.default_selection(), False)


def test_the_page_request_places_its_panels_and_the_layout_reuses_them(monkeypatch):
    monkeypatch.setitem(server.config, jobs.WARM_ON_VISIT_CONFIG, False)  # no Spark here
    compute.clear_caches()
    panel_content.panel_content.cache_clear()
    layout.prefetch("preset=lf-star&schedulers=even,lf")
    thread = layout._PREFETCHING[("lf-star", ("even", "lf"))]
    thread.join()
    placed = compute.placed.cache_info().currsize
    assert placed >= 2  # even's and lf's placements, and what their panels show
    referrer = "http://127.0.0.1:8050/?preset=lf-star&schedulers=even,lf"
    with server.test_request_context("/_dash-layout", headers={"Referer": referrer}):
        page = layout.serve()
    assert ("lf-star", ("even", "lf")) not in layout._PREFETCHING
    assert compute.placed.cache_info().currsize == placed  # nothing placed again
    assert "lf-star" in str(page)
    # the least zoom of a placement map, stated once (cyto_styles), read by graph_view.js
    assert getattr(page, layout.MAP_LEAST_ZOOM_ATTRIBUTE) == str(MAP_LEAST_ZOOM)
    # served drawn, so no callback draws them after the first paint: the ranking strip, the
    # compare result of the pair even/lf, the what-if line and the what-if picker's nodes
    props = _props_by_id(page)
    assert "even" in props[ids.RANKING]["children"]["props"]["children"]
    assert "lf places" in props[ids.COMPARE_RESULT]["children"]["props"]["children"]
    assert props[ids.WHATIF_RESULT]["children"]["props"]["children"] == "Healthy cluster."
    assert len(props[ids.FAIL_NODE]["options"]) > len(preset("lf-star").cluster.nodes)


def _props_by_id(page) -> dict:
    """The props of every component with an id in a served layout (a dict id, a panel's
    own, keyed by its JSON with sorted keys)."""
    tree = json.loads(json.dumps(page, cls=PlotlyJSONEncoder))
    found: dict = {}

    def walk(node) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            props = node.get("props")
            if isinstance(props, dict):
                if isinstance(props.get("id"), str):
                    found[props["id"]] = props
                elif isinstance(props.get("id"), dict):
                    found[json.dumps(props["id"], sort_keys=True)] = props
                for value in props.values():
                    walk(value)

    walk(tree)
    return found


def test_a_view_link_is_served_as_the_restored_view_from_the_first_render(monkeypatch, tmp_path):
    monkeypatch.setitem(server.config, jobs.WARM_ON_VISIT_CONFIG, False)
    views = view_state.ViewStore(tmp_path)
    monkeypatch.setattr(view_state, "store", lambda: views)
    data = preset("wordcount").to_json_dict()
    data["name"] = "WordCount3"
    data["topology"]["components"][1]["parallelism"] = 4  # split 8 -> 4: 24 executors
    view = view_state.view_of(
        "imported: WordCount3", data, 7000, ["even", "lf"], {"lf": {}}, ("lf", "even")
    )
    saved = views.save(view)
    query = f"imported=WordCount3&schedulers=even%2Clf&rate=7000&view={saved}"
    first = layout.first_view(query)
    assert (first.loaded, first.selected, first.rate) == (
        "imported: WordCount3",
        ["even", "lf"],
        7000,
    )
    referrer = f"http://127.0.0.1:8050/?{query}"
    with server.test_request_context("/_dash-layout", headers={"Referer": referrer}):
        props = _props_by_id(layout.serve())
    assert props[ids.PRESET]["value"] == "imported: WordCount3"
    assert props[ids.LOADED_STORE]["data"] == "imported: WordCount3"
    assert props[ids.RATE]["value"] == 7000
    assert props[ids.SCHEDULERS]["value"] == ["even", "lf"]
    assert props[ids.SCENARIO_TITLE]["children"] == "WordCount3"
    assert props[ids.SCENARIO_FACTS]["children"].startswith("24 executors")
    assert props[ids.SCENARIO_STORE]["data"] == view.scenario
    # an unknown view id falls back to the query's plain fields (the bar then says why)
    plain = layout.first_view("preset=lf-star&schedulers=even&rate=900&view=0123456789abcdef")
    assert (plain.loaded, plain.selected, plain.rate) == ("lf-star", ["even"], 900)


def test_a_link_to_a_preset_too_large_for_the_page_first_renders_the_default():
    # storm-large-cluster-01: 27,440 executors, over the page's 5,000; the restore then
    # says so and opens the Cluster view on it
    assert view_state.too_large("storm-large-cluster-01") is not None
    first = layout.first_view("preset=storm-large-cluster-01&schedulers=even")
    assert (first.loaded, first.selected, first.query) == (
        "wordcount",
        ["even"],
        "?preset=wordcount",
    )
    assert first.scenario.topologies is None


def _panel(props: dict, kind: str, scheduler: str) -> dict:
    return props[json.dumps({"type": kind, "sched": scheduler}, sort_keys=True)]


def test_a_link_to_a_large_preset_the_page_holds_is_its_first_render(monkeypatch, caplog):
    monkeypatch.setitem(server.config, jobs.WARM_ON_VISIT_CONFIG, False)
    query = "preset=storm-large-cluster-03&schedulers=even"
    assert layout.view_of(query) == ("storm-large-cluster-03", ["even"], False)
    with caplog.at_level(logging.ERROR, logger=layout.log.name):
        layout.prefetch(query)  # the page request starts placing the set's panel
        thread = layout._PREFETCHING.get(("storm-large-cluster-03", ("even",)))
        if thread is not None:  # None: both prefetch threads busy (the layout places it)
            thread.join()
    assert caplog.records == []  # placed as a preset, not looked up as a stored view id
    referrer = f"http://127.0.0.1:8050/?{query}"
    with server.test_request_context("/_dash-layout", headers={"Referer": referrer}):
        props = _props_by_id(layout.serve())
    assert props[ids.PRESET]["value"] == props[ids.LOADED_STORE]["data"] == "storm-large-cluster-03"
    base = props[ids.BASE_STORE]["data"]
    assert len(base["topologies"]) == 50  # the whole set, as the preset box loads it
    assert base == view_state.base_scenario("storm-large-cluster-03")  # the restore finds it
    assert props[ids.RATE]["value"] == 1000  # the preset's stated rate (tuples/s per spout)
    first = preset("storm-large-cluster-03").topology_set[0].name
    assert {r[TOPOLOGY_KEY] for r in props[ids.COMPONENTS_GRID]["rowData"]} == {first}
    assert props[ids.SCHEDULERS]["value"] == ["even"]
    assert "wordcount" not in json.dumps(props[ids.SCENARIO_STORE]["data"]).lower()
    # 2,174 executors: placed in the background, the panel served pending, its poll on
    assert _panel(props, panels.PANEL_POLL_TYPE, "even")["disabled"] is False


def test_a_large_scenarios_panels_are_served_pending_once_placed_and_polls_draw_them(monkeypatch):
    monkeypatch.setitem(server.config, jobs.WARM_ON_VISIT_CONFIG, False)
    name, chosen = "storm-large-cluster-03", ["even", "lf"]
    data = view_state.base_scenario(name)
    text, params = compute.canonical(data), registry.default_params(chosen)
    assert not layout.draws_placed(data, chosen)  # 2,174 executors, over the 1,000 in process
    assert layout.draws_placed(preset("wordcount").to_json_dict(), chosen)
    for s in chosen:
        assert jobs.placements.wait(jobs.panel_key(text, s, params, 1000.0), 120).ready
    referrer = f"http://127.0.0.1:8050/?preset={name}&schedulers=even,lf"
    with server.test_request_context("/_dash-layout", headers={"Referer": referrer}):
        page = layout.serve()
    props = _props_by_id(page)
    for s in chosen:  # placed, yet not drawn in the layout: its poll draws it
        assert _panel(props, ids.MAP_TYPE, s)["elements"] == []
        assert _panel(props, panels.PANEL_POLL_TYPE, s)["disabled"] is False
        note = json.dumps(_panel(props, ids.NOTE_TYPE, s)["children"], ensure_ascii=False)
        assert "Placed in the background: drawing it" in note
        drawn = panels.panel_update(text, s, params, 1000.0, None, panels.POLL)
        map_elements = drawn[panels.PANEL_PROPS.index((ids.MAP_TYPE, "elements"))]
        assert len(map_elements) > 0 and drawn[-1] is True  # drawn, and its poll stops
    # the layout carries the scenario (twice: base and in force, 0.26 MB each), not the
    # panels' drawings (1.25 MB each): 0.65 MB served here, 11.5 MB with all nine drawn
    scenario_bytes = len(json.dumps(data))
    assert len(json.dumps(page, cls=PlotlyJSONEncoder)) < 2 * scenario_bytes + 1_000_000

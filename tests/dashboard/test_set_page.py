"""A topology set in the main page (dashboard/set_page.py): loaded through the bar's
callbacks without a server error, described in words, one topology at a time in the
editors, and an edit goes back into that topology only."""

from __future__ import annotations

import base64
import json

import pytest
from dash import no_update
from dash._callback_context import context_value
from dash._utils import AttributeDict
from dash.exceptions import PreventUpdate

from core.model import validate_scenario
from dashboard import ids, set_page
from dashboard.compute import canonical, evaluate
from dashboard.editors import apply_edits
from dashboard.panel_content import panel_content
from dashboard.rows import (
    COMPONENTS,
    NODES,
    STREAMS,
    TOPOLOGY_KEY,
    scenario_data,
    scenario_rows,
)
from dashboard.scenario_bar import load_scenario
from dashboard.view_state import LARGE_GROUP, preset_options

NODES_JSON = [{"id": f"n{i}", "cores": 2, "ghz": 2, "slots": 2, "ram_gb": 1} for i in (1, 2, 3)]


def _topology(name: str, bolts: int, workers: int) -> dict:
    return {
        "name": name,
        "workers": workers,
        "ackers": 1,
        "components": [
            {"id": "s", "parallelism": 1, "memory_mb": 600, "cpu_pct": 50},
            {"id": "b", "parallelism": bolts, "memory_mb": 600, "cpu_pct": 50},
        ],
        "streams": [{"from": "s", "to": "b"}],
    }


SET_JSON = {
    "name": "two-apps",
    "topologies": [_topology("low", 1, 2), _topology("high", 3, 3)],
    "cluster": {"nodes": NODES_JSON},
}


def _upload(data: dict) -> str:
    return "data:application/json;base64," + base64.b64encode(json.dumps(data).encode()).decode()


def _triggered(prop_id: str) -> None:
    context_value.set(AttributeDict(triggered_inputs=[{"prop_id": prop_id, "value": None}]))


@pytest.fixture
def uploaded():
    """The set uploaded through the bar's load callback: its 11 outputs of the bar (the
    last two, the Cluster view's, are left alone by an upload)."""
    _triggered(f"{ids.UPLOAD}.contents")
    out = load_scenario(None, _upload(SET_JSON), "two-apps.json", "wordcount")
    assert out[11] is no_update and out[12] is no_update
    return out[:11]


def test_an_uploaded_set_fills_the_store_and_the_editors_with_its_first_topology(uploaded):
    base, nodes, components, streams, workers, ackers, _rate, box, _opt, loaded, note = uploaded
    assert [t["name"] for t in base["topologies"]] == ["low", "high"]  # the set, whole
    assert "topology" not in base
    assert [r["id"] for r in nodes] == ["n1", "n2", "n3"]
    # the first topology's rows, each saying which topology it belongs to
    assert [(r["id"], r["parallelism"]) for r in components] == [("s", 1), ("b", 1)]
    assert {r[TOPOLOGY_KEY] for r in components + streams} == {"low"}
    assert [(r["from"], r["to"]) for r in streams] == [("s", "b")]
    assert (workers, ackers) == (2, 1)  # low's, not the union's 5 and 2
    assert box == loaded == "file: two-apps"
    assert "Loaded two-apps.json" in str(note)


def test_the_bar_says_what_the_set_is_and_offers_its_topologies(uploaded):
    base, components = uploaded[0], uploaded[2]
    hidden, words, options, value = set_page.picker_state(base, components)
    # low: 1 + 1 executors + 1 acker; high: 1 + 3 + 1 acker
    assert not hidden
    assert words == "A set of 2 topologies (8 executors) on 3 nodes."
    assert options == [
        {"label": "low (3 executors)", "value": "low"},
        {"label": "high (5 executors)", "value": "high"},
    ]
    assert value == "low"  # the one the components grid shows


def test_a_single_topology_hides_the_line():
    single = {"topology": {}, "cluster": {"nodes": []}}
    assert set_page.picker_state(single, []) == (True, "", [], None)
    # shown already: nothing is sent again (each prop sent costs the page a render)
    assert set_page.show_set(single, [], True, "", [], None) == (no_update,) * 4
    assert set_page.show_set(single, [], False, "A set", [], "x") == (True, "", no_update, None)


def test_picking_a_topology_shows_its_rows_and_keeps_earlier_edits(uploaded):
    base, nodes, components, streams, workers, ackers = uploaded[:6]
    # an edit to low's bolt parallelism goes through the editors' callback
    components = [dict(r) for r in components]
    components[1]["parallelism"] = 2
    rows = {NODES: nodes, COMPONENTS: components, STREAMS: streams}
    out = apply_edits([None] * 3, rows, workers, ackers, base, base)
    edited = out["scenario"]
    assert out["message"] == ""
    assert [c["parallelism"] for c in edited["topologies"][0]["components"]] == [1, 2]
    assert [c["parallelism"] for c in edited["topologies"][1]["components"]] == [1, 3]
    # then high is picked: its rows, its W; the base becomes the edited set
    new_base, high_rows, high_streams, high_workers, high_ackers = set_page.pick_topology(
        "high", edited, components
    )
    assert new_base == edited
    assert [(r["id"], r["parallelism"]) for r in high_rows] == [("s", 1), ("b", 3)]
    assert {r[TOPOLOGY_KEY] for r in high_rows + high_streams} == {"high"}
    assert (high_workers, high_ackers) == (3, 1)
    # the editors now rebuild the set from high's rows: low keeps its edit
    rows = {NODES: nodes, COMPONENTS: high_rows, STREAMS: high_streams}
    rebuilt = validate_scenario(scenario_data(new_base, rows, high_workers, high_ackers))
    assert [c.parallelism for c in rebuilt.topology_set[0].components] == [1, 2]
    assert [c.parallelism for c in rebuilt.topology_set[1].components] == [1, 3]
    # picking what is already shown changes nothing
    with pytest.raises(PreventUpdate):
        set_page.pick_topology("high", edited, high_rows)


def test_an_invalid_edit_in_a_set_is_refused_with_a_message(uploaded):
    base, nodes, components, streams, workers, ackers = uploaded[:6]
    components = [dict(r) for r in components]
    components[1]["parallelism"] = -1
    rows = {NODES: nodes, COMPONENTS: components, STREAMS: streams}
    out = apply_edits([None] * 3, rows, workers, ackers, base, base)
    assert out["scenario"] is no_update
    assert "Not applied" in str(out["message"]) and "parallelism" in str(out["message"])


def test_rows_of_a_set_of_one_are_its_topology():
    one = validate_scenario({**SET_JSON, "topologies": [_topology("only", 2, 2)]})
    rows = scenario_rows(one)
    assert [(r["id"], r["parallelism"]) for r in rows[COMPONENTS]] == [("s", 1), ("b", 2)]
    data = scenario_data(one.to_json_dict(), rows, 2, 1)
    assert validate_scenario(data) == one


def test_the_preset_box_lists_the_large_sets_in_a_group_of_their_own():
    values = [o["value"] for o in preset_options()]
    heading = values.index(LARGE_GROUP)
    assert [o.get("disabled") for o in preset_options() if o["value"] == LARGE_GROUP] == [True]
    assert values[heading + 1 :][:3] == [
        "storm-large-cluster-01",
        "storm-large-cluster-02",
        "storm-large-cluster-03",
    ]


def test_a_large_set_that_fits_the_page_loads_from_the_preset_box():
    _triggered(f"{ids.PRESET}.value")
    out = load_scenario("storm-large-cluster-03", None, None, "wordcount")
    base, components, box, loaded = out[0], out[2], out[7], out[9]
    assert len(base["topologies"]) == 50 and box == loaded == "storm-large-cluster-03"
    assert out[11] is no_update and out[12] is no_update  # the Cluster view is not opened
    first = base["topologies"][0]["name"]
    assert {r[TOPOLOGY_KEY] for r in components} == {first}
    assert set_page.picker_state(base, components)[1] == (
        "A set of 50 topologies (2,174 executors) on 80 nodes."
    )


def test_a_large_set_beyond_the_page_is_refused_and_points_to_the_cluster_view():
    _triggered(f"{ids.PRESET}.value")
    out = load_scenario("storm-large-cluster-01", None, None, "wordcount")
    assert all(o is no_update for o in out[:7])
    assert out[7] == "wordcount"  # the box goes back to what the editors hold
    message, cluster, opened = out[10], out[11], out[12]
    assert "27,440 executors" in str(message) and "Cluster view" in str(message)
    assert cluster == opened == "storm-large-cluster-01"  # the Cluster view opens on it


# -- the placement panels place a set as Storm does (dashboard/set_placement.py) ---------


def test_a_panel_places_the_set_topology_after_topology():
    sc = validate_scenario(SET_JSON)
    text = canonical(sc.to_json_dict())
    ev = evaluate(text, "even", "{}", 1000.0)
    # schedule_set's even: high (workers 3) then low (workers 2) on 6 slots, ackers per
    # topology renumbered into the union's acker component
    assert ev.schedule.ok and ev.metrics is not None and ev.analysis is not None
    placement = ev.schedule.placement()
    assert sorted(placement) == sorted(
        ["__acker#0", "__acker#1", "high/s#0", "high/b#0", "high/b#1", "high/b#2"]
        + ["low/s#0", "low/b#0"]
    )
    slots = {t: {placement[e] for e in placement if e.startswith(t)} for t in ("high", "low")}
    assert len(slots["high"]) == 3 and len(slots["low"]) == 2 and not slots["high"] & slots["low"]
    content = panel_content(text, "even", "{}", 1000.0)
    assert content.placement and content.dag


def test_a_topology_that_does_not_fit_is_named_in_the_panel():
    # rstorm finds no node for one of high's 600 MB executors (3 nodes of 1 GB)
    text = canonical(SET_JSON | {"name": "two-apps"})
    ev = evaluate(text, "rstorm", "{}", 1000.0)
    assert not ev.schedule.ok and ev.metrics is None
    assert ev.schedule.message.startswith("1 of 2 topologies placed; not placed: high")
    panel_content(text, "rstorm", "{}", 1000.0)  # a note, not an exception


def test_a_search_panel_searches_the_set_jointly_in_each_topologys_workers():
    # the panel's optimal is core/topology_set.py's: a joint search of the set's union
    # (8 executors on 3 nodes), each topology in its declared workers, ackers renumbered
    sc = validate_scenario(SET_JSON)
    text = canonical(sc.to_json_dict())
    ev = evaluate(text, "optimal", '{"time_limit": 4, "workers": 1}', 1000.0)
    assert ev.schedule.ok and ev.metrics is not None
    assert ev.schedule.decisions[0].startswith("joint search of the set (8 executors on 3 nodes)")
    placement = ev.schedule.placement()
    assert sorted(placement) == sorted(
        ["__acker#0", "__acker#1", "high/s#0", "high/b#0", "high/b#1", "high/b#2"]
        + ["low/s#0", "low/b#0"]
    )
    slots = {t: {placement[e] for e in placement if e.startswith(t)} for t in ("high", "low")}
    assert 1 <= len(slots["high"]) <= 3 and 1 <= len(slots["low"]) <= 2  # declared workers
    assert not slots["high"] & slots["low"]
    assert "(optimal and slotscope place the set as one topology)" not in set_page.SET_NOTE


def test_a_rescheduling_panel_on_a_set_whose_running_placement_is_partial_is_drawn():
    # one node of 2 slots: 'high' (3 workers) takes both, 'low' finds no slot; aniello-
    # online observes each placed topology's run, never the union's partial placement
    data = {**SET_JSON, "cluster": {"nodes": NODES_JSON[:1]}}
    text = canonical(validate_scenario(data).to_json_dict())
    ev = evaluate(text, "aniello-online", "{}", 1000.0)
    assert not ev.error
    assert ev.schedule.message.startswith("1 of 2 topologies placed; not placed: low")

"""Placement panels for every preset and scheduler, without a traceback."""

from __future__ import annotations

import pytest

from core.presets import PRESETS, preset
from dashboard.compute import canonical, evaluate, headline
from dashboard.panel_content import panel_content
from dashboard.panels import frames
from dashboard.registry import default_params, default_selection


def _contents(name: str, rate_factor: float = 1.0):
    data = preset(name).to_json_dict()
    data["workload"] = {
        **data.get("workload", {}),
        "rate": rate_factor * preset(name).workload.rate,
    }
    text = canonical(data)
    params = default_params(default_selection())
    return {
        s: panel_content(text, s, canonical(params[s]), data["workload"]["rate"])
        for s in default_selection()
    }


@pytest.mark.parametrize("name", [n for n in PRESETS if not n.endswith("-x10")])
def test_every_preset_gets_every_schedulers_panel_content(name):
    for scheduler, content in _contents(name).items():
        if content.placement:
            # an executor dot each, or (a large placement) one pie per used slot
            drawn = [
                e
                for e in content.placement
                if "executor" in e.get("classes", "") or " agg" in e.get("classes", "")
            ]
            assert drawn, (name, scheduler)
            assert content.dag, (name, scheduler)
        else:
            assert "could not place" in str(content.note), (name, scheduler)


def test_a_panel_per_selected_scheduler_filled_in():
    data = preset("wordcount").to_json_dict()
    panels = frames(data, ["even", "nope", "lf"], {}, 15000.0)
    assert [p.to_plotly_json()["props"]["data-scheduler"] for p in panels] == ["even", "lf"]
    assert "split" in str(panels[0])
    assert "Pick at least one" in str(frames(data, [], {}, 15000.0))


def test_a_bad_parameter_is_a_panel_message_not_an_exception():
    text = canonical(preset("wordcount").to_json_dict())
    ev = evaluate(text, "top-storm", canonical({"alpha": 7}), 1000.0)
    assert ev.schedule is None and "alpha" in ev.error
    assert headline(ev)["throughput"] is None
    content = panel_content(text, "top-storm", canonical({"alpha": 7}), 1000.0)
    assert content.placement == [] and "alpha" in str(content.note)


def test_headline_reads_the_placement_and_the_analysis():
    text = canonical(preset("wordcount").to_json_dict())
    h = headline(evaluate(text, "even", "{}", 15000.0))
    assert h["nodes_used"] == 5
    assert h["throughput"] is None or h["throughput"] > 0


def test_each_graph_is_laid_out_once_per_new_elements():
    """Cytoscape's own refresh on added elements is off (it ran every layout twice): the
    layout itself changes whenever the elements do, so new elements are still laid out."""
    import dash_cytoscape as cyto

    def graphs(name: str) -> list:
        data = preset(name).to_json_dict()
        panel = frames(data, ["even"], default_params(["even"]), preset(name).workload.rate)[0]
        found, todo = [], [panel]
        while todo:
            node = todo.pop()
            if isinstance(node, cyto.Cytoscape):
                found.append(node)
            children = getattr(node, "children", None)
            todo.extend(children if isinstance(children, list) else [children] if children else [])
        return found

    wordcount, diamond = graphs("wordcount"), graphs("lf-diamond")
    assert len(wordcount) == 2 and all(g.autoRefreshLayout is False for g in wordcount)
    for a, b in zip(wordcount, diamond, strict=True):
        assert a.elements != b.elements and a.layout != b.layout
        assert {k: v for k, v in a.layout.items() if k != "elements"} == {
            k: v for k, v in b.layout.items() if k != "elements"
        }
    assert [g.layout for g in graphs("wordcount")] == [g.layout for g in wordcount]


def test_a_refresh_outlines_the_compared_pair_as_the_compare_store_does():
    from dash import no_update

    from dashboard import compare
    from dashboard.map_styles import panel_stylesheet
    from dashboard.panels import restyled

    text = canonical(preset("lf-diamond").to_json_dict())
    rate = preset("lf-diamond").workload.rate
    ea, eb = (evaluate(text, s, "{}", rate) for s in ("even", "lf"))
    store = compare.store_of("even", "lf", compare.changes_of(ea, eb))
    assert store["moved_node"] or store["moved_slot"]  # lf moves executors even places
    for pair, want in ((("even", "lf"), store), (("even", "even"), None), (("even", None), None)):
        evaluated = compare.pair_evaluations(text, pair, {}, rate)
        assert compare.store_of_pair(pair, evaluated) == want
    shown = ["even", "lf", "toss"]
    wanted = [panel_stylesheet(False, store, s, text, "{}", rate) for s in shown]
    assert wanted[0] != wanted[2]  # even's map rings the moved executors, toss's does not
    # a map whose stylesheet is already right is left alone (a restyle redraws it)
    assert restyled(text, shown, [None, wanted[1], None], False, store, {}, rate) == [
        wanted[0],
        no_update,
        wanted[2],
    ]


def test_a_refresh_leaves_an_empty_note_and_an_off_poll_alone():
    from dash import no_update

    from dashboard.panels import PANEL_PROPS, unchanged

    outputs = [[{"id": {"sched": s}} for s in ("a", "b")] for _ in PANEL_PROPS]
    per_prop = [["x", "y"] for _ in PANEL_PROPS]
    note, poll = PANEL_PROPS.index(("panel-note", "children")), len(PANEL_PROPS) - 1
    per_prop[note] = [[], []]
    per_prop[poll] = [True, True]
    shown = {
        "notes": [{"id": {"sched": "a"}, "value": []}, {"id": {"sched": "b"}, "value": ["n"]}],
        "polls": [{"id": {"sched": "a"}, "value": True}, {"id": {"sched": "b"}, "value": False}],
    }
    unchanged(per_prop, outputs, shown)
    assert per_prop[note] == [no_update, []]  # b's note was shown: cleared
    assert per_prop[poll] == [no_update, True]  # b's poll was on: stopped
    assert per_prop[0] == ["x", "y"]  # the others are always sent


def test_the_rest_of_the_page_follows_a_scenario_in_the_panels_answer():
    """What each small callback once answered (title, what-if, set line, rate message) comes
    with the panels, left alone where the page shows it already."""
    from dash import no_update

    from dashboard import scenario_bar, set_page, whatif
    from dashboard.panels import as_browser_json, page_outputs

    data = preset("lf-diamond").to_json_dict()
    options = whatif.failure_options(data["cluster"]["nodes"])
    healthy = as_browser_json(whatif.whatif_outputs(None, data, {}, 10.0, ["even"], 0.0)[0])
    page = {
        "loaded": None,
        "node": None,
        "fail_options": options,
        "whatif": healthy,
        "component_rows": [],
        "set_row": set_page.picker_state(data, []),
        "cluster": (None, None, None, None),
        "rate_feedback": ("", "rate-input"),
    }
    out = page_outputs(data, {}, 10.0, ["even"], ("even", "lf"), page, 0.0)
    assert out["described"][0] == preset("lf-diamond").name
    assert " executors · " in out["described"][1]
    assert out["fail_options"] is no_update and out["whatif"] == (no_update, no_update)
    assert out["set_row"] == (no_update,) * 4 and out["rate_feedback"] == (no_update,) * 2
    assert out["view"] == (no_update, no_update)  # nothing loaded: no link
    # a bad rate: its message at the field, the what-if left as it is
    bad = page_outputs(data, {}, -100, ["even"], ("even", "lf"), page, 0.0)
    assert "not a positive number" in bad["rate_feedback"][0].children
    assert bad["rate_feedback"][1] == scenario_bar.rate_feedback(-100)[1]
    assert "whatif" not in bad

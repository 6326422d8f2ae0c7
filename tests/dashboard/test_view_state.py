"""Links to the large-cluster presets and the Cluster view's picks (dashboard/view_state.py,
the link functions of dashboard/scenario_bar.py).

storm-large-cluster-03 (50 topologies, 1,414 executors plus 760 ackers: 2,174, on 80 nodes)
fits the page's 5,000-executor limit and loads as a set; -01 (27,440 with ackers) does not:
its link keeps the page's scenario and opens the Cluster view on it.
"""

from __future__ import annotations

import pytest
from dash import no_update

from core.presets import preset
from dashboard import registry, set_page, view_state
from dashboard.cluster_view import DEFAULT_SCHEDULERS, ClusterPicks, open_outputs
from dashboard.rows import scenario_from_rows
from dashboard.scenario_bar import OnScreen, box_outputs, requested_view, restore_outputs

SMALL = "wordcount"
FITS = "storm-large-cluster-03"
TOO_LARGE = "storm-large-cluster-01"
SELECTED = ["even", "lf"]
LINK_KEYS = ("preset", "options", "loaded")
SCENARIO_KEYS = ("base", "nodes", "components", "streams", "workers", "ackers", "rate")
CLUSTER_KEYS = tuple(open_outputs(ClusterPicks(FITS)))


def _shown(**changes) -> OnScreen:
    fields = {
        "loaded": SMALL,
        "schedulers": SELECTED,
        "rate": preset(SMALL).workload.rate,
        "scenario": preset(SMALL).to_json_dict(),
        "params": registry.default_params(SELECTED),
        "compare": ("even", "lf"),
        "whatif": None,
    }
    fields.update(changes)
    return OnScreen(**fields)


def _changed(out: dict) -> set[str]:
    return {k for k, v in out.items() if v is not no_update}


def _editors_hold(out: dict) -> dict:
    """The scenario store after the editors take the restored rows (``apply_edits``)."""
    rows = {"nodes": out["nodes"], "components": out["components"], "streams": out["streams"]}
    return scenario_from_rows(out["base"], rows, out["workers"], out["ackers"]).to_json_dict()


def test_a_link_to_03_loads_the_set_as_choosing_it_in_the_box_does():
    view, message = requested_view(f"?preset={FITS}", _shown())
    assert message == "" and view.loaded == FITS and view.scenario is None
    assert view.rate == 1000.0  # the corpus states no rate: the preset's stated default
    out = restore_outputs(view, _shown(), message)
    assert _changed(out) == {*SCENARIO_KEYS, *LINK_KEYS}  # schedulers, pair, cluster stay
    chosen = set_page.load_large(FITS, SMALL, box_outputs)  # the preset box's 11 outputs
    assert [out[k] for k in (*SCENARIO_KEYS, *LINK_KEYS)] == list(chosen[:10])
    assert (
        set_page.set_words(out["base"]) == "A set of 50 topologies (2,174 executors) on 80 nodes."
    )
    assert out["preset"] == out["loaded"] == FITS


def test_an_unedited_03_needs_no_view_id_and_an_edited_one_does():
    out = restore_outputs(requested_view(f"?preset={FITS}", _shown())[0], _shown(), "")
    held = _editors_hold(out)
    view = view_state.view_of(FITS, held, out["rate"], SELECTED, None, ("even", "lf"))
    assert view.scenario is None and not view_state.needs_id(view)
    assert view_state.link_of(view) == (f"?preset={FITS}&schedulers=even%2Clf", None)
    assert view_state.loaded_kind(FITS) == "preset"
    held["topologies"][0]["components"][0]["parallelism"] += 1
    edited = view_state.view_of(FITS, held, out["rate"], SELECTED, None, ("even", "lf"))
    assert edited.scenario == held and view_state.needs_id(edited)
    # the base is built once per preset, not on each edit
    assert view_state.base_scenario(FITS) is view_state.base_scenario(FITS)


def test_a_link_to_01_keeps_the_scenario_says_why_and_opens_the_cluster_view():
    assert view_state.too_large(TOO_LARGE).startswith("27,440 executors in all")
    assert view_state.loaded_kind(TOO_LARGE) is None and view_state.base_scenario(TOO_LARGE) is None
    view, message = requested_view(f"?preset={TOO_LARGE}", _shown())
    refused = set_page.load_large(TOO_LARGE, SMALL, box_outputs)[10]  # the box's own words
    assert message == refused.children[0]
    assert "the dashboard places at most 5,000" in message and "Cluster view" in message
    assert view.loaded == SMALL and view.scenario is None
    assert view.cluster == ClusterPicks(TOO_LARGE, DEFAULT_SCHEDULERS, "cpu", None)
    out = restore_outputs(view, _shown(), message)
    assert _changed(out) == {"message", *CLUSTER_KEYS}  # the page's scenario stays
    assert out["cluster"] == out["cluster_open"] == TOO_LARGE
    assert out["cluster_schedulers"] == ["ras-default", "ras-generic"]
    assert len(out["cluster_topology_options"]) == 40  # largeCluster01's topologies
    # the page's link then names its own scenario and the cluster
    assert view_state.query_of(view, None) == (
        f"?preset={SMALL}&schedulers=even%2Clf&cluster={TOO_LARGE}"
    )
    # the preset names the cluster the view's other picks apply to
    req = view_state.read_query(f"?preset={TOO_LARGE}&cluster_figure=slots")
    assert req.cluster == ClusterPicks(TOO_LARGE, figure="slots") and req.notes == ()


def test_the_cluster_views_picks_go_into_the_link_and_come_back():
    picks = ClusterPicks(FITS, ("ras-default",), "slots", "TopologyName00002")
    rate = preset(SMALL).workload.rate
    view = view_state.view_of(SMALL, None, rate, SELECTED, None, ("even", "lf"), None, picks)
    assert not view_state.needs_id(view)  # plain query keys
    query = view_state.query_of(view, None)
    assert query.endswith(
        f"&cluster={FITS}&cluster_schedulers=ras-default&cluster_figure=slots"
        "&cluster_topology=TopologyName00002"
    )
    assert view_state.read_query(query).cluster == picks
    found, message = requested_view(query, _shown())
    assert message == "" and found == view
    out = restore_outputs(found, _shown(), message)
    assert _changed(out) == set(CLUSTER_KEYS)
    assert (out["cluster_schedulers"], out["cluster_figure"]) == (["ras-default"], "slots")
    assert out["cluster_topology"] == "TopologyName00002"
    assert {"label": "TopologyName00002", "value": "TopologyName00002"} in out[
        "cluster_topology_options"
    ]  # the picker's options come with it: a dropdown clears a value it does not offer
    # the page already showing them: nothing changes
    assert _changed(restore_outputs(found, _shown(cluster=picks), "")) == set()


def test_unknown_cluster_values_are_dropped_with_a_note():
    query = (
        f"?cluster={FITS}&cluster_schedulers=ras-default,nope&cluster_figure=heat"
        "&cluster_topology=ghost"
    )
    req = view_state.read_query(query)
    assert req.cluster == ClusterPicks(FITS, ("ras-default",), "cpu", None)
    assert len(req.notes) == 3
    _, message = requested_view(query, _shown())
    assert message == (
        "The link's Cluster view: scheduler 'nope' is unknown: dropped; figure 'heat' is "
        f"unknown: CPU is shown; {FITS} has no topology 'ghost': none highlighted."
    )
    assert view_state.read_query("?cluster=storm-large-cluster-99").cluster is None
    assert view_state.read_query("?cluster_figure=slots").notes == (
        "cluster_figure named without a cluster: ignored",
    )


@pytest.mark.parametrize("picks", [None, ClusterPicks(FITS, figure="memory")])
def test_old_view_ids_stay_valid_and_a_stored_view_keeps_its_picks(tmp_path, picks):
    params = {"top-storm": {"alpha": 0.5}}
    pair = ("top-storm", "even")
    view = view_state.View(SMALL, None, 7000.0, pair[::-1], params, pair, "i7-4c", picks)
    if picks is None:  # the id main's code gave this view before the Cluster view's picks
        assert view_state.view_id(view) == "d8da9bfda4b9432b"
        assert "cluster" not in view.to_json()
    views = view_state.ViewStore(tmp_path)
    assert views.load(views.save(view)) == view


def test_a_stored_view_of_03_restores_the_set_and_is_the_first_render(tmp_path, monkeypatch):
    from dashboard import layout

    views = view_state.ViewStore(tmp_path)
    monkeypatch.setattr(view_state, "store", lambda: views)
    view = view_state.view_of(FITS, None, 1000.0, SELECTED, None, ("even", "lf"), "r000s000")
    assert view.scenario is None and view_state.needs_id(view)  # the what-if needs the id
    search, note = view_state.link_of(view, views)
    assert note is None and search.startswith(f"?preset={FITS}&schedulers=even%2Clf&view=")
    found, message = requested_view(search, _shown())
    assert found == view and message == ""
    out = restore_outputs(found, _shown(), message)
    assert out["whatif"] == "r000s000" and out["loaded"] == FITS
    assert set_page.set_words(out["base"]).startswith("A set of 50 topologies")
    first = layout.first_view(search.lstrip("?"))
    assert first.loaded == FITS and len(first.scenario.topology_set) == 50


def test_a_stored_views_picks_are_checked_again_when_read():
    doc = view_state.view_of(SMALL, None, 7000.0, SELECTED, None, ("even", "lf")).to_json()
    doc["cluster"] = {"cluster": FITS, "schedulers": "ras-default", "figure": ["x"], "topology": {}}
    assert view_state.checked(doc).cluster == ClusterPicks(FITS)  # each bad value: the default
    doc["cluster"] = {"cluster": [FITS]}
    assert view_state.checked(doc).cluster is None

"""The shareable URL, uploads (size-limited, validated, never executed) and downloads."""

from __future__ import annotations

import base64
import json
import stat

import pytest
from dash import no_update

from core.model import MAX_SCENARIO_BYTES, ScenarioError
from core.presets import preset
from core.registry import SCHEDULERS
from dashboard import registry, view_state
from dashboard.compare import picker_options
from dashboard.scenario_bar import OnScreen, requested_view, restore_outputs
from dashboard.transfer import build_query, decode_upload, parse_query, scenario_download
from dashboard.view_state import (
    LinkRequest,
    View,
    ViewError,
    ViewStore,
    checked,
    follow_selection,
    link_of,
    loaded_kind,
    loaded_value,
    needs_id,
    preset_options,
    query_of,
    read_query,
    view_id,
    view_of,
)


def _upload(raw: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def test_the_url_round_trips_preset_and_schedulers():
    query = build_query("wordcount", ["even", "top-storm"])
    assert parse_query(query, ["wordcount"], ["even", "lf", "top-storm"]) == (
        "wordcount",
        ["even", "top-storm"],
    )


def test_the_url_ignores_what_it_does_not_know():
    assert parse_query("?preset=nope&schedulers=zzz", ["wordcount"], ["even"]) == (None, [])
    assert parse_query("", ["wordcount"], ["even"]) == (None, None)


def test_an_uploaded_scenario_is_validated():
    text = json.dumps(preset("lf-linear").to_json_dict()).encode()
    assert decode_upload(_upload(text), "lf.json").name == "lf-linear"


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"{not json", "lf.json: not valid JSON"),
        (b"[1, 2]", "a scenario must be a JSON object"),
        (b'{"topology": {"components": []}, "cluster": {"nodes": []}}', "topology.components"),
        (b"x" * (MAX_SCENARIO_BYTES + 10), "the limit is 2,000,000"),
    ],
)
def test_a_bad_upload_is_refused_with_the_reason(raw, says):
    with pytest.raises(ScenarioError) as err:
        decode_upload(_upload(raw), "lf.json")
    assert says in str(err.value)


def test_an_upload_that_is_not_base64_is_refused():
    with pytest.raises(ScenarioError, match="not base64"):
        decode_upload("data:application/json;base64,@@@@", "x.json")


def test_the_download_carries_the_offered_rate():
    payload = scenario_download(preset("wordcount").to_json_dict(), 4321.0)
    assert payload["filename"] == "wordcount.json"
    assert json.loads(payload["content"])["workload"]["rate"] == 4321.0


# -- the whole view in a link (dashboard/view_state.py) ---------------------------------

SELECTED = ["even", "top-storm", "lf"]


def _edited_wordcount() -> dict:
    data = preset("wordcount").to_json_dict()
    data["topology"]["components"][1]["parallelism"] = 4
    return data


def _view(**changes) -> View:
    fields = {
        "loaded": "wordcount",
        "scenario": preset("wordcount").to_json_dict(),
        "rate": 7000,
        "schedulers": SELECTED,
        "params": None,
        "compare": ("even", "top-storm"),
        "whatif": None,
    }
    fields.update(changes)
    return view_of(**fields)


def test_a_plain_view_needs_no_id_and_its_query_carries_the_rate():
    view = _view()
    assert view.scenario is None and view.params == {}  # the preset's own, the defaults
    assert not needs_id(view)
    assert query_of(view, None) == "?preset=wordcount&schedulers=even%2Ctop-storm%2Clf&rate=7000"
    same_rate = _view(rate=preset("wordcount").workload.rate)
    assert "rate=" not in query_of(same_rate, None)


@pytest.mark.parametrize(
    "change",
    [
        {"scenario": _edited_wordcount()},
        {"params": {"top-storm": {"alpha": 0.5}}},
        {"compare": ("lf", "even")},
        {"whatif": "i7-4c"},
    ],
)
def test_edits_parameters_pair_and_whatif_need_an_id_that_names_them(change):
    view = _view(**change)
    assert needs_id(view)
    assert view_id(view) == view_id(_view(**change))  # the same view, the same id
    assert view_id(view) != view_id(_view())
    assert len(view_id(view)) == 16 and int(view_id(view), 16) >= 0


def test_a_default_parameter_is_not_part_of_the_view():
    default = SCHEDULERS["top-storm"].params[0]
    view = _view(params={"top-storm": {default.name: default.default}})
    assert view.params == {} and not needs_id(view)


def test_a_stored_view_comes_back_whole_from_a_private_directory(tmp_path):
    views = ViewStore(tmp_path / "views")
    view = _view(
        scenario=_edited_wordcount(),
        params={"top-storm": {"alpha": 0.5}},
        compare=("lf", "even"),
        whatif="i7-4c",
    )
    saved = views.save(view)
    assert views.load(saved) == view
    assert stat.S_IMODE((tmp_path / "views").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "views" / f"{saved}.json").stat().st_mode) == 0o600
    search, note = link_of(view, views)
    assert note is None and search.endswith(f"&rate=7000&view={saved}")


def test_a_missing_changed_or_malformed_view_is_refused(tmp_path):
    views = ViewStore(tmp_path)
    with pytest.raises(ViewError, match="no view '0123456789abcdef'"):
        views.load("0123456789abcdef")
    with pytest.raises(ViewError, match="no view"):
        views.load("../../etc/passwd")
    saved = views.save(_view(whatif="i7-4c"))
    path = tmp_path / f"{saved}.json"
    path.write_text(path.read_text().replace("7000", "7001"))
    with pytest.raises(ViewError, match="changed on disk"):
        views.load(saved)


def test_a_view_read_back_is_checked_field_by_field():
    doc = _view(params={"top-storm": {"alpha": 0.5}}).to_json()
    doc["schedulers"] = ["even", "nope", "top-storm"]
    doc["params"]["top-storm"]["alpha"] = 7  # out of range: the default stands
    view = checked(doc)
    assert view.schedulers == ("even", "top-storm") and view.params == {}
    doc["scenario"] = {"name": "x"}
    with pytest.raises(ViewError, match="its scenario is invalid"):
        checked(doc)
    doc = _view().to_json() | {"loaded": "imported: X"}  # an import carries its scenario
    with pytest.raises(ViewError, match="names no loaded scenario"):
        checked(doc)


def test_the_store_keeps_at_most_its_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(view_state, "MAX_VIEWS", 3)
    views = ViewStore(tmp_path)
    for rate in range(1, 7):
        views.save(_view(rate=rate, whatif="i7-4c"))
    assert len(list(tmp_path.glob("*.json"))) == 3
    monkeypatch.setattr(view_state, "MAX_VIEW_BYTES", 100)
    search, note = link_of(_view(whatif="i7-4c"), views)
    assert "view=" not in search and "a link holds at most 100" in note


def test_an_import_is_named_in_the_box_and_the_link():
    imported = loaded_value("imported", "WordCount3")
    assert imported == "imported: WordCount3" and loaded_kind(imported) == "imported"
    assert preset_options(imported)[-1] == {
        "label": imported,
        "value": imported,
        "title": "the scenario loaded now",
    }
    view = _view(loaded=imported, scenario=_edited_wordcount())
    assert query_of(view, "0123456789abcdef").startswith("?imported=WordCount3&schedulers=")


def test_the_compare_pair_follows_the_selection():
    assert follow_selection(["even", "lf", "toss"], ["lf", "rstorm"]) == ("lf", "even")
    assert follow_selection(["toss"], ["lf", "rstorm"]) == ("toss", None)
    assert follow_selection([], ["lf", "even"]) == (None, None)
    assert picker_options(["lf", "nope"]) == [{"label": "lf", "value": "lf"}]


def test_a_query_names_preset_schedulers_rate_and_view():
    req = read_query("?preset=wordcount&schedulers=lf,nope&rate=7000&view=0123456789abcdef")
    assert req == LinkRequest("0123456789abcdef", "wordcount", ["lf"], 7000.0, None)
    assert read_query("?rate=-100&view=x").bad_rate == "-100"
    assert read_query("?rate=-100&view=x").view is None


def _shown(**changes) -> OnScreen:
    fields = {
        "loaded": "wordcount",
        "schedulers": SELECTED,
        "rate": preset("wordcount").workload.rate,
        "scenario": preset("wordcount").to_json_dict(),
        "params": registry.default_params(SELECTED),
        "compare": ("even", "top-storm"),
        "whatif": None,
    }
    fields.update(changes)
    return OnScreen(**fields)


def test_restoring_a_stored_view_sets_every_part_of_the_page(tmp_path, monkeypatch):
    views = ViewStore(tmp_path)
    monkeypatch.setattr(view_state, "store", lambda: views)
    view = _view(
        scenario=_edited_wordcount(),
        params={"top-storm": {"alpha": 0.5}},
        compare=("lf", "even"),
        whatif="i7-4c",
    )
    search, _ = link_of(view, views)
    found, message = requested_view(search, _shown())
    assert found == view and message == ""
    out = restore_outputs(found, _shown(), message)
    assert out["rate"] == 7000
    assert [r["parallelism"] for r in out["components"]][1] == 4
    assert out["params"]["top-storm"]["alpha"] == 0.5
    assert (out["compare_a"], out["compare_b"], out["whatif"]) == ("lf", "even", "i7-4c")
    assert out["preset"] == out["loaded"] == "wordcount"  # the box names what the grids hold
    assert out["schedulers"] is no_update and out["message"] is no_update
    # the page already showing it: nothing changes
    same = _shown(
        rate=7000.0,
        scenario=_edited_wordcount(),
        params=registry.params_for(SELECTED, view.params),
        compare=("lf", "even"),
        whatif="i7-4c",
    )
    assert all(v is no_update for v in restore_outputs(view, same, "").values())


def test_a_lost_view_falls_back_to_the_query_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(view_state, "store", lambda: ViewStore(tmp_path))
    found, message = requested_view(
        "?preset=wordcount&schedulers=even&rate=7000&view=0123456789abcdef", _shown()
    )
    assert "not restored: no view '0123456789abcdef'" in message
    assert found.rate == 7000 and found.schedulers == ("even",)
    assert requested_view("", _shown()) == (None, "")

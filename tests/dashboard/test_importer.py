"""The Import button's server side: uploaded files -> scenario, refusals named."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from dash import no_update

from core.model import ScenarioError
from dashboard.importer import MAX_FILES, control, import_topology, import_uploads

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"
STORM = (
    "storm_docs_topology.json",
    "storm_ui_topology_visualization.json",
    "storm_docs_supervisor_summary.json",
)


def _data_url(raw: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def _upload(*names: str) -> tuple[list[str], list[str]]:
    return [_data_url((FIXTURES / n).read_bytes()) for n in names], list(names)


def test_three_storm_responses_become_the_editors_scenario():
    contents, names = _upload(*STORM)
    (base, nodes, components, streams, workers, ackers, rate, box, options, loaded, message) = (
        import_topology(contents, names)
    )
    assert base["name"] == "WordCount3"
    assert [(r["id"], r["parallelism"]) for r in components] == [
        ("spout", 5),
        ("count", 12),
        ("split", 8),
    ]
    assert [(r["from"], r["to"], r["grouping"]) for r in streams] == [
        ("spout", "split", "shuffle"),
        ("split", "count", "fields"),
    ]
    assert [(r["id"], r["slots"]) for r in nodes] == [("10.11.1.7", 4)]
    assert (workers, ackers, rate) == (3, 3, pytest.approx(48.133))
    assert "Imported WordCount3 from the Storm UI REST API" in str(message)
    # the preset box says what is loaded, and offers it beside the presets
    assert box == loaded == "imported: WordCount3"
    assert options[-1]["value"] == box and "wordcount" in [o["value"] for o in options]


def test_a_refused_import_keeps_everything_and_names_the_field():
    contents, names = _upload("storm_docs_topology.json")  # no visualization
    out = import_topology(contents, names)
    assert all(o is no_update for o in out[:-1])
    text = str(out[-1])
    assert "Import refused" in text and "/api/v1/topology/<id>/visualization" in text


def test_broken_and_oversized_uploads_are_refused_before_parsing():
    with pytest.raises(ScenarioError, match="broken.json: not valid JSON"):
        import_uploads([_data_url(b'{"spouts": ')], ["broken.json"])
    with pytest.raises(ScenarioError, match="x.json: could not be read"):
        import_uploads(["data:application/json;base64,@@@"], ["x.json"])
    with pytest.raises(ScenarioError, match="big.json: about 3,000,000 bytes"):
        import_uploads(["data:application/json;base64," + "A" * 4_000_000], ["big.json"])
    with pytest.raises(ScenarioError, match="import: 5 files, at most 4"):
        import_uploads(*_upload(*STORM, *STORM[:2]))


def test_the_import_button_takes_several_files_of_any_name():
    button = control()
    # No type filter: the browser would drop a .txt without a word; the server names it.
    assert button.multiple is True and getattr(button, "accept", None) is None
    assert MAX_FILES >= 3  # Storm's three responses in one drop

"""The panel says whenever a scheduler changed the parallelism the user asked for."""

from __future__ import annotations

import json

from core.presets import preset_json
from dashboard.compute import canonical
from dashboard.panel_content import panel_content, parallelism_note


def _note_text(content) -> str:
    return " ".join(str(div.children) for div in content.note)


def test_the_note_names_each_changed_component_and_the_totals():
    note = parallelism_note({"spout": 4, "count": 8}, {"spout": 4, "count": 3, "__acker": 1})
    assert note == (
        "This scheduler changed the parallelism: count x8 -> x3 (asked 12 executors, placed 7)"
    )
    assert parallelism_note({"spout": 4}, {"spout": 4, "__acker": 2}) is None


def test_hetero_panel_says_it_changed_the_parallelism_and_even_does_not():
    data = preset_json("rollingcount")
    text = json.dumps(data, sort_keys=True)
    rate = data["workload"]["rate"]
    hetero = panel_content(text, "hetero", canonical({}), rate)
    even = panel_content(text, "even", canonical({}), rate)
    assert "changed the parallelism" in _note_text(hetero)
    assert "changed the parallelism" not in _note_text(even)

"""A panel whose placement cannot run, or that changed the parallelism, says so in its header."""

from __future__ import annotations

from core.presets import preset_json
from dashboard.compute import canonical, evaluate
from dashboard.panel_content import panel_content, stats


def _texts(component) -> list[str]:
    """Every string in a component tree, depth first."""
    children = getattr(component, "children", component)
    if isinstance(children, str):
        return [children]
    if isinstance(children, list | tuple):
        return [t for c in children for t in _texts(c)]
    return [] if children is None or children is component else _texts(children)


def test_hetero_on_wordcount_is_marked_in_its_header():
    data = preset_json("wordcount")
    text, rate = canonical(data), float(data["workload"]["rate"])
    asked = {c["id"]: c["parallelism"] for c in data["topology"]["components"]}
    header = stats(evaluate(text, "hetero", "{}", rate), 5, asked=asked)
    words = _texts(header)
    assert "cannot run" in words and "parallelism changed" in words  # the badges
    assert "hetero raised the executors from 25 to 210" in words
    assert "cannot run: node i7-8c needs 5.2 GB for 42 executors but has 3.7 GB" in words
    # the same header from the panel's own content
    content = panel_content(text, "hetero", "{}", rate)
    assert "cannot run" in _texts(content.stats)


def test_a_runnable_panel_has_no_such_line():
    data = preset_json("wordcount")
    text, rate = canonical(data), float(data["workload"]["rate"])
    words = _texts(stats(evaluate(text, "even", "{}", rate), 5, asked={}))
    assert not any(w.startswith("cannot run") for w in words)
    assert "parallelism changed" not in words

"""Compare two schedulers in a browser: the moved executors outlined in both maps."""

from __future__ import annotations

import pytest

from browser.duo_helpers import wait_until
from core.presets import preset_json
from dashboard import ids
from dashboard.compare import changes_of
from dashboard.compute import canonical, evaluate

pytestmark = pytest.mark.browser


def _outlined(duo, scheduler: str) -> int:
    """Executors drawn with the moved outline (3 px border) in a scheduler's map."""
    return duo.driver.execute_script(
        "var cy = document.getElementById(arguments[0])._cyreg.cy;"
        "return cy.nodes('.executor').filter(function (n) {"
        " return n.style('border-width') === '3px'; }).length;",
        f'{{"sched":"{scheduler}","type":"placement-map"}}',
    )


def _moved(preset: str) -> int:
    """Executors top-storm places elsewhere than even on ``preset`` (at its own rate)."""
    data = preset_json(preset)
    rate = data["workload"]["rate"]
    text = canonical(data)
    changes = changes_of(
        evaluate(text, "even", "{}", rate), evaluate(text, "top-storm", "{}", rate)
    )
    return len(changes.moved)


def test_picking_a_pair_outlines_the_moved_executors_in_both_maps(page):
    moved = _moved("wordcount")
    assert moved > 0
    page.select_dcc_dropdown(f"#{ids.COMPARE_A}", value="even")
    page.select_dcc_dropdown(f"#{ids.COMPARE_B}", value="top-storm")
    result = f"#{ids.COMPARE_RESULT}"
    wait_until(
        lambda: (
            f"top-storm places {moved} executors elsewhere than even"
            in page.find_element(result).text
        )
    )
    assert "R* tuples/s" in page.find_element(result).text
    wait_until(lambda: _outlined(page, "even") == moved)
    wait_until(lambda: _outlined(page, "top-storm") == moved)
    wait_until(lambda: _outlined(page, "rstorm") == 0)
    assert page.get_logs() == []


def test_the_outlines_follow_a_preset_switch_with_the_pair_kept(page):
    page.select_dcc_dropdown(f"#{ids.COMPARE_A}", value="even")
    page.select_dcc_dropdown(f"#{ids.COMPARE_B}", value="top-storm")
    moved = _moved("lf-diamond")
    assert moved > 0
    page.select_dcc_dropdown(f"#{ids.PRESET}", value="lf-diamond")
    # the panels' answer carries the maps' stylesheets and the compare store
    wait_until(lambda: _outlined(page, "even") == moved, timeout=30)
    wait_until(lambda: _outlined(page, "top-storm") == moved, timeout=30)
    assert _outlined(page, "lf") == 0
    assert f"places {moved} executors elsewhere" in page.find_element(f"#{ids.COMPARE_RESULT}").text
    assert page.get_logs() == []

"""Presentation mode in a browser: one pair, the narrative line, arrow keys step presets."""

from __future__ import annotations

import pytest

from browser.duo_helpers import wait_until
from core.presets import PRESETS
from dashboard import ids

pytestmark = pytest.mark.browser


def _panels(duo) -> list[str]:
    return [p.get_attribute("data-scheduler") for p in duo.find_elements(".panel")]


def test_presentation_shows_one_pair_and_arrows_step_through_presets(page):
    names = list(PRESETS)
    page.driver.get(f"{page.server_url}/?preset={names[0]}&present=even,lf")
    wait_until(lambda: _panels(page) == ["even", "lf"])
    wait_until(lambda: " carries " in page.find_element(".ranking-line").text)
    assert not page.find_element(f"#{ids.PRESET}").is_displayed()  # the scenario bar is hidden
    wait_until(lambda: "lf places" in page.find_element(f"#{ids.COMPARE_RESULT}").text)
    page.find_element("body").send_keys("\ue014")  # ArrowRight
    wait_until(lambda: f"preset={names[1]}" in page.driver.current_url)
    wait_until(lambda: page.find_element(f"#{ids.SCENARIO_TITLE}").text == names[1])
    assert _panels(page) == ["even", "lf"] and "present=even%2Clf" in page.driver.current_url
    page.find_element("body").send_keys("\ue012")  # ArrowLeft, back to the first
    wait_until(lambda: page.find_element(f"#{ids.SCENARIO_TITLE}").text == names[0])
    page.find_element("body").send_keys("\ue00c")  # Escape leaves the presentation
    wait_until(lambda: "present=" not in page.driver.current_url)
    wait_until(lambda: page.find_element(f"#{ids.PRESET}").is_displayed())

"""Presentation mode in a browser: one pair, the narrative line, arrow keys step presets."""

from __future__ import annotations

import pytest

from browser.duo_helpers import wait_until
from browser.test_legibility import SIZES, load, small_graph_labels
from core.presets import PRESETS
from dashboard import ids
from dashboard.cyto_styles import MAP_LEAST_ZOOM

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


# Visible elements of the page that run past the viewport, or whose text ends in "...":
# [kind, tag.class, text].
OVERFLOWS_JS = """
var out = [], W = window.innerWidth, H = window.innerHeight;
document.querySelectorAll('.page *').forEach(function (el) {
  var r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0 || el.closest('.cyto')) { return; }
  var what = el.tagName + '.' + el.className, text = (el.textContent || '').trim().slice(0, 30);
  if (r.bottom > H + 1 || r.right > W + 1 || r.left < -1) { out.push(['outside', what, text]); }
  if (getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) {
    out.push(['ellipsis', what, text]);
  }
});
var d = document.documentElement;
if (d.scrollHeight > H + 1 || d.scrollWidth > W + 1) {
  out.push(['scrolls', d.scrollWidth, d.scrollHeight]);
}
return out;
"""


@pytest.fixture
def served(dash_duo):
    from dashboard.app import app

    dash_duo.start_server(app)
    return dash_duo


# [preset, pair, the least zoom of the maps]. hetero's "shown apart" note, four lines of
# violations and its parallelism note below the map take ~150 px from its map at 1440x900;
# lf-star-x10's 400 executors: both maps may then be drawn below the labels' least zoom,
# down to MAP_LEAST_ZOOM, to show them whole, their labels made larger so that on screen
# they stay 12 px or more (``small_graph_labels``; assets/graph_view.js).
PAIRS = [
    ("wordcount", "even", "lf", 1.0),
    ("wordcount", "even", "hetero", MAP_LEAST_ZOOM),
    ("lf-star-x10", "even", "lf", MAP_LEAST_ZOOM),
]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize(("name", "a", "b", "least_zoom"), PAIRS)
def test_presentation_fits_the_screen_whole_and_legible(
    served, width, height, name, a, b, least_zoom
):
    """No scrolling, nothing past the screen's edges, no value cut to "executor s...", and
    the pair's maps drawn with every label at 12 px or more."""
    load(served, f"?preset={name}&present={a},{b}", width, height)
    wait_until(lambda: f"{b} places" in served.find_element(f"#{ids.COMPARE_RESULT}").text)
    assert served.driver.execute_script(OVERFLOWS_JS) == []
    assert small_graph_labels(served) == []
    maps = served.driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('.cyto-map'), function (m) {"
        " var r = m.getBoundingClientRect(); return [r.height, m._cyreg.cy.zoom()]; })"
    )
    assert len(maps) == 2 and all(h >= 300 and zoom >= least_zoom - 1e-6 for h, zoom in maps), maps

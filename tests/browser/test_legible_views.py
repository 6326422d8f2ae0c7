"""Legible past the first screen (issue 24, item 2), measured in the page.

Present mode shows each placement map whole, every node box and its label inside the
pane (a server grid of three columns was cut at the right on both screens while rows
below stayed empty), node labels drawn above the traffic edges (not crossed by them);
the charts a simulation fills have no text under 12 px (their notes and legends were
11 px).
"""

from __future__ import annotations

import time

import pytest

from browser.duo_helpers import click, wait_until
from browser.test_legibility import MIN_PX, SIZES, TEXT_SIZES_JS, load, small_graph_labels
from browser.test_present import OVERFLOWS_JS
from dashboard import ids

pytestmark = pytest.mark.browser

# Per map: [map id, zoom, node boxes (with their labels) not wholly inside the pane, the
# highest z-index of a drawn traffic edge, the lowest of a node box].
MAPS_WHOLE_JS = """
return Array.prototype.map.call(document.querySelectorAll('.cyto-map'), function (el) {
  var cy = el._cyreg.cy, w = cy.width(), h = cy.height(), cut = [];
  cy.nodes('.machine').forEach(function (n) {
    var b = n.renderedBoundingBox({includeLabels: true});
    if (b.x1 < -1 || b.y1 < -1 || b.x2 > w + 1 || b.y2 > h + 1) { cut.push(n.data('node')); }
  });
  var z = function (e) { return parseFloat(e.style('z-index')); };
  var edges = cy.edges('.traffic').filter(function (e) { return e.style('display') !== 'none'; });
  return [el.id, cy.zoom(), cut, Math.max.apply(null, edges.map(z)),
          Math.min.apply(null, cy.nodes('.machine').map(z))];
});
"""


@pytest.fixture
def served(dash_duo):
    from dashboard.app import app

    dash_duo.start_server(app)
    return dash_duo


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_presentation_shows_each_map_whole_with_its_labels_above_the_edges(served, width, height):
    """aniello: 8 nodes of 4 slots, which the server lays out three boxes wide."""
    load(served, "?preset=aniello&present=even,slotscope", width, height)
    wait_until(lambda: "slotscope places" in served.find_element(f"#{ids.COMPARE_RESULT}").text)
    maps = served.driver.execute_script(MAPS_WHOLE_JS)
    if any(cut for _, _, cut, _, _ in maps):  # a map is re-laid 0.3 s after its drawing at most
        time.sleep(1)
        maps = served.driver.execute_script(MAPS_WHOLE_JS)
    assert len(maps) == 2
    for map_id, _, cut, edge_z, box_z in maps:
        assert cut == [], (map_id, cut)  # every node box and its label inside the pane
        assert edge_z < box_z  # the labels (drawn with their boxes) above the edges
    assert small_graph_labels(served) == []
    assert served.driver.execute_script(OVERFLOWS_JS) == []


def test_the_charts_have_no_text_under_12_px(warm_spark, served):
    load(served, "?preset=wordcount&schedulers=even,top-storm", 1440, 900)
    click(served, f"#{ids.SIMULATE}")
    wait_until(
        lambda: served.driver.execute_script(
            "return Array.prototype.every.call(arguments[0], function (id) {"
            " var g = document.querySelector('#' + id + ' .js-plotly-plot');"
            " return g && g.data && g.data.length > 0; })",
            list(ids.CHARTS),
        ),
        timeout=240,  # a bound, not a speed check (bench/ measures Simulate)
        message="the charts did not fill",
    )
    texts = served.driver.execute_script(TEXT_SIZES_JS, f"#{ids.CHARTS_AREA}")
    # legends and axes name the schedulers; the throughput chart's note is measured too
    assert sum(t[2] == "top-storm" for t in texts) >= 4
    assert any("equal bars" in t[2] for t in texts)
    assert [t for t in texts if t[1] < MIN_PX] == []

"""Legible on a 1440x900 laptop and at 1920x1080 on a projector (issue 24, item 2).

Measured in the page: computed font sizes of the text in panels and cards; for the
cytoscape canvases, each drawn label's font-size times the graph's zoom (the size it is
drawn at on screen); stream labels clear of the component boxes; a large topology
drawn at a readable size; a placement on the first screen; grid headers whole.
"""

from __future__ import annotations

import pytest

from browser.duo_helpers import wait_until

pytestmark = pytest.mark.browser

SIZES = [(1440, 900), (1920, 1080)]
MIN_PX = 12.0  # the smallest text the page may show, in screen px

# Every labelled, displayed element of every graph: [graph id, element id, font-size x zoom].
GRAPH_LABELS_JS = """
var out = [];
document.querySelectorAll('.cyto').forEach(function (el) {
  var cy = el._cyreg && el._cyreg.cy;
  if (!cy || el.getBoundingClientRect().width === 0) { return; }
  var zoom = cy.zoom();
  cy.elements().forEach(function (e) {
    if (!e.style('label') || e.style('display') === 'none') { return; }
    out.push([el.id, e.id(), parseFloat(e.style('font-size')) * zoom]);
  });
});
return out;
"""

# Visible elements with text of their own inside ``root`` selector: [tag.class, px, text].
TEXT_SIZES_JS = """
var out = [];
document.querySelectorAll(arguments[0]).forEach(function (root) {
  root.querySelectorAll('*').forEach(function (el) {
    var own = Array.prototype.some.call(el.childNodes, function (n) {
      return n.nodeType === 3 && n.textContent.trim();
    });
    var r = el.getBoundingClientRect();
    if (!own || r.width === 0 || r.height === 0) { return; }
    out.push([el.tagName + '.' + el.className, parseFloat(getComputedStyle(el).fontSize),
              el.textContent.trim().slice(0, 40)]);
  });
});
return out;
"""

# Stream labels of each DAG that overlap a component box: [graph, edge, node].
COVERED_EDGE_LABELS_JS = """
var out = [], count = 0;
document.querySelectorAll('.cyto-dag').forEach(function (el) {
  var cy = el._cyreg && el._cyreg.cy;
  if (!cy) { return; }
  cy.edges().forEach(function (e) {
    if (!e.style('label')) { return; }
    count += 1;
    var t = e.boundingBox({includeNodes: false, includeEdges: false, includeLabels: true});
    cy.nodes().forEach(function (n) {
      var b = n.boundingBox({includeLabels: false});
      if (t.x1 < b.x2 && t.x2 > b.x1 && t.y1 < b.y2 && t.y2 > b.y1) {
        out.push([el.id, e.id(), n.id()]);
      }
    });
  });
});
return [count, out];
"""

# AG Grid header texts cut short: [grid id, header text].
CUT_HEADERS_JS = """
var out = [], count = 0;
document.querySelectorAll('.editor-grid .ag-header-cell-text').forEach(function (t) {
  var cell = t.closest('.ag-header-cell');
  if (!cell || !t.textContent.trim() || cell.getBoundingClientRect().width === 0) { return; }
  count += 1;
  var r = t.getBoundingClientRect(), c = cell.getBoundingClientRect();
  if (t.scrollWidth > t.clientWidth + 1 || r.right > c.right + 1 || r.bottom > c.bottom + 1
      || r.top < c.top - 1) {
    out.push([t.closest('.editor-grid').id, t.textContent]);
  }
});
return [count, out];
"""


def set_viewport(driver, width: int, height: int) -> None:
    """Make the page's viewport (not the window) ``width`` x ``height`` px."""
    driver.set_window_size(width, height)
    inner_w, inner_h = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner_w, 2 * height - inner_h)


def load(duo, query: str, width: int, height: int) -> None:
    """Open the page at ``query`` in a ``width`` x ``height`` viewport, every map drawn."""
    set_viewport(duo.driver, width, height)
    duo.driver.get(f"{duo.server_url}/{query}")
    wait_until(
        lambda: duo.driver.execute_script(
            "var m = document.querySelectorAll('.cyto-map'); return m.length > 0 && "
            "Array.prototype.every.call(m, function (el) { return el._cyreg && "
            "el._cyreg.cy.nodes('.slot, .machine').length > 0; })"
        ),
        timeout=60,
    )


@pytest.fixture
def served(dash_duo):
    """The dashboard served by dash_duo, no page loaded yet (each test loads its view)."""
    from dashboard.app import app

    dash_duo.start_server(app)
    return dash_duo


def small_graph_labels(duo) -> list:
    labels = duo.driver.execute_script(GRAPH_LABELS_JS)
    assert len(labels) > 10, labels  # the graphs have labels to measure
    return [label for label in labels if label[2] < MIN_PX - 0.01]


def small_text(duo, selector: str) -> list:
    texts = duo.driver.execute_script(TEXT_SIZES_JS, selector)
    assert texts, selector
    return [t for t in texts if t[1] < MIN_PX]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_page_is_legible_and_opens_on_a_placement(served, width, height):
    page = served
    load(page, "", width, height)
    assert small_graph_labels(page) == []
    assert small_text(page, ".panel, .card, .ranking, .compare") == []
    # a whole placement on the first screen, unscrolled: the first panel's header (its
    # scheduler and figures) and its whole map, below the scenario bar
    head, top, bottom, bar = page.driver.execute_script(
        "var p = document.querySelector('.panel'), m = p.querySelector('.cyto-map');"
        "return [p.getBoundingClientRect().top, m.getBoundingClientRect().top,"
        " m.getBoundingClientRect().bottom, document.querySelector('.bar')"
        ".getBoundingClientRect().bottom]"
    )
    assert page.driver.execute_script("return window.scrollY") == 0
    assert bar <= head < top and bottom - top >= 400 and bottom <= height, (bar, head, bottom)
    count, covered = page.driver.execute_script(COVERED_EDGE_LABELS_JS)
    assert count >= 2 and covered == []  # "shuffle", "fields": whole, not "huffl"
    # the editors' grids draw their headers after the panels: read them once drawn
    count, cut = wait_until(lambda: (h := page.driver.execute_script(CUT_HEADERS_JS))[0] and h)
    assert count >= 10 and cut == []  # "Sockets", not "Soc..."


def test_a_large_topology_is_drawn_at_a_readable_size_from_its_start(served):
    page = served
    load(page, "?preset=lf-star-x10&schedulers=even,lf", 1440, 900)
    assert small_graph_labels(page) == []
    dag = (
        "var cy = document.querySelector('.cyto-dag')._cyreg.cy, e = cy.extent(),"
        " b = cy.getElementById('c:c1').renderedBoundingBox({includeLabels: false});"
    )
    # c1, the first of the eight components in a line, is on screen at full size
    width, inside = page.driver.execute_script(
        dag + "var p = cy.getElementById('c:c1').position();"
        "return [b.w, p.x > e.x1 && p.x < e.x2 && p.y > e.y1 && p.y < e.y2]"
    )
    assert width >= 40 and inside

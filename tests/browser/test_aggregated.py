"""A large placement in a browser (lf-diamond-x10, 400 executors and 80 ackers on 80 slots):
flat maps of slot pies, drill-down, what-if and compare outlines on them."""

from __future__ import annotations

import json

import pytest

from browser.duo_helpers import _cy, wait_until
from core.presets import preset_json
from dashboard import ids
from dashboard.compare import changes_of
from dashboard.compute import canonical, evaluate

pytestmark = pytest.mark.browser

X10 = "lf-diamond-x10"


@pytest.fixture
def x10(dash_duo):
    from dashboard.app import app

    dash_duo.start_server(app)
    dash_duo.driver.get(f"{dash_duo.server_url}/?preset={X10}")
    wait_until(lambda: _count(dash_duo, "even", "node.slot.agg") == 80, timeout=30)
    return dash_duo


def _count(duo, scheduler: str, selector: str) -> int:
    return duo.driver.execute_script(
        f"return {_cy(scheduler, 'placement-map')}.nodes(arguments[0]).length", selector
    )


def _tap(duo, scheduler: str, element_id: str) -> None:
    duo.driver.execute_script(
        f"{_cy(scheduler, 'placement-map')}.getElementById(arguments[0]).emit('tap')", element_id
    )


def _outlined_slots(duo, scheduler: str) -> int:
    return duo.driver.execute_script(
        f"return {_cy(scheduler, 'placement-map')}.nodes('.slot').filter(function (n) {{"
        " return n.style('border-width') === '3px'; }).length"
    )


def test_an_aggregated_map_is_flat_with_each_slot_inside_its_node_box(x10):
    assert _count(x10, "even", "node.machine") == 8
    assert _count(x10, "even", ":parent") == 0 and _count(x10, "even", ".executor") == 0
    outside = x10.driver.execute_script(
        f"var cy = {_cy('even', 'placement-map')}; var bad = 0;"
        "cy.nodes('.slot').forEach(function (s) {"
        "  var box = cy.getElementById('node:' + s.id().split(':')[1]).boundingBox();"
        "  var b = s.boundingBox({includeLabels: false});"
        "  if (b.x1 < box.x1 || b.x2 > box.x2 || b.y1 < box.y1 || b.y2 > box.y2) bad++; });"
        "return bad;"
    )
    assert outside == 0


def test_aggregated_slots_drill_down_and_a_node_box_fails_its_node(x10):
    _tap(x10, "even", "slot:n1:0")
    drill = json.dumps(ids.drill_id("even"), separators=(",", ":"), sort_keys=True)
    text = "return document.getElementById(arguments[0]).textContent"
    wait_until(lambda: "n1 slot 0 holds 6 executors" in x10.driver.execute_script(text, drill))
    _tap(x10, "even", "node:n1")
    wait_until(lambda: "n1 fails" in x10.find_element(f"#{ids.WHATIF_RESULT}").text)
    assert x10.get_logs() == []


def test_comparing_a_pair_outlines_the_aggregated_slots_that_hold_moved_executors(x10):
    data = preset_json(X10)
    rate, text = float(data["workload"]["rate"]), canonical(data)
    even, lf = (evaluate(text, s, "{}", rate) for s in ("even", "lf"))
    changes = changes_of(even, lf)
    slots = {
        s: {e.schedule.placement()[x] for x in changes.moved}
        for s, e in (("even", even), ("lf", lf))
    }
    x10.select_dcc_dropdown(f"#{ids.COMPARE_A}", value="even")
    x10.select_dcc_dropdown(f"#{ids.COMPARE_B}", value="lf")
    wait_until(lambda: _outlined_slots(x10, "even") == len(slots["even"]) > 0)
    wait_until(lambda: _outlined_slots(x10, "lf") == len(slots["lf"]) > 0)
    assert _outlined_slots(x10, "toss") == 0

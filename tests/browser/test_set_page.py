"""A topology set in a browser: an uploaded set fills the page (no server error), the bar
says what it is and picks the topology the editors show, the panels place the set."""

from __future__ import annotations

import json

import pytest

from browser.duo_helpers import executor_count, wait_until
from dashboard import ids, set_page

pytestmark = pytest.mark.browser


def _topology(name: str, bolts: int, workers: int) -> dict:
    return {
        "name": name,
        "workers": workers,
        "components": [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": bolts}],
        "streams": [{"from": "s", "to": "b"}],
    }


SET = {
    "name": "two-apps",
    "topologies": [_topology("low", 1, 2), _topology("high", 3, 3)],
    "cluster": {"nodes": [{"id": f"n{i}", "cores": 2, "ghz": 3, "slots": 2} for i in range(3)]},
}


def _component_rows(page) -> list | None:
    return page.driver.execute_script(
        "var api = null, out = [];"
        "try { api = dash_ag_grid.getApi(arguments[0]); } catch (e) { return null; }"
        "if (!api) { return null; }"
        "api.forEachNode(function (n) { out.push([n.data.id, n.data.parallelism]); });"
        "return out;",
        ids.COMPONENTS_GRID,
    )


def test_an_uploaded_set_is_described_picked_and_placed(page, tmp_path):
    path = tmp_path / "two-apps.json"
    path.write_text(json.dumps(SET))
    page.find_element(f"#{ids.UPLOAD} input[type=file]").send_keys(str(path))
    words = wait_until(lambda: page.find_element(f"#{set_page.SET_WORDS}").text or None, timeout=20)
    assert words == "A set of 2 topologies (6 executors) on 3 nodes."
    assert "Loaded two-apps.json" in page.find_element(f"#{ids.BAR_MESSAGE}").text
    wait_until(lambda: _component_rows(page) == [["s", 1], ["b", 1]])  # low, the first
    # the panels place the set: 2 + 4 executors, no acker
    wait_until(lambda: executor_count(page, "even") == 6, timeout=30)
    wait_until(
        lambda: sorted(_faint(page, "even")) == ["high/b#0", "high/b#1", "high/b#2", "high/s#0"]
    )
    page.select_dcc_dropdown(f"#{set_page.SET_PICKER}", value="high (4 executors)")
    wait_until(lambda: _component_rows(page) == [["s", 1], ["b", 3]])
    # the other topology stands back in every panel
    wait_until(lambda: sorted(_faint(page, "even")) == ["low/b#0", "low/s#0"])
    assert page.get_logs() in ([], None)  # no server error reached the browser


def _faint(page, scheduler: str) -> list[str]:
    """The executor dots of a panel's map drawn faint (the topologies not picked)."""
    key = json.dumps({"sched": scheduler, "type": ids.MAP_TYPE}, separators=(",", ":"))
    return page.driver.execute_script(
        f"return document.getElementById({key!r})._cyreg.cy.nodes('.executor')"
        ".filter(function (n) { return Number(n.style('opacity')) < 0.5; })"
        ".map(function (n) { return n.data('label'); });"
    )

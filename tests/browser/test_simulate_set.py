"""Simulate on a topology set in a browser: one sweep job, progress to the end, and the
per-scheduler and per-topology tables, sortable."""

from __future__ import annotations

import pytest

from browser.duo_helpers import click, wait_until
from core.model import validate_scenario
from dashboard import ids
from dashboard.registry import default_selection
from dashboard.sweep_view import SCHEDULERS_TABLE, TOPOLOGIES_TABLE

pytestmark = pytest.mark.browser


def _topology(name: str, bolts: int) -> dict:
    return {
        "name": name,
        "workers": 2,
        "components": [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": bolts}],
        "streams": [{"from": "s", "to": "b"}],
    }


SET = {
    "name": "pair",
    "topologies": [_topology("left", 2), _topology("right", 3)],
    "cluster": {
        "nodes": [
            {"id": f"n{i}", "cores": 2, "ghz": 3, "slots": 2, "rack": f"r{i % 2}"} for i in range(3)
        ]
    },
}


def _column(duo, grid_id: str, field: str) -> list:
    """A grid's column in the order shown (sorted and filtered), every page."""
    return duo.driver.execute_script(
        "var api = null, field = arguments[1], out = [];"
        "try { api = dash_ag_grid.getApi(arguments[0]); } catch (e) { return null; }"
        "if (!api) { return null; }"
        "api.forEachNodeAfterFilterAndSort(function (n) { out.push(n.data[field]); });"
        "return out.length ? out : null;",
        grid_id,
        field,
    )


def test_simulate_on_a_set_fills_sortable_tables(warm_spark, page):
    # The scenario editors do not load a set yet (dashboard/rows.py reads one `topology`):
    # the set goes straight into the page's scenario store, which Simulate reads.
    data = validate_scenario(SET).to_json_dict()
    page.driver.execute_script(
        "window.dash_clientside.set_props(arguments[0], {data: arguments[1]});",
        ids.SCENARIO_STORE,
        data,
    )
    click(page, f"#{ids.SIMULATE}")
    shown = wait_until(lambda: _column(page, SCHEDULERS_TABLE, "scheduler"), timeout=180)
    schedulers = default_selection()
    assert [s.split("@")[0] for s in shown] == schedulers  # one row each, in the page's order
    tasks = len(schedulers)  # one task per scheduler on the whole set
    label = page.find_element(f"#{ids.PROGRESS_LABEL}").text
    assert label.startswith(f"{tasks} / {tasks} tasks")
    assert page.find_element(f"#{ids.PROGRESS_BAR}").get_attribute("style") == "width: 100%;"
    headers = page.find_element(f"#{SCHEDULERS_TABLE}").text
    for name in ("sched", "inWkr%", "xRack%", "cpuCV", "min R*"):
        assert name in headers

    topologies = _column(page, TOPOLOGIES_TABLE, "topology")
    assert sorted(topologies) == sorted(["left", "right"] * tasks)

    # a click on a header sorts by it (ascending first), a second click descending; the
    # page's order (the registry's) is not alphabetical
    assert shown != sorted(shown)
    header = f"#{SCHEDULERS_TABLE} .ag-header-cell[col-id='scheduler']"
    click(page, header)
    wait_until(lambda: _column(page, SCHEDULERS_TABLE, "scheduler") == sorted(shown))
    click(page, header)
    wait_until(lambda: _column(page, SCHEDULERS_TABLE, "scheduler") == sorted(shown, reverse=True))
    assert page.find_element(f"#{ids.CANCEL}").get_attribute("disabled") is not None

"""The Cluster view in a browser on storm-large-cluster-03 (80 nodes in 2 racks, 50
topologies): the grids draw, picking a figure recolours them, clicking a node lists its
slots and executors; a screenshot at 1440x900 goes to /tmp/shots."""

from __future__ import annotations

from pathlib import Path

import pytest
from selenium.webdriver.common.actions.action_builder import ActionBuilder

from browser.duo_helpers import click, wait_until
from dashboard import cluster_view as cv
from dashboard import ids

pytestmark = pytest.mark.browser

PRESET = "storm-large-cluster-03"
GRID = ".cluster-grid .js-plotly-plot"
SHOTS = Path("/tmp/shots")


def colours(duo) -> list:
    """The coloured trace's values of the first grid drawn."""
    return duo.driver.execute_script(
        "var g = document.querySelector(arguments[0]);"
        "return g && g.data && g.data.length > 1 ? g.data[1].z : null;",
        GRID,
    )


def click_cell(duo, row: int, col: int) -> None:
    """Click the first grid's cell (row, col) where plotly draws it (viewport pixels)."""
    graph = duo.find_element(GRID)
    duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", graph)
    x, y = duo.driver.execute_script(
        "var g = arguments[0], L = g._fullLayout, r = g.getBoundingClientRect();"
        "return [r.left + L._size.l + L.xaxis.l2p(arguments[2]),"
        " r.top + L._size.t + L.yaxis.l2p(arguments[1])];",
        graph,
        row,
        col,
    )
    actions = ActionBuilder(duo.driver)
    actions.pointer_action.move_to_location(int(x), int(y)).click()
    actions.perform()


def test_the_grid_draws_recolours_and_drills_down(page):
    page.driver.set_window_size(1440, 900)
    click(page, f"#{ids.CLUSTER_PRESET} input[value='{PRESET}']")
    wait_until(lambda: len(page.find_elements(GRID)) == len(cv.DEFAULT_SCHEDULERS), timeout=60)
    cpu = wait_until(lambda: colours(page))
    assert sum(v is not None for row in cpu for v in row) == 80  # one cell per node
    assert "of 50 topologies scheduled" in page.find_element(".cluster-column").text

    click(page, f"#{ids.CLUSTER_FIGURE} input[value='executors']")
    executors = wait_until(lambda: colours(page) if colours(page) != cpu else None)
    assert max(v for row in executors for v in row if v is not None) >= 1  # counts, not %

    click_cell(page, 0, 0)
    detail = wait_until(lambda: page.find_element(f"#{ids.CLUSTER_DETAIL}").text)
    assert detail.startswith("r000s000 (rack-000) under ras-default")
    assert page.find_elements(f"#{ids.CLUSTER_DETAIL} tbody tr")  # its slots and their executors

    page.driver.execute_script(f"document.getElementById('{ids.CLUSTER_SECTION}').scrollIntoView()")
    SHOTS.mkdir(exist_ok=True)
    assert page.driver.save_screenshot(str(SHOTS / "cluster_view_03.png"))
    assert page.get_logs() == []

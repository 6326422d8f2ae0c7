"""Helpers of the browser tests: waiting, reading cytoscape graphs, editing AG Grid cells."""

from __future__ import annotations

import json
import time

from selenium.common.exceptions import StaleElementReferenceException


def wait_until(condition, timeout: float = 15.0, interval: float = 0.1, message: str = ""):
    """Poll ``condition`` until it is truthy; return its value or fail the test."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = condition()
        except Exception as err:  # the page may be re-rendering
            last = err
        if last and not isinstance(last, Exception):
            return last
        time.sleep(interval)
    raise AssertionError(message or f"condition not met within {timeout} s (last: {last!r})")


def _cy(scheduler: str, kind: str) -> str:
    key = json.dumps({"sched": scheduler, "type": kind}, separators=(",", ":"))
    return f"document.getElementById({key!r})._cyreg.cy"


def executor_count(duo, scheduler: str) -> int:
    """Executor dots in a scheduler's placement map (read from cytoscape itself)."""
    return duo.driver.execute_script(
        f"return {_cy(scheduler, 'placement-map')}.nodes('.executor').length"
    )


def executor_slots(duo, scheduler: str) -> dict[str, str]:
    """Executor -> slot element id, from a scheduler's placement map."""
    return duo.driver.execute_script(
        f"var o = {{}}; {_cy(scheduler, 'placement-map')}.nodes('.executor')"
        ".forEach(function (n) { o[n.data('label')] = n.data('slot'); }); return o;"
    )


def dag_labels(duo, scheduler: str) -> list[str]:
    return duo.driver.execute_script(
        f"return {_cy(scheduler, 'dag')}.nodes().map(function (n) {{ return n.data('label'); }})"
    )


def edit_cell(duo, grid_id: str, row: int, column: str, value) -> None:
    """Type a value into an AG Grid cell (single-click editing) and commit it with Enter."""
    from selenium.webdriver.common.keys import Keys

    selector = (
        f'#{grid_id} .ag-center-cols-container .ag-row[row-index="{row}"] [col-id="{column}"]'
    )
    if column == "id":
        selector = (
            f'#{grid_id} .ag-pinned-left-cols-container .ag-row[row-index="{row}"] [col-id="id"]'
        )
    cell = duo.wait_for_element(selector)
    cell.click()
    editor = wait_until(lambda: cell.find_element("css selector", "input"))
    editor.send_keys(Keys.CONTROL, "a")
    editor.send_keys(str(value))
    editor.send_keys(Keys.ENTER)


def cell_element(duo, grid_id: str, row: int, column: str):
    return duo.find_element(
        f'#{grid_id} .ag-center-cols-container .ag-row[row-index="{row}"] [col-id="{column}"]'
    )


def click(duo, selector_or_element) -> None:
    """Click an element after scrolling it to the middle of the window (clear of the sticky
    top bar). An element given by its selector is found again if the page redrew it
    meanwhile (a display-only block is drawn anew when its script arrives)."""
    if not isinstance(selector_or_element, str):
        duo.driver.execute_script(
            "arguments[0].scrollIntoView({block: 'center'})", selector_or_element
        )
        selector_or_element.click()
        return
    for attempt in range(5):
        try:
            element = duo.find_element(selector_or_element)
            duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
            element.click()
            return
        except StaleElementReferenceException:
            if attempt == 4:
                raise
            time.sleep(0.2)


def edge_display(duo, scheduler: str, kind: str) -> list[str]:
    """The CSS display of a placement map's edges of one kind (inter-node, inter-worker)."""
    return duo.driver.execute_script(
        f"return {_cy(scheduler, 'placement-map')}.edges('.{kind}')"
        ".map(function (e) { return e.style('display'); })"
    )


def dag_positions(duo, scheduler: str) -> dict[str, tuple[float, float]]:
    return duo.driver.execute_script(
        f"var o = {{}}; {_cy(scheduler, 'dag')}.nodes().forEach(function (n) {{"
        " o[n.id()] = [Math.round(n.position('x')), Math.round(n.position('y'))]; }); return o;"
    )

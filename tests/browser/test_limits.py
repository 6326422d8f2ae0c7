"""The server's limits in a browser: refused uploads and edits say why, the scenario stays."""

from __future__ import annotations

import pytest

from browser.duo_helpers import edit_cell, executor_count, executor_slots, wait_until
from dashboard import ids

pytestmark = pytest.mark.browser


def _upload(page, path) -> None:
    field = page.find_element(f"#{ids.UPLOAD} input[type=file]")
    page.driver.execute_script("arguments[0].value = '';", field)
    field.send_keys(str(path))


def _message(page) -> str:
    return page.find_element(f"#{ids.BAR_MESSAGE}").text


def test_refused_uploads_say_why_and_keep_the_scenario(page, tmp_path):
    title = page.find_element(f"#{ids.SCENARIO_TITLE}").text
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 9_000_000)  # over the 8 MB the browser sends: refused there
    _upload(page, big)
    wait_until(lambda: "Upload refused" in _message(page))
    assert "big.json: 9,000,000 bytes, the limit is 2,000,000" in _message(page)

    notes = tmp_path / "notes.txt"
    notes.write_text("a scenario, I promise\n")
    _upload(page, notes)
    wait_until(lambda: "notes.txt: not valid JSON" in _message(page))

    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    _upload(page, deep)
    wait_until(lambda: "deep.json: JSON nested too deeply" in _message(page))
    assert page.find_element(f"#{ids.SCENARIO_TITLE}").text == title
    assert executor_count(page, "even") > 0


def test_parallelism_40000_is_refused_at_its_cell_and_the_placements_stay(page):
    before = executor_slots(page, "even")
    edit_cell(page, ids.COMPONENTS_GRID, 1, "parallelism", 40_000)
    message = wait_until(lambda: page.find_element(f"#{ids.EDIT_MESSAGE}").text, timeout=10)
    assert "the dashboard places at most 5,000" in message
    assert executor_slots(page, "even") == before
    # slotscope's search ran in the background pool, and its panel is filled in
    wait_until(lambda: executor_count(page, "slotscope") > 0, timeout=30)

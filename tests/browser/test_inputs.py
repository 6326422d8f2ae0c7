"""Every input answered: a bad value is named at its field and the message goes once it is
fixed; buttons that cannot act yet are disabled and say why."""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.keys import Keys

from browser.duo_helpers import cell_element, click, edit_cell, wait_until
from dashboard import ids

pytestmark = pytest.mark.browser

WAIT_S = 60  # the machine may be busy: a callback can take tens of seconds
ALPHA = json.dumps(ids.param_id("top-storm", "alpha"), separators=(",", ":"), sort_keys=True)
ALPHA_MESSAGE = json.dumps(
    ids.param_message_id("top-storm", "alpha"), separators=(",", ":"), sort_keys=True
)


def _type(element, text: str) -> None:
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(Keys.DELETE)
    element.send_keys(text, Keys.ENTER)


def _text(duo, element_id: str) -> str:
    return duo.driver.execute_script(
        "return document.getElementById(arguments[0]).textContent;", element_id
    )


def _by_id(duo, element_id: str):
    return duo.driver.execute_script("return document.getElementById(arguments[0]);", element_id)


def _outlined(duo, element) -> bool:
    """Whether the input (or Dash's box around it) carries the ``invalid`` class."""
    return duo.driver.execute_script("return arguments[0].closest('.invalid') !== null;", element)


def test_a_bad_rate_is_named_at_the_field_until_fixed_and_exports_wait(page):
    rate = page.find_element(f"#{ids.RATE}")
    _type(rate, "-100")
    wait_until(
        lambda: "-100 is not a positive number" in _text(page, ids.RATE_MESSAGE), timeout=WAIT_S
    )
    assert _outlined(page, rate)
    # Simulate cannot run: disabled, with the reason as its tooltip
    simulate = page.find_element(f"#{ids.SIMULATE}")
    wait_until(lambda: simulate.get_attribute("disabled") is not None, timeout=WAIT_S)
    assert "Cannot simulate" in simulate.get_attribute("title")
    _type(rate, "0")
    wait_until(
        lambda: "0 is not a positive number" in _text(page, ids.RATE_MESSAGE), timeout=WAIT_S
    )
    _type(rate, "abc")  # a number field takes no letters: it is left empty
    wait_until(
        lambda: "a number of tuples/s is needed" in _text(page, ids.RATE_MESSAGE), timeout=WAIT_S
    )
    _type(rate, "5000")
    wait_until(lambda: _text(page, ids.RATE_MESSAGE) == "", timeout=WAIT_S)
    assert not _outlined(page, rate)
    wait_until(lambda: simulate.get_attribute("disabled") is None, timeout=WAIT_S)

    # before a simulation there is nothing to export: the buttons say so
    for button in (ids.DOWNLOAD_CSV_BUTTON, ids.DOWNLOAD_JSON_BUTTON):
        element = page.find_element(f"#{button}")
        wait_until(
            lambda element=element: element.get_attribute("disabled") is not None, timeout=WAIT_S
        )
        assert element.get_attribute("title") == "Nothing to export yet: press Simulate first"


def test_bad_parameters_counts_and_files_are_named_at_their_fields(page, tmp_path):
    click(page, ".params summary")
    alpha = _by_id(page, ALPHA)
    _type(alpha, "2")
    wait_until(lambda: "2.0 is outside [0, 1]" in _text(page, ALPHA_MESSAGE), timeout=WAIT_S)
    _type(alpha, "0.5")
    wait_until(lambda: _text(page, ALPHA_MESSAGE) == "", timeout=WAIT_S)

    workers = page.find_element(f"#{ids.WORKERS}")
    _type(workers, "0")
    wait_until(
        lambda: "greater than or equal to 1" in _text(page, ids.TOPOLOGY_MESSAGE), timeout=WAIT_S
    )
    assert _outlined(page, workers)
    _type(workers, "3")
    wait_until(lambda: _text(page, ids.TOPOLOGY_MESSAGE) == "", timeout=WAIT_S)

    replicas = page.find_element(f"#{ids.REPLICAS}")
    _type(replicas, "0")
    wait_until(
        lambda: "replicas: 0 is not between 1 and" in _text(page, ids.SETTINGS_MESSAGE),
        timeout=WAIT_S,
    )
    _type(replicas, "2")
    wait_until(lambda: _text(page, ids.SETTINGS_MESSAGE) == "", timeout=WAIT_S)

    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes\n")
    page.find_element(f"#{ids.UPLOAD} input[type=file]").send_keys(str(notes))
    wait_until(lambda: "Upload refused" in _text(page, ids.BAR_MESSAGE), timeout=WAIT_S)
    assert "notes.txt: not valid JSON" in _text(page, ids.BAR_MESSAGE)

    big = tmp_path / "big.json"
    big.write_bytes(b" " * 9_000_000)  # over the browser's 8 MB guard: never sent
    page.find_element(f"#{ids.UPLOAD} input[type=file]").send_keys(str(big))
    wait_until(lambda: "big.json: 9,000,000 bytes" in _text(page, ids.BAR_MESSAGE), timeout=WAIT_S)


def test_cores_above_the_threads_are_named_at_the_threads_cell_which_the_grid_edits(page):
    # i5-m460 (row 4): 2 cores, 4 hardware threads. 8 cores: refused, named at Threads.
    edit_cell(page, ids.NODES_GRID, 4, "cores", 8)
    wait_until(lambda: "column 'threads'" in _text(page, ids.EDIT_MESSAGE), timeout=WAIT_S)
    assert "4 hardware threads, fewer than its 8 cores" in _text(page, ids.EDIT_MESSAGE)
    threads = cell_element(page, ids.NODES_GRID, 4, "threads")
    wait_until(lambda: "cell-invalid" in threads.get_attribute("class"), timeout=WAIT_S)
    model = cell_element(page, ids.NODES_GRID, 4, "cpu_model")
    assert model.text == "i5-M460"  # shown, read-only
    edit_cell(page, ids.NODES_GRID, 4, "threads", 16)
    wait_until(lambda: _text(page, ids.EDIT_MESSAGE) == "", timeout=WAIT_S)
    # TOP-Storm Eq. 1: 16 logical CPUs x 2.53 GHz x 5054 (Table 4's BogoMIPS) = 204,585.92
    speed = cell_element(page, ids.NODES_GRID, 4, "processing_speed")
    wait_until(lambda: speed.text == "204585.9", timeout=WAIT_S)
    threads = cell_element(page, ids.NODES_GRID, 4, "threads")
    assert "cell-invalid" not in threads.get_attribute("class")

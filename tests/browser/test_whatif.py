"""What if a node or slot fails, in a browser: click a machine or pick a slot, read the table."""

from __future__ import annotations

import pytest

from browser.duo_helpers import click, wait_until
from core.presets import preset_json
from dashboard import ids
from dashboard.compute import canonical
from dashboard.whatif import whatif_row

pytestmark = pytest.mark.browser


def _tap(duo, scheduler: str, element_id: str) -> None:
    duo.driver.execute_script(
        "var cy = document.getElementById(arguments[0])._cyreg.cy;"
        "cy.getElementById(arguments[1]).emit('tap');",
        f'{{"sched":"{scheduler}","type":"placement-map"}}',
        element_id,
    )


def test_clicking_a_machine_fails_it_and_undo_restores_the_cluster(page):
    data = preset_json("wordcount")
    node = data["cluster"]["nodes"][0]["id"]
    expected = whatif_row(canonical(data), node, "even", "{}", float(data["workload"]["rate"]))
    result = f"#{ids.WHATIF_RESULT}"
    assert "Healthy cluster" in page.find_element(result).text
    _tap(page, "even", f"node:{node}")
    wait_until(lambda: f"{node} fails" in page.find_element(result).text)
    rows = page.find_elements(f"{result} tbody tr")
    even = next(r for r in rows if r.text.startswith("even "))
    assert "kept in place" in even.text
    assert f" {expected['moved']} " in f" {even.text} "
    assert any("all re-placed" in r.text for r in rows)
    click(page, f"#{ids.FAIL_UNDO}")
    wait_until(lambda: "Healthy cluster" in page.find_element(result).text)
    assert page.get_logs() == []


def test_a_slot_picked_from_the_list_fails_alone(page):
    data = preset_json("wordcount")
    node = data["cluster"]["nodes"][0]["id"]
    value = f"slot:{node}:0"
    expected = whatif_row(canonical(data), value, "even", "{}", float(data["workload"]["rate"]))
    result = f"#{ids.WHATIF_RESULT}"
    page.select_dcc_dropdown(f"#{ids.FAIL_NODE}", value=f"{node} slot 0")
    wait_until(lambda: f"{node} slot 0 fails" in page.find_element(result).text)
    even = next(r for r in page.find_elements(f"{result} tbody tr") if r.text.startswith("even "))
    assert "kept in place" in even.text
    assert f" {expected['moved']} " in f" {even.text} "
    assert expected["moved"] > 0  # the executors of the failed worker moved
    assert page.get_logs() == []

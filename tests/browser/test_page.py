"""The page in a browser: panels, edits, invalid edits, uploads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browser.duo_helpers import (
    cell_element,
    click,
    dag_labels,
    dag_positions,
    edge_display,
    edit_cell,
    executor_count,
    executor_slots,
    wait_until,
)
from core.presets import preset
from dashboard import ids
from dashboard.registry import default_selection

pytestmark = pytest.mark.browser


def _panel_schedulers(duo) -> list[str]:
    return [p.get_attribute("data-scheduler") for p in duo.find_elements(".panel")]


def test_every_scheduler_gets_a_dag_and_a_placement_headless(page):
    assert "HeadlessChrome" in page.driver.execute_script("return navigator.userAgent")
    selected = default_selection()
    assert _panel_schedulers(page) == selected
    executors = 28  # WordCount: 5 + 8 + 12 + 3 ackers
    for s in selected:
        wait_until(lambda s=s: len(dag_labels(page, s)) == 4)  # spout, split, count, __acker
        if s != "hetero":  # hetero chooses its own parallelism
            wait_until(lambda s=s: executor_count(page, s) == executors, message=s)
    assert "preset=wordcount" in page.driver.current_url
    assert page.get_logs() == []
    labels = page.driver.execute_script(  # each pane's label, drawn by CSS from data-label
        "return [...document.querySelectorAll('.panel .pane')].map("
        "p => getComputedStyle(p, '::before').content)"
    )
    assert labels[:2] == ['"Topology"', '"Placement: node › slot › executor"']
    assert len(labels) == 2 * len(selected)

    assert set(edge_display(page, "top-storm", "inter-node")) == {"element"}
    assert set(edge_display(page, "top-storm", "inter-worker")) == {"none"}
    click(page, f"#{ids.ALL_EDGES} input")
    wait_until(lambda: set(edge_display(page, "top-storm", "inter-worker")) == {"element"})

    pill = next(
        p
        for p in page.find_elements(f"#{ids.SCHEDULERS} label")
        if p.get_attribute("textContent").strip() == "even"
    )
    click(page, pill)  # deselect even: its panel goes, and the URL follows
    wait_until(lambda: _panel_schedulers(page) == selected[1:])
    wait_until(lambda: "schedulers=" + "%2C".join(selected[1:]) in page.driver.current_url)


def test_editing_cores_and_parallelism_changes_the_placements(page):
    before = executor_slots(page, "top-storm")
    # The weakest node (i5-m460, row 4) becomes the strongest: TOP-Storm moves there.
    edit_cell(page, ids.NODES_GRID, 4, "ghz", 40.1)
    wait_until(lambda: executor_slots(page, "top-storm") != before)
    assert any("i5-m460" in slot for slot in executor_slots(page, "top-storm").values())
    # TOP-Storm Eq. 1 with Table 4's noOfFlop: 4 logical CPUs x 40.1 GHz x 5054 = 810,661.6
    wait_until(lambda: cell_element(page, ids.NODES_GRID, 4, "processing_speed").text == "810661.6")

    edit_cell(page, ids.COMPONENTS_GRID, 1, "parallelism", 16)  # split: 8 -> 16
    wait_until(lambda: executor_count(page, "even") == 36)
    assert "split\n×16" in dag_labels(page, "even")

    toolbar = page.find_elements(".editor-topology .grid-toolbar")[0]  # the components'
    click(
        page, next(b for b in toolbar.find_elements("css selector", "button") if b.text == "+ Add")
    )
    wait_until(lambda: executor_count(page, "even") == 37)  # a new spout c1 x1
    positions = wait_until(
        lambda: len(dag_positions(page, "even")) == 5 and dag_positions(page, "even")
    )
    assert positions["c:c1"] != [0, 0]  # the DAG was laid out again (new nodes sit at 0, 0)
    assert len(set(map(tuple, positions.values()))) == 5


def test_an_invalid_edit_is_marked_and_the_last_placement_stays(page):
    before = executor_slots(page, "even")
    edit_cell(page, ids.COMPONENTS_GRID, 1, "parallelism", 0)
    message = wait_until(lambda: page.find_element(f"#{ids.EDIT_MESSAGE}").text)
    assert "topology.components[1].parallelism" in message
    assert "greater than or equal to 1" in message
    wait_until(
        lambda: (
            "cell-invalid"
            in cell_element(page, ids.COMPONENTS_GRID, 1, "parallelism").get_attribute("class")
        )
    )
    assert executor_slots(page, "even") == before

    edit_cell(page, ids.COMPONENTS_GRID, 1, "parallelism", 4)  # a valid value clears the mark
    wait_until(lambda: executor_count(page, "even") == 24)
    wait_until(lambda: page.find_element(f"#{ids.EDIT_MESSAGE}").text == "")
    assert "cell-invalid" not in cell_element(
        page, ids.COMPONENTS_GRID, 1, "parallelism"
    ).get_attribute("class")


def test_a_bad_upload_is_refused_with_a_message(page, tmp_path):
    upload = page.find_element(f"#{ids.UPLOAD} input[type=file]")
    broken = tmp_path / "broken.json"
    broken.write_text('{"topology": ')
    upload.send_keys(str(broken))
    message = wait_until(lambda: page.find_element(f"#{ids.BAR_MESSAGE}").text)
    assert "Upload refused" in message and "broken.json: not valid JSON" in message

    cyclic = preset("lf-linear").to_json_dict()
    cyclic["topology"]["streams"].append({"from": "c8", "to": "c1"})
    bad = tmp_path / "cyclic.json"
    bad.write_text(json.dumps(cyclic))
    upload.send_keys(str(bad))
    wait_until(lambda: "the topology has a cycle" in page.find_element(f"#{ids.BAR_MESSAGE}").text)
    assert page.find_element(f"#{ids.SCENARIO_TITLE}").text == "wordcount"
    assert executor_count(page, "even") == 28

    page.select_dcc_dropdown(f"#{ids.PRESET}", value="lf-linear")  # a preset replaces it all
    wait_until(lambda: page.find_element(f"#{ids.SCENARIO_TITLE}").text == "lf-linear")
    wait_until(lambda: executor_count(page, "even") == 16)  # 8 components, 8 ackers
    assert page.find_element(f"#{ids.BAR_MESSAGE}").text == ""
    assert "preset=lf-linear" in page.driver.current_url


def test_a_panel_exports_png_and_svg_and_the_scenario_downloads(page):
    download = Path(page.download_path)
    menu = '.panel[data-scheduler="top-storm"] .export-menu'
    for label, graph, fmt, name in (
        ("Placement PNG", "map", "png", "slotscope-top-storm-map.png"),
        ("Topology SVG", "dag", "svg", "slotscope-top-storm-dag.svg"),
    ):
        click(page, f"{menu} summary")
        item = f'{menu} .menu button[data-graph="{graph}"][data-fmt="{fmt}"]'
        assert page.find_element(item).get_attribute("textContent") == label
        click(page, item)
        wait_until(
            lambda name=name: (download / name).exists() and (download / name).stat().st_size
        )
    assert (download / "slotscope-top-storm-map.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (download / "slotscope-top-storm-dag.svg").read_bytes()[:400]

    click(page, f"#{ids.DOWNLOAD_SCENARIO_BUTTON}")
    saved = wait_until(
        lambda: (download / "wordcount.json").exists() and download / "wordcount.json"
    )
    assert json.loads(saved.read_text())["workload"]["rate"] == preset("wordcount").workload.rate

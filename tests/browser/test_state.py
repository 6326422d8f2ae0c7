"""A link restores the whole view: rate, an edit, a parameter, imports, the compare pair."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.keys import Keys

from browser.duo_helpers import _cy, cell_element, click, edit_cell, executor_count, wait_until
from core.presets import preset
from dashboard import ids, panels, set_page
from dashboard.compute import SEARCHES
from dashboard.registry import default_selection

pytestmark = pytest.mark.browser

WAIT_S = 60  # the machine may be busy: a restore or refresh can take tens of seconds
FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"
STORM = (
    "storm_docs_topology.json",
    "storm_ui_topology_visualization.json",
    "storm_docs_supervisor_summary.json",
)
ALPHA = json.dumps(ids.param_id("top-storm", "alpha"), separators=(",", ":"), sort_keys=True)


def _value(duo, element_id: str) -> str:
    return duo.driver.execute_script(
        "return document.getElementById(arguments[0]).value;", element_id
    )


def _type(duo, element, text: str) -> None:
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(Keys.DELETE)
    element.send_keys(text, Keys.ENTER)


def _dropdown_text(duo, element_id: str) -> str:
    return duo.find_element(f"#{element_id}").text


def _first_render(duo, link: str) -> dict[str, dict[str, Any]]:
    """The props of every component with an id in the page's first layout response, as the
    browser asks for it when it opens ``link`` (the page's URL as its Referer); a dict id
    (a panel's own) is keyed by its JSON with sorted keys."""
    ask = urllib.request.Request(f"{duo.server_url}/_dash-layout", headers={"Referer": link})
    with urllib.request.urlopen(ask, timeout=WAIT_S) as answer:
        tree = json.load(answer)
    found: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            props = node.get("props")
            if isinstance(props, dict):
                if isinstance(props.get("id"), str):
                    found[props["id"]] = props
                elif isinstance(props.get("id"), dict):
                    found[json.dumps(props["id"], sort_keys=True)] = props
                for value in props.values():
                    walk(value)

    walk(tree)
    return found


def _settled(duo) -> str | None:
    """The page's URL once it names the view on screen (None while it does not yet)."""
    url = duo.driver.current_url
    shown = duo.find_element(f"#{ids.VIEW_SYNC}").get_attribute("textContent")
    return url if shown and url.endswith(shown) and "view=" in url else None


def test_a_link_restores_rate_edit_parameter_compare_pair_and_whatif(page):
    _type(page, page.find_element(f"#{ids.RATE}"), "7000")
    wait_until(lambda: "rate=7000" in page.driver.current_url, timeout=WAIT_S)
    edit_cell(page, ids.COMPONENTS_GRID, 1, "parallelism", 4)  # split: 8 -> 4 executors
    wait_until(lambda: executor_count(page, "even") == 24, timeout=WAIT_S)
    edited = wait_until(lambda: _settled(page), timeout=WAIT_S)
    click(page, ".params summary")
    alpha = page.driver.execute_script("return document.getElementById(arguments[0]);", ALPHA)
    _type(page, alpha, "0.5")
    with_param = wait_until(
        lambda: _settled(page) not in (None, edited) and _settled(page), timeout=WAIT_S
    )
    page.select_dcc_dropdown(f"#{ids.COMPARE_B}", value="toss")
    with_pair = wait_until(
        lambda: _settled(page) not in (None, with_param) and _settled(page), timeout=WAIT_S
    )
    page.select_dcc_dropdown(f"#{ids.FAIL_NODE}", value="i7-4c")  # the what-if
    link = wait_until(
        lambda: _settled(page) not in (None, with_pair) and _settled(page), timeout=WAIT_S
    )
    assert "preset=wordcount" in link and "rate=7000" in link and "view=" in link
    # the link's first render is the restored view itself, not wordcount swapped afterwards
    first = _first_render(page, link)
    assert first[ids.RATE]["value"] == 7000
    assert [c["parallelism"] for c in first[ids.COMPONENTS_GRID]["rowData"]] == [5, 4, 12]
    assert first[ids.SCENARIO_FACTS]["children"].startswith("24 executors")

    page.driver.switch_to.new_window("tab")  # a fresh page, as a colleague opening the link
    page.driver.get(link)
    wait_until(lambda: _value(page, ids.RATE) == "7000", timeout=WAIT_S)
    wait_until(
        lambda: cell_element(page, ids.COMPONENTS_GRID, 1, "parallelism").text == "4",
        timeout=WAIT_S,
    )
    wait_until(lambda: executor_count(page, "even") == 24, timeout=WAIT_S)
    click(page, ".params summary")
    wait_until(
        lambda: (
            page.driver.execute_script("return document.getElementById(arguments[0]).value;", ALPHA)
            == "0.5"
        )
    )
    assert "toss" in _dropdown_text(page, ids.COMPARE_B)
    wait_until(lambda: _dropdown_text(page, ids.FAIL_NODE) == "i7-4c", timeout=WAIT_S)
    wait_until(lambda: "i7-4c" in page.find_element(f"#{ids.WHATIF_RESULT}").text, timeout=WAIT_S)
    assert page.driver.current_url == link  # restoring it names the same view


def test_an_unknown_view_id_says_so_and_keeps_the_preset(page):
    page.driver.get(f"{page.server_url}/?preset=wordcount&view=0123456789abcdef")
    wait_until(
        lambda: "not restored" in page.find_element(f"#{ids.BAR_MESSAGE}").text, timeout=WAIT_S
    )
    assert float(_value(page, ids.RATE)) == preset("wordcount").workload.rate


def test_an_import_is_named_and_linked_and_the_pickers_follow_the_selection(page):
    pill = next(
        p
        for p in page.find_elements(f"#{ids.SCHEDULERS} label")
        if p.get_attribute("textContent").strip() == "even"
    )
    assert "even" in _dropdown_text(page, ids.COMPARE_A)
    click(page, pill)  # deselect even: it leaves the compare pickers
    wait_until(lambda: "even" not in _dropdown_text(page, ids.COMPARE_A), timeout=WAIT_S)
    assert _dropdown_text(page, ids.COMPARE_A) and _dropdown_text(page, ids.COMPARE_B)

    field = page.find_element(f"#{ids.IMPORT_UPLOAD} input[type=file]")
    field.send_keys("\n".join(str(FIXTURES / n) for n in STORM))
    wait_until(lambda: page.find_element(f"#{ids.SCENARIO_TITLE}").text == "WordCount3", WAIT_S)
    wait_until(lambda: _dropdown_text(page, ids.PRESET) == "imported: WordCount3", timeout=WAIT_S)
    link = wait_until(lambda: _settled(page), timeout=WAIT_S)
    assert "imported=WordCount3" in link and "preset=" not in link
    first = _first_render(page, link)  # no wordcount first: the import is the first render
    assert first[ids.PRESET]["value"] == "imported: WordCount3"
    assert first[ids.SCENARIO_TITLE]["children"] == "WordCount3"
    assert "even" not in first[ids.SCHEDULERS]["value"]

    page.driver.switch_to.new_window("tab")
    page.driver.get(link)
    wait_until(lambda: page.find_element(f"#{ids.SCENARIO_TITLE}").text == "WordCount3", WAIT_S)
    wait_until(lambda: executor_count(page, "lf") == 28, timeout=WAIT_S)  # 5 + 8 + 12 + 3 ackers
    assert _dropdown_text(page, ids.PRESET) == "imported: WordCount3"
    assert page.find_elements(".panel[data-scheduler=even]") == []  # the selection came along


LARGE_FITS = "storm-large-cluster-03"  # 2,174 executors with ackers: the page loads the set
LARGE_TOO = "storm-large-cluster-01"  # 27,440: over the page's 5,000, the Cluster view draws it


def _panel_key(kind: str, scheduler: str) -> str:
    """A panel component's key in :func:`_first_render`'s answer."""
    return json.dumps({"type": kind, "sched": scheduler}, sort_keys=True)


def _map_nodes(duo, scheduler: str) -> int:
    """Nodes drawn in a scheduler's placement map (machines, slots, executors)."""
    return duo.driver.execute_script(f"return {_cy(scheduler, 'placement-map')}.nodes().length")


def _settled_plain(duo) -> str | None:
    """The page's URL once it names the view on screen (a view that needs no id)."""
    url = duo.driver.current_url
    shown = duo.find_element(f"#{ids.VIEW_SYNC}").get_attribute("textContent")
    return url if shown and url.endswith(shown) else None


def test_a_link_to_a_large_preset_loads_its_set_with_no_view_id(page):
    first = _first_render(page, f"{page.server_url}/?preset={LARGE_FITS}")  # the first paint
    assert first[ids.PRESET]["value"] == first[ids.LOADED_STORE]["data"] == LARGE_FITS
    assert len(first[ids.SCENARIO_STORE]["data"]["topologies"]) == 50  # no wordcount first
    assert "wordcount" not in first[ids.SCENARIO_TITLE]["children"].lower()
    shown = default_selection()
    for s in shown:  # 2,174 executors: every panel placed in the background, served pending
        assert first[_panel_key(panels.PANEL_POLL_TYPE, s)]["disabled"] is False
        assert first[_panel_key(ids.MAP_TYPE, s)]["elements"] == []
    page.driver.get(f"{page.server_url}/?preset={LARGE_FITS}")
    words = f"#{set_page.SET_WORDS}"
    wait_until(
        lambda: page.find_element(words).text.startswith("A set of 50 topologies (2,174"),
        timeout=WAIT_S,
    )
    # the preset box is a lazy component: the panels' drawing may hold its mount back
    wait_until(lambda: _dropdown_text(page, ids.PRESET) == LARGE_FITS, timeout=WAIT_S)
    assert _value(page, ids.RATE) == "1000"  # the preset's stated default rate
    link = wait_until(
        lambda: LARGE_FITS in (_settled_plain(page) or "") and _settled_plain(page),
        timeout=WAIT_S,
    )
    assert "view=" not in link  # unedited: the preset's own set, no stored view
    # a pending panel's poll draws it: the first one shown (drawing all nine of 2,174
    # executors takes the browser a minute on two cores)
    first_drawn = next(s for s in shown if s not in SEARCHES)
    wait_until(lambda: _map_nodes(page, first_drawn) > 0, timeout=WAIT_S)
    logs = page.get_logs()
    assert logs == [], "\n".join(entry["message"][-600:] for entry in logs)


IN_SIGHT = (
    "var r = document.getElementById(arguments[0]).getBoundingClientRect();"
    "return r.top < window.innerHeight && r.bottom > 0;"
)


def test_a_link_to_a_too_large_preset_opens_the_cluster_view_on_it(page):
    assert not page.driver.execute_script(IN_SIGHT, ids.CLUSTER_SECTION)  # far down the page
    page.driver.get(
        f"{page.server_url}/?preset={LARGE_TOO}&cluster_schedulers=ras-default&cluster_figure=slots"
    )
    message = wait_until(
        lambda: page.find_element(f"#{ids.BAR_MESSAGE}").text or None, timeout=WAIT_S
    )
    assert message.startswith(f"{LARGE_TOO} is not loaded here — 27,440 executors in all")
    assert _dropdown_text(page, ids.PRESET) == "wordcount"  # the page keeps its scenario
    status = f"#{ids.CLUSTER_STATUS}"
    wait_until(
        lambda: page.find_element(status).text.startswith(
            f"{LARGE_TOO}: 40 topologies on 1,312 nodes in 16 racks"
        ),
        timeout=WAIT_S,
    )
    # one grid, ras-default's, coloured by slots used (counts: the colour bar says slots)
    grid = ".cluster-grid .js-plotly-plot"
    wait_until(lambda: len(page.find_elements(grid)) == 1, timeout=4 * WAIT_S)
    unit = page.driver.execute_script(
        "return document.querySelector(arguments[0]).data[1].colorbar.title.text;", grid
    )
    assert unit == "slots"
    assert "ras-default" in page.find_element(".cluster-column h3").text
    assert page.find_element(f"#{ids.CLUSTER_FIGURE} input[value='slots']").is_selected()
    link = wait_until(lambda: _settled_plain(page), timeout=WAIT_S)
    assert f"cluster={LARGE_TOO}" in link and "cluster_figure=slots" in link
    assert "preset=wordcount" in link  # the page's own scenario, with the cluster picked

    page.driver.switch_to.new_window("tab")  # the page's link, as a colleague opens it
    page.driver.get(link)
    wait_until(lambda: len(page.find_elements(grid)) == 1, timeout=WAIT_S)
    assert page.find_element(f"#{ids.CLUSTER_FIGURE} input[value='slots']").is_selected()
    assert page.find_element(f"#{ids.BAR_MESSAGE}").text == ""  # nothing refused this time
    wait_until(  # the view is scrolled into sight
        lambda: page.driver.execute_script(IN_SIGHT, ids.CLUSTER_SECTION), timeout=WAIT_S
    )
    assert page.get_logs() == []

"""Import in a browser: Storm UI responses and a Flink plan become the page's scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser.duo_helpers import dag_labels, executor_count, wait_until
from dashboard import ids

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"
STORM = (
    "storm_docs_topology.json",
    "storm_ui_topology_visualization.json",
    "storm_docs_supervisor_summary.json",
)


def _drop(page, *names: str) -> None:
    field = page.find_element(f"#{ids.IMPORT_UPLOAD} input[type=file]")
    # Chrome adds files sent to a "multiple" input to those it holds: start empty, as a
    # file dialog does
    page.driver.execute_script("arguments[0].value = '';", field)
    field.send_keys("\n".join(str(FIXTURES / n) for n in names))


def _title(page) -> str:
    return page.find_element(f"#{ids.SCENARIO_TITLE}").text


def test_imported_storm_and_flink_topologies_fill_the_panels(page):
    _drop(page, *STORM)
    wait_until(lambda: _title(page) == "WordCount3", timeout=20)
    # spout 5 + split 8 + count 12 executors and 3 ackers (one per worker, W = 3)
    wait_until(lambda: executor_count(page, "even") == 28)
    assert page.find_element(f"#{ids.SCENARIO_FACTS}").text == (
        "28 executors · 3 components · 1 nodes · 4 slots · W = 3"
    )
    assert set(dag_labels(page, "even")) == {"spout\n×5", "split\n×8", "count\n×12", "__acker\n×3"}
    report = page.find_element(f"#{ids.IMPORT_REPORT}").text
    assert "Imported WordCount3 from the Storm UI REST API" in report
    assert "node clock: Storm does not report it" in report

    _drop(page, "storm_docs_topology.json")  # no visualization: refused, scenario kept
    wait_until(lambda: "Import refused" in page.find_element(f"#{ids.BAR_MESSAGE}").text)
    assert "/visualization" in page.find_element(f"#{ids.BAR_MESSAGE}").text
    assert _title(page) == "WordCount3" and executor_count(page, "even") == 28

    _drop(page, "flink_partitioning_plan.json")
    wait_until(lambda: _title(page) == "flink-job", timeout=20)
    # 1 + 4 + 3 + 2 + 1 + 2 + 2 operator subtasks, no ackers
    wait_until(lambda: executor_count(page, "even") == 15)
    labels = set(dag_labels(page, "even"))
    assert {"double-inc\n×4", "copy\n×3", "total\n×1", "Sink-sink\n×2"} <= labels
    assert "RESCALE has no Storm grouping" in page.find_element(f"#{ids.IMPORT_REPORT}").text


def test_a_stored_topology_pair_becomes_the_page_scenario(page):
    # Storm's own corpus pair (largeCluster03/TopologyName00049): Spout-0 x 2 -> Bolt-0 x 1,
    # 2 workers and 1 acker executor by its conf
    _drop(
        page, "stormser/TopologyName00049-stormcode.ser", "stormser/TopologyName00049-stormconf.ser"
    )
    wait_until(lambda: _title(page) == "TopologyName00049", timeout=20)
    wait_until(lambda: executor_count(page, "even") == 4)
    assert set(dag_labels(page, "even")) == {"Spout-0\n×2", "Bolt-0\n×1", "__acker\n×1"}
    report = page.find_element(f"#{ids.IMPORT_REPORT}").text
    assert "Imported TopologyName00049 from Nimbus's stored files" in report
    preset_box = page.find_element(f"#{ids.PRESET}")
    wait_until(lambda: preset_box.text == "imported: TopologyName00049")
    wait_until(lambda: "imported=TopologyName00049" in page.driver.current_url, timeout=20)

    _drop(page, "stormser/TopologyName00049-stormcode.ser")  # its conf missing: refused
    wait_until(lambda: "Import refused" in page.find_element(f"#{ids.BAR_MESSAGE}").text)
    assert "TopologyName00049-stormconf.ser is not among the files" in (
        page.find_element(f"#{ids.BAR_MESSAGE}").text
    )
    assert _title(page) == "TopologyName00049" and executor_count(page, "even") == 4

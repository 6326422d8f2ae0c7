"""Numbers explained in a browser: the glossary, what each chart counts, a log axis when one
scheduler is over 100x another, exports that say what they show, and the ranking that
takes in a placement finished in the background."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from browser.duo_helpers import click, executor_count, wait_until
from dashboard import ids, jobs
from dashboard.glossary import entries
from dashboard.registry import default_selection

pytestmark = pytest.mark.browser

SLOW = "lf"  # placed "in the background" by the ranking test, done when the test says so


def _layout(duo, chart_id: str, path: str):
    """A value of a rendered plotly chart's layout (``yaxis.type``), or None."""
    return duo.driver.execute_script(
        f"var g = document.querySelector('#{chart_id} .js-plotly-plot');"
        f"if (!g || !g._fullLayout) return null; var v = g._fullLayout;"
        f"for (const k of {path.split('.')!r}) {{ v = v ? v[k] : null; }} return v;"
    )


def _ranked(duo) -> list[str]:
    """The schedulers the ranking table lists (read at once: the strip redraws often)."""
    return duo.driver.execute_script(
        f"return Array.from(document.querySelectorAll('#{ids.RANKING} .ranking-table tbody tr'))"
        ".filter(r => !r.classList.contains('apart-reason'))"
        ".map(r => r.querySelector('td').textContent);"
    )


def test_the_glossary_names_every_term_and_figure_of_the_page(page):
    # read again if a display-only block is drawn anew meanwhile (a stale element)
    terms = wait_until(lambda: [e.text for e in page.find_elements("#glossary dt")])
    assert len(terms) == len(entries())
    for term in (
        "Max rate R*",
        "p99 latency",
        "Headroom",
        "Bottleneck",
        "Saturated",
        "Inter-node",
        "Executor",
        "Worker slot",
        "FLOPs/cycle or BogoMIPS",
    ):
        assert term in terms, term
    # the ranking's column headings are explained there too
    headings = wait_until(lambda: [h.text for h in page.find_elements(f"#{ids.RANKING} th")])[1:]
    for heading in headings:
        short = heading.split()[0].lower()
        assert any(short in t.lower() for t in terms), heading


def test_charts_say_what_they_count_and_go_log_when_one_is_100x(warm_spark, page):
    # three schedulers, rstorm's latency among them (the 200 ms against ~2 ms)
    page.driver.get(f"{page.server_url}/?preset=wordcount&schedulers=even,rstorm,lf")
    wait_until(lambda: executor_count(page, "rstorm") > 0, timeout=30)
    click(page, f"#{ids.SIMULATE}")
    wait_until(lambda: _layout(page, ids.CHART_LATENCY, "title.text"), timeout=300)
    assert "all executors" in _layout(page, ids.CHART_THROUGHPUT, "yaxis.title.text")
    assert "all executors" in _layout(page, ids.CHART_THROUGHPUT, "title.text")
    assert "complete latency" in _layout(page, ids.CHART_LATENCY, "yaxis.title.text")
    assert "memory" in _layout(page, ids.CHART_MEMORY, "yaxis.title.text")
    assert "offered rate" in _layout(page, ids.CHART_SWEEP, "xaxis.title.text")
    assert "scenario wordcount" in _layout(page, ids.CHART_LATENCY, "title.text")
    bars = page.driver.execute_script(
        f"var g = document.querySelector('#{ids.CHART_LATENCY} .js-plotly-plot');"
        "return g.data.flatMap(t => Array.from(t.y)).filter(v => v > 0);"
    )
    wide = max(bars) > 100 * min(bars)
    assert _layout(page, ids.CHART_LATENCY, "yaxis.type") == ("log" if wide else "linear")
    assert ("log scale" in _layout(page, ids.CHART_LATENCY, "title.text")) == wide


def test_a_panel_image_carries_its_scheduler_scenario_figures_and_legend(page):
    download = Path(page.download_path)
    target = download / "slotscope-even-map.svg"
    click(page, '.panel[data-scheduler="even"] .export-menu summary')
    menu = page.find_element('.panel[data-scheduler="even"] .export-menu .menu')
    button = next(
        b
        for b in menu.find_elements("css selector", "button")
        if b.get_attribute("textContent") == "Placement SVG"
    )
    click(page, button)
    wait_until(lambda: target.exists() and target.stat().st_size)
    svg = target.read_text()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert texts[0].startswith("even: ")
    assert "Scenario wordcount" in texts[1]
    assert re.search(r"R\* [\d,]+ tuples/s \([\d.]+x offered\)", texts[2])
    for legend in ("spout", "split", "count", "inter-node traffic", "idle slot"):
        assert legend in texts, legend


@pytest.fixture
def slow_placement(monkeypatch):
    """SLOW is placed "in the background", done when the test sets the returned event."""
    from dashboard import compute

    run, done = jobs.placements._run, threading.Event()

    def slowly(key):
        if key[1] == SLOW:
            done.wait(60)
        return run(key)

    monkeypatch.setattr(compute, "SEARCHES", (*compute.SEARCHES, SLOW))
    monkeypatch.setattr(jobs.placements, "_run", slowly)
    return done


def test_the_ranking_takes_in_a_placement_finished_in_the_background(slow_placement, dash_duo):
    from dashboard.app import app

    assert SLOW in default_selection()
    dash_duo.start_server(app)
    dash_duo.wait_for_element(".panel .cyto-map canvas", timeout=20)
    wait_until(lambda: executor_count(dash_duo, "even") > 0)
    wait_until(lambda: SLOW in dash_duo.find_element(".ranking-waiting").text)
    assert SLOW not in _ranked(dash_duo) and "even" in _ranked(dash_duo)
    slow_placement.set()  # the placement finishes: the panel polls it in, and the ranking follows
    wait_until(lambda: SLOW in _ranked(dash_duo), timeout=30)
    waiting = dash_duo.driver.execute_script(
        "var w = document.querySelector('.ranking-waiting'); return w ? w.textContent : '';"
    )
    assert SLOW not in waiting


def test_the_compare_result_takes_in_a_placement_finished_in_the_background(
    slow_placement, dash_duo
):
    """A pair whose second placement was still running when the page was served says it
    waits, then shows what moved once that placement is in (Present mode's headline)."""
    from dashboard.app import app

    dash_duo.start_server(app)
    # a preset no other test of the file places, so its placement is not remembered yet
    dash_duo.driver.get(f"{dash_duo.server_url}/?preset=rstorm-diamond&present=even,{SLOW}")
    result = f"#{ids.COMPARE_RESULT}"
    wait_until(lambda: "Waiting" in dash_duo.find_element(result).text, timeout=20)
    slow_placement.set()
    wait_until(lambda: f"{SLOW} places" in dash_duo.find_element(result).text, timeout=30)

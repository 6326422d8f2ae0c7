"""The Papers view in a browser: the last results at once, one line a claim, filters, the
reason one click away, legible at 1440x900 and 1920x1080; Reproduce re-runs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from browser.duo_helpers import click, wait_until
from core.claims import CLAIMS
from dashboard import ids, papers
from dashboard.app import server
from dashboard.jobs import ResultCache

pytestmark = pytest.mark.browser

GRID = f"#{ids.PAPERS_GRID}"


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """The claims' result cache of this file's tests: empty at first, then kept for the
    whole run, so a store made again (a worker that tore the module's fixtures down
    between two of its tests) reads the results the first test computed."""
    return tmp_path_factory.mktemp("papers-cache")


@pytest.fixture(scope="module")
def store(cache_dir):
    """A store of claim results of its own (an empty cache at first), in place of the
    app's."""
    own = papers.ClaimsStore(ResultCache(cache_dir))
    previous = server.extensions.get(papers.EXTENSION)
    server.extensions[papers.EXTENSION] = own
    yield own
    server.extensions[papers.EXTENSION] = previous


FIRST = "test_reproduce_computes_in_the_background_then_a_new_page_shows_results_at_once"
SHARED_WAIT_S = 600  # how long the first test's Reproduce, and a later test, may wait


@pytest.fixture(scope="session")
def shared_doc(tmp_path_factory) -> Path:
    """Where the first test leaves the results it computed, for every pytest-xdist worker
    (their temporary folders share a parent): a later test on another worker reads them
    instead of reproducing every claim a second time."""
    root = tmp_path_factory.getbasetemp()
    return (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "papers.json"


def _started_mark(shared_doc: Path) -> Path:
    """Left by the first test as it starts: a later test waits for its results only then
    (not when the first test is still queued, maybe behind it on its own worker)."""
    return shared_doc.with_suffix(".started")


@pytest.fixture
def computed(store, shared_doc):
    """The store with results: the first test's (waited for once it has started, on
    whichever worker runs it), else computed here. Tests take it before ``page``, so the
    page opens on the results."""
    if store.latest() is None:
        started = _started_mark(shared_doc).exists()
        deadline = time.monotonic() + (SHARED_WAIT_S if started else 0)
        while not shared_doc.exists() and time.monotonic() < deadline:
            time.sleep(1)
        doc = json.loads(shared_doc.read_text()) if shared_doc.exists() else None
        store.store(doc if doc else papers.compute_document())
    return store


def displayed_rows(page) -> int:
    return page.driver.execute_script(
        f"return dash_ag_grid.getApi('{ids.PAPERS_GRID}').getDisplayedRowCount()"
    )


@pytest.fixture
def first_started(shared_doc) -> None:
    """The first test's mark, left before its browser starts (see :func:`computed`)."""
    _started_mark(shared_doc).touch()


def test_reproduce_computes_in_the_background_then_a_new_page_shows_results_at_once(
    first_started, page, store, shared_doc, monkeypatch
):
    """The first test of the file: the store is empty, so the view says so until
    Reproduce has run (in a child process); a page opened afterwards has them at once.
    The child runs at the tests' own priority here (the server nices it: under `make
    test` the other worker's tests would then stretch its minute and a half of work)."""
    monkeypatch.setattr(papers, "CHILD_NICE", 0)
    summary = f"#{ids.PAPERS_SUMMARY}"
    assert store.latest() is None
    assert "Not computed yet" in page.find_element(summary).text
    click(page, f"#{ids.PAPERS_RUN}")
    wait_until(lambda: "in the background" in page.find_element(summary).text, timeout=10)
    try:
        wait_until(lambda: "Computed" in page.find_element(summary).text, timeout=SHARED_WAIT_S)
    finally:  # the later tests wait for these results (an empty file: compute your own)
        doc = store.cache.get(store.key)
        shared_doc.write_text(json.dumps(doc) if doc else "")
    assert store.error == ""
    assert page.find_element(summary).text.startswith(f"{len(CLAIMS)} claims:")
    wait_until(lambda: displayed_rows(page) == len(CLAIMS))

    page.driver.refresh()  # the view opens again: the cached results, nothing pressed
    page.wait_for_element(f"{GRID} .ag-row", timeout=30)
    assert displayed_rows(page) == len(CLAIMS)
    assert "in the background" not in page.find_element(summary).text
    assert page.get_logs() == []


def test_each_claim_is_one_line_and_its_reason_one_click_away(computed, page):
    wait_until(lambda: displayed_rows(page) == len(CLAIMS))
    heights = page.driver.execute_script(
        f"return Array.from(document.querySelectorAll('{GRID} .ag-row'))"
        ".map(function (r) { return r.getBoundingClientRect().height; })"
    )
    assert heights and set(heights) == {papers.ROW_HEIGHT}
    gap = next(c for c in CLAIMS if c.not_run)
    page.select_dcc_dropdown(f"#{ids.PAPERS_VERDICT}", value="not run")
    not_run = [r for r in computed.latest()["rows"] if r["verdict"] == "not run"]
    wait_until(lambda: displayed_rows(page) == len(not_run))
    cell = page.wait_for_element(f'{GRID} .ag-row[row-id="{gap.id}"] [col-id="why"]')
    click(page, cell)
    detail = f"#{ids.PAPERS_DETAIL}"
    wait_until(lambda: gap.not_run[:40] in page.find_element(detail).text)
    assert gap.text[:30] in page.find_element(detail).text
    page.select_dcc_dropdown(f"#{ids.PAPERS_SELECT}", value="L/F")  # and a paper
    lf_not_run = [r for r in not_run if r["paper"] == "lf"]
    wait_until(lambda: displayed_rows(page) == len(lf_not_run))
    page.select_dcc_dropdown(f"#{ids.PAPERS_VERDICT}", value="All verdicts")
    wait_until(lambda: displayed_rows(page) == sum(c.paper == "lf" for c in CLAIMS))
    assert page.get_logs() == []


@pytest.mark.parametrize("size", [(1440, 900), (1920, 1080)])
def test_the_view_is_legible_at_laptop_and_projector_sizes(computed, page, size):
    page.driver.set_window_size(*size)
    wait_until(lambda: displayed_rows(page) == len(CLAIMS))
    page.driver.execute_script(f"document.getElementById('{ids.PAPERS_SECTION}').scrollIntoView()")
    section = page.driver.execute_script(
        "var s = document.getElementById(arguments[0]).getBoundingClientRect();"
        "return [s.left, s.right, window.innerWidth];",
        ids.PAPERS_SECTION,
    )
    assert section[0] >= 0 and section[1] <= section[2]  # no sideways scrolling
    small = page.driver.execute_script(
        """var out = [];
        document.querySelectorAll('#' + arguments[0] + ' *').forEach(function (e) {
          var text = Array.from(e.childNodes).some(function (n) {
            return n.nodeType === 3 && n.textContent.trim(); });
          if (text && e.getClientRects().length
              && parseFloat(getComputedStyle(e).fontSize) < 12) out.push(e.textContent);
        }); return out;""",
        ids.PAPERS_SECTION,
    )
    assert small == []
    clipped = page.driver.execute_script(
        f"return Array.from(document.querySelectorAll('{GRID} .ag-header-cell-text'))"
        ".filter(function (e) { return e.scrollWidth > e.clientWidth + 1; })"
        ".map(function (e) { return e.textContent; })"
    )
    assert clipped == []

    def columns_inside() -> bool:  # the grid refits its columns a moment after a resize
        grid = page.driver.execute_script(
            f"var g = document.querySelector('{GRID} .ag-root-wrapper').getBoundingClientRect();"
            f"var c = document.querySelector('{GRID} .ag-center-cols-viewport');"
            "return [g.right, window.innerWidth, c.scrollWidth, c.clientWidth];"
        )
        return grid[0] <= grid[1] and grid[2] <= grid[3] + 1

    wait_until(columns_inside, timeout=10, message="a column reaches past the grid")

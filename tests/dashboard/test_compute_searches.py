"""Background placements in search processes of their own: a search never holds up a
panel evaluated in the foreground, and runs at a lower CPU priority."""

from __future__ import annotations

import functools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.presets import preset
from dashboard import compute

SLOW = "slotscope"  # the scheduler the stand-in below makes slow (a background search)
HELD_S = 20.0  # the slow evaluation waits at most this long for the test to release it


def stand_in(folder: str, text: str, scheduler: str, params_key: str, rate: float):
    """Stands in for :func:`dashboard.compute.evaluated` in a process (module-level, so a
    spawned process imports it): ``SLOW`` writes ``started``, waits for ``release`` (at
    most ``HELD_S``), then writes ``finished``; any other answers at once. The answer's
    ``error`` names the process and its niceness."""
    here = Path(folder)
    if scheduler == SLOW:
        (here / "started").write_text("")
        deadline = time.monotonic() + HELD_S
        while not (here / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        (here / "finished").write_text("")
    return compute.Evaluation(scheduler, None, None, None, error=f"{os.getpid()} {os.nice(0)}")


@pytest.fixture
def both_kinds(tmp_path):
    """One evaluation process and one search process, both running :func:`stand_in`."""
    compute.clear_caches()
    foreground = compute.start_processes(1, searches=1)
    searches = compute.search_processes()
    assert foreground is not None and searches is not None
    foreground.work = searches.work = functools.partial(stand_in, str(tmp_path))
    yield tmp_path
    (tmp_path / "release").touch()
    compute.start_processes(0)
    compute.clear_caches()


def test_a_panel_s_evaluation_returns_while_a_background_search_of_its_scenario_runs(both_kinds):
    folder = both_kinds
    text = compute.canonical(preset("lf-diamond").to_json_dict())
    with ThreadPoolExecutor(1) as thread:
        search = thread.submit(compute.evaluate_in_background, text, SLOW, "{}", 1000.0)
        deadline = time.monotonic() + 120  # a spawned process imports the core first
        while not (folder / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert (folder / "started").exists(), "the search never started"
        panel = compute.evaluate(text, "even", "{}", 1000.0)  # the same scenario: same hash
        search_finished_first = (folder / "finished").exists()
        (folder / "release").touch()
        background = search.result(120)
    assert not search_finished_first  # the panel did not wait for the search
    panel_pid, panel_nice = map(int, panel.error.split())
    search_pid, search_nice = map(int, background.error.split())
    assert search_pid != panel_pid != os.getpid()
    assert search_nice == min(19, panel_nice + compute.SEARCH_NICE)
    # memoised here as evaluate's: the panel reads the finished search without asking again
    assert compute.evaluate(text, SLOW, "{}", 1000.0) is background


def test_without_search_processes_a_background_placement_is_evaluated_as_any_other():
    compute.clear_caches()
    sc = preset("lf-linear")
    text, rate = compute.canonical(sc.to_json_dict()), sc.workload.rate
    background = compute.evaluate_in_background(text, "lf", "{}", rate)
    assert background.schedule.ok and compute.search_processes() is None
    assert compute.evaluate(text, "lf", "{}", rate) is background
    assert compute.evaluated.cache_info().misses == 1

"""The server's resource limits (README, "Limits"): each holds, and says so when hit."""

from __future__ import annotations

import base64
import json
import threading
import time

import pytest
from dash import no_update

from core.model import validate_scenario
from core.presets import preset
from core.topology import build_graph
from dashboard import compute, jobs, layout, panels
from dashboard.colors import component_colors
from dashboard.editors import apply_edits
from dashboard.elements import MAX_MEMBERS, MAX_TRAFFIC_EDGES, placement_elements
from dashboard.jobs import (
    DONE,
    FAILED,
    MAX_JOBS,
    MAX_JOBS_PER_SESSION,
    REFUSED,
    JobPool,
    PlacementPool,
    web_params,
)
from dashboard.rows import COMPONENTS, scenario_rows
from dashboard.scenario_bar import apply_params, upload_outputs
from dashboard.transfer import DASHBOARD_MAX_EXECUTORS, UPLOAD_GUARD_BYTES

DOC = {"engine": {"tasks": 1}, "results": []}


class DictCache:
    def __init__(self):
        self.data = {}

    def get(self, key):
        return self.data.get(key)

    def set(self, key, value):
        self.data[key] = value


def wait_for(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not met within {timeout} s"
        time.sleep(0.01)


# -- the simulation queue ---------------------------------------------------------------


def test_the_simulation_queue_is_bounded_per_session_and_overall():
    pool = JobPool(DictCache(), max_workers=2)
    release = threading.Event()

    def work(group, progress):
        release.wait(10)
        return DOC

    try:
        mine = [pool.submit(f"a{i}", work, session="a") for i in range(MAX_JOBS_PER_SESSION)]
        refused = pool.submit("a-extra", work, session="a")
        assert pool.status(refused)["state"] == FAILED
        assert f"at most {MAX_JOBS_PER_SESSION}" in pool.status(refused)["message"]
        sessions = MAX_JOBS // MAX_JOBS_PER_SESSION  # 30 maximum-size simulations in all
        others = [
            pool.submit(f"s{s}-{i}", work, session=f"s{s}")
            for s in range(1, sessions)
            for i in range(MAX_JOBS_PER_SESSION)
        ]
        assert all(pool.status(j)["state"] != FAILED for j in mine + others)
        thirty_first = pool.submit("one-more", work, session="newcomer")
        assert pool.status(thirty_first)["state"] == FAILED
        assert f"at most {MAX_JOBS}" in pool.status(thirty_first)["message"]
    finally:
        release.set()
    wait_for(lambda: all(pool.status(j)["state"] == DONE for j in mine + others))
    again = pool.submit("a-later", work, session="a")  # finished jobs free their places
    wait_for(lambda: pool.status(again)["state"] == DONE)


# -- page loads: prefetch threads and the join race ---------------------------------------


def prefetch_threads() -> int:
    return sum(t.name == "slotscope-prefetch" for t in threading.enumerate())


def test_sixty_page_loads_start_at_most_the_prefetch_threads(monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(layout, "_place_panels", lambda name, selected: release.wait(10))
    monkeypatch.setattr(layout, "_PREFETCHING", {})
    try:
        started = [layout.prefetch(f"preset=wordcount&schedulers=even&n={i}") for i in range(60)]
        # one view (the query's extra parameter does not name another) placed once
        assert sum(started) == 1
        views = ["even", "lf", "toss", "rstorm", "hetero", "even,lf"]
        for v in views:
            layout.prefetch(f"preset=lf-star&schedulers={v}")
        assert prefetch_threads() <= layout.PREFETCH_THREADS
    finally:
        release.set()
    wait_for(lambda: prefetch_threads() == 0)


def test_a_layout_request_never_joins_a_prefetch_before_it_started(monkeypatch):
    monkeypatch.setattr(layout, "_place_panels", lambda name, selected: None)
    monkeypatch.setattr(layout, "_PREFETCHING", {})
    errors = []

    def load(i: int) -> None:
        query = f"preset=wordcount&schedulers={'even' if i % 2 else 'lf'}"
        try:
            layout.prefetch(query)
            name, selected, _ = layout.view_of(query)
            layout.await_prefetch(name, selected)  # what serve does first
        except Exception as err:  # the race raised "cannot join thread before it is started"
            errors.append(err)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- placements off the request threads -------------------------------------------------


def test_background_placements_are_bounded_and_report_progress():
    release = threading.Event()
    # a name of its own: other tests' pools may still have threads running in this process
    pool = PlacementPool(lambda key: release.wait(10), threads=2, waiting=3, name="bounded-pool")
    try:
        statuses = [pool.request(("k", i)) for i in range(4)]
        assert [s.state for s in statuses[:3]] != [] and statuses[3].state == REFUSED
        assert "at most" in statuses[3].message
        wait_for(lambda: sum(pool.status(("k", i)).state == "running" for i in range(3)) == 2)
        assert pool.status(("k", 2)).state == "queued" and pool.status(("k", 2)).ahead == 0
        assert sum(t.name == "bounded-pool" for t in threading.enumerate()) == 2
    finally:
        release.set()
    # each finished, and remembered as done (waiting on a known key queues nothing anew)
    assert pool.wait(("k", 2), 10).ready and pool.wait(("k", 0), 10).ready
    assert pool.request(("k", 0)).ready


def test_an_optimal_panel_is_placed_off_the_request_thread_then_filled():
    data = preset("lf-linear").to_json_dict()
    data["name"] = "off-thread"  # a scenario no other test has placed
    params = {"optimal": {"time_limit": 3600}}  # as a forged store would send it
    text = panels.canonical(data)
    key = panels.panel_key(text, "optimal", params, 1000.0)
    assert json.loads(key[2])["time_limit"] == jobs.WEB_TIME_LIMIT_S
    (frame,) = panels.frames(data, ["optimal"], params, 1000.0, wait_s=0.0)
    page = str(frame)
    assert "Placing in the background" in page or "Waiting for a background thread" in page
    assert jobs.placements.wait(key, 120).ready
    (frame,) = panels.frames(data, ["optimal"], params, 1000.0, wait_s=0.0)
    assert "Placing in the background" not in str(frame)


def test_the_page_caps_cp_sats_time_and_the_local_search_budget():
    assert web_params("optimal", '{"time_limit": 3600}') == '{"time_limit":60.0}'
    assert web_params("slotscope", '{"budget": 1e9}') == '{"budget":30000}'
    stored = {"optimal": {"time_limit": 30.0}}
    ids = [{"sched": "optimal", "name": "time_limit"}]
    params, message = apply_params([3600], ids, stored)
    assert params is no_update and "at most 60 in the dashboard" in str(message)


# -- uploads and edits ------------------------------------------------------------------


def _data_url(raw: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


@pytest.mark.parametrize(
    ("raw", "name", "says"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "deep.json", "nested too deeply"),
        (b'{"a":' * 5_000 + b"1" + b"}" * 5_000, "deep-object.json", "nested too deeply"),
        (b"just some notes\n", "notes.txt", "notes.txt: not valid JSON"),
        (b"\xff\xfe\x00\x01", "binary.json", "not valid JSON"),
        (b"[1, 2]", "list.json", "a scenario must be a JSON object"),
        (b" " * (2_000_001), "big.json", "the limit is 2,000,000"),
    ],
)
def test_a_bad_upload_gets_a_message_and_keeps_the_scenario(raw, name, says):
    out = upload_outputs(_data_url(raw), name)
    assert out[:7] == (no_update,) * 7
    assert "Upload refused" in str(out[7]) and says in str(out[7])


def test_the_browser_refuses_files_over_the_guard_with_a_message():
    from dashboard import scenario_bar  # noqa: PLC0415

    assert UPLOAD_GUARD_BYTES == 4 * 2_000_000
    page = str(scenario_bar.layout("wordcount", ["even"], {}, 1000.0))
    assert "accept" not in page  # a .txt reaches the server, which names what is wrong


def test_parallelism_40000_in_the_editor_is_refused_at_its_cell_at_once():
    sc = preset("wordcount")
    base, rows = sc.to_json_dict(), scenario_rows(sc)
    rows[COMPONENTS][2]["parallelism"] = 40_000
    out = apply_edits(edits=[None] * 3, rows=rows, workers=5, ackers=0, base=base, current=base)
    assert out["scenario"] is no_update
    message = str(out["message"])
    assert "40,013 executors in all" in message and f"{DASHBOARD_MAX_EXECUTORS:,}" in message
    assert out["rows"][COMPONENTS][2]["_err_parallelism"]


def test_a_store_of_40000_executors_sent_by_hand_is_not_placed():
    data = preset("wordcount").to_json_dict()
    data["topology"]["components"][2]["parallelism"] = 40_000
    text = panels.canonical(data)
    placed = compute.placed.cache_info().currsize
    frames = panels.frames(data, ["even", "slotscope"], {}, 1000.0)
    assert compute.placed.cache_info().currsize == placed  # nothing placed: a message
    assert all("the dashboard places at most 5,000" in str(f) for f in frames)
    assert not jobs.panel_ready(text, "even", {}, 1000.0)  # ranking and compare skip it


# -- panel size -------------------------------------------------------------------------


def _spread(executors: list[str], slots: list[tuple[str, int]]) -> dict[str, tuple[str, int]]:
    return {e: slots[i % len(slots)] for i, e in enumerate(executors)}


@pytest.mark.parametrize(("nodes", "slots"), [(5, 4), (1_000, 4), (5_000, 2)])
def test_a_panel_of_25000_executors_is_bounded_by_the_cluster_not_the_executors(nodes, slots):
    data = preset("wordcount").to_json_dict()
    others = sum(c["parallelism"] for c in data["topology"]["components"][:2])
    others += data["topology"].get("ackers", 0)
    data["topology"]["components"][2]["parallelism"] = 25_000 - others  # 25,000 executors
    node = data["cluster"]["nodes"][0]
    data["cluster"]["nodes"] = [dict(node, id=f"n{i}", slots=slots) for i in range(nodes)]
    data["topology"]["workers"] = nodes * slots
    scenario = validate_scenario(data)
    graph = build_graph(scenario)
    executors = [e for c in graph.order for e in graph.executors(c)]
    assert len(executors) == 25_000
    every_slot = [(f"n{i}", s) for i in range(nodes) for s in range(slots)]
    elements = placement_elements(
        scenario, graph, _spread(executors, every_slot), component_colors(list(graph.order))
    )
    size = len(json.dumps(elements))
    assert size < 4_000_000, size  # was 1,036 MB for one such panel
    assert len(elements) <= 2 * min(nodes * slots, nodes * 2 + 2_000) + MAX_TRAFFIC_EDGES + nodes
    assert not any("executor" in e.get("classes", "").split() for e in elements)
    pies = [e for e in elements if " agg" in e.get("classes", "")]
    assert sum(p["data"]["executors"] for p in pies) == 25_000
    assert all(len(p["data"]["members"].split()) <= MAX_MEMBERS for p in pies)

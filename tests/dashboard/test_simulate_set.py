"""Simulate on a topology set: ``slotscope sweep``'s one job (one task per scheduler on the
whole set), its progress and Cancel through the job pool, and the sortable tables it fills;
a single topology still runs the comparison."""

from __future__ import annotations

import json
import threading
import time

import dash_ag_grid as dag
import pytest
from flask import Flask

from core import sweep
from core.model import validate_scenario
from dashboard import charts, simulate, sweep_view
from dashboard.compute import canonical
from dashboard.jobs import CANCELLED, DONE, EXTENSION, install

NODES = [
    {"id": "n1", "cores": 2, "ghz": 3, "slots": 2, "rack": "r1", "ram_gb": 1},
    {"id": "n2", "cores": 2, "ghz": 3, "slots": 2, "rack": "r2", "ram_gb": 1},
]


def _topology(name: str) -> dict:
    return {
        "name": name,
        "workers": 2,
        "components": [
            {"id": "s", "parallelism": 1, "memory_mb": 500},
            {"id": "b", "parallelism": 2, "memory_mb": 500},
        ],
        "streams": [{"from": "s", "to": "b"}],
    }


# Each topology asks for 3 x 500 MB of the cluster's 2 x 1,024 MB: ras-default (Storm's
# resource accounting) places "big", and "small" does not fit in what is left; even counts
# slots, not memory, and places both in the 4 slots.
SET = {
    "name": "pair",
    "topologies": [_topology("big"), _topology("small")],
    "cluster": {"nodes": NODES},
}
SINGLE = {"name": "one", "topology": _topology("big"), "cluster": {"nodes": NODES}}
SCHEDULERS = ["even", "ras-default"]


class DictCache:
    def __init__(self):
        self.data = {}

    def get(self, key):
        return self.data.get(key)

    def set(self, key, value):
        self.data[key] = value


@pytest.fixture
def app():
    server = Flask(__name__)
    install(server, DictCache(), max_workers=1)
    return server


def wait_for(condition, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"not met within {timeout} s"
        time.sleep(0.02)
    return found


def _start(server, scenario, rate=100.0):
    data = json.loads(canonical(validate_scenario(scenario).to_json_dict()))
    with server.test_request_context("/"):
        return simulate.start_simulation(
            clicks=1,
            scenario=data,
            selected=SCHEDULERS,
            params={},
            rate=rate,
            sweep=["on"],
            replicas=1,
            tuples=10_000,
            shown=None,
        )


def _poll(server, job):
    with server.test_request_context("/"):
        return simulate.poll_job(tick=1, job=job)


def _in_process_sweep(calls, release=None):
    """spark_sweep without Spark: the same tasks through the built-in map, with progress."""

    def fake(scenario, source, schedulers, rates=(), **kwargs):
        calls.append({"schedulers": list(schedulers), "rates": list(rates), **kwargs})
        tasks = sweep.sweep_tasks(source, scenario, schedulers, rates, kwargs.get("params"))
        rows = []
        for i, task in enumerate(tasks):
            kwargs["progress"](i, len(tasks))
            if release is not None:
                release.wait(10)
            rows.append(sweep.run_task(task))
        kwargs["progress"](len(tasks), len(tasks))
        engine = {"master": "in-process", "tasks": len(rows), "wall_s": 0.0}
        return sweep.sweep_document(scenario, rows, rates, engine, 0.0)

    return fake


def test_a_set_runs_one_sweep_job_and_fills_both_tables(app, monkeypatch):
    calls = []
    monkeypatch.setattr(simulate, "spark_sweep", _in_process_sweep(calls))
    monkeypatch.setattr(
        simulate, "spark_compare", lambda *a, **k: pytest.fail("a set is not a comparison")
    )
    started = _start(app, SET)
    job = started["job"]
    assert job["kind"] == sweep_view.SET_KIND
    done = wait_for(lambda: (out := _poll(app, job))["results"] is not simulate.no_update and out)
    # one job, one task per scheduler, in the job's own group (what Cancel cancels), at the
    # page's rate only (the rate sweep and replicas are the comparison's)
    (call,) = calls
    assert call["schedulers"] == SCHEDULERS and call["rates"] == [100.0]
    assert call["group"] == job["id"]
    assert done["label"].startswith("2 / 2 tasks")
    results = done["results"]
    assert sweep_view.is_set_results(results) and results["results"] == []
    assert simulate.export_states(results)[0] is False  # CSV enabled

    area, table, info = charts.show_results(results)
    assert info.startswith("2 Spark tasks on in-process")
    (schedulers,) = [c for c in area[0].children if isinstance(c, dag.AgGrid)]
    (topologies,) = [c for c in table if isinstance(c, dag.AgGrid)]
    assert schedulers.defaultColDef["sortable"] and topologies.defaultColDef["sortable"]
    assert [c["headerName"] for c in schedulers.columnDefs][:11] == [
        "scheduler", "sched", "nodes", "slots", "inWkr%", "xWkr%", "xNode%", "xRack%",
        "steps", "cpuCV", "memCV",
    ]  # fmt: skip
    by_scheduler = {r["scheduler"]: r for r in schedulers.rowData}
    assert list(by_scheduler) == SCHEDULERS
    assert by_scheduler["even"]["sched"] == 2 and by_scheduler["even"]["note"] == ""
    assert by_scheduler["ras-default"]["sched"] == 1
    assert by_scheduler["ras-default"]["note"] == "not scheduled: small"
    for row in by_scheduler.values():
        assert sum(row[s] for s in sweep.SCOPES) == pytest.approx(100.0, abs=0.2)
    rows = {(r["scheduler"], r["topology"]): r for r in topologies.rowData}
    assert sorted(rows) == sorted((s, t) for s in SCHEDULERS for t in ("big", "small"))
    missing = rows.pop(("ras-default", "small"))
    assert missing["r_star"] is None
    assert missing["not_simulated"] == "not scheduled (not enough resources)"
    for r in rows.values():
        assert r["r_star"] > 100.0 and r["latency_ms"] > 0 and r["not_simulated"] == ""

    csv_text = sweep_view.download(results, "csv")["content"]
    assert csv_text.splitlines()[0].startswith("scheduler,fed_rate,scheduled,topologies")


def test_cancel_cancels_the_set_s_job_group(app, monkeypatch):
    from core import spark

    release, cancelled = threading.Event(), []

    def fake_cancel(group):
        cancelled.append(group)
        release.set()

    calls = []
    inner = _in_process_sweep(calls, release)

    def cancellable(*args, **kwargs):
        inner(*args, **kwargs)
        raise spark.JobCancelled(kwargs["group"])

    monkeypatch.setattr(simulate, "spark_sweep", cancellable)
    monkeypatch.setattr(spark, "cancel", fake_cancel)
    job = _start(app, SET)["job"]
    wait_for(lambda: _poll(app, job)["label"].startswith("0 / 2 tasks"))
    with app.test_request_context("/"):
        assert simulate.cancel_job(1, job) is not simulate.no_update
    out = wait_for(lambda: (o := _poll(app, job))["poll"] is True and o)
    assert cancelled == [job["id"]]
    assert "Simulation cancelled." in out["message"].children
    assert out["buttons"] == (False, True)
    assert app.extensions[EXTENSION].status(job["id"])["state"] == CANCELLED


def test_a_single_topology_still_runs_the_comparison(app, monkeypatch):
    compared = []

    def fake_compare(scenario, schedulers, rates, *args, **kwargs):
        compared.append(list(rates))
        return {"engine": {"tasks": 1}, "results": [], "skipped": []}

    monkeypatch.setattr(simulate, "spark_compare", fake_compare)
    monkeypatch.setattr(simulate, "spark_sweep", lambda *a, **k: pytest.fail("not a set"))
    job = _start(app, SINGLE)["job"]
    assert job["kind"] == ""
    done = wait_for(lambda: (out := _poll(app, job))["results"] is not simulate.no_update and out)
    assert compared == [simulate.sweep_rates(100.0, True)]
    assert not sweep_view.is_set_results(done["results"])
    assert app.extensions[EXTENSION].status(job["id"])["state"] == DONE

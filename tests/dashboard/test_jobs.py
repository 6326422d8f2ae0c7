"""The job pool: progress, results, the cache, failures and cancellation (no Spark needed)."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from core import spark
from dashboard import compute, jobs
from dashboard.jobs import (
    CANCELLED,
    DONE,
    FAILED,
    REFUSED,
    SPARK_NICE,
    JobPool,
    PlacementPool,
    settings_key,
)

DOC = {
    "engine": {"tasks": 2, "master": "local[2]", "wall_s": 0.1},
    "results": [{"scheduler": "even"}],
}


def wait_for(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not met within {timeout} s"
        time.sleep(0.01)


class DictCache:
    """The two methods of flask-caching the pool uses."""

    def __init__(self):
        self.data = {}

    def get(self, key):
        return self.data.get(key)

    def set(self, key, value):
        self.data[key] = value


@pytest.fixture
def pool():
    """A pool of two threads over an in-memory cache."""
    return JobPool(DictCache(), max_workers=2)


def test_a_job_reports_progress_then_its_result_and_fills_the_cache(pool):
    release = threading.Event()

    def work(group, progress):
        progress(1, 2)
        release.wait(5)
        progress(2, 2)
        return DOC

    job = pool.submit("k1", work)
    wait_for(lambda: pool.status(job)["done"] == 1)
    assert pool.status(job)["state"] == "running" and pool.status(job)["total"] == 2
    release.set()
    wait_for(lambda: pool.status(job)["state"] == DONE)
    assert pool.result(job) == DOC
    again = pool.submit("k1", lambda g, p: pytest.fail("a cached run must not run again"))
    assert pool.status(again)["state"] == DONE and pool.status(again)["cached"]
    assert pool.status(again)["total"] == 2


@pytest.mark.parametrize(
    ("error", "state", "says"),
    [
        (spark.JobCancelled("x"), CANCELLED, "Simulation cancelled."),
        (spark.SparkUnavailable("Java 17+ is needed"), FAILED, "Java 17+ is needed"),
        (ZeroDivisionError("boom"), FAILED, "Simulation failed: ZeroDivisionError: boom"),
    ],
)
def test_a_failed_job_says_why_and_caches_nothing(pool, error, state, says):
    def work(group, progress):
        raise error

    job = pool.submit("k2", work)
    wait_for(lambda: pool.status(job)["state"] == state)
    assert pool.status(job)["message"] == says
    assert pool.result(job) is None
    assert pool._cache.data == {}


def test_cancel_cancels_the_spark_job_group(pool, monkeypatch):
    cancelled = threading.Event()
    groups = []

    def fake_cancel(group):
        groups.append(group)
        cancelled.set()

    monkeypatch.setattr(spark, "cancel", fake_cancel)

    def work(group, progress):
        cancelled.wait(5)
        raise spark.JobCancelled(group)

    job = pool.submit("k3", work)
    wait_for(lambda: pool.status(job)["state"] == "running")
    assert pool.cancel(job)
    wait_for(lambda: pool.status(job)["state"] == CANCELLED)
    assert groups == [job]
    assert not pool.cancel(job)  # finished jobs cannot be cancelled


def test_the_cache_key_changes_with_any_setting():
    scenario = {"name": "s"}
    base = {"rates": [1.0], "replicas": 1}
    assert settings_key(scenario, base) == settings_key(scenario, dict(base))
    assert settings_key(scenario, base) != settings_key(scenario, {**base, "replicas": 2})
    assert settings_key(scenario, base) != settings_key({"name": "t"}, base)


@pytest.mark.skipif(not spark.PROC.is_dir(), reason="Linux's /proc only")
def test_spark_s_jvm_and_the_processes_under_it_yield_the_cpu(tmp_path):
    java = tmp_path / "java"  # a stand-in for Spark's JVM (its command name is java)
    java.write_text("#!/bin/sh\nsleep 30 &\nwait\n")
    java.chmod(0o755)
    other = subprocess.Popen(["sleep", "30"])  # not under the JVM: left alone
    jvm = subprocess.Popen([str(java)])
    try:
        wait_for(lambda: len(spark.child_processes({jvm.pid})) == 1)
        (worker,) = spark.child_processes({jvm.pid})
        assert spark.lower_priority(SPARK_NICE) >= 2
        assert os.getpriority(os.PRIO_PROCESS, jvm.pid) == SPARK_NICE
        assert os.getpriority(os.PRIO_PROCESS, worker) == SPARK_NICE
        assert os.getpriority(os.PRIO_PROCESS, other.pid) == os.getpriority(os.PRIO_PROCESS, 0)
        assert spark.lower_priority(SPARK_NICE) == 0  # already there
    finally:
        for p in (jvm, other):
            p.kill()
            p.wait()


# -- background placements nobody waits for any more --------------------------------------


def test_a_queued_placement_nobody_asks_for_any_more_is_dropped_unstarted():
    started, release = [], threading.Event()

    def run(key):
        started.append(key)
        release.wait(10)

    pool = PlacementPool(run, threads=1, waiting=4, stale_s=0.2)
    try:
        pool.request("busy")  # holds the only thread
        wait_for(lambda: started == ["busy"])
        pool.request("edited away")  # asked once, then the page moved on
        pool.request("still wanted")
        wanted = threading.Thread(target=pool.wait, args=("waited for", 10))
        wanted.start()  # a request waiting for it keeps it
        deadline = time.monotonic() + 0.5
        while time.monotonic() < deadline:  # a pending panel's poll
            assert pool.status("still wanted").state == "queued"
            time.sleep(0.05)
        release.set()
        assert pool.wait("still wanted", 10).ready
        assert pool.wait("waited for", 10).ready
        wanted.join()
    finally:
        release.set()
    assert started == ["busy", "still wanted", "waited for"] and pool.dropped == 1
    assert pool.status("edited away").state == REFUSED  # forgotten: not asked for
    assert pool.wait("edited away", 10).ready  # asked again, placed again
    assert started[-1] == "edited away"


def test_the_panels_background_placements_are_evaluated_as_background_ones(monkeypatch):
    asked = []
    monkeypatch.setattr(compute, "evaluate_in_background", lambda *key: asked.append(key))
    key = ("scenario text", "slotscope", "{}", 1000.0)  # unique to this test: never done
    assert jobs.placements.wait(key, 10).ready
    assert asked == [key]  # in a search process when they run, never with the page's work

"""The Spark job runner: local mode, progress, cancellation, a real standalone cluster."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from core import spark as runner
from core.comparison import compare, comparison_tasks, placement_key, run_task
from core.presets import preset

SETTINGS = {"rates": [400.0, 800.0], "replicas": 2, "tuples": 4000, "seed": 7}


def run_comparison(scenario, schedulers, group=None, progress=None, **settings):
    """A comparison as one Spark job (what the CLI and the dashboard run)."""
    mapper = functools.partial(runner.map_tasks, group=group, progress=progress, key=placement_key)
    return compare(scenario, schedulers, mapper=mapper, engine=runner.engine_info(), **settings)


def _strip_timing(rows):
    return [{k: v for k, v in r.items() if k != "placement_ms"} for r in rows]


def test_comparison_is_one_task_per_scheduler_rate_replica(spark):
    seen = []
    doc = run_comparison(
        preset("lf-diamond"),
        [("even", {})],
        progress=lambda d, t: seen.append((d, t)),
        **SETTINGS,
    )
    assert doc["engine"]["tasks"] == 4
    assert doc["engine"]["master"] == "local[2]"
    rows = doc["results"]
    assert [(r["rate"], r["replica"]) for r in rows] == [(400, 0), (400, 1), (800, 0), (800, 1)]
    assert seen[-1] == (4, 4)
    assert all(d <= t for d, t in seen)


def test_spark_results_equal_the_plain_task_function(spark):
    sc = preset("lf-diamond")
    doc = run_comparison(sc, [("even", {})], **SETTINGS)
    direct = [run_task(t) for t in comparison_tasks(sc, [("even", {})], **SETTINGS)]
    assert _strip_timing(doc["results"]) == _strip_timing(direct)


def test_map_tasks_returns_plain_values_in_order(spark):
    texts = [json.dumps({"task": i, "rows": [i, i * i]}) for i in range(5)]
    out = runner.map_tasks(json.loads, texts)
    assert out == [{"task": i, "rows": [i, i * i]} for i in range(5)]
    assert all(type(r) is dict for r in out)


def test_task_batches_are_runs_of_equal_keys_cut_so_every_core_gets_two():
    tasks = [("a", 0), ("a", 1), ("b", 2), ("a", 3)] + [("c", i) for i in range(4, 12)]
    first = lambda t: t[0]  # noqa: E731
    assert runner.task_batches(tasks, None, 2) == [[t] for t in tasks]
    batches = runner.task_batches(tasks, first, 1)  # at most 12 // 2 = 6 tasks a batch
    assert batches == [tasks[0:2], tasks[2:3], tasks[3:4], tasks[4:10], tasks[10:12]]
    batches = runner.task_batches(tasks, first, 2)  # at most 12 // 4 = 3
    assert [len(b) for b in batches] == [2, 1, 1, 3, 3, 2]
    assert [t for b in batches for t in b] == tasks
    assert runner.task_batches(tasks[:2], first, 8) == [[tasks[0]], [tasks[1]]]


def test_a_batch_runs_in_order_in_one_worker_and_progress_counts_tasks(spark):
    tasks = [(k, i) for i, k in enumerate("aaabbbcccdde")]
    seen = []
    out = runner.map_tasks(
        lambda t: (t, os.getpid()),
        tasks,
        key=lambda t: t[0],
        progress=lambda d, t: seen.append((d, t)),
    )
    assert [t for t, _ in out] == tasks
    batches = runner.task_batches(tasks, lambda t: t[0], spark.sparkContext.defaultParallelism)
    assert len(batches) < len(tasks)  # some runs of equal keys share a Spark task
    pid = dict(out)
    assert all(len({pid[t] for t in batch}) == 1 for batch in batches)
    assert seen[-1] == (12, 12)
    assert all(d <= t == 12 for d, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_with_placement_keys_a_comparison_gives_the_rows_of_one_task_each(spark):
    sc = preset("lf-diamond")
    schedulers = [("even", {}), ("lf", {})]
    one_each = functools.partial(runner.map_tasks, key=None)
    doc = run_comparison(sc, schedulers, **SETTINGS)
    plain = compare(sc, schedulers, mapper=one_each, **SETTINGS)
    assert _strip_timing(doc["results"]) == _strip_timing(plain["results"])


def test_cancel_stops_a_long_job(spark):
    group = "test-cancel"
    outcome = {}

    def work():
        try:
            run_comparison(
                preset("lf-star-x10"),
                [("even", {})],
                rates=[500.0] * 8,
                replicas=4,
                tuples=400_000,
                group=group,
            )
            outcome["result"] = "finished"
        except runner.JobCancelled:
            outcome["result"] = "cancelled"

    thread = threading.Thread(target=work)
    start = time.perf_counter()
    thread.start()
    time.sleep(2.0)
    runner.cancel(group)
    thread.join(60)
    assert outcome.get("result") == "cancelled"
    assert time.perf_counter() - start < 30
    # the session is still usable afterwards
    doc = run_comparison(preset("lf-linear"), [("even", {})], rates=[100.0], tuples=2000)
    assert len(doc["results"]) == 1


def test_missing_java_is_one_line_with_the_fix(monkeypatch):
    monkeypatch.setattr(runner.shutil, "which", lambda _: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(runner.SparkUnavailable, match="apt-get install openjdk-17-jre-headless"):
        runner._check_java()


def test_unreachable_master_is_one_clear_error():
    with pytest.raises(runner.SettingsError, match="cannot reach the Spark master"):
        runner._check_master_reachable("spark://127.0.0.1:1")


# a real standalone cluster: master and one worker from pyspark's spark-class


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


@pytest.fixture(scope="module")
def standalone_master(tmp_path_factory):
    """A Spark master and one worker on 127.0.0.1, stopped whatever happens."""
    port, ui, worker_ui = _free_port(), _free_port(), _free_port()
    logs = tmp_path_factory.mktemp("spark-cluster")
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_WORKER_DIR": str(logs / "work"),
        "SPARK_LOG_DIR": str(logs),
    }
    url = f"spark://127.0.0.1:{port}"
    daemons = {
        "master": [
            "org.apache.spark.deploy.master.Master",
            "--port",
            str(port),
            "--webui-port",
            str(ui),
        ],
        "worker": [
            "org.apache.spark.deploy.worker.Worker",
            url,
            "--cores",
            "2",
            "--memory",
            "2g",
            "--webui-port",
            str(worker_ui),
        ],
    }
    procs = []
    try:
        for name, args in daemons.items():
            with open(logs / f"{name}.log", "w") as log:
                procs.append(
                    subprocess.Popen(
                        [_spark_class(), *args, "--host", "127.0.0.1"],
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        deadline = time.time() + 90
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=2) as resp:
                    if json.load(resp).get("aliveworkers", 0) >= 1:
                        break
            except OSError:
                pass
            time.sleep(1)
        else:
            pytest.fail(f"the standalone Spark cluster did not start; logs in {logs}")
        yield url
    finally:
        for p in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, 15)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)


@pytest.mark.cluster
def test_standalone_cluster_gives_the_same_results_as_local_mode(spark, standalone_master):
    sc = preset("lf-diamond")
    local = run_comparison(sc, [("even", {})], **SETTINGS)
    cmd = [
        sys.executable,
        "-m",
        "core",
        "simulate",
        "lf-diamond",
        "--scheduler",
        "even",
        "--master",
        standalone_master,
        "--json",
        "--replicas",
        "2",
        "--tuples",
        "4000",
        "--seed",
        "7",
        "--rate",
        "400",
        "--rate",
        "800",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    remote = json.loads(proc.stdout)
    assert remote["engine"]["master"] == standalone_master
    assert _strip_timing(remote["results"]) == _strip_timing(local["results"])


def test_placements_that_cannot_be_made_are_listed_apart(spark):
    doc = run_comparison(
        preset("wordcount"),
        [("even", {}), ("optimal", {"method": "enumerate", "limit": 10})],
        rates=[1000.0],
        tuples=2000,
    )
    assert [r["scheduler"] for r in doc["results"]] == ["even"]
    assert all({"throughput", "latency_ms", "max_rate"} <= set(r) for r in doc["results"])
    [skipped] = doc["skipped"]
    assert skipped["scheduler"] == "optimal" and skipped["status"] == "refused"
    assert "search space has at least" in skipped["message"]

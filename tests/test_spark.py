"""The Spark job runner: local mode, progress, cancellation, a real standalone cluster."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from types import SimpleNamespace

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


def test_kept_workers_get_a_keep_alive_job_until_no_job_ran_for_the_window(spark, monkeypatch):
    """Spark ends Python workers idle for a minute (their imports and memos with them):
    keep_workers runs a one-task job in its own group every KEEP_WORKERS_EVERY_S meanwhile,
    and stops once KEEP_WORKERS_FOR_S pass with no job. A keeper already running (an
    earlier Simulate's, at the 40 s interval) takes a new interval within a tick."""
    runner.keep_workers()
    monkeypatch.setattr(runner, "KEEP_WORKERS_EVERY_S", 0.2)
    tracker = spark.sparkContext.statusTracker()
    before = len(tracker.getJobIdsForGroup(runner.KEEP_GROUP))
    assert runner.keep_workers() and runner.keeping_workers()
    deadline = time.monotonic() + 30
    while len(tracker.getJobIdsForGroup(runner.KEEP_GROUP)) < before + 2:
        assert time.monotonic() < deadline, "no keep-alive job within 30 s"
        time.sleep(0.1)
    assert runner.map_tasks(abs, [-1, 2]) == [1, 2]  # jobs run as ever meanwhile
    monkeypatch.setattr(runner, "KEEP_WORKERS_FOR_S", 0.0)
    while runner.keeping_workers():
        assert time.monotonic() < deadline + 30, "the keeper did not stop"
        time.sleep(0.1)


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


def test_a_cancel_sent_before_the_job_reaches_spark_still_ends_it(spark, tmp_path):
    # Cancel pressed while the job is starting: Spark has no task of the group yet, so the
    # first cancelJobGroup finds nothing; the job must end all the same
    group = "test-cancel-before-submission"
    done = tmp_path / "done.txt"

    def slow(i):
        time.sleep(1.0)
        with open(done, "a") as out:
            out.write(f"{i}\n")
        return i

    runner.cancel(group)
    with pytest.raises(runner.JobCancelled):
        runner.map_tasks(slow, list(range(20)), group=group, key=None)
    finished = done.read_text().split() if done.exists() else []
    assert len(finished) < 20  # ended, not run to the end and then called cancelled
    assert runner.map_tasks(int, ["1", "2"]) == [1, 2]  # the session goes on


def test_missing_java_is_one_line_with_the_fix(monkeypatch):
    monkeypatch.setattr(runner.shutil, "which", lambda _: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(runner.SparkUnavailable, match="apt-get install openjdk-17-jre-headless"):
        runner.check_java()


@pytest.mark.parametrize(
    ("master", "reason"),
    [
        ("local[0]", r"local\[0\]: local\[N\] needs N between 1 and 1024"),
        ("local[2,0]", "needs F >= 1"),
        ("k8s://https://10.0.0.1:443", "YARN, Kubernetes and Mesos masters are not supported"),
        ("yarn", "not supported"),
        ("spark://127.0.0.1", "expected spark://HOST:PORT"),
        ("spark://127.0.0.1:70000", "has no valid port"),
        ("spark://127.0.0.1:1", "127.0.0.1:1: connection refused"),
    ],
)
def test_a_master_slotscope_cannot_use_is_refused_with_its_reason(master, reason):
    with pytest.raises(runner.SettingsError, match=reason) as err:
        runner.check_master(master)
    assert err.value.field == "Spark master"


def test_local_masters_pass_the_check_without_a_network():
    for master in ("local", "local[1]", "local[*]", "local[4,2]", "local[1024]"):
        runner.check_master(master)


def test_a_task_that_raises_ends_the_job_with_its_own_reason(spark):
    with pytest.raises(runner.TaskFailed) as err:
        runner.map_tasks(int, ["1", "2", "three"])
    assert str(err.value) == (
        "a task of the Spark job failed: ValueError: invalid literal for int() with base 10: "
        "'three'"
    )
    assert runner.map_tasks(int, ["1", "2"]) == [1, 2]  # the session goes on


class _Tracker:
    """Spark's status tracker as the watcher reads it: job 1 of group g (stage 10), job 2 of
    another group (stage 20); tasks as (total, active, completed) per stage."""

    def __init__(self, stages: dict[int, tuple[int, int, int]]):
        self.stages = stages

    def getJobIdsForGroup(self, group):  # noqa: N802 (Spark's names)
        return [1] if group == "g" else [2]

    def getJobInfo(self, job_id):  # noqa: N802
        return SimpleNamespace(status="RUNNING", stageIds=[10 if job_id == 1 else 20])

    def getStageInfo(self, stage_id):  # noqa: N802
        if stage_id not in self.stages:
            return None
        total, active, completed = self.stages[stage_id]
        return SimpleNamespace(numTasks=total, numActiveTasks=active, numCompletedTasks=completed)

    def getActiveStageIds(self):  # noqa: N802
        return list(self.stages)


def _left(stages):
    sc = SimpleNamespace(statusTracker=lambda: _Tracker(stages))
    return runner._tasks_left(sc, "g")


def test_a_job_waiting_behind_another_jobs_running_tasks_is_not_idle():
    # (running anywhere, waiting of g, begun of g)
    assert _left({}) is None  # no stage of g yet
    assert _left({10: (6, 0, 0)}) == (0, 6, 0)  # nothing runs: idle, not begun
    assert _left({10: (6, 0, 0), 20: (4, 2, 1)}) == (2, 6, 0)  # waits its turn: not idle
    assert _left({10: (6, 2, 3), 20: (4, 0, 4)}) == (2, 1, 5)
    assert _left({10: (6, 0, 3)}) == (0, 3, 3)  # begun, then nothing runs: a stall


# a real standalone cluster: master and worker from pyspark's spark-class


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


class Cluster:
    """A Spark master and workers on 127.0.0.1 (each daemon in a process group of its own,
    so a worker and its executors can be killed together)."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.port, self.ui = _free_port(), _free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": sys.executable,
            "SPARK_WORKER_DIR": str(logs / "work"),
            "SPARK_LOG_DIR": str(logs),
        }
        self.procs: list[subprocess.Popen] = []
        self.worker: subprocess.Popen | None = None

    def _start(self, name: str, args: list[str]) -> subprocess.Popen:
        with open(self.logs / f"{name}-{len(self.procs)}.log", "w") as log:
            proc = subprocess.Popen(
                [_spark_class(), *args, "--host", "127.0.0.1"],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def start_master(self) -> None:
        master = "org.apache.spark.deploy.master.Master"
        self._start("master", [master, "--port", str(self.port), "--webui-port", str(self.ui)])

    def start_worker(self) -> None:
        """One worker of 2 cores; returns once the master counts it alive."""
        worker = "org.apache.spark.deploy.worker.Worker"
        args = [worker, self.url, "--cores", "2", "--memory", "2g"]
        self.worker = self._start("worker", [*args, "--webui-port", str(_free_port())])
        self._wait_for_workers(1)

    def _wait_for_workers(self, count: int) -> None:
        deadline = time.time() + 120
        while time.time() < deadline:
            with contextlib.suppress(OSError, ValueError):
                url = f"http://127.0.0.1:{self.ui}/json/"
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if json.load(resp).get("aliveworkers", 0) == count:
                        return
            time.sleep(1)
        pytest.fail(f"the cluster did not get to {count} live worker(s); logs in {self.logs}")

    def executors(self) -> list[int]:
        """Process ids of the executor JVMs the current worker runs."""
        assert self.worker is not None
        out = subprocess.run(
            ["pgrep", "-g", str(self.worker.pid), "-f", "CoarseGrainedExecutorBackend"],
            capture_output=True,
            text=True,
        ).stdout
        return [int(pid) for pid in out.split()]

    def wait_for_executor(self, timeout_s: float = 180) -> int:
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if found := self.executors():
                return found[0]
            time.sleep(0.5)
        pytest.fail(f"no executor started; logs in {self.logs}")

    def wait_for_tasks(self, timeout_s: float = 180) -> None:
        """Until the worker's executor runs Python tasks (its pyspark.daemon is up)."""
        assert self.worker is not None
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            found = subprocess.run(
                ["pgrep", "-g", str(self.worker.pid), "-f", "pyspark.daemon"],
                capture_output=True,
            )
            if found.returncode == 0:
                return
            time.sleep(0.5)
        pytest.fail(f"no task started; logs in {self.logs}")

    def kill_worker(self) -> None:
        """SIGKILL the worker and its executors (its process group), as a lost machine."""
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)  # a stopped process too
        self.worker.wait(20)
        self.worker = None
        self._wait_for_workers(0)

    def stop(self) -> None:
        for p in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, 15)
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A standalone master and one worker, stopped whatever happens."""
    running = Cluster(tmp_path_factory.mktemp("spark-cluster"))
    try:
        running.start_master()
        running.start_worker()
        yield running
    finally:
        running.stop()


def _simulate(master: str, *flags: str, env: dict | None = None, wait: bool = True):
    cmd = [sys.executable, "-m", "core", "simulate", *flags, "--master", master, "--json"]
    if wait:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


SMALL = ["lf-diamond", "--scheduler", "even", "--replicas", "2", "--tuples", "4000"]
SMALL += ["--seed", "7", "--rate", "400", "--rate", "800"]
# long enough (some seconds a task) to lose an executor or a worker in the middle
LONG = ["lf-star-x10", "--scheduler", "even", "--rate", "500", "--rate", "600"]
LONG += ["--tuples", "100000"]


@pytest.mark.cluster
def test_standalone_cluster_gives_the_same_results_as_local_mode(spark, cluster):
    local = run_comparison(preset("lf-diamond"), [("even", {})], **SETTINGS)
    proc = _simulate(cluster.url, *SMALL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # Spark's own lines went to its log file
    remote = json.loads(proc.stdout)
    assert remote["engine"]["master"] == cluster.url
    assert _strip_timing(remote["results"]) == _strip_timing(local["results"])


@pytest.mark.cluster
def test_wrong_masters_are_refused_in_one_line_before_spark_starts(cluster):
    web_ui = f"spark://127.0.0.1:{cluster.ui}"  # an open port that is not Spark's
    with pytest.raises(runner.SettingsError, match=r"is not a Spark standalone master \(it sent"):
        runner.check_master(web_ui)
    runner.check_master(cluster.url)
    runner.check_master(f"spark://127.0.0.1:1,127.0.0.1:{cluster.port}")  # one of HA's answers
    proc = _simulate(web_ui, "lf-linear")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"slotscope: --master: no Spark master answers at {web_ui}")
    assert proc.stderr.count("\n") == 1


@pytest.mark.cluster
def test_a_killed_executor_is_replaced_and_the_results_are_the_same(spark, cluster):
    settings = {"rates": [500.0, 600.0], "tuples": 100_000}
    local = run_comparison(preset("lf-star-x10"), [("even", {})], **settings)
    job = _simulate(cluster.url, *LONG, wait=False)
    first = cluster.wait_for_executor()
    time.sleep(3)  # its tasks are under way
    assert job.poll() is None
    os.kill(first, 9)
    out, err = job.communicate(timeout=300)
    assert job.returncode == 0, err
    assert _strip_timing(json.loads(out)["results"]) == _strip_timing(local["results"])


_ENDED = (  # the one line of a job whose tasks began, then had no executor for 5 s
    r"slotscope: the Spark job was ended: [12] of its tasks waited 5 s with none running; "
    r"the cluster at {url} has no live executor \(a lost worker, or no free cores\?\)\n"
)


@pytest.mark.cluster
def test_a_lost_worker_ends_the_job_with_one_line_and_a_new_worker_serves_again(cluster):
    env = {**os.environ, runner.STALL_ENV: "5"}
    job = _simulate(cluster.url, *LONG, env=env, wait=False)
    cluster.wait_for_tasks()
    assert job.poll() is None
    cluster.kill_worker()
    out, err = job.communicate(timeout=240)
    assert job.returncode == 2 and out == ""
    assert re.fullmatch(_ENDED.format(url=re.escape(cluster.url)), err), err
    cluster.start_worker()
    proc = _simulate(cluster.url, *SMALL)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.cluster
def test_a_partitioned_worker_is_lost_by_its_silence_and_the_job_ends_with_one_line(cluster):
    """SIGSTOP on the worker and its executors: their connections stay open, nothing
    answers, as behind a network partition. The driver loses the executor after
    spark.network.timeout without a heartbeat (12 s here, 30 s by default), then the
    stall ends the job."""
    env = {**os.environ, runner.STALL_ENV: "5", runner.NETWORK_TIMEOUT_ENV: "12"}
    job = _simulate(cluster.url, *LONG, env=env, wait=False)
    cluster.wait_for_tasks()
    assert job.poll() is None
    assert cluster.worker is not None
    os.killpg(cluster.worker.pid, signal.SIGSTOP)
    try:
        out, err = job.communicate(timeout=240)
    finally:
        cluster.kill_worker()
    assert job.returncode == 2 and out == ""
    assert re.fullmatch(_ENDED.format(url=re.escape(cluster.url)), err), err
    cluster.start_worker()  # for the tests after this one


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


@pytest.mark.parametrize(("value", "expected"), [("12", 12.0), ("9", 30.0), ("abc", 30.0)])
def test_the_network_timeout_is_shortened_only_to_two_heartbeats_or_more(
    monkeypatch, value, expected
):
    monkeypatch.setenv(runner.NETWORK_TIMEOUT_ENV, value)
    assert runner.network_timeout_s() == expected
    assert runner.HEARTBEAT_S == 5  # two heartbeats: 10 s

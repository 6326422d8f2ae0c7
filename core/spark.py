"""The Spark job runner: the only module of ``core`` that imports pyspark.

A leaf: it knows sessions, jobs and tasks, nothing of what the tasks compute.
One lazily created SparkSession per process (master from the argument, else
``SLOTSCOPE_SPARK_MASTER``, else ``local[*]``; Spark's UI off, logs quiet,
bound to 127.0.0.1). :func:`map_tasks` is ``[func(t) for t in tasks]`` as one
job over an RDD, one Spark task per task or per batch of tasks sharing a key,
plain values in and out; it is the mapper the comparison
(``core.comparison.compare``) and the searches take. Progress (tasks done)
comes from an accumulator and cancellation goes through the job group.
``core`` is shipped to executors as a zip, so a real cluster runs the same
code.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import uuid
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from core.settings import MASTER, SettingsError

DEFAULT_MASTER = "local[*]"
MASTER_ENV = "SLOTSCOPE_SPARK_MASTER"
PROGRESS_POLL_S = 0.2
MASTER_CONNECT_TIMEOUT_S = 3.0
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")  # Spark's JVM logs: errors only


class SparkUnavailable(RuntimeError):
    """Spark cannot start here (no Java, unreachable master); one line says why."""


class JobCancelled(RuntimeError):
    """The job group was cancelled."""


class _Holder:
    """The process's one SparkSession, created on first use, never at import."""

    lock = threading.RLock()
    session: Any = None
    master: str | None = None
    cancelled: set[str] = set()


def resolve_master(master: str | None = None) -> str:
    return master or os.environ.get(MASTER_ENV) or DEFAULT_MASTER


def _check_java() -> None:
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") or (java_home and Path(java_home, "bin", "java").exists()):
        return
    raise SparkUnavailable(
        "Java 17+ is needed for Spark and was not found: "
        "apt-get install openjdk-17-jre-headless (or set JAVA_HOME)"
    )


def _check_master_reachable(master: str) -> None:
    if not master.startswith("spark://"):
        return
    for hostport in master[len("spark://") :].split(","):
        url = urlparse(f"spark://{hostport}")
        try:
            with socket.create_connection(
                (url.hostname or "", url.port or 7077), timeout=MASTER_CONNECT_TIMEOUT_S
            ):
                return
        except OSError as err:
            reason = err.strerror or str(err)
    raise SettingsError(MASTER, f"cannot reach the Spark master at {master} ({reason})")


def _core_zip() -> str:
    """A zip of the ``core`` package for executors on other machines."""
    src = Path(__file__).resolve().parent
    target = Path(tempfile.gettempdir()) / f"slotscope-core-{os.getpid()}.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(src.rglob("*.py")):
            zf.write(path, Path("core") / path.relative_to(src))
    return str(target)


def get_session(master: str | None = None):
    """The process's SparkSession, created on first call (or when the master changes)."""
    wanted = resolve_master(master)
    with _Holder.lock:
        if _Holder.session is not None and _Holder.master == wanted:
            return _Holder.session
        if _Holder.session is not None:
            _Holder.session.stop()
            _Holder.session = None
        _check_java()
        _check_master_reachable(wanted)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        from pyspark.sql import SparkSession

        builder = (
            SparkSession.builder.master(wanted)
            .appName("slotscope")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.python.worker.reuse", "true")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
            .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG_CONFIG}")
            .config("spark.executor.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG_CONFIG}")
        )
        try:
            session = builder.getOrCreate()
        except Exception as err:
            raise SparkUnavailable(f"Spark did not start on {wanted}: {_first_line(err)}") from None
        session.sparkContext.setLogLevel("ERROR")
        if not wanted.startswith("local"):
            session.sparkContext.addPyFile(_core_zip())
        _Holder.session, _Holder.master = session, wanted
        return session


def stop_session() -> None:
    with _Holder.lock:
        if _Holder.session is not None:
            _Holder.session.stop()
        _Holder.session, _Holder.master = None, None


def engine_info(master: str | None = None) -> dict[str, Any]:
    """What runs the jobs: master URL, Spark version, default parallelism."""
    sc = get_session(master).sparkContext
    return {
        "master": sc.master,
        "spark_version": sc.version,
        "default_parallelism": sc.defaultParallelism,
    }


def _first_line(err: BaseException) -> str:
    """The telling line of an error: a Python task's own exception when there is one."""
    text = str(err).strip()
    if not text:
        return type(err).__name__
    raised = re.findall(r"^(\w+(?:Error|Exception): .+)$", text, flags=re.MULTILINE)
    python = [line for line in raised if not line.startswith(("org.", "java.", "Py4J"))]
    return python[-1] if python else text.splitlines()[0]


def cancel(job_group: str) -> None:
    """Cancel a running job by its group."""
    with _Holder.lock:
        _Holder.cancelled.add(job_group)
        if _Holder.session is not None:
            _Holder.session.sparkContext.cancelJobGroup(job_group)


def map_tasks(
    func: Callable[[Any], Any],
    tasks: Sequence[Any],
    group: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    master: str | None = None,
    key: Callable[[Any], Any] | None = None,
) -> list[Any]:
    """``[func(t) for t in tasks]`` as one Spark job, in order.

    ``func`` must be a plain importable function returning plain values (e.g.
    ``core.comparison.run_task``, or ``optimal``'s solve or search tasks): the
    rows come back as they are, with no DataFrame in between.
    Progress (tasks done, total) goes to ``progress`` when given.

    Each task is one Spark task, unless ``key`` is given: then consecutive
    tasks with equal ``key(task)`` (as in :func:`itertools.groupby`) run as one
    Spark task (see :func:`task_batches`), one after the other in one Python
    worker, so whatever that worker caches for the first (e.g.
    ``core.comparison``'s placement for the replicas of a (scheduler, rate))
    serves the others, and fewer Spark tasks pay Spark's per-task cost.
    ``key`` runs on the driver only.

    Raises
    ------
    JobCancelled
        :func:`cancel` was called with this group.
    SparkUnavailable
        Spark cannot start (no Java, bad master), or a task failed.
    """
    session = get_session(master)
    group = group or f"slotscope-{uuid.uuid4().hex[:12]}"
    batches = task_batches(tasks, key, session.sparkContext.defaultParallelism)
    done = session.sparkContext.accumulator(0)  # tasks finished, added as their batch ends

    def job() -> list[Any]:
        sc = session.sparkContext
        sc.setJobGroup(group, "slotscope", interruptOnCancel=True)
        try:
            rdd = sc.parallelize(batches, numSlices=max(1, len(batches)))
            return rdd.flatMap(functools.partial(_run_batch, func, done)).collect()
        finally:
            sc.setLocalProperty("spark.jobGroup.id", None)

    return _watch(session, job, group, len(tasks), progress, lambda: done.value)


def task_batches(
    tasks: Sequence[Any], key: Callable[[Any], Any] | None, parallelism: int
) -> list[list[Any]]:
    """The tasks cut into Spark tasks, in order: one each without ``key``; else the runs of
    equal keys, each cut into pieces of at most ``len(tasks) // (2 * parallelism)`` tasks,
    so that a long run (e.g. many replicas of one placement) still spreads over every
    core (each piece then pays its worker's cache miss once)."""
    if key is None:
        return [[t] for t in tasks]
    most = max(1, len(tasks) // (2 * max(1, parallelism)))
    out: list[list[Any]] = []
    for _, run in itertools.groupby(tasks, key):
        run = list(run)
        out += [run[i : i + most] for i in range(0, len(run), most)]
    return out


def _run_batch(func: Callable[[Any], Any], done, batch: list[Any]) -> list[Any]:
    """One Spark task: ``func`` over a batch of tasks, in order (runs on an executor)."""
    out = [func(t) for t in batch]
    done.add(len(batch))
    return out


def _watch(session, job, group: str, total: int, report, done: Callable[[], int]) -> Any:
    """Run ``job`` in a thread, reporting progress until it ends; its result."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["result"] = job()
        except BaseException as err:  # handed to the caller's thread below
            outcome["error"] = err

    worker = threading.Thread(target=work, name=f"spark-{group}", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(PROGRESS_POLL_S)
        if report is not None:
            report(min(done(), total), total)
    with _Holder.lock:
        was_cancelled = group in _Holder.cancelled
        _Holder.cancelled.discard(group)
    if was_cancelled:
        raise JobCancelled(f"job {group} was cancelled")
    if "error" in outcome:
        raise SparkUnavailable(f"the Spark job failed: {_first_line(outcome['error'])}")
    if report is not None:
        report(total, total)
    return outcome["result"]

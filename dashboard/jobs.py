"""The server's job pool: Spark comparisons run in threads of this process.

One warm SparkSession lives in the server process (``core.spark``); a job
is a call to :func:`core.comparison.compare` with Spark's mapper
(:func:`spark_compare`) in one of a few pool threads,
with its job id as the Spark job group, so Cancel is
``core.spark.cancel(job_id)``. The browser polls :meth:`JobPool.status`.
Results go into the Flask cache (FileSystemCache) under a hash of the
scenario and settings, so repeating a run is instant. Never a py4j session
in a forked process: see DESIGN.md, "Spark".
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from flask import current_app

from core import spark
from core.comparison import compare, explain_failure, placement_key
from core.model import Scenario
from core.presets import preset
from core.settings import SettingsError

log = logging.getLogger(__name__)

EXTENSION = "slotscope_jobs"  # key of the pool in the Flask app's extensions
MASTER_CONFIG = "SLOTSCOPE_SPARK_MASTER"  # Flask config: the Spark master (None: default)
WARM_ON_VISIT_CONFIG = "SLOTSCOPE_WARM_ON_VISIT"  # Flask config: warm Spark on the first page

Progress = Callable[[int, int], None]
Work = Callable[[str, Progress], dict[str, Any]]

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
FINISHED = (DONE, FAILED, CANCELLED)
KEEP_JOBS = 64  # finished jobs remembered for polling


def warm_up(master: str | None = None) -> None:
    """Start the SparkSession and its Python workers with one tiny comparison.

    A cold worker spends seconds importing numpy and the core; this pays it
    before the first Simulate. Raises ``core.spark.SparkUnavailable``.
    """
    workers = spark.get_session(master).sparkContext.defaultParallelism
    rates = [1000.0 * (i + 1) for i in range(workers)]
    spark_compare(preset("lf-linear"), [("even", {})], rates, 1, 1000, master=master)


def spark_compare(
    scenario: Scenario,
    schedulers: Sequence[tuple[str, Mapping[str, Any]]],
    rates: Sequence[float],
    replicas: int,
    tuples: int,
    seed: int = 0,
    master: str | None = None,
    group: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """:func:`core.comparison.compare` as one Spark job on ``master``, in job group ``group``."""
    mapper = functools.partial(
        spark.map_tasks, group=group, progress=progress, master=master, key=placement_key
    )
    engine = spark.engine_info(master)
    return compare(scenario, schedulers, rates, replicas, tuples, seed, mapper, engine)


def settings_key(scenario: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    """The cache key of a comparison: a hash of the scenario and every setting."""
    text = json.dumps({"scenario": scenario, "settings": settings}, sort_keys=True)
    return "comparison-" + hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Job:
    id: str
    key: str
    state: str = QUEUED
    done: int = 0
    total: int = 0
    message: str = ""
    cached: bool = False
    result: dict[str, Any] | None = None
    started: float = 0.0
    finished: float = 0.0

    def snapshot(self) -> dict[str, Any]:
        end = self.finished or time.time()
        return {
            "id": self.id,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "message": self.message,
            "cached": self.cached,
            "elapsed_s": round(end - self.started, 2) if self.started else 0.0,
        }


class JobPool:
    """A few threads running comparisons, with progress, cancellation and a result cache."""

    def __init__(self, cache: Any, max_workers: int = 2):
        self._cache = cache
        self._max_workers = max_workers
        self._executor = ThreadPoolExecutor(max_workers, thread_name_prefix="slotscope-job")
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._warming = False

    def prestart(self) -> None:
        """Start every pool thread now (dash_duo kills threads started after its server)."""
        barrier = threading.Barrier(self._max_workers)
        futures = [self._executor.submit(barrier.wait, 10) for _ in range(self._max_workers)]
        for f in futures:
            f.result()

    def warm(self, master: str | None = None) -> None:
        """Warm Spark up in a pool thread (see :func:`warm_up`), once, so the first Simulate
        is fast."""
        with self._lock:
            if self._warming:
                return
            self._warming = True

        def start() -> None:
            try:
                warm_up(master)
            except Exception as err:
                log.warning("Spark did not start: %s", explain_failure(err))

        self._executor.submit(start)

    def submit(self, key: str, work: Work) -> str:
        """Run ``work(job_id, progress)`` in the pool, or answer from the cache at once."""
        job = Job(id=f"job-{uuid.uuid4().hex[:12]}", key=key, started=time.time())
        cached = self._cache.get(key)
        with self._lock:
            self._forget_old()
            self._jobs[job.id] = job
        if cached is not None:
            total = cached.get("engine", {}).get("tasks", 0)
            job.cached = True
            self._finish(job, DONE, "", result=cached, done=total, total=total)
            return job.id
        self._executor.submit(self._run, job, work)
        return job.id

    def _run(self, job: Job, work: Work) -> None:
        if job.state == CANCELLED:
            return
        job.state = RUNNING

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        try:
            result = work(job.id, progress)
        except spark.JobCancelled:
            self._finish(job, CANCELLED, "Simulation cancelled.")
            return
        except (spark.SparkUnavailable, SettingsError) as err:
            self._finish(job, FAILED, str(err))
            return
        except Exception as err:
            log.exception("job %s failed", job.id)
            self._finish(job, FAILED, f"Simulation failed: {explain_failure(err)}")
            return
        try:
            self._cache.set(job.key, result)
        except Exception:
            log.exception("could not cache the result of %s", job.id)
        self._finish(job, DONE, "", result=result, done=job.total, total=job.total)

    def _finish(
        self,
        job: Job,
        state: str,
        message: str,
        result: dict | None = None,
        done: int | None = None,
        total: int | None = None,
    ) -> None:
        job.result = result
        if total is not None:
            job.done, job.total = done or 0, total
        job.message = message
        job.finished = time.time()
        job.state = state

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.state in FINISHED]
        for j in finished[: max(0, len(finished) - KEEP_JOBS)]:
            del self._jobs[j.id]

    def status(self, job_id: str) -> dict[str, Any] | None:
        job = self._jobs.get(job_id)
        return job.snapshot() if job else None

    def result(self, job_id: str) -> dict[str, Any] | None:
        job = self._jobs.get(job_id)
        return job.result if job else None

    def cancel(self, job_id: str) -> bool:
        """Cancel a queued or running job; False when it already finished."""
        job = self._jobs.get(job_id)
        if job is None or job.state in FINISHED:
            return False
        if job.state == QUEUED:
            self._finish(job, CANCELLED, "Simulation cancelled.")
            return True
        job.message = "Cancelling…"
        try:
            spark.cancel(job_id)
        except Exception as err:
            log.warning("cancel of %s failed: %s", job_id, explain_failure(err))
        return True


def install(server: Any, cache: Any, max_workers: int = 2) -> JobPool:
    """Give a Flask server its job pool (threads start on first use or ``prestart``)."""
    server.extensions[EXTENSION] = JobPool(cache, max_workers)
    return server.extensions[EXTENSION]


def job_pool(server: Any = None) -> JobPool:
    """The job pool of ``server``, or of the Flask app serving the current request."""
    if server is None:
        server = current_app
    return server.extensions[EXTENSION]

"""The server's job pool: Spark comparisons run in threads of this process.

One warm SparkSession lives in the server process (``core.spark``); a job
is a call to :func:`core.comparison.compare` with Spark's mapper
(:func:`spark_compare`) in one of a few pool threads,
with its job id as the Spark job group, so Cancel is
``core.spark.cancel(job_id)``. The browser polls :meth:`JobPool.status`.
Never a py4j session in a forked process (docs/architecture.md).

The queue is bounded: at most ``MAX_JOBS_PER_SESSION`` unfinished jobs per
browser session (a cookie, else the client's address) and ``MAX_JOBS`` in
all; a job beyond either ends at once, failed, with the limit in its message.

Results go into a :class:`ResultCache`: one JSON file per comparison in a
directory only this user can read or write (0700, see :func:`cache_dir`),
under a hash of the scenario, the settings, the package version and
``core.settings.MODEL_VERSION``, so repeating a run is instant, reading the
cache never executes anything, and an upgrade that changes the model never
serves the old figures.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import stat
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from flask import current_app, has_request_context, request
from flask_caching.backends.base import BaseCache

from core import spark
from core.comparison import compare, explain_failure, scheduler_key
from core.model import Scenario, ScenarioError
from core.placement import SchedulerError
from core.presets import preset
from core.settings import MODEL_VERSION, SettingsError
from dashboard import compute
from dashboard.transfer import check_dashboard_size

log = logging.getLogger(__name__)

EXTENSION = "slotscope_jobs"  # key of the pool in the Flask app's extensions
MASTER_CONFIG = "SLOTSCOPE_SPARK_MASTER"  # Flask config: the Spark master (None: default)
WARM_ON_VISIT_CONFIG = "SLOTSCOPE_WARM_ON_VISIT"  # Flask config: warm Spark on the first page

Progress = Callable[[int, int], None]
Work = Callable[[str, Progress], dict[str, Any]]

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
FINISHED = (DONE, FAILED, CANCELLED)
KEEP_JOBS = 64  # finished jobs remembered for polling
MAX_JOBS_PER_SESSION = 3  # unfinished simulations of one browser session (running or waiting)
MAX_JOBS = 30  # unfinished simulations of the whole server
SESSION_COOKIE = "slotscope_session"  # names a browser session for the per-session limit

# Spark's JVM and its Python workers run at this niceness (the server's own at 0): on a
# machine of few cores a simulation then takes the CPU the page's requests leave, and an
# edit's panels are not slowed by the simulations of other users. The background
# placements' search processes run at the same (``compute.SEARCH_NICE``).
SPARK_NICE = 10

CACHE_DIR_ENV = "SLOTSCOPE_CACHE_DIR"  # the result cache's directory (default: cache_dir())
CACHE_ENTRIES = 200  # comparisons kept on disk; the oldest go first
MAX_CACHED_BYTES = 64_000_000  # a larger result is served but not cached


def package_version() -> str:
    """slotscope's installed version ("unknown" when run from an uninstalled tree)."""
    try:
        return metadata.version("slotscope")
    except metadata.PackageNotFoundError:
        return "unknown"


PACKAGE_VERSION = package_version()


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
    """:func:`core.comparison.compare` as one Spark job on ``master``, in job group ``group``:
    a Spark task per scheduler (its rates in one worker, :func:`~core.comparison.scheduler_key`),
    the searches' started first."""
    mapper = functools.partial(
        spark.map_tasks, group=group, progress=progress, master=master, key=scheduler_key
    )
    engine = spark.engine_info(master)
    spark.keep_workers(master)  # Spark would end its idle workers, imports and memos, in 60 s
    spark.lower_priority(SPARK_NICE)  # the JVM and its Python workers yield to the page
    try:
        return compare(scenario, schedulers, rates, replicas, tuples, seed, mapper, engine)
    finally:
        spark.lower_priority(SPARK_NICE)  # Python workers Spark started during the job


def settings_key(scenario: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
    """The cache key of a comparison: a hash of the scenario, every setting, the package
    version and the model version (an upgrade never serves the old figures)."""
    text = json.dumps(
        {
            "scenario": scenario,
            "settings": settings,
            "package": PACKAGE_VERSION,
            "model": MODEL_VERSION,
        },
        sort_keys=True,
    )
    return "comparison-" + hashlib.sha256(text.encode()).hexdigest()


def cache_dir() -> Path:
    """Where results are cached: ``$SLOTSCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/slotscope``,
    else ``~/.cache/slotscope`` (never the shared temporary folder)."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "slotscope"


class CacheUnsafe(OSError):
    """The cache directory is not a directory of this user's that only this user can write."""


def private_dir(path: Path) -> Path:
    """``path`` as a directory only this user can use: created 0700, made 0700 if it is
    ours and looser; CacheUnsafe if it is a symlink, not a directory or another user's."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise CacheUnsafe(f"{path} is not a directory (a symlink or a file)")
    if info.st_uid != os.getuid():
        raise CacheUnsafe(f"{path} belongs to another user")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)
    return path


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a 0600 temporary file in the same
    directory, renamed over ``path`` (a reader never sees half a file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


class ResultCache(BaseCache):
    """Comparison results as JSON files in a private directory (see :func:`private_dir`):
    a Flask-Caching backend (``CACHE_TYPE = "dashboard.jobs.ResultCache"``).

    ``get`` answers None for anything it cannot trust: a missing, foreign, oversized,
    unparsable file or one written under another key. Nothing read is executed: JSON
    only (Flask-Caching's own file cache pickles). When the directory is unusable the
    cache stays empty (logged once).
    """

    @classmethod
    def factory(cls, app: Any, config: Mapping[str, Any], args: Any, kwargs: Any) -> ResultCache:
        """Flask-Caching's constructor hook: ``CACHE_DIR`` names the directory."""
        return cls(config.get("CACHE_DIR"))

    def __init__(self, directory: Path | str | None = None, entries: int = CACHE_ENTRIES):
        super().__init__(default_timeout=0)
        self._entries = entries
        self._lock = threading.Lock()
        try:
            self.directory: Path | None = private_dir(Path(directory or cache_dir()))
        except OSError as err:
            log.warning("results will not be cached: %s", err)
            self.directory = None

    def path_of(self, key: str) -> Path | None:
        """The file that holds ``key``'s value (None when the cache is off)."""
        if self.directory is None:
            return None
        return self.directory / (hashlib.sha256(key.encode()).hexdigest()[:40] + ".json")

    def get(self, key: str) -> Any:
        """The value stored under ``key``, or None."""
        path = self.path_of(key)
        if path is None:
            return None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            mine = info.st_uid == os.getuid() and stat.S_ISREG(info.st_mode)
            if not mine or info.st_size > MAX_CACHED_BYTES:
                return None
            raw = f.read(MAX_CACHED_BYTES + 1)
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(doc, dict) or doc.get("key") != key:
            return None
        return doc.get("value")

    def set(self, key: str, value: Any, timeout: int | None = None) -> bool:
        """Store ``value`` (JSON-ready) under ``key``; too large a value is not stored.
        Entries never expire (``timeout`` is Flask-Caching's, unused): a key names a
        package and model version, and the oldest files are pruned."""
        path = self.path_of(key)
        if path is None:
            return False
        text = json.dumps({"key": key, "value": value})
        if len(text) > MAX_CACHED_BYTES:
            return False
        write_private(path, text)
        self._prune()
        return True

    def _prune(self) -> None:
        assert self.directory is not None
        with self._lock:
            files = sorted(self.directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
            for old in files[: max(0, len(files) - self._entries)]:
                old.unlink(missing_ok=True)


def request_session() -> str | None:
    """The browser session of the request being served (its cookie, else its address)."""
    if not has_request_context():
        return None
    return request.cookies.get(SESSION_COOKIE) or request.remote_addr


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
    session: str | None = None

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

    def __init__(self, cache: ResultCache | Any, max_workers: int = 2):
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

    def submit(self, key: str, work: Work, session: str | None = None) -> str:
        """Run ``work(job_id, progress)`` in the pool, or answer from the cache at once.

        ``session`` (default: the request's, :func:`request_session`) counts toward
        ``MAX_JOBS_PER_SESSION``; a job over that or ``MAX_JOBS`` fails at once and
        says which limit it hit.
        """
        session = session or request_session()
        job = Job(id=f"job-{uuid.uuid4().hex[:12]}", key=key, started=time.time(), session=session)
        cached = self._cache.get(key)
        with self._lock:
            self._forget_old()
            refusal = None if cached is not None else self._refusal(session)
            self._jobs[job.id] = job
        if cached is not None:
            total = cached.get("engine", {}).get("tasks", 0)
            job.cached = True
            self._finish(job, DONE, "", result=cached, done=total, total=total)
            return job.id
        if refusal:
            self._finish(job, FAILED, refusal)
            return job.id
        self._executor.submit(self._run, job, work)
        return job.id

    def _refusal(self, session: str | None) -> str | None:
        """Why one more job may not be queued now, or None (call with the lock held)."""
        unfinished = [j for j in self._jobs.values() if j.state not in FINISHED]
        mine = [j for j in unfinished if session is not None and j.session == session]
        if len(mine) >= MAX_JOBS_PER_SESSION:
            return (
                f"Not queued: {len(mine)} of your simulations are running or waiting, "
                f"at most {MAX_JOBS_PER_SESSION}; wait for one or cancel it."
            )
        if len(unfinished) >= MAX_JOBS:
            return (
                f"Not queued: the server is running or holding {len(unfinished)} "
                f"simulations, at most {MAX_JOBS}; try again in a while."
            )
        return None

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


def install(server: Any, cache: ResultCache | Any, max_workers: int = 2) -> JobPool:
    """Give a Flask server its job pool (threads start on first use or ``prestart``)."""
    server.extensions[EXTENSION] = JobPool(cache, max_workers)
    return server.extensions[EXTENSION]


def job_pool(server: Any = None) -> JobPool:
    """The job pool of ``server``, or of the Flask app serving the current request."""
    if server is None:
        server = current_app
    return server.extensions[EXTENSION]


# -- Placements off the request threads -------------------------------------------------

SEARCH_THREADS = 2  # threads placing panels in the background (CP-SAT and local searches)
MAX_PLACEMENTS_WAITING = 16  # background placements running or queued, at most
PLACEMENTS_REMEMBERED = 512  # finished background placements remembered as ready
# A queued placement nobody has asked for in this long is dropped before it starts: its page
# moved on (an edit, another preset) or closed. Pending panels, the what-if table and the
# Cluster view ask every second; a request waiting for it keeps it. Asked again, it is
# queued again. (Under 20 users, the searches were 64% of the server's CPU, py-spy; they
# now run in search processes of their own, see compute.evaluate_in_background.)
STALE_S = 10.0
WEB_TIME_LIMIT_S = 60.0  # seconds a search (CP-SAT, slotscope, hetero) may take from the page
WEB_MAX_BUDGET = 30_000  # slotscope's local-search evaluations per placement from the page
WEB_CAPS = {  # scheduler -> parameter -> its largest value from the page
    "optimal": {"time_limit": WEB_TIME_LIMIT_S},
    "slotscope": {"budget": WEB_MAX_BUDGET, "time_limit": WEB_TIME_LIMIT_S},
    "hetero": {"time_limit": WEB_TIME_LIMIT_S},
}

BACKGROUND_EXECUTORS = 1_000  # larger scenarios are placed in the background
BACKGROUND_NODES = 500  # ... and clusters of more nodes

PlacementKey = tuple[str, str, str, float]  # (scenario text, scheduler, params text, rate)


@dataclass
class PlacementStatus:
    """Where a background placement stands: ``state`` is queued, running, done or refused."""

    state: str
    elapsed_s: float = 0.0
    ahead: int = 0  # placements queued before it
    message: str = ""

    @property
    def ready(self) -> bool:
        return self.state == DONE


REFUSED = "refused"


class PlacementPool:
    """A few threads that evaluate placements (``run(key)``) off the request threads.

    A request asks with :meth:`request` (which queues the placement when it is
    neither done nor queued) and shows progress until :attr:`PlacementStatus.ready`;
    then ``run``'s memo answers at once. At most ``threads`` run and ``waiting``
    are running or queued; one more is refused with a message. Threads are started
    per burst of work and end when the queue is empty (a killed thread frees its place).
    A queued placement nobody asked about for ``stale_s`` seconds (:data:`STALE_S`) and
    nobody waits for is dropped unstarted (:attr:`dropped` counts them).
    """

    def __init__(
        self,
        run: Callable[[PlacementKey], Any],
        threads: int = SEARCH_THREADS,
        waiting: int = MAX_PLACEMENTS_WAITING,
        stale_s: float = STALE_S,
        name: str = "slotscope-placement",
    ):
        self._run = run
        self.name = name  # its threads' name
        self._threads = threads
        self._waiting = waiting
        self._stale_s = stale_s
        self._lock = threading.Lock()
        self._queued: dict[Hashable, float] = {}  # key -> time asked
        self._asked: dict[Hashable, float] = {}  # queued key -> time last asked about
        self._waiters: dict[Hashable, int] = {}  # key -> requests waiting for it now
        self.dropped = 0  # queued placements dropped unstarted, nobody asking any more
        self._work_of: dict[Hashable, Callable[[], Any]] = {}  # key -> its own work, if any
        self._running: dict[Hashable, float] = {}  # key -> time started
        self._done: dict[Hashable, float] = {}  # key -> time finished (oldest first)
        self._workers = 0
        self._finished = threading.Condition(self._lock)

    def request(self, key: Hashable, work: Callable[[], Any] | None = None) -> PlacementStatus:
        """The placement's status, queueing it if it is new (or refusing it when full);
        ``work`` replaces ``run(key)`` for this key (a what-if row, say)."""
        with self._lock:
            status = self._status(key)
            if status is not None:
                return status
            self._drop_stale()
            if len(self._queued) + len(self._running) >= self._waiting:
                return PlacementStatus(
                    REFUSED,
                    message=f"the server is placing {self._waiting} panels in the background, "
                    "at most that many: this one waits for the next refresh",
                )
            self._queued[key] = self._asked[key] = time.monotonic()
            if work is not None:
                self._work_of[key] = work
            start = self._workers < self._threads
            if start:
                self._workers += 1
        if start:
            self._start_worker()
        return self.status(key)

    def wait(
        self, key: Hashable, timeout: float, work: Callable[[], Any] | None = None
    ) -> PlacementStatus:
        """:meth:`request`, then wait up to ``timeout`` seconds for the placement to finish."""
        status = self.request(key, work)
        deadline = time.monotonic() + timeout
        with self._finished:
            self._waiters[key] = self._waiters.get(key, 0) + 1
            try:
                while status.state in (QUEUED, RUNNING) and time.monotonic() < deadline:
                    self._finished.wait(max(0.0, deadline - time.monotonic()))
                    status = self._status(key) or PlacementStatus(
                        REFUSED,
                        message="it stopped before the end; edit or reload to place it again",
                    )
            finally:
                left = self._waiters.pop(key) - 1
                if left:
                    self._waiters[key] = left
        return status

    def status(self, key: Hashable) -> PlacementStatus:
        with self._lock:
            return self._status(key) or PlacementStatus(REFUSED, message="not asked for")

    def is_ready(self, key: Hashable) -> bool:
        with self._lock:
            if key in self._asked:
                self._asked[key] = time.monotonic()
            return key in self._done

    def _status(self, key: Hashable) -> PlacementStatus | None:
        """Where ``key`` stands (call with the lock held); asking about a queued key
        keeps it wanted (see :meth:`_drop_stale`)."""
        now = time.monotonic()
        if key in self._done:
            return PlacementStatus(DONE)
        if key in self._running:
            return PlacementStatus(RUNNING, now - self._running[key])
        if key in self._queued:
            self._asked[key] = now
            ahead = list(self._queued).index(key)
            return PlacementStatus(QUEUED, now - self._queued[key], ahead)
        return None

    def _drop_stale(self) -> None:
        """Drop the queued placements nobody asked about for ``stale_s`` seconds and nobody
        waits for (call with the lock held): their pages moved on."""
        now = time.monotonic()
        stale = [
            key
            for key in self._queued
            if now - self._asked.get(key, now) > self._stale_s and not self._waiters.get(key)
        ]
        for key in stale:
            del self._queued[key]
            self._asked.pop(key, None)
            self._work_of.pop(key, None)
        self.dropped += len(stale)

    def _start_worker(self) -> None:
        thread = threading.Thread(target=self._work, name=self.name, daemon=True)
        try:
            thread.start()
        except RuntimeError:
            with self._lock:
                self._workers -= 1
            log.warning("no thread for background placements")

    def _work(self) -> None:
        key = None
        try:
            while True:
                with self._lock:
                    self._drop_stale()
                    if not self._queued:
                        return
                    key = next(iter(self._queued))
                    del self._queued[key]
                    self._asked.pop(key, None)
                    work = self._work_of.pop(key, None)
                    self._running[key] = time.monotonic()
                try:
                    work() if work is not None else self._run(key)
                except Exception:
                    log.exception("background placement failed")
                with self._finished:
                    self._running.pop(key, None)
                    self._done[key] = time.monotonic()
                    while len(self._done) > PLACEMENTS_REMEMBERED:
                        del self._done[next(iter(self._done))]
                    self._finished.notify_all()
                key = None
        finally:
            with self._finished:
                self._workers -= 1
                if key is not None:  # killed mid-placement: forget it, so it can be asked again
                    self._running.pop(key, None)
                self._finished.notify_all()


def web_params(scheduler: str, params_text: str) -> str:
    """A scheduler's parameters as the page may run them: CP-SAT's ``time_limit`` at most
    ``WEB_TIME_LIMIT_S`` and slotscope's ``budget`` at most ``WEB_MAX_BUDGET`` (canonical
    JSON text; text that is not a JSON object passes unchanged).

    >>> web_params("optimal", '{"time_limit": 3600, "workers": 2}')
    '{"time_limit":60.0,"workers":2}'
    >>> web_params("slotscope", '{"budget": 1000}')
    '{"budget":1000}'
    """
    try:
        params = json.loads(params_text)
    except ValueError:
        return params_text
    if not isinstance(params, dict):
        return params_text
    for name, cap in WEB_CAPS.get(scheduler, {}).items():
        value = params.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > cap:
            params[name] = cap
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def in_background(scheduler: str, text: str) -> bool:
    """Whether this scheduler's placement of the scenario ``text`` runs in the background:
    a search, or a scenario over ``BACKGROUND_EXECUTORS`` executors or ``BACKGROUND_NODES``
    nodes."""
    if scheduler in compute.SEARCHES:
        return True
    try:
        sc = compute.scenario_of(text)
    except ScenarioError:
        return False
    executors = sum(c.parallelism for c in sc.topology.components) + sc.topology.ackers
    return executors > BACKGROUND_EXECUTORS or len(sc.cluster.nodes) > BACKGROUND_NODES


def panel_key(
    text: str, scheduler: str, params: Mapping[str, Mapping[str, Any]] | None, rate: float
) -> PlacementKey:
    """The evaluation a panel shows: parameters as the page may run them (``web_params``),
    with the registry's defaults filled in, so a page whose parameter store is still empty
    and one that spells the defaults out ask for the same placement.

    >>> panel_key("s", "slotscope", None, 1.0) == panel_key(
    ...     "s", "slotscope", {"slotscope": {"budget": 3000}}, 1.0)
    True
    """
    params_text = web_params(scheduler, compute.canonical((params or {}).get(scheduler, {})))
    with contextlib.suppress(SchedulerError, ValueError):  # the evaluation says what is wrong
        params_text = web_params(scheduler, compute.resolved_params(scheduler, params_text))
    return (text, scheduler, params_text, float(rate))


# a key's placement runs in a search process (niced, its own GIL) when they run
placements = PlacementPool(lambda key: compute.evaluate_in_background(*key))


def page_refusal(text: str) -> str | None:
    """Why the page will not place the scenario ``text`` at all (over the dashboard's size,
    ``dashboard.transfer.DASHBOARD_MAX_EXECUTORS``: a store sent by hand), or None."""
    try:
        check_dashboard_size(compute.scenario_of(text))
    except ScenarioError as err:
        return err.message
    return None


def panel_ready(
    text: str, scheduler: str, params: Mapping[str, Mapping[str, Any]] | None, rate: float
) -> bool:
    """Whether a panel's evaluation may be read in a request thread now: the page places
    the scenario (:func:`page_refusal`) and either not in the background
    (:func:`in_background`) or its background placement is done."""
    if page_refusal(text) is not None:
        return False
    key = panel_key(text, scheduler, params, rate)
    return not in_background(scheduler, text) or placements.is_ready(key)

"""The Spark job runner: the only module of ``core`` that imports pyspark.

A leaf: it knows sessions, jobs and tasks, nothing of what the tasks compute.
One lazily created SparkSession per process (master from the argument, else
``SLOTSCOPE_SPARK_MASTER``, else ``local[*]``; Spark's UI off, bound to
127.0.0.1). :func:`map_tasks` is ``[func(t) for t in tasks]`` as one job over
an RDD, one Spark task per task or per batch of tasks sharing a key, plain
values in and out; it is the mapper the comparison
(``core.comparison.compare``) and the searches take. Progress (tasks done)
comes from an accumulator and cancellation goes through the job group.
``core`` is shipped to executors as a zip, so a real cluster runs the same
code.

Faults end with one line, never a hang or a Java stack:

- a master is checked before Spark starts (:func:`check_master`), within
  ``MASTER_CHECK_S`` seconds: ``local``, ``local[N]`` or ``local[*]`` (N from 1
  to ``MAX_LOCAL_THREADS``), or ``spark://HOST:PORT[,HOST:PORT...]`` whose port
  answers Spark's own wire protocol (a stream request for a file that does not
  exist, which a Spark RPC server answers with a ``StreamFailure`` frame and
  logs nothing); YARN, Kubernetes and Mesos masters are refused;
- the JVM's output (its log4j2 errors, the JDK's and Spark's start-up lines,
  the Python workers' stderr) goes to a log file in a private directory
  (:func:`log_path`) unless :func:`show_spark_logs` asked for it on stderr;
- a task's own exception comes back as a value and ends the job with its
  type and message (:class:`TaskFailed`);
- an executor is lost at once when its process is gone, else after
  ``spark.network.timeout`` (``NETWORK_TIMEOUT_S``, 30 s) without a heartbeat
  (sent every ``HEARTBEAT_S``, 5 s; silence looked for every
  ``TIMEOUT_CHECK_S``, 2 s); Spark reruns its tasks elsewhere (up to
  ``spark.task.maxFailures``, 4 on a cluster);
- a job that has tasks left but none running for ``STALL_TIMEOUT_S`` seconds
  (20 s: the only worker lost, a cluster with no free cores; ``START_TIMEOUT_S``,
  45 s, before any of its tasks has run, while executors start; a task of
  another job running meanwhile resets the count) is cancelled
  through its job group with a :class:`JobStalled` line saying so, as is a job
  past the ``deadline_s`` its caller gave. The session stays usable.

So a worker lost in the middle of a job ends it within ``FAULT_BOUND_S`` (53 s)
of the fault, a partition included; a worker whose processes died, within
about ``STALL_TIMEOUT_S``.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import re
import shutil
import socket
import stat
import struct
import sys
import tempfile
import threading
import time
import uuid
import warnings
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from core.settings import MASTER, SettingsError

DEFAULT_MASTER = "local[*]"
MASTER_ENV = "SLOTSCOPE_SPARK_MASTER"
STALL_ENV = "SLOTSCOPE_SPARK_STALL_S"  # overrides STALL_TIMEOUT_S (tests use a short one)
# overrides NETWORK_TIMEOUT_S (tests use a short one); at least two heartbeats
NETWORK_TIMEOUT_ENV = "SLOTSCOPE_SPARK_NETWORK_TIMEOUT_S"
PROGRESS_POLL_S = 0.2  # s between progress reports
STATUS_POLL_S = 1.0  # s between looks at the job's stages (Spark's status tracker)
# A lost worker ends a job within FAULT_BOUND_S of the fault: its executors are lost at
# once when their processes are gone, else (a partition, a frozen machine) after at most
# NETWORK_TIMEOUT_S + TIMEOUT_CHECK_S of silence; then STALL_TIMEOUT_S with tasks left and
# none running ends the job (polled every STATUS_POLL_S).
STALL_TIMEOUT_S = 20.0  # s with tasks left and none running (a killed executor is replaced within)
START_TIMEOUT_S = 45.0  # s: the same, before any task of the job has run (executors starting)
NETWORK_TIMEOUT_S = 30  # s: spark.network.timeout, a silent executor is lost after this
HEARTBEAT_S = 5  # s: spark.executor.heartbeatInterval (Spark's default 10), < the above
TIMEOUT_CHECK_S = 2  # s: spark.network.timeoutInterval (Spark's default 60): look for silence
FAULT_BOUND_S = NETWORK_TIMEOUT_S + TIMEOUT_CHECK_S + STALL_TIMEOUT_S + STATUS_POLL_S  # 53 s
MASTER_CHECK_S = 3.0  # s: the whole check of a spark:// master (every host of it)
MASTER_PROBE_S = 1.5  # s: at most, per host: name lookup, connection, answer
MAX_LOCAL_THREADS = 1024  # local[N]: N at most this
MAX_MESSAGE_CHARS = 400  # a task's error message is cut to this many characters
# Spark ends every idle Python worker after a minute with no worker activity (its
# PythonWorkerFactory's IDLE_WORKER_TIMEOUT, one minute, not configurable): the next job then
# starts new workers, which import numpy and the core again and whose memos (a search's R*
# per placement) are empty. keep_workers runs a one-task job this often to keep them.
KEEP_WORKERS_EVERY_S = 40.0  # s between keep-alive jobs (< the factory's 60 s)
KEEP_TICK_S = 0.5  # s: how often the keep-alive thread looks at the clock
KEEP_WORKERS_FOR_S = 1800.0  # s after the last job or keep_workers call: then they may go
KEEP_GROUP = "slotscope-keep-workers"  # the keep-alive jobs' group
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")  # Spark's JVM logs: errors only

_LOCAL = re.compile(r"local(?:\[(?P<threads>\*|[0-9]+)(?:\s*,\s*(?P<failures>[0-9]+))?\])?")
# Spark's transport protocol (network-common, ``MessageEncoder``): a frame is its length
# (8 bytes, itself included), the message type (1 byte), then the message. Type 6 is a
# StreamRequest (4-byte length + UTF-8 stream id); a server answers 7 (StreamResponse)
# or 8 (StreamFailure). ``files/<name>`` is a file the RPC env serves: none here.
_STREAM_REQUEST, _STREAM_ANSWERS = 6, (7, 8)
_PROBE_STREAM = b"files/slotscope-master-check"
_HEADER = struct.Struct(">qb")


class SparkUnavailable(RuntimeError):
    """Spark cannot start here (no Java, unreachable master) or a job failed; one line."""


class TaskFailed(SparkUnavailable):
    """A task's own function raised; the message carries its type and message."""


class JobStalled(SparkUnavailable):
    """The job was ended: no task ran for too long (lost workers), or past its deadline."""


class JobCancelled(RuntimeError):
    """The job group was cancelled."""


class _Holder:
    """The process's one SparkSession, created on first use, never at import."""

    lock = threading.RLock()
    session: Any = None
    master: str | None = None
    cancelled: dict[str, str | None] = {}  # job group -> why (None: a caller's cancel)
    verbose = False
    log: Path | None = None  # the JVM's output, when it is not on stderr
    keep_log = False  # an error line named the log: it stays after the process
    keeper: threading.Thread | None = None  # keep_workers' thread, while it runs
    kept: Any = None  # the session keep_workers' thread keeps
    last_job = 0.0  # time.monotonic() of the last job started or ended, or keep_workers call


def resolve_master(master: str | None = None) -> str:
    return master or os.environ.get(MASTER_ENV) or DEFAULT_MASTER


def show_spark_logs(on: bool = True) -> None:
    """Let the JVM write to this process's stderr at WARN level (``slotscope --verbose``).

    Takes effect for the next session started.
    """
    _Holder.verbose = on


def check_java() -> None:
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") or (java_home and Path(java_home, "bin", "java").exists()):
        return
    raise SparkUnavailable(
        "Java 17+ is needed for Spark and was not found: "
        "apt-get install openjdk-17-jre-headless (or set JAVA_HOME)"
    )


def check_master(master: str) -> None:
    """Refuse a master slotscope cannot run on, with the reason, in under 5 s.

    Raises
    ------
    SettingsError
        Field ``Spark master``: a malformed URL, ``local[0]``, a master kind other than
        local or standalone, or a ``spark://`` address where no Spark master answers.
    """
    local = _LOCAL.fullmatch(master)
    if local:
        threads, failures = local["threads"], local["failures"]
        if threads not in (None, "*") and not 1 <= int(threads) <= MAX_LOCAL_THREADS:
            raise SettingsError(
                MASTER,
                f"{master}: local[N] needs N between 1 and {MAX_LOCAL_THREADS} threads "
                "(or local[*]: one per core)",
            )
        if failures is not None and int(failures) < 1:
            raise SettingsError(MASTER, f"{master}: local[N,F] needs F >= 1 task attempts")
        return
    if not master.startswith("spark://"):
        raise SettingsError(
            MASTER,
            f"{master[:60]}: slotscope runs Spark in local mode (local, local[N], local[*]) or "
            "on a standalone cluster (spark://HOST:PORT); YARN, Kubernetes and Mesos masters "
            "are not supported",
        )
    addresses = [_host_port(master, part) for part in master[len("spark://") :].split(",")]
    deadline = time.monotonic() + MASTER_CHECK_S
    reasons = []
    for host, port in addresses:
        remaining = deadline - time.monotonic()
        reason = _probe_master(host, port, min(MASTER_PROBE_S, remaining))
        if reason is None:
            return
        reasons.append(reason)
    raise SettingsError(MASTER, f"no Spark master answers at {master}: {'; '.join(reasons)}")


def _host_port(master: str, part: str) -> tuple[str, int]:
    usage = f"{master[:60]}: expected spark://HOST:PORT (a standalone master, port 7077 by default)"
    try:
        parts = urlsplit(f"//{part}")
        host, port = parts.hostname, parts.port
    except ValueError:
        raise SettingsError(MASTER, f"{usage}; {part!r} has no valid port (1-65535)") from None
    if not host or port is None or port == 0 or parts.path or parts.username:
        raise SettingsError(MASTER, usage)
    return host, port


def _probe_master(host: str, port: int, budget_s: float) -> str | None:
    """None when a Spark RPC server answers at host:port within ``budget_s``; else why not."""
    where = f"{host}:{port}"
    if budget_s <= 0:
        return f"{where}: not tried, the check's {MASTER_CHECK_S:g} s were spent"
    start = time.monotonic()
    found: dict[str, Any] = {}

    def lookup() -> None:
        try:
            found["addresses"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as err:
            found["error"] = err

    resolver = threading.Thread(target=lookup, daemon=True)  # getaddrinfo has no timeout
    resolver.start()
    resolver.join(budget_s)
    if "error" in found:
        return f"{where}: unknown host ({found['error'].strerror or found['error']})"
    if "addresses" not in found:
        return f"{where}: the host name did not resolve within {budget_s:.1f} s"
    family, kind, proto, _, address = found["addresses"][0]
    frame = _HEADER.pack(_HEADER.size + 4 + len(_PROBE_STREAM), _STREAM_REQUEST)
    frame += struct.pack(">i", len(_PROBE_STREAM)) + _PROBE_STREAM
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.settimeout(max(0.05, budget_s - (time.monotonic() - start)))
            sock.connect(address)
            sock.sendall(frame)
            answer = b""
            while len(answer) < _HEADER.size:
                sock.settimeout(max(0.05, budget_s - (time.monotonic() - start)))
                chunk = sock.recv(_HEADER.size - len(answer))
                if not chunk:
                    break
                answer += chunk
    except ConnectionRefusedError:
        return f"{where}: connection refused (nothing listens there)"
    except TimeoutError:
        return (
            f"{where}: no answer within {budget_s:.1f} s (a host that is down, a filtered "
            "port, or a service that is not Spark)"
        )
    except OSError as err:
        return f"{where}: {err.strerror or err}"
    if len(answer) == _HEADER.size:
        length, kind_byte = _HEADER.unpack(answer)
        if kind_byte in _STREAM_ANSWERS and _HEADER.size < length < 1 << 20:
            return None
    shown = answer.decode("latin-1")[:20].encode("unicode_escape").decode("ascii")
    said = f"it sent {shown!r}" if answer else "it closed the connection"
    return (
        f"{where} is not a Spark standalone master ({said}; a master listens on 7077 by "
        "default, its web UI port is not the master URL)"
    )


def _private_dir() -> Path:
    """This user's directory for Spark's log and the shipped code (0700, owned by us)."""
    path = Path(tempfile.gettempdir()) / f"slotscope-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return Path(tempfile.mkdtemp(prefix="slotscope-"))  # someone else's: a fresh one
    return path


def log_path() -> Path:
    """Where this process's Spark JVM writes its output (unless :func:`show_spark_logs`).

    The file is removed when the process ends, unless an error line named it.
    """
    return _private_dir() / f"spark-{os.getpid()}.log"


def _log_note() -> str:
    """`` (Spark's log: PATH)`` for an error line, keeping the file; "" when none."""
    if _Holder.log is None:
        return ""
    _Holder.keep_log = True
    return f" (Spark's log: {_Holder.log})"


def _forget_log(path: Path) -> None:
    if not _Holder.keep_log:
        _remove(path)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


@contextlib.contextmanager
def _stderr_to(path: Path | None) -> Iterator[None]:
    """File descriptor 2 points at ``path`` meanwhile, so a JVM started now keeps it."""
    if path is None:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(fd, 2)
        os.close(fd)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pyspark's import-time warnings (pandas version)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _core_zip() -> str:
    """A zip of the ``core`` package for executors on other machines."""
    src = Path(__file__).resolve().parent
    target = _private_dir() / f"core-{os.getpid()}.zip"
    atexit.register(_remove, target)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(src.rglob("*.py")):
            zf.write(path, Path("core") / path.relative_to(src))
    return str(target)


def get_session(master: str | None = None):
    """The process's SparkSession, created on first call (or when the master changes).

    Raises
    ------
    SettingsError
        A master slotscope cannot use (:func:`check_master`).
    SparkUnavailable
        No Java, or Spark did not start.
    """
    wanted = resolve_master(master)
    with _Holder.lock:
        if _Holder.session is not None and _Holder.master == wanted:
            return _Holder.session
        check_master(wanted)
        if _Holder.session is not None:
            _Holder.session.stop()
            _Holder.session = None
        check_java()
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        log = None if _Holder.verbose else log_path()
        if log is not None and _Holder.log != log:
            atexit.register(_forget_log, log)
        _Holder.log = log
        java_options = f"-Dlog4j2.configurationFile={LOG_CONFIG}"
        try:
            with _stderr_to(log):
                from pyspark.sql import SparkSession

                session = (
                    SparkSession.builder.master(wanted)
                    .appName("slotscope")
                    .config("spark.ui.enabled", "false")
                    .config("spark.ui.showConsoleProgress", "false")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.python.worker.reuse", "true")
                    .config("spark.sql.shuffle.partitions", "4")
                    .config("spark.network.timeout", f"{network_timeout_s():g}s")
                    .config("spark.network.timeoutInterval", f"{TIMEOUT_CHECK_S}s")
                    .config("spark.executor.heartbeatInterval", f"{HEARTBEAT_S}s")
                    .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
                    .config("spark.driver.extraJavaOptions", java_options)
                    .config("spark.executor.extraJavaOptions", java_options)
                    .getOrCreate()
                )
        except Exception as err:
            raise SparkUnavailable(
                f"Spark did not start on {wanted}: {_first_line(err)}{_log_note()}"
            ) from None
        session.sparkContext.setLogLevel("WARN" if _Holder.verbose else "ERROR")
        if not wanted.startswith("local"):
            session.sparkContext.addPyFile(_core_zip())
        _Holder.session, _Holder.master = session, wanted
        return session


def stop_session() -> None:
    with _Holder.lock:
        if _Holder.session is not None:
            _Holder.session.stop()
        _Holder.session, _Holder.master = None, None


def keep_workers(master: str | None = None) -> bool:
    """Keep the local session's Python workers alive between jobs, ``KEEP_WORKERS_FOR_S``
    seconds from now and from each job's end.

    Spark ends idle Python workers after a minute (see ``KEEP_WORKERS_EVERY_S``), so a job
    started later pays new workers: their imports, and the memos its tasks had filled (the
    dashboard's Simulate on wordcount: 13 s instead of 4). A daemon thread runs a one-task
    job (``KEEP_GROUP``) every ``KEEP_WORKERS_EVERY_S`` seconds while no other job runs,
    until the session stops or ``KEEP_WORKERS_FOR_S`` pass without a job. Local masters
    only (a cluster's executors are not this process's to keep busy); answers whether the
    workers are kept. Raises as :func:`get_session`.
    """
    session = get_session(master)
    if not session.sparkContext.master.startswith("local"):
        return False
    with _Holder.lock:
        _Holder.last_job = time.monotonic()
        if not keeping_workers() or _Holder.kept is not session:  # the old one ends itself
            _Holder.kept = session
            _Holder.keeper = threading.Thread(
                target=_keep, args=(session,), name=KEEP_GROUP, daemon=True
            )
            _Holder.keeper.start()
    return True


def keeping_workers() -> bool:
    """Whether :func:`keep_workers`' thread runs."""
    keeper = _Holder.keeper
    return keeper is not None and keeper.is_alive()


def _keep(session) -> None:
    """:func:`keep_workers`' thread: a keep-alive job now and then, for as long as it should."""
    since = time.monotonic()
    while True:
        time.sleep(KEEP_TICK_S)  # in ticks: a new interval takes effect within one
        if time.monotonic() - since < KEEP_WORKERS_EVERY_S:
            continue
        since = time.monotonic()
        with _Holder.lock:
            if _Holder.session is not session or _Holder.kept is not session:
                return  # stopped, or another master's session
            if time.monotonic() - _Holder.last_job > KEEP_WORKERS_FOR_S:
                _Holder.keeper = None
                return
        sc = session.sparkContext
        try:
            if sc.statusTracker().getActiveStageIds():
                continue  # a job runs: its tasks are the workers' activity
            sc.setJobGroup(KEEP_GROUP, "slotscope: keep the Python workers", True)
            sc.parallelize([0], 1).map(abs).collect()  # one task: one worker taken, released
        except Exception:  # the session stopped meanwhile: nothing left to keep
            return
        finally:
            with contextlib.suppress(Exception):
                sc.setLocalProperty("spark.jobGroup.id", None)


def engine_info(master: str | None = None) -> dict[str, Any]:
    """What runs the jobs: master URL, Spark version, default parallelism."""
    sc = get_session(master).sparkContext
    return {
        "master": sc.master,
        "spark_version": sc.version,
        "default_parallelism": sc.defaultParallelism,
    }


def _first_line(err: BaseException) -> str:
    """The telling line of a Spark error: the Python exception of a worker's traceback,
    else the reason a job was aborted, else the first line.

    >>> _first_line(RuntimeError("An exception was thrown from the Python worker: "
    ...     "Traceback (most recent call last):\\n  File \\"x.py\\", line 1\\n"
    ...     "ImportError: no module x\\n SQLSTATE: 38000"))
    'ImportError: no module x'
    """
    text = str(err).strip()
    if not text:
        return type(err).__name__
    lines = text.splitlines()
    marks = [i for i, line in enumerate(lines) if "Traceback (most recent call last):" in line]
    if marks:
        raised = [line for line in lines[marks[-1] + 1 :] if line and not line[0].isspace()]
        if raised:
            return raised[0].strip()
    for line in lines:
        if "Job aborted due to stage failure:" in line:
            return line[line.index("Job aborted") :].strip()[:MAX_MESSAGE_CHARS]
    java = re.search(r"(?:[a-z]+\.)+(\w+(?:Exception|Error): .+)", text)
    return java[1] if java else lines[0][:MAX_MESSAGE_CHARS]


def describe_error(err: BaseException) -> str:
    """One line for a task's exception: the project's bad-input errors (ValueErrors of
    ``core``) by their message, any other as ``Type: message``.

    >>> describe_error(KeyError("n9")), describe_error(ZeroDivisionError())
    ("KeyError: 'n9'", 'ZeroDivisionError')
    """
    text = " ".join(str(err).split())[:MAX_MESSAGE_CHARS]
    own = isinstance(err, ValueError) and type(err).__module__.startswith("core")
    if own and text:
        return text
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def cancel(job_group: str) -> None:
    """Cancel a running job by its group."""
    _end(job_group, None)


def _end(job_group: str, reason: str | None) -> None:
    with _Holder.lock:
        _Holder.cancelled[job_group] = reason
        if _Holder.session is not None:
            _Holder.session.sparkContext.cancelJobGroup(job_group)


def map_tasks(
    func: Callable[[Any], Any],
    tasks: Sequence[Any],
    group: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    master: str | None = None,
    key: Callable[[Any], Any] | None = None,
    deadline_s: float | None = None,
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
    ``key`` runs on the driver only. ``deadline_s`` (seconds, optional) ends
    the job when it runs longer.

    Raises
    ------
    JobCancelled
        :func:`cancel` was called with this group.
    TaskFailed
        ``func`` raised on a task: its type and message.
    JobStalled
        Tasks were left and none ran for ``STALL_TIMEOUT_S`` (lost workers;
        ``START_TIMEOUT_S`` before any task ran), or the deadline passed.
    SparkUnavailable
        Spark cannot start (no Java), or the job failed in Spark itself.
    SettingsError
        A bad master.
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

    _Holder.last_job = time.monotonic()
    try:
        rows = _watch(session, job, group, len(tasks), progress, lambda: done.value, deadline_s)
    finally:
        _Holder.last_job = time.monotonic()
    failed = next((value for ok, value in rows if not ok), None)
    if failed is not None:
        raise TaskFailed(f"a task of the Spark job failed: {failed}")
    return [value for _, value in rows]


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


def _run_batch(func: Callable[[Any], Any], done, batch: list[Any]) -> list[tuple[bool, Any]]:
    """One Spark task: ``func`` over a batch of tasks, in order (runs on an executor).

    Each result is ``(True, value)``; the first exception ends the batch as ``(False,
    one line)``, so the driver gets the task's own reason (and Spark does not retry a
    failure that would only repeat).
    """
    out: list[tuple[bool, Any]] = []
    for task in batch:
        try:
            out.append((True, func(task)))
        except Exception as err:  # carried to the driver as a value, see above
            out.append((False, describe_error(err)))
            break
    done.add(len(batch))
    return out


def network_timeout_s() -> float:
    """``NETWORK_TIMEOUT_S``, or ``SLOTSCOPE_SPARK_NETWORK_TIMEOUT_S`` when set to a number
    of at least two heartbeats (``HEARTBEAT_S``): a shorter one would lose executors that
    are only between heartbeats."""
    try:
        value = float(os.environ.get(NETWORK_TIMEOUT_ENV, ""))
    except ValueError:
        return NETWORK_TIMEOUT_S
    return value if 2 * HEARTBEAT_S <= value < float("inf") else NETWORK_TIMEOUT_S


def stall_timeout_s() -> float:
    """``STALL_TIMEOUT_S``, or ``SLOTSCOPE_SPARK_STALL_S`` when set to a positive number."""
    try:
        value = float(os.environ.get(STALL_ENV, ""))
    except ValueError:
        return STALL_TIMEOUT_S
    return value if 0 < value < float("inf") else STALL_TIMEOUT_S


def _tasks_left(sc, group: str) -> tuple[int, int, int] | None:
    """(running, waiting, begun) tasks: running counts the tasks of every job of the
    session (another job's running task shows a live executor: the group's tasks then wait
    their turn, they are not stalled); waiting and begun (running or finished) the group's
    own. None before a stage of the group exists."""
    tracker = sc.statusTracker()
    waiting = finished = mine = 0
    seen = False
    for job_id in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job_id)
        if info is None or info.status != "RUNNING":
            continue
        for stage_id in info.stageIds:
            stage = tracker.getStageInfo(stage_id)
            if stage is None:
                continue
            seen = True
            mine += stage.numActiveTasks
            finished += stage.numCompletedTasks
            waiting += max(0, stage.numTasks - stage.numCompletedTasks - stage.numActiveTasks)
    if not seen:
        return None
    stages = (tracker.getStageInfo(stage_id) for stage_id in tracker.getActiveStageIds())
    running = sum(stage.numActiveTasks for stage in stages if stage is not None)
    return max(running, mine), waiting, mine + finished


def _watch(
    session,
    job,
    group: str,
    total: int,
    report,
    done: Callable[[], int],
    deadline_s: float | None = None,
) -> Any:
    """Run ``job`` in a thread, reporting progress and ending it when it stalls; its result."""
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["result"] = job()
        except BaseException as err:  # handed to the caller's thread below
            outcome["error"] = err

    worker = threading.Thread(target=work, name=f"spark-{group}", daemon=True)
    start = time.monotonic()
    worker.start()
    stall_s, idle_since, next_look = stall_timeout_s(), None, start + STATUS_POLL_S
    started = False  # a task of the job has run: before that, executors may be starting
    while worker.is_alive():
        worker.join(PROGRESS_POLL_S)
        if report is not None:
            report(min(done(), total), total)
        now = time.monotonic()
        if group in _Holder.cancelled:
            # Spark cancels only the tasks it has: a cancel sent before the job reached it
            # (Cancel pressed while the job was starting) is sent again until the job ends
            session.sparkContext.cancelJobGroup(group)
            continue
        if now < next_look:
            continue
        next_look = now + STATUS_POLL_S
        if deadline_s is not None and now - start > deadline_s:
            _end(group, f"the Spark job was ended at its deadline of {deadline_s:g} s")
            continue
        left = _tasks_left(session.sparkContext, group)
        started = started or (left is not None and left[2] > 0)
        idle = left is not None and left[0] == 0 and left[1] > 0
        idle_since = (idle_since or now) if idle else None
        allowed_s = stall_s if started else max(stall_s, START_TIMEOUT_S)
        if idle_since is not None and now - idle_since >= allowed_s:
            _end(
                group,
                f"the Spark job was ended: {left[1]} of its tasks waited {allowed_s:g} s with "
                f"none running; the cluster at {session.sparkContext.master} has no live "
                "executor (a lost worker, or no free cores?)",
            )
    with _Holder.lock:
        reason = _Holder.cancelled.pop(group, "")
    if reason is None:
        raise JobCancelled(f"job {group} was cancelled")
    if reason:
        raise JobStalled(reason)
    if "error" in outcome:
        reason = _first_line(outcome["error"])
        raise SparkUnavailable(f"the Spark job failed: {reason}{_log_note()}")
    if report is not None:
        report(total, total)
    return outcome["result"]


# -- CPU priority -------------------------------------------------------------------------

PROC = Path("/proc")  # Linux's process table (lower_priority does nothing without it)


def child_processes(pids: set[int]) -> set[int]:
    """The processes whose parent is in ``pids`` (from /proc/PID/stat: its 4th field)."""
    out = set()
    for stat_file in PROC.glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            after_name = stat_file.read_text().rsplit(")", 1)[1].split()
            if int(after_name[1]) in pids:
                out.add(int(stat_file.parent.name))
    return out


def _command_name(pid: int) -> str:
    try:
        return (PROC / str(pid) / "comm").read_text(errors="replace").strip()
    except OSError:  # gone meanwhile
        return ""


def lower_priority(nice: int) -> int:
    """Run the JVM this process started, and every process under it (Spark's Python
    workers), at niceness ``nice`` or lower priority: batch simulations give way to the
    interactive work of this process. Linux sets niceness per thread, so every thread of
    each process is reniced; threads and processes they start later inherit it.

    Answers how many threads were reniced (0 without /proc, or with no Spark JVM);
    a thread that is gone or not ours is skipped.
    """
    if not PROC.is_dir():
        return 0
    jvms = {pid for pid in child_processes({os.getpid()}) if _command_name(pid) == "java"}
    tree, level = set(jvms), set(jvms)
    while level:
        level = child_processes(level) - tree
        tree |= level
    reniced = 0
    for pid in tree:
        for task in (PROC / str(pid) / "task").glob("[0-9]*"):
            with contextlib.suppress(OSError, ValueError):
                tid = int(task.name)
                if os.getpriority(os.PRIO_PROCESS, tid) < nice:
                    os.setpriority(os.PRIO_PROCESS, tid, nice)
                    reniced += 1
    return reniced

"""Run fuzz cases in forked children with a memory cap and a deadline, and judge their end.

Cases run in children forked from the test process (a fork costs milliseconds,
where a fresh ``slotscope`` process costs over a second of imports), several
cases one after the other per child, so a case that loops, blocks on a FIFO or
allocates without bound cannot take the test run with it:

- memory: the child's address space may grow by at most :data:`BUDGET_BYTES`
  (``RLIMIT_AS``) over what it inherited, so an array of gigabytes fails at
  once with ``MemoryError`` instead of being allocated; how far a case raises
  the child's peak resident memory is measured too and must stay under it;
- time: a case still running after :data:`HANG_S` seconds is killed with its
  child and counts as a hang (the cases after it go on in a new child);
- output: file descriptors 1 and 2 of the child go to files, so what the JVM,
  a C library or a stray ``print`` writes is judged too, not only ``sys.stderr``.

:func:`judge_cli` states what every ``slotscope`` command must do with bad
input (issue 23): exit 0, or exit 2 with exactly one line on stderr naming the
field or flag; never a traceback or a raw exception's name.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

BUDGET_BYTES = 2 * 1024**3  # a command's memory budget (issue 23): 2 GB
HANG_S = 60.0  # a case still running after this long is a hang
EXIT_BAD_INPUT = 2

# "RecursionError: ...", "OverflowError", "InvalidURL: ..." printed as the one line:
# an exception passed through without being turned into a message about the input.
RAW_EXCEPTION = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b|\bInvalidURL\b")


@dataclass(frozen=True)
class Outcome:
    """How a child ended.

    Attributes
    ----------
    value : Any
        What the case function returned (JSON-ready), None when it did not return.
    raised : str
        The traceback of an exception the case function let out ("" if none).
    stdout, stderr : str
        Everything written to file descriptors 1 and 2.
    seconds : float
        Wall time, s.
    rss_growth : int
        How far the case raised its child's peak resident memory, bytes.
    killed : str
        "hang" when the child was killed at the deadline, "signal N" when it died by
        a signal, "" otherwise.
    """

    value: Any
    raised: str
    stdout: str
    stderr: str
    seconds: float
    rss_growth: int
    killed: str


def _vm_bytes(field: str) -> int:
    """A field of /proc/self/status (``VmSize``, ``VmRSS``) in bytes."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def _redirect(folder: str, k: int) -> None:
    """File descriptors 1 and 2 (and sys.stdout / sys.stderr) to case ``k``'s files."""
    for fd, suffix in ((1, "out"), (2, "err")):
        target = os.open(f"{folder}/{k}.{suffix}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), write_through=True)
    sys.stderr = io.TextIOWrapper(os.fdopen(os.dup(2), "wb"), write_through=True)


def _run_one(func: Callable[[], Any]) -> tuple[Any, str]:
    """(what ``func`` returned or its exit status, the traceback of what it raised)."""
    try:
        return func(), ""
    except SystemExit as exit_:
        return (exit_.code if isinstance(exit_.code, int) else 1), ""
    except BaseException:  # the case function itself failed: report it
        return None, traceback.format_exc()


def _child(funcs: Sequence[Callable[[], Any]], folder: str, result_fd: int) -> None:
    """The forked side: cap memory, then run each case with its own output files and
    append one JSON line per case to ``result_fd``; never returns."""
    try:
        limit = _vm_bytes("VmSize") + BUDGET_BYTES
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        for k, func in enumerate(funcs):
            _redirect(folder, k)
            rss_before = _vm_bytes("VmRSS")
            peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            start = time.perf_counter()
            value, raised = _run_one(func)
            seconds = time.perf_counter() - start
            with contextlib.suppress(Exception):
                sys.stdout.close()
                sys.stderr.close()
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            growth = peak - rss_before if peak > peak_before else 0
            row = {"value": value, "raised": raised, "seconds": seconds, "growth": growth}
            try:
                line = json.dumps(row)
            except (TypeError, ValueError) as err:
                line = json.dumps({**row, "value": None, "raised": f"result not JSON: {err}"})
            os.write(result_fd, (line + "\n").encode())
    finally:
        os._exit(0)


def _read(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def _run_chunk(funcs: Sequence[Callable[[], Any]], timeout_s: float) -> list[Outcome]:
    """Run ``funcs`` one after the other in one forked child; stop at the first that hangs
    or kills the child (it is the last outcome returned)."""
    with tempfile.TemporaryDirectory(prefix="slotscope-fuzz-") as folder:
        results = f"{folder}/results.jsonl"
        fd = os.open(results, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        pid = os.fork()
        if pid == 0:
            _child(funcs, folder, fd)
        os.close(fd)
        size, last = 0, time.perf_counter()
        killed, status = "", 0
        while True:
            finished, status, _ = os.wait4(pid, os.WNOHANG)
            now_size = os.path.getsize(results)
            if now_size != size:
                size, last = now_size, time.perf_counter()
            if finished:
                break
            if time.perf_counter() - last > timeout_s:
                os.kill(pid, signal.SIGKILL)
                os.wait4(pid, 0)
                killed = "hang"
                break
            time.sleep(0.002)
        rows = [json.loads(line) for line in _read(results).splitlines() if line.strip()]
        outcomes = [
            Outcome(
                r["value"],
                r["raised"],
                _read(f"{folder}/{k}.out"),
                _read(f"{folder}/{k}.err"),
                r["seconds"],
                r["growth"],
                "",
            )
            for k, r in enumerate(rows)
        ]
        if len(outcomes) < len(funcs):
            k = len(outcomes)
            why = killed or (
                f"signal {os.WTERMSIG(status)}"
                if os.WIFSIGNALED(status)
                else "ended without a result"
            )
            out, err = _read(f"{folder}/{k}.out"), _read(f"{folder}/{k}.err")
            outcomes.append(Outcome(None, "", out, err, time.perf_counter() - last, 0, why))
    return outcomes


def run_batch(funcs: Sequence[Callable[[], Any]], timeout_s: float = HANG_S) -> list[Outcome]:
    """Run each of ``funcs`` in a forked child under the memory cap and the deadline.

    The cases share children, one after the other (a fork per case would cost more
    than most cases take); a case that hangs or kills its child ends that child, and
    the cases after it go on in a new one.
    """
    outcomes: list[Outcome] = []
    while len(outcomes) < len(funcs):
        outcomes += _run_chunk(funcs[len(outcomes) :], timeout_s)
    return outcomes


def run_isolated(func: Callable[[], Any], timeout_s: float = HANG_S) -> Outcome:
    """Run ``func()`` alone in a forked child under the memory cap and the deadline."""
    return run_batch([func], timeout_s)[0]


def cli_func(argv: Sequence[str], patch: Callable[[], None] | None = None) -> Callable[[], int]:
    """``slotscope ARGV`` in process (``dashboard.cli.main``), to run in a child.

    ``patch`` runs first (e.g. to run simulations without Spark).
    """

    def run() -> int:
        if patch is not None:
            patch()
        from dashboard import cli  # the `slotscope` console script (core's, with `dashboard`)

        return cli.main(list(argv))

    return run


def cli_case(argv: Sequence[str], patch: Callable[[], None] | None = None) -> Outcome:
    """``slotscope ARGV`` run in process in a forked child of its own."""
    return run_isolated(cli_func(argv, patch))


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def bounded(outcome: Outcome) -> list[str]:
    """What is wrong with a child's end whatever it did: hang, death, memory, traceback."""
    problems = []
    if outcome.killed:
        problems.append(f"{outcome.killed} after {outcome.seconds:.1f} s")
    if outcome.rss_growth > BUDGET_BYTES:
        problems.append(f"memory grew by {outcome.rss_growth / 1e9:.2f} GB")
    if outcome.raised:
        problems.append("raised: " + outcome.raised.strip().splitlines()[-1])
    for name, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        if "Traceback (most recent call last)" in text:
            problems.append(f"traceback on {name}")
    return problems


def judge_cli(outcome: Outcome, expect: str, names: Sequence[str]) -> list[str]:
    """Problems with a command's end; [] when it ends as issue 23 asks.

    Parameters
    ----------
    outcome : Outcome
        The command's end.
    expect : str
        "ok" (must succeed), "error" (must be refused) or "either".
    names : sequence of str
        A refusal's one line must contain one of these (the field, flag or file).
    """
    problems = bounded(outcome)
    if problems:
        return problems
    code = outcome.value
    if code == 0:
        return ["accepted, should be refused"] if expect == "error" else []
    if code != EXIT_BAD_INPUT:
        return [f"exit code {code!r}"]
    if expect == "ok":
        problems.append("refused, should succeed")
    lines = _lines(outcome.stderr)
    if len(lines) != 1:
        shown = " | ".join(lines[:3])
        return [*problems, f"{len(lines)} lines on stderr: {shown[:300]}"]
    line = lines[0]
    if RAW_EXCEPTION.search(line):
        problems.append(f"raw exception: {line[:200]}")
    elif names and not any(n.lower() in line.lower() for n in names):
        problems.append(f"names none of {list(names)[:4]}: {line[:200]}")
    if any(ord(c) < 32 and c != "\t" for c in line) or "\x1b" in line:
        problems.append(f"control characters printed: {line[:200]!r}")
    return problems

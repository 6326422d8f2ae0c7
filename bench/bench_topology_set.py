"""Every scheduler on a Storm corpus topology set, as a user runs it.

    .venv/bin/python -m bench.bench_topology_set [--preset storm-large-cluster-02]
                                                 [--scheduler even ...] [--timeout 900]
                                                 [--param rounds=submission ...]

Runs ``slotscope schedule PRESET --scheduler S --json`` in its own process under
``/usr/bin/time -v`` for each scheduler and prints: wall time, CPU time (user + system:
the figure to compare on a shared machine), peak resident memory, and how many
topologies were fully scheduled, not run (bounded out) or did not fit. Targets (issue
21): each ras-* strategy < 10 s on largeCluster02, every other scheduler < 60 s, peak
memory < 2 GB.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from core.registry import SCHEDULERS

TIME = "/usr/bin/time"
ROOT = Path(__file__).resolve().parent.parent


def _figure(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    return found.group(1) if found else "?"


def _seconds(clock: str) -> float:
    """``h:mm:ss`` or ``m:ss.ss`` as seconds."""
    total = 0.0
    for part in clock.split(":"):
        total = total * 60 + float(part)
    return total


def run(preset: str, scheduler: str, timeout_s: float, params: list[str] | None = None) -> str:
    """One line of figures for one scheduler (``params``: ``K=V`` passed as ``--param``)."""
    cmd = [TIME, "-v", sys.executable, "-m", "core", "schedule", preset]
    cmd += ["--scheduler", scheduler, "--json"]
    for param in params or []:
        cmd += ["--param", param]
    try:
        done = subprocess.run(
            cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return f"{scheduler:16s} did not finish in {timeout_s:g} s"
    err = done.stderr
    wall = _seconds(_figure(r"Elapsed \(wall clock\) time.*: (\S+)", err) or "0")
    cpu = float(_figure(r"User time \(seconds\): (\S+)", err)) + float(
        _figure(r"System time \(seconds\): (\S+)", err)
    )
    rss_mb = int(_figure(r"Maximum resident set size \(kbytes\): (\d+)", err)) / 1024
    if done.returncode != 0:
        last = err.strip().splitlines()[-1] if err.strip() else "?"
        return f"{scheduler:16s} exit {done.returncode} after {wall:.1f} s: {last}"
    doc = json.loads(done.stdout)
    statuses = [t["status"] for t in doc["topologies"]]
    evicted = sum("was evicted" in t["message"] for t in doc["topologies"])
    return (
        f"{scheduler:16s} {wall:7.1f} s wall, {cpu:7.1f} s CPU, peak {rss_mb:7.0f} MB; "
        f"{doc['scheduled']}/{len(statuses)} scheduled, {statuses.count('not-run')} not run, "
        f"{statuses.count('not-enough-resources')} did not fit ({evicted} of them evicted)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="storm-large-cluster-02")
    parser.add_argument("--scheduler", action="append", choices=list(SCHEDULERS))
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--param", action="append", metavar="K=V", help="scheduler parameter")
    args = parser.parse_args(argv if argv is not None else [])
    print(f"{args.preset}: slotscope schedule per scheduler, each in its own process")
    for scheduler in args.scheduler or list(SCHEDULERS):
        params = args.param if scheduler in _accepting(args.param) else []
        print(run(args.preset, scheduler, args.timeout, params), flush=True)


def _accepting(params: list[str] | None) -> set[str]:
    """Schedulers that take every given parameter (the others run without them)."""
    names = {p.split("=", 1)[0] for p in params or []}
    return {sid for sid, spec in SCHEDULERS.items() if names <= {p.name for p in spec.params}}


if __name__ == "__main__":
    main(sys.argv[1:])

"""A handful of fuzz cases as real ``slotscope`` processes, `simulate` on real Spark.

The corpus (``test_fuzz.py``) runs the commands in process; these check what
only a real process shows: the exit status as the shell sees it, everything
the process (and Spark's JVM) writes to stderr, and Spark's own failures
(a bad master, a task that raises). Each must end within the fuzz deadline.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fuzz_cases import dumps, flink_plan
from fuzz_harness import HANG_S, Outcome, judge_cli
from fuzz_known import KNOWN

from core.presets import preset_json

ROOT = Path(__file__).resolve().parents[2]


def run_process(argv: list[str], timeout_s: float = HANG_S) -> Outcome:
    """``python -m core ARGV`` in its own process group, killed at the deadline."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "core", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    killed = ""
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        killed = "hang"
    return Outcome(
        value=proc.returncode,
        raised="",
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        seconds=time.perf_counter() - start,
        rss_growth=0,
        killed=killed,
    )


def over_the_hop_limit(tmp: Path) -> str:
    """WordCount whose split emits 100 words per sentence: 2,000,000 spout tuples exceed
    the simulator's 40,000,000 tuple-hops, refused inside the Spark task."""
    doc = preset_json("wordcount")
    for c in doc["topology"]["components"]:
        if c["id"] == "split":
            c["selectivity"] = 100.0
    path = tmp / "wordy.json"
    path.write_text(json.dumps(doc))
    return str(path)


def nan_scenario(tmp: Path) -> str:
    path = tmp / "nan.json"
    path.write_bytes(dumps({**preset_json("wordcount"), "workload": {"rate": float("nan")}}))
    return str(path)


def flink_file(tmp: Path) -> str:
    path = tmp / "plan.json"
    path.write_bytes(dumps(flink_plan([1, 3, 1])))
    return str(path)


SIM = ["simulate", "nasiri-example", "--scheduler", "even", "--tuples", "100"]
CASES = [
    # name, argv (a callable of the temporary folder fills in a file), expect, names
    (
        "real:schedule-ok",
        lambda t: ["schedule", "wordcount", "--scheduler", "even", "--json"],
        "ok",
        (),
    ),
    (
        "real:schedule-nan",
        lambda t: ["schedule", nan_scenario(t), "--scheduler", "even"],
        "error",
        ("rate", "nan.json"),
    ),
    ("real:import-ok", lambda t: ["import", flink_file(t)], "ok", ()),
    ("real:import-missing", lambda t: ["import", str(t / "none.json")], "error", ("none.json",)),
    ("real:spark-simulate-ok", lambda t: SIM, "ok", ()),
    ("real:spark-master-local0", lambda t: [*SIM, "--master", "local[0]"], "error", ("--master",)),
    (
        "real:spark-master-k8s",
        lambda t: [*SIM, "--master", "k8s://https://127.0.0.1:9"],
        "error",
        ("--master",),
    ),
    (
        "real:spark-master-closed-port",
        lambda t: [*SIM, "--master", "spark://127.0.0.1:9"],
        "error",
        ("--master", "Spark master"),
    ),
    (
        "real:spark-over-hop-limit",
        lambda t: ["simulate", over_the_hop_limit(t), "--scheduler", "even", "--tuples", "2000000"],
        "error",
        ("--tuples", "tuples"),
    ),
]


@pytest.mark.parametrize(
    ("name", "argv", "expect", "names"),
    [
        pytest.param(
            *case,
            id=case[0],
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN[case[0]])]
            if case[0] in KNOWN
            else [],
        )
        for case in CASES
    ],
)
def test_real_process(name, argv, expect, names, tmp_path):
    outcome = run_process(argv(tmp_path))
    problems = judge_cli(outcome, expect, names)
    if outcome.value == 0:
        # a success prints only its result: no Spark logging on stderr
        noise = [line for line in outcome.stderr.splitlines() if line.strip()]
        if name.startswith("real:import"):
            noise = [line for line in noise if not line.startswith("slotscope: assumed:")]
        if noise:
            problems.append(f"{len(noise)} lines on stderr: {' | '.join(noise[:3])[:300]}")
    tail = outcome.stderr.strip().splitlines()[-3:]
    assert not problems, f"{problems} (exit {outcome.value}, {outcome.seconds:.1f} s, {tail})"

"""The fuzz corpus of issue 23 as tests: every case ends in a success or in one clear refusal.

`slotscope schedule`, `simulate`, `import` and `dashboard` run in process
(``dashboard.cli.main``, the console script); the dashboard's upload, import,
edit and parameter callbacks are called as functions. Cases run in forked
children with a 2 GB memory cap and a 60 s deadline (see ``fuzz_harness``).
`simulate` runs its tasks in the child instead of on Spark (``serial_spark``):
the flags and the scenario are judged the same way, and no case may start
Spark; ``test_fuzz_real.py`` runs a handful on Spark in real processes. Cases
that still fail are listed in ``fuzz_known.py`` with their cause and marked
``xfail(strict=True)``, so a fix shows up as an unexpected pass.
"""

from __future__ import annotations

import atexit
import base64
import contextvars
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dash import no_update
from dash._callback_context import context_value
from dash._utils import AttributeDict, to_json
from fuzz_cases import (
    DEV_ZERO,
    DIRECTORY,
    FIFO,
    MISSING,
    SPARSE_60MB,
    Case,
    all_cases,
)
from fuzz_harness import RAW_EXCEPTION, Outcome, bounded, cli_func, judge_cli, run_batch
from fuzz_known import KNOWN

from core.presets import preset
from dashboard import compute, editors, ids, importer, panel_content, scenario_bar
from dashboard.rows import scenario_rows

CASES = all_cases()
GROUP = {case.name: group for group, cases in CASES.items() for case in cases}
BATCH = 25  # cases per forked child
# ... except these commands' cases, each tens of seconds: a batch would run the next case
# too, and under pytest-xdist that case's own test may run on the other worker again
ALONE = {"refresh": 1}
WORK = Path(tempfile.mkdtemp(prefix="slotscope-fuzz-"))  # the CLI cases' files
atexit.register(shutil.rmtree, WORK, True)
_outcomes: dict[str, Outcome] = {}
_names: dict[str, tuple[str, ...]] = {}


def params(*commands: str) -> list[Any]:
    """The cases of ``commands`` as pytest params, known failures marked xfail(strict)."""
    out = []
    for command in commands:
        for case in CASES[command]:
            marks = []
            if case.name in KNOWN:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[case.name]))
            out.append(pytest.param(case, id=case.name, marks=marks))
    return out


def materialise(case: Case, tmp: Path) -> tuple[list[str], tuple[str, ...]]:
    """Write the case's files under ``tmp``; its argv and names with the paths filled in."""
    paths, shown = {}, {}
    for i, (name, content) in enumerate(case.files):
        path = tmp / name
        if content == DIRECTORY:
            path.mkdir()
        elif content == FIFO:
            os.mkfifo(path)
        elif content == DEV_ZERO:
            path = Path("/dev/zero")
        elif content == SPARSE_60MB:
            with open(path, "wb") as fh:
                fh.truncate(60 * 1024 * 1024)
        elif content != MISSING:
            path.write_bytes(content)
        paths[f"{{f{i}}}"], shown[f"{{f{i}}}"] = str(path), path.name
    paths["{tmp}"] = shown["{tmp}"] = str(tmp)

    def fill(text: str, table: dict[str, str]) -> str:
        for key, value in table.items():
            text = text.replace(key, value)
        return text

    argv = [fill(a, paths) for a in case.args]
    return argv, tuple(fill(n, shown) for n in case.names)


def no_spark(master: str | None = None) -> None:
    """A forked child must not talk to the test process's Spark session, if it has one."""
    from core.spark import SparkUnavailable

    raise SparkUnavailable("no Spark session in a fuzz case")


def serial_spark() -> None:
    """In the child: the Spark job runs its tasks in process, one after the other."""
    from core import spark

    spark.get_session = no_spark
    spark.map_tasks = lambda func, tasks, **_: [func(t) for t in tasks]
    spark.engine_info = lambda master=None: {
        "master": "in-process",
        "spark_version": "-",
        "default_parallelism": 1,
    }


def report(outcome: Outcome, problems: list[str]) -> str:
    tail = outcome.stderr.strip().splitlines()[-3:]
    return (
        "; ".join(problems) + f" (exit {outcome.value!r}, {outcome.seconds:.1f} s, stderr: {tail})"
    )


def outcome_of(case: Case, make: Callable[[Case], Callable[[], Any]]) -> Outcome:
    """The case's outcome: run with the next cases of its group (up to BATCH) in one child,
    the first time one of them is asked for."""
    if case.name not in _outcomes:
        group = CASES[GROUP[case.name]]
        start = next(i for i, c in enumerate(group) if c.name == case.name)
        size = ALONE.get(case.command, BATCH)
        chunk = [c for c in group[start : start + size] if c.name not in _outcomes]
        funcs = [make(c) for c in chunk]
        _outcomes.update(zip([c.name for c in chunk], run_batch(funcs), strict=True))
    return _outcomes.pop(case.name)


def command_func(case: Case) -> Callable[[], int]:
    """The case as ``slotscope ARGV`` in process, its files written under WORK."""
    folder = WORK / str(len(_names))
    folder.mkdir()
    argv, _names[case.name] = materialise(case, folder)
    return cli_func(argv, patch=serial_spark)


@pytest.mark.parametrize("case", params("schedule", "simulate", "import", "dashboard"))
def test_command(case: Case) -> None:
    outcome = outcome_of(case, command_func)
    problems = judge_cli(outcome, case.expect, _names[case.name])
    assert not problems, report(outcome, problems)


# The dashboard's callbacks: each returns what Dash would send; a refusal is a message


def text_of(component: Any) -> str:
    """The text a Dash component shows (its children, flattened)."""
    if component is None or component is no_update:
        return ""
    if isinstance(component, str | int | float):
        return str(component)
    if isinstance(component, list | tuple):
        return "".join(text_of(c) for c in component)
    return text_of(getattr(component, "children", None))


def sent(value: Any) -> str:
    """The JSON Dash sends for a callback's output (no_update left out)."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if v is not no_update}
    elif isinstance(value, tuple | list):
        value = [None if v is no_update else v for v in value]
    return to_json(value)


def data_url(raw: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(raw).decode()


def refusal(applied: bool, message: str) -> dict[str, Any]:
    return {"applied": applied, "message": message}


def call_upload(payload: dict[str, Any]) -> dict[str, Any]:
    if "files" in payload:
        ((filename, raw),) = payload["files"]
        contents = data_url(raw)
    else:
        contents, filename = payload["contents"], payload["filename"]

    def call() -> Any:
        trigger = [{"prop_id": f"{ids.UPLOAD}.contents", "value": contents}]
        context_value.set(AttributeDict(triggered_inputs=trigger))
        return scenario_bar.load_scenario(None, contents, filename)

    out = contextvars.copy_context().run(call)
    sent(out)
    return refusal(out[0] is not no_update, text_of(out[10]))  # the bar's message


def call_import_upload(payload: dict[str, Any]) -> dict[str, Any]:
    files = payload["files"]
    out = importer.import_topology([data_url(raw) for _, raw in files], [n for n, _ in files])
    sent(out)
    return refusal(out[0] is not no_update, text_of(out[10]))  # the bar's message


EDIT_ROW = {"nodes": -1, "components": 1, "streams": 0}


def call_edit(payload: dict[str, Any]) -> dict[str, Any]:
    scenario = preset(payload["seed"])
    base = scenario.to_json_dict()
    rows = scenario_rows(scenario)
    workers, ackers = scenario.topology.workers, scenario.topology.ackers
    grid, column, value = payload["grid"], payload["column"], payload["value"]
    if grid is None:
        workers, ackers = (value, ackers) if column == "workers" else (workers, value)
    else:
        row = min(EDIT_ROW[grid], len(rows[grid]) - 1)
        rows[grid][row][column] = value
    out = editors.apply_edits(
        edits=[None] * 3, rows=rows, workers=workers, ackers=ackers, base=base, current=base
    )
    sent(out)
    message = text_of(out["message"])
    if not message and out["scenario"] is not no_update:
        json.dumps(out["scenario"], allow_nan=False)  # the scenario in force is plain JSON
    return refusal(not message, message)


def call_params(payload: dict[str, Any]) -> dict[str, Any]:
    pid = ids.param_id(payload["scheduler"], payload["param"])
    stored, message = scenario_bar.apply_params([payload["value"]], [pid], {})
    sent((stored, message))
    if stored is not no_update:
        json.dumps(stored, allow_nan=False)  # a value in force is finite
    return refusal(not text_of(message), text_of(message))


def call_refresh(payload: dict[str, Any]) -> dict[str, Any]:
    data = preset(payload["seed"]).to_json_dict()
    data["topology"]["components"][payload["component"]]["parallelism"] = payload["parallelism"]
    text = compute.canonical(data)
    content = panel_content.panel_content(text, payload["scheduler"], "{}", 1000.0)
    sent(list(vars(content).values()))
    return refusal(True, "")


CALLBACKS = {
    "upload": call_upload,
    "import-upload": call_import_upload,
    "edit": call_edit,
    "params": call_params,
    "refresh": call_refresh,
}


def judge_callback(outcome: Outcome, case: Case) -> list[str]:
    """A callback must return (never raise: that is an HTTP 500); a refusal is one line
    naming the field."""
    problems = bounded(outcome)
    if problems:
        return problems
    applied, message = outcome.value["applied"], outcome.value["message"]
    if applied:
        return ["accepted, should be refused"] if case.expect == "error" else []
    if case.expect == "ok":
        problems.append("refused, should be accepted")
    if "\n" in message.strip() or not message.strip():
        problems.append(f"message not one line: {message[:200]!r}")
    if RAW_EXCEPTION.search(message):
        problems.append(f"raw exception: {message[:200]}")
    elif case.names and not any(n.lower() in message.lower() for n in case.names):
        problems.append(f"names none of {list(case.names)[:4]}: {message[:200]}")
    if any(ord(c) < 32 for c in message):
        problems.append(f"control characters shown: {message[:200]!r}")
    return problems


def callback_func(case: Case) -> Callable[[], dict[str, Any]]:
    call = CALLBACKS[case.command]
    return lambda: call(case.payload)


@pytest.mark.parametrize("case", params("upload", "edit", "params", "refresh"))
def test_callback(case: Case) -> None:
    outcome = outcome_of(case, callback_func)
    problems = judge_callback(outcome, case)
    assert not problems, report(outcome, problems)


def test_the_corpus_is_large_and_deterministic() -> None:
    """At least 1,000 cases, every command covered, the same names on every build."""
    counts = {command: len(cases) for command, cases in CASES.items()}
    assert sum(counts.values()) >= 1000
    assert min(counts.values()) >= 2
    again = all_cases()
    assert [c.name for c in again["schedule"]] == [c.name for c in CASES["schedule"]]
    every = [c.name for cases in CASES.values() for c in cases]
    assert len(every) == len(set(every)), "case names must be unique"
    assert set(KNOWN) <= set(every), "an xfail names no case"

"""A comparison: schedulers x offered rates x replicas, as plain tasks.

Everything a Spark task runs lives here, as plain Python the tests and the
dashboard call directly: :func:`comparison_tasks` lists the tasks,
:func:`run_task` runs one (scheduler, then simulation) and returns one result
row of the ``simulate --json`` contract. :func:`compare` is the whole
pipeline (tasks, run, sort, gaps) over a task mapper: the built-in ``map`` in
process, or ``core.spark.map_tasks``, which only ships the tasks and brings
back the rows; this module never imports Spark.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from core.figures import Result, Skipped, row_of
from core.model import Scenario, parse_scenario
from core.placement import SchedulerError
from core.registry import SCHEDULERS, feed, get_scheduler, run_spec
from core.settings import DEFAULT_TUPLES, SettingsError  # noqa: F401  (SettingsError: old imports)
from core.simulator import simulate

Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]
# schedulers that start from every other scheduler's placement: the longest tasks by far
SEARCHES = ("optimal", "slotscope")


def scheduler_list(requested: Sequence[str]) -> list[str]:
    """Expand ``all`` and check every id against the registry, keeping order."""
    out: list[str] = []
    for sid in requested:
        ids = list(SCHEDULERS) if sid == "all" else [sid]
        for s in ids:
            get_scheduler(s)
            if s not in out:
                out.append(s)
    return out


def comparison_tasks(
    scenario: Scenario,
    schedulers: Sequence[tuple[str, Mapping[str, Any]]],
    rates: Sequence[float],
    replicas: int = 1,
    tuples: int = DEFAULT_TUPLES,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One JSON-ready task per (scheduler, rate, replica)."""
    text = json.dumps(scenario.to_json_dict(), sort_keys=True)
    return [
        {
            "scenario": text,
            "scheduler": sid,
            "params": dict(params),
            "rate": float(rate),
            "replica": replica,
            "tuples": tuples,
            "seed": seed,
        }
        for sid, params in schedulers
        for rate in rates
        for replica in range(replicas)
    ]


def at_rate(scenario: Scenario, rate: float) -> Scenario:
    """The scenario with its offered rate set to ``rate`` (what schedulers optimise for)."""
    if scenario.workload.rate == rate:
        return scenario
    workload = scenario.workload.model_copy(update={"rate": float(rate)})
    return scenario.model_copy(update={"workload": workload})


@functools.lru_cache(maxsize=8)
def _scenario(text: str) -> Scenario:
    return parse_scenario(text)


@functools.lru_cache(maxsize=32)
def _placed(text: str, rate: float, sid: str, params: str):
    """One placement per (scenario, rate, scheduler, params) in a process: replicas of a
    task share it (a search such as ``optimal`` is solved once, not once per replica)."""
    spec = get_scheduler(sid)
    scenario = feed(at_rate(_scenario(text), rate), spec, rate)
    return run_spec(spec, scenario, json.loads(params))


def placement_key(task: Mapping[str, Any]) -> tuple[str, float, str, str]:
    """What a task's placement depends on: tasks with equal keys share one :func:`_placed`.

    The ``key`` for a mapper that can run such tasks together (e.g.
    ``core.spark.map_tasks``): a replica's placement is then a cache hit in
    the worker that solved it, not a new solve in another worker.
    """
    return (
        task["scenario"],
        task["rate"],
        task["scheduler"],
        json.dumps(task["params"], sort_keys=True),
    )


def scheduler_key(task: Mapping[str, Any]) -> tuple[str, str, str]:
    """What a task's scheduler shares across rates: tasks with equal keys run best in one
    worker, one after the other.

    The ``key`` for a mapper that can run such tasks together (e.g.
    ``core.spark.map_tasks``) when a comparison sweeps rates: a search's memo of R* per
    placement does not depend on the rate, so ``slotscope`` at the second rate of a sweep
    costs a fraction of the first (wordcount: 0.2 s after 3.4 s) in the worker that ran the
    first, and the whole cost again in another. Each placement is still one
    :func:`_placed` per :func:`placement_key`.
    """
    return task["scenario"], task["scheduler"], json.dumps(task["params"], sort_keys=True)


def searches_first(tasks: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tasks, the searches' first, otherwise in their order: a mapper that starts tasks in
    order (``core.spark.map_tasks``) then starts the longest first, and the cheap tasks
    fill the other cores meanwhile instead of leaving a search to run alone at the end.

    >>> tasks = [{"scheduler": "even"}, {"scheduler": "slotscope"}, {"scheduler": "lf"}]
    >>> [t["scheduler"] for t in searches_first(tasks)]
    ['slotscope', 'even', 'lf']
    """
    return sorted(tasks, key=lambda t: t["scheduler"] not in SEARCHES)


def run_task(task: Mapping[str, Any]) -> dict[str, Any]:
    """Schedule and simulate one task; one result row (never raises for a failed placement).

    The row is :meth:`core.figures.Result.to_json` (or :meth:`~core.figures.Skipped.to_json`
    when the placement could not be made): plain JSON types, what a Spark task ships back.
    """
    scenario = at_rate(_scenario(task["scenario"]), task["rate"])
    try:
        schedule = _placed(*placement_key(task))
    except SchedulerError as err:
        skipped = Skipped(
            task["scheduler"], task["rate"], task["replica"], "refused", str(err), 0.0
        )
        return skipped.to_json()
    if not schedule.ok:
        return Skipped(
            task["scheduler"],
            task["rate"],
            task["replica"],
            schedule.status.value,
            schedule.message,
            schedule.elapsed_ms,
        ).to_json()
    row = simulate(
        scenario,
        schedule,
        rate=task["rate"],
        replica=task["replica"],
        tuples=task["tuples"],
        seed=task["seed"],
    )
    return Result.from_json(row).to_json()


Row = Result | Skipped


def sort_results(rows: Sequence[Row], order: Sequence[str]) -> list[Row]:
    """Rows in the requested scheduler order, then by rate and replica."""
    rank = {s: i for i, s in enumerate(order)}
    return sorted(rows, key=lambda r: (rank.get(r.scheduler, 99), r.rate, r.replica))


def add_gaps(rows: Sequence[Row]) -> list[Row]:
    """``gap_to_best`` on every result when ``optimal`` ran (issue 6).

    gap = 1 - throughput / the best throughput among the schedulers run at the
    same rate and replica.
    """
    results = [r for r in rows if isinstance(r, Result)]
    if not any(r.scheduler == "optimal" for r in results):
        return list(rows)
    best: dict[tuple[float, int], float] = {}
    for r in results:
        key = (r.rate, r.replica)
        best[key] = max(best.get(key, 0.0), r.throughput)
    out: list[Row] = []
    for r in rows:
        top = best.get((r.rate, r.replica), 0.0)
        out.append(r.with_gap(top) if isinstance(r, Result) and top > 0 else r)
    return out


def compare(
    scenario: Scenario,
    schedulers: Sequence[tuple[str, Mapping[str, Any]]],
    rates: Sequence[float],
    replicas: int = 1,
    tuples: int = DEFAULT_TUPLES,
    seed: int = 0,
    mapper: Mapper = map,
    engine: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run a comparison: one task per (scheduler, rate, replica), through ``mapper``.

    Parameters
    ----------
    mapper : callable
        ``mapper(func, tasks)`` -> results in order: the built-in ``map``
        (default, in process) or a distributed one such as
        ``functools.partial(core.spark.map_tasks, group=..., progress=...)``.
    engine : mapping, optional
        What ran it (e.g. ``core.spark.engine_info()``), first in ``engine``.

    Returns
    -------
    dict
        ``{"engine": {..., "tasks", "wall_s"}, "results": [...], "skipped": [...]}``:
        one result per task that could be placed, and for the others (status
        ``refused`` or ``not-enough-resources``) why not.
    """
    # the searches first (the rows are sorted below, so the order of the tasks shows nowhere)
    tasks = searches_first(comparison_tasks(scenario, schedulers, rates, replicas, tuples, seed))
    start = time.perf_counter()
    rows = [row_of(r) for r in mapper(run_task, tasks)]
    wall_s = time.perf_counter() - start
    rows = add_gaps(sort_results(rows, [s for s, _ in schedulers]))
    return {
        "engine": {**(engine or {}), "tasks": len(tasks), "wall_s": round(wall_s, 3)},
        "results": [r.to_json() for r in rows if isinstance(r, Result)],
        # placements that could not be made (a refused search, not enough resources):
        # listed apart, so every entry of "results" carries the full set of figures
        "skipped": [r.to_json() for r in rows if isinstance(r, Skipped)],
    }


def explain_failure(err: BaseException) -> str:
    """One line for an unexpected failure (the CLI never prints a traceback)."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return f"{type(err).__name__}: {text}" if text else type(err).__name__

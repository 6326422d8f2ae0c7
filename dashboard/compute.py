"""The dashboard's one way into the core, memoised per scenario hash.

Callbacks pass the scenario as canonical JSON text (hashable, so it keys
``functools.lru_cache``), a scheduler id, its parameters as JSON text and
the offered rate. Each step is computed once and shared by every panel,
the ranking strip, the compare table and the what-if table:

- :func:`scenario_of`: the text parsed and validated, once per text;
- :func:`graph_of`: its topology graph, once per parallelism (shared by the
  schedulers that keep the scenario's parallelism);
- :func:`observed`: the scenario with runtime observations, once per
  (text, rate): a simulation of the placement the observing scheduler assumes
  is running (its ``SchedulerSpec.running_placement``), taken from the memo
  below, so aniello-online reuses the aniello-offline panel's placement;
  :func:`measured`: the same observations as values, which aniello-online
  takes instead (:data:`MEASURED_RUNS`: no 20,000 flow models per edit);
- :func:`placed`: one scheduler's schedule and its topology graph (its static
  metrics when first read), once per (text, scheduler, resolved parameters), and per rate only
  for the schedulers that read observations (the others do not depend on it);
- :func:`evaluate`: :func:`placed` plus the analytic steady state at the rate.

``slotscope`` starts from every paper scheduler's placement: it is handed the
ones :func:`placed` has (or computes, once) instead of running them again
(:func:`starting_placements`), so a refresh runs each paper scheduler once.

With evaluation processes (:func:`start_processes`, ``SLOTSCOPE_PLACEMENT_PROCESSES``),
:func:`evaluate` runs in the process its scenario text hashes to, whose memo
holds that scenario's whole chain; this process keeps the evaluations it got
back, so the ranking, compare table and maps share them without asking again.
With search processes (``SLOTSCOPE_SEARCH_PROCESSES``), the background placements
(:func:`evaluate_in_background`: the searches and the large scenarios'
placements, ``dashboard.jobs.in_background``) run in processes of their own at
niceness ``SEARCH_NICE``: a search never holds up a panel evaluated in the
foreground, nor takes this process's GIL or the CPU from the page's requests.

Nothing here raises for bad input: a failure comes back as
``Evaluation.error``. Schedulers run in process (no Spark), on the scenario
as edited (its own workload rate): the rate input sets what the placement is
analysed and observed at.
"""

from __future__ import annotations

import functools
import gc
import json
import logging
import math
import multiprocessing
import os
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from core.metrics import PlacementMetrics, placement_metrics
from core.model import Scenario, ScenarioError, validate_scenario
from core.problem import Problem, problem_of
from core.registry import (
    PAPER_SCHEDULERS,
    SCHEDULERS,
    Schedule,
    SchedulerError,
    get_scheduler,
    resolve_params,
    with_observations,
)
from core.schedulers import aniello_online
from core.schedulers.base import Outcome, run_spec
from core.search import slotscope
from core.simulator import Analysis, analyze, observed_values
from core.topology import TopologyGraph
from core.topology_set import SetSchedule, schedule_set
from dashboard import set_placement

log = logging.getLogger(__name__)
SEARCHES = ("optimal", "slotscope")  # schedulers that start from the others' placements


class _LazyMetrics:
    """:attr:`metrics` of a placement: its static metrics (:func:`core.metrics.placement_metrics`)
    when ``complete`` (every executor placed), else None, computed when first read and kept.
    The page reads them only where the analysis failed (3-5% of a refresh's CPU otherwise)."""

    schedule: Schedule | None
    graph: TopologyGraph | None
    complete: bool | None

    @property
    def metrics(self) -> PlacementMetrics | None:
        found = self.__dict__.get("_metrics", self)
        if found is self:
            found = None
            if self.complete and self.graph is not None and self.schedule is not None:
                found = placement_metrics(self.graph, self.schedule.placement())
            object.__setattr__(self, "_metrics", found)  # a cache on a frozen dataclass
        return found


@dataclass(frozen=True)
class Evaluation(_LazyMetrics):
    """One scheduler's placement of one scenario, with what it costs; ``complete``: every
    executor is placed (:attr:`metrics` then has its static metrics)."""

    scheduler: str
    schedule: Schedule | None
    graph: TopologyGraph | None
    complete: bool | None
    analysis: Analysis | None = None
    error: str = ""
    server_ms: float = 0.0


@dataclass(frozen=True)
class Placed(_LazyMetrics):
    """A schedule with its graph; ``complete``: every executor is placed (:attr:`metrics`
    then has its static metrics)."""

    schedule: Schedule
    graph: TopologyGraph
    complete: bool
    server_ms: float


def canonical(data: Mapping[str, Any]) -> str:
    """Canonical JSON text of a JSON-ready mapping (the cache key). A whole float is
    written as an integer, as the browser sends it back (JavaScript has one number
    type), so the page served and its callbacks key the same placements.

    >>> canonical({"rate": 50000.0, "ghz": 3.4}) == canonical({"ghz": 3.4, "rate": 50000})
    True
    """
    return json.dumps(_as_browser_sends(data), sort_keys=True, separators=(",", ":"))


def _as_browser_sends(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, Mapping):
        return {k: _as_browser_sends(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_browser_sends(v) for v in value]
    return value


@lru_cache(maxsize=64)
def scenario_of(text: str) -> Scenario:
    """The validated scenario of canonical JSON text (raises ScenarioError)."""
    return validate_scenario(json.loads(text))


def resolved_params(scheduler: str, params_text: str) -> str:
    """Canonical text of the parameters with the registry's defaults filled in, so
    ``{}`` and the defaults spelled out share one cache entry (raises SchedulerError).

    >>> resolved_params("top-storm", "{}") == resolved_params("top-storm", '{"alpha": 0.8}')
    True
    """
    resolved = resolve_params(get_scheduler(scheduler), json.loads(params_text))
    return json.dumps(resolved, sort_keys=True)


def observation_rate(scheduler: str, rate: float) -> float | None:
    """The rate a scheduler's placement depends on: the rate for those that read
    observations, None for the others (their placement is the same at every rate)."""
    return float(rate) if SCHEDULERS[scheduler].running_placement else None


# An observed x10 preset holds 20,000 flows (as models, 40,000 objects the garbage
# collector walks on every full pass): keep only the latest few; placed() keeps what
# they gave.
OBSERVED_KEPT = 4


@lru_cache(maxsize=OBSERVED_KEPT)
def observed(text: str, rate: float, scheduler: str) -> Scenario:
    """The scenario with observations of what ``scheduler`` assumes is running, at ``rate``."""
    running = SCHEDULERS[scheduler].running_placement
    current = placed(text, running, resolved_params(running, "{}"), None).schedule
    return with_observations(scenario_of(text), rate, running, current=current)


# Schedulers that read observations and take them as values (``core.simulator.observed_values``)
# rather than as a scenario's models: on an x10 preset, building aniello-online's 20,000
# observed flows as models and reading them back was half its placement's CPU, and the
# 40,000 tracked objects a refresh set off the cyclic collector's full passes (17-35 ms
# per refresh on average over the presets' edits, 5-10 ms without them). The placement
# is the same, decision for decision: tests/dashboard/test_compute.py.
MEASURED_RUNS: dict[str, Callable[..., Outcome]] = {
    "aniello-online": aniello_online.schedule_measured,
}


@lru_cache(maxsize=OBSERVED_KEPT)
def measured(text: str, rate: float, scheduler: str) -> aniello_online.Measured:
    """:func:`observed`'s observations as values, for a :data:`MEASURED_RUNS` scheduler."""
    running = SCHEDULERS[scheduler].running_placement
    current = placed(text, running, resolved_params(running, "{}"), None).schedule
    return aniello_online.Measured(*observed_values(scenario_of(text), current, rate))


def _observed_itself(text: str) -> bool:
    """Whether the scenario carries observed traffic of its own (then read as it is, as
    ``core.schedulers.with_observations`` does)."""
    obs = scenario_of(text).observations
    return obs is not None and bool(obs.traffic)


def observed_problem(text: str, rate: float, scheduler: str) -> Problem:
    """The :class:`core.problem.Problem` of :func:`observed`: the scenario's own with the
    observed scenario in it. A Problem's graph, node arrays and service matrices do not
    read observations, so they are the scenario's; looking the observed scenario up by
    its content would hash its (up to 20,000) observed flows on every edit instead."""
    own = problem_of(scenario_of(text))
    key = f"{own.key}:observed:{scheduler}@{rate!r}"
    return replace(own, scenario=observed(text, rate, scheduler), key=key)


@lru_cache(maxsize=64)
def graph_of(text: str, parallelism: tuple[tuple[str, int], ...]) -> TopologyGraph:
    """The topology graph at a parallelism, shared by every scheduler that keeps it
    (the :class:`core.problem.Problem`'s, built once per topology content)."""
    return problem_of(scenario_of(text), dict(parallelism)).graph


def _fully_placed(graph: TopologyGraph, schedule: Schedule) -> bool:
    done = {a.executor for a in schedule.assignments}
    return all(e in done for c in graph.order for e in graph.executors(c))


# Schedulers that choose every component's parallelism themselves and read nothing that
# depends on the scenario's: hetero reads the graph's components (CPU, selectivity,
# inputs), the nodes and the profiling (core/schedulers/hetero.py), never a count. An
# edit of a parallelism then reuses their placement (python -m bench load: hetero was a
# quarter of a refresh's CPU); tests/dashboard/test_compute.py checks the same placement.
PARALLELISM_FREE = ("hetero",)


def parallelism_free(text: str) -> str | None:
    """The scenario ``text`` with every component's parallelism 1 (canonical), the key of
    a :data:`PARALLELISM_FREE` scheduler's placement; None for a topology set or a text
    that is then no longer valid (observations of executors beyond the first, say).

    >>> import json
    >>> from core.presets import preset_json
    >>> data = preset_json("wordcount")
    >>> data["topology"]["components"][0]["parallelism"] = 7
    >>> free = parallelism_free(canonical(data))
    >>> {c["parallelism"] for c in json.loads(free)["topology"]["components"]}
    {1}
    """
    if scenario_of(text).is_set:
        return None
    data = json.loads(text)
    for component in data["topology"]["components"]:
        component["parallelism"] = 1
    free = canonical(data)
    try:
        scenario_of(free)
    except ScenarioError:
        return None
    return free


@lru_cache(maxsize=1024)
def placed(text: str, scheduler: str, params_key: str, rate: float | None) -> Placed:
    """One scheduler's schedule and graph (raises ScenarioError,
    SchedulerError). ``params_key`` is :func:`resolved_params`; ``rate`` is
    :func:`observation_rate`. A :data:`PARALLELISM_FREE` scheduler's schedule is the one
    of :func:`parallelism_free` (shared by every parallelism of the scenario)."""
    start = time.perf_counter()
    if scheduler in PARALLELISM_FREE and rate is None:
        free = parallelism_free(text)
        if free is not None and free != text:
            shared = placed(free, scheduler, params_key, rate)
            graph = graph_of(text, tuple(sorted(shared.schedule.parallelism.items())))
            complete = _fully_placed(graph, shared.schedule)
            return Placed(shared.schedule, graph, complete, shared.server_ms)
    params = json.loads(params_key)
    if set_placement.is_set(scenario_of(text)):  # every scheduler, searches too: a set's
        # own treatment (core/topology_set.py), which observes each topology's running
        # placement itself where a scheduler reschedules one (the union's may be partial)
        schedule = set_placement.union_schedule(scenario_of(text), scheduler, params, rate)
    elif rate is not None and scheduler in MEASURED_RUNS and not _observed_itself(text):
        # the simulator's observations handed over as values (no 20,000 flow models)
        run = functools.partial(MEASURED_RUNS[scheduler], obs=measured(text, rate, scheduler))
        schedule = run_spec(replace(SCHEDULERS[scheduler], run=run), scenario_of(text), params)
    else:
        scenario = scenario_of(text) if rate is None else observed_problem(text, rate, scheduler)
        if scheduler == "slotscope":  # started from the memo's paper placements
            spec = replace(SCHEDULERS[scheduler], run=_slotscope_from_page(text))
            schedule = run_spec(spec, scenario, params)
        else:
            schedule = run_spec(get_scheduler(scheduler), scenario, params)
    graph = graph_of(text, tuple(sorted(schedule.parallelism.items())))
    complete = _fully_placed(graph, schedule)
    return Placed(schedule, graph, complete, (time.perf_counter() - start) * 1000.0)


def evaluate(scenario_text: str, scheduler: str, params_text: str, rate: float) -> Evaluation:
    """Schedule, measure and analyse one placement (memoised under the resolved parameters,
    so ``{}`` and the defaults spelled out share one evaluation: the panels, the ranking,
    the compare table and the maps ask with either). In the evaluation processes, when
    started (:func:`start_processes`)."""
    try:
        key = resolved_params(scheduler, params_text)
    except SchedulerError as err:
        return Evaluation(scheduler, None, None, None, error=str(err))
    except Exception as err:  # parameters that are not a JSON object, say
        return Evaluation(scheduler, None, None, None, error=f"{type(err).__name__}: {err}")
    return evaluated(scenario_text, scheduler, key, float(rate))


@lru_cache(maxsize=1024)
def evaluated(scenario_text: str, scheduler: str, params_key: str, rate: float) -> Evaluation:
    """:func:`evaluate` of resolved parameters: a background placement
    (:func:`evaluate_in_background`) in a search process when they run; any other in an
    evaluation process when they run (never ``IN_PROCESS`` schedulers); else here."""
    searches = _searches if getattr(_route, "background", False) else None
    if searches is not None:
        return searches.evaluate(scenario_text, scheduler, params_key, rate)
    pool = _processes
    if pool is not None and scheduler not in IN_PROCESS:
        return pool.evaluate(scenario_text, scheduler, params_key, rate)
    return evaluate_here(scenario_text, scheduler, params_key, rate)


def evaluate_in_background(
    scenario_text: str, scheduler: str, params_text: str, rate: float
) -> Evaluation:
    """:func:`evaluate` for a background placement (``dashboard.jobs.placements``' threads):
    in a search process when they run (:func:`start_processes`), else as :func:`evaluate`.
    Memoised here as :func:`evaluate`'s: the panel then reads it at once."""
    _route.background = True
    try:
        return evaluate(scenario_text, scheduler, params_text, rate)
    finally:
        _route.background = False


def evaluate_here(scenario_text: str, scheduler: str, params_key: str, rate: float) -> Evaluation:
    """Schedule, measure and analyse one placement in this process (``params_key``:
    :func:`resolved_params`)."""
    try:
        p = placed(scenario_text, scheduler, params_key, observation_rate(scheduler, rate))
    except (ScenarioError, SchedulerError) as err:
        return Evaluation(scheduler, None, None, None, error=str(err))
    except Exception as err:  # a scheduler bug must not take the page down
        log.exception("scheduler %s failed", scheduler)
        return Evaluation(scheduler, None, None, None, error=f"{type(err).__name__}: {err}")
    start = time.perf_counter()
    analysis = None
    if p.complete and p.schedule.ok:
        free = parallelism_free(scenario_text) if scheduler in PARALLELISM_FREE else None
        if free is not None:  # one analysis for every parallelism of the scenario
            analysis = analysed(free, scheduler, params_key, rate)
        else:
            analysis = analysed.__wrapped__(scenario_text, scheduler, params_key, rate)
    elapsed = p.server_ms + (time.perf_counter() - start) * 1000.0  # as if computed cold
    return Evaluation(scheduler, p.schedule, p.graph, p.complete, analysis, server_ms=elapsed)


@lru_cache(maxsize=256)
def analysed(text: str, scheduler: str, params_key: str, rate: float) -> Analysis | None:
    """The analytic steady state at ``rate`` of :func:`placed`'s placement (None when it
    fails). Memoised for the :data:`PARALLELISM_FREE` schedulers' shared placements: the
    analysis reads the schedule's parallelism, not the scenario's
    (``core.simulator.analyze``), so one serves every parallelism of the scenario."""
    schedule = placed(text, scheduler, params_key, observation_rate(scheduler, rate)).schedule
    try:
        return analyze(scenario_of(text), schedule, rate=rate)
    except Exception:
        log.exception("analysis of %s failed", scheduler)
        return None


def starting_placement(text: str, scheduler: str) -> Schedule | None:
    """A paper scheduler's placement with default parameters, as ``slotscope`` starts
    from it (at the scenario's own rate), from the memo; None when it did not succeed.

    The page's panel placement when the page's rate is the scenario's (the default).
    """
    rate = float(scenario_of(text).workload.rate)
    key = resolved_params(scheduler, "{}")
    schedule = placed(text, scheduler, key, observation_rate(scheduler, rate)).schedule
    return schedule if schedule.ok else None


def starting_placements(text: str) -> dict[str, Schedule]:
    """Every paper scheduler's successful placement (:func:`starting_placement`)."""
    starts = {sid: starting_placement(text, sid) for sid in PAPER_SCHEDULERS}
    return {sid: s for sid, s in starts.items() if s is not None}


def _slotscope_from_page(text: str) -> Callable[[Problem, Mapping[str, Any]], Any]:
    """``slotscope``'s search with a mapper that answers its starting tasks from the memo.

    Each task names a paper scheduler and carries the scenario ``text`` parses to;
    the answer is the memo's :class:`Schedule` (what
    :func:`core.search.slotscope.start_task` would return, without its round trip
    through plain JSON), or None.
    """

    def mapper(func: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        if func is not slotscope.start_task:
            return list(map(func, tasks))
        out = []
        for task in tasks:
            start = starting_placement(text, task["scheduler"])
            out.append(start)
        return out

    def run(problem: Problem, params: Mapping[str, Any]) -> Any:
        return slotscope.search(problem.scenario, params, mapper)

    return run


# -- Evaluation processes ------------------------------------------------------------

# Schedulers evaluated in the server process even when evaluation processes run: CP-SAT
# (``optimal``) solves in C++ threads of its own that release the GIL, and its searches of
# up to a minute would hold a process every other panel of its scenarios waits for. (From
# the page, ``optimal`` is a background placement: in a search process when they run.)
IN_PROCESS = ("optimal",)
PROCESSES_ENV = "SLOTSCOPE_PLACEMENT_PROCESSES"  # evaluation processes the app starts (0: none)
SEARCH_PROCESSES_ENV = "SLOTSCOPE_SEARCH_PROCESSES"  # search processes the app starts (0: none)
MAX_PROCESSES = 4
# The search processes' niceness (the server's own is 0), as Spark's JVM and workers
# (``dashboard.jobs.SPARK_NICE``): on a machine of few cores a background search takes the
# CPU the page's requests leave. Under 20 users (``python -m bench load``) the searches
# in the server's threads were 64% of its CPU (py-spy) and held its GIL from the panels.
SEARCH_NICE = 10


class EvaluationProcesses:
    """Processes that evaluate placements (:func:`evaluated`), so that scheduling and
    analysis use every core while the server process's threads serve the page.

    The server process holds the GIL for every Python step of its request threads: a
    request thread here waits for its evaluation without it. Each scenario goes to one
    process (a hash of its text), whose memo then holds its whole chain: the paper
    placements slotscope starts from, the placement aniello-online observes, the
    :class:`core.problem.Problem`. A process started by ``spawn`` (never a fork of a
    process with a py4j session, docs/architecture.md) imports the core once; a process
    that dies is replaced, and meanwhile its evaluations run in the server process.

    ``nice``: the processes' niceness (the search processes': ``SEARCH_NICE``). ``work``:
    what a process runs for an evaluation, a module-level function of
    (text, scheduler, params_key, rate) (:func:`evaluated`, the process's own memo).
    """

    def __init__(
        self,
        processes: int,
        nice: int = 0,
        work: Callable[[str, str, str, float], Evaluation] | None = None,
    ):
        self._pools: list[ProcessPoolExecutor | None] = [None] * processes
        self._lock = threading.Lock()
        self.nice = nice
        self.work = work or evaluated

    def _pool(self, index: int) -> ProcessPoolExecutor:
        with self._lock:
            pool = self._pools[index]
            if pool is None:
                context = multiprocessing.get_context("spawn")
                ready = functools.partial(_process_ready, self.nice)
                pool = ProcessPoolExecutor(1, mp_context=context, initializer=ready)
                self._pools[index] = pool
            return pool

    def _drop(self, index: int, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pools[index] is pool:
                self._pools[index] = None
        pool.shutdown(wait=False, cancel_futures=True)

    def warm(self) -> None:
        """Start every process now (each imports the core: seconds), not at the first edit."""
        for index in range(len(self._pools)):
            self._pool(index).submit(_process_ready)

    def evaluate(self, text: str, scheduler: str, params_key: str, rate: float) -> Evaluation:
        """:func:`evaluated` in the process of ``text``'s scenario."""
        index = zlib.crc32(text.encode()) % len(self._pools)
        pool = self._pool(index)
        try:
            return pool.submit(self.work, text, scheduler, params_key, rate).result()
        except (BrokenProcessPool, OSError, RuntimeError) as err:
            log.warning("evaluation process lost (%s): evaluating in the server", err)
            self._drop(index, pool)
            return evaluate_here(text, scheduler, params_key, rate)

    def shutdown(self) -> None:
        with self._lock:
            pools, self._pools = self._pools, [None] * len(self._pools)
        for pool in pools:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)


def _process_ready(nice: int = 0) -> None:
    """An evaluation process's start: its niceness raised by ``nice``; what it imported
    lives as long as it does (kept out of the cyclic collector's full passes, as the server
    does)."""
    if nice:
        os.nice(nice)
    gc.freeze()


_processes: EvaluationProcesses | None = None  # the foreground's evaluation processes
_searches: EvaluationProcesses | None = None  # the background placements' processes
_route = threading.local()  # .background: this thread evaluates a background placement


def start_processes(processes: int, searches: int = 0) -> EvaluationProcesses | None:
    """Evaluate placements in ``processes`` processes from now on (0: in this process), and
    background placements (:func:`evaluate_in_background`) in ``searches`` processes at
    niceness ``SEARCH_NICE`` (0: as the others); answers the evaluation processes (None for
    0). Memoised evaluations are kept."""
    global _processes, _searches
    if multiprocessing.parent_process() is not None:  # an evaluation process itself (spawn
        return None  # imports the server's main module again): evaluate here
    old = (_processes, _searches)
    _processes = _searches = None
    for pool in old:
        if pool is not None:
            pool.shutdown()
    if processes > 0:
        _processes = EvaluationProcesses(min(processes, MAX_PROCESSES))
        _processes.warm()
    if searches > 0:
        _searches = EvaluationProcesses(min(searches, MAX_PROCESSES), nice=SEARCH_NICE)
        _searches.warm()
    return _processes


def search_processes() -> EvaluationProcesses | None:
    """The background placements' processes (:func:`start_processes`), None when off."""
    return _searches


def processes_from_env(default: int = 0, name: str = PROCESSES_ENV) -> int:
    """``$SLOTSCOPE_PLACEMENT_PROCESSES`` (or the variable ``name``) as a count
    (``default`` when unset or not a whole number >= 0)."""
    text = os.environ.get(name, "").strip()
    return int(text) if text.isdigit() else default


def clear_caches() -> None:
    """Forget every memoised step (benchmarks measure a cold start)."""
    for step in (scenario_of, graph_of, observed, measured, placed, evaluated, analysed):
        step.cache_clear()


def headline(ev: Evaluation) -> dict[str, Any]:
    """The panel header's figures: None where the placement or the simulator has none.

    >>> headline(Evaluation("even", None, None, None))["throughput"] is None
    True
    """
    a = ev.analysis
    nodes = a.nodes_used if a else ev.metrics.nodes_used if ev.metrics else None
    slots = a.slots_used if a else ev.metrics.slots_used if ev.metrics else None
    max_rate = a.max_rate if a and math.isfinite(a.max_rate) else None
    return {
        "throughput": a.throughput if a else None,
        "sink_throughput": a.sink_throughput if a else None,
        "rate": a.rate if a else None,
        "max_rate": max_rate,
        "latency_estimate_ms": a.latency_estimate_ms if a else None,
        "nodes_used": nodes,
        "slots_used": slots,
        "saturated": a.saturated if a else None,
        "bottleneck": a.bottleneck if a else None,
    }


# -- Topology sets on the large presets (the Cluster view) ---------------------------


def topology_set_schedule(scenario: Scenario, scheduler: str) -> SetSchedule:
    """A topology set placed by one scheduler in Storm's order
    (:func:`core.topology_set.schedule_set`: a ``SetSchedule``, topologies that did not
    fit reported per topology). Not memoised here: the Cluster view keeps each result per
    (preset, scheduler) and runs it in the background placement pool.

    Raises whatever the scheduler raises (the view shows it in the scheduler's column).
    """
    return schedule_set(scenario, scheduler)

"""The best placement under the analytic model: CP-SAT, or exhaustive enumeration.

Objective (Nasiri et al.'s "maximum overall topology throughput"): the
largest maximum sustainable rate R* (:mod:`core.simulator.capacity`), ties
going to the lower latency estimate, then to fewer nodes, then to the first
found. Ranking by R* rather than by throughput at the offered rate keeps
candidates apart below saturation, where every placement carries the rate.

``method=cpsat`` (default): the placement is a CP-SAT model maximising R*
(:mod:`core.search.cpsat`, exact for the analytic capacity bounds), run
for at most ``time_limit`` seconds; ``details`` carries the solver status,
the proven bound on R* and the gap to it. Above 60 executors, when every
component's executors are interchangeable, the model counts executors per
node instead (:mod:`core.search.cpsat_counts`); the first decision says
which model ran. The bound is the solver's or, when tighter, the bound from
the serialisation no placement avoids (:mod:`core.search.cpsat_bounds`);
a placement that reaches that bound is proven optimal whatever the solver
status. With local-or-shuffle streams the model relaxes them to shuffle, so
its own bound proves nothing: the greedy start and slotscope's placement
(the best of the paper schedulers, improved) compete with the model's, and
the bound printed is the compute bound of :mod:`core.search.cpsat_bounds`,
valid for every placement (an upper bound, not an exact model of
local-or-shuffle). Unless the model proved its optimum, each candidate then
goes through the local search of :mod:`core.search.polish` (moves
re-scored exactly) in the time left, and the best is kept. ``method=enumerate``: every
placement of the executors onto at most W worker slots is scored (the
small-case cross-check of the CP-SAT model). With ``search_parallelism``
the enumeration is over instance-count vectors instead (x_i >= 1,
sum x_i <= total machine capacity), as in Nasiri et al.'s exhaustive
baseline, each vector placed by a greedy rule (below).

Symmetry breaking. Slots of one node are interchangeable, and so are nodes
with identical hardware (every field but the id): the model cannot tell such
placements apart. The enumeration opens slots of a node, and nodes of a
hardware class, only in order of first use, so each class of equivalent
placements is visited exactly once. ``symmetry=false`` turns this off (for
checking that it never loses the optimum).

Mapping. The enumeration is cut into chunks by the placements of the first
few executors (prefixes); each chunk is one task that enumerates and scores
its completions (:func:`search_chunk`, plain Python). :func:`search` takes
the task mapper: the built-in ``map`` by default, Spark's
``core.spark.map_tasks`` when the caller gives it (this module never imports
Spark and never starts a job: the registry runs it with ``map``; a caller
that wants Spark calls :func:`search` or :func:`sweep` with Spark's mapper).
Spaces above ``limit`` candidates are refused with the count.

Greedy placement of an instance vector (``search_parallelism``): one worker
per machine (Nasiri et al.); components in topological order, each instance
to the machine where the predicted CPU share after adding it,
(load + visits / x_c x service time) / cores, is least, among machines with
fewer than ``max_tasks_per_node`` instances; ties to the node listed first.

References
----------
.. [1] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "A scheduling
   algorithm to maximize storm throughput in heterogeneous cluster",
   Journal of Big Data 10:103, 2023 (the exhaustive baseline).
   https://doi.org/10.1186/s40537-023-00771-y
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from core.model import Scenario
from core.placement import Outcome, SchedulerError, Status, assignment
from core.problem import Problem
from core.schedulers.base import Param, SchedulerSpec, run_spec
from core.search.enumeration import (
    Space,
    chunk_tasks,
    greedy_placement,
    instance_vectors,
    parsed_scenario,
    score_key,
    search_chunk,
    user_components,
)
from core.search.polish import improve
from core.search.slotscope import SPEC as SLOTSCOPE
from core.simulator.capacity import Evaluator

__all__ = [
    "SPEC",
    "Space",
    "greedy_placement",
    "instance_vectors",
    "schedule",
    "score_key",
    "search",
    "search_chunk",
    "solve_task",
    "sweep",
]

DEFAULT_TIME_LIMIT_S = 60.0  # issue 12: a proof or a bound within a minute
POLISH_SHARE = 0.05  # of the time limit kept for the local search after an exact model
POLISH_SHARE_RELAXED = 0.2  # ... after the model that relaxes local-or-shuffle
REACHED = 1e-9  # relative: a placement this close to the analytic bound is proven optimal
CHUNKS = 8  # enumeration tasks by default (4 per core of 2 cores): fast chunks balance slow
# CP-SAT models are not built above this many variables (as counted by cpsat_variables,
# within a factor of 2 of the model's own count): a per-executor model of 193,000 variables
# took 640 MB and 65 s to build (2 cores, busy), so this keeps a solve near half of the
# 2 GB budget of issue 23 (the per-executor model of 50,000 executors on 5,000 nodes would
# have 10^9). Nor, above ALWAYS_BUILT, beyond what BUILD_RATE builds in half the time limit.
# The greedy and slotscope starts, improved by the local search, answer instead.
MAX_CPSAT_VARIABLES = 300_000
BUILD_RATE = 2_000  # counted variables built a second (measured 1,700 on 2 busy cores)
ALWAYS_BUILT = 20_000  # counted variables: built whatever the time limit (seconds to build)
SLOTSCOPE_SHARE = 0.4  # of the time limit the slotscope start may take when it is needed


Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]


def search(scenario: Scenario, params: Mapping[str, Any], mapper: Mapper = map) -> Outcome:
    """The best placement (or instance vector) under the analytic model.

    Parameters
    ----------
    scenario : Scenario
    params : mapping
        Resolved parameters (see :data:`SPEC`).
    mapper : callable
        ``mapper(func, tasks)`` -> results in order: the built-in ``map``
        (default) or a distributed one such as ``core.spark.map_tasks``.
    """
    if params["method"] not in ("cpsat", "enumerate"):
        raise SchedulerError(f"parameter method: {params['method']!r} is not cpsat or enumerate")
    if params["method"] == "cpsat" and not params["search_parallelism"]:
        tasks = [_cpsat_task(scenario, params)]
        results = list(mapper(solve_task, tasks))
        return _cpsat_outcome(scenario, results[0])
    chunks = params["chunks"] or CHUNKS
    tasks, total = chunk_tasks(scenario, params, chunks)
    results = list(mapper(search_chunk, tasks))
    return _enumeration_outcome(scenario, params, tasks, results, total)


def sweep(
    scenarios: Sequence[Scenario], params: Mapping[str, Any], mapper: Mapper = map
) -> list[Outcome]:
    """CP-SAT optima of many scenarios: one mapper call, one solve per task.

    With ``core.spark.map_tasks`` as the mapper, a sweep is one Spark job.
    """
    tasks = [_cpsat_task(sc, params) for sc in scenarios]
    results = list(mapper(solve_task, tasks))
    return [_cpsat_outcome(sc, r) for sc, r in zip(scenarios, results, strict=True)]


def schedule(problem: Problem, params: Mapping[str, Any]) -> Outcome:
    """:func:`search` of the problem's scenario with the built-in ``map`` (in process)."""
    return search(problem.scenario, params)


def _cpsat_task(scenario: Scenario, params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "scenario": json.dumps(scenario.to_json_dict(), sort_keys=True),
        "time_limit": params["time_limit"],
        "workers": params["workers"],
        "symmetry": params["symmetry"],
    }


def cpsat_variables(ev: Evaluator) -> tuple[str, int]:
    """(model, variables) of the CP-SAT model :func:`solve_task` would build, counted from
    the sizes alone (linear in the executors, nodes and streams): the count model's
    counts, presence flags and same-node products per (component or stream, node); the
    per-executor model's (executor, slot) and (executor, node) booleans and a (pair, node)
    boolean per flow."""
    from core.search import cpsat_counts  # loads OR-Tools: only when a task solves

    table, nodes = ev.table, ev.nodes
    n_e, n_n, n_g = len(table.executors), len(nodes.ids), nodes.slots
    n_c = len(table.comp_start) - 1
    if cpsat_counts.applies(ev):
        return "counts", (3 * n_c + len(table.streams) + 2) * n_n + 1
    sizes = np.diff(table.comp_start)
    pairs = sum(int(sizes[table.src_comp[k]]) * int(sizes[table.dst_comp[k]]) for k in
                range(len(table.streams)))  # fmt: skip
    return "per-executor", n_e * (n_g + n_n) + n_g + pairs * (1 + n_n) + 1


def solve_task(task: Mapping[str, Any]) -> dict[str, Any]:
    """One CP-SAT solve (a task: plain JSON in, plain JSON out).

    Within ``time_limit`` whatever the size: a model above ``MAX_CPSAT_VARIABLES``, or
    above what ``BUILD_RATE`` builds in half the time limit, is not built (the greedy and
    slotscope starts, improved, answer), and the slotscope start gets at most
    ``SLOTSCOPE_SHARE`` of the time left.
    """
    from core.search import cpsat  # loads OR-Tools (~1 s): only when a task solves

    began = time.perf_counter()
    limit_s = float(task["time_limit"])
    scenario = parsed_scenario(task["scenario"])
    ev = Evaluator(scenario)
    hint = greedy_placement(ev, scenario, len(ev.executors))
    if len(np.unique(hint)) > scenario.workers:
        hint = None
    model, variables = cpsat_variables(ev)
    limit = cpsat.analytic_bound(scenario, ev)
    built = variables <= min(MAX_CPSAT_VARIABLES, max(ALWAYS_BUILT, BUILD_RATE * limit_s / 2))
    if not built:
        sol = cpsat.Solution(None, "not built", math.inf, 0.0, 0.0, False, variables, model)
    else:
        share = POLISH_SHARE if cpsat.shuffle_exact(ev.table) else POLISH_SHARE_RELAXED
        sol = cpsat.solve_auto(
            scenario, ev, limit_s * (1 - share), task["workers"], hint=hint,
            symmetry=task["symmetry"],
        )  # fmt: skip
    bound = min(sol.bound, limit) if sol.exact else limit
    # the relaxed model cannot see local-or-shuffle's saving: other starts may re-score higher
    starts = [("cpsat", sol.slots)]
    if not sol.exact:
        left = max(limit_s - (time.perf_counter() - began), 0.0)
        starts += [
            ("greedy", hint),
            ("slotscope", _slotscope_start(scenario, ev, SLOTSCOPE_SHARE * left)),
        ]
    polish_s = max(limit_s - (time.perf_counter() - began), 0.0)
    if sol.status == "optimal" and sol.exact:
        polish_s = 0.0
    start, slots, moves, found = _best_start(ev, starts, scenario.workers, polish_s)
    return {
        "slots": None if slots is None else np.asarray(slots).tolist(),
        "start": start,
        "moves": moves,
        "found_rate": found,
        "status": sol.status,
        "bound": bound,
        "solver_bound": sol.bound,
        "analytic_bound": limit,
        "wall_s": sol.wall_s,
        "exact": sol.exact,
        "built": built,
        "variables": sol.variables,
        "model": sol.model,
    }


def _best_start(ev: Evaluator, starts, workers: int, budget_s: float):
    """(name, slots, moves, R* before the local search) of the best start once improved.

    ``starts``: (name, slots or None) pairs; the budget is shared evenly; ties (to
    rounding) go to the first start.
    """
    starts = [(name, c) for name, c in starts if c is not None]
    if not starts:
        return None, None, 0, 0.0
    found = [ev.score(c).max_rate for _, c in starts]
    moves = [0] * len(starts)
    if budget_s > 0:
        for i, (name, c) in enumerate(starts):
            better, moves[i] = improve(ev, c, workers, budget_s / len(starts))
            starts[i] = (name, better)
    rates = [ev.score(c).max_rate for _, c in starts]
    top = max(rates)
    best = max(range(len(starts)), key=lambda i: (rates[i] >= top * (1 - REACHED), -i))
    return starts[best][0], starts[best][1], moves[best], found[best]


def _slotscope_start(scenario: Scenario, ev: Evaluator, time_s: float) -> np.ndarray | None:
    """slotscope's placement (the best of the paper schedulers, improved for at most
    ``time_s`` seconds) as a start, or None when it fails or changes the parallelism."""
    result = run_spec(SLOTSCOPE, scenario, {"time_limit": max(time_s, 0.1)})
    if not result.ok or dict(result.parallelism) != dict(ev.graph.parallelism):
        return None
    return ev.encode(result.placement())


def _status(result: Mapping[str, Any], max_rate: float) -> str:
    """The solver's status; "optimal" too when R* reaches the analytic bound."""
    if max_rate >= result.get("analytic_bound", math.inf) * (1.0 - REACHED):
        return "optimal"
    if not result.get("built", True):
        return "feasible (model too large for CP-SAT)"
    if not result["exact"]:
        return "feasible (local-or-shuffle relaxed)"
    return result["status"]


def _cpsat_outcome(scenario: Scenario, result: Mapping[str, Any]) -> Outcome:
    ev = Evaluator(scenario)
    if result["slots"] is None:
        return Outcome(
            assignments=(),
            decisions=(f"CP-SAT found no placement in {result['wall_s']:.1f} s",),
            status=Status.NOT_ENOUGH_RESOURCES,
            message="optimal: CP-SAT found no placement within the time limit (raise time_limit)",
            details={"status": result["status"], "solve_s": result["wall_s"]},
        )
    slots = np.asarray(result["slots"])
    score = ev.score(slots)
    bound = result["bound"]
    gap = bound / score.max_rate - 1.0 if math.isfinite(bound) and score.max_rate > 0 else None
    status = _status(result, score.max_rate)
    proof = (
        "proven optimal"
        if status == "optimal"
        else f"bound R* <= {bound:,.0f}/s, gap {gap:.2%}"
        if gap is not None
        else "no proven bound"
    )
    summary = (
        f"{status}, {proof}; R* {score.max_rate:,.0f}/s, latency estimate "
        f"{score.latency_estimate_ms:.3f} ms, {score.nodes_used} nodes"
    )
    if result.get("built", True):
        head = (
            f"CP-SAT, {result.get('model', 'per-executor')} model "
            f"({result['variables']:,} variables) in {result['wall_s']:.1f} s: {summary}"
        )
    else:
        head = (
            f"CP-SAT not run: its {result['model']} model would have {result['variables']:,} "
            f"variables, above {MAX_CPSAT_VARIABLES:,} (the memory budget) or more than half "
            f"the time limit builds ({BUILD_RATE:,}/s); the best of the "
            f"greedy and slotscope placements, improved by local search: {summary}"
        )
    decisions = [head]
    if not result["exact"] and result.get("built", True):
        decisions.append(
            "local-or-shuffle streams are modelled as shuffle by the CP-SAT model "
            "(their rates depend on the placement); the placement is re-scored exactly, "
            "and the bound is the compute bound, valid for every placement"
        )
    elif not result.get("built", True):
        decisions.append(f"kept the {result.get('start')} start; the bound is the compute bound")
    elif math.isfinite(bound) and bound < result.get("solver_bound", math.inf) * (1 - 1e-6):
        decisions.append(
            f"bound from the serialisation no placement avoids ({bound:,.0f}/s), tighter "
            f"than the solver's ({result['solver_bound']:,.0f}/s)"
        )
    if result.get("start") in ("greedy", "slotscope") and result.get("built", True):
        decisions.append(
            f"the {result['start']} start placement re-scores higher than the relaxed CP-SAT "
            "placement: kept (local-or-shuffle keeps its streams inside a worker)"
        )
    if result.get("moves"):
        decisions.append(
            f"local search moved {result['moves']} executors one at a time: R* "
            f"{result['found_rate']:,.0f}/s -> {score.max_rate:,.0f}/s"
        )
    placement = ev.decode(slots)
    decisions += [
        f"{e} -> {n} slot {s}: part of the best placement found" for e, (n, s) in placement.items()
    ]
    return Outcome(
        assignments=tuple(assignment(e, n, s) for e, (n, s) in placement.items()),
        decisions=tuple(decisions),
        details={
            "method": "cpsat",
            "status": status,
            "solve_s": result["wall_s"],
            "bound": bound if math.isfinite(bound) else None,
            "gap": gap,
            "max_rate": score.max_rate if math.isfinite(score.max_rate) else None,
            "throughput": score.throughput,
            "latency_estimate_ms": score.latency_estimate_ms,
        },
    )


def _enumeration_outcome(scenario, params, tasks, results, total) -> Outcome:
    found = [r for r in results if r["best"] is not None]
    winner = min(found, key=lambda r: (tuple(r["key"]), r["chunk"]))
    evaluated = sum(r["evaluated"] for r in results)
    parallelism = None
    if params["search_parallelism"]:
        comps = user_components(scenario)
        parallelism = dict(zip(comps, winner["best"]["vector"], strict=True))
    ev = Evaluator(scenario, parallelism)
    slots = np.asarray(winner["best"]["slots"])
    score = ev.score(slots)
    placement = ev.decode(slots)
    what = "instance vectors" if params["search_parallelism"] else "placements"
    decisions = [
        f"evaluated {evaluated:,} candidate {what} ({total:,} after symmetry breaking"
        if params["symmetry"] or params["search_parallelism"]
        else f"evaluated {evaluated:,} candidate {what} (no symmetry breaking"
    ]
    decisions[0] += (
        f", {len(tasks)} chunks): best R* {score.max_rate:,.0f} tuples/s, "
        f"latency estimate {score.latency_estimate_ms:.3f} ms, {score.nodes_used} nodes"
    )
    if parallelism:
        decisions.append(
            "instances per component: " + ", ".join(f"{c} x{x}" for c, x in parallelism.items())
        )
    for e, (node, slot) in placement.items():
        decisions.append(f"{e} -> {node} slot {slot}: part of the best placement found")
    out = [assignment(e, node, slot) for e, (node, slot) in placement.items()]
    return Outcome(
        assignments=tuple(out),
        decisions=tuple(decisions),
        parallelism=dict(ev.graph.parallelism) if parallelism else None,
        details={
            "method": "enumerate",
            "status": "optimal",
            "candidates": evaluated,
            "space": total,
            "chunks": len(tasks),
            "max_rate": score.max_rate if math.isfinite(score.max_rate) else None,
            "throughput": score.throughput,
            "latency_estimate_ms": score.latency_estimate_ms,
        },
    )


SPEC = SchedulerSpec(
    id="optimal",
    name="Optimal placement (CP-SAT or exhaustive)",
    paper="Nasiri et al., J Big Data 10:103, 2023 (exhaustive baseline)",
    params=(
        Param("method", "cpsat", "cpsat (constraint program) or enumerate (exhaustive)", str),
        Param("time_limit", DEFAULT_TIME_LIMIT_S, "CP-SAT time limit, seconds", float, 0.1, 3600),
        Param("workers", 2, "CP-SAT search threads", int, 1, 64),
        Param("limit", 200_000, "refuse enumerations with more candidates", int, 1, 10**9),
        Param("search_parallelism", False, "enumerate instance-count vectors too", bool),
        Param("max_tasks_per_node", 10, "machine capacity in tasks (search_parallelism)", int, 1),
        Param("symmetry", True, "break symmetry between identical nodes and slots", bool),
        Param("chunks", 0, "enumeration tasks (0 = 8)", int, 0, 100_000),
    ),
    run=schedule,
    summary="Maximises R* under the analytic model: CP-SAT with a proven bound, or enumeration.",
)

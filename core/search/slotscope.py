"""slotscope's own scheduler: the best of the papers, then local search.

Each paper gets one thing right: locality (L/F pipelines, Aniello's traffic
pairs), heterogeneity (TOP-Storm's power order, Nasiri's CPU model), resource
awareness (R-Storm). This scheduler takes every other scheduler's placement,
keeps the best under the analytic model (the same objective as ``optimal``:
larger maximum sustainable rate R*, then lower latency estimate, then fewer
nodes), and improves it by deterministic local search:

1. moves: each executor, in order of its CPU demand (hungriest first), to
   every slot already in use and to the first free slot of every node (free
   slots of a node are interchangeable, so not to one of its own node when it
   is alone in its slot), most powerful nodes first, while at most
   max(W, slots the start uses) slots are in use;
2. swaps: each pair of executors of different components in different slots.

The first improving move or swap is taken and the scan goes on from the next
executor (after a swap, with the same one's next partner); the search ends
when the scan comes back round to the last step taken without finding
another (the rest of the pass was scored under that same placement), or
when ``budget`` evaluations are spent (fewer on large topologies: see
``SEARCH_WORK``), or at ``time_limit`` seconds from the start (then the best
placement so far is the answer; past it no further starting scheduler runs
either; only the largest topologies reach it: 50,000 executors take minutes).
Candidates are scored in batches that run across executors
(``Evaluator.score_many``, bit-identical to one score each) and read in scan
order, so batching changes the speed only. Everything is deterministic (same
input, same result) unless the time limit cuts the search.
Since moves are only taken when they improve the objective, the result is
never worse than the best start under the model.

The paper schedulers that read runtime observations (``aniello-online``) are
fed a simulation of the placement they assume running (their spec's
``running_placement``), as in a comparison. The
starting schedulers are tasks of the mapper :func:`search` is given (the
built-in ``map`` by default). By default only starts that keep the user's
parallelism count (as every paper scheduler but ``hetero`` does);
``choose_parallelism=true`` lets it start from ``hetero``'s plan, and the
outcome then carries the parallelism it chose.

Checked against the CP-SAT optimum (:mod:`core.search.cpsat`): R* within
2% on every preset where the optimum is proven (``python -m bench optimal``).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import islice, takewhile
from typing import Any

import numpy as np

from core.hardware import computation_power
from core.model import Scenario, parse_scenario
from core.placement import Outcome, Schedule, assignment
from core.problem import Problem, problem_of
from core.schedulers import PAPER_SCHEDULERS, feed
from core.schedulers.base import Param, SchedulerSpec, run_spec
from core.search.enumeration import score_key
from core.simulator.capacity import Evaluator

# One analytic evaluation costs time proportional to the executors, so the
# search gets at most this many executor-evaluations (and at least 50 moves):
# thousands of evaluations on WordCount, dozens on 10,000 executors.
SEARCH_WORK = 400_000
FIRST_BATCH = 16  # candidates scored together first (then 32, 64, ...)
# A batch holds at most this many (candidate, executor) cells: the cost of a row falls
# with the batch until about there, then stays flat or rises as the blocks leave the
# cache (measured: 128 rows of 40 executors on lf-diamond-lsp, 64 of 80 on
# lf-linear-x10; 360-400 executors gain nothing past about 12).
BATCH_CELLS = 5_120
SCREEN_MARGIN = 1e-6  # a candidate whose R* is certainly below (1 - this) x R* is skipped
Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]
# A candidate: where its stream resumes if it is taken, its (executor, new slot) changes
Candidate = tuple[Any, tuple[tuple[int, int], ...]]


@lru_cache(maxsize=4)
def _parsed(text: str) -> Scenario:
    """The scenario a task's JSON text holds, parsed once per text in this process: the
    starts of one search share the text, so they share one (frozen) Scenario and its
    content hash (:func:`core.problem.content_hash`) instead of one each."""
    return parse_scenario(text)


def start_task(task: Mapping[str, Any]) -> dict[str, Any] | None:
    """One starting point (a task): a paper scheduler's schedule as plain JSON, or None."""
    spec = PAPER_SCHEDULERS[task["scheduler"]]
    scenario = _parsed(task["scenario"])
    result = run_spec(spec, feed(scenario, spec, scenario.workload.rate))
    return result.to_dict() if result.ok else None


def _starts(
    scenario: Scenario, mapper: Mapper, choose_parallelism: bool, deadline: float = math.inf
):
    """Every paper scheduler's successful schedule, in registry order (the searches,
    ``optimal`` and this one, are not starting points: too slow, or ourselves).

    A task's answer is :func:`start_task`'s (plain JSON, as a distributed mapper ships
    it) or the :class:`Schedule` itself (a mapper in this process that has it already).
    Without ``choose_parallelism``, only those that keep the user's parallelism. Past
    ``deadline`` (``time.perf_counter``) no further one is asked for once one has
    succeeded (with a lazy mapper such as the built-in ``map``, they do not run).
    """
    text = json.dumps(scenario.to_json_dict(), sort_keys=True)
    ids = [
        sid
        for sid, spec in PAPER_SCHEDULERS.items()
        if choose_parallelism or spec.keeps_parallelism
    ]
    asked = dict(problem_of(scenario).graph.parallelism)
    for sid, shipped in zip(
        ids, mapper(start_task, [{"scenario": text, "scheduler": s} for s in ids]), strict=True
    ):
        if shipped is None:
            continue
        result = shipped if isinstance(shipped, Schedule) else Schedule.from_dict(shipped)
        if choose_parallelism or dict(result.parallelism) == asked:
            yield sid, result
            if time.perf_counter() > deadline:
                return


def _fmt(score) -> str:
    return (
        f"throughput {score.throughput:,.0f}/s, R* {score.max_rate:,.0f}/s, "
        f"latency estimate {score.latency_estimate_ms:.3f} ms, {score.nodes_used} nodes"
    )


def _gain(before, after) -> str:
    if after.max_rate > before.max_rate * (1 + 1e-9):
        return f"R* +{after.max_rate / before.max_rate - 1:.2%}"
    if after.latency_estimate_ms < before.latency_estimate_ms * (1 - 1e-9):
        return f"latency estimate -{1 - after.latency_estimate_ms / before.latency_estimate_ms:.2%}"
    return f"one node fewer ({after.nodes_used})"


class _Search:
    """Local search state over one evaluator.

    Candidates come from lazy streams (:meth:`move_candidates`, :meth:`swap_candidates`), each built
    under the current placement and tagged with where its stream resumes if it is
    taken. They are scored in batches that run on from one executor to the next
    and read in order, so the improvement taken is the first one a scan scoring
    one candidate at a time would take; the candidates scored past it are dropped
    and the stream restarts under the new placement.
    """

    def __init__(
        self,
        ev,
        slots: np.ndarray,
        cap: int,
        budget: int,
        node_order: np.ndarray,
        deadline: float = float("inf"),
    ):
        self.ev, self.cap, self.budget, self.deadline = ev, cap, budget, deadline
        self.slots = slots.copy()
        self.score = ev.score(self.slots)
        self.key = score_key(self.score)
        self.evaluations = 1
        self.node_order = [int(j) for j in node_order]
        self.moves: list[str] = []
        self.moved: dict[str, int] = {}
        self.max_batch = max(1, BATCH_CELLS // len(ev.executors))

    def _scores(self, rows: np.ndarray) -> list:
        """Scores of the rows: :meth:`Evaluator.score_many`, bit-identical to one
        ``score`` each (which a lone row uses: faster alone). Under Storm 2's shuffle,
        where R* is a solve per row, a row whose R* is certainly below this placement's
        (:meth:`Evaluator.below`, by a margin far past ``score_key``'s 9 digits) cannot
        improve it: None, unscored, so the steps taken are the same."""
        if self.ev.table.has_spill:
            floor = self.score.max_rate * (1.0 - SCREEN_MARGIN)
            screen = 0.0 < floor < math.inf
            below = self.ev.below(rows, floor) if screen else [False] * len(rows)
            return [None if b else self.ev.score(row) for row, b in zip(rows, below, strict=True)]
        if len(rows) > 1:
            return self.ev.score_many(rows)
        return [self.ev.score(row) for row in rows]

    def _first_improvement(self, stream: Iterator[Candidate]) -> Any:
        """Take the first candidate of ``stream`` that improves the placement and return
        where its stream resumes; None when the stream or the budget runs out first.

        Scored in batches of ``FIRST_BATCH``, doubling, of at most ``BATCH_CELLS``
        cells, never past the budget.
        """
        size = min(FIRST_BATCH, self.max_batch)
        while self.evaluations < self.budget and time.perf_counter() < self.deadline:
            batch = list(islice(stream, min(size, self.budget - self.evaluations)))
            if not batch:
                return None
            rows = np.repeat(self.slots[None, :], len(batch), axis=0)
            for r, (_, changes) in enumerate(batch):
                for i, g in changes:
                    rows[r, i] = g
            for (resume, changes), row, score in zip(batch, rows, self._scores(rows), strict=True):
                self.evaluations += 1
                if score is None:  # certainly worse
                    continue
                key = score_key(score)
                if key < self.key:
                    self._record(changes, self.score, score)
                    self.slots, self.score, self.key = row, score, key
                    return resume
            size = min(2 * size, self.max_batch)
        return None

    def targets(self, i: int) -> list[int]:
        """Where executor ``i`` may move: every other slot in use and the first free slot
        of every node, most powerful nodes first, a free slot only while fewer than
        ``cap`` are in use. Not a free slot of its own node when it is alone in its
        slot: that is the same placement under another slot number.
        """
        nodes = self.ev.nodes
        count = np.bincount(self.slots, minlength=nodes.slots)
        current = int(self.slots[i])
        home = int(nodes.slot_node[current]) if count[current] == 1 else -1
        may_open = np.count_nonzero(count) < self.cap
        used = count > 0
        out = []
        for j in self.node_order:
            lo, hi = int(nodes.slot_start[j]), int(nodes.slot_start[j + 1])
            out += [g for g in range(lo, hi) if used[g] and g != current]
            if may_open and j != home:
                free = np.flatnonzero(~used[lo:hi])
                if free.size:
                    out.append(lo + int(free[0]))
        return out

    def move_candidates(self, order: list[int], start: int) -> Iterator[Candidate]:
        """Each executor of ``order[start:]`` to each of its targets; taking one resumes
        with the next executor."""
        for k in range(start, len(order)):
            i = order[k]
            for g in self.targets(i):
                yield k + 1, ((i, g),)

    def swap_candidates(self, order: list[int], start: tuple[int, int]) -> Iterator[Candidate]:
        """Each executor ``a`` of ``order[start[0]:]`` with every later ``b`` (larger
        index, in ``order``'s sequence from ``start[1]``) of another component in
        another slot; taking one resumes with the same ``a`` after that ``b``."""
        comp = self.ev.table.exec_comp
        executors = np.asarray(order)
        comp_of = comp[executors]
        first, j0 = start
        for k in range(first, len(order)):
            a = order[k]
            slot_a = int(self.slots[a])
            ok = (executors > a) & (comp_of != comp[a]) & (self.slots[executors] != slot_a)
            for j in np.flatnonzero(ok[j0:]):
                b = order[j0 + j]
                yield (k, j0 + j + 1), ((a, int(self.slots[b])), (b, slot_a))
            j0 = 0

    def _label(self, g: int) -> str:
        nodes = self.ev.nodes
        j = int(nodes.slot_node[g])
        return f"{nodes.ids[j]}:{g - int(nodes.slot_start[j])}"

    def run(self, order: list[int]) -> None:
        """Passes of moves then swaps, each improvement taken as it is found, until the
        budget is spent or the scan comes back to the last step taken: every candidate
        from there to the end of a pass was scored under this same placement and
        improved nothing, so the pass that would score them again is cut there (the
        steps taken are the same).
        """
        phases = ((self.move_candidates, 0), (self.swap_candidates, (0, 0)))
        last = None  # the phase of the latest step and where its stream resumed
        while self.evaluations < self.budget and time.perf_counter() < self.deadline:
            stepped = False
            for phase, (stream, start) in enumerate(phases):
                stop = last[1] if last is not None and last[0] == phase else None
                while True:
                    candidates = stream(order, start)
                    if stop is not None:  # resume points grow along a stream
                        candidates = takewhile(lambda c, s=stop: c[0] <= s, candidates)
                    start = self._first_improvement(candidates)
                    if start is None:
                        break
                    last, stop, stepped = (phase, start), None, True
                if stop is not None:
                    return
            if not stepped:
                return

    def _record(self, changes: tuple[tuple[int, int], ...], before, after) -> None:
        """Describe a step taken (under the placement before it)."""
        names = self.ev.executors
        if len(changes) == 1:
            ((i, g),) = changes
            what = f"move {names[i]} {self._label(int(self.slots[i]))} -> {self._label(g)}"
        else:
            (a, _), (b, _) = changes
            what = f"swap {names[a]} <-> {names[b]}"
        self.moves.append(f"step {len(self.moves) + 1}: {what}: {_gain(before, after)}")
        for i, _ in changes:
            self.moved[names[i]] = len(self.moves)


def schedule(problem: Problem, params: Mapping[str, Any]) -> Outcome:
    """:func:`search` of the problem's scenario with the built-in ``map`` (in process)."""
    return search(problem.scenario, params)


def _evaluator(
    scenario: Scenario, parallelism: Mapping[str, int] | None, found: dict[tuple, Evaluator]
) -> Evaluator:
    """The scenario's :class:`Evaluator` at ``parallelism`` (None: its own), built once per
    effective parallelism and kept in ``found``: an Evaluator is a pure function of the
    problem (its spill memo only caches), so the starts that share a parallelism share it.
    """
    executors = {c.id: c.parallelism for c in scenario.topology.components}
    executors.update({c: int(n) for c, n in (parallelism or {}).items() if c in executors})
    key = tuple(sorted(executors.items()))  # the effective parallelism, as the Problem's key
    ev = found.get(key)
    if ev is None:
        ev = found[key] = Evaluator(scenario, parallelism)
    return ev


def search(scenario: Scenario, params: Mapping[str, Any], mapper: Mapper = map) -> Outcome:
    """Best of the other schedulers, improved by moves and swaps (see module doc).

    ``mapper(func, tasks)`` runs the starting schedulers (one task each): the
    built-in ``map`` by default, or a distributed one given by the caller.
    """
    deadline = time.perf_counter() + params["time_limit"]
    best = None
    tried = []
    evaluators: dict[tuple, Evaluator] = {}  # one a parallelism: the starts mostly share one
    for sid, result in _starts(scenario, mapper, params["choose_parallelism"], deadline):
        ev = _evaluator(scenario, result.parallelism, evaluators)
        slots = ev.encode(result.placement())
        score = ev.score(slots)
        tried.append(f"{sid}: {_fmt(score)}")
        if best is None or score_key(score) < score_key(best[2]):
            best = (sid, ev, score, slots)
    sid, ev, start_score, slots = best
    own = _evaluator(scenario, None, evaluators).graph.parallelism
    changed = dict(ev.graph.parallelism) != dict(own)
    power = np.array([computation_power(n) for n in scenario.cluster.nodes])
    node_order = np.argsort(-power, kind="stable")
    cap = max(scenario.workers, int(np.count_nonzero(np.bincount(slots))))
    budget = min(params["budget"], max(50, SEARCH_WORK // len(ev.executors)))
    search = _Search(ev, slots, cap, budget, node_order, deadline)
    loads = ev.loads(slots)
    order = [int(i) for i in np.argsort(-loads.cpu, kind="stable")]
    search.run(order)
    decisions = [
        f"start from {sid}, the best of {len(tried)} schedulers under the analytic model "
        f"({_fmt(start_score)})",
        *[f"candidate {t}" for t in tried],
        *search.moves,
        f"local search: {len(search.moves)} improving steps in {search.evaluations:,} "
        f"evaluations; result {_fmt(search.score)}",
    ]
    placement = ev.decode(search.slots)
    out = []
    for e, (node, slot) in placement.items():
        out.append(assignment(e, node, slot))
        step = search.moved.get(e)
        decisions.append(
            f"{e} -> {node} slot {slot}: "
            + (f"placed by local search step {step}" if step else f"kept from {sid}'s placement")
        )
    return Outcome(
        assignments=tuple(out),
        decisions=tuple(decisions),
        parallelism=dict(ev.graph.parallelism) if changed else None,
        details={
            "start": sid,
            "steps": len(search.moves),
            "evaluations": search.evaluations,
            "throughput": search.score.throughput,
            "latency_estimate_ms": search.score.latency_estimate_ms,
        },
    )


SPEC = SchedulerSpec(
    id="slotscope",
    name="slotscope (best start + local search)",
    paper="slotscope's own scheduler",
    params=(
        Param(
            "budget",
            3_000,
            "maximum analytic evaluations of the local search (SEARCH_WORK caps it at "
            "400,000 / executors anyway)",
            int,
            1,
            SEARCH_WORK,
        ),
        Param(
            "time_limit",
            60.0,
            "wall-clock limit, seconds: the local search stops there with its best placement",
            float,
            0.1,
            3600,
        ),
        Param(
            "choose_parallelism",
            False,
            "may start from a scheduler that changes the parallelism (hetero)",
            bool,
        ),
    ),
    run=schedule,
    summary="Best of the other schedulers under the analytic model, improved by moves and swaps.",
)

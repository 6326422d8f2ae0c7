"""slotscope's own scheduler: the best of the papers, then local search.

Each paper gets one thing right: locality (L/F pipelines, Aniello's traffic
pairs), heterogeneity (TOP-Storm's power order, Nasiri's CPU model), resource
awareness (R-Storm). This scheduler takes every other scheduler's placement,
keeps the best under the analytic model (the same objective as ``optimal``:
larger maximum sustainable rate R*, then lower latency estimate, then fewer
nodes), and improves it by deterministic local search:

1. moves: each executor, in order of its CPU demand (hungriest first), to
   every slot already in use and to the first free slot of every node (free
   slots of a node are interchangeable), most powerful nodes first, while at
   most max(W, slots the start uses) slots are in use;
2. swaps: each pair of executors of different components in different slots.

The first improving move or swap is taken and the scan restarts from the
next executor; the search ends when a full pass finds nothing, or after
``budget`` evaluations (fewer on large topologies: see ``SEARCH_WORK``).
Everything is deterministic: same input, same result.
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

Checked against the CP-SAT optimum (:mod:`core.schedulers.cpsat`): R* within
2% on every preset where the optimum is proven (``python -m bench optimal``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from core.hardware import computation_power
from core.model import Scenario, parse_scenario
from core.placement import Outcome, Schedule, assignment
from core.schedulers.base import Param, SchedulerSpec, run_spec
from core.schedulers.enumeration import score_key
from core.schedulers.papers import PAPERS, feed
from core.simulator.capacity import Evaluator
from core.topology import build_graph

# One analytic evaluation costs time proportional to the executors, so the
# search gets at most this many executor-evaluations (and at least 50 moves):
# thousands of evaluations on WordCount, dozens on 10,000 executors.
SEARCH_WORK = 400_000
BATCH_EXECUTORS = 100  # above this one evaluation is data-bound: batching gains nothing
FIRST_BATCH = 16  # candidates scored together first (then 32, 64, ...)
Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterable[Any]]


def start_task(task: Mapping[str, Any]) -> dict[str, Any] | None:
    """One starting point (a task): a paper scheduler's schedule as plain JSON, or None."""
    spec = PAPERS[task["scheduler"]]
    scenario = parse_scenario(task["scenario"])
    result = run_spec(spec, feed(scenario, spec, scenario.workload.rate))
    return result.to_dict() if result.ok else None


def _starts(scenario: Scenario, mapper: Mapper, choose_parallelism: bool):
    """Every paper scheduler's successful schedule, in registry order (the searches,
    ``optimal`` and this one, are not starting points: too slow, or ourselves).

    Without ``choose_parallelism``, only those that keep the user's parallelism.
    """
    text = json.dumps(scenario.to_json_dict(), sort_keys=True)
    ids = [sid for sid, spec in PAPERS.items() if choose_parallelism or spec.keeps_parallelism]
    asked = dict(build_graph(scenario).parallelism)
    for sid, shipped in zip(
        ids, mapper(start_task, [{"scenario": text, "scheduler": s} for s in ids]), strict=True
    ):
        if shipped is None:
            continue
        result = Schedule.from_dict(shipped)
        if choose_parallelism or dict(result.parallelism) == asked:
            yield sid, result


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
    """Local search state over one evaluator."""

    def __init__(self, ev, slots: np.ndarray, cap: int, budget: int, node_order: np.ndarray):
        self.ev, self.cap, self.budget = ev, cap, budget
        self.key = score_key
        self.slots = slots.copy()
        self.score = ev.score(self.slots)
        self.evaluations = 1
        self.node_order = node_order
        self.moves: list[str] = []
        self.moved: dict[str, int] = {}

    def _accept(self, candidate: np.ndarray, score) -> bool:
        """Count one evaluation; take ``candidate`` if its score is better."""
        self.evaluations += 1
        if self.key(score) < self.key(self.score):
            self.last = (self.score, score)
            self.slots, self.score = candidate, score
            return True
        return False

    def _scores(self, candidates: list[np.ndarray]):
        """Their scores in order, computed as the caller reads them.

        On small topologies in batches of ``FIRST_BATCH``, doubling
        (:meth:`Evaluator.score_many`, bit-identical to one ``score`` each);
        the caller usually stops at the first improvement.
        """
        if len(self.ev.executors) > BATCH_EXECUTORS:
            yield from (self.ev.score(c) for c in candidates)
            return
        lo, size = 0, FIRST_BATCH
        while lo < len(candidates):
            yield from self.ev.score_many(np.array(candidates[lo : lo + size]))
            lo, size = lo + size, 2 * size

    def _left(self) -> int:
        """Candidates that may be evaluated before the budget check stops the search."""
        return max(1, self.budget - self.evaluations)

    def _targets(self, current: int) -> list[int]:
        nodes = self.ev.nodes
        used = np.bincount(self.slots, minlength=nodes.slots) > 0
        may_open = used.sum() < self.cap
        out = []
        for j in self.node_order:
            lo, hi = int(nodes.slot_start[j]), int(nodes.slot_start[j + 1])
            out += [g for g in range(lo, hi) if used[g] and g != current]
            free = [g for g in range(lo, hi) if not used[g]]
            if free and may_open:
                out.append(free[0])
        return out

    def _label(self, g: int) -> str:
        nodes = self.ev.nodes
        j = int(nodes.slot_node[g])
        return f"{nodes.ids[j]}:{g - int(nodes.slot_start[j])}"

    def run(self, order: list[int]) -> None:
        names = self.ev.executors
        comp = self.ev.table.exec_comp
        improved = True
        while improved and self.evaluations < self.budget:
            improved = False
            for i in order:
                src = int(self.slots[i])
                targets = self._targets(src)[: self._left()]
                cands = []
                for g in targets:
                    cand = self.slots.copy()
                    cand[i] = g
                    cands.append(cand)
                for g, cand, score in zip(targets, cands, self._scores(cands), strict=True):
                    if self._accept(cand, score):
                        self._record(
                            f"move {names[i]} {self._label(src)} -> {self._label(g)}", [names[i]]
                        )
                        improved = True
                        break
                    if self.evaluations >= self.budget:
                        return
            for a in order:
                start = 0
                while start < len(order):
                    # the swaps of a with every later b, under the current placement
                    picks = [
                        j
                        for j in range(start, len(order))
                        if order[j] > a
                        and comp[a] != comp[order[j]]
                        and self.slots[a] != self.slots[order[j]]
                    ][: self._left()]
                    if not picks:
                        break
                    cands = []
                    for j in picks:
                        cand = self.slots.copy()
                        b = order[j]
                        cand[a], cand[b] = cand[b], cand[a]
                        cands.append(cand)
                    start = picks[-1] + 1
                    for j, cand, score in zip(picks, cands, self._scores(cands), strict=True):
                        b = order[j]
                        if self._accept(cand, score):
                            self._record(f"swap {names[a]} <-> {names[b]}", [names[a], names[b]])
                            improved = True
                            start = j + 1  # the placement changed: the rest again from here
                            if self.evaluations >= self.budget:
                                return
                            break
                        if self.evaluations >= self.budget:
                            return

    def _record(self, what: str, executors: list[str]) -> None:
        before, after = self.last
        self.moves.append(f"step {len(self.moves) + 1}: {what}: {_gain(before, after)}")
        for e in executors:
            self.moved[e] = len(self.moves)


def schedule(scenario: Scenario, params: Mapping[str, Any]) -> Outcome:
    """:func:`search` with the built-in ``map`` (in process)."""
    return search(scenario, params)


def search(scenario: Scenario, params: Mapping[str, Any], mapper: Mapper = map) -> Outcome:
    """Best of the other schedulers, improved by moves and swaps (see module doc).

    ``mapper(func, tasks)`` runs the starting schedulers (one task each): the
    built-in ``map`` by default, or a distributed one given by the caller.
    """
    best = None
    tried = []
    for sid, result in _starts(scenario, mapper, params["choose_parallelism"]):
        ev = Evaluator(scenario, result.parallelism)
        slots = ev.encode(result.placement())
        score = ev.score(slots)
        tried.append(f"{sid}: {_fmt(score)}")
        if best is None or score_key(score) < score_key(best[2]):
            best = (sid, ev, score, slots)
    sid, ev, start_score, slots = best
    changed = dict(ev.graph.parallelism) != dict(Evaluator(scenario).graph.parallelism)
    power = np.array([computation_power(n) for n in scenario.cluster.nodes])
    node_order = np.argsort(-power, kind="stable")
    cap = max(scenario.workers, int(np.count_nonzero(np.bincount(slots))))
    budget = min(params["budget"], max(50, SEARCH_WORK // len(ev.executors)))
    search = _Search(ev, slots, cap, budget, node_order)
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
        Param("budget", 3_000, "maximum analytic evaluations of the local search", int, 1),
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

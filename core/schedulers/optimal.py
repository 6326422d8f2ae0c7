"""Exhaustive search: the best placement the analytic model can find.

Every placement of the executors onto at most W worker slots is evaluated
with the analytic model (:class:`core.simulator.capacity.Evaluator`) at the
scenario's offered rate; the best has the highest throughput, ties going to
the lower latency estimate, then to fewer nodes, then to the first found.
With ``search_parallelism`` the search is over instance-count vectors instead
(x_i >= 1, sum x_i <= total machine capacity), as in Nasiri et al.'s
exhaustive baseline, each vector placed by a greedy rule (below).

Symmetry breaking. Slots of one node are interchangeable, and so are nodes
with identical hardware (every field but the id): the model cannot tell such
placements apart. The enumeration opens slots of a node, and nodes of a
hardware class, only in order of first use, so each class of equivalent
placements is visited exactly once. ``symmetry=false`` turns this off (for
checking that it never loses the optimum).

Spark. The space is cut into chunks by the placements of the first few
executors (prefixes); each chunk is one Spark task that enumerates and
evaluates its completions (:func:`search_chunk`, plain Python). Spaces above
``limit`` candidates are refused with the count; small spaces (at most
``LOCAL_MAX``) are searched in process unless ``engine=spark``.

Greedy placement of an instance vector (``search_parallelism``): one worker
per machine (Nasiri et al.); components in topological order, each instance
to the machine where the predicted CPU share after adding it,
(load + visits / x_c x service time) / cores, is least, among machines with
fewer than ``max_tasks_per_node`` instances; ties to the node listed first.

References
----------
.. [1] M. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "Heterogeneity-aware
   scheduling in distributed stream processing systems", Journal of Big Data
   10, 2023 (the exhaustive baseline). https://doi.org/10.1186/s40537-023-00726-0
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from core.model import ACKER_ID, Scenario, parse_scenario
from core.schedulers.base import Outcome, Param, SchedulerError, SchedulerSpec, assignment

LOCAL_MAX = 5_000  # candidates searched in process under engine=auto
CHUNKS_PER_CORE = 4  # Spark tasks per core, so fast chunks balance slow ones


# --------------------------------------------------------------------------
# the space of placements


class Space:
    """Executors, slots and hardware classes of one scenario, for enumeration."""

    def __init__(self, scenario: Scenario, executors: int, symmetry: bool = True):
        nodes = scenario.cluster.nodes
        self.executors = executors
        self.workers = scenario.workers
        self.slots = [n.slots for n in nodes]
        self.slot_start = np.concatenate([[0], np.cumsum(self.slots)]).astype(int)
        self.symmetry = symmetry
        signature: dict[tuple, int] = {}
        self.node_class = []
        for n in nodes:
            key = tuple(sorted(n.model_dump(exclude={"id"}).items()))
            self.node_class.append(signature.setdefault(key, len(signature)))
        self.class_nodes = [
            [j for j, c in enumerate(self.node_class) if c == k and self.slots[j] > 0]
            for k in range(len(signature))
        ]

    # A state: slots opened per node (opened in index order), nodes opened per
    # class (in class order), total slots opened.

    def options(self, opened: list[int], used_per_class: list[int], total: int):
        """(global slot, node, opens-slot, opens-node) choices for the next executor."""
        if not self.symmetry:
            for j, s in enumerate(self.slots):
                for k in range(s):
                    new = k >= opened[j]
                    yield int(self.slot_start[j]) + k, j, new, False
            return
        for j, o in enumerate(opened):
            for k in range(o):
                yield int(self.slot_start[j]) + k, j, False, False
        if total >= self.workers:
            return
        for j, o in enumerate(opened):
            if 0 < o < self.slots[j]:
                yield int(self.slot_start[j]) + o, j, True, False
        for c, members in enumerate(self.class_nodes):
            if used_per_class[c] < len(members):
                j = members[used_per_class[c]]
                yield int(self.slot_start[j]), j, True, True

    def walk(self, prefix: Sequence[int] = (), depth: int | None = None) -> Iterator[list[int]]:
        """Every canonical placement (list of global slots) extending ``prefix``.

        With ``depth``, stop at placements of the first ``depth`` executors.
        """
        depth = self.executors if depth is None else depth
        opened = [0] * len(self.slots)
        used = [0] * len(self.class_nodes)
        seen: set[int] = set()
        total = 0
        node_of_slot = np.repeat(np.arange(len(self.slots)), self.slots)
        for g in prefix:
            j = int(node_of_slot[g])
            if self.symmetry:
                if g - self.slot_start[j] >= opened[j]:
                    if opened[j] == 0:
                        used[self.node_class[j]] += 1
                    opened[j] += 1
                    total += 1
            elif g not in seen:
                seen.add(g)
                total += 1
        yield from self._extend(list(prefix), opened, used, seen, total, depth)

    def _extend(self, placed, opened, used, seen, total, depth) -> Iterator[list[int]]:
        if len(placed) == depth:
            yield list(placed)
            return
        for g, j, new_slot, new_node in self.options(opened, used, total):
            if not self.symmetry:
                fresh = g not in seen
                if fresh and total >= self.workers:
                    continue
                if fresh:
                    seen.add(g)
                placed.append(g)
                yield from self._extend(placed, opened, used, seen, total + fresh, depth)
                placed.pop()
                if fresh:
                    seen.discard(g)
                continue
            if new_slot:
                opened[j] += 1
            if new_node:
                used[self.node_class[j]] += 1
            placed.append(g)
            yield from self._extend(placed, opened, used, seen, total + new_slot, depth)
            placed.pop()
            if new_slot:
                opened[j] -= 1
            if new_node:
                used[self.node_class[j]] -= 1

    def lower_bound(self) -> int:
        """A quick lower bound on :meth:`count`: the ways to spread the executors
        over the slots of the largest node alone (set partitions, Stirling numbers)."""
        m = min(self.workers, max(self.slots), 8)  # more parts only grow the bound
        return max(_stirling2(self.executors, k) for k in range(1, m + 1)) if m else 0

    def count(self) -> int:
        """Number of canonical placements, without enumerating them."""
        if not self.symmetry:
            g = sum(self.slots)
            return sum(
                math.comb(g, m) * math.factorial(m) * _stirling2(self.executors, m)
                for m in range(1, min(self.workers, g) + 1)
            )
        caps = [[self.slots[j] for j in members] for members in self.class_nodes]

        @cache
        def f(left: int, total: int, state: tuple[tuple[int, ...], ...]) -> int:
            if left == 0:
                return 1
            n = total * f(left - 1, total, state)
            if total < self.workers:
                for c, opened in enumerate(state):
                    cap = caps[c][0] if caps[c] else 0
                    for i, o in enumerate(opened):
                        if o < cap and (i == 0 or opened[i - 1] != o):
                            same = sum(1 for q in opened if q == o)
                            grown = tuple(sorted(opened[:i] + (o + 1,) + opened[i + 1 :]))
                            n += same * f(left - 1, total + 1, _replace(state, c, grown))
                    if len(opened) < len(caps[c]):
                        grown = tuple(sorted(opened + (1,)))
                        n += f(left - 1, total + 1, _replace(state, c, grown))
            return n

        # identical nodes share their slot count, so a class's capacity is caps[c][0]
        return f(self.executors, 0, tuple(() for _ in caps))


def _replace(state: tuple, c: int, value: tuple) -> tuple:
    return state[:c] + (value,) + state[c + 1 :]


def _stirling2(n: int, k: int) -> int:
    return sum((-1) ** i * math.comb(k, i) * (k - i) ** n for i in range(k + 1)) // math.factorial(
        k
    )


# --------------------------------------------------------------------------
# instance-count vectors (search_parallelism)


def user_components(scenario: Scenario) -> list[str]:
    from core.topology import build_graph

    return [c for c in build_graph(scenario).order if c != ACKER_ID]


def instance_vectors(components: int, capacity: int) -> Iterator[tuple[int, ...]]:
    """Every x with x_i >= 1 and sum(x) <= capacity, in lexicographic order.

    >>> sum(1 for _ in instance_vectors(4, 30))  # C(30, 4), Nasiri et al.'s example
    27405
    """
    for bars in itertools.combinations(range(1, capacity + 1), components):
        yield tuple(b - a for a, b in zip((0,) + bars, bars, strict=False))


def greedy_placement(evaluator, scenario: Scenario, cap: int) -> np.ndarray:
    """One worker per machine; each instance to the least loaded machine (see module doc)."""
    nodes = scenario.cluster.nodes
    cores = np.array([n.sockets * n.cores for n in nodes], dtype=float)
    start = evaluator.nodes.slot_start
    has_slot = np.array([n.slots > 0 for n in nodes])
    load = np.zeros(len(nodes))
    tasks = np.zeros(len(nodes), dtype=int)
    graph = evaluator.graph
    slots = np.empty(len(evaluator.executors), dtype=np.int64)
    for i, e in enumerate(evaluator.executors):
        c = graph.order.index(e.rsplit("#", 1)[0])
        demand = evaluator.visits[graph.order[c]] / graph.parallelism[graph.order[c]]
        share = (load + demand * evaluator.service_s[c]) / cores
        share[(tasks >= cap) | ~has_slot] = np.inf
        j = int(np.argmin(share))
        if math.isinf(share[j]):
            share[~has_slot] = np.inf
            j = int(np.argmin(share))
        load[j] += demand * evaluator.service_s[c, j]
        tasks[j] += 1
        slots[i] = start[j]
    return slots


# --------------------------------------------------------------------------
# one chunk of the search (a Spark task)


def score_key(score) -> tuple:
    """Best first: more throughput, then lower latency estimate, then fewer nodes."""
    return (
        -float(f"{score.throughput:.9g}"),
        float(f"{score.latency_estimate_ms:.9g}"),
        score.nodes_used,
    )


@cache
def _scenario(text: str) -> Scenario:
    return parse_scenario(text)


def search_chunk(task: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate one chunk; its best candidate, how many it evaluated."""
    from core.simulator.capacity import Evaluator

    scenario = _scenario(task["scenario"])
    best_key, best, n = None, None, 0
    if task["mode"] == "vectors":
        comps = task["components"]
        for vector in task["vectors"]:
            ev = Evaluator(scenario, dict(zip(comps, vector, strict=True)))
            slots = greedy_placement(ev, scenario, task["cap"])
            key = score_key(ev.score(slots))
            n += 1
            if best_key is None or key < best_key:
                best_key, best = key, {"vector": list(vector), "slots": slots.tolist()}
    else:
        ev = Evaluator(scenario)
        space = Space(scenario, len(ev.executors), task["symmetry"])
        for slots in space.walk(task["prefix"]):
            key = score_key(ev.score(np.asarray(slots)))
            n += 1
            if best_key is None or key < best_key:
                best_key, best = key, {"slots": slots}
    return {"chunk": task["chunk"], "key": best_key, "best": best, "evaluated": n}


# --------------------------------------------------------------------------
# the scheduler


def _chunk_tasks(scenario: Scenario, params: Mapping[str, Any], chunks: int) -> tuple[list, int]:
    from core.simulator.capacity import Evaluator

    text = json.dumps(scenario.to_json_dict(), sort_keys=True)
    if params["search_parallelism"]:
        comps = user_components(scenario)
        capacity = params["max_tasks_per_node"] * sum(1 for n in scenario.cluster.nodes if n.slots)
        total = math.comb(capacity, len(comps))
        _refuse_if_too_large(total, params["limit"], "instance-count vectors")
        vectors = list(instance_vectors(len(comps), capacity))
        size = max(1, math.ceil(len(vectors) / chunks))
        tasks = [
            {
                "scenario": text,
                "mode": "vectors",
                "components": comps,
                "cap": params["max_tasks_per_node"],
                "vectors": vectors[i : i + size],
            }
            for i in range(0, len(vectors), size)
        ]
    else:
        executors = len(Evaluator(scenario).executors)
        space = Space(scenario, executors, params["symmetry"])
        bound = space.lower_bound()
        if bound > params["limit"]:  # counting exactly would take longer than refusing
            _refuse_if_too_large(bound, params["limit"], "placements", at_least=True)
        total = space.count()
        _refuse_if_too_large(total, params["limit"], "placements")
        depth, prefixes = 0, [[]]
        while len(prefixes) < chunks and depth < executors:
            depth += 1
            prefixes = list(space.walk(depth=depth))
        tasks = [
            {"scenario": text, "mode": "placements", "symmetry": params["symmetry"], "prefix": p}
            for p in prefixes
        ]
    for i, t in enumerate(tasks):
        t["chunk"] = i
    return tasks, total


def _readable(n: int) -> str:
    """``1,234`` for small counts, ``2.75e+73`` for astronomical ones.

    >>> _readable(27405), _readable(3 * 10**80)
    ('27,405', '3e+80')
    """
    if n < 10**15:
        return f"{n:,}"
    exp = int((n.bit_length() - 1) * math.log10(2))
    mantissa = n / 10**exp
    while mantissa >= 10:
        mantissa, exp = mantissa / 10, exp + 1
    return f"{mantissa:.3g}e+{exp}"


def _refuse_if_too_large(total: int, limit: int, what: str, at_least: bool = False) -> None:
    if total > limit:
        count = _readable(total)
        raise SchedulerError(
            f"optimal: the search space has {'at least ' if at_least else ''}{count} candidate "
            f"{what}, above the limit of {limit:,} (raise it with --param limit=N, or shrink "
            "the scenario)"
        )


def _map(tasks: list[dict], engine: str, total: int) -> tuple[list[dict], str]:
    if engine == "local" or (engine == "auto" and total <= LOCAL_MAX):
        return [search_chunk(t) for t in tasks], "local"
    from core import spark

    return spark.map_tasks(search_chunk, tasks), "spark"


def schedule(scenario: Scenario, params: Mapping[str, Any]) -> Outcome:
    """The best placement (or instance vector) under the analytic model."""
    if params["engine"] not in ("auto", "spark", "local"):
        raise SchedulerError(f"parameter engine: {params['engine']!r} is not auto, spark or local")
    chunks = params["chunks"] or CHUNKS_PER_CORE * 2
    tasks, total = _chunk_tasks(scenario, params, chunks)
    results, engine = _map(tasks, params["engine"], total)
    found = [r for r in results if r["best"] is not None]
    winner = min(found, key=lambda r: (tuple(r["key"]), r["chunk"]))
    evaluated = sum(r["evaluated"] for r in results)
    parallelism = None
    from core.simulator.capacity import Evaluator

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
        f", {len(tasks)} chunks on {engine}): best throughput {score.throughput:,.0f} tuples/s, "
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
            "candidates": evaluated,
            "space": total,
            "chunks": len(tasks),
            "engine": engine,
            "throughput": score.throughput,
            "latency_estimate_ms": score.latency_estimate_ms,
        },
    )


SPEC = SchedulerSpec(
    id="optimal",
    name="Exhaustive optimal search",
    paper="Nasiri et al., J Big Data 2023 (exhaustive baseline)",
    params=(
        Param("limit", 200_000, "refuse search spaces with more candidates", int, 1),
        Param("search_parallelism", False, "search instance-count vectors too", bool),
        Param("max_tasks_per_node", 10, "machine capacity in tasks (search_parallelism)", int, 1),
        Param("symmetry", True, "break symmetry between identical nodes and slots", bool),
        Param("engine", "auto", "auto, spark or local", str),
        Param("chunks", 0, "Spark tasks (0 = 4 per core)", int, 0, 100_000),
    ),
    run=schedule,
    summary="Evaluates every placement with the analytic model; the best throughput wins.",
)

"""The exhaustive search of ``optimal``: the space of placements, chunks, scores.

Every placement of the executors onto at most W worker slots (or every
instance-count vector, ``search_parallelism``) is scored with the analytic
model; :func:`search_chunk` scores one chunk (one task of the mapper
``core.search.optimal.search`` is given). Symmetry breaking and the
greedy placement of an instance vector are described in
:mod:`core.search.optimal`.

References
----------
.. [1] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "A scheduling
   algorithm to maximize storm throughput in heterogeneous cluster",
   Journal of Big Data 10:103, 2023 (the exhaustive baseline).
   https://doi.org/10.1186/s40537-023-00771-y
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
from core.placement import SchedulerError
from core.simulator.capacity import Evaluator
from core.topology import build_graph

# instance counts held by the tasks of a search_parallelism enumeration (every vector is
# a tuple of one count per component): 20 million take about 200 MB as Python tuples
MAX_VECTOR_CELLS = 20_000_000


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


def user_components(scenario: Scenario) -> list[str]:
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


def score_key(score) -> tuple:
    """Best first: larger R*, then lower latency estimate, then fewer nodes."""
    return (
        -float(f"{score.max_rate:.9g}"),
        float(f"{score.latency_estimate_ms:.9g}"),
        score.nodes_used,
    )


@cache
def parsed_scenario(text: str) -> Scenario:
    return parse_scenario(text)


def search_chunk(task: Mapping[str, Any]) -> dict[str, Any]:
    """Evaluate one chunk; its best candidate, how many it evaluated."""
    scenario = parsed_scenario(task["scenario"])
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


def chunk_tasks(scenario: Scenario, params: Mapping[str, Any], chunks: int) -> tuple[list, int]:
    text = json.dumps(scenario.to_json_dict(), sort_keys=True)
    if params["search_parallelism"]:
        comps = user_components(scenario)
        capacity = params["max_tasks_per_node"] * sum(1 for n in scenario.cluster.nodes if n.slots)
        total = math.comb(capacity, len(comps))
        _refuse_if_too_large(total, params["limit"], "instance-count vectors")
        if total * len(comps) > MAX_VECTOR_CELLS:  # every vector is held in a task
            raise SchedulerError(
                f"optimal: {_readable(total)} instance-count vectors of {len(comps)} "
                f"components are {_readable(total * len(comps))} counts to hold, above "
                f"{MAX_VECTOR_CELLS:,} (the memory budget): shrink the scenario"
            )
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

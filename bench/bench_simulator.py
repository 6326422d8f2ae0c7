"""The simulator's speed: analytic evaluations/s and trace tuple-hops/s.

Targets (issue 4): >= 10,000 analytic evaluations/s on the WordCount-sized
case (spout x5 -> split x8 shuffle, selectivity 10 -> count x12 fields, on
5 nodes) and >= 5 million trace tuple-hops/s on one core. Figures are the
best of a few repeats after a warm-up run, per CPU second of this process
(numpy runs these operations on one core; other work on a shared machine
then inflates only the wall time, printed beside); printed, not asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from core.model import Scenario, validate_scenario
from core.schedulers import run_scheduler
from core.simulator import Evaluator, simulate
from core.simulator.plan import trace_plan
from core.simulator.trace import run_trace

REPEATS = 3
PLACEMENTS = 5_000  # random placements per analytic run
TRACE_TUPLES = 200_000  # spout tuples per trace run
HARDWARE = [(8, 3.4, 16), (4, 3.4, 16), (2, 3.4, 16), (4, 3.2, 16), (4, 2.53, 4)]


def wordcount(ackers: int = 0) -> Scenario:
    """spout x5 -> split x8 (shuffle, selectivity 10) -> count x12 (fields), 5 nodes."""
    return validate_scenario(
        {
            "name": "bench-wordcount",
            "topology": {
                "workers": 5,
                "ackers": ackers,
                "components": [
                    {"id": "spout", "parallelism": 5, "cpu_us": 5.0},
                    {"id": "split", "parallelism": 8, "cpu_us": 8.0, "selectivity": 10.0},
                    {"id": "count", "parallelism": 12, "cpu_us": 0.6, "selectivity": 0.0},
                ],
                "streams": [
                    {"from": "spout", "to": "split"},
                    {"from": "split", "to": "count", "grouping": "fields"},
                ],
            },
            "cluster": {
                "nodes": [
                    {"id": f"n{i + 1}", "cores": c, "ghz": g, "flops_per_cycle": f, "slots": 4}
                    for i, (c, g, f) in enumerate(HARDWARE)
                ]
            },
            "workload": {"rate": 20_000},
        }
    )


def best_seconds(work: Callable[[], object], repeats: int = REPEATS) -> tuple[float, float]:
    """The shortest CPU time and wall time of ``repeats`` runs of ``work``, after a warm-up."""
    work()
    cpu = wall = float("inf")
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        work()
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    return cpu, wall


def analytic(scenario: Scenario) -> None:
    ev = Evaluator(scenario)
    rng = np.random.default_rng(0)
    placements = [rng.integers(0, ev.nodes.slots, len(ev.executors)) for _ in range(PLACEMENTS)]
    for name, method in (("score", ev.score), ("evaluate", ev.evaluate)):
        cpu, wall = best_seconds(lambda m=method: [m(p) for p in placements])
        print(
            f"  {scenario.topology.ackers} ackers, {len(ev.executors)} executors: "
            f"Evaluator.{name:<8} {PLACEMENTS / cpu:>9,.0f} placements/s "
            f"(wall {PLACEMENTS / wall:,.0f}/s)"
        )


def trace(scenario: Scenario) -> None:
    ev = Evaluator(scenario)
    slots = ev.encode(run_scheduler(scenario, "even").placement())
    plan = trace_plan(ev, slots, scenario.workload.rate)
    hops = run_trace(plan, TRACE_TUPLES).hops
    cpu, wall = best_seconds(lambda: run_trace(plan, TRACE_TUPLES))
    print(
        f"  {scenario.topology.ackers} ackers: {TRACE_TUPLES:,} spout tuples, {hops:,} hops "
        f"in {cpu:.2f} s: {hops / cpu / 1e6:.1f} M tuple-hops/s (wall {hops / wall / 1e6:.1f} M)"
    )


def end_to_end(scenario: Scenario) -> None:
    sched = run_scheduler(scenario, "even")
    cpu, wall = best_seconds(lambda: simulate(scenario, sched, 20_000.0, tuples=100_000))
    print(f"  simulate(): one row of 100,000 spout tuples in {cpu:.2f} s (wall {wall:.2f} s)")


def main() -> None:
    print("analytic layer (target >= 10,000/s on the WordCount-sized case):")
    for ackers in (0, 3):
        analytic(wordcount(ackers))
    print("trace (target >= 5 M tuple-hops/s per core):")
    for ackers in (0, 3):
        trace(wordcount(ackers))
    end_to_end(wordcount(3))


if __name__ == "__main__":
    main()

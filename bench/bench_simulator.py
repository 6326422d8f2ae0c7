"""The simulator's speed: analytic evaluations/s and trace tuple-hops/s.

Targets (issue 4): >= 10,000 analytic evaluations/s on the WordCount
preset (spout x5 -> split x8 shuffle -> count x12 fields, with and without
its 3 ackers, on TOP-Storm's 5 supervisors) and >= 5 million trace
tuple-hops/s on one core. Figures are the best of a few repeats after a
warm-up run, per CPU second of this process (numpy runs these operations on
one core; other work on a shared machine
then inflates only the wall time, printed beside); printed, not asserted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from core.model import Scenario, validate_scenario
from core.presets import preset_json
from core.registry import run_scheduler
from core.simulator import Evaluator, simulate
from core.simulator.plan import trace_plan
from core.simulator.trace import run_trace

REPEATS = 3
PLACEMENTS = 5_000  # random placements per analytic run
BATCH = 50  # placements per Evaluator.score_many call (a search's candidates)
TRACE_TUPLES = 200_000  # spout tuples per trace run


def wordcount(ackers: int = 3) -> Scenario:
    """The WordCount preset (TOP-Storm's five supervisors), with ``ackers`` ackers fed by
    reliable spouts (the preset's own spouts are unreliable: its ackers get nothing)."""
    data = preset_json("wordcount")
    data["topology"]["ackers"] = ackers
    data["topology"]["reliable_spouts"] = True
    return validate_scenario(data)


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
    batches = [np.array(placements[i : i + BATCH]) for i in range(0, PLACEMENTS, BATCH)]
    runs = (
        ("score", lambda: [ev.score(p) for p in placements]),
        ("evaluate", lambda: [ev.evaluate(p) for p in placements]),
        (f"score_many ({BATCH} a call)", lambda: [ev.score_many(b) for b in batches]),
    )
    for name, work in runs:
        cpu, wall = best_seconds(work)
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


def trace_saturated(scenario: Scenario, load: float = 2.0) -> None:
    """The trace offered ``load`` x R*: throttled by max_spout_pending (sweep + passes)."""
    ev = Evaluator(scenario)
    slots = ev.encode(run_scheduler(scenario, "even").placement())
    r_star = ev.score(slots).max_rate
    plan = trace_plan(ev, slots, load * r_star, service_rate=r_star)
    run = run_trace(plan, TRACE_TUPLES)
    cpu, wall = best_seconds(lambda: run_trace(plan, TRACE_TUPLES), repeats=1)
    print(
        f"  {scenario.topology.ackers} ackers at {load:g} x R*, window "
        f"{scenario.workload.max_spout_pending}: {run.hops:,} hops in {cpu:.2f} s "
        f"({run.passes} passes): {run.hops / cpu / 1e6:.2f} M tuple-hops/s "
        f"(wall {run.hops / wall / 1e6:.2f} M)"
    )


def end_to_end(scenario: Scenario) -> None:
    sched = run_scheduler(scenario, "even")
    cpu, wall = best_seconds(lambda: simulate(scenario, sched, 20_000.0, tuples=100_000))
    print(f"  simulate(): one row of 100,000 spout tuples in {cpu:.2f} s (wall {wall:.2f} s)")


def main() -> None:
    print("analytic layer (target >= 10,000/s on the WordCount preset):")
    for ackers in (0, 3):
        analytic(wordcount(ackers))
    print("trace (target >= 5 M tuple-hops/s per core):")
    for ackers in (0, 3):
        trace(wordcount(ackers))
    print("trace above saturation (flow control; no target):")
    for ackers in (0, 3):
        trace_saturated(wordcount(ackers))
    end_to_end(wordcount(3))


if __name__ == "__main__":
    main()

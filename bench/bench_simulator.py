"""The simulator's speed: analytic evaluations/s and trace tuple-hops/s.

Targets (issue 4): >= 10,000 analytic evaluations/s on the WordCount
preset (spout x5 -> split x8 shuffle -> count x12 fields, with and without
its 3 ackers, on TOP-Storm's 5 supervisors) and >= 5 million trace
tuple-hops/s on one core. Figures are the best of a few repeats after a
warm-up run, per CPU second of this process (numpy runs these operations on
one core; other work on a shared machine
then inflates only the wall time, printed beside); printed, not asserted.

Storm 2.0.0's shuffle (the ``wordcount`` preset, ``storm_version`` 2.0.0: R* solved per
placement, :mod:`core.simulator.spill`): ms of CPU per ``Evaluator.score`` on random
placements and on the dense ones a ``slotscope`` search visits (every move and swap one
step from its answer), each scored once with the R* memo emptied, with the peak Python
memory of a pass (tracemalloc); and the dashboard's Simulate without Spark: the five
``slotscope`` searches of its rate sweep in one process (targets, issue 24 item 7: at
most 1 ms a score on the visited placements, the sweep under 10 s).
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from core.comparison import at_rate
from core.model import Scenario, validate_scenario
from core.presets import preset, preset_json
from core.registry import run_scheduler
from core.simulator import Evaluator, simulate
from core.simulator.plan import trace_plan
from core.simulator.spill import forget
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


SWEEP_FACTORS = (0.5, 1.0, 1.5, 2.0, 3.0)  # dashboard.simulate's rate sweep
NEIGHBOURS = 600  # visited placements scored per pass


def neighbours(ev: Evaluator, slots: np.ndarray, count: int) -> list[np.ndarray]:
    """Placements one move (an executor to another slot in use) or one swap (two executors
    of different slots) from ``slots``: what a slotscope search scores around its answer."""
    used = np.unique(slots).tolist()
    out = []
    for i in range(len(slots)):
        for g in used:
            if g != slots[i]:
                row = slots.copy()
                row[i] = g
                out.append(row)
    for i in range(len(slots)):
        for j in range(i + 1, len(slots)):
            if slots[i] != slots[j]:
                row = slots.copy()
                row[i], row[j] = slots[j], slots[i]
                out.append(row)
    step = max(1, len(out) // count)
    return out[::step][:count]


def per_score_ms(scenario: Scenario, rows: list[np.ndarray]) -> tuple[float, float, float]:
    """CPU ms, wall ms per ``Evaluator.score`` (best of ``REPEATS``, each on a fresh
    Evaluator with the R* memo emptied: every placement solved once) and the peak MB of
    one pass under tracemalloc."""
    cpu = wall = float("inf")
    for _ in range(REPEATS):
        forget()
        ev = Evaluator(scenario)
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        for row in rows:
            ev.score(row)
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    forget()
    ev = Evaluator(scenario)
    tracemalloc.start()
    for row in rows:
        ev.score(row)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return 1e3 * cpu / len(rows), 1e3 * wall / len(rows), peak


def storm2() -> None:
    sc = preset("wordcount")
    ev = Evaluator(sc)
    rng = np.random.default_rng(0)
    random_rows = [rng.integers(0, ev.nodes.slots, len(ev.executors)) for _ in range(NEIGHBOURS)]
    answer = ev.encode(run_scheduler(sc, "slotscope").placement())
    for name, rows in (
        ("random", random_rows),
        ("slotscope-visited", neighbours(ev, answer, NEIGHBOURS)),
    ):
        cpu, wall, peak = per_score_ms(sc, rows)
        print(
            f"  wordcount (Storm {sc.storm_version}), {len(rows)} {name} placements: "
            f"{cpu:.2f} ms CPU a score (wall {wall:.2f} ms), peak {peak:.1f} MB"
        )
    forget()
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    for factor in SWEEP_FACTORS:
        run_scheduler(at_rate(sc, factor * sc.workload.rate), "slotscope")
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
    print(
        f"  Simulate's five slotscope searches (rates x {', '.join(map(str, SWEEP_FACTORS))}):"
        f" {cpu:.1f} s CPU (wall {wall:.1f} s)"
    )


def main() -> None:
    print("Storm 2.0.0's shuffle (targets: <= 1 ms a visited score, Simulate's searches < 10 s):")
    storm2()
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

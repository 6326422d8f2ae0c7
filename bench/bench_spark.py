"""A full comparison on Spark: every scheduler x 8 rates x 3 replicas x 100,000 tuples;
and the dashboard's Simulate job on wordcount.

Targets (issue 4): under 60 s on local[2] with a warm session; speed-up of
local[2] over local[1] >= 1.6. Issue 24: Simulate on wordcount under 10 s at p95
(:func:`simulate_times`: the page's job, default schedulers, the rate sweep, after
``SIMULATE_IDLE_S`` idle, then its charts). ``SLOTSCOPE_BENCH_PARTS=simulate`` runs only
that part.
"""

from __future__ import annotations

import functools
import os
import random
import time
from pathlib import Path

import numpy as np

from core import spark
from core.comparison import compare, placement_key, scheduler_list
from core.presets import preset

RATES = [2_000.0, 4_000.0, 6_000.0, 8_000.0, 10_000.0, 12_000.0, 14_000.0, 16_000.0]
REPLICAS = 3
TUPLES = 100_000
PRESET = "wordcount"


def timed(master: str) -> float:
    scenario = preset(PRESET)
    schedulers = [(s, {}) for s in scheduler_list(["all"])]
    spark.get_session(master)
    compare(scenario, schedulers[:1], rates=RATES[:2], tuples=2_000, mapper=spark.map_tasks)
    start = time.perf_counter()
    doc = compare(
        scenario,
        schedulers,
        rates=RATES,
        replicas=REPLICAS,
        tuples=TUPLES,
        mapper=functools.partial(spark.map_tasks, master=master, key=placement_key),
    )
    seconds = time.perf_counter() - start
    print(f"{master}: {doc['engine']['tasks']} tasks in {seconds:.1f} s")
    return seconds


SIMULATE_MASTER = "local[2]"
SIMULATE_RUNS = int(os.environ.get("SLOTSCOPE_BENCH_RUNS", "5"))
# s idle after the warm-up, as the page sits before a Simulate: Spark ends its idle Python
# workers after 60 s unless they are kept (core.spark.keep_workers)
SIMULATE_IDLE_S = float(os.environ.get("SLOTSCOPE_BENCH_IDLE_S", "70"))
SIMULATE_TARGET_S = 10.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_s() -> float:
    """CPU seconds of this process and of every live process under it (the JVM, Spark's
    Python daemon and workers), from /proc."""
    tree = level = {os.getpid()}
    while level:
        level = spark.child_processes(level) - tree
        tree = tree | level
    total = 0
    for pid in tree:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / CLOCK_TICKS


def simulate_times() -> None:
    """The page's Simulate on wordcount: ``dashboard.jobs.spark_compare`` with the default
    schedulers, the rate sweep, 1 replica and the page's tuples, at a new rate each run (no
    cached result), then its charts (``dashboard.charts.show_results``); wall and CPU
    (this process and its JVM and Python workers) per run, p50 and p95."""
    from dashboard import charts, simulate
    from dashboard.jobs import spark_compare, warm_up
    from dashboard.registry import default_params, default_selection

    selected = default_selection()
    params = default_params(selected)
    schedulers = [(s, params[s]) for s in selected]
    scenario = preset(PRESET)
    warm_up(SIMULATE_MASTER)
    print(
        f"Simulate on {PRESET} ({len(selected)} schedulers x 5 rates, "
        f"{simulate.DEMO_TUPLES:,} tuples), {SIMULATE_MASTER}, {SIMULATE_IDLE_S:g} s idle "
        "after the warm-up:",
        flush=True,
    )
    time.sleep(SIMULATE_IDLE_S)
    rng = random.Random(7)
    walls, cpus = [], []
    for _ in range(SIMULATE_RUNS):
        rate = float(rng.randrange(2000, 9000))
        cpu, start = tree_cpu_s(), time.perf_counter()
        doc = spark_compare(
            scenario,
            schedulers,
            simulate.sweep_rates(rate, True),
            1,
            simulate.DEMO_TUPLES,
            master=SIMULATE_MASTER,
        )
        job_s = time.perf_counter() - start
        charts.show_results(simulate.results_store(doc, rate, ""))
        walls.append(time.perf_counter() - start)
        cpus.append(tree_cpu_s() - cpu)
        print(
            f"  rate {rate:.0f}: {walls[-1]:.2f} s (job {job_s:.2f} s), CPU {cpus[-1]:.2f} s",
            flush=True,
        )
    p50, p95 = np.percentile(walls, [50, 95])
    c50, c95 = np.percentile(cpus, [50, 95])
    flag = "" if p95 < SIMULATE_TARGET_S else f"  (over {SIMULATE_TARGET_S:g} s)"
    print(
        f"Simulate to charts: p50 {p50:.2f} s, p95 {p95:.2f} s; CPU p50 {c50:.2f} s, "
        f"p95 {c95:.2f} s (target p95 < {SIMULATE_TARGET_S:g} s){flag}"
    )
    spark.stop_session()


def main() -> None:
    if os.environ.get("SLOTSCOPE_BENCH_PARTS", "") == "simulate":
        simulate_times()
        return
    print(
        f"comparison on {PRESET}: every scheduler x {len(RATES)} rates x {REPLICAS} replicas "
        f"x {TUPLES:,} spout tuples, warm session"
    )
    one = timed("local[1]")
    two = timed("local[2]")
    print(f"speed-up local[2] / local[1]: {one / two:.2f} (target >= 1.6; local[2] target < 60 s)")
    spark.stop_session()


if __name__ == "__main__":
    main()

"""``slotscope sweep`` of storm-large-cluster-01 over every scheduler as one Spark job.

Target (issue 21): under 5 min on local[2], with its speed-up over local[1] reported.
One Spark task per scheduler (the whole topology set: core/sweep.py), no rates (the
placement figures only), each master's session warmed by a one-scheduler sweep of a
small preset first.
"""

from __future__ import annotations

import time

from core import spark
from core.comparison import scheduler_list
from core.presets import preset
from core.sweep import source_of, spark_sweep

PRESET = "storm-large-cluster-01"
WARM = "lf-diamond"


def timed(master: str) -> float:
    warm = preset(WARM)
    spark_sweep(warm, source_of(WARM, warm), ["even"], master=master)
    scenario = preset(PRESET)
    schedulers = scheduler_list(["all"])
    start = time.perf_counter()
    doc = spark_sweep(scenario, source_of(PRESET, scenario), schedulers, master=master)
    seconds = time.perf_counter() - start
    slowest = max(doc["results"], key=lambda r: r.get("task_s", 0.0))
    print(
        f"{master}: {len(doc['results'])} schedulers in {seconds:.1f} s (slowest task: "
        f"{slowest['scheduler']}, {slowest.get('task_s', 0.0):.1f} s)",
        flush=True,
    )
    for r in doc["results"]:
        figures = r.get("error") or (
            f"{r['scheduled']}/{r['topologies']} scheduled, {r['nodes_used']} nodes, "
            f"{r['slots_used']} slots, {r['steps_per_tuple']:.3f} steps/tuple"
        )
        print(f"  {r['scheduler']:<16} {r.get('task_s', 0.0):6.1f} s  {figures}")
    return seconds


def main() -> None:
    print(f"sweep of {PRESET} over every scheduler, one Spark task each, warm session")
    one = timed("local[1]")
    two = timed("local[2]")
    print(f"speed-up local[2] / local[1]: {one / two:.2f} (local[2] target < 300 s)")
    spark.stop_session()


if __name__ == "__main__":
    main()

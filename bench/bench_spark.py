"""A full comparison on Spark: every scheduler x 8 rates x 3 replicas x 100,000 tuples.

Targets (issue 4): under 60 s on local[2] with a warm session; speed-up of
local[2] over local[1] >= 1.6.
"""

from __future__ import annotations

import functools
import time

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


def main() -> None:
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

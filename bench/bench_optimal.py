"""optimal's search speed on Spark, Nasiri et al.'s instance-count space, slotscope's time.

Targets (issue 6): Nasiri's 27,405 instance vectors under 60 s (their exhaustive
scheduler took about 18 hours); slotscope on WordCount under 5 s.
"""

from __future__ import annotations

import time

from core import spark
from core.model import validate_scenario
from core.presets import preset
from core.schedulers import run_scheduler

MASTER = "local[2]"


def placement_space() -> dict:
    """a x3 -> b x3 -> c x2 on four nodes (two kinds) of 2 slots, W = 4."""
    return {
        "topology": {
            "workers": 4,
            "components": [
                {"id": "a", "parallelism": 3, "cpu_us": 40},
                {"id": "b", "parallelism": 3, "cpu_us": 120},
                {"id": "c", "parallelism": 2, "cpu_us": 60},
            ],
            "streams": [{"from": "a", "to": "b"}, {"from": "b", "to": "c", "grouping": "fields"}],
        },
        "cluster": {
            "nodes": [
                {
                    "id": f"n{i}",
                    "cores": 2 if i < 2 else 4,
                    "ghz": 3.0 if i < 2 else 2.2,
                    "slots": 2,
                }
                for i in range(4)
            ]
        },
        "workload": {"rate": 20000},
    }


def main() -> None:
    spark.get_session(MASTER)
    sc = validate_scenario(placement_space())
    run_scheduler(sc, "optimal", {"engine": "spark", "limit": 10**6})  # warm the workers
    start = time.perf_counter()
    result = run_scheduler(sc, "optimal", {"engine": "spark", "limit": 10**6})
    seconds = time.perf_counter() - start
    n = result.details["candidates"]
    print(
        f"optimal placements on {MASTER}: {n:,} candidates in {seconds:.2f} s "
        f"= {n / seconds:,.0f} candidates/s ({result.details['chunks']} chunks)"
    )

    nasiri = preset("nasiri-example")
    start = time.perf_counter()
    result = run_scheduler(
        nasiri,
        "optimal",
        {"search_parallelism": True, "max_tasks_per_node": 10, "engine": "spark", "limit": 10**6},
    )
    seconds = time.perf_counter() - start
    print(
        f"optimal instance vectors (Nasiri example, 4 components x 3 machines of 10): "
        f"{result.details['candidates']:,} in {seconds:.1f} s (target < 60 s; paper ~18 h)"
    )

    wordcount = preset("wordcount")
    start = time.perf_counter()
    result = run_scheduler(wordcount, "slotscope")
    seconds = time.perf_counter() - start
    print(
        f"slotscope on wordcount: {seconds:.2f} s (target < 5 s), "
        f"{result.details['evaluations']:,} evaluations, {result.details['steps']} steps"
    )


if __name__ == "__main__":
    main()

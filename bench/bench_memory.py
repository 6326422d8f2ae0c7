"""Peak memory of every scheduler at the documented maxima, each in its own process.

The budget (issue 23): every scheduler, and ``simulate``, under 2 GB of process
memory for any scenario within the limits of :mod:`core.model` (50,000 executors,
5,000 nodes). Each run is a fresh ``python -c`` subprocess (so one run's arrays
never count against the next) with an address-space cap (``--cap-gb``, default 6)
so that a regression ends in a MemoryError here rather than on the machine; it
prints wall time and peak resident memory (``VmHWM`` of ``/proc/self/status``).

``python -m bench memory`` runs every scheduler on every shape;
``python -m bench.bench_memory SHAPE SCHEDULER...`` runs a few.

Shapes (each at the executor and node maxima):

- ``pipeline``: 5 components of 10,000 executors (shuffle, fields, local-or-shuffle
  and all-to-one streams), 5,000 nodes of 10 slots;
- ``wide``: 500 components of 100 executors in a chain with fan-outs, 5,000 nodes;
- ``ackers``: a spout and a bolt of 500 executors each and 49,000 ackers;
- ``slots``: 5 x 10,000 executors on 5,000 nodes of 256 slots (1.28 million slots);
- ``wide-slots``: ``wide`` on 5,000 nodes of 256 slots (1,000 streams x 1.28 million slots).

Besides the schedulers, ``simulate`` runs the simulator's trace (:func:`core.simulator.simulate`,
what a Spark task runs) on ``even``'s placement with ``MAX_TUPLES`` spout tuples, or a
quarter, a sixteenth... of them when the trace's hop limit refuses so many.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from core.model import MAX_EXECUTORS, MAX_NODES
from core.settings import MEMORY_BUDGET_MB as BUDGET_MB

KINDS = [(8, 3.4, 16, 16), (4, 3.2, 16, 8), (4, 2.53, 4, 4), (16, 2.2, 32, 64)]


def cluster(nodes: int = MAX_NODES, slots: int = 10) -> dict:
    """``nodes`` nodes of four hardware kinds in 20 racks."""
    return {
        "nodes": [
            {
                "id": f"n{i}",
                "cores": KINDS[i % 4][0],
                "ghz": KINDS[i % 4][1],
                "flops_per_cycle": KINDS[i % 4][2],
                "ram_gb": KINDS[i % 4][3],
                "slots": slots,
                "rack": f"r{i % 20}",
            }
            for i in range(nodes)
        ]
    }


def pipeline(executors: int = MAX_EXECUTORS, nodes: int = MAX_NODES, slots: int = 10) -> dict:
    """Five components of executors/5 each, every grouping but global on the way."""
    per = executors // 5
    comps = [f"c{i}" for i in range(5)]
    groupings = ["shuffle", "fields", "local-or-shuffle", "shuffle"]
    return {
        "name": "pipeline",
        "topology": {
            "workers": nodes,
            "components": [
                {"id": c, "parallelism": per, "cpu_us": 5.0 + i, "memory_mb": 1}
                for i, c in enumerate(comps)
            ],
            "streams": [
                {"from": a, "to": b, "grouping": g}
                for a, b, g in zip(comps, comps[1:], groupings, strict=False)
            ],
        },
        "cluster": cluster(nodes, slots),
        "workload": {"rate": 1000},
    }


def wide(
    components: int = 500, executors: int = MAX_EXECUTORS, nodes: int = MAX_NODES, slots: int = 10
) -> dict:
    """``components`` components in a chain, each also feeding the one two further on."""
    per = executors // components
    comps = [f"c{i}" for i in range(components)]
    streams = [{"from": a, "to": b} for a, b in zip(comps, comps[1:], strict=False)]
    streams += [
        {"from": a, "to": b, "grouping": "fields"} for a, b in zip(comps, comps[2:], strict=False)
    ]
    return {
        "name": "wide",
        "topology": {
            "workers": nodes,
            "components": [
                {"id": c, "parallelism": per, "selectivity": 0.5, "memory_mb": 1} for c in comps
            ],
            "streams": streams,
        },
        "cluster": cluster(nodes, slots),
        "workload": {"rate": 1000},
    }


def ackers(executors: int = MAX_EXECUTORS, nodes: int = MAX_NODES) -> dict:
    """A spout and a bolt of 500 executors each; every other executor an acker."""
    return {
        "name": "ackers",
        "topology": {
            "workers": nodes,
            "ackers": executors - 1000,
            "components": [
                {"id": "spout", "parallelism": 500, "memory_mb": 1},
                {"id": "bolt", "parallelism": 500, "memory_mb": 1},
            ],
            "streams": [{"from": "spout", "to": "bolt"}],
        },
        "cluster": cluster(nodes),
        "workload": {"rate": 1000},
    }


SHAPES = {
    "pipeline": pipeline,
    "wide": wide,
    "ackers": ackers,
    "slots": lambda: pipeline(slots=256),
    "wide-slots": lambda: wide(slots=256),
}
SIMULATE = "simulate"  # not a scheduler: the even placement's trace at MAX_TUPLES spout tuples

CHILD = """
import json, resource, sys, time
cap = int(float(sys.argv[3]) * 2**30)
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from core.model import parse_scenario
from core.registry import run_scheduler
scenario = parse_scenario(open(sys.argv[1]).read())
began = time.perf_counter()
if sys.argv[2] == "simulate":
    from core.settings import MAX_TUPLES
    from core.simulator import SimulationError, simulate
    result = run_scheduler(scenario, "even")
    tuples = MAX_TUPLES
    while True:  # the most spout tuples the trace's hop limit takes (a quarter at a time)
        try:
            simulate(scenario, result, scenario.workload.rate, 0, tuples, 0)
            break
        except SimulationError:
            if tuples < 400:
                raise
            tuples //= 4
else:
    result = run_scheduler(scenario, sys.argv[2], json.loads(sys.argv[4]))
wall = time.perf_counter() - began
hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))
print(json.dumps({'wall_s': wall, 'peak_mb': int(hwm.split()[1]) / 1024,
                  'status': result.status.value, 'message': result.message}))
"""


def measure(scenario: dict, scheduler: str, params: dict | None = None, cap_gb: float = 6.0):
    """(wall seconds, peak MB, status) of one scheduler run in a fresh process."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
    try:
        began = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, f.name, scheduler, str(cap_gb), json.dumps(params or {})],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            return time.perf_counter() - began, None, f"failed: {last[:120]}"
        out = json.loads(done.stdout.strip().splitlines()[-1])
        return out["wall_s"], out["peak_mb"], out["status"]
    finally:
        os.unlink(f.name)


def main(args: list[str] | None = None) -> None:
    from core.registry import SCHEDULERS

    args = sys.argv[1:] if args is None else args
    shapes = [a for a in args if a in SHAPES] or list(SHAPES)
    schedulers = [a for a in args if a in SCHEDULERS or a == SIMULATE] or [*SCHEDULERS, SIMULATE]
    print(f"shape     scheduler         seconds  peak MB  budget {BUDGET_MB:,.0f} MB  status")
    for shape in shapes:
        scenario = SHAPES[shape]()
        for sid in schedulers:
            wall, peak, status = measure(scenario, sid)
            verdict = "?" if peak is None else "ok" if peak <= BUDGET_MB else "OVER"
            shown = "-" if peak is None else f"{peak:,.0f}"
            print(
                f"{shape:<9} {sid:<16} {wall:8.1f}  {shown:>7}  {verdict:<16} {status}", flush=True
            )


if __name__ == "__main__":
    main()

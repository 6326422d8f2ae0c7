"""Memory grows with the input (executors + nodes + streams), never with its square.

Each test runs the code on a medium input where the old code's square array
would be tens to hundreds of MB, and bounds the bytes Python allocated
(``tracemalloc``, numpy included) by a small multiple of the input. The whole
run at the documented maxima is ``python -m bench memory``.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from bench.bench_memory import cluster, wide
from core.model import MAX_KEYS, MAX_WORKERS, ScenarioError, validate_scenario
from core.registry import run_scheduler
from core.simulator.capacity import Evaluator
from core.simulator.flows import heaviest_flows
from core.simulator.rates import executor_flows

MB = 2**20
GROUPINGS = ["shuffle", "fields", "local-or-shuffle", "all", "global"]


def _peak(call) -> tuple[object, int]:
    """(result, peak bytes traced) of ``call()``."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _random_scenario(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    comps = [
        {
            "id": f"c{i}",
            "parallelism": int(rng.integers(1, 9)),
            "selectivity": float(rng.choice([0, 0.5, 1, 3])),
        }
        for i in range(n)
    ]
    streams = [
        {
            "from": f"c{a}",
            "to": f"c{b}",
            "grouping": str(rng.choice(GROUPINGS)),
            "keys": int(rng.integers(1, 30)),
            "key_skew": float(rng.choice([0, 1.2])),
        }
        for b in range(1, n)
        for a in range(b)
        if a == b - 1 or rng.random() < 0.3
    ]
    return rng, validate_scenario(
        {
            "topology": {"components": comps, "streams": streams, "ackers": int(rng.integers(3))},
            "cluster": {
                "nodes": [{"id": f"n{i}", "cores": 2, "ghz": 2.0, "slots": 3} for i in range(3)]
            },
        }
    )


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_heaviest_flows_from_candidates_equal_the_full_sort(seed):
    """Every grouping, ties included (shuffle's equal shares, local-or-shuffle's per
    worker), placements with any number of workers, limits cutting inside ties."""
    rng, sc = _random_scenario(seed)
    ev = Evaluator(sc)
    slots = rng.integers(0, int(rng.integers(1, 10)), len(ev.executors))
    for limit in (1, 2, 5, 17, 10_000):
        assert heaviest_flows(ev.table, slots, 7.0, limit) == executor_flows(
            ev.table, slots, 7.0, limit=limit
        )


def _pair(parallelism: int, grouping: str):
    return validate_scenario(
        {
            "topology": {
                "components": [
                    {"id": "s", "parallelism": parallelism},
                    {"id": "b", "parallelism": parallelism},
                ],
                "streams": [{"from": "s", "to": "b", "grouping": grouping}],
            },
            "cluster": cluster(50),
        }
    )


@pytest.mark.parametrize("grouping", ["shuffle", "local-or-shuffle"])
def test_heaviest_flows_memory_grows_with_the_limit_not_the_pairs(grouping):
    """3,000 x 3,000 executors: 9 million pairs, 216 MB as (sender, receiver, rate)
    arrays before; the selection of 2,000 stays under 4 MB."""
    sc = _pair(3_000, grouping)
    ev = Evaluator(sc)
    slots = np.arange(len(ev.executors)) % 500  # 12 executors a worker
    flows, peak = _peak(lambda: heaviest_flows(ev.table, slots, 100.0, 2_000))
    assert len(flows) == 2_000
    assert peak < 4 * MB
    if grouping == "shuffle":  # all equal: the first 2,000 pairs in stream order
        assert flows[0][:2] == ("s#0", "b#0") and flows[-1][:2] == ("s#0", "b#1999")


def test_scoring_holds_no_stream_by_slot_array():
    """200 streams on 500 nodes of 256 slots: 25.6 million (stream, slot) bins, 205 MB an
    array when counted densely (577 MB traced for one score); one score now traces under
    24 MB, and building the evaluator under 6 MB."""
    sc = validate_scenario(wide(components=100, executors=2_000, nodes=500, slots=256))
    ev, built = _peak(lambda: Evaluator(sc))
    assert built < 6 * MB  # no entry per slot (a (node, slot) dict was 15 MB here)
    slots = ev.encode(run_scheduler(sc, "even").placement())
    score, peak = _peak(lambda: ev.score(slots))
    assert score.max_rate > 0
    assert peak < 24 * MB
    rows = np.stack([slots, np.roll(slots, 1)])
    assert ev.score_many(rows)[0] == score  # the batch still scores bit for bit


def test_count_fields_have_upper_bounds():
    base = {
        "topology": {
            "components": [{"id": "a", "parallelism": 1}, {"id": "b", "parallelism": 2}],
            "streams": [{"from": "a", "to": "b", "grouping": "fields", "keys": MAX_KEYS}],
        },
        "cluster": {"nodes": [{"id": "n", "cores": 1, "ghz": 1, "slots": 1}]},
    }
    assert validate_scenario(base).topology.streams[0].keys == MAX_KEYS
    base["topology"]["streams"][0]["keys"] = 10**9
    with pytest.raises(ScenarioError, match=r"topology\.streams\[0\]\.keys"):
        validate_scenario(base)
    base["topology"]["streams"][0]["keys"] = 10
    base["topology"]["workers"] = MAX_WORKERS + 1
    with pytest.raises(ScenarioError, match=r"topology\.workers"):
        validate_scenario(base)
    base["topology"]["workers"] = 1
    base["workload"] = {"max_spout_pending": 10**12}
    with pytest.raises(ScenarioError, match=r"workload\.max_spout_pending"):
        validate_scenario(base)

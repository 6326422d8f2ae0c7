"""optimal: the exhaustive search finds the model's best placement, symmetry-safe."""

import itertools

import numpy as np
import pytest

from core.model import validate_scenario
from core.schedulers import SchedulerError, run_scheduler
from core.schedulers.optimal import Space, greedy_placement, instance_vectors, score_key
from core.simulator.capacity import Evaluator


def small(rate=4000.0, ghz=(3.0, 3.0, 2.0), slots=(2, 2, 2), workers=3, cpu=(50, 200, 100)):
    """a x2 -> b x2 -> c x1 on three nodes (the first two identical)."""
    return validate_scenario(
        {
            "topology": {
                "workers": workers,
                "components": [
                    {"id": "a", "parallelism": 2, "cpu_us": cpu[0]},
                    {"id": "b", "parallelism": 2, "cpu_us": cpu[1]},
                    {"id": "c", "parallelism": 1, "cpu_us": cpu[2]},
                ],
                "streams": [
                    {"from": "a", "to": "b"},
                    {"from": "b", "to": "c", "grouping": "fields"},
                ],
            },
            "cluster": {
                "nodes": [
                    {"id": f"n{i + 1}", "cores": 2, "ghz": g, "slots": s}
                    for i, (g, s) in enumerate(zip(ghz, slots, strict=True))
                ]
            },
            "workload": {"rate": rate},
        }
    )


def brute_force(scenario):
    """Every executor on every slot, at most W slots in use: the best key."""
    ev = Evaluator(scenario)
    total = ev.nodes.slots
    best = None
    for combo in itertools.product(range(total), repeat=len(ev.executors)):
        if len(set(combo)) > scenario.workers:
            continue
        key = score_key(ev.score(np.array(combo)))
        best = key if best is None or key < best else best
    return best


def key_of(scenario, result):
    ev = Evaluator(scenario, result.parallelism)
    return score_key(ev.score(ev.encode(result.placement())))


@pytest.mark.parametrize("symmetry", [True, False])
def test_count_matches_enumeration(symmetry):
    sc = small()
    space = Space(sc, 5, symmetry)
    assert space.count() == sum(1 for _ in space.walk())


def test_symmetry_breaking_shrinks_the_space():
    # 6 slots, <= 3 in use: sum_m C(6,m) m! S(5,m) = 6 + 15*2*15 + 20*6*25 = 3456 raw
    assert Space(small(), 5, symmetry=False).count() == 3456
    assert Space(small(), 5, symmetry=True).count() == 377


@pytest.mark.parametrize("rate", [2000.0, 9000.0, 30000.0])
def test_optimal_equals_brute_force(rate):
    sc = small(rate=rate)
    result = run_scheduler(sc, "optimal", {"engine": "local"})
    assert key_of(sc, result) == brute_force(sc)
    assert result.details["candidates"] == 377


@pytest.mark.parametrize("rate", [3000.0, 30000.0])
def test_symmetry_breaking_never_loses_the_optimum(rate):
    sc = small(rate=rate, ghz=(3.0, 3.0, 3.0), slots=(2, 2, 2))
    with_sym = run_scheduler(sc, "optimal", {"engine": "local"})
    without = run_scheduler(sc, "optimal", {"engine": "local", "symmetry": "false"})
    assert key_of(sc, with_sym) == key_of(sc, without)
    assert with_sym.details["candidates"] < without.details["candidates"]


def test_spark_search_equals_local_search(spark):
    sc = small(rate=30000.0)
    local = run_scheduler(sc, "optimal", {"engine": "local"})
    on_spark = run_scheduler(sc, "optimal", {"engine": "spark", "chunks": 6})
    assert on_spark.details["engine"] == "spark"
    assert on_spark.details["chunks"] >= 6
    assert on_spark.placement() == local.placement()
    assert on_spark.details["candidates"] == local.details["candidates"] == 377


def test_too_large_a_space_is_refused_with_its_count():
    with pytest.raises(SchedulerError, match=r"search space has 377 candidate placements"):
        run_scheduler(small(), "optimal", {"limit": 100})


def test_instance_vectors_of_nasiris_example():
    assert sum(1 for _ in instance_vectors(4, 30)) == 27405
    assert list(instance_vectors(2, 3)) == [(1, 1), (1, 2), (2, 1)]


def test_parallelism_search_picks_the_best_vector():
    sc = small(rate=20000.0, slots=(1, 1, 1))
    result = run_scheduler(
        sc, "optimal", {"search_parallelism": "true", "max_tasks_per_node": 2, "engine": "local"}
    )
    # 3 components, capacity 3 machines x 2 = 6: C(6, 3) = 20 vectors
    assert result.details["candidates"] == 20
    best = None
    for vector in instance_vectors(3, 6):
        ev = Evaluator(sc, dict(zip(("a", "b", "c"), vector, strict=True)))
        key = score_key(ev.score(greedy_placement(ev, sc, 2)))
        best = key if best is None or key < best else best
    assert key_of(sc, result) == best
    assert sum(result.parallelism.values()) <= 6


def test_greedy_places_more_work_on_faster_machines():
    sc = small(rate=1000.0, ghz=(4.0, 1.0, 1.0), slots=(1, 1, 1))
    ev = Evaluator(sc, {"a": 3, "b": 3, "c": 3})
    slots = greedy_placement(ev, sc, cap=10)
    per_node = np.bincount(ev.nodes.slot_node[slots], minlength=3)
    assert per_node[0] > per_node[1] and per_node[0] > per_node[2]

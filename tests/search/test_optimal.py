"""optimal: CP-SAT and the exhaustive search find the model's best R*, and agree."""

import itertools

import numpy as np
import pytest

from core.model import validate_scenario
from core.presets import preset
from core.registry import SchedulerError, get_scheduler, resolve_params, run_scheduler
from core.search.optimal import (
    Space,
    greedy_placement,
    instance_vectors,
    score_key,
    search,
)
from core.simulator.capacity import Evaluator
from tests.search.first_written import first_written, without_ackers


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
    result = run_scheduler(sc, "optimal", {"method": "enumerate"})
    assert key_of(sc, result) == brute_force(sc)
    assert result.details["candidates"] == 377


@pytest.mark.parametrize("rate", [3000.0, 30000.0])
def test_symmetry_breaking_never_loses_the_optimum(rate):
    sc = small(rate=rate, ghz=(3.0, 3.0, 3.0), slots=(2, 2, 2))
    with_sym = run_scheduler(sc, "optimal", {"method": "enumerate"})
    without = run_scheduler(sc, "optimal", {"method": "enumerate", "symmetry": "false"})
    assert key_of(sc, with_sym) == key_of(sc, without)
    assert with_sym.details["candidates"] < without.details["candidates"]


def test_spark_search_equals_local_search(spark):
    from core.spark import map_tasks

    sc = small(rate=30000.0)
    local = run_scheduler(sc, "optimal", {"method": "enumerate"})
    params = resolve_params(get_scheduler("optimal"), {"method": "enumerate", "chunks": 6})
    on_spark = search(sc, params, mapper=map_tasks)
    assert on_spark.details["chunks"] >= 6
    assert {a.executor: (a.node, a.slot) for a in on_spark.assignments} == local.placement()
    assert on_spark.details["candidates"] == local.details["candidates"] == 377


def test_the_mapper_runs_every_task():
    seen = []

    def recording_map(func, tasks):
        seen.extend(tasks)
        return map(func, tasks)

    params = resolve_params(get_scheduler("optimal"), {"method": "enumerate", "chunks": 4})
    out = search(small(), params, mapper=recording_map)
    assert len(seen) == out.details["chunks"] >= 4
    assert out.details["candidates"] == 377


def test_too_large_a_space_is_refused_with_its_count():
    with pytest.raises(SchedulerError, match=r"search space has 377 candidate placements"):
        run_scheduler(small(), "optimal", {"method": "enumerate", "limit": 100})


def test_instance_vectors_of_nasiris_example():
    assert sum(1 for _ in instance_vectors(4, 30)) == 27405
    assert list(instance_vectors(2, 3)) == [(1, 1), (1, 2), (2, 1)]


def test_parallelism_search_picks_the_best_vector():
    sc = small(rate=20000.0, slots=(1, 1, 1))
    result = run_scheduler(
        sc,
        "optimal",
        {"search_parallelism": "true", "max_tasks_per_node": 2, "method": "enumerate"},
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


CPSAT = {"time_limit": 20}  # generous: small cases prove optimal in well under a second


def r_star(scenario, result):
    return -key_of(scenario, result)[0]


@pytest.mark.parametrize("rate", [2000.0, 30000.0])
@pytest.mark.parametrize("ghz", [(3.0, 3.0, 2.0), (3.4, 2.5, 1.5)])
def test_cpsat_finds_the_brute_force_optimum(rate, ghz):
    sc = small(rate=rate, ghz=ghz)
    result = run_scheduler(sc, "optimal", CPSAT)
    best = -brute_force(sc)[0]
    assert result.details["status"] == "optimal"
    assert r_star(sc, result) == pytest.approx(best, rel=1e-6)
    assert result.details["bound"] == pytest.approx(best, rel=1e-5)


def test_cpsat_is_exact_when_the_nic_binds():
    # 1 Mbit/s links: the NIC bounds R* unless the hot pairs share a node
    sc = validate_scenario(
        {**small(rate=5000.0).to_json_dict(), "network": {"bandwidth_gbps": 0.001}}
    )
    result = run_scheduler(sc, "optimal", CPSAT)
    best = -brute_force(sc)[0]
    assert (
        "NIC" in Evaluator(sc).loads(np.zeros(5, dtype=np.int64) + np.arange(5) % 2 * 2).bottleneck
    )
    assert r_star(sc, result) == pytest.approx(best, rel=1e-6)


def test_cpsat_honours_fixed_overheads():
    # nasiri-example: profiled MET per machine type (fixed cores per executor)
    sc = preset("nasiri-example")
    result = run_scheduler(sc, "optimal", CPSAT)
    enumerated = run_scheduler(sc, "optimal", {"method": "enumerate"})
    assert result.details["status"] == "optimal"
    assert r_star(sc, result) == pytest.approx(r_star(sc, enumerated), rel=1e-6)


def test_cpsat_agrees_with_enumeration_on_lf_linear():
    sc = without_ackers(preset("lf-linear"))  # its 8 ackers would put enumeration out of reach
    result = run_scheduler(sc, "optimal", CPSAT)
    enumerated = run_scheduler(sc, "optimal", {"method": "enumerate"})
    assert result.details["status"] == "optimal"
    assert result.details["gap"] == pytest.approx(0.0, abs=1e-5)
    assert r_star(sc, result) == pytest.approx(r_star(sc, enumerated), rel=1e-6)


def test_ranks_by_r_star_below_saturation():
    # at 100/s every placement carries the rate: throughputs tie, R* does not
    sc = small(rate=100.0)
    result = run_scheduler(sc, "optimal", {"method": "enumerate"})
    ev = Evaluator(sc)
    first = ev.score(np.zeros(5, dtype=np.int64))  # all in one slot
    assert r_star(sc, result) == -brute_force(sc)[0]
    assert first.throughput == ev.score(ev.encode(result.placement())).throughput
    assert r_star(sc, result) > first.max_rate


@pytest.mark.parametrize("name", ["wordcount", "rollingcount", "exclamation", "lf-star-x10"])
def test_the_model_size_is_counted_within_a_factor_of_two_without_building_it(name):
    from core.search import cpsat
    from core.search.optimal import cpsat_variables

    sc = preset(name)
    ev = Evaluator(sc)
    model, counted = cpsat_variables(ev)
    built = cpsat.solve_auto(sc, ev, 0.2, 1)
    assert model == built.model
    assert built.variables / 2 <= counted <= 2 * built.variables


def test_a_model_above_the_cap_is_not_built_and_the_improved_starts_answer(monkeypatch):
    import core.search.optimal as optimal

    monkeypatch.setattr(optimal, "MAX_CPSAT_VARIABLES", 0)
    # Storm 1.x's shuffle: R* exact, not a bisection of Storm 2's spill to its resolution
    sc = first_written(preset("wordcount"))
    out = run_scheduler(sc, "optimal", {"time_limit": 5})
    assert out.ok and out.decisions[0].startswith("CP-SAT not run: its per-executor model")
    assert out.details["status"] in ("optimal", "feasible (model too large for CP-SAT)")
    ev = Evaluator(sc)
    assert sorted(a.executor for a in out.assignments) == sorted(ev.executors)
    start = run_scheduler(sc, "slotscope")  # one of the starts; the local search only improves
    assert ev.score(ev.encode(out.placement())).max_rate >= ev.score(
        ev.encode(start.placement())
    ).max_rate * (1 - 1e-9)

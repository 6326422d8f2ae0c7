"""The Problem: built once per scenario content and parallelism, shared by everyone after."""

from __future__ import annotations

import sys

import core.model
import core.topology
from core.model import validate_scenario, with_changes
from core.presets import preset, preset_json
from core.problem import (
    DEFAULT_COSTS,
    PROBLEMS_KEPT,
    clear_problems,
    problem_of,
    problems_built,
)
from core.simulator import Evaluator


def test_equal_content_parsed_twice_shares_one_problem():
    a = validate_scenario(preset_json("lf-linear"))
    b = validate_scenario(preset_json("lf-linear"))
    assert a is not b
    built = problems_built()
    assert problem_of(a) is problem_of(b)
    assert problems_built() - built <= 1


def test_a_problem_holds_the_graph_nodes_and_costs_of_its_scenario():
    p = problem_of(preset("lf-linear"))
    # the 8 POs, then Storm 1.2.3's acker, fed by every one of them (one per worker)
    assert p.graph.order == ("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "__acker")
    assert p.nodes.ids == tuple(f"n{i}" for i in range(1, 9))
    # 20 us per tuple on the 3.0 GHz reference (Skylake) core; the E5-2620 v3 at 2.4 GHz
    # with Haswell's 0.925 of Skylake's work per clock (core/cpus.py): 20 x 3.0 / 2.22 us
    assert p.service_s.shape == (9, 8)  # 8 POs and the acker, on 8 nodes
    assert abs(p.service_s[0, 0] - 20e-6 * 3.0 / (2.4 * 0.925)) < 1e-15


def test_another_parallelism_or_content_is_another_problem():
    sc = preset("lf-linear")
    base = problem_of(sc)
    doubled = problem_of(sc, {"c1": 2})
    assert doubled is not base
    assert doubled.parallelism["c1"] == 2 and base.parallelism["c1"] == 1
    assert base.at({"c1": 2}) is doubled and base.at(None) is base
    # the scenario's own parallelism spelled out is the same problem
    assert problem_of(sc, dict(base.parallelism)) is base
    edited = with_changes(sc, workload=sc.workload.model_copy(update={"rate": 2000.0}))
    assert problem_of(edited) is not base


def test_a_problem_passes_through_and_builds_the_evaluator():
    p = problem_of(preset("lf-linear"))
    assert problem_of(p) is p
    ev = Evaluator(p)
    assert ev.problem is p and ev.graph is p.graph
    assert Evaluator(preset("lf-linear")).problem is p


def test_the_cache_keeps_a_bounded_number_of_problems():
    clear_problems()
    sc = preset("lf-linear")
    first = problem_of(sc, {"c1": 1}, DEFAULT_COSTS)
    for p in range(2, PROBLEMS_KEPT + 2):
        problem_of(sc, {"c1": p})
    built = problems_built()
    again = problem_of(sc, {"c1": 1})
    assert again is not first  # evicted, built anew
    assert problems_built() == built + 1


def _counted(monkeypatch, name: str, home) -> list[int]:
    """Count the calls of ``home.name`` through every module that imported it."""
    original, calls = getattr(home, name), [0]

    def counting(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, counting)
    return calls


def test_a_placement_refresh_builds_the_graph_and_validates_the_scenario_once(monkeypatch):
    from dashboard import compute

    compute.clear_caches()
    clear_problems()
    sc = preset("lf-diamond")
    text = compute.canonical(sc.to_json_dict())
    builds = _counted(monkeypatch, "build_graph", core.topology)
    validations = _counted(monkeypatch, "validate_scenario", core.model)
    ev = compute.evaluate(text, "even", "{}", sc.workload.rate)
    assert ev.analysis is not None and ev.graph is not None
    assert (builds[0], validations[0]) == (1, 1)
    # the other schedulers that keep the parallelism build and validate nothing more
    for scheduler in ("rstorm", "lf", "top-storm"):
        assert compute.evaluate(text, scheduler, "{}", sc.workload.rate).graph is ev.graph
    assert (builds[0], validations[0]) == (1, 1)


def test_the_simulator_builds_one_evaluator_per_problem():
    from core.simulator import evaluator_of

    sc = preset("lf-linear")
    ev = evaluator_of(sc)
    assert evaluator_of(problem_of(sc)) is ev and ev.problem is problem_of(sc)
    assert evaluator_of(sc, {"c1": 2}) is not ev

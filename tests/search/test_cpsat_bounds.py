"""Bounds on R* for every placement: never below the brute-force optimum, tight where shown."""

import itertools

import numpy as np
import pytest

from core.model import validate_scenario
from core.presets import preset
from core.registry import run_scheduler
from core.search import cpsat_counts
from core.search.cpsat_bounds import (
    clique_number,
    compute_load,
    max_square_sum,
    motzkin_straus,
    node_compute_caps,
    serialisation_load,
)
from core.simulator.capacity import Evaluator
from tests.search.first_written import first_written, without_ackers


def chain(p=(2, 2, 2), cpu=(5, 5, 5), ghz=(3.0, 3.0, 2.0), cores=1, tuple_bytes=4096, lsp=False):
    """a -> b -> c, shuffle (or local-or-shuffle), on three one-slot nodes: serdes-heavy."""
    grouping = "local-or-shuffle" if lsp else "shuffle"
    return validate_scenario(
        {
            "topology": {
                "workers": 3,
                "components": [
                    {"id": c, "parallelism": k, "cpu_us": us, "tuple_bytes": tuple_bytes}
                    for c, k, us in zip("abc", p, cpu, strict=True)
                ],
                "streams": [
                    {"from": "a", "to": "b", "grouping": grouping},
                    {"from": "b", "to": "c", "grouping": grouping},
                ],
            },
            "cluster": {
                "nodes": [
                    {"id": f"n{i}", "cores": cores, "ghz": g, "slots": 1} for i, g in enumerate(ghz)
                ]
            },
        }
    )


def brute_force_r_star(sc):
    """The best R* over every placement of every executor on every slot (W = slots)."""
    ev = Evaluator(sc)
    combos = np.array(list(itertools.product(range(ev.nodes.slots), repeat=len(ev.executors))))
    return max(s.max_rate for s in ev.score_many(combos))


def test_clique_numbers_of_paths_triangles_and_empty_graphs():
    assert clique_number(5, [(0, 1), (1, 2), (2, 3), (3, 4)]) == 2
    assert clique_number(4, [(0, 1), (1, 2), (0, 2), (2, 3)]) == 3
    assert clique_number(4, [(a, b) for a in range(4) for b in range(a + 1, 4)]) == 4
    assert clique_number(3, []) == 1


def test_motzkin_straus_holds_on_random_points_and_is_reached():
    rng = np.random.default_rng(7)
    weights = {(0, 1): 2.0, (1, 2): 1.0, (0, 2): 0.5, (2, 3): 3.0}
    mu = motzkin_straus(4, weights)
    assert mu == pytest.approx(3.0 * (1 - 1 / 3) / 2)  # largest weight, triangle 0-1-2
    for y in rng.dirichlet(np.ones(4), size=2000) * rng.uniform(0.1, 5.0, size=(2000, 1)):
        value = sum(w * y[a] * y[b] for (a, b), w in weights.items())
        assert value <= mu * y.sum() ** 2 + 1e-12
    # a path: the bound b / 4 is reached by two neighbours at half each
    assert motzkin_straus(3, {(0, 1): 1.0, (1, 2): 1.0}) == pytest.approx(0.25)


def test_max_square_sum_fills_the_largest_nodes_first():
    assert max_square_sum(np.array([6.0, 10.0, 6.0]), 12.0) == pytest.approx(100 + 4)
    assert max_square_sum(np.array([7.0, 6.0, 6.0]), 12.0) == pytest.approx(49 + 25)
    assert max_square_sum(np.array([1.0, 1.0]), 3.0) == np.inf
    # against every split of 12 into integer parts within the caps
    caps = np.array([5, 4, 4, 3])
    best = max(
        sum(v * v for v in split)
        for split in itertools.product(*(range(c + 1) for c in caps))
        if sum(split) == 12
    )
    assert max_square_sum(caps.astype(float), 12.0) == pytest.approx(best)


def test_node_caps_are_the_largest_compute_a_node_can_carry():
    mu, rho = 0.01, 0.4
    cap = node_compute_caps(np.array([30.0, 50.0]), mu, rho)

    def load(s):
        return s + max(0.0, rho * s - mu * s * s)

    assert load(cap[0]) == pytest.approx(30.0)  # below rho / mu = 40: the root
    assert all(load(s) > 30.0 for s in np.linspace(cap[0] + 1e-6, 30.0, 50))
    assert cap[1] == 50.0  # above rho / mu the node's whole capacity


def test_lf_x10_bound_from_its_numbers():
    # 8 components of 25 us in a chain, 1 KB tuples (10.54 + 15.81 us), 8 nodes of 6 cores
    compute, cores = np.full(8, 25e-6), np.full(8, 6.0)
    streams = [(c, c + 1, 10.54e-6, 15.81e-6) for c in range(7)]
    load = serialisation_load(compute, cores, streams)
    assert compute_load(compute, compute / 20, cores) == pytest.approx(200e-6 / 48)
    assert 1 / load == pytest.approx(155_632, rel=1e-4)
    for name in ("lf-linear-x10", "lf-diamond-x10"):
        sc = without_ackers(first_written(preset(name)))
        assert cpsat_counts.analytic_bound(sc, Evaluator(sc)) == pytest.approx(1 / load, rel=1e-9)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"ghz": (3.0, 2.0, 1.0)},
        {"p": (1, 3, 2), "cpu": (2, 8, 4)},
        {"cores": 2, "tuple_bytes": 8192},
        {"p": (2, 2, 1), "cpu": (20, 5, 10), "tuple_bytes": 1024},
    ],
    ids=["even", "unlike-nodes", "uneven", "two-cores", "compute-heavy"],
)
def test_bound_never_below_the_brute_force_optimum(kwargs):
    sc = chain(**kwargs)
    bound = cpsat_counts.analytic_bound(sc, Evaluator(sc))
    best = brute_force_r_star(sc)
    assert best <= bound * (1 + 1e-9)
    assert bound <= 3.0 * best  # and not vacuous


def test_serialisation_bound_is_tighter_than_compute_alone():
    sc = chain()
    ev = Evaluator(sc)
    service = ev.service_s
    visits = np.array([ev.visits[c] for c in ev.graph.order])
    compute = visits * service.min(axis=1)
    compute_only = 1.0 / compute_load(compute, compute / 2, ev.nodes.cores)
    bound = cpsat_counts.analytic_bound(sc, ev)
    best = brute_force_r_star(sc)
    assert bound < 0.8 * compute_only
    assert bound == pytest.approx(best, rel=0.35)


def test_local_or_shuffle_gets_the_compute_bound():
    sc = chain(lsp=True)
    ev = Evaluator(sc)
    visits = np.array([ev.visits[c] for c in ev.graph.order])
    compute = visits * ev.service_s.min(axis=1)
    bound = cpsat_counts.analytic_bound(sc, ev)
    assert bound == pytest.approx(1 / compute_load(compute, compute / 2, ev.nodes.cores))
    assert brute_force_r_star(sc) <= bound * (1 + 1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_bound_holds_on_random_chains(seed):
    rng = np.random.default_rng(seed)
    p = tuple(int(k) for k in rng.integers(1, 4, size=3))
    while sum(p) > 7:
        p = tuple(int(k) for k in rng.integers(1, 4, size=3))
    sc = chain(
        p=p,
        cpu=tuple(float(v) for v in rng.uniform(1, 30, size=3)),
        ghz=tuple(float(v) for v in rng.uniform(1, 3, size=3)),
        cores=int(rng.integers(1, 4)),
        tuple_bytes=int(rng.integers(256, 8192)),
        lsp=bool(seed % 2),
    )
    assert brute_force_r_star(sc) <= cpsat_counts.analytic_bound(sc, Evaluator(sc)) * (1 + 1e-9)


def test_busiest_thread_of_a_skewed_fields_stream_bounds_r_star():
    # pageview: fields into count (skewed keys) fixes its hottest executor's share
    sc = without_ackers(preset("pageview"))
    ev = Evaluator(sc)
    result = run_scheduler(sc, "optimal", {"time_limit": 1.0})
    bound = cpsat_counts.analytic_bound(sc, ev)
    assert result.details["max_rate"] <= bound * (1 + 1e-9)
    assert result.details["max_rate"] == pytest.approx(bound, rel=1e-9)
    assert result.details["status"] == "optimal"


def test_x10_preset_prints_the_serialisation_bound_and_its_gap():
    sc = without_ackers(first_written(preset("lf-diamond-x10")))
    result = run_scheduler(sc, "optimal", {"time_limit": 1.0})
    d = result.details
    assert d["bound"] == pytest.approx(155_632, rel=1e-4)
    assert d["gap"] == pytest.approx(d["bound"] / d["max_rate"] - 1, rel=1e-12)
    assert 0 < d["gap"] < 0.25  # 1 s; about 10% in 60 s (python -m bench optimal)
    assert any("serialisation no placement avoids" in line for line in result.decisions)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # 0/0 in the bound used to warn
def test_idle_ackers_leave_the_serialisation_bound_finite():
    # storm-starter's Exclamation: its spouts are unreliable, so the ackers have no
    # compute and no streams; they must not turn the least (de)serialisation to NaN
    sc = first_written(preset("exclamation"))  # Storm 1.x: CP-SAT's model is exact
    assert not sc.topology.reliable_spouts
    out = run_scheduler(sc, "optimal", {"time_limit": 1.0})
    assert out.details["status"] == "optimal"
    assert out.details["bound"] == pytest.approx(out.details["max_rate"], rel=1e-3)

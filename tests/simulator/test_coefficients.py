"""The capacity model's coefficients, and its hardware-thread term, on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from sim_builders import make, manual

from core.model import ScenarioError
from core.presets import PRESETS, preset
from core.problem import problem_of
from core.search import cpsat_counts
from core.simulator import Evaluator
from core.simulator.coefficients import (
    SMT_YIELD,
    THREAD_CORES,
    capacity_cores,
    coefficients,
    peak_loads,
    unit_loads,
)


def _four_threads(**node):
    """One spout of 4 executors at 100 us a tuple on one reference-speed node of 2 cores.

    Per unit R each executor takes 1/4 tuple: 25 us of a thread (R <= 40,000) and
    100 us of the node (R <= cores / 1e-4 = 20,000 on 2 cores).
    """
    sc = make(
        [{"id": "s", "parallelism": 4, "cpu_us": 100.0}],
        nodes=[{"id": "n1", "cores": 2, "slots": 1, **node}],
    )
    place = {f"s#{i}": ("n1", 0) for i in range(4)}
    return sc, manual(sc, place)


def _max_rate(sc, sched) -> float:
    ev = Evaluator(sc)
    return ev.loads(ev.encode(sched.placement())).max_rate


def test_without_smt_the_capacity_is_the_physical_cores():
    sc, sched = _four_threads()
    assert capacity_cores(sc).tolist() == [2.0]
    assert _max_rate(sc, sched) == pytest.approx(20_000.0)


def test_each_extra_hardware_thread_adds_its_yield_to_the_node():
    # 2 cores, 4 threads at 0.25: 2 + 2 x 0.25 = 2.5 cores -> R* = 2.5 / 1e-4
    sc, sched = _four_threads(threads=4, smt_yield=0.25)
    assert capacity_cores(sc).tolist() == [2.5]
    assert _max_rate(sc, sched) == pytest.approx(25_000.0)
    ev = Evaluator(sc)
    assert ev.loads(ev.encode(sched.placement())).bottleneck == "node n1 CPU"


def test_the_default_yield_applies_only_with_extra_threads():
    with_smt, _ = _four_threads(threads=4)
    assert SMT_YIELD == 0.3
    assert capacity_cores(with_smt).tolist() == [pytest.approx(2.6)]  # 2 + 2 x 0.3
    same, _ = _four_threads(threads=2)
    assert capacity_cores(same).tolist() == [2.0]


def test_capacity_counts_every_socket():
    sc, _ = _four_threads(threads=4, smt_yield=0.5, sockets=2)
    assert capacity_cores(sc).tolist() == [6.0]  # 2 x (2 + 2 x 0.5)


def test_smt_gives_room_for_threads_not_speed_to_one():
    # 8 cores and 16 threads: the node allows 8 + 8 x 0.3 = 10.4 cores (R <= 104,000),
    # but each thread still runs at most THREAD_CORES: 25 us per unit R -> R* = 40,000
    sc, sched = _four_threads(cores=8, threads=16)
    assert THREAD_CORES == 1
    assert _max_rate(sc, sched) == pytest.approx(40_000.0)


def test_worker_jvm_cores_come_off_the_smt_capacity():
    # 2.5 cores less one worker JVM's 0.5 -> 2.0 for the executors -> R* = 20,000
    _, sched = _four_threads(threads=4, smt_yield=0.25)
    sc = make(
        [{"id": "s", "parallelism": 4, "cpu_us": 100.0}],
        nodes=[{"id": "n1", "cores": 2, "slots": 1, "threads": 4, "smt_yield": 0.25}],
        network={"worker_cpu_cores": 0.5},
    )
    assert _max_rate(sc, sched) == pytest.approx(20_000.0)


def test_the_count_model_reads_the_same_capacity():
    sc, _ = _four_threads(threads=4, smt_yield=0.25)
    sol = cpsat_counts.solve(sc, Evaluator(sc), time_limit_s=10.0, workers=1)
    assert sol.status == "optimal"
    assert sol.model_rate == pytest.approx(25_000.0, rel=1e-5)


def test_fewer_threads_than_cores_is_rejected_naming_the_field():
    with pytest.raises(ScenarioError, match=r"cluster.nodes\[0\].threads"):
        _four_threads(threads=1)


def test_every_preset_without_hyperthreads_keeps_its_physical_cores_as_capacity():
    for name in PRESETS:
        problem = problem_of(preset(name))
        nodes = problem.scenario.cluster.nodes
        smt = [(n.threads or n.cores) - n.cores for n in nodes]
        expected = (problem.nodes.cores + SMT_YIELD * np.array(smt, dtype=float)).tolist()
        assert coefficients(problem).capacity_cores.tolist() == pytest.approx(expected), name


def test_top_storm_capacity_comes_from_table_4s_cpus():
    # i7-6700 4c/8t: 4 + 4 x 0.3; 4 and 2 of its logical CPUs left on: 4 and 2 cores;
    # i5-4460 4c/4t; i5 M 460 2c/4t: 2 + 2 x 0.3
    problem = problem_of(preset("wordcount"))
    assert coefficients(problem).capacity_cores.tolist() == pytest.approx([5.2, 4, 2, 4, 2.6])


def test_the_i5_m460s_rate_by_hand():
    """One spout of 4 executors at 100 us a tuple on an i5 M 460: each tuple takes
    100 / (2.53 x 0.63 / 3.0) = 188.2 us of a core; the node gives 2 + 2 x 0.3 = 2.6
    cores, so R* = 2.6 / 188.2e-6 = 13,813.8 (each thread at 47 us per unit R allows
    21,254)."""
    sc = make(
        [{"id": "s", "parallelism": 4, "cpu_us": 100.0}],
        # make() types a reference node's cores and clock: type the table's values back
        nodes=[{"id": "n1", "cpu_model": "i5-M460", "cores": 2, "ghz": 2.53, "slots": 1}],
    )
    assert sc.cluster.nodes[0].threads == 4  # from the table
    sched = manual(sc, {f"s#{i}": ("n1", 0) for i in range(4)})
    coef = coefficients(problem_of(sc))
    assert coef.capacity_cores.tolist() == [pytest.approx(2.6)]
    assert coef.service_s[0, 0] == pytest.approx(100e-6 * 3.0 / (2.53 * 0.63))
    assert _max_rate(sc, sched) == pytest.approx(2.6 * 2.53 * 0.63 / 3.0 / 100e-6)
    assert _max_rate(sc, sched) == pytest.approx(13_813.8, rel=1e-5)


def test_serialisation_and_nic_coefficients_per_stream():
    # 400 B tuples: 2 us and 3 us per 200 B -> 4 us to serialise, 6 us to deserialise
    sc = make(
        [
            {"id": "s", "parallelism": 1, "cpu_us": 1.0, "tuple_bytes": 400},
            {"id": "b", "parallelism": 1, "cpu_us": 3.0},
        ],
        [("s", "b")],
        nodes=[{"id": "n1", "nic_gbps": 10.0}],
    )
    coef = coefficients(problem_of(sc))
    assert coef.ser_s.tolist() == [pytest.approx(4e-6)]
    assert coef.deser_s.tolist() == [pytest.approx(6e-6)]
    assert coef.bits.tolist() == [3200.0]
    assert coef.nic_bits_per_s.tolist() == [10e9]
    assert coef.service_s[:, 0].tolist() == [pytest.approx(1e-6), pytest.approx(3e-6)]


def test_one_row_of_unit_loads_is_the_evaluators_loads():
    sc, sched = _four_threads(threads=4, smt_yield=0.25)
    ev = Evaluator(sc)
    slots = ev.encode(sched.placement())
    r = ev.coef.static
    u = unit_loads(ev.coef, slots[None, :], r.arrival, r.src_out, r.local_total, ev.coef.o_tot)
    loads = ev.loads(slots)
    assert np.array_equal(u.cpu[0], loads.cpu)
    assert u.cpu[0].tolist() == [pytest.approx(25e-6)] * 4  # cores per unit R per thread
    peaks = peak_loads(ev.coef, u)
    assert peaks.node.tolist() == [pytest.approx(1e-4 / 2.5)]

"""A placement that needs more memory than a node has cannot run: ``violations``.

Memory per node is what the simulator reports (``memory_mb``): every used worker
takes the worker heap, or its executors' declared on-heap memory when that is more
(:func:`core.simulator.costs.memory_by_node`); a node over its RAM is a violation.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.hardware import node_arrays
from core.simulator import analyze, simulate
from core.simulator.costs import memory_by_node, memory_violations
from tests.simulator.sim_builders import make, manual

HEAP = 768.0  # MB, Storm's default worker heap (network.worker_heap_mb)


def _two_nodes(ram_a: float = 1.0, ram_b: float = 2.0, memory_mb: float = 128.0):
    """s (1 executor) -> b (10 executors), 128 MB declared each; a: 2 slots, b: 1 slot."""
    comps = [
        {"id": "s", "parallelism": 1, "cpu_us": 1.0, "memory_mb": memory_mb},
        {"id": "b", "parallelism": 10, "cpu_us": 1.0, "memory_mb": memory_mb},
    ]
    nodes = [{"id": "a", "ram_gb": ram_a, "slots": 2}, {"id": "b", "ram_gb": ram_b, "slots": 1}]
    return make(comps, [("s", "b")], nodes, rate=10.0)


def test_two_heaps_on_a_one_gb_node_do_not_fit():
    sc = _two_nodes()
    nodes = node_arrays(sc)
    # slots: a:0 = 0, a:1 = 1, b:0 = 2; executors s#0, b#0..b#9
    slot_of = np.array([0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
    memory, _ = memory_by_node(nodes, slot_of, np.full(11, 128.0), HEAP)
    # a: two used workers of 768 MB = 1536 MB > 1024 MB; b: 8 x 128 = 1024 MB (over its
    # 768 MB heap, so the executors' figure) <= 2048 MB
    assert memory.tolist() == [1536.0, 1024.0]
    assert memory_violations(nodes, slot_of, memory) == (
        "node a needs 1.5 GB for 3 executors but has 1.0 GB",
    )


def test_a_placement_that_fits_has_no_violations():
    sc = _two_nodes()
    nodes = node_arrays(sc)
    slot_of = np.array([0] * 6 + [2] * 5)  # one worker on each node: 768 and 768 MB
    memory, _ = memory_by_node(nodes, slot_of, np.full(11, 128.0), HEAP)
    assert memory.tolist() == [768.0, 768.0]
    assert memory_violations(nodes, slot_of, memory) == ()


def test_every_node_over_its_ram_is_named_with_enough_decimals():
    # 3 GB of executors (24 x 128 MB) on a 2.95 GB node: 3.0 vs 3.0 at one decimal,
    # told apart at two; 1 executor of 2 GB on a 1 GB node
    sc = _two_nodes(ram_a=2.95, ram_b=1.0, memory_mb=128.0)
    nodes = node_arrays(sc)
    executor_mb = np.array([2048.0] + [128.0] * 10)
    slot_of = np.array([2] + [0] * 10)
    memory, _ = memory_by_node(nodes, slot_of, executor_mb, HEAP)
    assert memory.tolist() == [1280.0, 2048.0]  # a fits: 10 x 128 MB
    assert memory_violations(nodes, slot_of, memory) == (
        "node b needs 2.0 GB for 1 executor but has 1.0 GB",
    )
    memory = np.array([24 * 128.0, 0.0])
    assert memory_violations(nodes, slot_of, memory) == (
        "node a needs 3.00 GB for 10 executors but has 2.95 GB",
    )


def test_analyze_and_the_simulate_row_carry_the_violations():
    sc = _two_nodes()
    where = {"s#0": ("a", 0), **{f"b#{i}": ("a", 1) for i in range(10)}}
    crowded = manual(sc, where)
    # a:0 holds 128 MB (its 768 MB heap), a:1 1280 MB of executors: 2048 MB on 1024 MB
    assert analyze(sc, crowded).memory_mb == {"a": 2048.0, "b": 0.0}
    expected = ["node a needs 2.0 GB for 11 executors but has 1.0 GB"]
    assert list(analyze(sc, crowded).violations) == expected
    row = simulate(sc, crowded, rate=10.0, tuples=200)
    assert row["violations"] == expected
    assert list(row)[-2:] == ["placement_ms", "violations"]  # added last, keys kept
    spread = manual(sc, {"s#0": ("a", 0), **{f"b#{i}": ("b", 0) for i in range(10)}})
    assert simulate(sc, spread, rate=10.0, tuples=200)["violations"] == []


@pytest.mark.parametrize("heap", [512.0, 2048.0])
def test_the_worker_heap_the_network_declares_is_charged(heap):
    sc = make(
        [{"id": "s", "parallelism": 2, "cpu_us": 1.0, "memory_mb": 64.0}],
        nodes=[{"id": "a", "ram_gb": 3.0, "slots": 2}],
        rate=10.0,
        network={"worker_heap_mb": heap},
    )
    two_workers = manual(sc, {"s#0": ("a", 0), "s#1": ("a", 1)})
    # two heaps: 1024 MB fit in 3 GB, 4096 MB do not
    fits = heap * 2 <= 3 * 1024
    violations = analyze(sc, two_workers).violations
    assert violations == (() if fits else ("node a needs 4.0 GB for 2 executors but has 3.0 GB",))

"""A placement that needs more memory than a node has cannot run: ``violations``.

What a node needs is the heap its workers use (:func:`core.simulator.costs.heap_used_by_node`):
per worker in use, the used heap a paper measured (``topology.worker_used_heap_mb``),
else its executors' declared on-heap memory. A worker's -Xmx (``network.worker_heap_mb``)
is a ceiling, not a use: over the RAM it only warns (``memory_by_node``).
"""

from __future__ import annotations

import numpy as np
import pytest

from core.hardware import node_arrays
from core.simulator import analyze, simulate
from core.simulator.costs import heap_used_by_node, memory_by_node, memory_violations
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


def test_two_heap_ceilings_over_the_ram_warn_but_run():
    sc = _two_nodes()
    nodes = node_arrays(sc)
    # slots: a:0 = 0, a:1 = 1, b:0 = 2; executors s#0, b#0..b#9
    slot_of = np.array([0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
    memory, warnings = memory_by_node(nodes, slot_of, np.full(11, 128.0), HEAP)
    # a: two used workers of 768 MB -Xmx = 1536 MB > 1024 MB; b: 8 x 128 = 1024 MB (over its
    # 768 MB heap, so the executors' figure) <= 2048 MB
    assert memory.tolist() == [1536.0, 1024.0]
    assert any("node a memory over-committed" in w and "-Xmx" in w for w in warnings)
    # what the workers use: 128 + 2 x 128 = 384 MB on a, 1024 MB on b: both fit
    used = heap_used_by_node(nodes, slot_of, np.full(11, 128.0))
    assert used.tolist() == [384.0, 1024.0]
    assert memory_violations(nodes, slot_of, used) == ()


def test_a_measured_used_heap_is_charged_per_worker_in_use():
    sc = _two_nodes(ram_a=0.5)
    nodes = node_arrays(sc)
    slot_of = np.array([0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
    # 300 MB measured per worker: a runs 2 workers (600 MB > 512 MB), b one (300 MB)
    used = heap_used_by_node(nodes, slot_of, np.full(11, 128.0), used_heap_mb=300.0)
    assert used.tolist() == [600.0, 300.0]
    assert memory_violations(nodes, slot_of, used) == (
        "node a needs 0.6 GB for 3 executors but has 0.5 GB",
    )
    memory, _ = memory_by_node(nodes, slot_of, np.full(11, 128.0), HEAP, used_heap_mb=300.0)
    assert memory.tolist() == [600.0, 300.0]  # the reported memory is the measured heap too


def test_a_placement_that_fits_has_no_violations():
    sc = _two_nodes()
    nodes = node_arrays(sc)
    slot_of = np.array([0] * 6 + [2] * 5)  # one worker on each node: 768 and 768 MB
    memory, _ = memory_by_node(nodes, slot_of, np.full(11, 128.0), HEAP)
    assert memory.tolist() == [768.0, 768.0]
    used = heap_used_by_node(nodes, slot_of, np.full(11, 128.0))
    assert memory_violations(nodes, slot_of, used) == ()


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
    sc = _two_nodes(ram_a=1.25)
    where = {"s#0": ("a", 0), **{f"b#{i}": ("a", 1) for i in range(10)}}
    crowded = manual(sc, where)
    # a:0 holds 128 MB (its 768 MB heap), a:1 1280 MB of executors: 2048 MB reported;
    # the executors use 11 x 128 = 1408 MB > 1280 MB of RAM
    assert analyze(sc, crowded).memory_mb == {"a": 2048.0, "b": 0.0}
    expected = ["node a needs 1.4 GB for 11 executors but has 1.2 GB"]
    assert list(analyze(sc, crowded).violations) == expected
    row = simulate(sc, crowded, rate=10.0, tuples=200)
    assert row["violations"] == expected
    assert list(row)[-2:] == ["placement_ms", "violations"]  # added last, keys kept
    spread = manual(sc, {"s#0": ("a", 0), **{f"b#{i}": ("b", 0) for i in range(10)}})
    assert simulate(sc, spread, rate=10.0, tuples=200)["violations"] == []


@pytest.mark.parametrize("heap", [512.0, 2048.0])
def test_the_worker_heap_ceiling_only_warns(heap):
    sc = make(
        [{"id": "s", "parallelism": 2, "cpu_us": 1.0, "memory_mb": 64.0}],
        nodes=[{"id": "a", "ram_gb": 3.0, "slots": 2}],
        rate=10.0,
        network={"worker_heap_mb": heap},
    )
    two_workers = manual(sc, {"s#0": ("a", 0), "s#1": ("a", 1)})
    # two -Xmx ceilings: 1024 MB fit in 3 GB, 4096 MB do not, and only warn; the two
    # executors use 128 MB
    fits = heap * 2 <= 3 * 1024
    a = analyze(sc, two_workers)
    assert a.violations == ()
    assert any("-Xmx" in w for w in a.warnings) == (not fits)


def test_a_measured_worker_heap_makes_a_placement_not_runnable():
    sc = make(
        [{"id": "s", "parallelism": 2, "cpu_us": 1.0, "memory_mb": 64.0}],
        nodes=[{"id": "a", "ram_gb": 1.0, "slots": 2}],
        rate=10.0,
    )
    sc = sc.model_copy(
        update={"topology": sc.topology.model_copy(update={"worker_used_heap_mb": 600.0})}
    )
    two_workers = manual(sc, {"s#0": ("a", 0), "s#1": ("a", 1)})
    one_worker = manual(sc, {"s#0": ("a", 0), "s#1": ("a", 0)})
    assert analyze(sc, two_workers).violations == (
        "node a needs 1.2 GB for 2 executors but has 1.0 GB",
    )
    assert analyze(sc, one_worker).violations == ()


def test_off_heap_memory_counts_towards_the_nodes_ram():
    # 11 executors of 64 MB on-heap + 64 MB off-heap on node a (1.25 GB): 11 x 128 MB =
    # 1408 MB of RAM (Storm 2's Cluster.wouldFit charges on-heap + off-heap), as 128 MB
    # on-heap alone would be
    comps = [
        {"id": "s", "parallelism": 1, "cpu_us": 1.0, "memory_mb": 64.0, "offheap_mb": 64.0},
        {"id": "b", "parallelism": 10, "cpu_us": 1.0, "memory_mb": 64.0, "offheap_mb": 64.0},
    ]
    nodes = [{"id": "a", "ram_gb": 1.25, "slots": 2}, {"id": "b", "ram_gb": 2.0, "slots": 1}]
    sc = make(comps, [("s", "b")], nodes, rate=10.0)
    crowded = manual(sc, {"s#0": ("a", 0), **{f"b#{i}": ("a", 1) for i in range(10)}})
    assert list(analyze(sc, crowded).violations) == [
        "node a needs 1.4 GB for 11 executors but has 1.2 GB"
    ]

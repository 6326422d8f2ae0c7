"""Storm's TestDefaultResourceAwareStrategy / TestGenericResourceAwareStrategy cases."""

from __future__ import annotations

import pytest
from ras_fixtures import chain_topology, gen_supervisors, worker_sets

from core.ras import RasCluster, Request, schedule_cluster

# (ackers per worker as configured, acker executors Nimbus sets up, expected workers):
# testDefaultResourceAwareStrategyWithoutSettingAckerExecutors. Nimbus estimates 2
# workers (7 x 450 MB over 2,000 MB of heap), so ackers = 2 x per-worker (-1: default 1).
WITHOUT_SETTING = [
    (1, 2, {frozenset({6, 2, 4, 8}), frozenset({5, 1, 3, 7}), frozenset({0})}),
    (0, 0, {frozenset({6, 2, 4, 5}), frozenset({0, 3, 1})}),
    (2, 4, {frozenset({6, 2, 7, 8}), frozenset({4, 5, 9, 10}), frozenset({1, 3, 0})}),
]


@pytest.mark.parametrize("strategy", ["ras-default", "ras-generic"])
@pytest.mark.parametrize(("per_worker", "ackers", "expected"), WITHOUT_SETTING)
def test_without_setting_acker_executors(strategy, per_worker, ackers, expected):
    cluster = RasCluster(gen_supervisors(4, 4, 200.0, 2000.0))
    topo = chain_topology(ackers, per_worker)
    res = schedule_cluster(cluster, [topo], strategy)
    assert res.results["testTopology"].success
    assert worker_sets(cluster, "testTopology") == expected


@pytest.mark.parametrize("strategy", ["ras-default", "ras-generic"])
def test_with_setting_acker_executors(strategy):
    """testDefaultResourceAwareStrategyWithSettingAckerExecutors: 4 ackers, 2 per worker.

    Nimbus estimates 3 workers (7 x 450 + 4 x 450 MB over 2,000 MB) and sets
    ceil(4 / 3) = 2 ackers per worker whatever the topology asked.
    """
    cluster = RasCluster(gen_supervisors(4, 4, 200.0, 2000.0))
    schedule_cluster(cluster, [chain_topology(4, 2)], strategy)
    assert worker_sets(cluster, "testTopology") == {
        frozenset({6, 2, 7, 8}),
        frozenset({5, 4, 9, 10}),
        frozenset({0, 3, 1}),
    }


def _shared_memory_topology(one_executor: bool, one_component: bool):
    """testDefaultResourceAwareStrategySharedMemory's topology: 10 %, 10 + 10 MB each."""
    from core.importers.stormser import SharedMemory
    from core.ras import RasComponent, RasTopology, Request

    req = Request(10.0, 10.0, 10.0)
    shared = {
        "w-off": SharedMemory("w-off", off_heap_worker=600.0),
        "n-off": SharedMemory("n-off", off_heap_node=700.0),
        "w-on": SharedMemory("w-on", on_heap=400.0),
    }
    comps = [
        RasComponent("spout", 2, req, "spout"),
        RasComponent("bolt-1", 2, req, "bolt", ("spout",), ("w-off",)),
        RasComponent("bolt-2", 2, req, "bolt", ("bolt-1",), ("n-off",)),
        RasComponent("bolt-3", 2, req, "bolt", ("bolt-2",), ("w-on",)),
    ]
    return RasTopology(
        "testTopology",
        comps,
        priority=0,
        worker_max_heap_mb=2000.0,
        shared_memory=shared,
        one_executor_per_worker=one_executor,
        one_component_per_worker=one_component,
    )


@pytest.mark.parametrize("strategy", ["ras-default", "ras-generic"])
@pytest.mark.parametrize(
    ("restriction", "workers", "nodes", "on_heap", "off_heap"),
    [
        ("none", 1, 1, 8 * 10 + 400, 8 * 10 + 600 + 700),
        ("one-executor", 8, 2, 8 * 10 + 2 * 400, 8 * 10 + 2 * 600 + 2 * 700),
        ("one-component", 4, 1, 8 * 10 + 400, 8 * 10 + 600 + 700),
    ],
)
def test_shared_memory(strategy, restriction, workers, nodes, on_heap, off_heap):
    """testDefaultResourceAwareStrategySharedMemory: workers, nodes and memory it asserts."""
    cluster = RasCluster(gen_supervisors(4, 4, 500.0, 2000.0))
    topo = _shared_memory_topology(restriction == "one-executor", restriction == "one-component")
    assert schedule_cluster(cluster, [topo], strategy).results["testTopology"].success
    slots = {where for where in cluster.assignments["testTopology"].values()}
    assert len(slots) == workers
    assert len({n for n, _ in slots}) == nodes
    vecs = [cluster.worker_res[s] for s in slots]
    node_shared = sum(
        v for (t, _n), v in cluster.node_shared_offheap.items() if t == "testTopology"
    )
    assert sum(v[0] for v in vecs) == pytest.approx(80.0)
    assert sum(v[1] for v in vecs) == pytest.approx(on_heap)
    assert sum(v[2] for v in vecs) + node_shared == pytest.approx(off_heap)
    assert (cluster.used_cpu <= cluster.total_cpu).all()
    assert (cluster.used_mem <= cluster.total_mem).all()


# testGenericResourceAwareStrategyWithoutSettingAckerExecutors: bolt-2 needs 1 GPU,
# bolt-3 2 GPUs, each supervisor has 2 (ids: bolt-1 1-2, bolt-3 3-4, bolt-2 5-6).
GPU_WITHOUT_SETTING = [
    (1, 2, {frozenset({3}), frozenset({6, 2, 5, 8}), frozenset({4, 1, 0, 7})}),
    (0, 0, {frozenset({3}), frozenset({6, 2, 5, 1}), frozenset({0, 4})}),
    (2, 4, {frozenset({3}), frozenset({7, 8, 6, 2}), frozenset({9, 10, 1, 4}), frozenset({0, 5})}),
]


@pytest.mark.parametrize("strategy", ["ras-generic", "ras-default"])
@pytest.mark.parametrize(("per_worker", "ackers", "expected"), GPU_WITHOUT_SETTING)
def test_generic_without_setting_acker_executors(strategy, per_worker, ackers, expected):
    cluster = RasCluster(gen_supervisors(4, 4, 200.0, 2000.0, {"gpu.count": 2.0}))
    topo = chain_topology(ackers, per_worker, onheap=500.0, gpus={"bolt-2": 1.0, "bolt-3": 2.0})
    assert schedule_cluster(cluster, [topo], strategy).results["testTopology"].success
    assert worker_sets(cluster, "testTopology") == expected


@pytest.mark.parametrize("strategy", ["ras-default", "ras-generic"])
def test_in_favor_of_shuffle(strategy):
    """testDefaultResourceAwareStrategyInFavorOfShuffle: proximity order, shuffle chain.

    50 % CPU, 250 + 250 MB per executor; Nimbus estimates one worker, so one acker (id 7).
    """
    from dataclasses import replace

    from core.ras import RasTopology
    from core.ras.execsort import by_proximity

    base = chain_topology(1, 1, cpu=50.0, onheap=250.0, acker_cpu=50.0, acker_heap=250.0)
    comps = [
        replace(c, request=replace(c.request, offheap=250.0), shuffle_inputs=c.inputs)
        for c in base.components
    ]
    topo = RasTopology(
        "testTopology",
        comps,
        priority=0,
        worker_max_heap_mb=1.7976931348623157e308,
        ackers=1,
        acker_request=Request(50.0, 250.0, 250.0),
        order_by_proximity=True,
    )
    # spout 0; bolt-1 takes 2 // 1 = 2 turns: (2, bolt-2 6, bolt-3 4), (1, 5, 3); acker last
    assert by_proximity(topo).tolist() == [0, 2, 6, 4, 1, 5, 3, 7]
    cluster = RasCluster(gen_supervisors(4, 4, 200.0, 2000.0))
    assert schedule_cluster(cluster, [topo], strategy).results["testTopology"].success
    assert worker_sets(cluster, "testTopology") == {
        frozenset({0, 6, 2, 7}),
        frozenset({3, 5, 4, 1}),
    }

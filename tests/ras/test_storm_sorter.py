"""Storm's TestNodeSorterHostProximity cases, with the orders they assert."""

from __future__ import annotations

from ras_fixtures import gen_supervisors_numa, gen_topology, sorted_nodes, sorted_racks

from core.ras import RasCluster, RasComponent, Request, schedule_cluster

# testMultipleRacks: (cpu %, memory MB) per rack of 10 supervisors, 4 ports
RACKS = [(400, 8000), (200, 4000), (0, 8000), (10, 8000 * 2 + 4000), (400 + 200 + 10, 1000)]


def _racks(zones: int = 1, multiplier: float = 1.0, with_empty: bool = True) -> RasCluster:
    sups = []
    for r, (cpu, mem) in enumerate(RACKS):
        sups += gen_supervisors_numa(r, 10, zones, 4, 10 * r, cpu, mem, multiplier=multiplier)
    if with_empty:  # neither resource, and a generic resource of 0 that must not matter
        sups += gen_supervisors_numa(5, 10, zones, 4, 50, 0.0, 0.0, {"gpu.count": 0.0})
    return RasCluster(sups)


def _topo():
    # genTopology("topo-1", config(100 %, 500 MB on, 500 MB off), 8 spouts, 0 bolts, par 2)
    return gen_topology("topo-1", 8, 0, 2, 0, 100.0, 500.0, 500.0)


def test_multiple_racks_default_sort():
    """testMultipleRacks (NodeSortType.DEFAULT_RAS)."""
    assert sorted_racks(_racks(), _topo(), sort_type="default") == [
        "rack-000",
        "rack-001",
        "rack-004",
        "rack-003",
        "rack-002",
        "rack-005",
    ]


def test_multiple_racks_with_favoritism_default_sort():
    """testMultipleRacksWithFavoritism: two supervisors per host, same rack order."""
    cluster = _racks(zones=2, with_empty=False)
    assert sorted_racks(cluster, _topo(), sort_type="default") == [
        "rack-000",
        "rack-001",
        "rack-004",
        "rack-003",
        "rack-002",
    ]


def test_hosts_stay_together():
    """testMultipleRacksWithHostProximity: 3 NUMA zones per host, x0.4 per zone."""
    sups = []
    for r, (cpu, mem) in enumerate(RACKS):
        sups += gen_supervisors_numa(r, 12, 3, 4, 12 * r, cpu, mem, multiplier=0.4)
    cluster = RasCluster(sups)
    host_of = {s.id: s.host for s in sups}
    order = [host_of[n] for n in sorted_nodes(cluster, _topo())]
    assert len(order) == 60
    runs = [h for i, h in enumerate(order) if i == 0 or order[i - 1] != h]
    assert len(runs) == len(set(runs)) == 20  # each host's nodes come together


def test_racks_ordered_by_capacity():
    """testMultipleRacksOrderedByCapacity: 600..100 % CPU, 7999..7994 MB."""
    sups = []
    for r, cpu in enumerate((600, 500, 400, 300, 200, 100)):
        misc = {"gpu.count": 0.0} if r == 5 else {}
        sups += gen_supervisors_numa(r, 10, 1, 4, 10 * r, cpu, 8000 - (r + 1), misc)
    assert sorted_racks(RasCluster(sups), _topo()) == [f"rack-{i:03d}" for i in range(6)]


def test_anti_affinity_with_multiple_topologies():
    """testAntiAffinityWithMultipleTopologies: GPU executors to the GPU rack, others away."""
    sups = gen_supervisors_numa(0, 40, 1, 66, 0, 4700, 226200)
    sups += gen_supervisors_numa(1, 40, 1, 66, 0, 4700, 226200, {"my.gpu": 1.0})
    cluster = RasCluster(sups)
    simple = gen_topology("topology-simple", 1, 5, 100, 300, 88.0, 775.0, 25.0, 8192.0)
    for comp in range(len(simple.all_components)):
        assert sorted_racks(cluster, simple, comp) == ["rack-000", "rack-001"]
    assert schedule_cluster(cluster, [simple], "ras-generic").results["topology-simple"].success
    gpu = RasComponent(
        "gpu-bolt", 40, Request(88.0, 775.0, 25.0, {"my.gpu": 1.0}), "bolt", ("spout-0",)
    )
    tgpu = gen_topology("topology-gpu", 1, 5, 100, 300, 88.0, 775.0, 25.0, 8192.0, extra=(gpu,))
    for comp, c in enumerate(tgpu.all_components):
        want = ["rack-001", "rack-000"] if c.id == "gpu-bolt" else ["rack-000", "rack-001"]
        assert sorted_racks(cluster, tgpu, comp) == want
    res = schedule_cluster(cluster, [simple, tgpu], "ras-generic")
    assert res.results["topology-gpu"].success
    racks = {
        cluster.supervisors[n].rack for n, _ in cluster.assignments["topology-simple"].values()
    }
    assert racks == {"rack-000"}


def test_fill_up_rack_and_spill_over_to_next_rack():
    """testFillUpRackAndSpilloverToNextRack: 1,100 executors, racks of 880: two racks."""
    comp_per_super = (1 * 100 + 5 * 200) * 4 // 5 // 10
    cpu, mem = 100.0 * comp_per_super, (775.0 + 25.0) * comp_per_super
    sups = []
    for r in range(3):
        sups += gen_supervisors_numa(r, 10, 1, 6, 0, cpu, mem)
    cluster = RasCluster(sups)
    topo = gen_topology("topology1", 1, 5, 100, 200, 100.0, 775.0, 25.0, mem)
    assert schedule_cluster(cluster, [topo], "ras-generic").results["topology1"].success
    racks = {cluster.supervisors[n].rack for n, _ in cluster.assignments["topology1"].values()}
    assert len(racks) == 2


def _three_racks(comp_per_super: int):
    cpu, mem = 100.0 * comp_per_super, (775.0 + 25.0) * comp_per_super
    sups = []
    for r in range(3):
        sups += gen_supervisors_numa(r, 10, 1, 6, 0, cpu, mem)
    return RasCluster(sups), mem


def test_round_robin_distributes_over_racks():
    """TestRoundRobinNodeSorterHostProximity.testDistributeOverRacks: all three racks."""
    cluster, mem = _three_racks((1 * 100 + 5 * 200) * 4 // 5 // 10)
    topo = gen_topology("topology1", 1, 5, 100, 200, 100.0, 775.0, 25.0, mem)
    assert schedule_cluster(cluster, [topo], "ras-round-robin").results["topology1"].success
    racks = {cluster.supervisors[n].rack for n, _ in cluster.assignments["topology1"].values()}
    assert len(racks) == 3


def test_round_robin_distributes_across_racks():
    """testDistributeAcrossRacks: topology1 on all racks; topology2 finds no free node."""
    cluster, mem = _three_racks((1 * 100 + 5 * 200 + 1 * 10) // 10)
    t1 = gen_topology("topology1", 1, 5, 100, 200, 100.0, 775.0, 25.0, mem)
    t2 = gen_topology("topology2", 1, 5, 10, 20, 100.0, 775.0, 25.0, mem)
    schedule_cluster(cluster, [t1], "ras-round-robin")
    res = schedule_cluster(cluster, [t1, t2], "ras-round-robin")
    racks = {cluster.supervisors[n].rack for n, _ in cluster.assignments["topology1"].values()}
    assert len(racks) == 3
    assert not res.results["topology2"].success and "topology2" not in cluster.assignments
    assert "(getTruncatedNodeList): 0 of 30." in res.reports["topology2"]

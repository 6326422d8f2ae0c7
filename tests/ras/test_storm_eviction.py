"""Storm's eviction by priority (ResourceAwareScheduler.scheduleTopology), with the
cases and values of Storm's TestDefaultEvictionStrategy.

storm-server/src/test/java/org/apache/storm/scheduler/resource/strategies/eviction/
TestDefaultEvictionStrategy.java: four supervisors of 100 % CPU and 1,000 MB with 4
ports (``genSupervisors(4, 4, 100, 1000)``); every topology one spout of one executor
asking 100 % CPU, 500 MB on-heap and 500 MB off-heap (``createClusterConfig(100, 500,
500, pools)``), so the cluster holds four; user pools give CPU % and MB guarantees;
launched at ``currentTime - 2`` unless said. Each case is run for every strategy Storm
runs it for that slotscope ports (Default, RoundRobin, Generic; the *Old variants are
not ported). Between rounds Storm builds ``new Cluster(cluster, topologies)``: the
placements stay, the new topology is added.
"""

from __future__ import annotations

import pytest

from core.ras import RasCluster
from core.ras.schedule import ClusterSchedule, schedule_cluster, schedule_rounds
from tests.ras.ras_fixtures import gen_supervisors, gen_topology

STRATEGIES = ["ras-default", "ras-round-robin", "ras-generic"]
NOW = 1450418597  # currentTime in the Java test


def topo(name: str, priority: int, user: str, spouts: int = 1, launched: int = NOW - 2):
    """``genTopology(name, config, spouts, 0, 1, 0, launched, priority, user)``."""
    t = gen_topology(name, spouts, 0, 1, 0, 100.0, 500.0, 500.0, priority=priority)
    t.submitter, t.launch_time = user, float(launched)
    return t


def cluster(pools: dict[str, tuple[float, float]]) -> RasCluster:
    return RasCluster(gen_supervisors(4, 4, 100.0, 1000.0), user_pools=pools)


def scheduled(cl: RasCluster, res: ClusterSchedule) -> set[str]:
    """``assertTopologiesFullyScheduled`` holds for exactly these."""
    return {n for n, r in res.results.items() if r.success and n in cl.assignments}


def not_scheduled(cl: RasCluster, res: ClusterSchedule, *names: str) -> bool:
    """``assertTopologiesNotScheduled``: failed status, no assignment."""
    return all(not res.results[n].success and n not in cl.assignments for n in names)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_eviction(strategy):
    """testEviction: jerry is under his guarantee, bobby over his: bobby's topo-3
    (lowest priority) is evicted for jerry's topo-6."""
    cl = cluster({"jerry": (200, 2000), "bobby": (100, 1000), "derek": (200, 2000)})
    tops = [
        topo("topo-1", 10, "jerry"),
        topo("topo-2", 10, "bobby"),
        topo("topo-3", 20, "bobby"),
        topo("topo-4", 29, "derek"),
    ]
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-3", "topo-4"}
    tops.append(topo("topo-6", 20, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-4", "topo-6"}
    assert not_scheduled(cl, res, "topo-3")
    assert res.evicted == {"topo-6": {"topo-3"}}
    assert "was evicted to make room for topo-6" in res.reports["topo-3"]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_evict_multiple_topologies(strategy):
    """testEvictMultipleTopologies: bobby has no guarantee, so both his topologies go
    for jerry's two-executor topo-1."""
    cl = cluster({"jerry": (200, 2000), "derek": (100, 1000)})
    tops = [
        topo("topo-2", 10, "bobby"),
        topo("topo-3", 20, "bobby"),
        topo("topo-4", 29, "derek"),
        topo("topo-5", 29, "derek"),
    ]
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-2", "topo-3", "topo-4", "topo-5"}
    tops.append(topo("topo-1", 10, "jerry", spouts=2))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-4", "topo-5"}
    assert not_scheduled(cl, res, "topo-2", "topo-3")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_evict_multiple_topologies_from_multiple_users_in_correct_order(strategy):
    """testEvictMultipleTopologiesFromMultipleUsersInCorrectOrder: bobby's topo-3, then
    topo-2, then derek's topo-4 (same priority as topo-5, but submitted later)."""
    cl = cluster({"jerry": (300, 3000), "derek": (100, 1000)})
    tops = [
        topo("topo-2", 10, "bobby"),
        topo("topo-3", 20, "bobby"),
        topo("topo-4", 29, "derek"),
        topo("topo-5", 29, "derek", launched=NOW - 15),
    ]
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-2", "topo-3", "topo-4", "topo-5"}
    tops.append(topo("topo-1", 10, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-4", "topo-5"}
    assert not_scheduled(cl, res, "topo-3")
    tops.append(topo("topo-6", 10, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-4", "topo-5", "topo-6"}
    assert not_scheduled(cl, res, "topo-2", "topo-3")
    tops.append(topo("topo-7", 10, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert {"topo-1", "topo-5", "topo-7"} <= scheduled(cl, res)
    assert not_scheduled(cl, res, "topo-2", "topo-3", "topo-4")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_evict_topology_from_itself(strategy):
    """testEvictTopologyFromItself: jerry's low-priority topo-3 does not fit; his topo-4
    (priority 10) evicts his own topo-2 (20)."""
    cl = cluster({"jerry": (200, 2000), "bobby": (100, 1000), "derek": (100, 1000)})
    tops = [
        topo("topo-1", 20, "jerry"),
        topo("topo-2", 20, "jerry"),
        topo("topo-5", 10, "bobby"),
        topo("topo-6", 29, "derek"),
    ]
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-5", "topo-6"}
    tops.append(topo("topo-3", 29, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-5", "topo-6"}
    assert not_scheduled(cl, res, "topo-3")
    tops.append(topo("topo-4", 10, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-4", "topo-5", "topo-6"}
    assert not_scheduled(cl, res, "topo-2", "topo-3")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_over_guarantee_eviction(strategy):
    """testOverGuaranteeEviction: derek's topo-6 (priority 10) evicts his topo-5 (29);
    jerry's topo-2 then finds no room."""
    cl = cluster({"jerry": (70, 700), "bobby": (100, 1000), "derek": (25, 250)})
    tops = [
        topo("topo-1", 20, "jerry"),
        topo("topo-3", 10, "bobby"),
        topo("topo-4", 10, "bobby"),
        topo("topo-5", 29, "derek"),
    ]
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-3", "topo-4", "topo-5"}
    tops.append(topo("topo-6", 10, "derek"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-3", "topo-4", "topo-6"}
    assert not_scheduled(cl, res, "topo-5")
    tops.append(topo("topo-2", 20, "jerry"))
    res = schedule_cluster(cl, tops, strategy)
    assert scheduled(cl, res) == {"topo-1", "topo-3", "topo-4", "topo-6"}
    assert not_scheduled(cl, res, "topo-2", "topo-5")


def test_nothing_is_evicted_in_one_round_on_an_empty_cluster():
    """Every topology after the one that fails is still unplaced: no eviction, the last
    in Storm's order is left out, with Storm's message."""
    cl = cluster({})
    tops = [topo(f"topo-{i}", 29 - i, "user") for i in range(5)]
    res = schedule_cluster(cl, tops, "ras-default")
    assert res.evicted == {}
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-3", "topo-4"}
    assert res.results["topo-0"].message.startswith(
        "Not enough resources to schedule after evicting lower priority topologies. "
        "Additional Memory Required: 1000.0 MB (Available: 0.0 MB). "
        "Additional CPU Required: 100.0% CPU (Available: 0.0 % CPU)."
    )


def test_one_round_per_submission_evicts_for_a_later_more_important_topology():
    """Submitted in list order with a round after each: the fifth, most important,
    evicts the least important running one (the last in Storm's order)."""
    cl = cluster({})
    tops = [topo(f"topo-{i}", 29 - i, "user") for i in range(5)]
    res = schedule_rounds(cl, tops, "ras-default")
    assert res.evicted == {"topo-4": {"topo-0"}}
    assert scheduled(cl, res) == {"topo-1", "topo-2", "topo-3", "topo-4"}
    assert res.reports["topo-0"].startswith("topo-0 was running and was evicted")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fifo_eviction_strategy(strategy):
    """TestFIFOSchedulingPriorityStrategy.testFIFOEvictionStrategy: each round on a fresh
    cluster; users over their guarantee go newest first, so the oldest topology is the
    one left out (topo-3, up 300 s; then topo-4, up 201 s); jerry, within his guarantee,
    keeps topo-1 although it is older."""
    tops = [
        topo("topo-1-jerry", 20, "jerry", launched=NOW - 250),
        topo("topo-2-bobby", 10, "bobby", launched=NOW - 200),
        topo("topo-3-bobby", 20, "bobby", launched=NOW - 300),
        topo("topo-4-derek", 29, "derek", launched=NOW - 201),
    ]

    def fresh_round():
        cl = RasCluster(
            gen_supervisors(4, 4, 100.0, 1000.0),
            user_pools={"jerry": (200.0, 2000.0)},
            priority_strategy="fifo",
        )
        return cl, schedule_cluster(cl, tops, strategy)

    cl, res = fresh_round()
    assert scheduled(cl, res) == {"topo-1-jerry", "topo-2-bobby", "topo-3-bobby", "topo-4-derek"}
    tops.append(topo("topo-5-derek", 29, "derek", launched=NOW - 15))
    cl, res = fresh_round()
    assert scheduled(cl, res) == {"topo-1-jerry", "topo-2-bobby", "topo-4-derek", "topo-5-derek"}
    assert not_scheduled(cl, res, "topo-3-bobby")
    tops.append(topo("topo-6-bobby", 29, "bobby", launched=NOW - 10))
    cl, res = fresh_round()
    assert scheduled(cl, res) == {"topo-1-jerry", "topo-2-bobby", "topo-5-derek", "topo-6-bobby"}
    assert not_scheduled(cl, res, "topo-3-bobby", "topo-4-derek")

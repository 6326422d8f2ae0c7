"""RoundRobinResourceAwareStrategy step by step, and what Storm's TestLargeCluster runs.

Storm's TestLargeCluster loops over {Default, RoundRobin, Generic} but only puts the
class into the daemon conf; ``ResourceAwareScheduler.scheduleTopology`` reads
``topology.scheduler.strategy`` from each topology's own conf, which
``createTopoDetailsArray`` takes from the corpus file unmerged. Forced on every
topology, round robin fails on the corpus for reasons in Storm's own code
(``getTruncatedNodeList``, ``topology.isolate.machines``, a walk that does not wrap).
"""

from __future__ import annotations

from collections import Counter

from ras_fixtures import gen_supervisors, sorted_nodes

from core.ras import RasCluster, RasComponent, RasTopology, Request, Supervisor, schedule_cluster
from core.ras.corpus import (
    CLUSTER_NAMES,
    corpus_topologies,
    large_cluster,
    load_corpus,
    topology_from_doc,
)
from core.ras.execsort import by_connection_count
from core.ras.schedule import JAVA_CLASSES, storm_order
from core.ras.strategies import STORM_LAST_EXECUTOR_NOTE, RoundRobinStrategy, TopologyRun

DEFAULT, GENERIC, CONSTRAINT = (
    "DefaultResourceAwareStrategy",
    "GenericResourceAwareStrategy",
    "ConstraintSolverStrategy",
)


def test_corpus_confs_name_their_strategy_and_none_is_round_robin():
    """All 135 confs carry topology.scheduler.strategy (without one, scheduleTopology's
    ``strategy.startsWith`` throws and the topology is marked failed); 48 still say
    backtype.storm (0.10 names), which both the test and the scheduler rewrite."""
    per: dict[str, Counter] = {}
    backtype = 0
    for name in CLUSTER_NAMES:
        docs = load_corpus()["clusters"][name]["topologies"]
        assert all("topology.scheduler.strategy" in d["conf"] for d in docs)
        backtype += sum(
            d["conf"]["topology.scheduler.strategy"].startswith("backtype") for d in docs
        )
        per[name] = Counter(topology_from_doc(d).strategy_class for d in docs)
    assert per == {
        "largeCluster01": Counter({DEFAULT: 34, GENERIC: 5, CONSTRAINT: 1}),
        "largeCluster02": Counter({DEFAULT: 40, GENERIC: 4, CONSTRAINT: 1}),
        "largeCluster03": Counter({DEFAULT: 49, GENERIC: 1}),
    }
    assert backtype == 48
    total = sum(per.values(), Counter())
    assert total == Counter({DEFAULT: 123, GENERIC: 10, CONSTRAINT: 2})
    assert {JAVA_CLASSES[c] for c in total} == {"ras-default", "ras-generic", "ras-constraint"}


def test_own_strategy_mode_runs_each_confs_class_on_large_cluster_03():
    """``"topology"`` = TestLargeCluster's every pass, its RoundRobin pass included."""
    cl = large_cluster("largeCluster03")
    tops = corpus_topologies("largeCluster03", "test")
    res = schedule_cluster(cl, tops, "topology")
    for t in tops:
        assert res.results[t.name].message.startswith(f"Fully Scheduled by {t.strategy_class} (")
    assert Counter(t.strategy_class for t in tops) == Counter({DEFAULT: 49, GENERIC: 1})


def test_forced_round_robin_on_large_cluster_03_schedules_7_of_50():
    """Forced, as Storm's test never runs it: the first 7 in Storm's order but one."""
    cl = large_cluster("largeCluster03")
    tops = corpus_topologies("largeCluster03")
    res = schedule_cluster(cl, tops, "ras-round-robin")
    assert res.scheduled == ["TopologyName00048"] + [f"TopologyName0000{i}" for i in range(1, 7)]
    # TopologyName00000 (second in the order) may use 5 machines: 5 x 1,100 % CPU for
    # the 34,800 % its 197 executors request
    assert "22 of 197 executors scheduled)" in res.results["TopologyName00000"].message
    assert "isolate.machines keeps at most 5 of them: 5 nodes" in res.reports["TopologyName00000"]
    # after TopologyName00006 every one of the 80 nodes runs another topology
    for name in res.order[8:]:
        assert "(0 states traversed in" in res.results[name].message
    assert "(getTruncatedNodeList): 0 of 80." in res.reports["TopologyName00007"]
    used = {cl.node_ids[n] for t in res.scheduled for n, _ in cl.assignments[t].values()}
    assert len(used) == 80


def test_first_failure_is_the_walk_reaching_the_last_of_its_5_nodes():
    """TopologyName00000 after TopologyName00048, step by step as Storm's loop runs.

    Its executors alternate Spout-1 (100 %), Bolt-0 (200), Bolt-3 (400), Bolt-7 (200),
    Bolt-5 (200), so the walk moves one node on with each. The 23rd executor is a
    Bolt-3 whose walk starts at the 5th node (100 % free): the iterator is not
    exhausted, so it is not restarted, and the loop breaks, though the 1st node has
    exactly 400 % free.
    """
    cl = large_cluster("largeCluster03")
    tops = {t.name: t for t in corpus_topologies("largeCluster03")}
    strategy = RoundRobinStrategy()
    assert strategy.schedule(cl, tops["TopologyName00048"]).success
    topo = tops["TopologyName00000"]
    run = TopologyRun(cl, topo)
    nodes = strategy.truncated_nodes(run)
    assert [cl.node_ids[n] for n in nodes] == [f"r001s00{i}" for i in range(5)]
    order = strategy.order_executors(run)
    comps = [topo.all_components[int(topo.exec_comp[e])].id for e in order[:5]]
    assert comps == ["Spout-1", "Bolt-0", "Bolt-3", "Bolt-7", "Bolt-5"]
    res = strategy.search(run, order, 10_000)  # search alone leaves the placement in place
    assert (res.success, res.placed) == (False, 22)
    assert topo.all_components[int(topo.exec_comp[order[22]])].id == "Bolt-3"
    free = (cl.total_cpu - cl.used_cpu)[nodes].tolist()
    assert free == [400.0, 200.0, 0.0, 100.0, 100.0]
    run.revert()
    assert topo.name not in cl.assignments


def _two_component(spouts: int, bolts: int, bolt_cpu: float) -> RasTopology:
    comps = [
        RasComponent("source", spouts, Request(100.0, 100.0, 0.0), "spout"),
        RasComponent("work", bolts, Request(bolt_cpu, 100.0, 0.0), "bolt", ("source",)),
    ]
    return RasTopology("t", comps, worker_max_heap_mb=1000.0)


def _placement(cluster: RasCluster) -> dict[int, str]:
    return {e: cluster.node_ids[n] for e, (n, _slot) in cluster.assignments["t"].items()}


def test_round_robin_spreads_where_default_packs():
    """3 equal nodes; spout "source" x2 (executors 0, 1), bolt "work" x2 (2, 3), 100 %
    and 100 MB each.

    Order (ExecSorterByConnectionCount, tie on 4 connections broken by id): source 0,
    work 3, source 1, work 2 (a component's executors in HashSet order of
    ExecutorDetails.hashCode = start + 13 x end: 42 before 28 in 16 buckets). Default
    sorts nodes for source 0 and, the components alternating, keeps that sort: each
    executor takes the first node's first worker. Round robin: source 0 on r000s000,
    work 3 on the next node, source 1 on the last; the walk is then exhausted, so
    work 2 restarts at r000s000 and joins source 0's worker.
    """
    topo = _two_component(2, 2, 100.0)
    assert by_connection_count(topo).tolist() == [0, 3, 1, 2]
    default = RasCluster(gen_supervisors(3, 4, 400.0, 4000.0))
    assert sorted_nodes(default, topo) == ["r000s000", "r000s001", "r000s002"]
    assert schedule_cluster(default, [topo], "ras-default").results["t"].success
    assert set(_placement(default).values()) == {"r000s000"}
    assert len(set(default.assignments["t"].values())) == 1
    rr = RasCluster(gen_supervisors(3, 4, 400.0, 4000.0))
    assert schedule_cluster(rr, [topo], "ras-round-robin").results["t"].success
    assert _placement(rr) == {0: "r000s000", 3: "r000s001", 1: "r000s002", 2: "r000s000"}
    assert rr.assignments["t"][2] == rr.assignments["t"][0]


def _uneven() -> RasCluster:
    """Node a 300 % CPU, b and c 100 % each; sorted a, b, c."""
    return RasCluster(
        [
            Supervisor("a", "host-a", "rack-0", (0, 1), 300.0, 4000.0),
            Supervisor("b", "host-b", "rack-0", (0, 1), 100.0, 4000.0),
            Supervisor("c", "host-c", "rack-0", (0, 1), 100.0, 4000.0),
        ]
    )


def test_round_robin_walk_does_not_wrap_around():
    """source x2 (100 %), work x1 (200 %); order source 0, work 2, source 1.

    Default: source 0 on a, work 2 on a (200 % left there), source 1 on b. Round robin:
    source 0 on a; work 2 continues at b and c (100 % each) and fails, though a still
    has 200 %: "1 of 3 executors scheduled", and nothing stays placed.
    """
    topo = _two_component(2, 1, 200.0)
    assert by_connection_count(topo).tolist() == [0, 2, 1]
    assert sorted_nodes(_uneven(), topo) == ["a", "b", "c"]
    default = _uneven()
    assert schedule_cluster(default, [topo], "ras-default").results["t"].success
    assert _placement(default) == {0: "a", 2: "a", 1: "b"}
    rr = _uneven()
    res = schedule_cluster(rr, [topo], "ras-round-robin").results["t"]
    assert not res.success
    assert "by RoundRobinResourceAwareStrategy (1 states traversed in " in res.message
    assert res.message.endswith(" ms, backtracked 0 times, 1 of 3 executors scheduled)")
    assert "t" not in rr.assignments and rr.used_cpu.sum() == 0.0


def test_failure_on_the_last_executor_is_not_taken_as_storm_reports_it():
    """source x1, work x1 (200 %): work 1, last in the order, fails as above. Storm's
    loop then returns areAllExecsScheduled() = (execIndex == size - 1) = true, "Fully
    Scheduled" with work 1 unplaced; the port reports a failure and says so."""
    topo = _two_component(1, 1, 200.0)
    default = _uneven()
    assert schedule_cluster(default, [topo], "ras-default").results["t"].success
    assert _placement(default) == {0: "a", 1: "a"}
    rr = _uneven()
    res = schedule_cluster(rr, [topo], "ras-round-robin").results["t"]
    assert not res.success and "t" not in rr.assignments
    assert res.message.endswith(f"1 of 2 executors scheduled{STORM_LAST_EXECUTOR_NOTE})")


def test_storm_order_on_large_cluster_03_starts_with_the_isolated_topology():
    """The order the forced run walks: TopologyName00048 first, TopologyName00000 next."""
    cl = large_cluster("largeCluster03")
    order = [t.name for t in storm_order(cl, corpus_topologies("largeCluster03"))]
    assert order[:3] == ["TopologyName00048", "TopologyName00000", "TopologyName00001"]


def test_default_on_a_one_executor_topology_that_fits_nowhere():
    """The base loop breaks at execIndex 0, and with one executor 0 == size - 1: Storm
    reports success there too. 400 % fits no node (300, 100, 100) though 500 % is free."""
    topo = RasTopology("t", [RasComponent("source", 1, Request(400.0, 100.0, 0.0), "spout")])
    cl = _uneven()
    res = schedule_cluster(cl, [topo], "ras-default").results["t"]
    assert not res.success and "t" not in cl.assignments
    assert res.message.endswith(f"0 of 1 executors scheduled{STORM_LAST_EXECUTOR_NOTE})")

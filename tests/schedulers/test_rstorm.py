"""R-Storm (Storm 1.0.x DefaultResourceAwareStrategy): order, distance, slots, failure."""

from collections import Counter

from core.model import validate_scenario
from core.registry import Status, run_scheduler
from core.schedulers.rstorm import component_ranking, task_order
from core.topology import build_graph

BIG_HEAP_MB = 1e9  # Storm's test sets topology.worker.max.heap.size.mb to Double.MAX_VALUE


def scenario(components, streams, nodes, **extra):
    return validate_scenario(
        {
            "topology": {"components": components, "streams": streams, **extra.pop("topo", {})},
            "cluster": {"nodes": nodes},
            **extra,
        }
    )


def storm_test_case():
    """Storm's testDefaultResourceAwareStrategy, translated.

    Storm: spout x1 -> bolt-1 x2 -> bolt-2 x2 -> bolt-3 x2 (shuffle), every
    component 50% CPU and 250 MB on-heap + 250 MB off-heap; 4 supervisors of 4
    slots, 150% CPU and 1500 MB each; worker heap Double.MAX_VALUE. A node
    here offers 100 x cores percent, so 150% is not expressible: CPU doubles
    on both sides (100% of 300%), memory stays (500 of 1500 MB).
    """
    comps = [{"id": "spout", "parallelism": 1, "cpu_pct": 100.0, "memory_mb": 500.0}]
    comps += [
        {"id": f"bolt-{i}", "parallelism": 2, "cpu_pct": 100.0, "memory_mb": 500.0}
        for i in (1, 2, 3)
    ]
    streams = [
        {"from": "spout", "to": "bolt-1"},
        {"from": "bolt-1", "to": "bolt-2"},
        {"from": "bolt-2", "to": "bolt-3"},
    ]
    nodes = [
        {"id": f"n{i}", "cores": 3, "ghz": 2.0, "ram_gb": 1500 / 1024, "slots": 4}
        for i in (1, 2, 3, 4)
    ]
    return scenario(comps, streams, nodes, network={"worker_heap_mb": BIG_HEAP_MB})


def test_reproduces_storms_default_resource_aware_strategy_test():
    out = run_scheduler(storm_test_case(), "rstorm")
    assert out.status is Status.OK
    by_node: dict[str, list[str]] = {}
    for a in out.assignments:
        by_node.setdefault(a.node, []).append(a.component)
    groups = sorted(sorted(c) for c in by_node.values())
    # Storm asserts: one node {spout, bolt-1, bolt-2}, one {bolt-3, bolt-1, bolt-2},
    # one {bolt-3}, and exactly three nodes used.
    assert groups == [
        ["bolt-1", "bolt-2", "bolt-3"],
        ["bolt-1", "bolt-2", "spout"],
        ["bolt-3"],
    ]
    assert len(by_node) == 3


def test_storm_case_ties_go_to_the_later_node():
    # By hand (free CPU/memory start at 300/1500 everywhere):
    # spout#0: all nodes tie at sqrt((-200/301)^2 + (-1000/1501)^2) = 0.94 -> n4 (later wins)
    # bolt-1#0: n4 (200/1000): sqrt((-100/201)^2 + (-500/1001)^2) = 0.70; others 1.07 -> n4
    # bolt-2#0: n4 (100/500): exact fit, distance 0 -> n4, now 0/0
    # bolt-3#0: n1..n3 tie at sqrt(0.94^2 + 0.5^2) = 1.07 -> n3; bolt-1#1, bolt-2#1 -> n3
    # bolt-3#1: n1, n2 tie -> n2
    out = run_scheduler(storm_test_case(), "rstorm")
    assert out.placement() == {
        "spout#0": ("n4", 0),
        "bolt-1#0": ("n4", 0),
        "bolt-2#0": ("n4", 0),
        "bolt-3#0": ("n3", 0),
        "bolt-1#1": ("n3", 0),
        "bolt-2#1": ("n3", 0),
        "bolt-3#1": ("n2", 0),
    }
    lines = {d.split(" ", 1)[0]: d for d in out.decisions}
    assert "distance 0.94" in lines["spout#0"]
    assert "tied with 3 earlier node(s)" in lines["spout#0"]
    assert "distance 0.70; same node as spout#0" in lines["bolt-1#0"]
    assert "distance 0.00; same node as bolt-1#0" in lines["bolt-2#0"]
    assert "distance 1.07; same rack as bolt-2#0 on n4" in lines["bolt-3#0"]


def test_bfs_visits_parents_too_and_executors_go_round_robin():
    # s1 -> j <- s2, j -> k. BFS from s1: s1; j; then j's children (k) and parents (s2).
    comps = [
        {"id": "s1", "parallelism": 2},
        {"id": "s2", "parallelism": 1},
        {"id": "j", "parallelism": 2},
        {"id": "k", "parallelism": 1},
    ]
    streams = [{"from": "s1", "to": "j"}, {"from": "s2", "to": "j"}, {"from": "j", "to": "k"}]
    sc = scenario(comps, streams, [{"id": "n1", "cores": 4, "ghz": 2.0, "slots": 2}])
    graph = build_graph(sc)
    assert component_ranking(graph) == ["s1", "j", "k", "s2"]
    assert task_order(graph) == ["s1#0", "j#0", "k#0", "s2#0", "s1#1", "j#1"]


def test_executors_fill_the_first_worker_with_heap_room_and_ignore_w():
    # 300 MB each, worker heap 768 MB: spout#0 (300) + bolt#0 (600) fit slot 0,
    # bolt#1 would make 900 > 768, so slot 1. W = 1 is ignored.
    comps = [
        {"id": "spout", "parallelism": 1, "memory_mb": 300.0},
        {"id": "bolt", "parallelism": 2, "memory_mb": 300.0},
    ]
    sc = scenario(
        comps,
        [{"from": "spout", "to": "bolt"}],
        [{"id": "n1", "cores": 4, "ghz": 2.0, "slots": 4}],
        topo={"workers": 1},
    )
    out = run_scheduler(sc, "rstorm")
    assert out.placement() == {"spout#0": ("n1", 0), "bolt#0": ("n1", 0), "bolt#1": ("n1", 1)}
    assert out.decisions[0] == (
        "R-Storm ignores W = 1: 3 executors packed into 2 workers on 1 nodes"
    )


def test_prefers_the_tightest_fit_over_the_emptiest_node():
    # n1: 400% CPU, 16384 MB; n2: 100% CPU, 768 MB. spout needs 10% / 128 MB:
    #   n1: sqrt((-390/401)^2 + (-16256/16385)^2) = sqrt(0.946 + 0.984) = 1.39
    #   n2: sqrt((-90/101)^2 + (-640/769)^2) = sqrt(0.794 + 0.693) = 1.22  -> n2
    # bolt#0 needs 90% / 640 MB = exactly n2's rest: distance 0 -> n2, and
    # 128 + 640 = 768 MB still fits worker slot 0's heap.
    # bolt#1: only n1 fits: sqrt((-310/401)^2 + (-15744/16385)^2 + 0.5^2) = 1.33
    comps = [
        {"id": "spout", "parallelism": 1, "cpu_pct": 10.0, "memory_mb": 128.0},
        {"id": "bolt", "parallelism": 2, "cpu_pct": 90.0, "memory_mb": 640.0},
    ]
    nodes = [
        {"id": "n1", "cores": 4, "ghz": 2.0, "ram_gb": 16, "slots": 2},
        {"id": "n2", "cores": 1, "ghz": 2.0, "ram_gb": 0.75, "slots": 2},
    ]
    sc = scenario(comps, [{"from": "spout", "to": "bolt"}], nodes)
    out = run_scheduler(sc, "rstorm")
    assert out.placement() == {"spout#0": ("n2", 0), "bolt#0": ("n2", 0), "bolt#1": ("n1", 0)}
    lines = {d.split(" ", 1)[0]: d for d in out.decisions}
    assert "distance 1.22" in lines["spout#0"]
    assert "distance 0.00; same node as spout#0" in lines["bolt#0"]
    assert "distance 1.33; same rack as bolt#0 on n2" in lines["bolt#1"]


def test_first_executor_goes_to_the_rack_with_most_free_cpu_and_memory():
    # rack r1 (listed first): 100% + 1024 MB; rack r2: 2 x (800% + 32768 MB).
    # The first executor is placed within r2 (later node of the tie: b2); the
    # next one stays on b2 (distance term 0 there).
    nodes = [
        {"id": "a1", "cores": 1, "ghz": 2.0, "ram_gb": 1, "slots": 1, "rack": "r1"},
        {"id": "b1", "cores": 8, "ghz": 2.0, "ram_gb": 32, "slots": 1, "rack": "r2"},
        {"id": "b2", "cores": 8, "ghz": 2.0, "ram_gb": 32, "slots": 1, "rack": "r2"},
    ]
    sc = scenario(
        [{"id": "spout", "parallelism": 1}, {"id": "bolt", "parallelism": 1}],
        [{"from": "spout", "to": "bolt"}],
        nodes,
    )
    out = run_scheduler(sc, "rstorm")
    assert out.placement() == {"spout#0": ("b2", 0), "bolt#0": ("b2", 0)}
    assert "placed in rack 'r2'" in out.decisions[1]


def test_ackers_are_placed_after_all_components():
    sc = scenario(
        [{"id": "spout", "parallelism": 2}, {"id": "bolt", "parallelism": 1}],
        [{"from": "spout", "to": "bolt"}],
        [{"id": "n1", "cores": 4, "ghz": 2.0, "slots": 2}],
        topo={"ackers": 1},
    )
    out = run_scheduler(sc, "rstorm")
    assert [d.split(" ", 1)[0] for d in out.decisions[1:]] == [
        "spout#0",
        "bolt#0",
        "spout#1",
        "__acker#0",
    ]
    assert "a Storm acker, placed after the components" in out.decisions[-1]
    assert out.placement()["__acker#0"] == ("n1", 0)


def test_not_enough_resources_lists_required_and_available():
    # One node of 100% CPU; two executors of 60% each: the second fits nowhere.
    sc = scenario(
        [{"id": "spout", "parallelism": 2, "cpu_pct": 60.0}],
        [],
        [{"id": "n1", "cores": 1, "ghz": 2.0, "ram_gb": 16, "slots": 4}],
    )
    out = run_scheduler(sc, "rstorm")
    assert out.status is Status.NOT_ENOUGH_RESOURCES
    assert out.assignments == ()
    assert out.message == (
        "Not enough resources to schedule - 1/2 executors scheduled, spout#1 fit nowhere. "
        "Memory required: 128.0 MB (available: 16256.0 MB). "
        "CPU required: 60.0% CPU (available: 40.0% CPU)."
    )
    assert out.decisions[-1] == (
        "spout#1: fits nowhere: needs 60% CPU and 128 MB, the most any node with a slot "
        "has left is 40% CPU and 16256 MB"
    )
    assert out.decisions[1].startswith("spout#0 would go to n1 slot 0")
    assert out.details["unplaced"] == ["spout#1"]


def test_executor_larger_than_a_worker_heap_is_reported():
    sc = scenario(
        [{"id": "spout", "parallelism": 1, "memory_mb": 1000.0}],
        [],
        [{"id": "n1", "cores": 4, "ghz": 2.0, "ram_gb": 16, "slots": 1}],
    )
    out = run_scheduler(sc, "rstorm")
    assert out.status is Status.NOT_ENOUGH_RESOURCES
    assert out.decisions[-1].endswith("a worker heap holds only 768 MB")


def test_placement_is_deterministic_and_within_the_cluster():
    sc = storm_test_case()
    first, second = run_scheduler(sc, "rstorm"), run_scheduler(sc, "rstorm")
    assert first.placement() == second.placement()
    assert first.decisions == second.decisions
    slots = {n.id: n.slots for n in sc.cluster.nodes}
    assert all(0 <= a.slot < slots[a.node] for a in first.assignments)
    assert Counter(a.component for a in first.assignments) == {
        "spout": 1,
        "bolt-1": 2,
        "bolt-2": 2,
        "bolt-3": 2,
    }


def test_a_node_with_full_workers_passes_the_turn_to_the_next_distance():
    # Two identical nodes, one slot each; 128 MB executors, 768 MB heap: six fit a worker.
    # All seven executors are nearest to n2 (the later of the tie, then the reference node);
    # the seventh finds n2's only worker full and goes to the next distance: n1.
    sc = scenario(
        [{"id": "spout", "parallelism": 7}],
        [],
        [{"id": f"n{i}", "cores": 4, "ghz": 2.0, "slots": 1} for i in (1, 2)],
    )
    out = run_scheduler(sc, "rstorm")
    placement = out.placement()
    assert [placement[f"spout#{i}"] for i in range(6)] == [("n2", 0)] * 6
    assert placement["spout#6"] == ("n1", 0)


def test_an_equal_distance_node_is_shadowed_as_in_storms_treemap():
    # n1 and n2 have equal distance; n2 (later) overwrote n1 under that key, and n2's
    # worker is full, so Storm moves on to the next key (n4), never back to n1.
    from core.schedulers.rstorm import _Cluster

    nodes = [
        {"id": "n1", "cores": 2, "ghz": 2.0, "ram_gb": 4, "slots": 1},
        {"id": "n2", "cores": 2, "ghz": 2.0, "ram_gb": 4, "slots": 1},
        {"id": "n3", "cores": 1, "ghz": 2.0, "ram_gb": 1, "slots": 1},
        {"id": "n4", "cores": 8, "ghz": 2.0, "ram_gb": 64, "slots": 1},
    ]
    cl = _Cluster(scenario([{"id": "s", "parallelism": 1}], [], nodes))
    cl.cpu[2] = 0.0  # the reference node n3 has no CPU left
    cl.heap_used[1] = [768.0]  # n2's only worker is full
    cl.room[1] = 0.0
    node, slot, distance, ties = cl.pick(10.0, 128.0, ref=2)
    assert (cl.nodes[node].id, slot, ties) == ("n4", 0, 0)
    # d(n4) = sqrt((-790/801)^2 + (-65408/65537)^2 + 0.5^2) = 1.49
    assert round(distance, 2) == 1.49


def per_worker(assignments) -> list[int]:
    """Executors per worker (node, slot), most first."""
    return sorted(Counter((a.node, a.slot) for a in assignments).values(), reverse=True)


def test_worker_heap_is_the_topologys_own():
    """Storm 1.0.x reads topology.worker.max.heap.size.mb from the topology's conf
    (TopologyDetails.topologyWorkerMaxHeapSize): eight 128 MB executors in a line fill
    one 1,024 MB worker, or four 256 MB ones (two each), not six then two (768 MB)."""
    comps = [
        {"id": f"c{i}", "parallelism": 1, "cpu_pct": 10.0, "memory_mb": 128.0} for i in range(1, 9)
    ]
    streams = [{"from": f"c{i}", "to": f"c{i + 1}"} for i in range(1, 8)]
    nodes = [{"id": f"n{i}", "cores": 4, "ghz": 2.0, "ram_gb": 8, "slots": 1} for i in range(8)]
    base = scenario(comps, streams, nodes)
    assert per_worker(run_scheduler(base, "rstorm").assignments) == [6, 2]
    for heap, expected in ((1024.0, [8]), (256.0, [2, 2, 2, 2])):
        own = scenario(comps, streams, nodes, topo={"worker_max_heap_mb": heap})
        assert per_worker(run_scheduler(own, "rstorm").assignments) == expected


def test_each_topology_of_a_set_packs_to_its_own_heap():
    from core.topology_set import schedule_set

    line = [{"id": f"c{i}", "parallelism": 2, "cpu_pct": 10.0, "memory_mb": 128.0} for i in (1, 2)]
    streams = [{"from": "c1", "to": "c2"}]
    sc = validate_scenario(
        {
            "topologies": [
                {
                    "name": "small",
                    "components": line,
                    "streams": streams,
                    "worker_max_heap_mb": 256.0,
                },
                {
                    "name": "big",
                    "components": line,
                    "streams": streams,
                    "worker_max_heap_mb": 512.0,
                },
            ],
            "cluster": {
                "nodes": [
                    {"id": f"n{i}", "cores": 4, "ghz": 2.0, "ram_gb": 8, "slots": 4} for i in (1, 2)
                ]
            },
        }
    )
    out = schedule_set(sc, "rstorm")
    assert out.scheduled == ["big", "small"]
    assert per_worker(out.outcomes["small"].assignments) == [2, 2]
    assert per_worker(out.outcomes["big"].assignments) == [4]


def test_first_rack_without_a_free_slot_places_nothing_and_says_why():
    """Storm 1.0.x's getBestClustering sums free CPU + memory over a rack's nodes,
    slots or not: rack 'a' (64 GB, no slot) beats rack 'b' (2 GB, one slot), the first
    executor finds no node there, and with no reference node nothing is placed."""
    comps = [{"id": "s", "parallelism": 1, "cpu_pct": 10.0, "memory_mb": 128.0}]
    nodes = [
        {"id": "a1", "rack": "a", "cores": 4, "ghz": 2.0, "ram_gb": 64, "slots": 0},
        {"id": "b1", "rack": "b", "cores": 4, "ghz": 2.0, "ram_gb": 2, "slots": 1},
    ]
    out = run_scheduler(scenario(comps, [], nodes), "rstorm")
    assert out.status is Status.NOT_ENOUGH_RESOURCES
    assert "rack 'a'" in out.message and "getBestClustering" in out.message

"""TOP-Storm (Muhammad, Aleem, Islam 2020): Algorithm 2 grouping, Algorithm 3 power order."""

import math

import pytest

from core.hardware import computation_power
from core.model import validate_scenario
from core.registry import run_scheduler
from core.schedulers.top_storm import group_executors
from core.topology import build_graph

# TOP-Storm's own five supervisors (docs/schedulers.md), DP FLOPs per cycle of each CPU.
# Power = 0.8 x cores x GHz x FLOPs/cycle + 0.2 x RAM GB:
#   e-i7x8  8 x 3.4  x 16 = 435.2  -> 348.16 + 1.54 = 349.70
#   d-i7x4  4 x 3.4  x 16 = 217.6  -> 174.08 + 1.54 = 175.62
#   b-i5    4 x 3.2  x 16 = 204.8  -> 163.84 + 0.74 = 164.58
#   c-i7x2  2 x 3.4  x 16 = 108.8  ->  87.04 + 1.54 =  88.58
#   a-m460  4 x 2.53 x  4 =  40.48 ->  32.38 + 0.74 =  33.12
# Ids are chosen so that id order is not power order.
TOP_STORM_CLUSTER = [
    ("a-m460", 4, 2.53, 4, 3.7),
    ("b-i5", 4, 3.2, 16, 3.7),
    ("c-i7x2", 2, 3.4, 16, 7.7),
    ("d-i7x4", 4, 3.4, 16, 7.7),
    ("e-i7x8", 8, 3.4, 16, 7.7),
]
BY_POWER = ["e-i7x8", "d-i7x4", "b-i5", "c-i7x2", "a-m460"]


def wordcount_on_top_storm_cluster(slots: int, workers: int):
    """storm-starter WordCount with 3 ackers (28 executors) on TOP-Storm's cluster."""
    return validate_scenario(
        {
            "topology": {
                "workers": workers,
                "ackers": 3,
                "components": [
                    {"id": "spout", "parallelism": 5},
                    {"id": "split", "parallelism": 8},
                    {"id": "count", "parallelism": 12},
                ],
                "streams": [
                    {"from": "spout", "to": "split"},
                    {"from": "split", "to": "count", "grouping": "fields"},
                ],
            },
            "cluster": {
                "nodes": [
                    {
                        "id": i,
                        "cores": c,
                        "ghz": g,
                        "flops_per_cycle": f,
                        "ram_gb": r,
                        "slots": slots,
                    }
                    for i, c, g, f, r in TOP_STORM_CLUSTER
                ]
            },
        }
    )


def test_cluster_powers_match_the_hand_computation():
    sc = wordcount_on_top_storm_cluster(3, 3)
    powers = {n.id: round(computation_power(n, 0.8), 2) for n in sc.cluster.nodes}
    assert powers == {
        "e-i7x8": 349.70,
        "d-i7x4": 175.62,
        "b-i5": 164.58,
        "c-i7x2": 88.58,
        "a-m460": 33.12,
    }


@pytest.mark.parametrize(("slots", "workers"), [(3, 3), (3, 4), (3, 5), (4, 4), (4, 5), (5, 5)])
def test_top_storm_fills_the_most_powerful_nodes_first(slots, workers):
    # The paper's six configurations: W slots used, on ceil(W / slots) nodes, the
    # highest-power ones.
    result = run_scheduler(wordcount_on_top_storm_cluster(slots, workers), "top-storm")
    used_slots = set(result.placement().values())
    used_nodes = {node for node, _ in used_slots}
    assert len(used_slots) == workers
    assert used_nodes == set(BY_POWER[: math.ceil(workers / slots)])


def test_top_storm_uses_fewer_nodes_than_even():
    sc = wordcount_on_top_storm_cluster(3, 5)
    top = {n for n, _ in run_scheduler(sc, "top-storm").placement().values()}
    even = {n for n, _ in run_scheduler(sc, "even").placement().values()}
    assert (len(top), len(even)) == (2, 5)


def test_grouping_hand_computed_ties_go_to_topological_order(build):
    # a(2) -> b(2) -> c(2), W = 2: E = 6, eps = 3.
    # Edge a#0 -> b#0 opens slot 1; candidates a#1 (edge to b#0), c#0 (edge from b#0)
    # tie at 1 edge -> a#1 (a is earlier). Slot 1 = a#0, b#0, a#1 (full).
    # a#1, b#0 taken; edge b#1 -> c#0 opens slot 2; c#1 (edge from b#1) joins.
    sc = build([("a", 2), ("b", 2), ("c", 2)], [("a", "b"), ("b", "c")])
    assert group_executors(build_graph(sc), 2) == [
        ["a#0", "b#0", "a#1"],
        ["b#1", "c#0", "c#1"],
    ]


def test_grouping_prefers_the_most_connected_executor_then_round_robin(build):
    # s -> m, s -> p, s -> t, m -> t; t(2), others 1; W = 2: E = 5, eps = 3.
    # Edge s#0 -> m#0 opens slot 1; p#0 has 1 edge (from s#0), t#0 has 2 (s#0, m#0):
    # t#0 joins despite p coming first. No other edge has two free ends.
    # Leftovers in topological order: p#0 -> slot 1 % 2 = 1, t#1 -> slot 2 % 2 = 0.
    sc = build(
        [("s", 1), ("m", 1), ("p", 1), ("t", 2)],
        [("s", "m"), ("s", "p"), ("s", "t"), ("m", "t")],
    )
    assert group_executors(build_graph(sc), 2) == [["s#0", "m#0", "t#0", "t#1"], ["p#0"]]


def test_grouping_follows_observed_traffic_when_given(build):
    # As above, but an observed 100 tuples/s between s#0 and p#0 outweighs t#0's two
    # edges: slot 1 = s#0, m#0, p#0; leftovers t#0 -> slot 1, t#1 -> slot 0.
    sc = build(
        [("s", 1), ("m", 1), ("p", 1), ("t", 2)],
        [("s", "m"), ("s", "p"), ("s", "t"), ("m", "t")],
        workers=2,
        observations={"traffic": [{"from": "s#0", "to": "p#0", "rate": 100.0}]},
    )
    result = run_scheduler(sc, "top-storm")
    slot_of = result.placement()
    assert {e for e, s in slot_of.items() if s == ("n1", 0)} == {"s#0", "m#0", "p#0", "t#1"}
    assert {e for e, s in slot_of.items() if s == ("n1", 1)} == {"t#0"}


def test_fullest_group_takes_the_most_powerful_node(build):
    # Groups of the previous case: 4 executors and 1. "big" (8 cores) outranks "small"
    # (2 cores) though its id sorts later; the 4-executor group lands on big.
    data = build(
        [("s", 1), ("m", 1), ("p", 1), ("t", 2)],
        [("s", "m"), ("s", "p"), ("s", "t"), ("m", "t")],
        workers=2,
    ).to_json_dict()
    data["cluster"]["nodes"] = [
        {"id": "a-small", "cores": 2, "ghz": 3.0, "slots": 1},
        {"id": "b-big", "cores": 8, "ghz": 3.0, "slots": 1},
    ]
    result = run_scheduler(validate_scenario(data), "top-storm")
    placement = result.placement()
    assert {placement[e] for e in ("s#0", "m#0", "t#0", "t#1")} == {("b-big", 0)}
    assert placement["p#0"] == ("a-small", 0)
    assert "rank 1 of 2" in result.decisions[0]


def test_alpha_zero_ranks_nodes_by_memory(build):
    data = build([("a", 2), ("b", 2)], [("a", "b")], workers=1).to_json_dict()
    data["cluster"]["nodes"] = [
        {"id": "fast", "cores": 16, "ghz": 3.0, "ram_gb": 8, "slots": 1},
        {"id": "roomy", "cores": 2, "ghz": 3.0, "ram_gb": 64, "slots": 1},
    ]
    sc = validate_scenario(data)
    assert {n for n, _ in run_scheduler(sc, "top-storm").placement().values()} == {"fast"}
    by_ram = run_scheduler(sc, "top-storm", {"alpha": 0.0}).placement()
    assert {n for n, _ in by_ram.values()} == {"roomy"}


def test_more_workers_than_free_slots_groups_into_the_free_slots(build):
    sc = build([("a", 4), ("b", 4)], [("a", "b")], nodes=[("n1", 2)], workers=6)
    result = run_scheduler(sc, "top-storm")
    assert "only 2 slots are free" in result.decisions[0]
    assert set(result.placement().values()) == {("n1", 0), ("n1", 1)}
    assert result.details == {"eps": 4, "omega": 2}


def test_grouping_ranks_candidates_by_the_seed_pair_only(build):
    # Alg. 2 line 16: getFrequentlyCommunicatingExecutor(e_s, e_d). Two chains
    # s -> m -> x -> y and a -> b -> c -> d, W = 2: E = 8, eps = 4.
    # Pair s#0, m#0: x#0 (edge from m#0) joins; y#0 talks to x#0 only, not to the
    # pair, so slot 1 stops at 3. Pair a#0, b#0: c#0 joins, d#0 does not.
    # Leftovers in topological order: y#0 -> slot 1 % 2 = 1, d#0 -> slot 0.
    sc = build(
        [("s", 1), ("m", 1), ("x", 1), ("y", 1), ("a", 1), ("b", 1), ("c", 1), ("d", 1)],
        [("s", "m"), ("m", "x"), ("x", "y"), ("a", "b"), ("b", "c"), ("c", "d")],
    )
    assert group_executors(build_graph(sc), 2) == [
        ["s#0", "m#0", "x#0", "d#0"],
        ["a#0", "b#0", "c#0", "y#0"],
    ]


def test_ackers_have_no_dag_edges_and_go_round_robin(build):
    # Storm hands the scheduler the user topology (Nimbus.readTopologyDetails);
    # the __acker streams exist only in the system topology. a(2) -> b(2) with
    # 1 acker, W = 2: E = 5, eps = 3. Pair a#0, b#0: a#1 and b#1 tie at 1 edge,
    # a#1 first; __acker#0 would have 2 edges if its streams counted.
    # No free pair is left; leftovers b#1 -> slot 1, __acker#0 -> slot 0.
    data = build([("a", 2), ("b", 2)], [("a", "b")], workers=2).to_json_dict()
    data["topology"]["ackers"] = 1
    sc = validate_scenario(data)
    assert group_executors(build_graph(sc), 2) == [
        ["a#0", "b#0", "a#1", "__acker#0"],
        ["b#1"],
    ]

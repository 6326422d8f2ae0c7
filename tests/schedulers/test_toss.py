"""TOSS (Zhou et al. 2020): chain partition into W groups, least-loaded node allocation."""

import re

import pytest

from core.comparison import at_rate
from core.model import validate_scenario
from core.presets import preset
from core.registry import SchedulerError, Status, run_scheduler
from core.schedulers.toss import expected_rates, group_sizes
from core.topology import build_graph

# strong: 8 cores x 3 GHz x 16 (= the reference core), power 0.8 x 384 + 0.2 x 16 = 310.4
# weak:   2 cores x 3 GHz x 16,                       power 0.8 x  96 + 0.2 x 16 =  80.0
NODES = [
    {"id": "strong", "cores": 8, "ghz": 3.0, "slots": 2},
    {"id": "weak", "cores": 2, "ghz": 3.0, "slots": 2},
]


def chain_on_two_nodes(build, **extra):
    """a(2) -> b(2) -> c(2), W = 3, on the strong and weak nodes."""
    data = build([("a", 2), ("b", 2), ("c", 2)], [("a", "b"), ("b", "c")], workers=3).to_json_dict()
    data["cluster"]["nodes"] = NODES
    data.update(extra)
    return validate_scenario(data)


def test_toss_partitions_along_the_chain_and_fills_the_least_loaded_node(build):
    # E = 6, W = 3 equal parts: E_i = 2, 2, 2. Every group starts at the head of a chain
    # found anew (Alg. 1 lines 8-9): group 1 = a#0, b#0 on a -> b -> c; group 2 = a#1, b#1
    # on a -> b -> c again; group 3: a and b exhausted, chain c: c#0, c#1.
    # Every executor expects 500 tuples/s (1000/s split over 2) x 10 us = 5,000 us/s,
    # so a group adds 10,000 us/s: 10,000 / 8e6 = 0.00125 on strong, / 2e6 = 0.005 on weak.
    # All loads 0: group 1 -> strong (more power), load 0.00125; group 2 -> weak (load 0),
    # load 0.005; group 3 -> strong again (0.00125 < 0.005), its second slot.
    result = run_scheduler(chain_on_two_nodes(build), "toss")
    placement = result.placement()
    assert placement == {
        "a#0": ("strong", 0),
        "b#0": ("strong", 0),
        "a#1": ("weak", 0),
        "b#1": ("weak", 0),
        "c#0": ("strong", 1),
        "c#1": ("strong", 1),
    }
    assert result.decisions[2].startswith("group 2 of 3 (2 executors: a#1, b#1) -> weak slot 0")
    assert "the chain a -> b -> c share one worker" in result.decisions[2]
    assert result.decisions[3].startswith("group 3 of 3 (2 executors: c#0, c#1) -> strong slot 1")
    assert "the chain c share one worker" in result.decisions[3]
    assert "workload 0.001, power 310.40), predicted +0.001" in result.decisions[3]


def test_toss_cursor_restarts_at_the_chain_head_for_every_group(build):
    # a(3) -> b(3) -> c(3), alphas 2/9, 7/9 of E = 9: groups of 2 and 7.
    # Group 1: a#0, b#0 (cursor left at c). Group 2 finds the chain a -> b -> c again and
    # starts at its head: a#1, b#1, c#0, a#2, b#2, c#1, c#2. A cursor carried over from
    # group 1 would have started at c: c#0, a#1, b#1, c#1, a#2, b#2, c#2.
    sc = build([("a", 3), ("b", 3), ("c", 3)], [("a", "b"), ("b", "c")], [("n1", 2)], 2)
    result = run_scheduler(sc, "toss", {"alphas": [2 / 9, 7 / 9]})
    assert result.decisions[1].startswith("group 1 of 2 (2 executors: a#0, b#0)")
    assert result.decisions[2].startswith(
        "group 2 of 2 (7 executors: a#1, b#1, c#0, a#2, b#2, c#1, c#2)"
    )


def test_toss_without_observations_says_other_topologies_load_is_zero(build):
    result = run_scheduler(chain_on_two_nodes(build), "toss")
    assert result.decisions[0].startswith("no runtime observations of node CPU: the only topology")
    assert "does not depend on the offered rate" in result.decisions[0]


@pytest.mark.parametrize("preset_id", ["wordcount", "lf-diamond", "top-storm-wordcount-s3-w5"])
def test_toss_placement_does_not_depend_on_the_offered_rate(preset_id):
    # Without background load every node's key is a sum of group loads, all proportional
    # to the offered rate: 1 tuple/s and 10^6 tuples/s give one placement.
    sc = preset(preset_id)
    slow = run_scheduler(at_rate(sc, 1.0), "toss").placement()
    fast = run_scheduler(at_rate(sc, 1e6), "toss").placement()
    assert slow == fast
    assert len(set(slow.values())) == min(sc.workers, sum(n.slots for n in sc.cluster.nodes))


def test_toss_starts_from_observed_background_utilisation(build):
    # weak is at 0.1, strong at 0.9: group 1 (a#0, b#0) -> weak (0.1 -> 0.105), group 2
    # (a#1, b#1) -> weak again (0.105 < 0.9, its last slot), group 3 (c#0, c#1) -> strong.
    sc = chain_on_two_nodes(build, observations={"node_cpu_util": {"strong": 0.9, "weak": 0.1}})
    result = run_scheduler(sc, "toss")
    placement = result.placement()
    assert [placement[e] for e in ("a#0", "b#1", "c#0")] == [
        ("weak", 0),
        ("weak", 1),
        ("strong", 0),
    ]
    assert result.decisions[0].startswith("node workload = the observed background utilisation")
    assert "workload 0.105, power 80.00), predicted +0.005" in result.decisions[2]


def test_group_sizes_round_half_up_and_the_last_takes_the_rest():
    assert group_sizes(10, [0.25, 0.25, 0.5]) == [3, 3, 4]  # 2.5 -> 3, 2.5 -> 3, rest 4
    assert group_sizes(5, [0.5, 0.5]) == [3, 2]
    assert group_sizes(2, [1 / 3] * 3) == [1, 1, 0]


def test_toss_alphas_set_the_group_sizes(build):
    sc = build([("a", 5)], nodes=[("n1", 2)], workers=2)
    placement = run_scheduler(sc, "toss", {"alphas": "0.6,0.4"}).placement()
    assert [placement[f"a#{i}"] for i in range(5)] == [("n1", 0)] * 3 + [("n1", 1)] * 2


def test_toss_empty_group_takes_no_worker(build):
    sc = build([("a", 2)], nodes=[("n1", 3)], workers=3)
    result = run_scheduler(sc, "toss")
    assert "group 3 of 3 is empty: no worker needed" in result.decisions
    assert set(result.placement().values()) == {("n1", 0), ("n1", 1)}


def test_toss_finds_the_next_chain_when_one_is_exhausted(build):
    # s1 -> x, s1 -> w, s2 -> y; alphas 0.4/0.6 of E = 5: groups of 2 and 3.
    # Chain 1 from spout s1 (s1 < s2), children in id order: s1 -> w. Exhausted after
    # group 1 = s1#0, w#0. Roots left in id order: s2, x -> chain s2 -> y, then x.
    sc = build(
        [("s2", 1), ("y", 1), ("s1", 1), ("x", 1), ("w", 1)],
        [("s1", "x"), ("s1", "w"), ("s2", "y")],
        nodes=[("n1", 2)],
        workers=2,
    )
    result = run_scheduler(sc, "toss", {"alphas": [0.4, 0.6]})
    assert result.decisions[1].startswith("group 1 of 2 (2 executors: s1#0, w#0) -> n1 slot 0")
    assert result.decisions[2].startswith("group 2 of 2 (3 executors: s2#0, y#0, x#0) -> n1 slot 1")
    assert "the chain s2 -> y; x share one worker" in result.decisions[2]


def test_toss_visits_the_acker_after_the_topologys_own_children(build):
    sc = build([("spout", 1), ("bolt", 1)], [("spout", "bolt")], workers=1)
    data = sc.to_json_dict()
    data["topology"]["ackers"] = 1
    result = run_scheduler(validate_scenario(data), "toss")
    assert "(3 executors: spout#0, bolt#0, __acker#0)" in result.decisions[1]


def test_expected_rates_follow_groupings_and_selectivity(build):
    # s emits 2 tuples per tuple at 1000/s -> 2000/s on each stream:
    # shuffle to a(2): 1000 each; global to g(3): all to g#0; all to al(2): 2000 each.
    data = build(
        [("s", 1), ("a", 2), ("g", 3), ("al", 2)],
        [("s", "a"), ("s", "g", "global"), ("s", "al", "all")],
    ).to_json_dict()
    data["topology"]["components"][0]["selectivity"] = 2.0
    rates = expected_rates(build_graph(validate_scenario(data)), 1000.0)
    assert rates == {
        "s": [1000.0],
        "a": [1000.0, 1000.0],
        "g": [2000.0, 0.0, 0.0],
        "al": [2000.0, 2000.0],
    }


@pytest.mark.parametrize(
    ("alphas", "message"),
    [
        ([0.5, 0.4], "parameter alphas: the fractions sum to 0.9, not 1"),
        ([0.0, 1.0], "parameter alphas: 0.0 is outside (0, 1]"),
        ([1.5, -0.5], "parameter alphas: 1.5 is outside [0, 1]"),
    ],
)
def test_toss_rejects_bad_alphas_naming_the_parameter(build, alphas, message):
    sc = build([("a", 2)], workers=2)
    with pytest.raises(SchedulerError, match=re.escape(message)):
        run_scheduler(sc, "toss", {"alphas": alphas})


def test_toss_more_alphas_than_free_slots_is_not_enough_resources(build):
    sc = build([("a", 4)], nodes=[("n1", 2)])
    result = run_scheduler(sc, "toss", {"alphas": [0.25] * 4})
    assert result.status is Status.NOT_ENOUGH_RESOURCES
    assert result.message == "alphas asks for 4 workers; the cluster has 2 free slots"

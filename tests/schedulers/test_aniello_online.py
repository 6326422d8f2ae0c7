"""Aniello et al.'s online (traffic-based) scheduler: cold start, hot pairs, reschedule rule."""

import pytest

from core.model import ScenarioError, validate_scenario
from core.registry import SchedulerError, run_scheduler

GHZ = 2.0  # 2 cores x 2 GHz per node -> capacity 4e9 Hz at capacity_factor 1

# spout#0 -> bolt#1 is the hottest pair, but aniello-offline (round robin by
# topology) puts spout#0 with bolt#0 and spout#1 with bolt#1.
FLOWS = [
    {"from": "spout#0", "to": "bolt#1", "rate": 100},
    {"from": "spout#1", "to": "bolt#0", "rate": 90},
    {"from": "spout#0", "to": "bolt#0", "rate": 10},
    {"from": "spout#1", "to": "bolt#1", "rate": 5},
]


def two_by_two(observations=None):
    """spout x2 -> bolt x2, W = 2, nodes n1 and n2 with one slot each."""
    data = {
        "topology": {
            "workers": 2,
            "components": [{"id": "spout", "parallelism": 2}, {"id": "bolt", "parallelism": 2}],
            "streams": [{"from": "spout", "to": "bolt"}],
        },
        "cluster": {
            "nodes": [
                {"id": "n1", "cores": 2, "ghz": GHZ, "slots": 1},
                {"id": "n2", "cores": 2, "ghz": GHZ, "slots": 1},
            ]
        },
    }
    if observations is not None:
        data["observations"] = observations
    return validate_scenario(data)


OFFLINE = {
    "spout#0": ("n1", 0),
    "bolt#0": ("n1", 0),
    "spout#1": ("n2", 0),
    "bolt#1": ("n2", 0),
}


def test_cold_start_falls_back_to_the_offline_placement():
    out = run_scheduler(two_by_two(), "aniello-online")
    offline = run_scheduler(two_by_two(), "aniello-offline")
    assert out.placement() == offline.placement() == OFFLINE
    assert out.decisions[0] == (
        "No runtime observations (cold start): using aniello-offline's placement"
    )
    assert out.decisions[1:] == offline.decisions
    assert out.details == {"traffic_before": None, "traffic_after": None, "reschedule": False}


def test_observations_without_traffic_also_fall_back():
    out = run_scheduler(two_by_two({"executor_load_hz": {"spout#0": 1e6}}), "aniello-online")
    assert out.placement() == OFFLINE
    assert "cold start" in out.decisions[0]


def test_hottest_pair_shares_a_worker_and_triggers_a_reschedule():
    # Phase 1 (cap ceil(4/2) = 2 per worker, no loads):
    #   (spout#0, bolt#1) 100: both free -> least loaded worker for both: w0
    #   (spout#1, bolt#0) 90: w0 full -> w1
    #   (spout#0, bolt#0) 10 and (spout#1, bolt#1) 5: only the current workers are
    #   possible (both full), the current split costs 10 + 5 = 15 -> kept.
    # Phase 2: w0-w1 carry 15 tuples/s; no node has 2 slots -> w0 -> n1, w1 -> n2.
    # Before (offline placement): 100 + 90 = 190 tuples/s between nodes; after: 15,
    # a 92.1% drop >= 10% -> reschedule.
    out = run_scheduler(two_by_two({"traffic": FLOWS}), "aniello-online")
    assert out.placement() == {
        "spout#0": ("n1", 0),
        "bolt#1": ("n1", 0),
        "spout#1": ("n2", 0),
        "bolt#0": ("n2", 0),
    }
    assert out.details["traffic_before"] == 190.0
    assert out.details["traffic_after"] == 15.0
    assert out.details["reschedule"] is True
    assert out.decisions[0] == (
        "Reschedule: inter-node traffic 190 -> 15 tuples/s (92.1% less, 10% required)"
    )
    lines = {d.split(" ", 1)[0]: d for d in out.decisions[1:]}
    assert lines["spout#0"].startswith(
        "spout#0 -> n1 slot 0: 100 tuples/s with bolt#1: both into worker w0, "
        "least loaded with room for both; worker w0 -> n1: 15 tuples/s with w1"
    )


def test_too_small_a_gain_keeps_the_running_placement():
    # Same plan (190 -> 15, -92%) but 100% improvement is required: no reschedule.
    sc = two_by_two({"traffic": FLOWS})
    out = run_scheduler(sc, "aniello-online", {"traffic_improvement": 100})
    assert out.placement() == OFFLINE
    assert out.details["reschedule"] is False
    assert (out.details["traffic_before"], out.details["traffic_after"]) == (190.0, 15.0)
    assert out.decisions[0].startswith("Keep the running placement (aniello-offline's)")
    assert "would put it on n2 slot 0" in next(d for d in out.decisions if d.startswith("bolt#0"))


def test_relieving_an_overloaded_node_triggers_a_reschedule():
    # n1 observed at 100% CPU (4e9 Hz), bolt#0 (3e9 Hz) runs there now. The plan
    # moves bolt#0 to n2, n1 would carry 4e9 - (1e6 + 3e9) + (1e6 + 1e6) = 1.001e9
    # Hz < 4e9: relieved, so reschedule although 100% traffic improvement is asked.
    loads = {"spout#0": 1e6, "spout#1": 1e6, "bolt#0": 3e9, "bolt#1": 1e6}
    sc = two_by_two({"traffic": FLOWS, "executor_load_hz": loads, "node_cpu_util": {"n1": 1.0}})
    out = run_scheduler(sc, "aniello-online", {"traffic_improvement": 100})
    assert out.details["overloaded_nodes"] == ["n1"]
    assert out.details["relieved_nodes"] == ["n1"]
    assert out.details["reschedule"] is True
    assert out.placement()["bolt#0"] == ("n2", 0)
    assert out.decisions[0].startswith("Reschedule: relieves overloaded n1;")


def test_a_worker_no_node_can_carry_keeps_the_running_placement():
    # capacity_factor 0.1 -> 4e8 Hz per node, but w1 (spout#1 + bolt#0) needs 3.001e9.
    loads = {"spout#0": 1e6, "spout#1": 1e6, "bolt#0": 3e9, "bolt#1": 1e6}
    sc = two_by_two({"traffic": FLOWS, "executor_load_hz": loads})
    out = run_scheduler(sc, "aniello-online", {"capacity_factor": 0.1})
    assert out.placement() == OFFLINE
    assert out.details["reschedule"] is False
    assert out.details["traffic_after"] is None
    assert out.decisions[0] == (
        "Keep the running placement (aniello-offline's): no node can take w1"
    )


def test_gamma_splits_a_pair_too_heavy_for_one_worker():
    # Total load 22e6, gamma 0.5 -> 11e6 per worker. spout#0 + bolt#1 = 20e6 cannot
    # share: spout#0 -> w0 (least loaded), bolt#1 -> w1.
    loads = {"spout#0": 10e6, "bolt#1": 10e6, "spout#1": 1e6, "bolt#0": 1e6}
    sc = two_by_two({"traffic": FLOWS, "executor_load_hz": loads})
    out = run_scheduler(sc, "aniello-online", {"gamma": 0.5, "traffic_improvement": 0})
    lines = {d.split(" ", 1)[0]: d for d in out.decisions[1:]}
    assert "100 tuples/s with bolt#1: no worker had room for both; worker w0" in lines["spout#0"]
    assert "no room beside it; worker w1 is the least loaded other" in lines["bolt#1"]
    placement = out.placement()
    assert placement["spout#0"] != placement["bolt#1"]


def test_flows_of_unknown_executors_are_refused_naming_the_flow():
    # observations describe a run of this topology: a flow to an executor it does not
    # have is bad input (issue 23), refused before any scheduler reads it
    flows = FLOWS + [{"from": "spout#0", "to": "ghost#3", "rate": 1000}]
    with pytest.raises(ScenarioError, match=r"observations\.traffic\[4\]\.to: unknown executor"):
        two_by_two({"traffic": flows})
    assert (
        run_scheduler(two_by_two({"traffic": FLOWS}), "aniello-online").details["ignored_flows"]
        == 0
    )


@pytest.mark.parametrize(
    "name, value",
    [("gamma", 0), ("gamma", 1.5), ("capacity_factor", 0), ("traffic_improvement", 150)],
)
def test_out_of_range_parameters_are_refused(name, value):
    with pytest.raises(SchedulerError, match=f"parameter {name}"):
        run_scheduler(two_by_two({"traffic": FLOWS}), "aniello-online", {name: value})


def fan_out():
    """spout x1 -> bolt x3, W = 2, nodes n1 and n2 with one slot each."""
    flows = [
        {"from": "spout#0", "to": "bolt#0", "rate": 100},
        {"from": "spout#0", "to": "bolt#1", "rate": 90},
        {"from": "spout#0", "to": "bolt#2", "rate": 80},
    ]
    data = {
        "topology": {
            "workers": 2,
            "components": [{"id": "spout", "parallelism": 1}, {"id": "bolt", "parallelism": 3}],
            "streams": [{"from": "spout", "to": "bolt"}],
        },
        "cluster": {
            "nodes": [
                {"id": "n1", "cores": 2, "ghz": GHZ, "slots": 1},
                {"id": "n2", "cores": 2, "ghz": GHZ, "slots": 1},
            ]
        },
        "observations": {"traffic": flows},
    }
    return validate_scenario(data)


@pytest.mark.parametrize(("alpha", "cap"), [(0.0, 2), (0.5, 3), (1.0, 3)])
def test_alpha_sets_the_executors_per_worker_as_the_paper_gives_it(alpha, cap):
    # E = 4, S = 2: M(alpha) = ceil(4/2) + ceil(alpha x ((4 - 2 + 1) - 2)) = 2 + ceil(alpha).
    out = run_scheduler(fan_out(), "aniello-online", {"alpha": alpha})
    assert out.details["executors_per_worker"] == cap


def test_alpha_one_lets_the_hot_fan_out_share_a_worker():
    # Running (aniello-offline, cap 2): spout#0, bolt#1 on n1; bolt#0, bolt#2 on n2:
    # 100 + 80 = 180 tuples/s between nodes.
    # alpha 0 (cap 2): (spout#0, bolt#0) -> w0, full; bolt#1 then bolt#2 -> w1:
    #   90 + 80 = 170, only 5.6% less than 180 -> keep the running placement.
    # alpha 1 (cap 3): bolt#1 joins w0 too; only bolt#2 -> w1: 80, 55.6% less -> reschedule.
    keep = run_scheduler(fan_out(), "aniello-online", {"alpha": 0})
    assert (keep.details["traffic_before"], keep.details["traffic_after"]) == (180.0, 170.0)
    assert keep.details["reschedule"] is False
    move = run_scheduler(fan_out(), "aniello-online", {"alpha": 1})
    assert (move.details["traffic_before"], move.details["traffic_after"]) == (180.0, 80.0)
    assert move.details["reschedule"] is True
    assert move.placement() == {
        "spout#0": ("n1", 0),
        "bolt#0": ("n1", 0),
        "bolt#1": ("n1", 0),
        "bolt#2": ("n2", 0),
    }


@pytest.mark.parametrize("value", [-0.1, 1.5, "much"])
def test_alpha_outside_the_unit_interval_is_refused_naming_it(value):
    with pytest.raises(SchedulerError, match="parameter alpha"):
        run_scheduler(fan_out(), "aniello-online", {"alpha": value})


def test_observed_flows_sum_both_ways_and_skip_unknown_executors():
    from core.schedulers.aniello_online import observed_flows

    index = {"a#0": 0, "b#0": 1, "c#0": 2, "d#0": 3}
    traffic = [
        ("a#0", "b#0", 2.0),
        ("c#0", "d#0", 6.0),
        ("x#9", "a#0", 7.0),  # unknown sender: ignored
        ("b#0", "a#0", 3.0),  # the other way: one pair of 5
        ("a#0", "a#0", 4.0),  # to itself: known, but no pair
    ]
    (lo, hi, rate), known = observed_flows(traffic, index)
    assert (lo.tolist(), hi.tolist(), rate.tolist(), known) == ([2, 0], [3, 1], [6.0, 5.0], 4)

"""Aniello et al.'s offline (topology-based) scheduler: buckets, epsilon, alpha, beta."""

import pytest

from core.model import validate_scenario
from core.registry import SchedulerError, run_scheduler
from core.schedulers.aniello_offline import deal_workers, executors_per_worker


def chain(parallelism, nodes, workers):
    """c1 -> c2 -> ... with the given executors per component, on (node, slots) nodes."""
    ids = list(parallelism)
    return validate_scenario(
        {
            "topology": {
                "workers": workers,
                "components": [{"id": c, "parallelism": p} for c, p in parallelism.items()],
                "streams": [{"from": a, "to": b} for a, b in zip(ids, ids[1:], strict=False)],
            },
            "cluster": {"nodes": [{"id": n, "cores": 4, "ghz": 2.0, "slots": k} for n, k in nodes]},
        }
    )


WORDCOUNT = {"spout": 2, "split": 3, "count": 3}
NODES = [("n1", 2), ("n2", 2), ("n3", 1)]


def test_cap_per_worker_follows_the_formula():
    # E = 8, W = 3: ceil(8/3) = 3; alpha 1: 3 + ceil(1 * ((8 - 3 + 1) - 3)) = 6
    assert executors_per_worker(8, 3, 0.0) == 3
    assert executors_per_worker(8, 3, 1.0) == 6
    assert executors_per_worker(8, 3, 0.5) == 3 + 2  # ceil(0.5 * 3) = 2
    # E = 62, W = 2: 31 + ceil(0.1 * (61 - 31)); 0.1 * 30 is 3.0000000000000004 in floats
    assert executors_per_worker(62, 2, 0.1) == 34
    assert executors_per_worker(2, 5, 1.0) == 1  # E < W: alpha term clamped at 0


def test_executors_join_workers_of_their_inputs():
    # E = 8, W = 3, cap 3, C = 3, epsilon 0.5 -> force empty workers from component 1.
    # spout (i=0, no inputs): round robin over secondaries -> w0, w1.
    # split (i=1): inputs in w0, w1 -> primary [w0, w1]; empty w2 promoted to the
    #   front -> [w2, w0, w1]: split#0 w2, split#1 w0, split#2 w1.
    # count (i=2): inputs everywhere -> primary [w0, w1, w2]: count#0..2 -> w0, w1, w2.
    # Nodes by free slots n1 (2), n2 (2), n3 (1); min 2, max 3, beta 1 -> 3 nodes:
    # w0 -> n1:0, w1 -> n2:0, w2 -> n3:0.
    out = run_scheduler(chain(WORDCOUNT, NODES, 3), "aniello-offline")
    assert out.placement() == {
        "spout#0": ("n1", 0),
        "spout#1": ("n2", 0),
        "split#0": ("n3", 0),
        "split#1": ("n1", 0),
        "split#2": ("n2", 0),
        "count#0": ("n1", 0),
        "count#1": ("n2", 0),
        "count#2": ("n3", 0),
    }
    lines = {d.split(" ", 1)[0]: d for d in out.decisions}
    assert (
        lines["spout#0"]
        == "spout#0 -> n1 slot 0: a source: worker 1 of 3, round robin over the workers"
    )
    assert "worker 3 of 3 was still empty and is put to use" in lines["split#0"]
    assert lines["split#1"].endswith(
        "worker 1 of 3 already holds its input spout (round robin over such workers)"
    )
    assert out.decisions[0].startswith("8 executors into 3 workers, at most 3 per worker")


def test_beta_zero_uses_the_fewest_nodes():
    # same buckets; beta 0 -> 2 nodes (n1, n2 cover W = 3): w0 -> n1:0, w1 -> n2:0, w2 -> n1:1
    out = run_scheduler(chain(WORDCOUNT, NODES, 3), "aniello-offline", {"beta": 0})
    placement = out.placement()
    assert placement["split#0"] == ("n1", 1)
    assert placement["count#2"] == ("n1", 1)
    assert {node for node, _ in placement.values()} == {"n1", "n2"}


def test_alpha_one_and_epsilon_one_pack_into_few_workers():
    # cap 6; epsilon 1 never forces empty workers.
    # spout -> w0, w1; split: primary [w0, w1] -> w0, w1, w0; count likewise -> w0, w1, w0.
    # w0 holds 5, w1 holds 3, w2 stays empty.
    out = run_scheduler(chain(WORDCOUNT, NODES, 3), "aniello-offline", {"alpha": 1, "epsilon": 1})
    by_slot: dict[tuple[str, int], list[str]] = {}
    for a in out.assignments:
        by_slot.setdefault((a.node, a.slot), []).append(a.executor)
    assert by_slot == {
        ("n1", 0): ["spout#0", "split#0", "split#2", "count#0", "count#2"],
        ("n2", 0): ["spout#1", "split#1", "count#1"],
    }


def test_promoted_empty_workers_are_served_last_first():
    # c1..c4 with one executor each, W = 4, cap 1, epsilon 0.5 -> force from component 2.
    # c1 -> w0; c2 (w0 full, not forced yet) -> w1; c3: empty w2, w3 each inserted at the
    # front -> [w3, w2] -> c3 -> w3; c4 -> w2. One slot per node, dealt n1..n4.
    sc = chain({"c1": 1, "c2": 1, "c3": 1, "c4": 1}, [(f"n{i}", 1) for i in range(1, 5)], 4)
    out = run_scheduler(sc, "aniello-offline")
    assert out.placement() == {
        "c1#0": ("n1", 0),
        "c2#0": ("n2", 0),
        "c3#0": ("n4", 0),
        "c4#0": ("n3", 0),
    }


def test_more_workers_than_free_slots_uses_the_free_slots():
    out = run_scheduler(chain({"a": 2, "b": 2}, [("n1", 1), ("n2", 1)], 5), "aniello-offline")
    assert out.decisions[0] == (
        "W = 5 workers requested but only 2 slots are free: using all 2, as Storm does"
    )
    assert {slot for slot in out.placement().values()} == {("n1", 0), ("n2", 0)}


def test_deal_workers_round_robin_over_nodes_with_most_slots():
    sc = chain({"a": 1}, [("n1", 1), ("n2", 3), ("n3", 2)], 4)
    # sorted by free slots: n2 (3), n3 (2), n1 (1); min 2 (3 + 2 >= 4), max 3
    slots, lo, hi, use = deal_workers(sc.cluster.nodes, 4, 0.5)
    assert (lo, hi, use) == (2, 3, 3)  # 2 + ceil(0.5 * 1)
    assert slots == [("n2", 0), ("n3", 0), ("n1", 0), ("n2", 1)]


@pytest.mark.parametrize("name, value", [("alpha", -0.1), ("beta", 1.5), ("epsilon", 2)])
def test_out_of_range_parameters_are_refused(name, value):
    sc = chain(WORDCOUNT, NODES, 3)
    with pytest.raises(SchedulerError, match=f"parameter {name}"):
        run_scheduler(sc, "aniello-offline", {name: value})


def test_every_executor_gets_a_decision_and_a_real_slot():
    sc = chain(WORDCOUNT, NODES, 3)
    out = run_scheduler(sc, "aniello-offline")
    slots = {n.id: n.slots for n in sc.cluster.nodes}
    assert all(0 <= a.slot < slots[a.node] for a in out.assignments)
    assert len(out.decisions) == 1 + 8
    assert out.placement() == run_scheduler(sc, "aniello-offline").placement()

"""Storm's default EvenScheduler: slot interleaving and task-id order."""

from core.registry import run_scheduler
from core.schedulers.base import sort_slots


def test_sort_slots_matches_storms_documented_example():
    # docs/schedulers.md: s1 with 2 free slots, s2 with 3 -> s2:0, s1:0, s2:1, s1:1, s2:2
    assert sort_slots({"s1": [0, 1], "s2": [0, 1, 2]}) == [
        ("s2", 0),
        ("s1", 0),
        ("s2", 1),
        ("s1", 1),
        ("s2", 2),
    ]


def test_sort_slots_three_supervisors_example_from_storm_source():
    # EvenScheduler.sortSlots comment: supervisor3 (4 free) first, then 2 (3), then 1 (2);
    # ports unsorted on input come out ascending.
    free = {
        "supervisor1": [6700, 6701],
        "supervisor2": [6700, 6701, 6702],
        "supervisor3": [6700, 6703, 6702, 6701],
    }
    assert sort_slots(free) == [
        ("supervisor3", 6700),
        ("supervisor2", 6700),
        ("supervisor1", 6700),
        ("supervisor3", 6701),
        ("supervisor2", 6701),
        ("supervisor1", 6701),
        ("supervisor3", 6702),
        ("supervisor2", 6702),
        ("supervisor3", 6703),
    ]


def test_sort_slots_ties_keep_node_id_order():
    assert sort_slots({"b": [0], "a": [0], "c": [0, 1]}) == [("c", 0), ("a", 0), ("b", 0), ("c", 1)]


def test_executors_go_round_robin_in_task_id_order(build):
    # components by id: count, split, spout ('l' < 'o') -> count#0, count#1, split#0, ...
    # slots: n1 and n2 have 2 each -> n1:0, n2:0, n1:1, n2:1
    sc = build(
        [("spout", 2), ("split", 2), ("count", 2)],
        [("spout", "split"), ("split", "count")],
        nodes=[("n1", 2), ("n2", 2)],
        workers=4,
    )
    placement = run_scheduler(sc, "even").placement()
    assert placement == {
        "count#0": ("n1", 0),
        "count#1": ("n2", 0),
        "split#0": ("n1", 1),
        "split#1": ("n2", 1),
        "spout#0": ("n1", 0),
        "spout#1": ("n2", 0),
    }


def test_fewer_workers_than_slots_uses_the_first_w_sorted_slots(build):
    # n3 has 3 slots, n1 and n2 one each: sorted n3:0, n1:0, n2:0, n3:1, n3:2; W = 2
    sc = build([("a", 5)], nodes=[("n1", 1), ("n2", 1), ("n3", 3)], workers=2)
    result = run_scheduler(sc, "even")
    assert [(a.node, a.slot) for a in result.assignments] == [
        ("n3", 0),
        ("n1", 0),
        ("n3", 0),
        ("n1", 0),
        ("n3", 0),
    ]


def test_more_workers_than_free_slots_uses_all_free_slots_and_says_so(build):
    sc = build([("a", 4)], nodes=[("n1", 1), ("n2", 2)], workers=10)
    result = run_scheduler(sc, "even")
    assert result.ok
    assert {(a.node, a.slot) for a in result.assignments} == {("n1", 0), ("n2", 0), ("n2", 1)}
    assert "only 3 slots are free" in result.decisions[0]


def test_nodes_without_slots_are_skipped(build):
    sc = build([("a", 3)], nodes=[("n0", 0), ("n1", 1), ("n2", 1)], workers=3)
    assert {a.node for a in run_scheduler(sc, "even").assignments} == {"n1", "n2"}


def test_ackers_take_the_first_task_ids(build):
    sc = build([("spout", 1), ("bolt", 1)], [("spout", "bolt")], nodes=[("n1", 3)], workers=3)
    data = sc.to_json_dict()
    data["topology"]["ackers"] = 1
    from core.model import validate_scenario

    result = run_scheduler(validate_scenario(data), "even")
    assert [a.executor for a in result.assignments] == ["__acker#0", "bolt#0", "spout#0"]
    assert [a.slot for a in result.assignments] == [0, 1, 2]
    assert result.parallelism == {"spout": 1, "bolt": 1, "__acker": 1}


def test_every_executor_has_one_decision(wordcount_small):
    result = run_scheduler(wordcount_small, "even")
    assert len(result.decisions) == len(result.assignments) == 6
    assert result.decisions[0].startswith("count#0 -> n1 slot 0")

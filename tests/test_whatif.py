"""What if a node or slot fails: Storm's EvenScheduler keeps survivors, the others re-place."""

import pytest

from core.model import ScenarioError
from core.registry import run_scheduler
from core.whatif import Failure, failover, without_node, without_slot


def _three_nodes(build):
    """a x2 -> b x2 on n1, n2, n3 with 2 slots each, W = 2."""
    return build(
        [("a", 2), ("b", 2)],
        [("a", "b")],
        nodes=[("n1", 2), ("n2", 2), ("n3", 2)],
        workers=2,
    )


def test_even_keeps_alive_executors_and_deals_the_lost_ones_over_sortslots(build):
    sc = _three_nodes(build)
    before = run_scheduler(sc, "even")
    # sortSlots: n1:0, n2:0, n3:0, n1:1, ...; W = 2 -> a#0, b#0 on n1:0; a#1, b#1 on n2:0
    assert before.placement() == {
        "a#0": ("n1", 0),
        "a#1": ("n2", 0),
        "b#0": ("n1", 0),
        "b#1": ("n2", 0),
    }
    out = failover(sc, "n2", "even", {}, before, rate=100.0)
    # free slots now n3:0, n3:1, n1:1 -> sortSlots n3:0, n1:1, n3:1; one slot to refill (W = 2)
    assert out.keeps_survivors and out.schedule.ok
    assert out.schedule.placement() == {
        "a#0": ("n1", 0),
        "b#0": ("n1", 0),
        "a#1": ("n3", 0),
        "b#1": ("n3", 0),
    }
    assert sorted(out.changes.moved_node) == ["a#1", "b#1"]
    assert out.changes.moved_slot == ()


def test_even_leaves_lost_executors_unassigned_when_no_slot_is_free(build):
    sc = build([("a", 2)], nodes=[("n1", 1), ("n2", 1)], workers=2)
    before = run_scheduler(sc, "even")
    out = failover(sc, "n2", "even", {}, before, rate=100.0)
    assert out.schedule.status.value == "not-enough-resources"
    assert "Storm leaves them unassigned" in out.schedule.message
    assert [a.executor for a in out.schedule.assignments] == ["a#0"]


def test_other_schedulers_re_place_everything_on_the_survivors(build):
    sc = _three_nodes(build)
    before = run_scheduler(sc, "top-storm")
    out = failover(sc, "n1", "top-storm", {}, before, rate=100.0)
    assert not out.keeps_survivors
    assert (
        out.schedule.placement() == run_scheduler(without_node(sc, "n1"), "top-storm").placement()
    )
    assert all(node != "n1" for node, _ in out.schedule.placement().values())
    moved = {e for e, (n, _) in before.placement().items() if n == "n1"}
    assert moved <= set(out.changes.moved_node)


def test_failing_an_unknown_or_the_last_node_names_the_field(build):
    sc = build([("a", 1)], nodes=[("n1", 1)])
    with pytest.raises(ScenarioError, match="no node 'zz'"):
        without_node(sc, "zz")
    with pytest.raises(ScenarioError, match="only node"):
        without_node(sc, "n1")


def test_even_keeps_the_other_workers_of_a_node_whose_slot_fails(build):
    sc = build([("a", 3)], nodes=[("n1", 3), ("n2", 1)], workers=3)
    before = run_scheduler(sc, "even")
    # sortSlots: n1:0, n2:0, n1:1, n1:2; W = 3 -> the first three, round robin
    assert before.placement() == {"a#0": ("n1", 0), "a#1": ("n2", 0), "a#2": ("n1", 1)}
    out = failover(sc, Failure("n1", 0), "even", {}, before, rate=100.0)
    assert [n.slots for n in out.scenario.cluster.nodes] == [2, 1]
    # n1's slot 1 is now its slot 0 and keeps a#2; a#0 takes the one free slot, n1:1
    assert out.keeps_survivors and out.schedule.ok
    assert out.schedule.placement() == {"a#1": ("n2", 0), "a#2": ("n1", 0), "a#0": ("n1", 1)}
    assert out.changes.moved_slot == ("a#0",)  # a#2 was only renumbered
    assert out.changes.moved_node == ()


def test_other_schedulers_re_place_on_the_node_with_a_slot_less(build):
    sc = _three_nodes(build)
    before = run_scheduler(sc, "top-storm")
    failure = Failure("n2", 1)
    out = failover(sc, failure, "top-storm", {}, before, rate=100.0)
    expected = run_scheduler(without_slot(sc, "n2", 1), "top-storm").placement()
    assert out.schedule.placement() == expected
    assert all(slot == 0 for node, slot in expected.values() if node == "n2")
    assert str(failure) == "n2 slot 1" and str(Failure("n2")) == "n2"


def test_failing_an_unknown_or_the_last_slot_names_the_field(build):
    sc = build([("a", 1)], nodes=[("n1", 1)])
    with pytest.raises(ScenarioError, match="has no slot 3"):
        without_slot(sc, "n1", 3)
    with pytest.raises(ScenarioError, match="only slot"):
        without_slot(sc, "n1", 0)
    with pytest.raises(ScenarioError, match="no node 'zz'"):
        without_slot(sc, "zz", 0)

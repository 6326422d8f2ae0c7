"""What if a node fails: Storm's EvenScheduler keeps survivors, the others re-place."""

import pytest

from core.model import ScenarioError
from core.schedulers import run_scheduler
from core.whatif import failover, without_node


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

"""L/F (Son & Moon 2020): pipelines, round robin over sorted slots, the paper's cohesion."""

import pytest

from core.metrics import schedule_metrics
from core.model import with_changes
from core.presets import preset
from core.registry import SchedulerError, run_scheduler
from core.topology import build_graph


@pytest.mark.parametrize(
    ("shape", "gain_pct"),
    [
        ("linear", 3900.00),
        ("ascent", 71.78),
        ("descent", 71.02),
        ("diamond", 32.03),
        ("star", 59.45),
    ],
)
def test_lf_cohesion_gain_over_even_matches_the_paper_at_low_parallelism(shape, gain_pct):
    sc = preset(f"lf-{shape}")
    graph = build_graph(sc)
    lf = schedule_metrics(run_scheduler(sc, "lf"), graph).cohesion
    even = schedule_metrics(run_scheduler(sc, "even"), graph).cohesion
    assert round((lf / even - 1) * 100, 2) == gain_pct


def test_lf_linear_keeps_the_whole_pipeline_in_one_worker():
    # 8 components x 1 executor: one pipeline c1#0 .. c8#0 -> slot 1 of the sorted
    # slots (n1:0); every stream stays inside it: cohesion 7 x closeness 1 = 7.
    sc = preset("lf-linear")
    result = run_scheduler(sc, "lf")
    assert set(result.placement().values()) == {("n1", 0)}
    assert schedule_metrics(result, build_graph(sc)).cohesion == 7.0


def without_ackers(name: str):
    """A preset with its topology alone, the paper's POs without Storm's ackers."""
    sc = preset(name)
    return with_changes(sc, topology=sc.topology.model_copy(update={"ackers": 0}))


def test_lf_star_cuts_fourteen_pipelines_and_deals_them_round_robin():
    # star 8,6,4,2,2,4,6,8 without ackers: pipelines 1-2 take c1..c8; 3-4 stop at
    # exhausted c4 (c1..c3); 5-6 c1,c2; 7-8 c1 alone; then the walk starts at c6 (c4, c5
    # gone): 9-10 c6..c8; 11-12 c7,c8; 13-14 c8. 8 single-slot nodes -> n1..n8 in id
    # order, pipeline i (from 0) -> slot i mod 8: pipeline 9 (c6#2, c7#2, c8#2) back on n1.
    result = run_scheduler(without_ackers("lf-star"), "lf")
    placement = result.placement()
    assert result.details["pipelines"] == 14
    assert result.decisions[2].startswith("pipeline 3 of 14 (c1#2, c2#2, c3#2) -> n3 slot 0")
    assert "L/F deals pipelines round robin over the sorted slots" in result.decisions[2]
    assert [placement[e] for e in ("c6#2", "c7#2", "c8#2")] == [("n1", 0)] * 3
    assert [placement[e] for e in ("c1#6", "c1#7", "c8#6", "c8#7")] == [
        ("n7", 0),
        ("n8", 0),
        ("n5", 0),
        ("n6", 0),
    ]


def test_lf_walks_predecessors_before_successors(build):
    # a(1) -> c(2) <- b(2), order a, b, c. Pipeline 1: a#0, its successor c#0, then c's
    # predecessors: a (already in), b#0. Pipeline 2 starts at b (a is exhausted):
    # b#1, c#1. Two single-slot nodes: pipeline 1 -> n1, pipeline 2 -> n2.
    sc = build(
        [("a", 1), ("b", 2), ("c", 2)],
        [("a", "c"), ("b", "c")],
        nodes=[("n1", 1), ("n2", 1)],
        workers=2,
    )
    result = run_scheduler(sc, "lf")
    assert result.decisions[0].startswith("pipeline 1 of 2 (a#0, c#0, b#0) -> n1 slot 0")
    assert result.decisions[1].startswith("pipeline 2 of 2 (b#1, c#1) -> n2 slot 0")


def test_lf_uses_the_first_w_sorted_slots(build):
    # n2 has 2 slots, n1 one: sorted n2:0, n1:0, n2:1; W = 2 -> n2:0, n1:0.
    # a(3) -> b(3): three pipelines (a#i, b#i) -> n2:0, n1:0, n2:0.
    sc = build([("a", 3), ("b", 3)], [("a", "b")], nodes=[("n1", 1), ("n2", 2)], workers=2)
    placement = run_scheduler(sc, "lf").placement()
    assert [placement[f"a#{i}"] for i in range(3)] == [("n2", 0), ("n1", 0), ("n2", 0)]
    assert all(placement[f"b#{i}"] == placement[f"a#{i}"] for i in range(3))


def test_lf_with_more_workers_than_slots_uses_all_free_slots_and_says_so(build):
    sc = build([("a", 4), ("b", 4)], [("a", "b")], nodes=[("n1", 1), ("n2", 1)], workers=5)
    result = run_scheduler(sc, "lf")
    assert result.ok
    assert "only 2 slots are free" in result.decisions[0]
    assert set(result.placement().values()) == {("n1", 0), ("n2", 0)}


# Fig. 6b: "both schedulers have the same coupling in all configurations". even's
# coupling by hand: W = 8 single-slot nodes, executor i -> slot i mod 8, so no two
# executors of one component share a worker; every executor of a component with
# more than one scores 1/40: linear 0; ascent and descent 35/40; diamond, star 40/40.
FIG6B_EVEN_COUPLING = {
    "linear": 0.0,
    "ascent": 0.875,
    "descent": 0.875,
    "diamond": 1.0,
    "star": 1.0,
}
# Fig. 6a: L/F's cohesion gain over even, percent (Section 4.2 text)
FIG6A_GAIN_PCT = {
    "linear": 3900.00,
    "ascent": 71.78,
    "descent": 71.02,
    "diamond": 32.03,
    "star": 59.45,
}


@pytest.mark.parametrize("shape", sorted(FIG6B_EVEN_COUPLING))
def test_lf_bridge_reproduces_fig6b_same_coupling_as_even(shape):
    sc = preset(f"lf-{shape}")
    graph = build_graph(sc)
    even = schedule_metrics(run_scheduler(sc, "even"), graph)
    bridged = schedule_metrics(run_scheduler(sc, "lf", {"bridge": True}), graph)
    assert even.coupling == pytest.approx(FIG6B_EVEN_COUPLING[shape])
    assert bridged.coupling == pytest.approx(FIG6B_EVEN_COUPLING[shape])


@pytest.mark.parametrize(("shape", "gain_pct"), sorted(FIG6A_GAIN_PCT.items()))
def test_lf_bridge_keeps_fig6a_cohesion_gains(shape, gain_pct):
    sc = preset(f"lf-{shape}")
    graph = build_graph(sc)
    lf = schedule_metrics(run_scheduler(sc, "lf", {"bridge": True}), graph).cohesion
    even = schedule_metrics(run_scheduler(sc, "even"), graph).cohesion
    assert round((lf / even - 1) * 100, 2) == gain_pct


def test_lf_text_walk_on_star_without_ackers_couples_more_than_fig6b():
    # The 14 pipelines of the text's walk (see the star test above) on 8 slots:
    # c1..c5 spread (8 + 6 + 4 + 2 + 2 = 22 executors x 1/40 = 0.55); c6#0/#2 and
    # c6#1/#3 share workers 1 and 2 (4 x 1); c7: 4 x 1 + 2/40; c8: 4 x 1 + 4/40.
    # Total 0.55 + 4 + 4.05 + 4.1 = 12.7, against even's (and Fig. 6b's) 1.0.
    sc = without_ackers("lf-star")
    metrics = schedule_metrics(run_scheduler(sc, "lf"), build_graph(sc))
    assert metrics.coupling == pytest.approx(12.7)


def test_lf_star_with_storm_default_ackers_cuts_eight_pipelines_as_fig6b():
    # Storm 1.2.3 starts one acker per worker (8), a PO fed by every other. The text's
    # walk reaches __acker from each pipeline and its predecessors from there: once c4
    # is exhausted, c1#2, c2#2, c3#2 -> __acker#2 -> c6#2, c7#2, c8#2 stay one pipeline.
    # 8 pipelines on 8 workers, one executor of each component per worker at most:
    # coupling 8 + 6 + 4 + 2 + 2 + 4 + 6 + 8 = 40 executors x 1/40 = 1.0, even's (Fig. 6b).
    sc = preset("lf-star")
    graph = build_graph(sc)
    result = run_scheduler(sc, "lf")
    assert sc.topology.ackers == 8
    assert result.details["pipelines"] == 8
    assert result.decisions[2].startswith(
        "pipeline 3 of 8 (c1#2, c2#2, c3#2, __acker#2, c6#2, c7#2, c8#2) -> n3 slot 0"
    )
    lf = schedule_metrics(result, graph)
    even = schedule_metrics(run_scheduler(sc, "even"), graph)
    assert lf.coupling == pytest.approx(1.0) == even.coupling
    assert round((lf.cohesion / even.cohesion - 1) * 100, 2) == 59.45  # Fig. 6a


def test_lf_ackers_left_over_join_the_pipelines_workers():
    # pageview: 4 components x 4 executors, 8 workers, 8 ackers. Pipelines 1-4 take
    # source#i, view#i, count#i, sink#i and __acker#i -> n1..n4; ackers 4-7 are left
    # alone and join those 4 workers in turn (n1..n4), not workers of their own:
    # L/F's page view holds half even's used heap (298.5 against 591.2 MB, Sec. 4.5).
    result = run_scheduler(preset("pageview"), "lf")
    placement = result.placement()
    assert result.details["pipelines"] == 8
    assert [placement[f"__acker#{i}"] for i in range(8)] == [(f"n{i % 4 + 1}", 0) for i in range(8)]
    assert set(placement.values()) == {(f"n{i}", 0) for i in range(1, 5)}
    assert "ackers left over join the 4 worker(s) the pipelines use" in result.decisions[4]


def test_lf_linear_puts_all_eight_ackers_in_its_one_worker():
    # Sec. 4.3: on linear "the L/F job scheduler uses only one process".
    placement = run_scheduler(preset("lf-linear"), "lf").placement()
    assert len(placement) == 16
    assert set(placement.values()) == {("n1", 0)}


def test_lf_bridge_walks_through_an_exhausted_component_once(build):
    # a(2) -> b(1) -> c(2). Pipeline 1: a#0, b#0, c#0. Text walk: b is exhausted, so
    # a#1 and c#1 form two pipelines; bridged: a#1 walks through b to c#1, one pipeline.
    sc = build([("a", 2), ("b", 1), ("c", 2)], [("a", "b"), ("b", "c")], [("n1", 3)], 3)
    text = run_scheduler(sc, "lf")
    bridged = run_scheduler(sc, "lf", {"bridge": True})
    assert text.details["pipelines"] == 3
    assert bridged.details["pipelines"] == 2
    assert bridged.decisions[1].startswith("pipeline 2 of 2 (a#1, c#1) -> n1 slot 1")
    assert bridged.placement()["a#1"] == bridged.placement()["c#1"] == ("n1", 1)


def test_lf_bridge_must_be_a_boolean(build):
    sc = build([("a", 1)], [], [("n1", 1)], 1)
    with pytest.raises(SchedulerError, match="parameter bridge"):
        run_scheduler(sc, "lf", {"bridge": "sometimes"})

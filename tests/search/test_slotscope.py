"""slotscope's own scheduler: never worse than the others, close to optimal."""

import numpy as np
import pytest
from test_optimal import key_of, small

from core.presets import PRESETS, preset
from core.registry import SCHEDULERS, feed, run_scheduler
from core.search.optimal import score_key
from core.simulator.capacity import Evaluator
from tests.search.first_written import first_written, without_ackers

OTHERS = [s for s in SCHEDULERS if s not in ("optimal", "slotscope")]


def other_scores(sc):
    for sid in OTHERS:
        scenario = feed(sc, SCHEDULERS[sid], sc.workload.rate)
        result = run_scheduler(scenario, sid)
        # slotscope keeps the user's parallelism by default: compare with those that do too
        if result.ok and dict(result.parallelism) == dict(Evaluator(sc).graph.parallelism):
            ev = Evaluator(sc, result.parallelism)
            yield sid, ev.score(ev.encode(result.placement()))


@pytest.mark.parametrize("name", [p for p in PRESETS if not p.endswith("-x10")])
def test_never_worse_than_any_other_scheduler(name):
    sc = preset(name)
    mine = run_scheduler(sc, "slotscope")
    ev = Evaluator(sc, mine.parallelism)
    score = ev.score(ev.encode(mine.placement()))
    for sid, other in other_scores(sc):
        assert score.throughput >= other.throughput * (1 - 1e-9), sid
        assert score_key(score) <= score_key(other), sid


@pytest.mark.parametrize("rate", [2000.0, 9000.0, 20000.0, 40000.0])
@pytest.mark.parametrize("ghz", [(3.0, 3.0, 2.0), (3.4, 2.5, 1.5)])
def test_within_two_percent_of_optimal(rate, ghz):
    sc = small(rate=rate, ghz=ghz)
    best = run_scheduler(sc, "optimal", {"method": "enumerate"})
    mine = run_scheduler(sc, "slotscope")
    best_thr = -key_of(sc, best)[0]
    assert -key_of(sc, mine)[0] >= 0.98 * best_thr


EXCLAMATION_SHORT = (
    "on Table 4's CPUs as the CPU table gives them (4 and 2 physical cores, no SMT here) "
    "slotscope's search stops at 93.6% of CP-SAT's optimum on exclamation (658,532 vs "
    "703,715 tuples/s, measured 2026-11-25; 92.6% with their hardware threads); why its "
    "moves stop short there is not yet found"
)


@pytest.mark.parametrize(
    "name",
    [
        "lf-linear",
        "nasiri-example",
        "lf-ascent",
        pytest.param("exclamation", marks=pytest.mark.xfail(reason=EXCLAMATION_SHORT, strict=True)),
    ],
)
def test_within_two_percent_of_the_cpsat_optimum_on_small_presets(name):
    sc = first_written(preset(name))  # Storm 1.x's shuffle, which CP-SAT models exactly
    best = run_scheduler(sc, "optimal", {"time_limit": 30})
    assert best.details["status"] == "optimal"
    assert -key_of(sc, run_scheduler(sc, "slotscope"))[0] >= 0.98 * best.details["max_rate"]


@pytest.mark.parametrize("name", ["lf-linear", "nasiri-example"])
def test_within_two_percent_of_optimal_on_presets_where_it_is_feasible(name):
    sc = without_ackers(preset(name))  # L/F's ackers would put enumeration out of reach
    best = -key_of(sc, run_scheduler(sc, "optimal", {"method": "enumerate"}))[0]
    assert -key_of(sc, run_scheduler(sc, "slotscope"))[0] >= 0.98 * best


def test_decisions_say_where_it_started_and_what_each_step_gained():
    result = run_scheduler(preset("wordcount"), "slotscope")
    assert result.decisions[0].startswith(f"start from {result.details['start']}")
    steps = [d for d in result.decisions if d.startswith("step ")]
    assert len(steps) == result.details["steps"] > 0
    assert all(("R* +" in s) or ("latency estimate -" in s) or ("node" in s) for s in steps)
    placed = [d for d in result.decisions if " -> " in d and "slot" in d and "step" not in d[:5]]
    assert len(placed) >= len(result.assignments)


def test_deterministic():
    sc = preset("lf-diamond")
    assert run_scheduler(sc, "slotscope").placement() == run_scheduler(sc, "slotscope").placement()


def test_keeps_the_users_parallelism_unless_asked():
    sc = preset("rollingcount")
    kept = run_scheduler(sc, "slotscope")
    asked = dict(Evaluator(sc).graph.parallelism)
    assert dict(kept.parallelism) == asked
    assert len(kept.assignments) == sum(asked.values())
    chosen = run_scheduler(sc, "slotscope", {"choose_parallelism": "true"})
    starts = [d for d in chosen.decisions if d.startswith("candidate hetero")]
    assert len(starts) == 1
    assert not any(d.startswith("candidate hetero") for d in kept.decisions)


@pytest.mark.parametrize(
    "name, params",
    [("wordcount", {}), ("top-storm-wordcount-s3-w4", {}), ("lf-diamond", {"budget": 57})],
)
def test_batched_search_takes_the_same_steps_as_one_score_at_a_time(name, params, monkeypatch):
    from core.search import slotscope

    sc = preset(name)
    batched = run_scheduler(sc, "slotscope", params)
    monkeypatch.setattr(slotscope, "BATCH_CELLS", 0)  # every candidate scored alone
    single = run_scheduler(sc, "slotscope", params)
    assert batched.details["steps"] > 0
    assert batched.details == single.details
    assert batched.decisions == single.decisions
    assert batched.placement() == single.placement()


@pytest.mark.parametrize("name", ["wordcount", "top-storm-exclamation-s3-w3"])
def test_the_storm2_screen_takes_the_same_steps_as_scoring_every_candidate(name, monkeypatch):
    """Under Storm 2's shuffle the search skips candidates whose R* is certainly below its
    own (Evaluator.below) instead of solving their R*: the same steps as solving them all
    (one spilling stream; two, one feeding the other)."""
    sc = preset(name)
    screened = run_scheduler(sc, "slotscope")
    monkeypatch.setattr(Evaluator, "below", lambda self, rows, rate: [False] * len(rows))
    scored = run_scheduler(sc, "slotscope")
    assert screened.details["steps"] > 0
    assert screened.details == scored.details
    assert screened.decisions == scored.decisions
    assert screened.placement() == scored.placement()


def _search_from_even(name: str, budget: int):
    """slotscope's local search run from ``even``'s placement of a preset."""

    from core.hardware import computation_power
    from core.search.slotscope import _Search

    sc = preset(name)
    ev = Evaluator(sc)
    slots = ev.encode(run_scheduler(sc, "even").placement())
    power = np.array([computation_power(n) for n in sc.cluster.nodes])
    cap = max(sc.workers, int(np.count_nonzero(np.bincount(slots))))
    search = _Search(ev, slots, cap, budget, np.argsort(-power, kind="stable"))
    order = [int(i) for i in np.argsort(-ev.loads(slots).cpu, kind="stable")]
    search.run(order)
    return search, order


@pytest.mark.parametrize("name", ["wordcount", "rstorm-star", "lf-descent-lsp"])
def test_a_converged_search_leaves_no_improving_move_or_swap(name):
    """The search stops where its scan comes back to its last step: check that no
    candidate of a whole fresh pass would improve on where it stopped."""
    search, order = _search_from_even(name, budget=100_000)
    assert search.evaluations < 100_000 and len(search.moves) > 0
    key = score_key(search.score)
    for stream, start in ((search.move_candidates, 0), (search.swap_candidates, (0, 0))):
        rows = []
        for _, changes in stream(order, start):
            row = search.slots.copy()
            for i, g in changes:
                row[i] = g
            rows.append(row)
        assert rows
        assert min(score_key(s) for s in search.ev.score_many(np.array(rows))) >= key


def test_a_lone_executor_is_not_moved_to_a_free_slot_of_its_own_node():
    search, _ = _search_from_even("wordcount", budget=1)
    nodes = search.ev.nodes
    search.cap = nodes.slots  # free slots stay open
    free = np.flatnonzero(np.bincount(search.slots, minlength=nodes.slots) == 0)
    search.slots[0] = free[0]  # executor 0 alone in a slot of a node with more free slots
    home = nodes.slot_node[free[0]]
    assert np.count_nonzero(nodes.slot_node[free] == home) > 1
    targets = search.targets(0)
    count = np.bincount(search.slots, minlength=nodes.slots)
    assert not [g for g in targets if nodes.slot_node[g] == home and count[g] == 0]
    assert len([g for g in targets if count[g] == 0]) == len(nodes.ids) - 1


def test_time_limit_keeps_the_first_start_and_stops_the_search(monkeypatch):
    """Past the limit no further start runs and no candidate is scored: the answer is
    the first start's placement (even's, first in registry order)."""
    import core.search.slotscope as slotscope

    sc = preset("wordcount")
    clock = iter(range(0, 10**9, 1000))  # 1,000 s at every reading
    monkeypatch.setattr(slotscope.time, "perf_counter", lambda: float(next(clock)))
    out = run_scheduler(sc, "slotscope", {"time_limit": 5.0})
    assert out.ok and out.details["start"] == "even"
    assert out.details["evaluations"] == 1 and out.details["steps"] == 0
    assert out.placement() == run_scheduler(sc, "even").placement()


@pytest.mark.parametrize("choose, built", [(False, 1), (True, 2)])
def test_starts_of_one_parallelism_share_one_evaluator(choose, built, monkeypatch):
    """Every start that keeps the user's parallelism is scored by one Evaluator (one more
    for hetero's own parallelism when asked), and the answer is the same as with one
    Evaluator a start (the memo only caches)."""
    import core.search.slotscope as slotscope

    sc = preset("rollingcount")
    params = {"choose_parallelism": str(choose).lower(), "budget": 60}
    shared = run_scheduler(sc, "slotscope", params)
    made = []

    class Counted(Evaluator):
        def __init__(self, *args, **kwargs):
            made.append(args[1:])
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(slotscope, "Evaluator", Counted)
    again = run_scheduler(sc, "slotscope", params)
    assert len(made) == built
    monkeypatch.setattr(slotscope, "_evaluator", lambda s, par, _found: Evaluator(s, par))
    fresh = run_scheduler(sc, "slotscope", params)
    for out in (again, fresh):
        assert out.placement() == shared.placement() and out.decisions == shared.decisions

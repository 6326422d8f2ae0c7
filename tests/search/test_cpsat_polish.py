"""The local search after CP-SAT: never worse, within W workers, and it sees local-or-shuffle."""

import numpy as np
import pytest

from core.presets import preset
from core.search.enumeration import greedy_placement
from core.search.polish import improve, load_profile
from core.simulator.capacity import Evaluator
from tests.search.first_written import first_written, without_ackers


def start(name, ackers=True):
    sc = first_written(preset(name))
    sc = sc if ackers else without_ackers(sc)
    ev = Evaluator(sc)
    return sc, ev, greedy_placement(ev, sc, len(ev.executors))


def test_lf_ascent_lsp_reaches_the_compute_bound_from_the_greedy_start():
    # 8 x 25 us per tuple on 8 nodes of 6 cores, a thread of 25 us: R* <= 40,000/s
    sc, ev, slots = start("lf-ascent-lsp", ackers=False)
    assert ev.score(slots).max_rate == pytest.approx(28_137.31, rel=1e-5)
    better, moves = improve(ev, slots, sc.workers, 5.0)
    assert moves > 0
    assert ev.score(better).max_rate == pytest.approx(40_000.0, rel=1e-9)
    assert len(np.unique(better)) <= sc.workers


@pytest.mark.parametrize("name", ["rollingcount", "lf-diamond-lsp", "wordcount", "aniello"])
def test_never_worse_and_within_the_workers(name):
    sc, ev, slots = start(name)
    before, _, _ = load_profile(ev, slots)
    better, moves = improve(ev, slots, sc.workers, 0.5)
    after, _, _ = load_profile(ev, better)
    assert after[0] <= before[0]
    assert ev.score(better).max_rate >= ev.score(slots).max_rate
    assert len(np.unique(better)) <= max(sc.workers, len(np.unique(slots)))
    assert moves == 0 or tuple(after) < tuple(before)


def test_a_zero_budget_keeps_the_start():
    sc, ev, slots = start("rollingcount")
    better, moves = improve(ev, slots, sc.workers, 0.0)
    assert moves == 0 and better.tolist() == np.asarray(slots).tolist()

"""Evaluator.score_many equals Evaluator.score row by row, bit for bit."""

import numpy as np
import pytest

from core.presets import preset
from core.registry import run_scheduler
from core.simulator.capacity import Evaluator

PRESETS = (
    "wordcount",
    "exclamation",
    "top-storm-wordcount-s3-w3",
    "lf-star-x10",  # Storm 1.2.3: batching and per-worker JVM CPU
    "lf-diamond-lsp",
    "lf-star-x10-lsp",
    "rstorm-diamond",  # two racks
    "rollingcount",  # fixed per-executor overheads
)


def _candidates(ev: Evaluator, base: np.ndarray, seed: int = 0) -> np.ndarray:
    """Single moves from ``base``, random placements and crowded ones (a quarter of the slots)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(12):
        row = base.copy()
        row[rng.integers(len(row))] = rng.integers(ev.nodes.slots)
        rows.append(row)
    rows += [rng.integers(0, ev.nodes.slots, len(base)) for _ in range(6)]
    rows += [rng.integers(0, max(1, ev.nodes.slots // 4), len(base)) for _ in range(6)]
    return np.array(rows)


@pytest.mark.parametrize("name", PRESETS)
def test_score_many_equals_score_on_every_row(name):
    sc = preset(name)
    ev = Evaluator(sc)
    rows = _candidates(ev, ev.encode(run_scheduler(sc, "even").placement()))
    for rate in (None, 1.0, 1e9):
        many = ev.score_many(rows, rate)
        assert many == [ev.score(row, rate) for row in rows]
    assert len({s.max_rate for s in many}) > 1  # the rows differ


def test_score_many_of_no_rows_is_empty():
    ev = Evaluator(preset("wordcount"))
    assert ev.score_many(np.zeros((0, len(ev.executors)), dtype=np.int64)) == []


def test_score_many_equals_score_with_acks_returning_to_the_spouts(wordcount_acked):
    for network in ({}, {"batch_size": 100, "worker_cpu_cores": 0.05}):
        sc = wordcount_acked.model_copy(
            update={"network": wordcount_acked.network.model_copy(update=network)}
        )
        ev = Evaluator(sc)
        assert ev.path.ack is not None
        rows = _candidates(ev, ev.encode(run_scheduler(sc, "even").placement()), seed=1)
        for rate in (None, 1.0, 1e9):
            assert ev.score_many(rows, rate) == [ev.score(row, rate) for row in rows]

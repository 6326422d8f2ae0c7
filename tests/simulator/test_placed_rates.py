"""The fast per-placement rates and scores equal the straightforward ones, bit for bit."""

import numpy as np
import pytest

from core.presets import preset
from core.simulator.capacity import Evaluator
from core.simulator.placed_rates import placed_unit_rates, placed_unit_rates_many, rate_plan
from core.simulator.rates import unit_rates

LSP_PRESETS = ("lf-linear-lsp", "lf-diamond-lsp", "lf-star-x10-lsp")


def _random_slots(ev: Evaluator, count: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, ev.nodes.slots, len(ev.executors)) for _ in range(count)]


@pytest.mark.parametrize("name", LSP_PRESETS)
def test_placed_unit_rates_equal_unit_rates_exactly(name):
    ev = Evaluator(preset(name))
    plan = rate_plan(ev.table)
    kept = 0.0
    for slots in _random_slots(ev, 20):
        fast = placed_unit_rates(plan, slots, ev.nodes.slots)
        slow = unit_rates(ev.table, slots)
        for field in ("arrival", "src_out", "out_total", "weight_total", "local_total"):
            assert np.array_equal(getattr(fast, field), getattr(slow, field)), field
        kept += fast.local_total.sum()
    assert kept > 0  # some placements kept local-or-shuffle traffic in its worker


@pytest.mark.parametrize("name", LSP_PRESETS)
def test_placed_unit_rates_many_equal_placed_unit_rates_row_by_row(name):
    ev = Evaluator(preset(name))
    plan = rate_plan(ev.table)
    rows = np.array(_random_slots(ev, 20, seed=1))
    many = placed_unit_rates_many(plan, rows, ev.nodes.slots)
    for b, slots in enumerate(rows):
        one = placed_unit_rates(plan, slots, ev.nodes.slots)
        fields = (one.arrival, one.src_out, one.out_total, one.local_total)
        for got, want in zip(many, fields, strict=True):
            assert np.array_equal(got[b], want)
    assert many[3].sum() > 0  # some rows kept local-or-shuffle traffic in their worker

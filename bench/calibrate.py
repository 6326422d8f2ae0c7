"""Fit slotscope's global transfer constants to the declared training claims.

``python -m bench.calibrate`` fits the per-hop latencies of the network model
(:class:`core.model.Network`: ``intra_worker_us`` and ``inter_node_us``; the
inter-worker latency follows the intra-worker one, as both are queue
hand-offs in Storm 1.x) to the claims marked ``training`` in
:mod:`core.claims`, by a grid search in log space that minimises the sum of
squared log ratios. It prints the fit, the residual of each training claim,
and every other latency claim as a check (never fitted).

Two constants, two training figures (L/F's page-view mean latencies under
even and L/F, Storm 1.2.3): the fit is exact when the model can produce
both, so the residuals of the checks are what says whether the constants
transfer. Nothing here changes the defaults: adopting a fit is a
change to :class:`core.model.Network`, reviewed like any other, citing this
script and its output.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from functools import cache

import numpy as np

from core.claims import CLAIMS, Claim
from core.model import with_changes
from core.presets import preset
from core.reproduce import MEASURES, Figures, measure_placement
from core.schedulers import run_scheduler

PARAMETERS = ("intra_worker_us", "inter_node_us")
GRID = {  # us, log-spaced: from Storm 2's 1 us hand-off to a 10 ms flush interval
    "intra_worker_us": np.geomspace(1.0, 5_000.0, 13),
    "inter_node_us": np.geomspace(100.0, 20_000.0, 13),
}
LATENCY_MEASURES = ("latency_ms", "latency_gain", "p99_gain", "latency_reduction")


def network_overrides(values: Mapping[str, float]) -> dict[str, float]:
    """The Network fields a fit sets (inter-worker follows intra-worker)."""
    out = dict(values)
    out["inter_worker_us"] = values["intra_worker_us"]
    return out


@cache
def placement(name: str, scheduler: str):
    """A scheduler's placement of a preset (none of them reads transfer latencies)."""
    return run_scheduler(preset(name), scheduler)


def figures_with(name: str, scheduler: str, values: Mapping[str, float]) -> Figures:
    scenario = preset(name)
    network = scenario.network.model_copy(update=network_overrides(values))
    scenario = with_changes(scenario, network=network)
    return measure_placement(scenario, placement(name, scheduler))


def claim_value(claim: Claim, values: Mapping[str, float]) -> float:
    results = []
    for name in claim.presets:
        subject = figures_with(name, claim.subject, values)
        baseline = figures_with(name, claim.baseline, values) if claim.baseline else None
        results.append(MEASURES[claim.measure](claim, subject, baseline))
    return max(results)


def loss(claims: Sequence[Claim], values: Mapping[str, float]) -> float:
    total = 0.0
    for claim in claims:
        value = claim_value(claim, values)
        if not (math.isfinite(value) and value > 0):
            return math.inf
        total += math.log(value / claim.paper_value) ** 2
    return total


def fit(claims: Sequence[Claim]) -> tuple[dict[str, float], float]:
    """The grid point with the least loss, then one finer grid around it."""
    best, best_loss = {}, math.inf
    grid = GRID
    for _ in range(2):
        for point in itertools.product(*(grid[p] for p in PARAMETERS)):
            values = dict(zip(PARAMETERS, map(float, point), strict=True))
            current = loss(claims, values)
            if current < best_loss:
                best, best_loss = values, current
        grid = {p: np.geomspace(best[p] / 1.5, best[p] * 1.5, 7) for p in PARAMETERS}
    return best, best_loss


def main() -> None:
    training = [c for c in CLAIMS if c.training]
    print("training claims:")
    for c in training:
        print(f"  {c.id}: {c.paper_value} ({c.source})")
    values, best = fit(training)
    print("fit: " + ", ".join(f"{k} = {v:,.0f} us" for k, v in values.items()))
    print(f"loss (sum of squared log ratios): {best:.4f}")
    print(f"{'claim':<44} {'paper':>8} {'fitted':>9} {'ratio':>6}")
    checks = [c for c in CLAIMS if c.measure in LATENCY_MEASURES and not c.training]
    for label, claims in (("training", training), ("checks", checks)):
        print(f"-- {label}")
        for c in claims:
            try:
                value = claim_value(c, values)
            except KeyError:
                print(f"{c.id:<44} {c.paper_value:>8.4g}   (preset missing)")
                continue
            print(f"{c.id:<44} {c.paper_value:>8.4g} {value:>9.4g} {value / c.paper_value:>6.2f}")


if __name__ == "__main__":
    main()

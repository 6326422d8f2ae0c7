"""Fit slotscope's global Storm constants to the declared training claims.

``python -m bench.calibrate`` runs two independent fits, each to the claims
marked ``training`` in :mod:`core.claims` whose measure it concerns, by a
grid search in log space (refined around the best point) that minimises the
sum of squared log ratios. Each prints its fit, the residual of every
training claim, and every other claim of its measures as a check (never
fitted).

- **Hop latencies** (:class:`core.model.Network` ``intra_worker_us`` and
  ``inter_node_us``; inter-worker follows intra-worker, as both are queue
  hand-offs in Storm 1.x), trained on L/F's page-view mean latencies under
  even and L/F (14.57 and 12.18 ms). Not adopted: the checks move away from
  the papers (README, "Calibration").
- **Worker JVM CPU** (``worker_cpu_cores``, the CPU a Storm 1.2.3 worker takes
  whatever its tuples), trained on L/F's page-view CPU gain (52.32%, Sec. 4.5).
  Adopted in :data:`core.presets.lf.STORM_1_2_3`; ``tests/test_calibrate.py``
  holds the preset to this fit.

Every fit starts from the presets as they are, so the worker CPU fit sees the
sourced hop latencies and the latency fit sees the adopted worker CPU.
Adopting a fit is a change to a preset or to :class:`core.model.Network`,
reviewed like any other, citing this script and its output.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.claims import CLAIMS, Claim
from core.model import with_changes
from core.presets import preset
from core.reproduce import measure


def _latency_overrides(values: Mapping[str, float]) -> dict[str, float]:
    out = dict(values)
    out["inter_worker_us"] = values["intra_worker_us"]
    return out


@dataclass(frozen=True)
class Fit:
    """Which Network constants one fit sets, over which grid, against which claims."""

    name: str
    unit: str
    grid: Mapping[str, np.ndarray]
    measures: tuple[str, ...]
    overrides: Callable[[Mapping[str, float]], dict[str, float]] = dict

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(self.grid)

    def training(self, claims: Sequence[Claim] = CLAIMS) -> list[Claim]:
        return [c for c in claims if c.training and c.measure in self.measures]

    def checks(self, claims: Sequence[Claim] = CLAIMS) -> list[Claim]:
        return [c for c in claims if not c.training and c.measure in self.measures]


LATENCY = Fit(
    name="hop latencies",
    unit="us",
    grid={  # us, log-spaced: from Storm 2's 1 us hand-off to a 10 ms flush interval
        "intra_worker_us": np.geomspace(1.0, 5_000.0, 13),
        "inter_node_us": np.geomspace(100.0, 20_000.0, 13),
    },
    measures=("latency_ms", "latency_gain", "p99_gain", "latency_reduction"),
    overrides=_latency_overrides,
)
WORKER_CPU = Fit(
    name="worker JVM CPU",
    unit="cores",
    grid={"worker_cpu_cores": np.geomspace(1e-4, 1.0, 17)},  # 0.01% of a core .. one core
    measures=("cpu_gain",),
)
FITS = (LATENCY, WORKER_CPU)
REFINEMENTS = 3  # finer grids around the best point, each spanning the last grid's step


def claim_value(claim: Claim, fit: Fit, values: Mapping[str, float]) -> float:
    """The claim's figure with the fit's constants set on every preset it runs.

    The schedulers run again on the changed scenario: some of them (slotscope,
    optimal) score placements with these very constants.
    """
    overrides = fit.overrides(values)

    def scenario_of(name: str):
        scenario = preset(name)
        return with_changes(scenario, network=scenario.network.model_copy(update=overrides))

    return measure(claim, scenario_of)


def loss(claims: Sequence[Claim], fit: Fit, values: Mapping[str, float]) -> float:
    total = 0.0
    for claim in claims:
        value = claim_value(claim, fit, values)
        if not (math.isfinite(value) and value > 0):
            return math.inf
        total += math.log(value / claim.paper_value) ** 2
    return total


def fit_values(fit: Fit, claims: Sequence[Claim]) -> tuple[dict[str, float], float]:
    """The grid point with the least loss, then finer grids around it."""
    best, best_loss = {}, math.inf
    grid = dict(fit.grid)
    for _ in range(REFINEMENTS + 1):
        for point in itertools.product(*(grid[p] for p in fit.parameters)):
            values = dict(zip(fit.parameters, map(float, point), strict=True))
            current = loss(claims, fit, values)
            if current < best_loss:
                best, best_loss = values, current
        step = {p: float(grid[p][1] / grid[p][0]) for p in fit.parameters}
        grid = {p: np.geomspace(best[p] / step[p], best[p] * step[p], 7) for p in fit.parameters}
    return best, best_loss


def report(fit: Fit) -> None:
    training = fit.training()
    print(f"== {fit.name}: training claims")
    for c in training:
        print(f"  {c.id}: {c.paper_value} ({c.source})")
    values, best = fit_values(fit, training)
    print("fit: " + ", ".join(f"{k} = {v:.4g} {fit.unit}" for k, v in values.items()))
    print(f"loss (sum of squared log ratios): {best:.4f}")
    print(f"{'claim':<44} {'paper':>8} {'fitted':>9} {'ratio':>6}  in band")
    for label, claims in (("training", training), ("checks", fit.checks())):
        print(f"-- {label}")
        for c in claims:
            try:
                value = claim_value(c, fit, values)
            except KeyError:
                print(f"{c.id:<44} {c.paper_value:>8.4g}   (preset missing)")
                continue
            inside = "yes" if c.band[0] <= value <= c.band[1] else "no"
            ratio = value / c.paper_value
            print(f"{c.id:<44} {c.paper_value:>8.4g} {value:>9.4g} {ratio:>6.2f}  {inside}")


def main() -> None:
    for fit in FITS:
        report(fit)


if __name__ == "__main__":
    main()

"""bench.calibrate: the adopted Storm 1.2.3 worker CPU is the fit to its training claim."""

import pytest

from bench.calibrate import FITS, LATENCY, WORKER_CPU, claim_value, fit_values
from core.claims import CLAIMS
from core.presets.lf import PAGEVIEW_EVEN_HEAP_MB, STORM_1_2_3

# Training claims no fit owns: the presets take a constant from their figure as printed
# (even's used heap on page view, core.presets.lf.PAGEVIEW_EVEN_HEAP_MB: the synthetic and
# page-view workers' used heap is its share per worker).
TAKEN = {
    "lf/pageview-even-memory-mb": PAGEVIEW_EVEN_HEAP_MB[False],
    "lf/pageview-unique-even-memory-mb": PAGEVIEW_EVEN_HEAP_MB[True],
}


def test_every_training_claim_belongs_to_exactly_one_fit_or_gives_a_preset_its_constant():
    training = [c for c in CLAIMS if c.training]
    assert training
    for claim in training:
        owners = sum(claim in fit.training() for fit in FITS)
        if claim.id in TAKEN:
            assert owners == 0 and claim.paper_value == TAKEN[claim.id], claim.id
        else:
            assert owners == 1, claim.id
    assert set(TAKEN) <= {c.id for c in training}  # each is a training claim
    assert [c.id for c in WORKER_CPU.training()] == ["lf/pageview-cpu"]
    assert all(not c.training for fit in FITS for c in fit.checks())


def test_adopted_worker_cpu_is_the_fit_and_reproduces_its_training_claim():
    values, loss = fit_values(WORKER_CPU, WORKER_CPU.training())
    assert STORM_1_2_3["worker_cpu_cores"] == pytest.approx(values["worker_cpu_cores"], rel=0.02)
    assert loss < 1e-4  # one constant, one figure: the fit is exact up to the grid
    (claim,) = WORKER_CPU.training()
    adopted = claim_value(claim, WORKER_CPU, {"worker_cpu_cores": STORM_1_2_3["worker_cpu_cores"]})
    assert adopted == pytest.approx(claim.paper_value, rel=0.01)


def test_worker_cpu_moves_the_cpu_gain_of_fewer_workers_monotonically():
    claim = next(c for c in CLAIMS if c.id == "lf/pageview-unique-cpu")  # a check: 8 vs 4
    gains = [claim_value(claim, WORKER_CPU, {"worker_cpu_cores": a}) for a in (0, 0.01, 0.1, 10)]
    assert gains == sorted(gains)
    assert gains[-1] == pytest.approx(100.0, abs=1.0)  # all JVM: twice the workers, twice the CPU


def test_latency_fit_sets_inter_worker_with_intra_worker():
    assert LATENCY.overrides({"intra_worker_us": 7.0, "inter_node_us": 9.0}) == {
        "intra_worker_us": 7.0,
        "inter_node_us": 9.0,
        "inter_worker_us": 7.0,
    }

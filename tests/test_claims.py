"""The claims table itself: copied figures, one band rule per measure, no duplicates."""

import pytest

from core.claims import (
    ABSOLUTE_FACTOR,
    CLAIMS,
    GAIN_FACTOR,
    PAPERS,
    SAME_POINTS,
    around,
)
from core.presets.top_storm import TABLE_5, preset_name
from core.reproduce import MEASURES, RELATIVE


def test_claim_ids_are_unique():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_every_claim_is_well_formed(claim):
    assert claim.paper in PAPERS
    assert claim.measure in MEASURES
    assert claim.presets
    assert (claim.baseline is not None) == (claim.measure in RELATIVE)
    low, high = claim.band
    assert low <= claim.paper_value <= high


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_bands_follow_one_rule_per_measure(claim):
    """No band is widened or narrowed for one claim."""
    if claim.measure == "nodes_used":
        expected = (claim.paper_value, claim.paper_value)
    elif claim.paper_value == 0:
        expected = (-SAME_POINTS, SAME_POINTS)
    elif claim.measure in RELATIVE:
        expected = around(claim.paper_value, GAIN_FACTOR)
    else:
        expected = around(claim.paper_value, ABSOLUTE_FACTOR)
    assert claim.band == pytest.approx(expected)


def test_around_orders_negative_bands():
    assert around(39, 2) == (19.5, 78)
    assert around(-4, 2) == (-8, -2)


def test_top_storm_table_5_configurations():
    # Table 5: configuration 3 = 3 slots per node, 5 slots required
    assert TABLE_5[3] == (3, 5)
    assert preset_name("wordcount", 1) == "top-storm-wordcount-s5-w5"
    assert preset_name("exclamation", 6) == "top-storm-exclamation-s3-w3"


def test_top_storm_gains_are_the_papers():
    gains = {c.id: c.paper_value for c in CLAIMS if c.id.endswith("-throughput")}
    # Sec. 6.1: "39%", "37%", "39%", "14%", "18%", "8%" (Fig. 9)
    assert [gains[f"top-storm/wordcount-c{i}-throughput"] for i in range(1, 7)] == [
        39, 37, 39, 14, 18, 8,
    ]  # fmt: skip


def test_lf_convention_reproduces_the_papers_own_percentage():
    """L/F's "improves latency by 19.58%" is even / L/F - 1 (14.57 ms vs 12.18 ms)."""
    from core.claims import Claim
    from core.reproduce import Figures

    claim = next(c for c in CLAIMS if c.id == "lf/pageview-latency")
    even = Figures(1, 1, 14.57, 20, 1, 1, 8)
    lf = Figures(1, 1, 12.18, 15, 1, 1, 8)
    assert MEASURES["latency_gain"](claim, lf, even) == pytest.approx(19.58, abs=0.05)
    assert isinstance(claim, Claim)


def test_training_set_is_declared_and_small():
    training = [c.id for c in CLAIMS if c.training]
    assert training == [
        "lf/pageview-even-latency-ms",
        "lf/pageview-lf-latency-ms",
        "lf/pageview-cpu",
    ]

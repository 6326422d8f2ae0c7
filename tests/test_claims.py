"""The claims table itself: copied figures, one band rule per measure, no duplicates."""

import pytest

from core.claims import (
    ABSOLUTE_FACTOR,
    CLAIMS,
    GAIN_FACTOR,
    LF_SHAPES,
    PAPERS,
    SAME_POINTS,
    around,
)
from core.presets.top_storm import TABLE_5, preset_name
from core.reproduce import COUNTS, MEASURES, RELATIVE, Figures, measure


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
    if claim.measure in COUNTS:
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
        "lf/pageview-even-memory-mb",  # the presets' used heap per worker is its figure / 8
        "lf/pageview-unique-even-memory-mb",
    ]


def _claim(cid):
    return next(c for c in CLAIMS if c.id == cid)


def test_lf_fig6_claims_are_the_papers():
    # Sec. 4.2: "3900% for SW linear, 71.78% for SW ascent, 71.02% for SW descent, 32.03%
    # for SW diamond, and 59.45% for SW star"; Fig. 6b: "the same coupling".
    cohesion = {s: _claim(f"lf/{s}-cohesion") for s in LF_SHAPES}
    assert {s: c.paper_value for s, c in cohesion.items()} == {
        "linear": 3900.0, "ascent": 71.78, "descent": 71.02, "diamond": 32.03, "star": 59.45,
    }  # fmt: skip
    for shape, claim in cohesion.items():
        assert (claim.measure, claim.subject, claim.baseline) == ("cohesion_gain", "lf", "even")
        assert claim.presets == (f"lf-{shape}",)
        coupling = _claim(f"lf/{shape}-coupling")
        assert (coupling.measure, coupling.paper_value) == ("coupling_change", 0.0)
        assert coupling.band == (-SAME_POINTS, SAME_POINTS)
    # with Storm 1.2.3's ackers in the walk all ten reproduce (star: 8 pipelines, coupling
    # 1.0 as even's; tests/schedulers/test_lf.py), so none carries a known gap
    for shape in LF_SHAPES:
        assert not _claim(f"lf/{shape}-coupling").known_gap
        assert not _claim(f"lf/{shape}-cohesion").known_gap


def test_lf_page_view_claims_carry_no_known_gap():
    # Sec. 4.5, Figs. 12-13: measured as ThroughputVsLatency measures (complete latency with
    # Storm 1.2.3's one acker per worker, used heap per worker), all twelve reproduce
    page_view = [c for c in CLAIMS if c.id.startswith("lf/pageview") and "-cpu-s" not in c.id]
    assert len(page_view) == 16  # with the absolute memory of Figs. 12f, 13f
    assert [c.id for c in page_view if c.known_gap] == []


def test_lf_page_view_absolute_resources_are_the_papers():
    # Sec. 4.5: "The R_U_CPU of the even job scheduler is 38.94 s on average, and that of
    # the L/F job scheduler is 25.56 s [...] The R_U_Mem of the even job scheduler is 591.2 MB
    # on average, and that of the L/F job scheduler is 298.5 MB"; Fig. 13: 32.62 / 23.97 s,
    # 592.5 / 299.1 MB
    values = {c.id: c.paper_value for c in CLAIMS if c.measure in ("cpu_seconds", "memory_mb")}
    assert values == {
        "lf/pageview-even-cpu-s": 38.94, "lf/pageview-even-memory-mb": 591.2,
        "lf/pageview-lf-cpu-s": 25.56, "lf/pageview-lf-memory-mb": 298.5,
        "lf/pageview-unique-even-cpu-s": 32.62, "lf/pageview-unique-even-memory-mb": 592.5,
        "lf/pageview-unique-lf-cpu-s": 23.97, "lf/pageview-unique-lf-memory-mb": 299.1,
    }  # fmt: skip
    for cid in values:
        assert _claim(cid).baseline is None and _claim(cid).measure not in RELATIVE


def test_lf_cpu_seconds_are_cores_over_the_10_s_bucket():
    """ThroughputVsLatency sums the workers' CPU ms per metrics bucket; L/F's is 10 s."""
    claim = _claim("lf/pageview-even-cpu-s")
    busy = Figures(1, 1, 1, 1, 3.894, 591.2, 8)  # 3.894 cores busy
    assert MEASURES["cpu_seconds"](claim, busy, None) == pytest.approx(38.94)
    assert MEASURES["memory_mb"](_claim("lf/pageview-lf-memory-mb"), busy, None) == 591.2


def test_cohesion_and_coupling_measures_by_hand():
    # lf-linear: 7 streams of 1 executor each. even: all on other workers, 7 x 1/40 =
    # 0.175; L/F: one worker, 7 x 1 = 7: (7 / 0.175 - 1) x 100 = 3900% (Fig. 6a).
    even = Figures(1, 1, 1, 1, 1, 1, 8, cohesion=0.175, coupling=0.0)
    lf = Figures(1, 1, 1, 1, 1, 1, 1, cohesion=7.0, coupling=0.0)
    claim = _claim("lf/linear-cohesion")
    assert MEASURES["cohesion_gain"](claim, lf, even) == pytest.approx(3900.0)
    # no coupling on either side is "the same", not 0 / 0
    assert MEASURES["coupling_change"](claim, lf, even) == 0.0
    # star's text walk without ackers: 12.7 against even's 1.0 (tests/schedulers/test_lf.py)
    walk = Figures(1, 1, 1, 1, 1, 1, 8, coupling=12.7)
    star = Figures(1, 1, 1, 1, 1, 1, 8, coupling=1.0)
    assert MEASURES["coupling_change"](claim, walk, star) == pytest.approx(1170.0)


def test_bolt_instance_measures_read_the_bolts_in_order():
    f = Figures(1, 1, 1, 1, 1, 1, 3, bolt_instances=(5, 4))
    claim = _claim("nasiri/rollingcount-bolt1-instances")
    assert (
        MEASURES["bolt1_instances"](claim, f, None),
        MEASURES["bolt2_instances"](claim, f, None),
    ) == (5.0, 4.0)


def test_top_storm_rstorm_slightly_better_claims():
    # Sec. 6.2: R-Storm's results exist for WordCount configurations 1-3 only, and "R-Storm
    # performs slightly better than TOP-Storm": no figure, so "about the same".
    for config in (1, 2, 3):
        claim = _claim(f"top-storm/wordcount-c{config}-vs-rstorm")
        assert claim.presets == (preset_name("wordcount", config),)
        assert (claim.subject, claim.baseline) == ("ras-default", "top-storm")
        assert (claim.measure, claim.paper_value) == ("throughput_gain", 0.0)


def test_nasiri_fig13_and_simulation_claims_are_the_papers_and_not_run():
    # Fig. 13: RollingCount <5,4>, UniqueVisitor <4,5>, 2% below the optimal <5,5>.
    pairs = {
        topo: tuple(_claim(f"nasiri/{topo}-bolt{i}-instances").paper_value for i in (1, 2))
        for topo in ("rollingcount", "uniquevisitor")
    }
    assert pairs == {"rollingcount": (5.0, 4.0), "uniquevisitor": (4.0, 5.0)}
    assert _claim("nasiri/uniquevisitor-vs-optimal").paper_value == -2.0
    # Figs. 18-20: 26-49%, 36-48%, 27-31% throughput gains; the claims take the upper end.
    ranges = {1: (26, 49), 2: (36, 48), 3: (27, 31)}
    for scenario, (low, high) in ranges.items():
        claim = _claim(f"nasiri/scenario{scenario}-throughput")
        assert claim.paper_value == high
        assert f"{low}% to {high}%" in claim.text
        assert "Table 4" in claim.not_run
    for topo in ("rollingcount", "uniquevisitor"):
        assert "Table 2" in _claim(f"nasiri/{topo}-bolt1-instances").not_run


def test_a_fig6_claim_evaluates_to_the_papers_cohesion_gain():
    assert round(measure(_claim("lf/star-cohesion")), 2) == 59.45


def test_every_known_gap_and_not_run_entry_names_a_claim():
    from core.claims import KNOWN_GAPS, NOT_RUN

    ids = {c.id for c in CLAIMS}
    assert set(KNOWN_GAPS) <= ids and set(NOT_RUN) <= ids
    assert all(reason.strip() for reason in (*KNOWN_GAPS.values(), *NOT_RUN.values()))
    # a claim that is not run says why in its row as well
    assert all(_claim(cid).known_gap == reason for cid, reason in NOT_RUN.items())


def test_top_storm_wordcount_gaps_name_the_measured_cause():
    # Storm 2.0.0's load-aware shuffle turns the six gains round (measured, with the
    # same claims under storm_version 1.2.3 and the hardware before the CPU table)
    for config in range(1, 7):
        gap = _claim(f"top-storm/wordcount-c{config}-throughput").known_gap
        assert "load-aware shuffle" in gap and "measured 2026-11-25" in gap.lower()
        assert "storm_version 1.2.3" in gap and "smt_yield 0.3" in gap

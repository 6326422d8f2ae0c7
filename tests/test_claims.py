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
    page_view = [
        c
        for c in CLAIMS
        if c.id.startswith("lf/pageview") and "-cpu-s" not in c.id and "-p99-ms" not in c.id
    ]
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


# Issue 22 item 5: every quantitative figure of the papers is a claim. Each value below is
# as the paper prints it (quoted); the invariants hold for the whole set.


def test_every_claims_figure_is_in_its_words_as_printed():
    for claim in CLAIMS:
        if claim.paper_value != 0:  # "the same" claims print no figure
            assert f"{abs(claim.paper_value):g}" in claim.text, claim.id


def test_range_claims_pair_a_low_end_with_its_high_end():
    """A range "X% to Y%": the ``-low`` claim takes the smallest figure over the presets,
    its partner the largest, with the same measure and schedulers, X < Y."""
    by_id = {c.id: c for c in CLAIMS}
    assert {c.over for c in CLAIMS} == {"max", "min"}
    lows = [c for c in CLAIMS if c.over == "min"]
    assert all(c.id.endswith("-low") for c in lows)
    for low in lows:
        high = by_id.get(low.id.removesuffix("-low"))
        if high is None:  # Nasiri's 7-44%: the 44% is Linear's own claim
            high = by_id["nasiri/linear-vs-even"]
            assert set(high.presets) < set(low.presets)
        else:
            assert (high.presets, high.over) == (low.presets, "max")
        assert (low.measure, low.subject, low.baseline) == (
            high.measure, high.subject, high.baseline,
        )  # fmt: skip
        assert low.paper_value < high.paper_value


def test_top_storm_whole_paper_claims_are_the_papers():
    # Abstract: "up to 39%"; Sec. 7: "outperformed default scheduler in average throughput
    # by 4%-39% with up to 80% fewer resources" (all twelve runs)
    twelve = tuple(preset_name(t, c) for t in ("wordcount", "exclamation") for c in range(1, 7))
    low, high = _claim("top-storm/vs-even-low"), _claim("top-storm/vs-even")
    assert (low.paper_value, high.paper_value) == (4.0, 39.0)
    assert low.presets == high.presets == twelve
    fewer = _claim("top-storm/fewer-nodes")
    assert (fewer.paper_value, fewer.measure, fewer.presets) == (80.0, "nodes_reduction", twelve)
    # Sec. 6.1: "the default scheduler which used all 5 nodes", "the default is using 5
    # supervisor nodes", "the default uses 100% available resources"
    for cid, config in (("wordcount-c1", 1), ("wordcount-c3", 3), ("exclamation-c1", 1)):
        claim = _claim(f"top-storm/{cid}-even-nodes")
        assert (claim.subject, claim.measure, claim.paper_value) == ("even", "nodes_used", 5.0)
        assert claim.presets == (preset_name(cid.split("-")[0], config),)
    # Sec. 6.2: R-Storm "divides them to 5 slots" (WordCount), "into 3 slots" (Exclamation)
    workers = {t: _claim(f"top-storm/{t}-rstorm-workers") for t in ("wordcount", "exclamation")}
    assert {t: c.paper_value for t, c in workers.items()} == {"wordcount": 5, "exclamation": 3}
    assert {c.subject for c in workers.values()} == {"ras-default"}


def test_top_storm_nodes_reduction_by_hand():
    # 1 node against the default's 5 is "80% fewer" (Sec. 7); 2 against 5 is 60% ("60% less")
    top, even = Figures(1, 1, 1, 1, 1, 1, 1), Figures(1, 1, 1, 1, 1, 1, 5)
    assert MEASURES["nodes_reduction"](_claim("top-storm/fewer-nodes"), top, even) == 80.0
    two = Figures(1, 1, 1, 1, 1, 1, 2)
    assert MEASURES["nodes_reduction"](_claim("top-storm/fewer-nodes"), two, even) == 60.0


def test_lf_same_throughput_claims_cover_figs_7a_8a_9a():
    # Sec. 4.3: "both schedulers show the similar TP_avg" (Fig. 7a), "the TP_avg of two
    # schedulers is still the same" (Fig. 8a); Sec. 4.4: "still the same TP_avg" (Fig. 9a)
    for suffix, high, lsp, figure in (
        ("lsp", False, True, "Fig. 7a"),
        ("x10-lsp", True, True, "Fig. 8a"),
        ("shuffle", False, False, "Fig. 9a"),
    ):
        for shape in LF_SHAPES:
            claim = _claim(f"lf/{shape}-{suffix}-throughput")
            assert figure in claim.source
            assert claim.presets == (
                f"lf-{shape}" + ("-x10" if high else "") + ("-lsp" if lsp else ""),
            )
            assert (claim.measure, claim.paper_value) == ("throughput_gain", 0.0)
            assert claim.band == (-SAME_POINTS, SAME_POINTS)


def test_lf_high_parallelism_cohesion_has_fig6s_ratios():
    # Sec. 4.2: "Both cohesion and coupling measured in a high parallelism environment are
    # 10 times the results of Figure 6, and the ratios are the same"
    for shape in LF_SHAPES:
        high, low = _claim(f"lf/{shape}-x10-cohesion"), _claim(f"lf/{shape}-cohesion")
        assert high.paper_value == low.paper_value
        assert high.presets == (f"lf-{shape}-x10",)
        assert _claim(f"lf/{shape}-x10-coupling").paper_value == 0.0


def test_lf_processes_used_are_the_papers():
    # Sec. 4.3: "the even job scheduler uses all eight processes, while the L/F job
    # scheduler uses only one process. In the other configurations, both schedulers use
    # eight processes"
    workers = {
        (s, w): _claim(f"lf/{s}-lsp-{w}-workers").paper_value
        for s in LF_SHAPES
        for w in ("even", "lf")
    }
    assert workers.pop(("linear", "lf")) == 1.0
    assert set(workers.values()) == {8.0}
    assert _claim("lf/linear-lsp-lf-workers").measure in COUNTS


def test_lf_similar_resources_outside_linear_at_high_parallelism():
    # Sec. 4.4, Fig. 10d,e: L/F "uses similar resources to the even job scheduler in other
    # workloads" than SW linear
    for shape in LF_SHAPES[1:]:
        for label, kind in (("cpu", "cpu_gain"), ("memory", "memory_gain")):
            claim = _claim(f"lf/{shape}-x10-shuffle-{label}")
            assert (claim.measure, claim.paper_value) == (kind, 0.0)
    assert not any(
        c.id == "lf/linear-x10-shuffle-cpu" for c in CLAIMS
    )  # 53.90%: lf/x10-shuffle-cpu


def test_lf_page_view_p99_figures_are_the_papers():
    # Sec. 4.5: "The LT99% of the even job scheduler shows a lot of fluctuation at about 20
    # milliseconds, but that of the L/F job scheduler shows a stable trend at about 15
    # milliseconds" (Fig. 12d); "about 14 milliseconds [...] about 12 milliseconds" (13d)
    values = {c.id: c.paper_value for c in CLAIMS if c.measure == "p99_ms"}
    assert values == {
        "lf/pageview-even-p99-ms": 20.0, "lf/pageview-lf-p99-ms": 15.0,
        "lf/pageview-unique-even-p99-ms": 14.0, "lf/pageview-unique-lf-p99-ms": 12.0,
    }  # fmt: skip
    for cid in values:
        assert _claim(cid).band == pytest.approx(around(values[cid], ABSOLUTE_FACTOR))


def test_nasiri_added_figures_are_the_papers():
    # Abstract: "7 to 44% throughput enhancement" (44% is Linear's, Fig. 14)
    low = _claim("nasiri/vs-even-low")
    assert (low.paper_value, low.over, low.same_graph) == (7.0, "min", True)
    assert low.presets == ("nasiri-linear", "nasiri-diamond", "nasiri-star")
    # Fig. 13: "<5,4> for RollingCount topology, which exactly is the optimal", "the
    # optimal pair <5,5>" (UniqueVisitor)
    optimal = {
        topo: tuple(_claim(f"nasiri/{topo}-optimal-bolt{i}-instances").paper_value for i in (1, 2))
        for topo in ("rollingcount", "uniquevisitor")
    }
    assert optimal == {"rollingcount": (5.0, 4.0), "uniquevisitor": (5.0, 5.0)}
    # Figs. 18-20: "26% to 49% throughput gain [...] better utilizes the processing
    # resources 10% to 35%", "36% to 48% [...] 31 to 47%", "27% to 31% and 10% to 21%"
    ends = {
        1: ((26, 49), (10, 35)),
        2: ((36, 48), (31, 47)),
        3: ((27, 31), (10, 21)),
    }
    for scenario, (throughput, utilization) in ends.items():
        for name, pair in (("throughput", throughput), ("utilization", utilization)):
            cid = f"nasiri/scenario{scenario}-{name}"
            assert (_claim(f"{cid}-low").paper_value, _claim(cid).paper_value) == pair
            assert "Table 4" in _claim(cid).not_run and "Table 4" in _claim(f"{cid}-low").not_run
    for topo in ("rollingcount", "uniquevisitor"):
        assert "Table 2" in _claim(f"nasiri/{topo}-optimal-bolt1-instances").not_run


def test_a_low_end_claim_takes_the_smallest_figure_over_its_presets(monkeypatch):
    import core.reproduce as rp

    low, high = _claim("top-storm/vs-even-low"), _claim("top-storm/vs-even")
    per_preset = iter(range(len(low.presets)))
    monkeypatch.setattr(rp, "_figures_at", lambda *a, **k: Figures(1, 1, 1, 1, 1, 1, 1))
    monkeypatch.setattr(
        rp, "_preset_rates_over_orders", lambda *a, **k: [1.0 / (1 + next(per_preset) / 100)]
    )
    # preset i: subject R* 1 against baseline 1 / (1 + i%): a gain of i%
    assert rp.measure(low) == pytest.approx(0.0)
    per_preset = iter(range(len(high.presets)))
    assert rp.measure(high) == pytest.approx(len(high.presets) - 1)


def test_top_storm_table_3_indices_follow_eq_2():
    """Table 3 (Sec. 4.2) ranks five machines by Eq. 2 at alpha 0.8 and 0.2. It is no claim
    (no cluster runs on it), so its two printed index columns are checked here."""
    from core.hardware import power_ranks
    from core.model import Node

    # name: (CPU GHz, RAM GB, FLOPs/cycle, # cores), as printed
    table_3 = {
        "Node-A": (2.4, 4, 4, 4),
        "Node-B": (2.8, 8, 4, 4),
        "Node-C": (3.2, 10, 16, 2),
        "Node-D": (3.4, 12, 16, 4),
        "Node-E": (3.2, 16, 8, 8),
    }
    nodes = [
        Node(id=name, ghz=ghz, ram_gb=ram, flops_per_cycle=flops, cores=cores, slots=1)
        for name, (ghz, ram, flops, cores) in table_3.items()
    ]
    cpu_index = {"Node-A": 5, "Node-B": 4, "Node-C": 3, "Node-D": 1, "Node-E": 2}
    memory_index = {"Node-A": 5, "Node-B": 4, "Node-C": 3, "Node-D": 2, "Node-E": 1}
    assert power_ranks(nodes, 0.8) == cpu_index
    assert power_ranks(nodes, 0.2) == memory_index

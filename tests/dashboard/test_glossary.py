"""The page's glossary: every figure of the registry and the page's terms; BogoMIPS said as
such wherever a node's TOP-Storm factor is shown."""

from __future__ import annotations

from core.figures import FIGURES
from core.hardware import processing_speed
from core.presets import preset
from dashboard.editors import column_defs
from dashboard.elements import node_label
from dashboard.glossary import (
    FLOPS_FORMATTER,
    FLOPS_HEADER,
    TERMS,
    entries,
    figure_term,
    is_bogomips,
    section,
    speed_text,
)
from dashboard.rows import NODES


def test_every_figure_of_the_registry_has_its_line_with_unit_and_direction():
    figures = [e for e in entries() if e.kind == "figure"]
    assert len(figures) == len(FIGURES)
    for entry, figure in zip(figures, FIGURES.values(), strict=True):
        assert entry.term == figure_term(figure)
        assert entry.text.startswith(figure.description)
        assert (f"Unit: {figure.unit}" in entry.text) == bool(figure.unit)
        assert (f"{figure.better} is better" in entry.text.lower()) == (figure.better is not None)


def test_the_terms_the_page_shows_are_all_there_once():
    terms = [e.term for e in entries()]
    assert len(terms) == len(set(terms)) == len(TERMS) + len(FIGURES)
    for term in (
        "Max rate R*",
        "p99 latency",
        "p50 / p95 / p99",
        "Headroom",
        "Bottleneck",
        "Saturated",
        "Inter-node",
        "Inter-node traffic",
        "Executor",
        "Worker slot",
        "R_eff",
        "FLOPs/cycle or BogoMIPS",
        "Latency estimate",
    ):
        assert term in terms, term


def test_the_section_lists_terms_then_figures_as_pairs():
    page = section()
    assert page.id == "glossary"
    lists = [c for c in page.children if type(c).__name__ == "Dl"]
    assert [len(dl.children) for dl in lists] == [2 * len(TERMS), 2 * len(FIGURES)]
    assert lists[1].children[0].children == "Throughput"


def test_top_storm_table_4_factors_are_bogomips_and_real_flops_are_not():
    # Table 4: i7-6700 x 8 at 3.40 GHz, "FLOPs/cycle" 6816 = 2 x 3408 MHz: Eq. 1 gives
    # 8 x 3.40 x 6816 = 185,395.2, the paper's 185,395 "GFLOPs"
    assert is_bogomips(6816) and not is_bogomips(16) and not is_bogomips(32)
    assert speed_text(8 * 3.40 * 6816, 6816) == "185,395 (Eq. 1, BogoMIPS)"
    assert speed_text(6 * 2.4 * 16, 16) == "230 GFLOP/s"  # L/F's E5-2620 v3 node


def test_a_top_storm_node_is_labelled_in_bogomips_terms():
    scenario = preset("top-storm-wordcount-s3-w5")
    node = next(n for n in scenario.cluster.nodes if n.id == "i7-8c")
    assert node.flops_per_cycle == 6816
    label = node_label(node)
    assert f"{processing_speed(node):,.0f} (Eq. 1, BogoMIPS) · power" in label
    assert "GFLOP/s" not in label


def test_the_nodes_grid_says_bogomips_in_its_header_tooltip_and_cells():
    col = next(c for c in column_defs(NODES) if c["field"] == "flops_per_cycle")
    assert col["headerName"] == FLOPS_HEADER == "FLOPs/cyc or BogoMIPS"
    assert "BogoMIPS = 2 x the clock in MHz" in col["headerTooltip"]
    assert col["valueFormatter"] == FLOPS_FORMATTER
    assert "' BogoMIPS'" in FLOPS_FORMATTER["function"]
    speed = next(c for c in column_defs(NODES) if c["field"] == "processing_speed")
    assert "not GFLOP/s" in speed["headerTooltip"]

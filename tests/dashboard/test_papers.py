"""The Papers view: one line per claim, filters, the per-paper summary, cached results."""

from __future__ import annotations

import itertools

import pytest
from dash import dcc

from core.claims import CLAIMS, PAPERS
from core.reproduce import Row, judge, reproduce, summary
from dashboard import ids, papers
from dashboard.jobs import ResultCache


def synthetic_rows() -> list[Row]:
    """Every claim with a made-up figure (0.3x to 3x the paper's, or none), judged by
    core.reproduce.judge (1.2x with 0.3x at a per-clock end: sensitive): all verdicts,
    no simulation."""
    factors = itertools.cycle([1.0, 0.3, -1.0, 3.0, 1.2, None])
    rows = []
    for claim, k in zip(CLAIMS, factors, strict=False):
        if k is None:
            rows.append(Row(claim, None, "not run", "made up: no figure"))
        else:
            value = claim.paper_value * k
            ends = (claim.paper_value * 0.3, value) if k == 1.2 else None
            rows.append(Row(claim, value, *judge(claim, value, ends), ends))
    return rows


@pytest.fixture(scope="module")
def rows() -> list[Row]:
    return synthetic_rows()


@pytest.fixture(scope="module")
def view(rows) -> dict:
    return papers.view_of(papers.document([r.to_json() for r in rows], 1.5))


def test_rows_are_one_line_per_claim(view):
    assert [r["id"] for r in view["rows"]] == [c.id for c in CLAIMS]
    columns = [papers.column_def(*c) for c in papers.COLUMNS]
    assert [c["field"] for c in columns] == [
        "paper_name",
        "claim",
        "paper_text",
        "ours_text",
        "verdict_label",
        "why",
    ]
    # one row a claim, all rows as tall: only the claim wraps (onto ROW_HEIGHT's lines)
    assert not any(c.get("autoHeight") for c in columns)
    assert [c["field"] for c in columns if c.get("wrapText")] == ["claim"]
    assert papers.ROW_HEIGHT >= papers.CLAIM_LINES * papers.CLAIM_LINE_PX
    flexible = [c for c in columns if "flex" in c]
    assert [c["field"] for c in flexible] == ["claim"]
    assert flexible[0]["tooltipField"] == "claim"


def test_a_row_shows_the_figures_in_the_papers_convention():
    lf = next(c for c in CLAIMS if c.id == "lf/linear-lsp-latency_gain")
    row = papers.grid_row(Row(lf, 38.34, "direction", "batching").to_json())
    assert (row["paper_name"], row["paper_text"], row["ours_text"]) == ("L/F", "+139%", "+38.3%")
    assert (row["verdict_label"], row["why"]) == ("right way only", "why ›")
    latency = next(c for c in CLAIMS if c.measure == "latency_ms")
    absent = papers.grid_row(Row(latency, None, "not run", "").to_json())
    assert absent["ours_text"] == "–" and absent["paper_text"].endswith(" ms")
    assert absent["why"] == "details ›"


def test_filters_keep_one_paper_and_one_verdict(view):
    rows = view["rows"]
    assert papers.filter_rows(rows, papers.ALL, papers.ALL) == rows
    for paper in PAPERS:
        kept = papers.filter_rows(rows, paper, papers.ALL)
        assert [r["id"] for r in kept] == [c.id for c in CLAIMS if c.paper == paper]
    not_run = papers.filter_rows(rows, papers.ALL, "not run")
    assert not_run and all(r["verdict"] == "not run" for r in not_run)
    both = papers.filter_rows(rows, "lf", "reproduced")
    assert both and all(r["paper"] == "lf" and r["verdict"] == "reproduced" for r in both)
    assert len(both) < len(papers.filter_rows(rows, "lf", papers.ALL))


def test_summary_counts_equal_the_verdict_counts(rows, view):
    counts = papers.verdict_counts(view["rows"])
    by_verdict = summary(rows)
    assert len(by_verdict) == len(papers.VERDICTS)  # every verdict occurs
    for v in papers.VERDICTS:
        assert sum(counts[p][v] for p in counts) == by_verdict[v]
    for p in PAPERS:
        assert sum(counts[p].values()) == sum(c.paper == p for c in CLAIMS)
    figure = papers.summary_figure(view["rows"])
    for bar in figure.data:  # one bar trace per verdict, one bar per paper
        v = next(k for k, label in papers.VERDICT_LABELS.items() if label == bar.name)
        assert sum(bar.x) == by_verdict[v]
    line = papers.status_line(view, None)
    assert line.startswith(f"{len(CLAIMS)} claims: {by_verdict['reproduced']} reproduced")


def test_a_claims_panel_gives_its_reason_and_role():
    gap = next(c for c in CLAIMS if c.known_gap)
    text = str(papers.detail(papers.grid_row(Row(gap, 1.0, "direction", gap.known_gap).to_json())))
    assert gap.known_gap[:60] in text and gap.source in text
    trained = next(c for c in CLAIMS if c.training)
    text = str(papers.detail(papers.grid_row(Row(trained, 1.0, "reproduced").to_json())))
    assert "training" in text and "inside the claim's band" in text


def test_real_claims_of_two_papers_fill_the_rows():
    """nasiri and aniello run in well under a second: their rows as the view shows them."""
    rows = [papers.grid_row(r.to_json()) for r in reproduce("nasiri") + reproduce("aniello")]
    by_id = {r["id"]: r for r in rows}
    assert by_id["nasiri/linear-vs-even"]["paper_text"] == "+44%"
    assert by_id["nasiri/linear-vs-even"]["verdict"] == "reproduced"
    assert by_id["nasiri/linear-vs-optimal"]["ours_text"] == "–"
    assert by_id["nasiri/linear-vs-optimal"]["note"]  # why it did not run


def test_cached_results_are_served_without_computing(tmp_path, rows):
    store = papers.ClaimsStore(ResultCache(tmp_path))
    assert store.latest() is None
    store.store(papers.document([r.to_json() for r in rows], 12.0))
    reopened = papers.ClaimsStore(ResultCache(tmp_path))  # a restarted server
    assert [r["id"] for r in reopened.latest()["rows"]] == [c.id for c in CLAIMS]
    assert reopened.refresh() is False  # cached: nothing to compute
    assert reopened.running_for() is None


def test_another_model_version_does_not_serve_old_verdicts(tmp_path, rows, monkeypatch):
    papers.ClaimsStore(ResultCache(tmp_path)).store(papers.document([], 1.0))
    monkeypatch.setattr(papers, "MODEL_VERSION", "another")
    assert papers.ClaimsStore(ResultCache(tmp_path)).latest() is None


def test_the_section_opens_with_the_cached_results(tmp_path, rows, monkeypatch):
    from dashboard.app import server

    store = papers.ClaimsStore(ResultCache(tmp_path))
    store.store(papers.document([r.to_json() for r in rows], 12.0))
    monkeypatch.setitem(server.extensions, papers.EXTENSION, store)
    with server.app_context():
        section = papers.layout()
    grid = next(c for c in walk(section) if getattr(c, "id", None) == ids.PAPERS_GRID)
    assert len(grid.rowData) == len(CLAIMS)
    assert all("note" not in r for r in grid.rowData)  # reasons come with a click
    poll = next(c for c in walk(section) if isinstance(c, dcc.Interval))
    assert poll.disabled  # nothing running: no polling


def walk(component):
    """A component and everything under it."""
    yield component
    children = getattr(component, "children", None)
    for child in children if isinstance(children, list) else [children]:
        if hasattr(child, "to_plotly_json"):
            yield from walk(child)


def test_a_click_on_a_bar_filters_to_its_paper_and_verdict(view):
    figure = papers.summary_figure(view["rows"])
    bar = next(b for b in figure.data if b.name == "not run")
    point = {"points": [{"customdata": list(bar.customdata[0])}]}
    paper, verdict = papers.filter_by_bar(point)
    assert verdict == "not run" and paper in PAPERS
    assert papers.filter_by_bar({"points": []}) == (papers.no_update, papers.no_update)

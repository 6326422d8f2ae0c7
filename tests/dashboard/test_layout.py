"""The page layout: which view a URL names, and the panels placed before the layout request."""

from dashboard import compute, jobs, layout, panel_content, registry
from dashboard.app import server  # the app as served: every feature's callbacks registered


def test_a_url_query_names_the_preset_and_schedulers():
    name, selected, presenting = layout.view_of("preset=lf-star&schedulers=even,lf")
    assert (name, selected, presenting) == ("lf-star", ["even", "lf"], False)
    name, selected, presenting = layout.view_of("")
    assert (name, selected, presenting) == ("wordcount", registry.default_selection(), False)


def test_the_page_request_places_its_panels_and_the_layout_reuses_them(monkeypatch):
    monkeypatch.setitem(server.config, jobs.WARM_ON_VISIT_CONFIG, False)  # no Spark here
    compute.clear_caches()
    panel_content.panel_content.cache_clear()
    layout.prefetch("preset=lf-star&schedulers=even,lf")
    thread = layout._PREFETCHING[("lf-star", ("even", "lf"))]
    thread.join()
    placed = compute.placed.cache_info().currsize
    assert placed >= 2  # even's and lf's placements, and what their panels show
    referrer = "http://127.0.0.1:8050/?preset=lf-star&schedulers=even,lf"
    with server.test_request_context("/_dash-layout", headers={"Referer": referrer}):
        page = layout.serve()
    assert ("lf-star", ("even", "lf")) not in layout._PREFETCHING
    assert compute.placed.cache_info().currsize == placed  # nothing placed again
    assert "lf-star" in str(page)

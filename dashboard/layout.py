"""The page: top bar, scenario bar, editors, placement panels, charts, glossary.

``serve`` builds the whole page on every page load, panels filled in, so the
first paint needs no callback. It reads the view a shared URL names from the
layout request's Referer (the page's own URL): a stored view (``view=ID``,
:mod:`dashboard.view_state`) with its scenario, edits and imports, rate,
schedulers and parameters, else the preset, schedulers and rate of the query
(a large preset too: its topology set when the page can hold it, as the preset
box loads it, else the default preset); so a link's first paint is already the
linked scenario, never the default preset swapped afterwards. What the first
render cannot carry (the compare pair, the what-if) and a browser that sends no
Referer are left to the scenario bar's restore, which applies the URL after the
first paint.
The request for the page itself starts placing its panels (:func:`prefetch`),
so that work overlaps the browser's loading of the scripts. A large scenario's
panels (placed in the background, :func:`dashboard.jobs.in_background`) are served
pending, done or not, and each panel's poll draws its own: nine panels of
storm-large-cluster-03 (2,174 executors) drawn in the layout made it 11.5 MB.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from dash import dcc, html
from flask import current_app, has_request_context, request

from core.model import Scenario, validate_scenario
from core.presets import PRESETS, preset
from core.registry import SCHEDULERS
from dashboard import (
    charts,
    cluster_view,
    compute,
    editors,
    ids,
    jobs,
    panels,
    papers,
    registry,
    scenario_bar,
    set_page,
    view_state,
)
from dashboard import glossary as page_glossary
from dashboard.cyto_styles import MAP_LEAST_ZOOM
from dashboard.panel_content import scenario_facts
from dashboard.rows import scenario_rows
from dashboard.static_html import static
from dashboard.transfer import PRESENT_DEFAULT, parse_present

log = logging.getLogger(__name__)
DEFAULT_PRESET = "wordcount"
MAP_LEAST_ZOOM_ATTRIBUTE = "data-map-least-zoom"  # on the page's root, read by graph_view.js


def topbar(scenario: Scenario, present_query: str) -> html.Header:
    """The top bar; ``present_query`` is the URL query of this view (without ``present``).
    Its brand and links are display-only HTML, one component each (each component costs
    dash-renderer work on every update of the page: :mod:`dashboard.static_html`)."""
    brand = html.Div(
        className="brand",
        children=[
            html.Span("slot", className="brand-a"),
            html.Span("scope", className="brand-b"),
            html.Span("Storm schedulers, side by side", className="tagline"),
        ],
    )
    links = [
        html.A(
            "Present",
            href=f"{present_query}&present={','.join(PRESENT_DEFAULT)}",
            className="topbar-link",
            title="One pair at a time in large type; arrow keys step through presets, "
            "Escape leaves",
        ),
        html.A(
            "Papers",
            href=f"#{ids.PAPERS_SECTION}",
            className="topbar-link",
            title="Every paper claim beside slotscope's figure",
        ),
        html.A(
            "Cluster",
            href=f"#{ids.CLUSTER_SECTION}",
            className="topbar-link",
            title="A topology set on a large cluster: one cell per node, by rack",
        ),
        html.A("Glossary", href="#glossary", className="topbar-link"),
    ]
    return html.Header(
        className="topbar",
        children=[
            static(brand, "static-html topbar-static"),
            html.Div(
                className="scenario-heading",
                children=[
                    html.Div(scenario.name, id=ids.SCENARIO_TITLE, className="scenario-title"),
                    html.Div(
                        scenario_facts(scenario), id=ids.SCENARIO_FACTS, className="scenario-facts"
                    ),
                ],
            ),
            static(links, "static-html topbar-static"),
        ],
    )


def glossary() -> html.Section:
    """Every term and figure of the page (:mod:`dashboard.glossary`), its lists drawn as
    one component (:mod:`dashboard.static_html`: about a hundred fewer for every update of
    the page to pass over)."""
    section = page_glossary.section()
    return html.Section(static(section.children), id=section.id, className=section.className)


def requested_view() -> tuple[str, list[str], bool]:
    """The preset and schedulers of the page being loaded (its URL), else the defaults,
    and whether it is a presentation (``present=A,B``: that pair only)."""
    referrer = request.referrer if has_request_context() else None
    return view_of(urlparse(referrer).query if referrer else "")


def view_of(query: str) -> tuple[str, list[str], bool]:
    """The preset, schedulers and presentation flag a page URL's query names.

    The preset may be a large one the page can hold (:func:`dashboard.view_state.too_large`
    says none), loaded as the preset box loads it; one too large gives the default preset
    (the scenario bar's restore then says why and opens the Cluster view on it).
    """
    name, selected, pair = None, None, None
    if query:
        asked = view_state.read_query(query)
        name = asked.preset if view_state.loaded_kind(asked.preset) == "preset" else None
        selected = asked.schedulers
        pair = parse_present(query, SCHEDULERS)
    default = DEFAULT_PRESET if DEFAULT_PRESET in PRESETS else next(iter(PRESETS))
    if pair:
        return name or default, pair, True
    return (
        name or default,
        selected if selected is not None else registry.default_selection(),
        False,
    )


@dataclass(frozen=True)
class FirstView:
    """What the page's first render shows: the preset box's value, the scenario, the
    selected schedulers with their parameters, the offered rate (tuples/s per spout), the
    URL query this view is linked by, and whether it is a presentation."""

    loaded: str
    scenario: Scenario
    selected: list[str]
    params: dict[str, dict[str, Any]]
    rate: float
    query: str
    presenting: bool = False
    key: tuple[str, ...] = field(default=())


def first_view(query: str) -> FirstView:
    """The view a page URL's query names, as its first render shows it.

    A stored view (``view=ID``) brings its scenario (edited, imported or uploaded),
    rate, schedulers and parameters; a ``present`` pair still replaces its schedulers.
    A view that cannot be loaded falls back to the plain fields (the scenario bar's
    restore then says why). The plain fields: preset, schedulers, and ``rate`` when
    it is a positive number.
    """
    name, selected, presenting = view_of(query)
    asked = view_state.read_query(query)
    if asked.view:
        try:
            stored = view_state.store().load(asked.view)
        except view_state.ViewError:
            stored = None
        if stored is not None:
            data = stored.scenario or view_state.base_scenario(stored.loaded)
            chosen = selected if presenting else list(stored.schedulers)
            return FirstView(
                loaded=stored.loaded,
                scenario=validate_scenario(data),
                selected=chosen,
                params=registry.params_for(chosen, stored.params),
                rate=stored.rate,
                query=view_state.query_of(stored, asked.view),
                presenting=presenting,
                key=(asked.view, *chosen),
            )
    scenario = preset(name)
    return FirstView(
        loaded=name,
        scenario=scenario,
        selected=selected,
        params=registry.default_params(selected),
        rate=asked.rate or scenario.workload.rate,
        query=f"?preset={name}",
        presenting=presenting,
        key=(name, *selected),
    )


PREFETCH_THREADS = 2  # page views placed ahead of their layout request at once, at most
PREFETCH_KEPT = 32  # finished prefetches remembered for their layout request, at most
PREFETCH_WAIT_S = 30.0  # the layout request waits this long for its prefetch, at most

# Page loads whose panels are being (or were) placed while the browser fetches the scripts:
# only started threads are entered, under the lock, so a layout request never joins a
# thread that has not started.
_PREFETCHING: dict[tuple[str, tuple[str, ...]], threading.Thread] = {}
_PREFETCH_LOCK = threading.Lock()
_PREFETCH_SLOTS = threading.BoundedSemaphore(PREFETCH_THREADS)


def prefetch(query: str) -> bool:
    """Start placing the panels of the page a URL query names, in a thread; True if started.

    Called when the browser asks for the page itself: the browser then spends
    about a second fetching and compiling the scripts before it asks for the
    layout (:func:`serve`), which waits for this thread and finds every
    placement in the caches instead of computing it then. At most
    ``PREFETCH_THREADS`` run at once; a page load beyond them (or of a view
    already being placed) starts nothing, and its layout request places the
    panels itself.
    """
    view = first_view(query)
    key = _prefetch_key(view)
    with _PREFETCH_LOCK:
        if key in _PREFETCHING or not _PREFETCH_SLOTS.acquire(blocking=False):
            return False
        thread = threading.Thread(
            target=_place_panels_then_release,
            args=key,
            name="slotscope-prefetch",
            daemon=True,
        )
        try:
            thread.start()
        except RuntimeError:  # no thread to be had: the layout request places the panels
            _PREFETCH_SLOTS.release()
            return False
        _PREFETCHING[key] = thread
        _forget_finished()
    return True


def _forget_finished() -> None:
    """Drop the oldest finished prefetches beyond ``PREFETCH_KEPT`` (their page never
    asked for its layout); call with the lock held."""
    finished = [k for k, t in _PREFETCHING.items() if not t.is_alive()]
    for k in finished[: max(0, len(_PREFETCHING) - PREFETCH_KEPT)]:
        del _PREFETCHING[k]


def _prefetch_key(view: FirstView) -> tuple[str, tuple[str, ...]]:
    """A prefetch's key: the preset (or stored view id) and the schedulers."""
    return view.key[0], tuple(view.key[1:])


def _place_panels_then_release(name: str, selected: tuple[str, ...]) -> None:
    try:
        _place_panels(name, list(selected))
    except Exception:  # the layout request computes (and reports) it again
        log.exception("prefetch of %s failed", name)
    finally:
        _PREFETCH_SLOTS.release()


def await_prefetch(name: str, selected: Sequence[str]) -> None:
    """Wait (``PREFETCH_WAIT_S`` at most) for the prefetch of this view (its preset or
    stored view id, and schedulers), if one started."""
    with _PREFETCH_LOCK:
        placing = _PREFETCHING.pop((name, tuple(selected)), None)
    if placing is not None:
        placing.join(PREFETCH_WAIT_S)  # its placements are in the caches: the panels reuse them


def _place_panels(name: str, selected: list[str]) -> None:
    """Place the panels of a preset's view (at its own rate) or of a stored view (``name``
    its id), the caches keeping the placements for the layout request."""
    if view_state.loaded_kind(name) == "preset":  # a preset's name, large or not
        scenario, params, rate = preset(name), registry.default_params(selected), None
    else:
        stored = view_state.store().load(name)
        scenario = validate_scenario(stored.scenario or view_state.base_scenario(stored.loaded))
        params, rate = registry.params_for(selected, stored.params), stored.rate
    data = scenario.to_json_dict()
    panels.layout(
        data,
        selected,
        params,
        rate if rate is not None else scenario.workload.rate,
        wait_s=0.0,  # searches are queued in the background pool, not waited for here
        draw_placed=draws_placed(data, selected),
    )


def draws_placed(data: dict[str, Any], selected: Sequence[str]) -> bool:
    """Whether the page's first layout draws the background placements already done: not
    when the scenario is large (every panel placed in the background); its panels are
    then served pending and each poll draws one, so the layout stays the size of its
    scenario (storm-large-cluster-03, 2,174 executors: 0.65 MB, against 11.5 MB with its
    nine panels drawn, about 1.25 MB each)."""
    text = compute.canonical(data)
    return not any(jobs.in_background(s, text) for s in selected if s not in compute.SEARCHES)


def serve() -> html.Div:
    """The page, with a filled-in panel for every selected scheduler.

    The first page served also warms Spark up in the job pool (a server started by
    gunicorn rather than ``run`` has not), unless the app's config turns that off.
    """
    if has_request_context() and current_app.config.get(jobs.WARM_ON_VISIT_CONFIG, True):
        jobs.job_pool().warm(current_app.config.get(jobs.MASTER_CONFIG))
    referrer = request.referrer if has_request_context() else None
    view = first_view(urlparse(referrer).query if referrer else "")
    await_prefetch(*_prefetch_key(view))
    scenario, selected, params, rate = view.scenario, view.selected, view.params, view.rate
    data = scenario.to_json_dict()
    draw_placed = draws_placed(data, selected)
    return html.Div(
        className="page present" if view.presenting else "page",
        # the least zoom a placement map is drawn at, for assets/graph_view.js
        **{MAP_LEAST_ZOOM_ATTRIBUTE: str(MAP_LEAST_ZOOM)},
        children=[
            html.Div(id=ids.PRESENT_PRESETS, hidden=True, **{"data-presets": ",".join(PRESETS)}),
            dcc.Location(id=ids.URL, refresh=False),
            dcc.Store(id=ids.BASE_STORE, data=data),
            dcc.Store(id=ids.SCENARIO_STORE, data=data),
            dcc.Store(id=ids.PARAMS_STORE, data=params),
            dcc.Store(id=ids.JOB_STORE),
            dcc.Store(id=ids.RESULTS_STORE),
            topbar(scenario, view.query),
            html.Main(
                className="content",
                children=[
                    html.P(
                        scenario.description, id=ids.SCENARIO_DESCRIPTION, className="description"
                    ),
                    scenario_bar.layout(view.loaded, selected, params, rate, data),
                    # the placements come before the editors: the first screen shows one
                    # a large scenario's panels are served pending: their polls draw them
                    panels.layout(
                        data,
                        selected,
                        params,
                        rate,
                        wait_s=panels.SERVE_WAIT_S if draw_placed else 0.0,
                        draw_placed=draw_placed,
                    ),
                    editors.layout(scenario_rows(scenario), set_page.shown(scenario)),
                    charts.layout(),
                    papers.layout(),
                    cluster_view.layout(),
                    glossary(),
                ],
            ),
        ],
    )

"""The Dash app: ``app``, its Flask ``server`` (for gunicorn) and ``run``.

Importing this module creates no Spark session: the job pool starts its
threads on first use, and Spark warms up in one of them when ``run`` starts
or (under gunicorn) when the first page is served. (Dash builds the default
page once at import; its ``slotscope`` panel is placed in a background
placement thread, which ends when done.) Serve with one gunicorn worker and
several threads (see Procfile). The Procfile keeps idle connections 75 s
(``--keep-alive``, gunicorn's default is 2 s): gunicorn closes a connection whose
keep-alive ran out even when a request has just arrived on it, which the client
sees as "connection reset" (3 to 16 panel refreshes in 40 to 120 s of
``python -m bench load`` at 2 s; none at 75 s).

Spark's JVM and workers run at a lower CPU priority (``dashboard.jobs.SPARK_NICE``),
so an edit does not wait behind other users' simulations. The background placements
(searches, large scenarios: ``dashboard.jobs.in_background``) run in
``SLOTSCOPE_SEARCH_PROCESSES=N`` search processes of their own at the same lower
priority (the Procfile's ``--env``; ``run`` starts ``SEARCH_PROCESSES`` unless the
variable says otherwise; 0: in the server's background threads), so a search neither
takes the request threads' GIL nor holds up a panel. With
``SLOTSCOPE_PLACEMENT_PROCESSES=N`` (gunicorn's ``--env``, or the environment of
``run``) the other placements are evaluated in N processes of their own
(:func:`dashboard.compute.start_processes`) and the request threads, which share one
GIL, keep to the page's own work; off by default: on the shared 2-core machine it was
measured slower under ``python -m bench load`` (see bench/load.py,
``SLOTSCOPE_LOAD_PROCESSES``).

Resource limits (README, "Limits"): request bodies of ``MAX_REQUEST_BYTES``,
``MAX_REQUEST_THREADS`` requests at once under ``run``, a session cookie for
the simulation queue's per-session bound, and the result cache in a private
per-user directory (:class:`dashboard.jobs.ResultCache`).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import threading
import uuid
from pathlib import Path
from typing import Any

import dash_cytoscape as cyto
from dash import Dash
from flask import Response, request
from flask_caching import Cache
from werkzeug.serving import make_server

from dashboard import (
    charts,
    cluster_view,
    compare,
    compute,
    editors,
    importer,
    jobs,
    layout,
    panels,
    papers,
    ranking,
    scenario_bar,
    simulate,
    transfer,
    whatif,
)

# Modules plotly's JSON encoder and validators read from ``sys.modules`` without importing
# them (``get_module(name, should_load=False)``): imported here, before any request thread
# runs. Otherwise a thread importing one later (Spark's warm-up imports pandas) leaves it half
# initialized for seconds under load, and every page or figure serialized meanwhile is an
# HTTP 500 ("partially initialized module 'pandas' has no attribute 'NaT'").
PLOTLY_PEEKED_MODULES = ("pandas",)
for _name in PLOTLY_PEEKED_MODULES:
    with contextlib.suppress(ImportError):  # not installed: plotly skips it as well
        importlib.import_module(_name)

ASSETS = Path(__file__).resolve().parent.parent / "assets"
# A request body, at most: the largest drop of files the browser sends (base64: 4/3), plus 1 MB.
MAX_REQUEST_THREADS = 16  # requests served at once by ``run`` (werkzeug), at most
MAX_REQUEST_BYTES = importer.MAX_FILES * transfer.UPLOAD_GUARD_BYTES * 4 // 3 + 1_000_000
SEARCH_PROCESSES = jobs.SEARCH_THREADS  # ``run``'s search processes: one per background thread

cyto.load_extra_layouts()  # dagre, and the SVG export of generateImage

app = Dash(
    __name__,
    assets_folder=str(ASSETS),
    title="slotscope",
    update_title=None,
    meta_tags=[{"name": "viewport", "content": "width=device-width, initial-scale=1"}],
)
server = app.server
server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
# comparison results: JSON files in a private (0700) per-user directory
cache = Cache(server, config={"CACHE_TYPE": "dashboard.jobs.ResultCache"})
jobs.install(server, cache)
compute.start_processes(  # the Procfile asks for them
    compute.processes_from_env(), compute.processes_from_env(0, compute.SEARCH_PROCESSES_ENV)
)
papers.install(server, cache)  # the claims' last results, computed off the requests
app.layout = layout.serve


@server.before_request
def _prefetch_page() -> None:
    """The page itself is requested: start placing its panels (see layout.prefetch)."""
    if request.path == app.config.requests_pathname_prefix:
        layout.prefetch(request.query_string.decode())


@server.after_request
def _name_the_session(response: Response) -> Response:
    """Give a browser a session cookie (the simulation queue's per-session limit)."""
    if jobs.SESSION_COOKIE not in request.cookies:
        response.set_cookie(jobs.SESSION_COOKIE, uuid.uuid4().hex, httponly=True, samesite="Lax")
    return response


# The feature modules whose @callback functions this app serves (imported for that).
FEATURES = (
    charts,
    cluster_view,
    compare,
    editors,
    importer,
    panels,
    papers,
    ranking,
    scenario_bar,
    simulate,
    whatif,
)

# Everything imported so far lives as long as the server: keep it out of the
# cyclic collector's full passes, which otherwise take 50-80 ms of each x10
# refresh (measured with bench dashboard; CPython's gc.freeze).
gc.freeze()


def run(
    host: str = "127.0.0.1", port: int = 8050, master: str | None = None, debug: bool = False
) -> None:
    """Serve the dashboard (``MAX_REQUEST_THREADS`` requests at once, unless ``debug``);
    Spark (``master``, default local[*]) warms up in the job pool."""
    server.config[jobs.MASTER_CONFIG] = master
    searches = compute.processes_from_env(SEARCH_PROCESSES, compute.SEARCH_PROCESSES_ENV)
    compute.start_processes(compute.processes_from_env(), searches)
    jobs.job_pool(server).warm(master)
    papers.warm(server)  # the Papers view's claims, unless cached
    if debug:
        app.run(host=host, port=port, debug=True)  # the reloader and dev tools
        return
    bounded_server(host, port).serve_forever()


def bounded_server(host: str, port: int, threads: int = MAX_REQUEST_THREADS) -> Any:
    """Werkzeug's threaded server with at most ``threads`` requests served at once (it
    starts one thread per connection, without a bound); further connections wait in the
    listen queue. gunicorn (Procfile) has its own fixed threads."""
    srv = make_server(host, port, server, threaded=True)
    gate = threading.BoundedSemaphore(threads)
    start_thread, serve_in_thread = srv.process_request, srv.process_request_thread

    def process_request(req: Any, client: Any) -> None:
        gate.acquire()
        try:
            start_thread(req, client)
        except BaseException:
            gate.release()
            raise

    def process_request_thread(req: Any, client: Any) -> None:
        try:
            serve_in_thread(req, client)
        finally:
            gate.release()

    srv.process_request = process_request
    srv.process_request_thread = process_request_thread
    return srv

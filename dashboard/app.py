"""The Dash app: ``app``, its Flask ``server`` (for gunicorn) and ``run``.

Importing this module creates no Spark session and starts no thread: the
job pool starts its threads on first use, and Spark warms up in one of them
when ``run`` starts or (under gunicorn) when the first page is served. Serve
with one gunicorn worker and several threads (see Procfile).
"""

from __future__ import annotations

import gc
import os
import tempfile
from pathlib import Path

import dash_cytoscape as cyto
from dash import Dash
from flask import request
from flask_caching import Cache

from dashboard import (
    charts,
    compare,
    editors,
    importer,
    jobs,
    layout,
    panels,
    ranking,
    scenario_bar,
    simulate,
    whatif,
)

ASSETS = Path(__file__).resolve().parent.parent / "assets"
CACHE_DIR_ENV = "SLOTSCOPE_CACHE_DIR"
CACHE_SIZE = 200  # comparisons kept on disk

cyto.load_extra_layouts()  # dagre, and the SVG export of generateImage

app = Dash(
    __name__,
    assets_folder=str(ASSETS),
    title="slotscope",
    update_title=None,
    meta_tags=[{"name": "viewport", "content": "width=device-width, initial-scale=1"}],
)
server = app.server
cache = Cache(
    server,
    config={
        "CACHE_TYPE": "FileSystemCache",
        "CACHE_DIR": os.environ.get(CACHE_DIR_ENV)
        or str(Path(tempfile.gettempdir()) / "slotscope-cache"),
        "CACHE_DEFAULT_TIMEOUT": 0,
        "CACHE_THRESHOLD": CACHE_SIZE,
    },
)
jobs.install(server, cache)
app.layout = layout.serve


@server.before_request
def _prefetch_page() -> None:
    """The page itself is requested: start placing its panels (see layout.prefetch)."""
    if request.path == app.config.requests_pathname_prefix:
        layout.prefetch(request.query_string.decode())


# The feature modules whose @callback functions this app serves (imported for that).
FEATURES = (charts, compare, editors, importer, panels, ranking, scenario_bar, simulate, whatif)

# Everything imported so far lives as long as the server: keep it out of the
# cyclic collector's full passes, which otherwise take 50-80 ms of each x10
# refresh (measured with bench dashboard; CPython's gc.freeze).
gc.freeze()


def run(
    host: str = "127.0.0.1", port: int = 8050, master: str | None = None, debug: bool = False
) -> None:
    """Serve the dashboard; Spark (``master``, default local[*]) warms up in the job pool."""
    server.config[jobs.MASTER_CONFIG] = master
    jobs.job_pool(server).warm(master)
    app.run(host=host, port=port, debug=debug)

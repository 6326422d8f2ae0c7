"""Browser tests: dash[testing]'s ``dash_duo`` in headless Chromium.

``pytest_setup_options`` is dash's own hook (``dash.testing.newhooks``): the
Options it returns are the ones ``dash_duo`` starts Chrome with, so the
suite runs headless without ``--headless`` on the command line.
``warm_spark`` starts Spark and the job pool's threads before any dash_duo
server: dash_duo's server kills, on teardown, every thread started after it.
"""

from __future__ import annotations

import os
import tempfile

import pytest

from browser.duo_helpers import executor_count, wait_until

# Results of these tests go to a cache of their own, never the user's.
os.environ.setdefault("SLOTSCOPE_CACHE_DIR", tempfile.mkdtemp(prefix="slotscope-test-cache-"))

from dash.testing.application_runners import BaseDashRunner  # noqa: E402

from dashboard.app import server  # noqa: E402  (after the cache directory is chosen)
from dashboard.jobs import WARM_ON_VISIT_CONFIG  # noqa: E402

# Spark starts in ``warm_spark``, before any server: dash_duo kills what starts after it.
server.config[WARM_ON_VISIT_CONFIG] = False

# dash_duo counts its servers' ports up from one number in every process, so two
# pytest-xdist workers serving at once collide ("threaded server failed to start"): each
# worker counts from a range of its own.
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
BaseDashRunner._next_port += 1000 * _WORKER

SPARK_MASTER = "local[2]"


def pytest_setup_options():
    from selenium.webdriver.chrome.options import Options

    o = Options()
    o.add_argument("--headless=new")
    o.add_argument("--no-sandbox")
    o.add_argument("--disable-gpu")
    o.add_argument("--disable-dev-shm-usage")
    o.add_argument("--disable-background-networking")
    o.add_argument("--window-size=1600,1200")
    return o


@pytest.fixture(scope="session")
def warm_spark():
    """Spark (local[2]) and the job pool's threads, started before any dash_duo server."""
    from core import spark
    from dashboard.jobs import MASTER_CONFIG, job_pool, warm_up

    try:
        warm_up(SPARK_MASTER)
    except spark.SparkUnavailable as err:
        pytest.skip(f"Spark is not available here: {err}")
    server.config[MASTER_CONFIG] = SPARK_MASTER
    job_pool(server).prestart()
    return SPARK_MASTER


@pytest.fixture
def page(dash_duo):
    """The dashboard served by dash_duo, loaded, with every panel drawn."""
    from dashboard.app import app
    from dashboard.registry import default_selection

    dash_duo.start_server(app)
    dash_duo.wait_for_element(".panel .cyto-map canvas", timeout=20)
    wait_until(lambda: executor_count(dash_duo, default_selection()[0]) > 0)
    return dash_duo

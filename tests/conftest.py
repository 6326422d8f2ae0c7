"""Shared test builders (in the spirit of Storm's genTopology/genSupervisors)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from core.model import Scenario, validate_scenario


def make_scenario(
    components: list[tuple[str, int]],
    streams: list[tuple[str, str]] | list[tuple[str, str, str]] = (),
    nodes: list[tuple[str, int]] | None = None,
    workers: int | None = None,
    **extra: Any,
) -> Scenario:
    """A scenario from (id, parallelism) components, (from, to[, grouping]) streams
    and (node id, slots) nodes of 4 cores at 3 GHz."""
    nodes = nodes or [("n1", 4)]
    data = {
        "topology": {
            "components": [{"id": c, "parallelism": p} for c, p in components],
            "streams": [
                {"from": s[0], "to": s[1], **({"grouping": s[2]} if len(s) > 2 else {})}
                for s in streams
            ],
            **({"workers": workers} if workers else {}),
        },
        "cluster": {"nodes": [{"id": n, "cores": 4, "ghz": 3.0, "slots": k} for n, k in nodes]},
        **extra,
    }
    return validate_scenario(data)


@pytest.fixture
def wordcount_small() -> Scenario:
    """spout x2 -> split x2 -> count x2 on two nodes of 2 slots, W = 4."""
    return make_scenario(
        [("spout", 2), ("split", 2), ("count", 2)],
        [("spout", "split"), ("split", "count", "fields")],
        nodes=[("n1", 2), ("n2", 2)],
        workers=4,
    )


@pytest.fixture
def build():
    """The make_scenario builder, for tests in any folder."""
    return make_scenario


# Tests resolve Spark's default master to local[2], so the CLI, the dashboard and
# the fixtures below share one session instead of restarting it per master URL.
os.environ.setdefault("SLOTSCOPE_SPARK_MASTER", "local[2]")


@pytest.fixture(scope="session")
def spark():
    """The process's one SparkSession (local[2]), started once for the whole run."""
    from core import spark as runner

    session = runner.get_session()
    yield session


# `make test` runs the suite on two pytest-xdist workers (--dist loadgroup, no groups:
# each test is handed, in collection order, to the first worker free). The browser tests
# run on both, each worker serving dash_duo on ports of its own (tests/browser/conftest.py):
# they are over half the suite's time, so one worker alone would take longer than the
# whole run does now (and pytest 9.2's node ids no longer take xdist 3.8's group suffix,
# pytest-dev/pytest-xdist#1386, so `xdist_group` marks would group nothing).
# Tests that others wait for run first: the Papers view's first test reproduces every
# claim (a minute and a half) and the file's later tests, maybe on the other worker, read
# its results; queued first, it is done before they are reached.
RUN_FIRST = ("test_reproduce_computes_in_the_background_then_a_new_page_shows_results_at_once",)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.name not in RUN_FIRST)  # stable: the rest keep order

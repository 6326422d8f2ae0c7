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


# `make test` runs the suite on two pytest-xdist workers (--dist loadgroup). The
# browser tests share one dash_duo port and one Chromium per run, and the standalone
# Spark cluster tests start JVMs of their own: each group runs on one worker, in order,
# while the other worker takes the rest.
SERIAL_GROUPS = {"browser": "browser", "cluster": "spark-cluster"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker, group in SERIAL_GROUPS.items():
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.xdist_group(group))

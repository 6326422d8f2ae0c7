"""Fixtures of the importer tests (see fixtures/README.md for their sources)."""

from __future__ import annotations

from typing import Any

import pytest
from fixture_files import load


@pytest.fixture
def storm_docs() -> dict[str, Any]:
    """The Storm UI REST API document's topology and supervisor samples, and the UI's
    own visualization fixture (same component ids: spout, split, count)."""
    return {
        "topology": load("storm_docs_topology.json"),
        "visualization": load("storm_ui_topology_visualization.json"),
        "supervisors": load("storm_docs_supervisor_summary.json"),
    }

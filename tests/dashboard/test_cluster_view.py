"""The Cluster view's per-node figures (dashboard/cluster_view.py) on a hand-built set:
two topologies on three nodes in two racks, placed by hand so every sum is known."""

from __future__ import annotations

import numpy as np
import pytest

from core.model import validate_scenario
from core.placement import assignment
from dashboard import cluster_view as cv
from dashboard.cluster_view import (
    clicked_node,
    figure_values,
    grid_figure,
    grid_layout,
    node_aggregates,
    node_slots,
)

NODES = [
    {"id": "a1", "cores": 2, "ghz": 2, "slots": 2, "ram_gb": 2, "rack": "ra"},
    {"id": "b1", "cores": 4, "ghz": 2, "slots": 4, "ram_gb": 4, "rack": "rb"},
    {"id": "a2", "cores": 2, "ghz": 2, "slots": 2, "ram_gb": 1, "rack": "ra"},
]


def _topology(name: str, bolts: int, ackers: int) -> dict:
    return {
        "name": name,
        "workers": 2,
        "ackers": ackers,
        "components": [
            {"id": "s", "parallelism": 1, "memory_mb": 256, "cpu_pct": 50},
            {"id": "b", "parallelism": bolts, "memory_mb": 512, "cpu_pct": 25},
        ],
        "streams": [{"from": "s", "to": "b"}],
    }


@pytest.fixture(scope="module")
def scenario():
    return validate_scenario(
        {"topologies": [_topology("t1", 2, 1), _topology("t2", 1, 0)], "cluster": {"nodes": NODES}}
    )


@pytest.fixture(scope="module")
def aggregates(scenario):
    placed = [
        assignment("t1/s#0", "a1", 0),
        assignment("t1/b#0", "a1", 0),
        assignment("t1/b#1", "b1", 1),
        assignment("t1/__acker#0", "b1", 1),
        assignment("t2/s#0", "b1", 3),
        assignment("t2/b#0", "a1", 1),
    ]
    return node_aggregates(scenario, placed)


def test_sums_per_node_are_the_declared_requests(aggregates):
    # a1: t1/s (50 %, 256) + t1/b (25, 512) + t2/b (25, 512); b1: t1/b + acker (10, 128) + t2/s
    assert aggregates.node_ids == ("a1", "b1", "a2")
    assert aggregates.executors.tolist() == [3, 3, 0]
    assert aggregates.slots_used.tolist() == [2, 2, 0]
    assert aggregates.cpu_used.tolist() == [100.0, 85.0, 0.0]
    assert aggregates.mem_used.tolist() == [1280.0, 896.0, 0.0]
    assert aggregates.cpu_capacity.tolist() == [200.0, 400.0, 200.0]
    assert aggregates.mem_capacity.tolist() == [2048.0, 4096.0, 1024.0]


def test_figures_are_percent_of_capacity_or_counts(aggregates):
    assert figure_values(aggregates, "cpu").tolist() == pytest.approx([50.0, 21.25, 0.0])
    assert figure_values(aggregates, "memory").tolist() == pytest.approx([62.5, 21.875, 0.0])
    assert figure_values(aggregates, "slots").tolist() == [2, 2, 0]
    assert figure_values(aggregates, "executors").tolist() == [3, 3, 0]


def test_a_topology_is_hosted_where_its_executors_are(aggregates):
    assert aggregates.hosts("t1").tolist() == [True, True, False]
    assert aggregates.hosts("t2").tolist() == [True, True, False]
    assert not aggregates.hosts("absent").any()


def test_a_nodes_slots_list_its_executors_by_topology_and_component(aggregates):
    rows = node_slots(aggregates, 1)  # b1
    assert [(r["slot"], r["topology"], r["component"], r["executors"]) for r in rows] == [
        (1, "t1", "__acker", 1),
        (1, "t1", "b", 1),
        (3, "t2", "s", 1),
    ]
    assert sum(r["cpu_pct"] for r in rows) == aggregates.cpu_used[1]
    assert node_slots(aggregates, 2) == []


def test_the_grid_groups_nodes_by_rack_and_wraps_long_racks():
    cells, labels = grid_layout(["ra", "rb", "ra"])
    assert cells.tolist() == [[0, 2], [1, -1]]
    assert labels == ["ra", "rb"]
    cells, labels = grid_layout(["r"] * 5, row_nodes=2)
    assert cells.tolist() == [[0, 1], [2, 3], [4, -1]]
    assert labels == ["r", "", ""]


def test_a_click_on_a_cell_names_its_node_and_the_topology_greys_the_others(aggregates):
    assert clicked_node(aggregates, {"points": [{"x": 1, "y": 0}]}) == 2  # ra's second: a2
    assert clicked_node(aggregates, {"points": [{"x": 1, "y": 1}]}) is None  # an empty cell
    z = np.array(grid_figure(aggregates, "executors", "t1").data[1].z, dtype=float)
    assert z[0, 0] == 3 and np.isnan(z[0, 1]) and z[1, 0] == 3  # a2 hosts no t1: grey


def test_placements_run_in_the_background_once_and_are_kept(scenario, monkeypatch):
    monkeypatch.setattr(cv, "cluster_scenario", lambda name: scenario)
    monkeypatch.setattr(cv, "_RESULTS", {})
    first = cv.cluster_result("hand-built", "even", wait_s=60.0)
    assert isinstance(first, cv.ClusterResult), first
    assert (first.scheduled, first.topologies, first.unfit) == (2, 2, ())
    assert int(first.aggregates.executors.sum()) == 6  # t1: s, b x2, 1 acker; t2: s, b
    assert cv.cluster_result("hand-built", "even", wait_s=0.0) is first  # kept, not placed again


def test_what_did_not_fit_is_listed_in_words_under_the_grid():
    result = cv.ClusterResult(None, scheduled=1, topologies=2, unfit=(("t2", "t2 did not fit"),))
    text = str(cv.unfit_block(result).to_plotly_json())
    assert "1 of 2 topologies scheduled" in text and "1 did not fit" in text
    assert "t2 did not fit" in text


def test_a_large_clusters_cells_are_as_large_as_a_small_ones():
    """storm-large-cluster-02's shape (1,922 nodes, a rack of 380): each node a cell of
    CELL_PX, racks wrapped onto rows of ROW_NODES, the grid taller, not its cells smaller
    (they were 5 px wide in rows of 96)."""
    sizes = [78, 74, 80, 10, 78, 78, 380, 72, 62, 80, 114, 76, 74, 146, 150, 18, 76, 120, 38]
    sizes += [40, 78]  # the preset's racks, in order (its shape only: no placement needed)
    racks = [f"rack-{r:03d}" for r, size in enumerate(sizes) for _ in range(size)]
    assert len(racks) == 1_922
    n = len(racks)
    zeros = np.zeros(n)
    large = cv.NodeAggregates(
        node_ids=tuple(f"n{i}" for i in range(n)),
        racks=tuple(racks),
        slots=np.ones(n, dtype=np.int64),
        cpu_capacity=zeros + 400,
        mem_capacity=zeros + 4096,
        cpu_used=zeros,
        mem_used=zeros,
        slots_used=zeros.astype(np.int64),
        executors=zeros.astype(np.int64),
        topologies=("t",),
        components=("t/s",),
        exec_node=np.zeros(0, dtype=np.int64),
        exec_slot=np.zeros(0, dtype=np.int64),
        exec_topology=np.zeros(0, dtype=np.int64),
        exec_component=np.zeros(0, dtype=np.int64),
        exec_cpu=np.zeros(0),
        exec_mem=np.zeros(0),
    )
    cells, labels = grid_layout(large.racks)
    rows, cols = cells.shape
    assert cols == cv.ROW_NODES == 32 and rows == sum(-(-s // 32) for s in sizes) == 71
    layout = grid_figure(large, "cpu").layout
    margin = layout.margin.l + layout.margin.r
    assert (layout.width - margin - cv.COLORBAR_PX) / cols == cv.CELL_PX >= 14
    assert (layout.height - layout.margin.t - layout.margin.b) / rows == cv.CELL_PX
    assert layout.width == cv.GRID_WIDTH <= 666  # two grids side by side at 1440 px
    assert layout.width == grid_figure(large, "cpu").layout.width  # fixed, not the pane's

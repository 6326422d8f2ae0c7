"""Placement metrics on hand-computed placements."""

import pytest

from core.metrics import cohesion_coupling, edge_locality, placement_metrics
from core.presets import preset
from core.registry import run_scheduler
from core.topology import build_graph


@pytest.fixture
def chain(build):
    """a x2 -> b x2 (shuffle) on two nodes of two slots."""
    return build([("a", 2), ("b", 2)], [("a", "b")], nodes=[("n1", 2), ("n2", 2)])


def test_all_in_one_worker(chain):
    g = build_graph(chain)
    place = {e: ("n1", 0) for e in ("a#0", "a#1", "b#0", "b#1")}
    m = placement_metrics(g, place)
    assert (m.nodes_used, m.slots_used) == (1, 1)
    assert m.executors_per_slot == {"n1:0": 4}
    assert (m.intra_worker_edges, m.inter_worker_edges, m.inter_node_edges) == (4, 0, 0)
    # cohesion: 2 upstream executors x closeness 1; coupling: 4 executors x 1
    assert (m.cohesion, m.coupling) == (2.0, 4.0)


def test_pairs_split_across_nodes(chain):
    g = build_graph(chain)
    place = {"a#0": ("n1", 0), "b#0": ("n1", 0), "a#1": ("n2", 0), "b#1": ("n2", 1)}
    m = placement_metrics(g, place)
    # a#0->b#0 intra, a#0->b#1 inter-node, a#1->b#0 inter-node, a#1->b#1 inter-worker
    assert (m.intra_worker_edges, m.inter_worker_edges, m.inter_node_edges) == (1, 1, 2)
    # a#0 sees b#0 in its worker (1); a#1 only across workers (1/40); coupling all 1/40
    assert m.cohesion == pytest.approx(1 + 1 / 40)
    assert m.coupling == pytest.approx(4 / 40)


def test_inter_node_distance_is_configurable(chain):
    g = build_graph(chain)
    place = {"a#0": ("n1", 0), "a#1": ("n1", 1), "b#0": ("n2", 0), "b#1": ("n2", 1)}
    cohesion, coupling = cohesion_coupling(g, place, inter_worker=10, inter_node=100)
    assert cohesion == pytest.approx(2 / 100)
    assert coupling == pytest.approx(4 / 10)


def test_global_grouping_counts_one_target(build):
    sc = build([("a", 3), ("b", 2)], [("a", "b", "global")], nodes=[("n1", 2)])
    g = build_graph(sc)
    place = {
        "a#0": ("n1", 0),
        "a#1": ("n1", 1),
        "a#2": ("n1", 1),
        "b#0": ("n1", 0),
        "b#1": ("n1", 1),
    }
    assert edge_locality(g, place) == (1, 2, 0)


def test_local_or_shuffle_uses_only_local_targets_when_present(build):
    sc = build([("a", 2), ("b", 2)], [("a", "b", "local-or-shuffle")], nodes=[("n1", 2)])
    g = build_graph(sc)
    place = {"a#0": ("n1", 0), "b#0": ("n1", 0), "a#1": ("n1", 1), "b#1": ("n2", 0)}
    # a#0 -> b#0 only (local); a#1 has none local -> both: b#0 same node, b#1 other node
    assert edge_locality(g, place) == (1, 1, 1)


@pytest.mark.parametrize(
    ("shape", "cohesion", "coupling"),
    [
        ("linear", 0.175, 0.0),
        ("ascent", 16.3, 0.875),
        ("descent", 16.475, 0.875),
        ("diamond", 24.35, 1.0),
        ("star", 16.4, 1.0),
    ],
)
def test_even_cohesion_on_lf_synthetic_workloads(shape, cohesion, coupling):
    # Hand-computed from Storm's round robin over 8 single-slot nodes; these are the
    # baselines the L/F paper's improvement figures are relative to.
    sc = preset(f"lf-{shape}")
    m = placement_metrics(build_graph(sc), run_scheduler(sc, "even").placement())
    assert m.cohesion == pytest.approx(cohesion)
    assert m.coupling == pytest.approx(coupling)
    assert m.nodes_used == 8

"""Cytoscape element builders: scenarios and placements in, elements checked."""

from __future__ import annotations

import pytest

from core.model import with_changes
from core.presets import preset
from core.registry import run_scheduler
from core.topology import build_graph
from dashboard.colors import component_colors
from dashboard.elements import (
    MAX_SLOT_LINKS,
    dag_elements,
    placement_elements,
    slot_links,
    summarised_dag,
    topology_elements,
    traffic_elements,
)
from dashboard.map_geometry import best_columns


def _by_class(elements, cls):
    return [e for e in elements if cls in e.get("classes", "").split()]


def count_by_class(elements, cls) -> int:
    """How many elements carry a class."""
    return len(_by_class(elements, cls))


@pytest.fixture
def pair(build):
    """a x2 -> b x2 on n1 (2 slots) and n2 (2 slots)."""
    return build([("a", 2), ("b", 2)], [("a", "b")], nodes=[("n1", 2), ("n2", 2)], workers=4)


def _map(scenario, placement):
    graph = build_graph(scenario)
    return placement_elements(scenario, graph, placement, component_colors(list(graph.order)))


def test_one_dot_per_executor_in_its_slot_and_component_colour():
    sc = preset("wordcount")
    schedule = run_scheduler(sc, "even")
    graph = build_graph(sc)
    colors = component_colors(list(graph.order))
    elements = placement_elements(sc, graph, schedule.placement(), colors)
    dots = _by_class(elements, "executor")
    assert len(dots) == graph.executor_count == 28
    for dot in dots:
        node, slot = schedule.placement()[dot["data"]["label"]]
        assert dot["data"]["slot"] == f"slot:{node}:{slot}"
        assert dot["data"]["color"] == colors[dot["data"]["component"]]
        assert set(dot["position"]) == {"x", "y"}


def test_every_slot_of_the_cluster_is_drawn_idle_ones_marked():
    sc = preset("wordcount")  # 5 nodes x 4 slots, W = 5
    elements = _map(sc, run_scheduler(sc, "even").placement())
    slots = _by_class(elements, "slot")
    assert len(slots) == 20
    assert len(_by_class(elements, "idle")) == 15
    assert all(s["data"]["executors"] == 0 for s in _by_class(elements, "idle"))
    assert len(_by_class(elements, "machine")) == 5
    assert "power" in _by_class(elements, "machine")[0]["data"]["label"]


def test_nodes_without_executors_are_marked_unused(pair):
    elements = _map(pair, {"a#0": ("n1", 0), "a#1": ("n1", 0), "b#0": ("n1", 1), "b#1": ("n1", 1)})
    assert [m["data"]["node"] for m in _by_class(elements, "unused")] == ["n2"]


def test_inter_node_edges_are_flagged_and_weighted_by_links(pair):
    placement = {"a#0": ("n1", 0), "a#1": ("n1", 0), "b#0": ("n2", 0), "b#1": ("n1", 1)}
    edges = {
        (e["data"]["source"], e["data"]["target"]): e
        for e in _map(pair, placement)
        if "traffic" in e["classes"]
    }
    assert set(edges) == {("slot:n1:0", "slot:n2:0"), ("slot:n1:0", "slot:n1:1")}
    assert "inter-node" in edges[("slot:n1:0", "slot:n2:0")]["classes"]
    assert "inter-worker" in edges[("slot:n1:0", "slot:n1:1")]["classes"]
    assert edges[("slot:n1:0", "slot:n2:0")]["data"]["links"] == 2  # a#0, a#1 -> b#0


def test_intra_worker_links_are_counted_but_not_drawn(pair):
    graph = build_graph(pair)
    placement = {e: ("n1", 0) for e in ("a#0", "a#1", "b#0", "b#1")}
    assert slot_links(graph, placement) == {(("n1", 0), ("n1", 0)): 4}
    assert traffic_elements(graph, placement) == []


def test_local_or_shuffle_stays_in_a_worker_that_holds_a_target(build):
    sc = build([("a", 2), ("b", 2)], [("a", "b", "local-or-shuffle")], nodes=[("n1", 2)], workers=2)
    graph = build_graph(sc)
    placement = {"a#0": ("n1", 0), "b#0": ("n1", 0), "a#1": ("n1", 1), "b#1": ("n1", 0)}
    links = slot_links(graph, placement)
    assert links[(("n1", 0), ("n1", 0))] == 2  # a#0 feeds only its worker's two b's
    assert links[(("n1", 1), ("n1", 0))] == 2  # a#1 has no b in its worker: shuffles to all


def test_global_grouping_feeds_executor_zero_only(build):
    sc = build([("a", 2), ("b", 3)], [("a", "b", "global")], nodes=[("n1", 1), ("n2", 1)])
    placement = {
        "a#0": ("n1", 0),
        "a#1": ("n1", 0),
        "b#0": ("n2", 0),
        "b#1": ("n1", 0),
        "b#2": ("n1", 0),
    }
    assert slot_links(build_graph(sc), placement) == {(("n1", 0), ("n2", 0)): 2}


def test_many_slot_pairs_are_drawn_between_nodes():
    sc = preset("lf-diamond-x10")  # 400 executors spread over 80 slots by even
    graph = build_graph(sc)
    edges = traffic_elements(graph, run_scheduler(sc, "even").placement())
    assert 0 < len(edges) <= 8 * 7 < MAX_SLOT_LINKS
    assert all("by-node" in e["classes"] and e["data"]["source"].startswith("node:") for e in edges)


def test_dag_labels_components_with_parallelism_and_streams_with_grouping():
    sc = preset("wordcount")
    graph = build_graph(sc)
    elements = dag_elements(graph, component_colors(list(graph.order)))
    labels = {e["data"]["id"]: e["data"]["label"] for e in elements}
    assert labels["c:split"] == "split\n×8"
    assert labels["c:__acker"] == "__acker\n×3"
    assert labels["s:split->count"] == "fields"
    assert labels["s:split->__acker"] == ""  # acker streams stay unlabelled
    assert count_by_class(elements, "component") == 4
    assert count_by_class(elements, "stream") == 5


def test_a_large_set_draws_one_box_per_topology_with_its_components_and_executors():
    sc = preset("storm-large-cluster-03")
    graph = build_graph(sc)
    assert summarised_dag(graph) and not summarised_dag(build_graph(preset("wordcount")))
    boxes = topology_elements(graph)
    names = [t.name for t in sc.topologies]
    assert [b["data"]["id"] for b in boxes] == [f"t:{n}" for n in names] + ["t:__acker"]
    first = sc.topologies[0]
    assert boxes[0]["data"]["label"].splitlines() == [
        first.name,
        f"{len(first.components)} components · "
        f"{sum(c.parallelism for c in first.components)} executors",
    ]
    executors = sum(
        int(b["data"]["label"].split("· ")[1].split()[0].replace(",", "")) for b in boxes
    )
    assert executors == sum(graph.parallelism.values())  # every executor in one box, ackers too
    spots = {(b["position"]["x"], b["position"]["y"]) for b in boxes}
    assert len(spots) == len(boxes)  # no two boxes on one spot
    assert all(b["data"]["component"] == f"{n}/" for b, n in zip(boxes, names, strict=False))


def test_dag_shows_a_schedulers_own_parallelism():
    sc = preset("wordcount")
    graph = build_graph(sc, {"split": 3})
    elements = dag_elements(graph, component_colors(list(graph.order)), {**graph.parallelism})
    assert any(e["data"].get("label") == "split\n×3" for e in elements)


def test_grid_columns_fill_a_wide_viewport():
    assert best_columns(5, 100, 100, aspect=2.0) == 3
    assert best_columns(1, 100, 100) == 1
    assert best_columns(8, 400, 50, aspect=1.0) == 1


def _slot_positions(scenario, placement):
    return {
        e["data"]["id"]: e["position"]
        for e in _map(scenario, placement)
        if "slot" in e["classes"].split()
    }


def test_every_schedulers_map_of_a_scenario_has_the_same_geometry():
    sc = preset("wordcount")
    even = _slot_positions(sc, run_scheduler(sc, "even").placement())
    packed = _slot_positions(sc, run_scheduler(sc, "top-storm").placement())
    assert even == packed and len(even) == 20


def test_a_crowded_slot_packs_smaller_dots_inside_its_box(pair):
    crowded = {e: ("n1", 0) for e in ("a#0", "a#1", "b#0", "b#1")}  # share is 1 per slot
    elements = _map(pair, crowded)
    slot = next(e for e in elements if e["data"]["id"] == "slot:n1:0")
    dots = _by_class(elements, "executor")
    assert all(d["data"]["d"] < 10 for d in dots)
    half_w, half_h = slot["data"]["w"] / 2, slot["data"]["h"] / 2
    for d in dots:
        assert abs(d["position"]["x"] - slot["position"]["x"]) <= half_w
        assert abs(d["position"]["y"] - slot["position"]["y"]) <= half_h


def without_ackers(name: str):
    """A preset without the acker per worker the L/F presets run (Storm 1.2.3's default)."""
    sc = preset(name)
    return with_changes(sc, topology=sc.topology.model_copy(update={"ackers": 0}))


def test_large_placements_draw_each_slot_as_a_pie_of_its_executors():
    sc = without_ackers("lf-diamond-x10")  # 400 executors on 8 nodes x 10 slots
    graph = build_graph(sc)
    placement = run_scheduler(sc, "even").placement()
    colors = component_colors(list(graph.order))
    elements = placement_elements(sc, graph, placement, colors)
    assert count_by_class(elements, "executor") == 0
    slots = [e for e in elements if "slot" in e["classes"].split()]
    assert len(slots) == 80 and all("agg" in e["classes"] for e in slots)
    members = [m for e in slots for m in e["data"]["members"].split()]
    assert sorted(members) == sorted(placement)
    for e in slots:  # the pie's slices add up to the whole slot
        d = e["data"]
        if d["members"]:
            assert (
                abs(sum(v for k, v in d.items() if k.endswith("s") and k.startswith("pie")) - 100)
                < 1e-6
            )
            assert d["label"] == str(len(d["members"].split()))


def _inside(inner, outer, margin: float) -> bool:
    """Whether element ``inner``'s box lies ``margin`` px or more inside ``outer``'s."""
    return all(
        abs(inner["position"][axis] - outer["position"][axis])
        <= (outer["data"][size] - inner["data"][size]) / 2 - margin
        for axis, size in (("x", "w"), ("y", "h"))
    )


@pytest.mark.parametrize("name", ["wordcount", "lf-linear-x10", "lf-diamond-x10"])
def test_maps_are_plain_boxes_each_slot_inside_its_node_box(name):
    sc = preset(name)
    elements = _map(sc, run_scheduler(sc, "even").placement())
    assert not [e for e in elements if "parent" in e["data"]]  # no compound node
    boxes = {e["data"]["node"]: e for e in _by_class(elements, "machine")}
    assert len(boxes) == len(sc.cluster.nodes)
    slots = _by_class(elements, "slot")
    assert len(slots) == sum(n.slots for n in sc.cluster.nodes)
    for slot in slots:  # 4 px of slot padding, then a margin
        assert _inside(slot, boxes[slot["data"]["id"].split(":")[1]], 4 + 6), slot["data"]["id"]


def test_a_large_map_has_pies_of_as_many_slices_as_components():
    sc = without_ackers("lf-diamond-x10")  # 8 components
    elements = _map(sc, run_scheduler(sc, "even").placement())
    assert len(build_graph(sc).order) == 8
    pies = _by_class(elements, "agg")
    assert len(pies) == 80 and all("pie8s" in s["data"] and "pie9s" not in s["data"] for s in pies)

"""Cytoscape elements of a panel: the topology DAG and the placement map.

Pure functions: numbers in, element dicts out. The placement map draws
cluster node > worker slot > executor dot as boxes inside boxes, every
position and box size computed here (the ``preset`` layout,
:mod:`dashboard.map_geometry`), so every scheduler's map of one cluster has
the same geometry and differences stand out. They are plain nodes, not
cytoscape compound nodes, whose bounding-box and style passes cost seconds
on the x10 presets; an executor names its slot in its data (``slot``).
Large placements (see :func:`aggregated`) draw a slot as one pie of its
components; clusters of more than ``MAX_SLOT_ELEMENTS`` slots draw one pie
per node and no slots (:func:`node_level`). Traffic between workers is drawn
as one edge per pair of slots (or, when that would be hundreds of edges, per
pair of nodes) weighted by the number of executor-to-executor links it
carries, the ``MAX_TRAFFIC_EDGES`` heaviest. So a map's size is bounded by the
cluster's nodes, never by its executors: at most ~5,000 node boxes and pies
(~2 MB of JSON) at the scenario limits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from core.hardware import computation_power, processing_speed, total_cores
from core.model import ACKER_ID, QUALIFIER, Node, Scenario
from core.topology import TopologyGraph, component_of, index_of
from dashboard.glossary import speed_text
from dashboard.map_geometry import (
    NODE_GAP_X,
    NODE_GAP_Y,
    SLOT_GAP,
    best_columns,
    dot_positions,
    map_geometry,
    node_box,
)

MAX_SLOT_LABELS = 32  # larger clusters leave slots unlabelled (unreadable, and slow to draw)
MAX_SLOT_LINKS = 300  # above this many slot pairs, draw traffic between nodes
AGGREGATE_EXECUTORS = 100  # above this many executors a slot is one pie of its components
AGGREGATE_NODES = 20  # ... and above this many nodes
PIE_SLICES = 16  # cytoscape draws at most 16 pie slices; smaller components share the last
MAX_SLOT_ELEMENTS = 2_000  # above this many slots in the cluster, one pie per node, no slots
MAX_MEMBERS = 64  # executor names a pie carries for drill-down; the rest are counted
MAX_LINK_PAIRS = 20_000  # node pairs traffic is counted over, at most (else no traffic drawn)
MAX_TRAFFIC_EDGES = 300  # traffic edges drawn, the heaviest first
# A set of several topologies with more components than this draws one box per topology
# in a panel's DAG pane (storm-large-cluster-03's 743 components and 1,059 streams in nine
# dagre layouts held the browser ~45 s; the same DAG in every panel says nothing a list
# does not)
MAX_DAG_COMPONENTS = 120
TOPOLOGY_BOX_COLOR = "#475569"
TOPOLOGY_BOX_H = 52
TOPOLOGY_BOX_CHAR_W = 8.6  # px a character of its 14 px semi-bold label takes, at most
NODE_AGG_W, NODE_AGG_H = 210, 90  # px: a node's box when the map shows one pie per node
_PIE_KEYS = tuple((f"pie{i}c", f"pie{i}s") for i in range(1, PIE_SLICES + 1))

Slot = tuple[str, int]


def node_element_id(node: str) -> str:
    return f"node:{node}"


def slot_element_id(node: str, slot: int) -> str:
    return f"slot:{node}:{slot}"


def executor_element_id(executor: str, node: str | None = None, slot: int | None = None) -> str:
    """An executor dot's element id, which names its slot: ``ex:split#0@n1:2``.

    An executor that changes slot is then a new element, drawn where its new slot
    is (when slots were compound parents, a dot kept under the id of a removed
    slot vanished with it). Without a slot, the prefix all of an executor's ids
    share (for selectors).

    >>> executor_element_id("split#0", "n1", 2), executor_element_id("split#0")
    ('ex:split#0@n1:2', 'ex:split#0@')
    """
    prefix = f"ex:{executor}@"
    return prefix if node is None else f"{prefix}{node}:{slot}"


def dag_elements(
    graph: TopologyGraph, colors: Mapping[str, str], parallelism: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    """One node per component (label: id and parallelism), one edge per stream (its grouping)."""
    par = parallelism or graph.parallelism
    out: list[dict[str, Any]] = []
    for c in graph.order:
        kind = "spout" if not graph.preds[c] else "bolt"
        classes = f"component {kind}" + (" acker" if c == ACKER_ID else "")
        label = f"{c}\n×{par[c]}"
        out.append(
            {
                "data": {
                    "id": f"c:{c}",
                    "label": label,
                    "color": colors.get(c, "#888"),
                    "component": c,
                    "parallelism": par[c],
                    "w": 7.5 * max(len(line) for line in label.split("\n")) + 22,
                    "h": 38,
                },
                "classes": classes,
            }
        )
    for s in graph.streams:
        to_acker = s.target == ACKER_ID
        out.append(
            {
                "data": {
                    "id": f"s:{s.source}->{s.target}",
                    "source": f"c:{s.source}",
                    "target": f"c:{s.target}",
                    "label": "" if to_acker else s.grouping,
                },
                "classes": "stream" + (" acker" if to_acker else ""),
            }
        )
    return out


def summarised_dag(graph: TopologyGraph) -> bool:
    """Whether a panel's DAG pane shows one box per topology (:func:`topology_elements`):
    a set of several topologies with more than :data:`MAX_DAG_COMPONENTS` components."""
    return len(graph.order) > MAX_DAG_COMPONENTS and any(QUALIFIER in c for c in graph.order)


def topology_elements(
    graph: TopologyGraph, parallelism: Mapping[str, int] | None = None
) -> list[dict[str, Any]]:
    """A set's DAG pane as one box per topology (its components and executors, in
    ``parallelism``), in the set's order, laid out in rows (``preset`` positions); the
    ackers the set shares are one box more. A box's ``component`` is ``name/``, the prefix
    of its components, so picking a topology on the set page fades the others' boxes.

    >>> from core.presets import preset
    >>> from core.topology import build_graph
    >>> boxes = topology_elements(build_graph(preset("storm-large-cluster-03")))
    >>> len(boxes), boxes[0]["data"]["label"].splitlines()
    (51, ['TopologyName00000', '12 components · 197 executors'])
    """
    par = parallelism or graph.parallelism
    members: dict[str, list[str]] = {}
    for c in graph.order:
        name = c.split(QUALIFIER, 1)[0] if QUALIFIER in c else c
        members.setdefault(name, []).append(c)
    labels = {
        name: f"{name}\n{len(cs)} component{'s' * (len(cs) != 1)} · "
        f"{sum(par[c] for c in cs):,} executors"
        for name, cs in members.items()
    }
    width = max(
        TOPOLOGY_BOX_CHAR_W * max(len(line) for line in label.split("\n")) + 22
        for label in labels.values()
    )
    cols = best_columns(len(labels), width + NODE_GAP_X, TOPOLOGY_BOX_H + NODE_GAP_Y)
    return [
        {
            "data": {
                "id": f"t:{name}",
                "label": label,
                "color": TOPOLOGY_BOX_COLOR,
                "component": f"{name}{QUALIFIER}" if name != ACKER_ID else ACKER_ID,
                "components": len(members[name]),
                "w": width,
                "h": TOPOLOGY_BOX_H,
            },
            "position": {
                "x": (i % cols) * (width + NODE_GAP_X) + width / 2,
                "y": (i // cols) * (TOPOLOGY_BOX_H + NODE_GAP_Y) + TOPOLOGY_BOX_H / 2,
            },
            "classes": "component topology-box" + (" acker" if name == ACKER_ID else ""),
        }
        for i, (name, label) in enumerate(labels.items())
    ]


def stream_slots(graph: TopologyGraph, placement: Mapping[str, Slot]) -> dict[str, list[Slot]]:
    """The slot of each executor of every component a stream connects, in executor order:
    read once per map, for :func:`slot_links` and the pair counts (each
    ``graph.executors`` call builds its executors' names anew)."""
    ends = dict.fromkeys(c for s in graph.streams for c in (s.source, s.target))
    return {c: [placement[e] for e in graph.executors(c)] for c in ends}


def slot_links(
    graph: TopologyGraph,
    placement: Mapping[str, Slot],
    by_node: bool = False,
    slots: Mapping[str, list[Slot]] | None = None,
) -> Counter:
    """Executor-level links per pair of slots (or of nodes), intra-worker pairs included.

    Counts follow :func:`core.metrics.edge_locality`: global feeds executor 0
    only; local-or-shuffle stays inside a worker that holds a target. ``slots``:
    :func:`stream_slots` when the caller has it.
    """
    slots = stream_slots(graph, placement) if slots is None else slots
    links: Counter = Counter()
    for s in graph.streams:
        down_slots = slots[s.target]
        if s.grouping == "global":
            down_slots = down_slots[:1]
        downs = Counter(d[0] for d in down_slots) if by_node else Counter(down_slots)
        if s.grouping == "local-or-shuffle":
            worker_downs = Counter(down_slots)
            for up in slots[s.source]:
                where = up[0] if by_node else up
                if worker_downs[up]:
                    links[(where, where)] += worker_downs[up]
                    continue
                for down, n_down in downs.items():
                    links[(where, down)] += n_down
            continue
        up_slots = slots[s.source]
        ups = Counter(u[0] for u in up_slots) if by_node else Counter(up_slots)
        for up, n_up in ups.items():
            for down, n_down in downs.items():
                links[(up, down)] += n_up * n_down
    return links


def _link_pairs(
    graph: TopologyGraph, slots: Mapping[str, list[Slot]], by_node: bool = False
) -> int:
    """Pairs of slots (or nodes) the streams' executor links connect, an upper bound
    (``slots``: :func:`stream_slots`)."""
    pairs = 0
    for s in graph.streams:
        ups, downs = slots[s.source], slots[s.target]
        if by_node:
            pairs += len({u[0] for u in ups}) * len({d[0] for d in downs})
        else:
            pairs += len(set(ups)) * len(set(downs))
    return pairs


def traffic_elements(graph: TopologyGraph, placement: Mapping[str, Slot]) -> list[dict[str, Any]]:
    """Edges between workers: class ``inter-node`` or ``inter-worker``; width by link count.

    At most ``MAX_TRAFFIC_EDGES``, the heaviest; none when the streams connect more than
    ``MAX_LINK_PAIRS`` pairs of nodes (counting them would take longer than drawing helps).
    """
    slots = stream_slots(graph, placement)
    by_node = _link_pairs(graph, slots) > MAX_SLOT_LINKS
    if by_node and _link_pairs(graph, slots, by_node=True) > MAX_LINK_PAIRS:
        return []
    links = slot_links(graph, placement, by_node=by_node, slots=slots)
    links = {k: v for k, v in links.items() if k[0] != k[1]}
    if len(links) > MAX_TRAFFIC_EDGES:
        heaviest = sorted(links.items(), key=lambda kv: -kv[1])[:MAX_TRAFFIC_EDGES]
        links = dict(heaviest)
    top = max(links.values(), default=1)
    out = []
    for (a, b), count in sorted(links.items(), key=lambda kv: str(kv[0])):
        if by_node:
            src, dst, kind = node_element_id(a), node_element_id(b), "inter-node"
        else:
            src, dst = slot_element_id(*a), slot_element_id(*b)
            kind = "inter-worker" if a[0] == b[0] else "inter-node"
        out.append(
            {
                "data": {
                    "id": f"t:{src}->{dst}",
                    "source": src,
                    "target": dst,
                    "links": count,
                    "width": round(1.0 + 3.5 * count / top, 2),
                    "label": f"{count}",
                },
                "classes": f"traffic {kind}" + (" by-node" if by_node else ""),
            }
        )
    return out


def node_label(node: Node, alpha: float = 0.8) -> str:
    """Two lines: id and hardware; processing speed (GFLOP/s, or TOP-Storm's score when the
    node's factor is BogoMIPS: :func:`dashboard.glossary.speed_text`) and computation power.

    >>> print(node_label(Node(id="n1", cores=4, ghz=3.0, slots=2)))
    n1 · 4c × 3 GHz · 16 GB
    192 GFLOP/s · power 157
    >>> node_label(Node(id="r0", cores=11, ghz=3.0, ram_gb=57.4502, slots=12)).splitlines()[0]
    'r0 · 11c × 3 GHz · 57.5 GB'
    """
    sockets = f"{node.sockets}×" if node.sockets > 1 else ""
    return (
        f"{node.id} · {sockets}{node.cores}c × {node.ghz:g} GHz · {round(node.ram_gb, 1):g} GB\n"
        f"{speed_text(processing_speed(node), node.flops_per_cycle)} · "
        f"power {computation_power(node, alpha):,.0f}"
    )


def _executor_sort_key(graph: TopologyGraph):
    rank = {c: i for i, c in enumerate(graph.order)}
    return lambda e: (rank.get(component_of(e), len(rank)), index_of(e))


def _in_graph_order(graph: TopologyGraph, placement: Mapping[str, Slot]) -> list[str]:
    """The placed executors by component in ``graph.order``, then index: the graph's own
    executor lists when they name every placed executor, else sorted by name."""
    ordered = [e for c in graph.order for e in graph.executors(c) if e in placement]
    if len(ordered) == len(placement):
        return ordered
    return sorted(placement, key=_executor_sort_key(graph))


def placement_elements(
    scenario: Scenario,
    graph: TopologyGraph,
    placement: Mapping[str, Slot],
    colors: Mapping[str, str],
    alpha: float = 0.8,
    traffic: bool = True,
) -> list[dict[str, Any]]:
    """The placement map: every node and slot of the cluster (idle ones too), executor dots,
    and (``traffic``, for complete placements) the traffic between workers.

    Large placements (see :func:`aggregated`) draw each slot as one pie of its
    components' shares, labelled with its executor count; the executors it
    holds travel in its data (``members``) for drill-down."""
    per_slot: dict[Slot, list[str]] = {}
    for e in _in_graph_order(graph, placement):
        per_slot.setdefault(placement[e], []).append(e)
    nodes = scenario.cluster.nodes
    if node_level(sum(n.slots for n in nodes)):
        out = node_pies(nodes, per_slot, colors, pie_slices(len(graph.order)), alpha)
        return out + (traffic_elements(graph, placement) if traffic else [])
    geo = map_geometry(scenario)
    label_slots = sum(n.slots for n in nodes) <= MAX_SLOT_LABELS
    aggregate = aggregated(len(placement), len(nodes))
    slices = pie_slices(len(graph.order))
    out: list[dict[str, Any]] = []
    for i, node in enumerate(nodes):
        x0 = (i % geo.node_cols) * (geo.node_w + NODE_GAP_X)
        y0 = (i // geo.node_cols) * (geo.node_h + NODE_GAP_Y)
        x0 += (geo.node_w - geo.slot_cols * (geo.slot_w + SLOT_GAP)) / 2  # slots centred
        used = any(per_slot.get((node.id, s)) for s in range(node.slots))
        w, h, centre = node_box(node.slots, x0, y0, geo, label_slots and not aggregate)
        out.append(
            {
                "data": {
                    "id": node_element_id(node.id),
                    "label": node_label(node, alpha),
                    "node": node.id,
                    "cores": total_cores(node),
                    "w": w,
                    "h": h,
                },
                "position": centre,
                "classes": "machine" + ("" if used else " unused"),
            }
        )
        for s in range(node.slots):
            cx = x0 + (s % geo.slot_cols) * (geo.slot_w + SLOT_GAP) + geo.slot_w / 2
            cy = y0 + (s // geo.slot_cols) * (geo.slot_h + SLOT_GAP) + geo.slot_h / 2
            execs = per_slot.get((node.id, s), [])
            label = (f"slot {s}" if execs else f"slot {s} · idle") if label_slots else ""
            slot = {
                "data": {
                    "id": slot_element_id(node.id, s),
                    "label": label,
                    "executors": len(execs),
                    "w": geo.slot_w,
                    "h": geo.slot_h,
                },
                "position": {"x": cx, "y": cy},
                "classes": "slot" + ("" if execs else " idle"),
            }
            out.append(slot)
            if aggregate:
                slot["classes"] += " agg"
                slot["data"].update(slot_summary(execs, colors, slices))
                continue
            spots, size = dot_positions(len(execs), cx, cy, geo)
            out.extend(
                {
                    "data": {
                        "id": executor_element_id(e, node.id, s),
                        "slot": slot_element_id(node.id, s),
                        "label": e,
                        "component": component_of(e),
                        "d": size,
                        "color": colors.get(component_of(e), "#888"),
                    },
                    "position": {"x": x, "y": y},
                    "classes": "executor",
                }
                for e, (x, y) in zip(execs, spots, strict=True)
            )
    if traffic:
        out.extend(traffic_elements(graph, placement))
    return out


def node_level(slots: int) -> bool:
    """Whether a map shows one pie per node and no slots (a cluster of this many slots).

    >>> node_level(2_000), node_level(2_001)
    (False, True)
    """
    return slots > MAX_SLOT_ELEMENTS


def node_agg_element_id(node: str) -> str:
    return f"nodeagg:{node}"


def node_pies(
    nodes: Sequence[Node],
    per_slot: Mapping[Slot, Sequence[str]],
    colors: Mapping[str, str],
    slices: int,
    alpha: float = 0.8,
) -> list[dict[str, Any]]:
    """A map of one box per node with one pie of the executors it holds (all its slots)."""
    per_node: dict[str, list[str]] = {}
    for (node, _), execs in per_slot.items():
        per_node.setdefault(node, []).extend(execs)
    cols = best_columns(len(nodes), NODE_AGG_W + NODE_GAP_X, NODE_AGG_H + NODE_GAP_Y)
    out: list[dict[str, Any]] = []
    for i, node in enumerate(nodes):
        execs = per_node.get(node.id, [])
        centre = {
            "x": (i % cols) * (NODE_AGG_W + NODE_GAP_X) + NODE_AGG_W / 2,
            "y": (i // cols) * (NODE_AGG_H + NODE_GAP_Y) + NODE_AGG_H / 2,
        }
        out.append(
            {
                "data": {
                    "id": node_element_id(node.id),
                    "label": node_label(node, alpha),
                    "node": node.id,
                    "cores": total_cores(node),
                    "w": NODE_AGG_W,
                    "h": NODE_AGG_H,
                },
                "position": centre,
                "classes": "machine" + ("" if execs else " unused"),
            }
        )
        pie = {"id": node_agg_element_id(node.id), "slots": node.slots, "w": 56, "h": 56}
        out.append(
            {
                "data": pie | slot_summary(execs, colors, slices),
                "position": centre,
                "classes": "slot agg node-agg" + ("" if execs else " idle"),
            }
        )
    return out


def aggregated(executors: int, nodes: int) -> bool:
    """Whether a map of this size shows slots as pies instead of executor dots.

    >>> aggregated(28, 5), aggregated(400, 8), aggregated(50, 40)
    (False, True, True)
    """
    return executors > AGGREGATE_EXECUTORS or nodes > AGGREGATE_NODES


def pie_slices(components: int) -> int:
    """Pie slices an aggregated map of a topology of ``components`` needs: one each, at most
    :data:`PIE_SLICES` (fewer mapped slices make cytoscape's style pass cheaper).

    >>> pie_slices(8), pie_slices(40), pie_slices(0)
    (8, 16, 1)
    """
    return max(1, min(PIE_SLICES, components))


def slot_summary(
    executors: Sequence[str], colors: Mapping[str, str], slices: int = PIE_SLICES
) -> dict[str, Any]:
    """An aggregated slot's data: executor count, members, and ``slices`` pie slices by
    component (the smallest components share the last slice when there are more).

    >>> d = slot_summary(["a#0", "a#1", "b#0", "a#2"], {"a": "#f00", "b": "#00f"}, slices=3)
    >>> d["label"], d["members"], d["pie1c"], d["pie1s"], d["pie2s"], d["pie3s"], "pie4s" in d
    ('4', 'a#0 a#1 b#0 a#2', '#f00', 75.0, 25.0, 0.0, False)
    """
    counts = Counter(component_of(e) for e in executors)
    total = sum(counts.values()) or 1
    ranked = counts.most_common()
    if len(ranked) > slices:
        ranked[slices - 1 :] = [("", sum(n for _, n in ranked[slices - 1 :]))]
    data: dict[str, Any] = {
        "label": str(len(executors)) if executors else "",
        "executors": len(executors),
        "members": " ".join(executors[:MAX_MEMBERS]),
    }
    for i, (color_key, size_key) in enumerate(_PIE_KEYS[:slices]):
        if i < len(ranked):
            c, n = ranked[i]
            data[color_key] = colors.get(c, "#888") if c else "#94a3b8"
            data[size_key] = round(100.0 * n / total, 3)
        else:
            data[color_key], data[size_key] = "#ffffff", 0.0  # an empty slice
    return data

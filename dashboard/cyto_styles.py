"""Cytoscape stylesheets and layouts of the two graphs in every panel."""

from __future__ import annotations

from typing import Any

from dashboard.colors import ACCENT, INK, MUTED, TRAFFIC_COLORS
from dashboard.elements import PIE_SLICES
from dashboard.map_geometry import MIN_NODE_W

FONT = "Inter, Segoe UI, system-ui, Roboto, sans-serif"  # cytoscape rejects quoted names

# Legibility: a label is drawn at font-size x zoom screen px. Every label of both graphs is
# at least SMALL_FONT model px and the graphs never zoom out below MIN_ZOOM (their minZoom,
# which also bounds the layouts' fit), so no label is drawn under MIN_LABEL_PX on screen: a
# graph too large for its pane is drawn at a readable size and panned (drag, wheel), not
# shrunk to specks (assets/graph_view.js then shows it from its top-left corner; a map's
# drawing, not its labels, may be zoomed out further: ``MAP_LEAST_ZOOM``).
# ``min-zoomed-font-size`` hides a label rather than draw it smaller.
MIN_LABEL_PX = 12  # px on screen, the smallest text the panels draw
MIN_ZOOM = 0.9
SMALL_FONT = 13.5  # px, the smallest label: 13.5 x 0.9 = 12.15 px on screen at least
LABEL_FONT = 14  # px, node and component labels
DAG_MIN_ZOOM = MAP_MIN_ZOOM = MIN_ZOOM
# A placement map is drawn smaller than MAP_MIN_ZOOM, down to MAP_LEAST_ZOOM, when that
# shows it whole (Present at 1440x900, the x10 presets): assets/graph_view.js then makes
# its labels larger in the map by MAP_MIN_ZOOM / zoom, so on screen they stay 12.15 px or
# more, and lowers the graph's minZoom to that zoom (the script reads this number from the
# page's root, ``data-map-least-zoom``: dashboard/layout.py).
MAP_LEAST_ZOOM = 0.6
_READABLE = {"min-zoomed-font-size": MIN_LABEL_PX}
MAP_LABEL_WIDTH = MIN_NODE_W  # px: a node's label wraps to its box's least width

# Top to bottom: panes are taller than wide, and a stream's label (horizontal, 12 px high)
# needs only rankSep of vertical room, where left to right it needed its whole width
# (the nodes covered its ends: "huffl").
DAG_LAYOUT: dict[str, Any] = {
    "name": "dagre",
    "rankDir": "TB",
    "nodeSep": 18,
    "rankSep": 36,
    "edgeSep": 10,
    "fit": True,
    "padding": 26,  # clear of the pane's label
    "animate": False,
}
MAP_LAYOUT: dict[str, Any] = {"name": "preset", "fit": True, "padding": 26, "animate": False}

DAG_STYLESHEET: list[dict[str, Any]] = [
    {
        "selector": "node.component",
        "style": {
            "shape": "round-rectangle",
            "background-color": "data(color)",
            "label": "data(label)",
            "text-wrap": "wrap",
            "text-valign": "center",
            "text-halign": "center",
            "color": "#ffffff",
            "font-family": FONT,
            "font-size": LABEL_FONT,
            "font-weight": 600,
            **_READABLE,
            "width": "data(w)",
            "height": "data(h)",
            "border-width": 0,
        },
    },
    {
        "selector": "node.acker",
        "style": {"color": INK, "border-width": 1, "border-color": MUTED, "border-style": "dashed"},
    },
    {
        "selector": "edge.stream",
        "style": {
            "curve-style": "bezier",
            "width": 2,
            "line-color": "#94a3b8",
            "target-arrow-color": "#94a3b8",
            "target-arrow-shape": "triangle",
            "label": "data(label)",
            "font-family": FONT,
            "font-size": SMALL_FONT,
            "color": "#334155",
            "text-background-color": "#ffffff",
            "text-background-opacity": 0.9,
            "text-background-padding": "2px",
            **_READABLE,
        },
    },
    {"selector": "edge.acker", "style": {"line-style": "dotted", "width": 1, "opacity": 0.5}},
]


def _layer(z: int) -> dict[str, Any]:
    """Draw order on a placement map, whose boxes are plain nodes placed over each other:
    inter-worker edges 0, inter-node edges 1, node boxes 2, slots 3, executor dots 4. A
    node's label is drawn with its box, so the edges pass under it rather than cross it;
    the box is translucent (``NODE_BOX_OPACITY``) and the edges show, paler, through it."""
    return {"z-index-compare": "manual", "z-index": z}


NODE_BOX_OPACITY = 0.55  # of a node box's fill: the edges under it stay visible


def map_stylesheet(show_all_edges: bool = False, slices: int = PIE_SLICES) -> list[dict[str, Any]]:
    """The placement map's style; inter-worker edges only when ``show_all_edges``; the pies
    of aggregated slots in ``slices`` slices (:func:`dashboard.elements.slot_summary`)."""
    return [
        {
            "selector": "node.machine",
            "style": {
                "shape": "round-rectangle",
                "background-color": "#f8fafc",
                "background-opacity": NODE_BOX_OPACITY,
                "border-width": 1.5,
                "border-color": "#94a3b8",
                "label": "data(label)",
                "text-wrap": "wrap",
                "text-valign": "top",
                "text-halign": "center",
                "text-margin-y": -4,
                "font-family": FONT,
                "font-size": LABEL_FONT,
                "line-height": 1.2,
                "text-max-width": f"{MAP_LABEL_WIDTH}px",  # a long line wraps at a space
                **_READABLE,
                "width": "data(w)",
                "height": "data(h)",
                "text-background-color": "#ffffff",
                "text-background-opacity": 1,  # the edges under it do not show through
                "text-background-padding": "2px",
                "color": INK,
                "padding": 0,
                **_layer(2),
            },
        },
        {
            "selector": "node.machine.unused",
            "style": {"background-color": "#f1f5f9", "border-style": "dashed", "color": MUTED},
        },
        {
            "selector": "node.slot",
            "style": {
                "shape": "round-rectangle",
                "background-color": "#ffffff",
                "border-width": 1,
                "border-color": "#cbd5e1",
                "label": "data(label)",
                "text-valign": "bottom",
                "text-halign": "center",
                "text-margin-y": 2,
                "font-family": FONT,
                "font-size": SMALL_FONT,
                **_READABLE,
                "color": MUTED,
                "padding": "4px",
                "width": "data(w)",
                "height": "data(h)",
                **_layer(3),
            },
        },
        {
            "selector": "node.slot.idle",
            "style": {
                "label": "",  # dashed says idle (the legend's "idle slot"); room for the others
                "background-color": "#f1f5f9",
                "border-style": "dashed",
                "border-color": "#cbd5e1",
            },
        },
        {
            "selector": "node.slot.agg",
            "style": {
                "shape": "ellipse",
                "pie-size": "92%",
                "text-valign": "center",
                "font-size": LABEL_FONT,
                "font-weight": 700,
                "color": INK,
                "text-outline-color": "#ffffff",
                "text-outline-width": 2,
                **{
                    key: value
                    for i in range(1, slices + 1)
                    for key, value in (
                        (f"pie-{i}-background-color", f"data(pie{i}c)"),
                        (f"pie-{i}-background-size", f"data(pie{i}s)"),
                    )
                },
            },
        },
        {
            "selector": "node.executor",
            "style": {
                "shape": "ellipse",
                "width": "data(d)",
                "height": "data(d)",
                "background-color": "data(color)",
                "border-width": 0.5,
                "border-color": "#ffffff",
                "label": "",
                **_layer(4),
            },
        },
        {
            "selector": "edge.traffic",
            "style": {
                "curve-style": "bezier",
                "width": "data(width)",
                "opacity": 0.5,
                "target-arrow-shape": "triangle",
                "arrow-scale": 0.6,
                **_layer(0),
            },
        },
        {
            "selector": "edge.inter-node",
            "style": {
                "line-color": TRAFFIC_COLORS["inter_node"],
                "target-arrow-color": TRAFFIC_COLORS["inter_node"],
                **_layer(1),
            },
        },
        {
            "selector": "edge.inter-worker",
            "style": {
                "display": "element" if show_all_edges else "none",
                "line-color": TRAFFIC_COLORS["inter_worker"],
                "target-arrow-color": TRAFFIC_COLORS["inter_worker"],
                "line-style": "dashed",
            },
        },
        {"selector": "node:selected", "style": {"border-color": ACCENT, "border-width": 2}},
    ]


MOVED_COLOR = "#dc2626"  # executors that sit elsewhere under the other scheduler of a pair


def _id_selector(ids: list[str], exact: bool) -> str:
    return ", ".join(f'node[id {"=" if exact else "^="} "{i}"]' for i in ids)


def moved_styles(
    moved_node: list[str], moved_slot: list[str], exact: bool = False
) -> list[dict[str, Any]]:
    """Outlines for executors (element id prefixes, ``executor_element_id(e)``) on another
    node (solid) or worker (dashed); with ``exact``, for the aggregated slots (element
    ids) that hold such executors, solid when one of them went to another node.

    >>> [s["selector"] for s in moved_styles(["ex:a#0@"], [], exact=False)]
    ['node[id ^= "ex:a#0@"]']
    >>> [s["style"]["border-style"] for s in moved_styles(["slot:n1:0"], ["slot:n1:1"], True)]
    ['dashed', 'solid']
    """
    styles = []
    if moved_slot:
        styles.append(
            {
                "selector": _id_selector(moved_slot, exact),
                "style": {"border-width": 3, "border-color": MOVED_COLOR, "border-style": "dashed"},
            }
        )
    if moved_node:
        styles.append(
            {
                "selector": _id_selector(moved_node, exact),
                "style": {"border-width": 3, "border-color": MOVED_COLOR, "border-style": "solid"},
            }
        )
    return styles

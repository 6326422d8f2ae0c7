"""Where a placement map draws things: slot and node boxes, executor dots.

Pure arithmetic on a scenario's shape, in px of the ``preset`` layout: one
geometry per scenario, so every scheduler's map of it looks the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.model import Scenario

DOT = 14  # px between executor dot centres
DOT_SIZE = 10.0  # px: an executor dot's diameter when its slot holds no more than its share
# Sized for labels of 13.5-14 px at zoom 1 (``cyto_styles.MIN_LABEL_PX``): the map is fitted
# to its pane but never zoomed out below 1, so these gaps set how much of a cluster a pane
# shows at once; tighter gaps show more of it, at the same legible size.
SLOT_GAP = 16  # px between slot boxes, room for the slot label ("slot 3", 13.5 px)
NODE_GAP_X = 24  # px between node boxes side by side
NODE_GAP_Y = 64  # px between rows of node boxes: room for a three-line node label (14 px)
NODE_PAD = 12  # px between a node's box and its slot boxes (with their 4 px padding)
SLOT_LABEL_H = 20  # px under a slot box for its label
MAP_ASPECT = 1.6  # width / height of the map pane the layout fills
SLOTS_IN_A_ROW = 6  # nodes with up to this many slots show them in one row
MIN_NODE_W = 250  # px: a node box is at least as wide as its label's lines (at 14 px)


def _grid_shape(count: int, aspect: float) -> tuple[int, int]:
    """(columns, rows) holding ``count`` cells, about ``aspect`` times wider than tall."""
    if count <= 0:
        return 1, 1
    cols = max(1, min(count, round(math.sqrt(count * aspect))))
    return cols, math.ceil(count / cols)


def best_columns(count: int, cell_w: float, cell_h: float, aspect: float = MAP_ASPECT) -> int:
    """Columns of a grid of ``count`` cells that a viewport of ``aspect`` shows largest.

    >>> best_columns(5, 200, 100, aspect=2.0)
    3
    """

    def scale(cols: int) -> tuple[float, int]:
        rows = math.ceil(count / cols)
        return min(aspect / (cols * cell_w), 1.0 / (rows * cell_h)), -rows

    return max(range(1, max(count, 1) + 1), key=scale)


@dataclass(frozen=True)
class MapGeometry:
    """Where slots and nodes go on a placement map: one geometry per scenario, so every
    scheduler's map of it looks the same and only the dots move."""

    slot_w: float
    slot_h: float
    slot_cols: int
    node_w: float
    node_h: float
    node_cols: int


def map_geometry(scenario: Scenario) -> MapGeometry:
    """Slots sized for an even share of the executors (ceil(E / W)); nodes in a grid that
    fills a wide pane."""
    topo = scenario.topology
    executors = sum(c.parallelism for c in topo.components) + topo.ackers
    nodes = scenario.cluster.nodes
    workers = max(1, min(scenario.workers, sum(n.slots for n in nodes)))
    cols, rows = _grid_shape(math.ceil(executors / workers), 1.4)
    slot_w, slot_h = max(cols, 2) * DOT, max(rows, 1) * DOT
    widest = max((n.slots for n in nodes), default=1) or 1
    if widest <= SLOTS_IN_A_ROW:
        slot_cols = widest
    else:
        slot_cols = best_columns(widest, slot_w + SLOT_GAP, slot_h + SLOT_GAP, aspect=2.5)
    node_w = max(slot_cols * (slot_w + SLOT_GAP), MIN_NODE_W)
    # a node box's height at most (its slots' labels too): the rows' pitch is this + NODE_GAP_Y
    node_h = (
        math.ceil(widest / slot_cols) * (slot_h + SLOT_GAP) - SLOT_GAP + SLOT_LABEL_H + 2 * NODE_PAD
    )
    node_cols = best_columns(len(nodes), node_w + NODE_GAP_X, node_h + NODE_GAP_Y)
    return MapGeometry(slot_w, slot_h, slot_cols, node_w, node_h, node_cols)


def dot_positions(count: int, cx: float, cy: float, geo: MapGeometry) -> tuple[list, float]:
    """Centres of ``count`` dots in the slot box centred at (cx, cy), and their diameter:
    a slot holding more than its share packs its dots closer.

    >>> dot_positions(2, 0, 0, MapGeometry(28, 14, 1, 0, 0, 1))
    ([(-7.0, 0.0), (7.0, 0.0)], 10.0)
    """
    cols = max(2, round(geo.slot_w / DOT))
    pitch = DOT
    if count > cols * max(1, round(geo.slot_h / DOT)):
        cols = max(1, math.ceil(math.sqrt(count * geo.slot_w / geo.slot_h)))
        pitch = min(geo.slot_w / cols, geo.slot_h / math.ceil(count / cols))
    rows = math.ceil(count / cols) if count else 0
    x0 = cx - pitch * min(cols, count) / 2
    y0 = cy - pitch * rows / 2
    spots = [(x0 + (j % cols + 0.5) * pitch, y0 + (j // cols + 0.5) * pitch) for j in range(count)]
    return spots, round(min(DOT_SIZE, 0.8 * pitch), 2)


def node_box(
    slots: int, x0: float, y0: float, geo: MapGeometry, labelled: bool = False
) -> tuple[float, float, dict]:
    """Width, height and centre of a node's box around its ``slots`` slots, the first
    one's box at (x0, y0), with room for the slot labels under the last row if
    ``labelled``: the box a compound node would draw around them.

    >>> node_box(3, 0, 0, MapGeometry(28, 14, 2, 210, 72, 1))
    (218, 68, {'x': 36.0, 'y': 22.0})
    """
    rows = max(1, math.ceil(slots / geo.slot_cols))
    inner_h = rows * (geo.slot_h + SLOT_GAP) - SLOT_GAP + (SLOT_LABEL_H if labelled else 0)
    inner_w = geo.slot_cols * (geo.slot_w + SLOT_GAP) - SLOT_GAP
    return (
        round(geo.node_w - SLOT_GAP + 2 * NODE_PAD),
        round(inner_h + 2 * NODE_PAD),
        {"x": x0 + inner_w / 2, "y": y0 + inner_h / 2},
    )

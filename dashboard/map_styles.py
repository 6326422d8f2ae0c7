"""The placement maps' stylesheets: complete at the first paint, changed only when needed.

A map's stylesheet depends on the inter-worker edges toggle, on its topology
(the pie slices of an aggregated map) and on the compared pair (its moved
executors outlined). Panels are drawn with the stylesheet in force; the
restyle callback leaves a map alone when its stylesheet is already right,
since a restyle redraws every element of every map (0.5-1 s on the x10
presets, once after every page load when the compare store is first written).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from dash import ALL, Input, Output, State, callback, no_update
from dash.exceptions import PreventUpdate

from core.registry import SCHEDULERS
from dashboard import compare, ids
from dashboard.compute import canonical, evaluate, scenario_of
from dashboard.cyto_styles import map_stylesheet, moved_styles
from dashboard.elements import (
    PIE_SLICES,
    aggregated,
    executor_element_id,
    node_agg_element_id,
    node_level,
    pie_slices,
    slot_element_id,
)
from dashboard.jobs import in_background, page_refusal, panel_key, placements, web_params


def panel_stylesheet(
    show_all_edges: bool,
    compared: Mapping[str, Any] | None,
    scheduler: str,
    text: str | None,
    params_text: str = "{}",
    rate: float = 0.0,
) -> list[dict[str, Any]]:
    """One scheduler's map stylesheet for the scenario ``text`` (None: no scenario yet)."""
    if text is None or rate <= 0:
        return map_stylesheet(show_all_edges)
    key = (text, scheduler, web_params(scheduler, params_text), float(rate))
    if in_background(scheduler, text) and not placements.is_ready(key):
        return map_stylesheet(show_all_edges)  # its panel is pending: nothing to outline yet
    ev = evaluate(*key)
    slices = pie_slices(len(ev.graph.order)) if ev.graph is not None else PIE_SLICES
    placement = ev.schedule.placement() if ev.schedule is not None else {}
    nodes = scenario_of(text).cluster.nodes
    return map_stylesheet(show_all_edges, slices) + outlines(
        compared, scheduler, placement, len(nodes), sum(n.slots for n in nodes)
    )


def outlines(
    compared: Mapping[str, Any] | None,
    scheduler: str,
    placement: Mapping[str, tuple[str, int]],
    nodes: int,
    slots: int = 0,
) -> list[dict[str, Any]]:
    """The compared pair's moved executors outlined in one scheduler's map: their dots, on
    an aggregated map the slots that hold them, and on a map of one pie per node (a
    cluster of ``slots`` slots, :func:`dashboard.elements.node_level`) the nodes' pies.

    >>> pair = {"pair": ["a", "b"], "moved_node": ["x#0"], "moved_slot": []}
    >>> [s["selector"] for s in outlines(pair, "a", {"x#0": ("n1", 0)}, 2)]
    ['node[id ^= "ex:x#0@"]']
    >>> [s["selector"] for s in outlines(pair, "a", {"x#0": ("n1", 0)}, 40)]
    ['node[id = "slot:n1:0"]']
    >>> [s["selector"] for s in outlines(pair, "a", {"x#0": ("n1", 0)}, 40, slots=4_000)]
    ['node[id = "nodeagg:n1"]']
    >>> outlines(pair, "c", {"x#0": ("n1", 0)}, 2)
    []
    """
    if not compared or scheduler not in compared.get("pair", ()):
        return []
    if node_level(slots):  # a moved executor rings its node's pie (solid wins over dashed)
        solid = {
            node_agg_element_id(placement[e][0]) for e in compared["moved_node"] if e in placement
        }
        dashed = {
            node_agg_element_id(placement[e][0]) for e in compared["moved_slot"] if e in placement
        }
        return moved_styles(sorted(solid), sorted(dashed - solid), exact=True)
    if aggregated(len(placement), nodes):
        return moved_styles(
            *(
                sorted({slot_element_id(*placement[e]) for e in compared[key] if e in placement})
                for key in ("moved_node", "moved_slot")
            ),
            exact=True,
        )
    return moved_styles(
        [executor_element_id(e) for e in compared["moved_node"]],
        [executor_element_id(e) for e in compared["moved_slot"]],
    )


def first_pair(
    scenario_data: Mapping[str, Any],
    selected: Sequence[str],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
    wait_s: float = 0.0,
) -> dict[str, Any] | None:
    """What the compare store holds once the page has loaded (the first two selected
    schedulers, as :func:`dashboard.compare.controls` picks them), for the first paint;
    None while either is placed in the background (waited for ``wait_s`` seconds)."""
    pair = list(selected[:2])
    if len(pair) < 2 or pair[0] == pair[1] or not set(pair) <= SCHEDULERS.keys():
        return None
    text = canonical(scenario_data)
    if page_refusal(text):
        return None
    keys = [panel_key(text, s, params, rate) for s in pair]
    deadline = time.monotonic() + wait_s
    for s, key in zip(pair, keys, strict=True):
        if in_background(s, text):
            left = max(0.0, deadline - time.monotonic())
            if not placements.wait(key, left).ready:
                return None
    a, b = (evaluate(*key) for key in keys)
    return compare.store_of(pair[0], pair[1], compare.changes_of(a, b))


@callback(
    Output({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet"),
    Input(ids.ALL_EDGES, "value"),
    State(ids.COMPARE_STORE, "data"),  # its writers restyle the maps in the same answer
    Input({"type": ids.MAP_TYPE, "sched": ALL}, "id"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
    State(ids.RATE, "value"),
    State({"type": ids.MAP_TYPE, "sched": ALL}, "stylesheet"),
    prevent_initial_call=True,
)
def map_styles(all_edges, compared, map_ids, scenario_data, params, rate, current):
    """Inter-worker edges on request; the compared pair's moved executors outlined; a map
    whose stylesheet is already right left alone."""
    text = canonical(scenario_data) if scenario_data and rate and rate > 0 else None
    wanted = [
        panel_stylesheet(
            bool(all_edges),
            compared,
            m["sched"],
            text,
            canonical((params or {}).get(m["sched"], {})),
            float(rate or 0.0),
        )
        for m in map_ids
    ]
    if wanted == current:
        raise PreventUpdate
    return [no_update if w == c else w for w, c in zip(wanted, current, strict=True)]

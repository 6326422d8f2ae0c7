"""A topology set in the main page: its editor rows, the bar's line and topology picker.

A scenario with ``topologies`` (docs/model.md: a set sharing one cluster) is held
whole in the scenario stores; the editors show one topology of it at a time, the
one picked in the bar. Each component and stream row carries the name of the
topology it belongs to (hidden column ``_topology``), so an edit goes back into
that topology of the set and nowhere else; the nodes grid edits the shared cluster.
Choosing another topology first makes the scenario in force the editors' base, so
the edits made to the previous one are kept.

Callbacks: the bar's line ("a set of N topologies (E executors) on K nodes") and the
picker follow the scenario in force; picking a topology fills the components and
streams grids (and W, ackers) with it, and draws it stronger in every placement panel
(the panels place the whole set: :mod:`dashboard.set_placement`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dash import ALL, Input, Output, State, callback, clientside_callback, dcc, html, no_update
from dash.exceptions import PreventUpdate

from core.model import Scenario, ScenarioError, validate_scenario
from core.presets import preset
from dashboard import ids
from dashboard.rows import (
    COMPONENTS,
    picked_scenario,
    rows_topology,
    set_outputs,
)
from dashboard.transfer import check_dashboard_size

# component ids of the set's line in the scenario bar
SET_ROW = "set-row"
SET_WORDS = "set-words"
SET_PICKER = "set-picker"
FAINT_OPACITY = 0.2  # the other topologies' components and executors, in every panel
SET_NOTE = (
    "Each panel shows the whole set as its scheduler places it, the picked topology "
    "stronger: topology after topology, as Storm does, each on what the ones before left; "
    "optimal and slotscope search the set jointly (each topology in its own workers) where "
    "it is small enough, else topology after topology, and say which. The Cluster view "
    "draws the large presets per node."
)


def is_set_data(data: Mapping[str, Any] | None) -> bool:
    """Whether scenario JSON holds ``topologies`` (a set, of one or several)."""
    return bool(data) and isinstance(data.get("topologies"), list)


def topology_names(scenario: Scenario) -> list[str]:
    """The set's topology names, in the scenario's order."""
    return [t.name for t in scenario.topology_set]


def executors_of(topology: Mapping[str, Any]) -> int:
    """A topology JSON's executors: its components' parallelism and its ackers."""
    parallelism = sum(int(c.get("parallelism", 1)) for c in topology.get("components", ()))
    return parallelism + int(topology.get("ackers", 0) or 0)


def set_words(data: Mapping[str, Any]) -> str:
    """The bar's line for a set, from its JSON (no validation: this runs on each edit).

    >>> set_words({"topologies": [{"components": [{"parallelism": 3}], "ackers": 1},
    ...     {"components": [{"parallelism": 2}]}], "cluster": {"nodes": [{}, {}]}})
    'A set of 2 topologies (6 executors) on 2 nodes.'
    """
    topologies = data.get("topologies") or []
    executors = sum(executors_of(t) for t in topologies)
    nodes = len((data.get("cluster") or {}).get("nodes") or [])
    many = "topologies" if len(topologies) != 1 else "topology"
    return (
        f"A set of {len(topologies)} {many} ({executors:,} executors) on {nodes:,} "
        f"node{'s' if nodes != 1 else ''}."
    )


def picker_state(
    data: Mapping[str, Any] | None, component_rows: Sequence[Mapping[str, Any]] | None
) -> tuple[bool, str, list[dict[str, Any]], str | None]:
    """The set's line in the bar: hidden, its words, the picker's options and value (the
    topology the components grid shows, else the first)."""
    if not is_set_data(data):
        return True, "", [], None
    names = [str(t.get("name", "")) for t in data["topologies"]]
    options = [
        {"label": f"{n} ({executors_of(t):,} executors)", "value": n}
        for n, t in zip(names, data["topologies"], strict=True)
    ]
    shown = rows_topology({COMPONENTS: component_rows or []})
    value = shown if shown in names else (names[0] if names else None)
    return False, set_words(data), options, value


def shown(scenario: Scenario) -> Scenario:
    """What the editors show of ``scenario``: itself, or the first topology of a set."""
    return picked_scenario(scenario) if scenario.topologies is not None else scenario


def bar_row(data: Mapping[str, Any] | None = None) -> html.Div:
    """The scenario bar's line for a set (hidden unless the scenario in force, ``data``, is
    one: the editors then show its first topology)."""
    hidden, words, options, value = picker_state(data, None)
    return html.Div(
        id=SET_ROW,
        hidden=hidden,
        className="bar-row set-row",
        children=[
            html.Span(words, id=SET_WORDS, className="set-words"),
            html.Label("Topology shown in the editors", htmlFor=SET_PICKER, className="muted"),
            dcc.Dropdown(
                id=SET_PICKER,
                options=options,
                value=value,
                clearable=False,
                className="set-picker",
                style={"minWidth": "18rem"},
            ),
            html.Span(SET_NOTE, className="muted set-note"),
        ],
    )


# What :func:`show_set` sets, in its order (``dashboard.panels.fill_panels`` sends it with
# the panels: one callback less on every edit and preset switch).
SET_PROPS = (
    (SET_ROW, "hidden"),
    (SET_WORDS, "children"),
    (SET_PICKER, "options"),
    (SET_PICKER, "value"),
)


def show_set(data, component_rows, *shown_now):
    """The bar's line and picker follow the scenario in force (only what changed is
    sent: every edit and preset switch runs this, and each prop sent costs the page a
    render); ``shown_now``: the page's values of :data:`SET_PROPS`."""
    wanted = picker_state(data, component_rows)
    return tuple(no_update if w == s else w for w, s in zip(wanted, shown_now, strict=True))


@callback(
    Output(ids.BASE_STORE, "data", allow_duplicate=True),
    Output(ids.COMPONENTS_GRID, "rowData", allow_duplicate=True),
    Output(ids.STREAMS_GRID, "rowData", allow_duplicate=True),
    Output(ids.WORKERS, "value", allow_duplicate=True),
    Output(ids.ACKERS, "value", allow_duplicate=True),
    Input(SET_PICKER, "value"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.COMPONENTS_GRID, "rowData"),
    prevent_initial_call=True,
)
def pick_topology(name, data, component_rows):
    """The picked topology of the set in force fills the components and streams grids."""
    return picked_outputs(name, data, component_rows)


def picked_outputs(
    name: str | None,
    data: Mapping[str, Any] | None,
    component_rows: Sequence[Mapping[str, Any]] | None,
) -> tuple[Any, ...]:
    """What picking ``name`` changes: the base store (the scenario in force, so edits to
    the topology shown before are kept), the components and streams rows, W and ackers.
    Raises PreventUpdate when nothing changes (not a set, or that topology shown)."""
    if not is_set_data(data) or not name:
        raise PreventUpdate
    if rows_topology({COMPONENTS: component_rows or []}) == name:
        raise PreventUpdate
    scenario = validate_scenario(data)
    if name not in topology_names(scenario):
        raise PreventUpdate
    out = set_outputs(scenario, name)
    return (data, out[2], out[3], out[4], out[5])


def load_large(
    name: str, loaded: str | None, box: Callable[[str], tuple[Any, ...]]
) -> tuple[Any, ...]:
    """What choosing a large-cluster preset does in the scenario bar's ``load_scenario``
    (its 11 outputs): the set in the editors when the page may place it, else the
    scenario ``loaded`` kept (the box back on it) and a line pointing to the Cluster
    view, which draws any set."""
    scenario = preset(name)
    try:
        check_dashboard_size(scenario)
    except ScenarioError as err:
        refused = html.Span(
            [f"{name} is not loaded here — {err.message}. The Cluster view below places it."],
            className="error",
        )
        return (no_update,) * 7 + (loaded, no_update, no_update, refused)
    return (*set_outputs(scenario), *box(name), "")


# The picked topology stands out in every panel: the other topologies' components and
# executor dots are drawn faint (a style bypass on each Cytoscape element that names a
# component, set again after each redraw of a panel; nothing to undo on a single topology).
clientside_callback(
    """
    function (name) {
        if (!name && !window.slotscopeSetFaint) { return ""; }  // a single topology
        window.slotscopeSetFaint = !!name;
        var apply = function () {
            var prefix = name ? name + "/" : null;
            document.querySelectorAll("div[id^='{']").forEach(function (el) {
                var cy = el._cyreg && el._cyreg.cy;
                if (!cy) { return; }
                cy.elements().forEach(function (ele) {
                    var comp = ele.data("component");
                    var source = ele.isEdge() ? cy.getElementById(ele.data("source")) : null;
                    if (source && source.nonempty()) { comp = source.data("component"); }
                    if (typeof comp !== "string") { return; }
                    if (prefix && comp.indexOf(prefix) !== 0) {
                        ele.style("opacity", FAINT);
                    } else {
                        ele.removeStyle("opacity");
                    }
                });
            });
        };
        [0, 300, 1500].forEach(function (ms) { setTimeout(apply, ms); });
        return name ? "picked: " + name : "";
    }
    """.replace("FAINT", str(FAINT_OPACITY)),
    Output(SET_ROW, "title"),
    Input(SET_PICKER, "value"),
    Input({"type": ids.MAP_TYPE, "sched": ALL}, "elements"),
    Input({"type": ids.DAG_TYPE, "sched": ALL}, "elements"),
)

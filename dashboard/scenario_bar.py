"""The scenario bar: preset, upload and download, offered rate, schedulers and their parameters.

Callbacks: restore the view a link names and keep the URL on the view on
screen (:mod:`dashboard.view_state`); load a preset or an upload into the
editors, the preset box naming what is loaded; download the scenario in force;
show each selected scheduler's parameters and keep the last valid values. A
refused rate or parameter is named at its own input until it is fixed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dash import (
    ALL,
    Input,
    Output,
    State,
    callback,
    clientside_callback,
    ctx,
    dcc,
    html,
    no_update,
)
from dash.exceptions import PreventUpdate

from core.model import ScenarioError, validate_scenario
from core.presets import LARGE_PRESETS, PRESETS, preset
from core.registry import SCHEDULERS, SchedulerError
from core.settings import MAX_SCENARIO_BYTES, SettingsError, check_rate
from dashboard import cluster_view, ids, importer, registry, set_page, simulate, view_state
from dashboard.jobs import WEB_CAPS
from dashboard.rows import scenario_outputs
from dashboard.transfer import UPLOAD_GUARD_BYTES, decode_upload, scenario_download

log = logging.getLogger(__name__)


def web_param(scheduler: str, name: str, value: Any) -> Any:
    """:func:`dashboard.registry.parse_param`, within the page's caps (``WEB_CAPS``: CP-SAT
    seconds, local-search evaluations); SchedulerError naming the cap above it.

    >>> try:
    ...     web_param("optimal", "time_limit", 3600)
    ... except SchedulerError as err:
    ...     print(err)
    optimal time_limit: at most 60 in the dashboard (the command line takes 3,600)
    """
    parsed = registry.parse_param(scheduler, name, value)
    cap = WEB_CAPS.get(scheduler, {}).get(name)
    if cap is not None and parsed > cap:
        most = registry.param_spec(scheduler, name).maximum
        more = f"takes {most:,g}" if most is not None else "has no limit"
        raise SchedulerError(
            f"{scheduler} {name}: at most {cap:,g} in the dashboard (the command line {more})"
        )
    return parsed


def _field(label: str, control: Any, class_name: str = "") -> html.Div:
    return html.Div(
        [html.Label(label, className="field-label"), control],
        className=f"field {class_name}".strip(),
    )


def _scheduler_option(sid: str, color: str) -> dict[str, Any]:
    spec = SCHEDULERS[sid]
    return {
        "label": html.Span(
            [html.Span(className="dot", style={"background": color}), sid],
            title=f"{spec.name} — {spec.paper}",
        ),
        "value": sid,
    }


def _param_input(sid: str, param: Any, value: Any) -> html.Div | html.Label:
    pid = ids.param_id(sid, param.name)
    if param.kind is bool:
        control = dcc.Checklist(
            id=pid,
            options=[{"label": " on", "value": "on"}],
            value=["on"] if value else [],
            className="param-bool",
        )
    elif param.kind == "floats":
        text = ", ".join(f"{v:g}" for v in value or [])
        control = dcc.Input(
            id=pid,
            type="text",
            value=text,
            debounce=True,
            placeholder="default",
            className="param-input",
        )
    elif param.kind in (int, float):
        control = dcc.Input(
            id=pid,
            type="number",
            value=value,
            debounce=True,
            step=1 if param.kind is int else "any",
            className="param-input",
        )  # no min/max: the browser would send an out-of-range value as empty, unexplained
    else:
        control = dcc.Input(
            id=pid, type="text", value=value, debounce=True, className="param-input"
        )
    # its name, control and message in one element: fewer components (a checklist holds
    # labels of its own, so it is not put inside another)
    holder = html.Div if param.kind is bool else html.Label
    return holder(
        [
            param.name,
            control,
            html.Div(
                id=ids.param_message_id(sid, param.name), className="field-message", role="alert"
            ),
        ],
        className="param",
        title=param.description,
    )


def params_area(selected: Sequence[str], values: Mapping[str, Mapping[str, Any]]) -> list[Any]:
    """One group of inputs per selected scheduler that has parameters."""
    colors = registry.colors()
    groups = []
    for sid in selected:
        spec = SCHEDULERS.get(sid)
        if spec is None or not spec.params:
            continue
        groups.append(
            html.Fieldset(
                # the scheduler's dot drawn by CSS in its colour (no component of its own)
                [html.Legend(sid, className="param-legend", style={"--dot": colors[sid]})]
                + [
                    _param_input(sid, p, values.get(sid, {}).get(p.name, p.default))
                    for p in spec.params
                ],
                className="param-group",
            )
        )
    if not groups:
        return [html.P("The selected schedulers take no parameters.", className="muted")]
    return groups


def layout(
    preset_name: str | None,
    selected: Sequence[str],
    params: Mapping[str, Any],
    rate: float,
    scenario_data: Mapping[str, Any] | None = None,
) -> html.Section:
    """The bar, compact so that a 1440x900 screen shows a whole placement below it: the
    preset, rate and scenario file in one row, the scheduler pills in the next, then the
    parameters (folded) beside the simulation's controls (and, when ``scenario_data`` is a
    topology set, its line)."""
    colors = registry.colors()
    return html.Section(
        className="card bar",
        children=[
            html.Div(
                className="bar-row bar-top",
                children=[
                    _field(
                        "Preset",
                        dcc.Dropdown(
                            id=ids.PRESET,
                            value=preset_name,
                            clearable=False,
                            options=view_state.preset_options(preset_name),
                        ),
                        "field-preset field-inline",
                    ),
                    _field(
                        "Offered rate",
                        html.Div(
                            [
                                # no min: the browser would send 0 or -100 as empty
                                dcc.Input(
                                    id=ids.RATE,
                                    type="number",
                                    value=rate,
                                    debounce=True,
                                    className="rate-input",
                                ),
                                html.Span("tuples/s per spout", className="unit"),
                                html.Div(
                                    id=ids.RATE_MESSAGE,
                                    className="field-message",
                                    role="alert",
                                ),
                            ],
                            className="rate-control",
                        ),
                        "field-inline field-rate",
                    ),
                    _field(
                        "Scenario file",
                        html.Div(
                            className="file-actions",
                            children=[
                                dcc.Upload(
                                    id=ids.UPLOAD,
                                    className="upload",
                                    max_size=UPLOAD_GUARD_BYTES,
                                    children=html.Span(
                                        [
                                            "Drop or ",
                                            html.U("choose"),
                                            " a scenario JSON "
                                            f"(≤ {MAX_SCENARIO_BYTES // 1_000_000} MB)",
                                        ]
                                    ),
                                ),
                                html.Button(
                                    "Download",
                                    id=ids.DOWNLOAD_SCENARIO_BUTTON,
                                    className="btn btn-ghost",
                                    title="Download the scenario in force as JSON",
                                ),
                                dcc.Download(id=ids.DOWNLOAD_SCENARIO),
                                importer.control(),
                            ],
                        ),
                        "field-inline",
                    ),
                ],
            ),
            html.Div(
                className="bar-row",
                children=[
                    _field(
                        "Schedulers",
                        dcc.Checklist(
                            id=ids.SCHEDULERS,
                            value=list(selected),
                            inline=True,
                            className="sched-pills",
                            options=[_scheduler_option(s, colors[s]) for s in SCHEDULERS],
                        ),
                        "field-schedulers field-inline",
                    ),
                ],
            ),
            html.Div(
                className="bar-row bar-foot",
                children=[
                    simulate.controls(),
                    html.Details(
                        className="params",
                        children=[
                            html.Summary("Scheduler parameters (registry defaults)"),
                            html.Div(
                                params_area(selected, params),
                                id=ids.PARAMS_AREA,
                                className="param-groups",
                            ),
                            html.Div(id=ids.PARAMS_MESSAGE, className="message"),
                        ],
                    ),
                ],
            ),
            set_page.bar_row(scenario_data),  # a topology set: its words and topology picker
            html.Div(id=ids.BAR_MESSAGE, className="message", role="status"),
            html.Div(id=ids.LINK_NOTE, className="message muted", role="status"),
            dcc.Store(id=ids.LOADED_STORE, data=preset_name),
            dcc.Store(id=ids.VIEW_STORE),
            html.Div(id=ids.VIEW_SYNC, hidden=True),
        ],
    )


def box_outputs(loaded: str) -> tuple[str, list[dict[str, Any]], str]:
    """The preset box's value and options, and the loaded marker, for what is loaded."""
    return loaded, view_state.preset_options(loaded), loaded


@callback(
    Output(ids.BASE_STORE, "data"),
    Output(ids.NODES_GRID, "rowData", allow_duplicate=True),
    Output(ids.COMPONENTS_GRID, "rowData", allow_duplicate=True),
    Output(ids.STREAMS_GRID, "rowData", allow_duplicate=True),
    Output(ids.WORKERS, "value"),
    Output(ids.ACKERS, "value"),
    Output(ids.RATE, "value"),
    Output(ids.PRESET, "value", allow_duplicate=True),
    Output(ids.PRESET, "options", allow_duplicate=True),
    Output(ids.LOADED_STORE, "data", allow_duplicate=True),
    Output(ids.BAR_MESSAGE, "children"),
    Output(ids.CLUSTER_PRESET, "value", allow_duplicate=True),
    Output(cluster_view.OPEN_SIGNAL, "data", allow_duplicate=True),
    Input(ids.PRESET, "value"),
    Input(ids.UPLOAD, "contents"),
    State(ids.UPLOAD, "filename"),
    State(ids.LOADED_STORE, "data"),
    prevent_initial_call=True,
)
def load_scenario(preset_name, contents, filename, loaded=None):
    """A preset or an uploaded file becomes the scenario in the editors (never executed).

    The preset box then names what is loaded (``file: NAME`` for an upload). A box
    value whose scenario the editors already hold (a restored link, an import) loads
    nothing. A large preset the page cannot hold opens the Cluster view on it instead.
    """
    cluster = (no_update, no_update)  # the Cluster view's preset and its open signal
    if ctx.triggered_id == ids.UPLOAD:
        out = upload_outputs(contents, filename)
        if out[0] is no_update:
            return (*out[:7], no_update, no_update, no_update, out[7], *cluster)
        box = box_outputs(view_state.loaded_value("uploaded", out[0].get("name") or "scenario"))
        return (*out[:7], *box, out[7], *cluster)
    if preset_name in LARGE_PRESETS and preset_name != loaded:  # a topology set
        if view_state.too_large(preset_name):
            cluster = (preset_name, preset_name)
        return (*set_page.load_large(preset_name, loaded, box_outputs), *cluster)
    if preset_name not in PRESETS or preset_name == loaded:
        return (no_update,) * 13
    return (*scenario_outputs(preset(preset_name)), *box_outputs(preset_name), "", *cluster)


def upload_outputs(contents: str | None, filename: str | None) -> tuple[Any, ...]:
    """What an upload puts in the editors and the bar's message: the scenario it holds, or
    ``no_update`` everywhere but a message saying why it was refused (whatever it holds)."""
    try:
        scenario = decode_upload(contents, filename)
    except ScenarioError as err:
        refused = html.Span(["Upload refused — ", str(err)], className="error")
        return (no_update,) * 7 + (refused,)
    except Exception as err:  # no upload may end in an HTTP 500
        log.exception("upload %s failed", filename)
        refused = html.Span(
            ["Upload refused — ", f"{filename}: could not be read ({type(err).__name__})"],
            className="error",
        )
        return (no_update,) * 7 + (refused,)
    note = html.Span(f"Loaded {filename}: {scenario.name}.", className="ok")
    return (*scenario_outputs(scenario), note)


# Files over the upload guard never reach the server (dcc.Upload drops them without a
# word): the browser says so in the bar's message, for both the scenario and the import.
clientside_callback(
    """
    function (uploadId) {
        if (window.slotscopeUploadGuard) { return window.dash_clientside.no_update; }
        window.slotscopeUploadGuard = true;
        const guard = GUARD, limit = LIMIT, boxes = BOXES;
        const tell = function (target, files) {
            const box = target && target.closest ? target.closest(boxes) : null;
            if (!box || !files) { return; }
            const big = Array.from(files).filter(function (f) { return f.size > guard; });
            if (!big.length) { return; }
            const text = big.map(function (f) {
                return f.name + ": " + f.size.toLocaleString("en") + " bytes, the limit is "
                    + limit.toLocaleString("en");
            }).join("; ");
            window.dash_clientside.set_props(MESSAGE, {children: {
                type: "Span", namespace: "dash_html_components",
                props: {className: "error", children: "Upload refused — " + text}}});
        };
        document.addEventListener("drop", function (ev) {
            tell(ev.target, ev.dataTransfer && ev.dataTransfer.files);
        }, true);
        document.addEventListener("change", function (ev) {
            tell(ev.target, ev.target && ev.target.files);
        }, true);
        return window.dash_clientside.no_update;
    }
    """.replace("GUARD", str(UPLOAD_GUARD_BYTES))
    .replace("LIMIT", str(MAX_SCENARIO_BYTES))
    .replace("BOXES", repr(f"#{ids.UPLOAD}, #{ids.IMPORT_UPLOAD}"))
    .replace("MESSAGE", repr(ids.BAR_MESSAGE)),
    Output(ids.UPLOAD, "className_reject"),
    Input(ids.UPLOAD, "id"),
)


@callback(
    Output(ids.DOWNLOAD_SCENARIO, "data"),
    Input(ids.DOWNLOAD_SCENARIO_BUTTON, "n_clicks"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.RATE, "value"),
    prevent_initial_call=True,
)
def download_scenario(_clicks, data, rate):
    return scenario_download(data, rate)


@callback(
    Output(ids.PARAMS_AREA, "children"),
    Input(ids.SCHEDULERS, "value"),
    State(ids.PARAMS_STORE, "data"),
    prevent_initial_call=True,
)
def show_params(selected, stored):
    return params_area(selected or [], registry.params_for(selected or [], stored))


def param_errors(
    values: Sequence[Any], param_ids: Sequence[Mapping[str, str]], stored: Mapping[str, Any] | None
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The stored parameters with every valid value applied, and per input its error ("")."""
    params = {s: dict(v) for s, v in (stored or {}).items()}
    errors = []
    for pid, value in zip(param_ids, values, strict=True):
        try:
            params.setdefault(pid["sched"], {})[pid["name"]] = web_param(
                pid["sched"], pid["name"], value
            )
            errors.append("")
        except SchedulerError as err:
            errors.append(f"{err} — the previous value stays in force.")
    return params, errors


def apply_params(values, param_ids, stored):
    """Valid values replace the stored ones; an invalid one is named and the old value kept."""
    params, errors = param_errors(values, param_ids, stored)
    wrong = [e.removesuffix(" — the previous value stays in force.") for e in errors if e]
    message = (
        html.Span("; ".join(wrong) + " — the previous value stays in force.", className="error")
        if wrong
        else ""
    )
    return (params if params != stored else no_update), message


@callback(
    Output(ids.PARAMS_STORE, "data"),
    Output(ids.PARAMS_MESSAGE, "children"),
    Output({"type": ids.PARAM_MESSAGE_TYPE, "sched": ALL, "name": ALL}, "children"),
    Input({"type": ids.PARAM_TYPE, "sched": ALL, "name": ALL}, "value"),
    State({"type": ids.PARAM_TYPE, "sched": ALL, "name": ALL}, "id"),
    State({"type": ids.PARAM_MESSAGE_TYPE, "sched": ALL, "name": ALL}, "id"),
    State(ids.PARAMS_STORE, "data"),
    prevent_initial_call=True,
)
def params_changed(values, param_ids, message_ids, stored):
    """Apply the parameters; each refused value is named at its own input."""
    params, message = apply_params(values, param_ids, stored)
    _, errors = param_errors(values, param_ids, stored)
    by_id = {(p["sched"], p["name"]): e for p, e in zip(param_ids, errors, strict=True)}
    at_fields = [
        html.Span(by_id.get((m["sched"], m["name"]), ""), className="error")
        if by_id.get((m["sched"], m["name"]))
        else ""
        for m in message_ids
    ]
    return params, message, at_fields


def rate_feedback(rate: Any) -> tuple[str, str]:
    """The message at the rate field and its class: empty and plain when the rate is valid.

    >>> rate_feedback(-100)[0].split(" — ")[0]
    'Offered rate: -100 is not a positive number of tuples/s'
    """
    try:
        check_rate(rate)
    except SettingsError as err:
        text = f"Offered rate: {err.message} — the placements keep the last valid rate."
        return text, "rate-input invalid"
    return "", "rate-input"


def rate_outputs(rate: Any, shown_message: Any = None, shown_class: Any = None) -> tuple[Any, Any]:
    """The rate field's message and class (:func:`rate_feedback`), ``no_update`` for a valid
    rate that the page shows as valid already (``shown_message``, ``shown_class``). Sent with
    the panels (``dashboard.panels.fill_panels``: the rate is one of its inputs), not by a
    callback of its own: each callback answered costs the page a pass of dash-renderer."""
    message, css = rate_feedback(rate)
    if not message and not shown_message and shown_class == css:
        return no_update, no_update
    return (html.Span(message, className="error") if message else ""), css


@dataclass(frozen=True)
class OnScreen:
    """What the page shows now, as the restore of a link compares it."""

    loaded: str | None
    schedulers: list[str]
    rate: Any
    scenario: dict[str, Any] | None
    params: dict[str, dict[str, Any]]
    compare: tuple[str | None, str | None]
    whatif: str | None
    cluster: cluster_view.ClusterPicks | None = None


def too_large_words(name: str, reason: str) -> str:
    """The bar's words for a large preset the page cannot load (as choosing it says)."""
    return f"{name} is not loaded here — {reason}. The Cluster view below places it."


def requested_view(search: str | None, shown: OnScreen) -> tuple[view_state.View | None, str]:
    """The view a URL query asks for (None: nothing to change) and, when part of it cannot
    be had, a message saying which.

    A large preset the page can load is loaded as choosing it in the preset box does; one
    too large keeps the scenario on screen, says why, and opens the Cluster view on it.
    The Cluster view's picks named in the query come along (over a stored view's)."""
    req = view_state.read_query(search)
    notes = [f"The link's Cluster view: {'; '.join(req.notes)}."] if req.notes else []
    asked = view_state.asked_view_id(search)
    if req.view:
        try:
            stored = view_state.store().load(req.view)
            return replace(stored, cluster=req.cluster or stored.cluster), " ".join(notes)
        except view_state.ViewError as err:
            notes.append(f"The link's view is not restored: {err}.")
    elif asked is not None:
        notes.append(f"The link's view is not restored: '{asked[:40]}' is not a view id.")
    if req.bad_rate is not None:
        notes.append(f"The link's rate '{req.bad_rate[:40]}' is not a positive number: ignored.")
    name = req.preset
    reason = view_state.too_large(name) if name in LARGE_PRESETS else None
    cluster = req.cluster or shown.cluster
    if name is not None and reason is not None:
        notes.append(too_large_words(name, reason))
        cluster = req.cluster or cluster_view.ClusterPicks(name)
        name = None  # the page keeps its scenario
    if name is None and req.schedulers is None and req.rate is None and cluster == shown.cluster:
        return None, " ".join(notes)
    loaded = name or shown.loaded or next(iter(PRESETS))
    fresh = loaded != shown.loaded
    scenario = view_state.base_scenario(loaded) if fresh else shown.scenario
    schedulers = req.schedulers if req.schedulers is not None else shown.schedulers
    rate = req.rate or ((scenario or {}).get("workload", {}).get("rate") if fresh else shown.rate)
    pair = view_state.follow_selection(schedulers, shown.compare)
    try:
        view = view_state.view_of(
            loaded, scenario, rate, schedulers, shown.params, pair, shown.whatif, cluster
        )
    except view_state.ViewError as err:
        return None, " ".join([*notes, f"The link is not applied: {err}."])
    return view, " ".join(notes)


RESTORED = (
    "base",
    "nodes",
    "components",
    "streams",
    "workers",
    "ackers",
    "rate",
    "preset",
    "options",
    "loaded",
    "schedulers",
    "params",
    "params_area",
    "compare_a",
    "compare_b",
    "whatif",
    "message",
    "cluster",
    "cluster_schedulers",
    "cluster_figure",
    "cluster_topology",
    "cluster_topology_options",
    "cluster_open",
)


def restore_outputs(view: view_state.View | None, shown: OnScreen, message: str) -> dict[str, Any]:
    """What restoring ``view`` changes on the page (``no_update`` for what already matches)."""
    out: dict[str, Any] = dict.fromkeys(RESTORED, no_update)
    if message:
        out["message"] = html.Span(message, className="error")
    if view is None:
        return out
    scenario = view.scenario or view_state.base_scenario(view.loaded)
    if scenario != shown.scenario:  # a preset's own: built once (core.presets.preset)
        valid = validate_scenario(view.scenario) if view.scenario else preset(view.loaded)
        loaded = scenario_outputs(valid)
        for key, value in zip(RESTORED[:6], loaded[:6], strict=True):
            out[key] = value
    if view.loaded != shown.loaded or out["base"] is not no_update:
        out["preset"], out["options"], out["loaded"] = box_outputs(view.loaded)
    if view.rate != shown.rate:
        out["rate"] = view.rate
    schedulers = list(view.schedulers)
    if schedulers != shown.schedulers:
        out["schedulers"] = schedulers
    params = registry.params_for(schedulers, view.params)
    if params != registry.params_for(schedulers, shown.params):
        out["params"] = params
        out["params_area"] = params_area(schedulers, params)
    if view.compare != shown.compare:
        out["compare_a"], out["compare_b"] = view.compare
    if view.whatif != shown.whatif:
        out["whatif"] = view.whatif
    if view.cluster is not None and view.cluster != shown.cluster:
        out.update(cluster_view.open_outputs(view.cluster))
    return out


@callback(
    output={
        "base": Output(ids.BASE_STORE, "data", allow_duplicate=True),
        "nodes": Output(ids.NODES_GRID, "rowData", allow_duplicate=True),
        "components": Output(ids.COMPONENTS_GRID, "rowData", allow_duplicate=True),
        "streams": Output(ids.STREAMS_GRID, "rowData", allow_duplicate=True),
        "workers": Output(ids.WORKERS, "value", allow_duplicate=True),
        "ackers": Output(ids.ACKERS, "value", allow_duplicate=True),
        "rate": Output(ids.RATE, "value", allow_duplicate=True),
        "preset": Output(ids.PRESET, "value", allow_duplicate=True),
        "options": Output(ids.PRESET, "options", allow_duplicate=True),
        "loaded": Output(ids.LOADED_STORE, "data", allow_duplicate=True),
        "schedulers": Output(ids.SCHEDULERS, "value", allow_duplicate=True),
        "params": Output(ids.PARAMS_STORE, "data", allow_duplicate=True),
        "params_area": Output(ids.PARAMS_AREA, "children", allow_duplicate=True),
        "compare_a": Output(ids.COMPARE_A, "value", allow_duplicate=True),
        "compare_b": Output(ids.COMPARE_B, "value", allow_duplicate=True),
        "whatif": Output(ids.FAIL_NODE, "value", allow_duplicate=True),
        "message": Output(ids.BAR_MESSAGE, "children", allow_duplicate=True),
        "cluster": Output(ids.CLUSTER_PRESET, "value", allow_duplicate=True),
        "cluster_schedulers": Output(ids.CLUSTER_SCHEDULERS, "value", allow_duplicate=True),
        "cluster_figure": Output(ids.CLUSTER_FIGURE, "value", allow_duplicate=True),
        "cluster_topology": Output(ids.CLUSTER_TOPOLOGY, "value", allow_duplicate=True),
        "cluster_topology_options": Output(ids.CLUSTER_TOPOLOGY, "options", allow_duplicate=True),
        "cluster_open": Output(cluster_view.OPEN_SIGNAL, "data", allow_duplicate=True),
    },
    inputs={
        "search": Input(ids.URL, "search"),
        "loaded": State(ids.LOADED_STORE, "data"),
        "schedulers": State(ids.SCHEDULERS, "value"),
        "rate": State(ids.RATE, "value"),
        "scenario": State(ids.SCENARIO_STORE, "data"),
        "params": State(ids.PARAMS_STORE, "data"),
        "compare": (State(ids.COMPARE_A, "value"), State(ids.COMPARE_B, "value")),
        "whatif": State(ids.FAIL_NODE, "value"),
        "cluster": (
            State(ids.CLUSTER_PRESET, "value"),
            State(ids.CLUSTER_SCHEDULERS, "value"),
            State(ids.CLUSTER_FIGURE, "value"),
            State(ids.CLUSTER_TOPOLOGY, "value"),
        ),
    },
    prevent_initial_call=True,
)
def restore_view(
    search, loaded, schedulers, rate, scenario, params, compare, whatif, cluster=(None,) * 4
):
    """The view a link names (``?view=ID``, else its preset, schedulers and rate) replaces
    the one on screen: on arrival, and on the browser's Back and Forward."""
    picks, _ = cluster_view.checked_picks(*cluster)
    shown = OnScreen(
        loaded, list(schedulers or []), rate, scenario, params or {}, tuple(compare), whatif, picks
    )
    view, message = requested_view(search, shown)
    return restore_outputs(view, shown, message)


# The Cluster view's picks the link keeps (values, in this order).
VIEW_CLUSTER_IDS = (
    ids.CLUSTER_PRESET,
    ids.CLUSTER_SCHEDULERS,
    ids.CLUSTER_FIGURE,
    ids.CLUSTER_TOPOLOGY,
)
VIEW_CLUSTER_INPUTS = tuple(Input(i, "value") for i in VIEW_CLUSTER_IDS)


@callback(
    Output(ids.VIEW_STORE, "data"),
    Output(ids.LINK_NOTE, "children"),
    Input(ids.SCHEDULERS, "value"),
    Input(ids.COMPARE_A, "value"),
    Input(ids.COMPARE_B, "value"),
    Input(ids.FAIL_NODE, "value"),
    *VIEW_CLUSTER_INPUTS,
    State(ids.LOADED_STORE, "data"),
    State(ids.RATE, "value"),
    State(ids.SCENARIO_STORE, "data"),
    State(ids.PARAMS_STORE, "data"),
)
def remember_view(schedulers, a, b, whatif, *rest):
    """The URL follows the view: its query (with the Cluster view's picks), and an id on
    the server's disk for the rest. A new scenario, rate or parameters (and the preset box's
    ``loaded``) update it with the panels (``dashboard.panels.fill_panels``)."""
    *cluster, loaded, rate, scenario, params = rest
    outputs = view_outputs(loaded, schedulers, rate, scenario, params, a, b, whatif, *cluster)
    if outputs[0] is no_update:
        raise PreventUpdate
    return outputs


def view_outputs(loaded, schedulers, rate, scenario, params, a, b, whatif, *cluster):
    """The view's link (the URL's query) and the note beside it; ``no_update`` for both
    with nothing loaded or an invalid rate (the link keeps the last valid view)."""
    if not loaded or view_state.loaded_kind(loaded) is None:
        return no_update, no_update
    picks, _ = cluster_view.checked_picks(*cluster) if cluster else (None, [])
    try:
        view = view_state.view_of(loaded, scenario, rate, schedulers, params, (a, b), whatif, picks)
    except view_state.ViewError:
        return no_update, no_update
    search, note = view_state.link_of(view)
    return {"search": search}, note or ""


# The URL shows the view without a reload or a history entry per edit (Location's own
# search would run ``restore_view`` again); a presentation keeps its ``present`` pair.
clientside_callback(
    """
    function (data) {
        if (!data || typeof data.search !== "string") { return window.dash_clientside.no_update; }
        const next = new URLSearchParams(data.search);
        const now = new URLSearchParams(window.location.search);
        if (now.has("present")) { next.set("present", now.get("present")); }
        const search = "?" + next.toString();
        if (search !== window.location.search) {
            window.history.replaceState(window.history.state, "", search + window.location.hash);
        }
        return search;
    }
    """,
    Output(ids.VIEW_SYNC, "children"),
    Input(ids.VIEW_STORE, "data"),
)

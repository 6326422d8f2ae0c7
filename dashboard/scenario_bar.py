"""The scenario bar: preset, upload and download, offered rate, schedulers and their parameters.

Callbacks: keep the URL and the picker in step; load a preset or an upload
into the editors; download the scenario in force; show each selected
scheduler's parameters and keep the last valid values.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
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

from core.model import ScenarioError
from core.presets import PRESETS, preset
from core.registry import SCHEDULERS, SchedulerError
from core.settings import MAX_SCENARIO_BYTES
from dashboard import ids, importer, registry, simulate
from dashboard.jobs import WEB_CAPS
from dashboard.rows import scenario_outputs
from dashboard.transfer import (
    UPLOAD_GUARD_BYTES,
    build_query,
    decode_upload,
    parse_query,
    scenario_download,
)

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


def _param_input(sid: str, param: Any, value: Any) -> html.Div:
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
            min=param.minimum,
            max=WEB_CAPS.get(sid, {}).get(param.name, param.maximum),
            step=1 if param.kind is int else "any",
            className="param-input",
        )
    else:
        control = dcc.Input(
            id=pid, type="text", value=value, debounce=True, className="param-input"
        )
    return html.Div(
        [html.Label(param.name, title=param.description), control],
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
                [html.Legend([html.Span(className="dot", style={"background": colors[sid]}), sid])]
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
    preset_name: str | None, selected: Sequence[str], params: Mapping[str, Any], rate: float
) -> html.Section:
    colors = registry.colors()
    return html.Section(
        className="card bar",
        children=[
            html.Div(
                className="bar-main",
                children=[
                    html.Div(
                        className="bar-row",
                        children=[
                            _field(
                                "Preset",
                                dcc.Dropdown(
                                    id=ids.PRESET,
                                    value=preset_name,
                                    clearable=False,
                                    options=[
                                        {"label": name, "value": name, "title": desc}
                                        for name, (desc, _) in PRESETS.items()
                                    ],
                                ),
                                "field-preset",
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
                            ),
                            _field(
                                "Offered rate (tuples/s per spout)",
                                dcc.Input(
                                    id=ids.RATE,
                                    type="number",
                                    min=1,
                                    value=rate,
                                    debounce=True,
                                    className="rate-input",
                                ),
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
                                "field-schedulers",
                            ),
                        ],
                    ),
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
                    html.Div(id=ids.BAR_MESSAGE, className="message", role="status"),
                ],
            ),
            simulate.controls(),
        ],
    )


@callback(
    Output(ids.URL, "search"),
    Output(ids.PRESET, "value"),
    Output(ids.SCHEDULERS, "value"),
    Input(ids.URL, "search"),
    Input(ids.PRESET, "value"),
    Input(ids.SCHEDULERS, "value"),
)
def sync_url(search, preset_name, selected):
    """The URL names the preset and the schedulers: read it on arrival, write it on change."""
    if ctx.triggered_id in (None, ids.URL) and search:
        want_preset, want_schedulers = parse_query(search, PRESETS, SCHEDULERS)
        return (
            no_update,
            want_preset if want_preset and want_preset != preset_name else no_update,
            want_schedulers
            if want_schedulers is not None and want_schedulers != selected
            else no_update,
        )
    query = build_query(preset_name, selected or [])
    return (query if query != search else no_update), no_update, no_update


@callback(
    Output(ids.BASE_STORE, "data"),
    Output(ids.NODES_GRID, "rowData", allow_duplicate=True),
    Output(ids.COMPONENTS_GRID, "rowData", allow_duplicate=True),
    Output(ids.STREAMS_GRID, "rowData", allow_duplicate=True),
    Output(ids.WORKERS, "value"),
    Output(ids.ACKERS, "value"),
    Output(ids.RATE, "value"),
    Output(ids.BAR_MESSAGE, "children"),
    Input(ids.PRESET, "value"),
    Input(ids.UPLOAD, "contents"),
    State(ids.UPLOAD, "filename"),
    prevent_initial_call=True,
)
def load_scenario(preset_name, contents, filename):
    """A preset or an uploaded file becomes the scenario in the editors (never executed)."""
    if ctx.triggered_id == ids.UPLOAD:
        return upload_outputs(contents, filename)
    return (*scenario_outputs(preset(preset_name)), "")


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


@callback(
    Output(ids.PARAMS_STORE, "data"),
    Output(ids.PARAMS_MESSAGE, "children"),
    Input({"type": ids.PARAM_TYPE, "sched": ALL, "name": ALL}, "value"),
    State({"type": ids.PARAM_TYPE, "sched": ALL, "name": ALL}, "id"),
    State(ids.PARAMS_STORE, "data"),
    prevent_initial_call=True,
)
def apply_params(values, param_ids, stored):
    """Valid values replace the stored ones; an invalid one is named and the old value kept."""
    params = {s: dict(v) for s, v in (stored or {}).items()}
    errors = []
    for pid, value in zip(param_ids, values, strict=True):
        try:
            params.setdefault(pid["sched"], {})[pid["name"]] = web_param(
                pid["sched"], pid["name"], value
            )
        except SchedulerError as err:
            errors.append(str(err))
    message = (
        html.Span("; ".join(errors) + " — the previous value stays in force.", className="error")
        if errors
        else ""
    )
    return (params if params != stored else no_update), message

"""Simulate: run the comparison as a Spark job in the server's pool, with progress and Cancel.

Start submits ``dashboard.jobs.spark_compare`` to the job pool (or answers at
once from the cache); a ``dcc.Interval`` polls the job's progress until it
finishes; Cancel cancels its Spark job group. A failed or cancelled job
leaves a message and a usable page.

On a topology set (several ``topologies``) Simulate runs ``slotscope sweep``'s job
instead (:func:`core.sweep.spark_sweep`: one Spark task per scheduler on the whole set,
R* and latency per topology at the page's rate), drawn by :mod:`dashboard.sweep_view`;
replicas, tuples and the rate sweep do not apply to it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from dash import Input, Output, State, callback, dcc, html, no_update
from flask import current_app

from core import spark
from core.registry import SCHEDULERS
from core.settings import (
    MAX_REPLICAS,
    MAX_TUPLES,
    MIN_TUPLES,
    REPLICAS,
    TUPLES,
    Settings,
    SettingsError,
    check_count,
    check_rate,
)
from core.sweep import spark_sweep
from dashboard import ids, sweep_view
from dashboard.compute import canonical, scenario_of
from dashboard.jobs import (
    CANCELLED,
    DONE,
    FAILED,
    MASTER_CONFIG,
    SPARK_NICE,
    job_pool,
    settings_key,
    spark_compare,
    web_params,
)

SWEEP_FACTORS = (0.5, 1.0, 1.5, 2.0, 3.0)  # offered-rate multiples of a sweep
DEMO_TUPLES = 10_000  # the page's spout tuples per replica: demo speed; raise it for tight p99
POLL_MS = 300
SIMULATE_TITLE = "Run every selected scheduler through the simulator as one Spark job"
EXPORT_TITLES = {
    ids.DOWNLOAD_CSV_BUTTON: "The simulation results as CSV (slotscope simulate --csv)",
    ids.DOWNLOAD_JSON_BUTTON: "The simulation results as JSON (slotscope simulate --json)",
}
NO_RESULTS = "Nothing to export yet: press Simulate first"


def sweep_rates(rate: float, sweep: bool) -> list[float]:
    """The offered rates to simulate: the rate itself, or a sweep around it.

    >>> sweep_rates(1000, True)
    [500.0, 1000.0, 1500.0, 2000.0, 3000.0]
    """
    if not sweep:
        return [float(rate)]
    return sorted({round(float(rate) * f, 6) for f in SWEEP_FACTORS})


def settings_problems(selected: Sequence[str] | None, rate: Any, replicas: Any, tuples: Any):
    """Why Simulate cannot run with these inputs: (at the rate, at replicas and tuples,
    on the button); "" where nothing is wrong.

    >>> settings_problems(["even"], 1000, 0, 10_000)[1]
    'replicas: 0 is not between 1 and 32'
    """
    checks = {}
    for name, check in (
        ("rate", lambda: check_rate(rate)),
        ("replicas", lambda: check_count(REPLICAS, replicas, 1, MAX_REPLICAS)),
        ("tuples", lambda: check_count(TUPLES, tuples, MIN_TUPLES, MAX_TUPLES)),
    ):
        try:
            check()
            checks[name] = ""
        except SettingsError as err:
            checks[name] = str(err)
    at_settings = "; ".join(m for m in (checks["replicas"], checks["tuples"]) if m)
    chosen = [s for s in SCHEDULERS if s in (selected or [])]
    reasons = [m for m in (checks["rate"], at_settings) if m]
    if not chosen:
        reasons.insert(0, "pick at least one scheduler")
    return checks["rate"], at_settings, "; ".join(reasons)


def export_states(results: Mapping[str, Any] | None) -> tuple[bool, str, bool, str]:
    """(disabled, title) of the CSV and the JSON button: enabled once there are results."""
    if results and (results.get("results") or sweep_view.is_set_results(results)):
        return (
            False,
            EXPORT_TITLES[ids.DOWNLOAD_CSV_BUTTON],
            False,
            EXPORT_TITLES[ids.DOWNLOAD_JSON_BUTTON],
        )
    return True, NO_RESULTS, True, NO_RESULTS


def controls() -> html.Div:
    return html.Div(
        className="sim-controls",
        children=[
            html.Div(
                className="sim-buttons",
                children=[
                    html.Button(
                        "▶ Simulate",
                        id=ids.SIMULATE,
                        className="btn btn-primary",
                        title=SIMULATE_TITLE,
                    ),
                    html.Button(
                        "Cancel",
                        id=ids.CANCEL,
                        className="btn btn-ghost",
                        disabled=True,
                        title="Cancel the running simulation (disabled while none runs)",
                    ),
                ],
            ),
            html.Div(
                className="sim-settings",
                children=[
                    dcc.Checklist(
                        id=ids.SWEEP,
                        options=[{"label": " sweep ½×–3× rate", "value": "on"}],
                        value=["on"],
                        className="toggle",
                    ),
                    html.Label(
                        [
                            "replicas ",
                            dcc.Input(  # no min/max: the server names the range
                                id=ids.REPLICAS,
                                type="number",
                                step=1,
                                value=1,
                                className="small-input",
                            ),
                        ]
                    ),
                    html.Label(
                        [
                            "tuples ",
                            dcc.Input(  # no min/max/step: the server names the range
                                id=ids.TUPLES,
                                type="number",
                                step=1,
                                value=DEMO_TUPLES,
                                className="mid-input",
                            ),
                        ],
                        title="Spout tuples per replica (more: tighter percentiles, longer run)",
                    ),
                ],
            ),
            html.Div(id=ids.SETTINGS_MESSAGE, className="field-message", role="alert"),
            html.Div(
                className="progress",
                children=[
                    html.Div(id=ids.PROGRESS_BAR, className="progress-bar", style={"width": "0%"}),
                ],
            ),
            html.Div(id=ids.PROGRESS_LABEL, className="progress-label"),
            html.Div(id=ids.SIM_MESSAGE, className="message", role="status"),
            dcc.Interval(id=ids.POLL, interval=POLL_MS, disabled=True),
        ],
    )


def _bar(done: int, total: int, state: str = "running") -> dict[str, str]:
    pct = 100.0 if state == DONE else (100.0 * done / total if total else 0.0)
    return {"width": f"{pct:.0f}%"}


def is_topology_set(scenario: Mapping[str, Any] | None) -> bool:
    """Whether the page's scenario (its JSON) is a set of several topologies
    (``Scenario.is_set``), read without validating it again.

    >>> is_topology_set({"topologies": [{}, {}]}), is_topology_set({"topologies": [{}]})
    (True, False)
    """
    return len((scenario or {}).get("topologies") or []) > 1


def results_store(
    doc: Mapping[str, Any], offered: float, scenario_text: str, kind: str = ""
) -> dict[str, Any]:
    """What the results store holds: the rows, and the scenario they belong to."""
    if kind == sweep_view.SET_KIND:
        return sweep_view.pack(doc, offered, scenario_text)
    return {
        "engine": doc.get("engine", {}),
        "results": list(doc.get("results", [])) + list(doc.get("skipped", [])),
        "offered": offered,
        "scenario": scenario_text,
    }


def _done_label(status: Mapping[str, Any], doc: Mapping[str, Any]) -> str:
    engine = doc.get("engine", {})
    tasks = engine.get("tasks", status["total"])
    where = f" on {engine['master']}" if engine.get("master") else ""
    if status["cached"]:
        ran = f"ran{where} in {engine.get('wall_s', 0):.1f} s"
        return f"{tasks} / {tasks} tasks · from the cache ({ran})"
    return f"{tasks} / {tasks} tasks · {status['elapsed_s']:.1f} s{where}"


def _not_started(why: str) -> html.Div:
    return html.Div(f"Not started: {why}", className="alert alert-error")


def _comparison(scenario_text: str, schedulers: Sequence[tuple[str, dict]], settings: Settings):
    def work(job_group: str, progress) -> dict[str, Any]:
        return spark_compare(
            scenario_of(scenario_text),
            schedulers,
            settings.rates,
            settings.replicas,
            settings.tuples,
            seed=settings.seed,
            master=settings.master,
            group=job_group,
            progress=progress,
        )

    return work


def _set_sweep(scenario_text: str, schedulers: Sequence[tuple[str, dict]], settings: Settings):
    """The job of Simulate on a topology set: ``slotscope sweep``'s, in the job's group
    (so Cancel cancels it), at the page's rate, with the page's parameters within its caps."""
    names = [sid for sid, _ in schedulers]
    params = {sid: json.loads(web_params(sid, canonical(p))) for sid, p in schedulers if p}

    def work(job_group: str, progress) -> dict[str, Any]:
        scenario = scenario_of(scenario_text)
        spark.lower_priority(SPARK_NICE)  # as spark_compare: the page keeps its CPU
        try:
            return spark_sweep(
                scenario,
                {"json": scenario_text},
                names,
                settings.rates,
                master=settings.master,
                progress=progress,
                group=job_group,
                params=params,
            )
        finally:
            spark.lower_priority(SPARK_NICE)

    return work


@callback(
    output={
        "job": Output(ids.JOB_STORE, "data"),
        "poll": Output(ids.POLL, "disabled"),
        "message": Output(ids.SIM_MESSAGE, "children"),
        "results": Output(ids.RESULTS_STORE, "data", allow_duplicate=True),
        "buttons": (Output(ids.SIMULATE, "disabled"), Output(ids.CANCEL, "disabled")),
        "bar": Output(ids.PROGRESS_BAR, "style"),
        "label": Output(ids.PROGRESS_LABEL, "children"),
    },
    inputs={
        "clicks": Input(ids.SIMULATE, "n_clicks"),
        "scenario": State(ids.SCENARIO_STORE, "data"),
        "selected": State(ids.SCHEDULERS, "value"),
        "params": State(ids.PARAMS_STORE, "data"),
        "rate": State(ids.RATE, "value"),
        "sweep": State(ids.SWEEP, "value"),
        "replicas": State(ids.REPLICAS, "value"),
        "tuples": State(ids.TUPLES, "value"),
        "shown": State(ids.JOB_STORE, "data"),
    },
    prevent_initial_call=True,
)
def start_simulation(clicks, scenario, selected, params, rate, sweep, replicas, tuples, shown):
    """Submit the comparison (or take it from the cache) and start polling."""
    unchanged = {
        "job": no_update,
        "poll": no_update,
        "results": no_update,
        "buttons": (no_update, no_update),
        "bar": no_update,
        "label": no_update,
    }
    chosen = [s for s in SCHEDULERS if s in (selected or [])]
    if not chosen:
        return {**unchanged, "message": _not_started("pick at least one scheduler to simulate")}
    kind = sweep_view.SET_KIND if is_topology_set(scenario) else ""
    try:
        checked = check_rate(rate)
        settings = Settings(
            rates=(checked,) if kind else tuple(sweep_rates(checked, bool(sweep))),
            replicas=replicas,
            tuples=tuples,
            seed=0,
            master=current_app.config.get(MASTER_CONFIG),
        )
    except SettingsError as err:
        return {**unchanged, "message": _not_started(str(err))}
    schedulers = [(s, dict((params or {}).get(s, {}))) for s in chosen]
    pool = job_pool()
    text = canonical(scenario)
    marks = {"kind": kind} if kind else {}  # a single topology keeps its cache keys
    key = settings_key(scenario, {"schedulers": schedulers, **marks, **settings.as_dict()})
    work = _set_sweep if kind else _comparison
    job_id = pool.submit(key, work(text, schedulers, settings))
    status = pool.status(job_id)
    job = {"id": job_id, "rate": float(rate), "key": key, "scenario": text, "kind": kind}
    if status["state"] == DONE:
        doc = pool.result(job_id)
        same = bool(shown) and shown.get("key") == key  # these results are on screen already
        return {
            "job": job,
            "poll": True,
            "message": "",
            "results": no_update if same else results_store(doc, float(rate), text, kind),
            "buttons": (False, True),
            "bar": _bar(1, 1, DONE),
            "label": _done_label(status, doc),
        }
    return {
        "job": job,
        "poll": False,
        "message": "",
        "results": no_update,
        "buttons": (True, False),
        "bar": _bar(0, 0),
        "label": "Starting the Spark job…",
    }


@callback(
    output={
        "bar": Output(ids.PROGRESS_BAR, "style", allow_duplicate=True),
        "label": Output(ids.PROGRESS_LABEL, "children", allow_duplicate=True),
        "results": Output(ids.RESULTS_STORE, "data", allow_duplicate=True),
        "poll": Output(ids.POLL, "disabled", allow_duplicate=True),
        "message": Output(ids.SIM_MESSAGE, "children", allow_duplicate=True),
        "buttons": (
            Output(ids.SIMULATE, "disabled", allow_duplicate=True),
            Output(ids.CANCEL, "disabled", allow_duplicate=True),
        ),
    },
    inputs={"tick": Input(ids.POLL, "n_intervals"), "job": State(ids.JOB_STORE, "data")},
    prevent_initial_call=True,
)
def poll_job(tick, job):
    """Progress while the job runs; the results, or why there are none, when it ends."""
    pool = job_pool()
    status = pool.status(job["id"]) if job else None
    stopped = {"poll": True, "buttons": (False, True), "results": no_update}
    if status is None:
        return {
            **stopped,
            "bar": _bar(0, 0),
            "label": "",
            "message": html.Div(
                "The simulation is no longer known to the server.", className="alert alert-error"
            ),
        }
    if status["state"] == DONE:
        doc = pool.result(job["id"])
        return {
            **stopped,
            "results": results_store(
                doc, job["rate"], job.get("scenario", ""), job.get("kind", "")
            ),
            "bar": _bar(1, 1, DONE),
            "label": _done_label(status, doc),
            "message": "",
        }
    if status["state"] in (FAILED, CANCELLED):
        kind = "alert-warn" if status["state"] == CANCELLED else "alert-error"
        text = status["message"] + " The placements and earlier results are unaffected."
        return {
            **stopped,
            "bar": _bar(0, 0),
            "label": "",
            "message": html.Div(text, className=f"alert {kind}"),
        }
    done, total = status["done"], status["total"]
    label = (
        f"{done} / {total} tasks · {status['elapsed_s']:.1f} s"
        if total
        else f"Starting the Spark job… {status['elapsed_s']:.1f} s"
    )
    return {
        "poll": False,
        "buttons": (no_update, no_update),
        "results": no_update,
        "bar": _bar(done, total),
        "label": label,
        "message": status["message"] or no_update,
    }


@callback(
    Output(ids.SIM_MESSAGE, "children", allow_duplicate=True),
    Input(ids.CANCEL, "n_clicks"),
    State(ids.JOB_STORE, "data"),
    prevent_initial_call=True,
)
def cancel_job(_clicks, job):
    if job and job_pool().cancel(job["id"]):
        return html.Div("Cancelling…", className="alert alert-warn")
    return no_update


@callback(
    Output(ids.DOWNLOAD_CSV_BUTTON, "disabled"),
    Output(ids.DOWNLOAD_CSV_BUTTON, "title"),
    Output(ids.DOWNLOAD_JSON_BUTTON, "disabled"),
    Output(ids.DOWNLOAD_JSON_BUTTON, "title"),
    Input(ids.RESULTS_STORE, "data"),
)
def show_export_states(results):
    """CSV and JSON wait for a simulation's results, and say so."""
    return export_states(results)


@callback(
    Output(ids.SETTINGS_MESSAGE, "children"),
    Output(ids.SIMULATE, "disabled", allow_duplicate=True),
    Output(ids.SIMULATE, "title"),
    Output(ids.SIM_MESSAGE, "children", allow_duplicate=True),
    Input(ids.SCHEDULERS, "value"),
    Input(ids.RATE, "value"),
    Input(ids.REPLICAS, "value"),
    Input(ids.TUPLES, "value"),
    State(ids.POLL, "disabled"),
    State(ids.SIM_MESSAGE, "children"),
    prevent_initial_call="initial_duplicate",
)
def check_settings(selected, rate, replicas, tuples, idle, message):
    """Replicas and tuples say at their field what is wrong; Simulate is disabled, with the
    reason as its tooltip, while it cannot run (untouched while a job runs); a "Not started"
    message goes once its cause is fixed."""
    _, at_settings, reason = settings_problems(selected, rate, replicas, tuples)
    running = idle is False
    stale = not reason and "Not started" in str(message or "")
    return (
        html.Span(at_settings, className="error") if at_settings else "",
        no_update if running else bool(reason),
        f"Cannot simulate: {reason}" if reason else SIMULATE_TITLE,
        "" if stale else no_update,
    )

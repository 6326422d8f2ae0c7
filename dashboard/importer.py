"""The Import button: Storm UI REST responses or a Flink job plan become the scenario.

One or several JSON files dropped on the button (Storm's topology, visualization
and supervisor-summary responses together, or one Flink plan) go through
``core.importers`` exactly as ``slotscope import`` does; the scenario replaces the
one in the editors the way an uploaded scenario does, and the list of what had to
be assumed is shown under the bar. A refused import names the file and the field
and keeps the current scenario. Nothing in an upload is executed.
"""

from __future__ import annotations

import logging
from typing import Any

from dash import Input, Output, State, callback, dcc, html, no_update

from core.importers import import_documents, parse_document
from core.model import ScenarioError
from dashboard import ids, view_state
from dashboard.rows import scenario_outputs
from dashboard.transfer import (
    UPLOAD_GUARD_BYTES,
    check_dashboard_size,
    guarded,
    upload_bytes,
)

log = logging.getLogger(__name__)

MAX_FILES = 4  # Storm needs three responses; one more is always a mistake
SOURCE_NAMES = {"storm": "the Storm UI REST API", "flink": "an Apache Flink job plan"}


def control() -> dcc.Upload:
    """The Import button (a file drop that takes several JSON files at once)."""
    return dcc.Upload(
        id=ids.IMPORT_UPLOAD,
        className="upload import-upload",
        max_size=UPLOAD_GUARD_BYTES,
        multiple=True,
        children=html.Span(
            [html.U("Import"), " Storm UI / Flink plan JSON"],
            title=(
                "Storm: /api/v1/topology/ID, its /visualization and /api/v1/supervisor/summary "
                "(select all three); Flink: get_execution_plan() or /jobs/JID/plan"
            ),
        ),
    )


def decode(contents: str | None, filename: str | None) -> Any:
    """Parsed JSON of one uploaded file; ScenarioError if refused."""
    raw, source = upload_bytes(contents, filename)
    return guarded(source, lambda: parse_document(raw, source))


def import_uploads(contents: list[str] | None, filenames: list[str] | None):
    """The :class:`~core.importers.common.Imported` of one drop of files."""
    contents = list(contents or [])
    names = list(filenames or [])
    names += [f"file {i + 1}" for i in range(len(names), len(contents))]
    if not contents:
        raise ScenarioError("import", "no file")
    if len(contents) > MAX_FILES:
        raise ScenarioError("import", f"{len(contents)} files, at most {MAX_FILES}")
    documents = [(name, decode(c, name)) for c, name in zip(contents, names, strict=False)]
    return guarded(", ".join(names), lambda: import_documents(documents))


def report(imported, filenames: list[str]) -> html.Div:
    """What was imported and, as a list, every assumption the importer made."""
    sc = imported.scenario
    executors = sum(c.parallelism for c in sc.topology.components)
    head = (
        f"Imported {sc.name} from {SOURCE_NAMES.get(imported.source, imported.source)} "
        f"({', '.join(filenames)}): {len(sc.topology.components)} components, "
        f"{executors} executors, {len(sc.cluster.nodes)} nodes."
    )
    children: list[Any] = [html.Span(head, className="ok")]
    if imported.warnings:
        children.append(
            html.Details(
                [
                    html.Summary(f"{len(imported.warnings)} assumptions (the source lacks them)"),
                    html.Ul([html.Li(w) for w in imported.warnings], className="import-warnings"),
                ],
                open=True,
                className="import-report",
            )
        )
    return html.Div(children, id=ids.IMPORT_REPORT)


@callback(
    Output(ids.BASE_STORE, "data", allow_duplicate=True),
    Output(ids.NODES_GRID, "rowData", allow_duplicate=True),
    Output(ids.COMPONENTS_GRID, "rowData", allow_duplicate=True),
    Output(ids.STREAMS_GRID, "rowData", allow_duplicate=True),
    Output(ids.WORKERS, "value", allow_duplicate=True),
    Output(ids.ACKERS, "value", allow_duplicate=True),
    Output(ids.RATE, "value", allow_duplicate=True),
    Output(ids.PRESET, "value", allow_duplicate=True),
    Output(ids.PRESET, "options", allow_duplicate=True),
    Output(ids.LOADED_STORE, "data", allow_duplicate=True),
    Output(ids.BAR_MESSAGE, "children", allow_duplicate=True),
    Input(ids.IMPORT_UPLOAD, "contents"),
    State(ids.IMPORT_UPLOAD, "filename"),
    prevent_initial_call=True,
)
def import_topology(contents, filenames):
    """Imported files become the scenario in the editors, and the preset box says
    ``imported: NAME``; a refusal keeps the current one."""
    try:
        imported = import_uploads(contents, filenames)
        check_dashboard_size(imported.scenario)
    except ScenarioError as err:
        refused = html.Span(["Import refused — ", str(err)], className="error")
        return (no_update,) * 10 + (refused,)
    except Exception as err:  # whatever the files hold, a message and the scenario kept
        log.exception("import of %s failed", filenames)
        why = f"could not be read ({type(err).__name__})"
        return (no_update,) * 10 + (html.Span(["Import refused — ", why], className="error"),)
    loaded = view_state.loaded_value("imported", imported.scenario.name)
    return (
        *scenario_outputs(imported.scenario),
        loaded,
        view_state.preset_options(loaded),
        loaded,
        report(imported, list(filenames or [])),
    )

"""The cluster and topology editors: three editable AG Grids and W / ackers.

Every edit rebuilds the scenario from the grids and validates it. A valid
scenario replaces the one in force (and the placements refresh); an invalid
one leaves the scenario in force untouched, outlines the offending cell and
says what is wrong, in the cell's tooltip and above the grids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dash_ag_grid as dag
from dash import Input, Output, State, callback, ctx, dcc, html, no_update

from core.cpus import CPUS
from core.model import GROUPINGS, Scenario, ScenarioError
from dashboard import ids
from dashboard.glossary import FLOPS_FORMATTER, FLOPS_HEADER, FLOPS_TOOLTIP, SPEED_TOOLTIP
from dashboard.rows import (
    COMPONENTS,
    ERROR_PREFIX,
    GRIDS,
    NODES,
    ROW_ID,
    STREAMS,
    CellError,
    clear_marks,
    locate,
    mark,
    rows_after,
    scenario_from_rows,
    with_derived,
)
from dashboard.transfer import check_dashboard_size

GRID_IDS = {NODES: ids.NODES_GRID, COMPONENTS: ids.COMPONENTS_GRID, STREAMS: ids.STREAMS_GRID}
ROW_OPS = {
    NODES: ("add", "duplicate", "delete"),
    COMPONENTS: ("add", "duplicate", "delete"),
    STREAMS: ("add", "delete"),
}
OP_LABELS = {"add": "+ Add", "duplicate": "Duplicate", "delete": "Delete"}

HEADERS: Mapping[str, Sequence[tuple[str, str, str]]] = {
    NODES: (
        ("id", "Node", "text"),
        ("cpu_model", "CPU model", "text"),
        ("type", "Type", "text"),
        ("sockets", "Sockets", "number"),
        ("cores", "Cores", "number"),
        ("threads", "Threads", "number"),
        ("ghz", "GHz", "number"),
        ("flops_per_cycle", FLOPS_HEADER, "number"),
        ("ram_gb", "RAM GB", "number"),
        ("slots", "Slots", "number"),
        ("rack", "Rack", "text"),
    ),
    COMPONENTS: (
        ("id", "Component", "text"),
        ("parallelism", "Parallelism", "number"),
        ("cpu_us", "CPU µs/tuple", "number"),
        ("selectivity", "Selectivity", "number"),
        ("tuple_bytes", "Tuple bytes", "number"),
        ("cpu_pct", "CPU % (R-Storm)", "number"),
        ("memory_mb", "Memory MB", "number"),
    ),
    STREAMS: (("from", "From", "text"), ("to", "To", "text"), ("grouping", "Grouping", "text")),
}
# Shown, not edited: a CPU model fills cores, threads and GHz only where a node leaves them
# out, and a loaded node has them all, so picking another model here would change its speed
# per clock while its cores, threads and clock stayed: the three are edited instead.
READ_ONLY = {"cpu_model"}
HEADER_TOOLTIPS = {
    "cpu_model": "The node's processor in slotscope's CPU table (core/cpus.py: "
    + ", ".join(CPUS)
    + "); it sets the work per clock and the all-core clock. Read-only here: edit Cores, "
    "Threads and GHz. Empty: no model (work per clock 1, the base clock).",
    "threads": "Hardware threads per socket (SMT, e.g. Hyper-Threading), at least the "
    "cores; empty: the CPU model's threads per core x cores, else as many as the cores. "
    "By default each thread beyond a core adds 0.3 of a core (Intel's up-to-30% figure).",
    "cores": "Physical cores per socket, at most the node's hardware threads: to add "
    "cores beyond them, raise Threads too.",
}
DERIVED_COLUMNS = (
    ("processing_speed", "Speed", SPEED_TOOLTIP),
    ("computation_power", "Power", "0.8 × speed + 0.2 × RAM GB (TOP-Storm Eq. 2, α = 0.8)"),
)


def column_defs(grid: str) -> list[dict[str, Any]]:
    """Editable columns that show their validation message, then read-only derived ones."""
    cols: list[dict[str, Any]] = []
    for field, header, kind in HEADERS[grid]:
        col = {
            "field": field,
            "headerName": header,
            "cellDataType": kind,
            "editable": field not in READ_ONLY,
            "cellClassRules": {"cell-invalid": f"params.data.{ERROR_PREFIX}{field}"},
            "tooltipField": f"{ERROR_PREFIX}{field}",
        }
        if field == "id":
            col.update(pinned="left", minWidth=96)
        if field in HEADER_TOOLTIPS:
            col["headerTooltip"] = HEADER_TOOLTIPS[field]
        if field in READ_ONLY:
            col.update(cellClass="derived", minWidth=96)
        if field == "flops_per_cycle":  # TOP-Storm's Table 4 puts BogoMIPS here: say so
            col.update(headerTooltip=FLOPS_TOOLTIP, valueFormatter=FLOPS_FORMATTER, minWidth=120)
        if field == "grouping":
            col.update(
                cellEditor="agSelectCellEditor", cellEditorParams={"values": list(GROUPINGS)}
            )
        cols.append(col)
    if grid == NODES:
        cols += [
            {
                "field": f,
                "headerName": h,
                "headerTooltip": tip,
                "editable": False,
                "cellDataType": "number",
                "cellClass": "derived",
                "minWidth": 76,
            }
            for f, h, tip in DERIVED_COLUMNS
        ]
    return cols


def _grid(grid: str, rows: list[dict[str, Any]], height: int) -> dag.AgGrid:
    return dag.AgGrid(
        id=GRID_IDS[grid],
        rowData=rows,
        columnDefs=column_defs(grid),
        defaultColDef={"resizable": True, "sortable": False, "minWidth": 62, "flex": 1},
        getRowId=f"params.data.{ROW_ID}",
        columnSize="sizeToFit",
        dashGridOptions={
            "rowSelection": {
                "mode": "multiRow",
                "checkboxes": True,
                "headerCheckbox": True,
                "enableClickSelection": False,
            },
            "selectionColumnDef": {"pinned": "left", "width": 40, "maxWidth": 40},
            "singleClickEdit": True,
            "stopEditingWhenCellsLoseFocus": True,
            "tooltipShowDelay": 150,
            "animateRows": False,
            "theme": {
                "function": "themeQuartz.withParams({fontSize: 12, spacing: 5, "
                "headerFontWeight: 600, accentColor: '#4f46e5', "
                "wrapperBorderRadius: 8})"
            },
        },
        style={"height": f"{height}px", "width": "100%"},
        className="editor-grid",
    )


def _toolbar(grid: str, title: str, extra: Sequence[Any] = ()) -> html.Div:
    buttons = [
        html.Button(
            OP_LABELS[op],
            id=ids.row_op_id(grid, op),
            className="btn btn-small",
            title=f"{OP_LABELS[op]} {'the selected rows' if op != 'add' else 'a row'}",
        )
        for op in ROW_OPS[grid]
    ]
    return html.Div(
        [html.H3(title), *extra, html.Div(buttons, className="toolbar-buttons")],
        className="grid-toolbar",
    )


def layout(rows: Mapping[str, list[dict[str, Any]]], scenario: Scenario) -> html.Details:
    topo = scenario.topology
    topology_inputs = [
        html.Label(
            [
                "W (workers) ",
                dcc.Input(
                    id=ids.WORKERS,
                    type="number",
                    step=1,
                    value=topo.workers,
                    debounce=True,
                    placeholder="nodes",
                    className="small-input",
                ),
            ],
            title="Worker slots the topology asks for; empty = one per node",
        ),
        html.Label(
            [
                "Ackers ",
                dcc.Input(
                    id=ids.ACKERS,
                    type="number",
                    step=1,
                    value=topo.ackers,
                    debounce=True,
                    className="small-input",
                ),
            ],
            title="Storm's __acker executors, fed by every component",
        ),
        # no min on W and ackers: the browser would send 0 as empty (W: one per node)
        html.Div(id=ids.TOPOLOGY_MESSAGE, className="field-message", role="alert"),
    ]
    return html.Details(
        open=True,
        className="card editors",
        children=[
            html.Summary(
                [
                    html.H2("Cluster & topology"),
                    html.Span(
                        "Click a cell to edit. An invalid value is outlined in red and "
                        "the last valid scenario stays in force.",
                        className="muted",
                    ),
                ]
            ),
            html.Div(id=ids.EDIT_MESSAGE, className="message", role="alert"),
            html.Div(
                className="editor-layout",
                children=[
                    html.Div(
                        [_toolbar(NODES, "Nodes"), _grid(NODES, rows[NODES], 262)],
                        className="editor-nodes",
                    ),
                    html.Div(
                        [
                            _toolbar(COMPONENTS, "Components", topology_inputs),
                            _grid(COMPONENTS, rows[COMPONENTS], 150),
                            _toolbar(STREAMS, "Streams"),
                            _grid(STREAMS, rows[STREAMS], 112),
                        ],
                        className="editor-topology",
                    ),
                ],
            ),
        ],
    )


TOPOLOGY_FIELDS = {"topology.workers": "workers", "topology.ackers": "ackers"}


def topology_feedback(err: ScenarioError | None) -> tuple[Any, str, str]:
    """The message at W and ackers, and their classes, for a validation error (or None).

    >>> topology_feedback(ScenarioError("topology.workers", "too few"))[1:]
    ('small-input invalid', 'small-input')
    """
    wrong = TOPOLOGY_FIELDS.get(err.path) if err is not None else None
    classes = {
        f: "small-input invalid" if f == wrong else "small-input" for f in ("workers", "ackers")
    }
    message = html.Span(str(err), className="error") if wrong else ""
    return message, classes["workers"], classes["ackers"]


def _changed(new: list[dict[str, Any]], old: list[dict[str, Any]]) -> Any:
    return new if new != old else no_update


# What to do about a message that names a cell other than the one just edited
FIX_HINTS = {(NODES, "threads"): " Raise Threads with the cores (or type fewer cores)."}


def error_banner(cell: CellError) -> html.Div:
    where = f"{cell.grid} row {cell.row + 1}, column '{cell.column}': " if cell.grid else ""
    return html.Div(
        [
            html.Strong("Not applied. "),
            where,
            cell.message,
            FIX_HINTS.get((cell.grid or "", cell.column or ""), ""),
            html.Span(" — the placements show the last valid scenario.", className="muted"),
        ],
        className="alert alert-error",
    )


@callback(
    output={
        "scenario": Output(ids.SCENARIO_STORE, "data"),
        "rows": {g: Output(GRID_IDS[g], "rowData", allow_duplicate=True) for g in GRIDS},
        "message": Output(ids.EDIT_MESSAGE, "children"),
        "at_topology": (
            Output(ids.TOPOLOGY_MESSAGE, "children"),
            Output(ids.WORKERS, "className"),
            Output(ids.ACKERS, "className"),
        ),
    },
    inputs={
        "edits": [Input(GRID_IDS[g], "cellValueChanged") for g in GRIDS],
        "rows": {g: Input(GRID_IDS[g], "rowData") for g in GRIDS},
        "workers": Input(ids.WORKERS, "value"),
        "ackers": Input(ids.ACKERS, "value"),
        "base": State(ids.BASE_STORE, "data"),
        "current": State(ids.SCENARIO_STORE, "data"),
    },
    prevent_initial_call=True,
)
def apply_edits(edits, rows, workers, ackers, base, current):
    """Validate the scenario the editors describe; keep the one in force when it is invalid."""
    rows = {g: list(rows[g] or []) for g in GRIDS}
    try:
        scenario = check_dashboard_size(scenario_from_rows(base, rows, workers, ackers))
    except ScenarioError as err:
        cell = locate(err)
        return {
            "scenario": no_update,
            "rows": {g: _changed(mark(rows[g], cell, g), rows[g]) for g in GRIDS},
            "message": error_banner(cell),
            "at_topology": topology_feedback(err),
        }
    fresh = {g: clear_marks(rows[g]) for g in GRIDS}
    fresh[NODES] = [with_derived(r) for r in fresh[NODES]]
    data = scenario.to_json_dict()
    return {
        "scenario": data if data != current else no_update,
        "rows": {g: _changed(fresh[g], rows[g]) for g in GRIDS},
        "message": "",
        "at_topology": topology_feedback(None),
    }


def _row_operations(grid: str) -> None:
    @callback(
        output=Output(GRID_IDS[grid], "rowData", allow_duplicate=True),
        inputs={
            "clicks": [Input(ids.row_op_id(grid, op), "n_clicks") for op in ROW_OPS[grid]],
            "rows": State(GRID_IDS[grid], "rowData"),
            "selected": State(GRID_IDS[grid], "selectedRows"),
        },
        prevent_initial_call=True,
    )
    def edit_rows(clicks, rows, selected):
        """Add, duplicate or delete rows; the scenario follows through ``apply_edits``."""
        return rows_after(ctx.triggered_id["op"], grid, rows or [], selected or [])


for _grid_name in GRIDS:
    _row_operations(_grid_name)

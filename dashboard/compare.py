"""Compare two schedulers: which executors moved, and what each figure gains or loses.

Pick a pair; the executors that sit elsewhere under the second scheduler are
outlined in both placement maps (another node: solid, another worker of the
same node: dashed) and a table sets the pair's headline figures side by side.
Built from the memoised evaluations the panels already hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dash import Input, Output, State, callback, dcc, html, no_update

from core.metrics import PlacementChanges, placement_changes
from core.registry import SCHEDULERS
from dashboard import ids
from dashboard.compute import Evaluation, canonical, evaluate
from dashboard.jobs import panel_ready
from dashboard.ranking import FIGURES, Standing, standing
from dashboard.static_html import static
from dashboard.view_state import default_pair, follow_selection


def controls(
    selected: Sequence[str], result: Any = None, compared: Mapping[str, Any] | None = None
) -> html.Div:
    """The pair pickers (first two selected schedulers by default), the result area and the
    store (``result`` and ``compared``: :func:`result_of` and :func:`store_of_pair` of the
    default pair in the scenario served). Picking a pair draws its result and outlines
    (``dashboard.panels.compare_pair``)."""
    options = picker_options(selected)
    first, second = default_pair(selected)
    return html.Div(
        className="compare",
        children=[
            html.Span("Compare", className="compare-label"),
            dcc.Dropdown(id=ids.COMPARE_A, options=options, value=first, clearable=True),
            html.Span("with", className="muted"),
            dcc.Dropdown(id=ids.COMPARE_B, options=options, value=second, clearable=True),
            html.Div(result, id=ids.COMPARE_RESULT, className="compare-result"),
            dcc.Store(id=ids.COMPARE_STORE, data=compared),
        ],
    )


def picker_options(selected: Sequence[str]) -> list[dict[str, str]]:
    """The pickers offer the selected schedulers only."""
    return [{"label": s, "value": s} for s in selected if s in SCHEDULERS]


@callback(
    Output(ids.COMPARE_A, "options"),
    Output(ids.COMPARE_B, "options"),
    Output(ids.COMPARE_A, "value", allow_duplicate=True),
    Output(ids.COMPARE_B, "value", allow_duplicate=True),
    Input(ids.SCHEDULERS, "value"),
    State(ids.COMPARE_A, "value"),
    State(ids.COMPARE_B, "value"),
    prevent_initial_call=True,
)
def follow_schedulers(selected, a, b):
    """The pickers follow the selection: a deselected scheduler leaves them (its place goes
    to the first selected one not picked)."""
    chosen = [s for s in selected or [] if s in SCHEDULERS]
    options = picker_options(chosen)
    pair = follow_selection(chosen, (a, b))
    return (
        options,
        options,
        pair[0] if pair[0] != a else no_update,
        pair[1] if pair[1] != b else no_update,
    )


def changes_of(a: Evaluation, b: Evaluation) -> PlacementChanges | None:
    """Executors moved from a's placement to b's; None when either has none."""
    if a.schedule is None or b.schedule is None or not (a.schedule.ok and b.schedule.ok):
        return None
    return placement_changes(a.schedule.placement(), b.schedule.placement())


def moved_line(changes: PlacementChanges | None, a: str, b: str) -> str:
    """One sentence on what moved.

    >>> moved_line(PlacementChanges(("x#0",), ("y#0", "y#1"), (), ()), "even", "lf")
    'lf places 3 executors elsewhere than even: 1 on another node, 2 in another worker'
    """
    if changes is None:
        return f"{a} or {b} could not place the scenario."
    n, s = len(changes.moved_node), len(changes.moved_slot)
    if n + s == 0 and not changes.only_a and not changes.only_b:
        return f"{b} places every executor where {a} does"
    line = (
        f"{b} places {n + s} executors elsewhere than {a}: "
        f"{n} on another node, {s} in another worker"
    )
    if changes.only_a or changes.only_b:
        line += f"; parallelism differs ({len(changes.only_a)} vs {len(changes.only_b)} unmatched)"
    return line


def difference_table(a: Standing, b: Standing) -> html.Table:
    """Each headline figure for a and b, b - a, and whether b is better."""
    rows = []
    for name, figure in FIGURES.items():
        va, vb = getattr(a, name), getattr(b, name)
        if va is None or vb is None:
            delta = "—"
        else:
            d = vb - va
            delta = format(d, "+" + figure.spec)
            if va:
                delta += f" ({d / abs(va):+.0%})"
        verdict = figure.compare(va, vb)
        rows.append(
            html.Tr(
                [
                    html.Td(figure.heading, title=figure.description),
                    html.Td(figure.format(va)),
                    html.Td(figure.format(vb)),
                    html.Td(delta, className=verdict or None),
                ]
            )
        )
    head = html.Tr([html.Th("figure"), html.Th(a.scheduler), html.Th(b.scheduler), html.Th("Δ")])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="compare-table")


def store_of(a: str, b: str, changes: PlacementChanges | None) -> dict[str, Any]:
    """What the placement maps need to outline the moved executors."""
    return {
        "pair": [a, b],
        "moved_node": list(changes.moved_node) if changes else [],
        "moved_slot": list(changes.moved_slot) if changes else [],
    }


PICK_TWO = "Pick two different schedulers."
WAITING = "Waiting for the background placement."


def pair_evaluations(
    text: str,
    pair: Sequence[str | None],
    params: Mapping[str, Mapping[str, Any]] | None,
    rate: float,
) -> tuple[Evaluation, Evaluation] | str:
    """The evaluations of the picked ``pair`` in the scenario ``text`` at ``rate`` tuples/s,
    or why there are none: :data:`PICK_TWO` for no pair of two known schedulers,
    :data:`WAITING` while either is placed in the background (never waited for here)."""
    a, b = pair
    if not a or not b or a == b or a not in SCHEDULERS or b not in SCHEDULERS:
        return PICK_TWO
    if not all(panel_ready(text, s, params, rate) for s in (a, b)):  # off the request
        return WAITING
    ea, eb = (evaluate(text, s, canonical((params or {}).get(s, {})), rate) for s in (a, b))
    return ea, eb


def store_of_pair(
    pair: Sequence[str | None], evaluated: tuple[Evaluation, Evaluation] | str
) -> dict[str, Any] | None:
    """The compare store of ``pair`` from its :func:`pair_evaluations` (None: no pair)."""
    if isinstance(evaluated, str):
        return None
    return store_of(str(pair[0]), str(pair[1]), changes_of(*evaluated))


def result_of(pair: Sequence[str | None], evaluated: tuple[Evaluation, Evaluation] | str) -> Any:
    """What the compare area shows for ``pair`` from its :func:`pair_evaluations`: what
    moved and the difference table, or why there is nothing to compare."""
    if isinstance(evaluated, str):
        return html.Span(evaluated, className="muted")
    a, b = str(pair[0]), str(pair[1])
    changes = changes_of(*evaluated)
    # one component (dashboard.static_html): the table's ~50 cells, rendered anew on every
    # preset switch and edit, each cost dash-renderer a pass over the page
    return static([html.P(moved_line(changes, a, b)), difference_table(*map(standing, evaluated))])

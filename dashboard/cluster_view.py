"""The Cluster view: a topology set's placement as a grid of nodes grouped by rack.

One small cell per node (a plotly heatmap: one trace draws thousands of cells), rows
grouped by rack, recoloured by the figure the user picks (:data:`GRID_FIGURES`: CPU
and memory used, as declared by the executors, slots used, executors). One grid per
picked scheduler, side by side, each with the topologies that did not fit under it,
in words (:func:`core.topology_set.explain_unfit`). Its component ids are in
:mod:`dashboard.ids` (``CLUSTER_*``). The topology picker greys out the
nodes that do not host the topology; clicking a cell lists the node's worker slots and
their executors by topology and component (:func:`node_slots`).

The per-node figures are plain numpy functions of the combined placement
(:func:`node_aggregates`: arrays that grow with executors plus nodes). Placements
(:func:`dashboard.compute.topology_set_schedule`, the view's one way into the core's
scheduling) run in the dashboard's background placement pool (:data:`dashboard.jobs.placements`);
a request waits at most :data:`WAIT_S` for them, then the view polls. Results are kept
per (preset, scheduler) for the server's life (:func:`cluster_result`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotly.graph_objects as go
from dash import ALL, Input, Output, State, callback, clientside_callback, ctx, dcc, html, no_update

from core.hardware import total_cores
from core.model import QUALIFIER, Scenario
from core.placement import Assignment
from core.presets import LARGE_PRESETS, preset
from core.registry import SCHEDULERS
from core.topology_set import CPU_PCT_PER_CORE, MB_PER_GB
from core.topology_set import component_requests as topology_requests
from dashboard import compute, ids, jobs

WAIT_S = 1.5  # a request waits this long for its placements, at most; then the view polls
POLL_MS = 1000
# Every node is a cell of at least CELL_PX x CELL_PX on screen, whatever the cluster's size
# (-02's 1,922 nodes were cells 5 px wide in a 96-wide row): a rack wraps onto rows of
# ROW_NODES cells, the figure is as wide as they are (GRID_WIDTH px), and a cluster that
# needs more rows makes the grid taller (the page scrolls), not its cells smaller.
CELL_PX = 16  # px, a node's cell (1 px of it is the gap between cells)
ROW_PX = CELL_PX  # height of a grid row, px
ROW_NODES = 32  # cells per grid row at most: a larger rack wraps onto further rows
GRID_MARGIN = {"l": 70, "r": 10, "t": 10, "b": 10}  # px: the rack labels on the left
COLORBAR_PX = 70  # px right of the cells: the colour scale and its ticks
GRID_WIDTH = GRID_MARGIN["l"] + ROW_NODES * CELL_PX + COLORBAR_PX + GRID_MARGIN["r"]
# Storm runs each topology with its own conf's strategy; round robin forced on the whole
# corpus schedules few topologies (docs/schedulers.md), so it is not a default here.
DEFAULT_SCHEDULERS = ("ras-default", "ras-generic")
NO_TOPOLOGY = ""
# side by side: as many columns as hold a whole grid (two at 1440 and 1920 px wide); a
# column narrower than its grid (a small window) scrolls sideways
GRIDS_STYLE = {"display": "flex", "flexWrap": "wrap", "gap": "16px"}
COLUMN_STYLE = {"flex": f"1 1 {GRID_WIDTH}px", "minWidth": 0, "overflowX": "auto"}
UNFIT_STYLE = {"maxHeight": "320px", "overflowY": "auto"}  # 48 reports stay one scroll box
PICKED_STYLE = {"fontWeight": 600, "background": "#fff3cd"}  # the picked topology's rows
TABLE_STYLE = {"borderSpacing": "14px 2px", "marginLeft": "-14px"}
WHY_STYLE = {"whiteSpace": "pre-wrap", "fontSize": "12px", "margin": "4px 0 10px"}


# ---------------------------------------------------------------- per-node figures (numpy)


@dataclass(frozen=True, eq=False)
class NodeAggregates:
    """A combined placement summed per node.

    Capacities: ``cpu_capacity`` in % of one core (cores x 100, as Storm counts),
    ``mem_capacity`` in MB, ``slots`` offered. Used: the placed executors' declared
    CPU (%) and on-heap memory (MB) (Storm's default acker request for ackers),
    worker slots holding an executor, executors. Per executor: its node, slot,
    topology and component as indices into ``node_ids``, ``topologies``, ``components``.
    """

    node_ids: tuple[str, ...]
    racks: tuple[str, ...]
    slots: np.ndarray
    cpu_capacity: np.ndarray
    mem_capacity: np.ndarray
    cpu_used: np.ndarray
    mem_used: np.ndarray
    slots_used: np.ndarray
    executors: np.ndarray
    topologies: tuple[str, ...]
    components: tuple[str, ...]
    exec_node: np.ndarray = field(repr=False)
    exec_slot: np.ndarray = field(repr=False)
    exec_topology: np.ndarray = field(repr=False)
    exec_component: np.ndarray = field(repr=False)
    exec_cpu: np.ndarray = field(repr=False)
    exec_mem: np.ndarray = field(repr=False)

    def hosts(self, topology: str) -> np.ndarray:
        """Boolean per node: it runs at least one executor of ``topology``."""
        if topology not in self.topologies:
            return np.zeros(len(self.node_ids), dtype=bool)
        index = self.topologies.index(topology)
        on = self.exec_node[self.exec_topology == index]
        return np.bincount(on, minlength=len(self.node_ids)) > 0


def component_requests(scenario: Scenario) -> dict[str, tuple[float, float]]:
    """Component id as the placement names it -> declared (CPU %, on-heap + off-heap MB)
    per executor (:func:`core.topology_set.component_requests` of each topology)."""
    requests: dict[str, tuple[float, float]] = {}
    for topo in scenario.topology_set:
        prefix = f"{topo.name}{QUALIFIER}" if scenario.is_set else ""
        for cid, request in topology_requests(topo).items():
            requests[prefix + cid] = request
    return requests


def node_aggregates(scenario: Scenario, assignments: Sequence[Assignment]) -> NodeAggregates:
    """Sum a combined placement per node (arrays of executors and of nodes only).

    Parameters
    ----------
    scenario
        The validated scenario (a topology set or one topology).
    assignments
        Its combined placement (:attr:`core.topology_set.SetSchedule.assignments`); executor
        and component ids qualified by topology in a set (``topology/component``).
    """
    nodes = scenario.cluster.nodes
    node_ids = tuple(n.id for n in nodes)
    node_index = {nid: i for i, nid in enumerate(node_ids)}
    requests = component_requests(scenario)
    components = tuple(requests)
    comp_index = {c: i for i, c in enumerate(components)}
    if scenario.is_set:
        topologies = tuple(t.name for t in scenario.topology_set)
        topo_of_comp = np.array([topologies.index(c.split(QUALIFIER, 1)[0]) for c in components])
    else:
        topologies = (scenario.topology.name,)
        topo_of_comp = np.zeros(len(components), dtype=int)
    comp_cpu = np.array([requests[c][0] for c in components], dtype=float)
    comp_mem = np.array([requests[c][1] for c in components], dtype=float)

    exec_node = np.fromiter((node_index[a.node] for a in assignments), dtype=np.int64)
    exec_slot = np.fromiter((a.slot for a in assignments), dtype=np.int64)
    exec_component = np.fromiter((comp_index[a.component] for a in assignments), dtype=np.int64)
    exec_cpu, exec_mem = comp_cpu[exec_component], comp_mem[exec_component]
    n = len(node_ids)
    slots = np.array([node.slots for node in nodes], dtype=np.int64)
    worker = exec_node * (int(slots.max(initial=0)) + int(exec_slot.max(initial=0)) + 1) + exec_slot
    _, first = np.unique(worker, return_index=True)
    return NodeAggregates(
        node_ids=node_ids,
        racks=tuple(node.rack for node in nodes),
        slots=slots,
        cpu_capacity=np.array([total_cores(nd) * CPU_PCT_PER_CORE for nd in nodes], dtype=float),
        mem_capacity=np.array([nd.ram_gb * MB_PER_GB for nd in nodes], dtype=float),
        cpu_used=np.bincount(exec_node, weights=exec_cpu, minlength=n),
        mem_used=np.bincount(exec_node, weights=exec_mem, minlength=n),
        slots_used=np.bincount(exec_node[first], minlength=n),
        executors=np.bincount(exec_node, minlength=n),
        topologies=topologies,
        components=components,
        exec_node=exec_node,
        exec_slot=exec_slot,
        exec_topology=topo_of_comp[exec_component] if len(components) else exec_component,
        exec_component=exec_component,
        exec_cpu=exec_cpu,
        exec_mem=exec_mem,
    )


def _percent(used: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    return np.divide(
        used * 100.0, capacity, out=np.zeros_like(used, dtype=float), where=capacity > 0
    )


# figure id -> (label, unit, values per node)
GRID_FIGURES: dict[str, tuple[str, str, Any]] = {
    "cpu": (
        "CPU used (declared, % of the node's cores)",
        "%",
        lambda a: _percent(a.cpu_used, a.cpu_capacity),
    ),
    "memory": (
        "Memory used (declared on-heap, % of the node's RAM)",
        "%",
        lambda a: _percent(a.mem_used, a.mem_capacity),
    ),
    "slots": ("Worker slots used", "slots", lambda a: a.slots_used.astype(float)),
    "executors": (
        "Executors (the traffic a node carries grows with them; the corpus gives no rates)",
        "executors",
        lambda a: a.executors.astype(float),
    ),
}


def figure_values(aggregates: NodeAggregates, figure: str) -> np.ndarray:
    """The picked figure per node (:data:`GRID_FIGURES`)."""
    return GRID_FIGURES[figure][2](aggregates)


def node_slots(aggregates: NodeAggregates, node: int) -> list[dict[str, Any]]:
    """One node's worker slots: a row per (slot, topology, component) with its executors
    and their declared CPU (%) and memory (MB), by slot then topology then component."""
    mine = np.flatnonzero(aggregates.exec_node == node)
    if mine.size == 0:
        return []
    slot, comp = aggregates.exec_slot[mine], aggregates.exec_component[mine]
    keys = slot * max(len(aggregates.components), 1) + comp
    unique, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    cpu = np.bincount(inverse, weights=aggregates.exec_cpu[mine])
    mem = np.bincount(inverse, weights=aggregates.exec_mem[mine])
    rows = []
    for k, key in enumerate(unique):
        c = int(key % max(len(aggregates.components), 1))
        name = aggregates.components[c]
        topology, _, component = name.rpartition(QUALIFIER)
        rows.append(
            {
                "slot": int(key // max(len(aggregates.components), 1)),
                "topology": topology or aggregates.topologies[0],
                "component": component,
                "executors": int(counts[k]),
                "cpu_pct": float(cpu[k]),
                "memory_mb": float(mem[k]),
            }
        )
    rows.sort(key=lambda r: (r["slot"], r["topology"], r["component"]))
    return rows


def grid_layout(racks: Sequence[str], row_nodes: int = ROW_NODES) -> tuple[np.ndarray, list[str]]:
    """Nodes placed on a grid: rack by rack (in first-seen order), ``row_nodes`` a row.

    Returns the node index of every cell (-1: empty) and each row's label (the rack on
    its first row, empty on the rows it wraps onto).
    """
    order: dict[str, list[int]] = {}
    for i, rack in enumerate(racks):
        order.setdefault(rack, []).append(i)
    rows: list[list[int]] = []
    labels: list[str] = []
    for rack, members in order.items():
        for start in range(0, len(members), row_nodes):
            rows.append(members[start : start + row_nodes])
            labels.append(rack if start == 0 else "")
    width = max((len(r) for r in rows), default=0)
    cells = np.full((len(rows), width), -1, dtype=np.int64)
    for r, members in enumerate(rows):
        cells[r, : len(members)] = members
    return cells, labels


# ---------------------------------------------------------------- placements, cached


@dataclass(frozen=True)
class ClusterResult:
    """One scheduler on one preset: its per-node figures and what did not fit."""

    aggregates: NodeAggregates | None
    scheduled: int = 0
    topologies: int = 0
    unfit: tuple[tuple[str, str], ...] = ()  # (topology, why, in words)
    elapsed_ms: float = 0.0
    error: str = ""


_RESULTS: dict[tuple[str, str], ClusterResult] = {}
_GENERATION: dict[tuple[str, str], int] = {}  # bumped when a result is forgotten
_RESULTS_LOCK = threading.Lock()
KEPT_RESULTS = 12  # (preset, scheduler) results kept: about 2 MB each on largeCluster02


def cluster_scenario(name: str) -> Scenario:
    """A preset's validated scenario (built once: :func:`core.presets.preset` keeps it)."""
    return preset(name)


def compute_result(name: str, scheduler: str) -> ClusterResult:
    """Place a preset's topology set with one scheduler and sum it per node."""
    scenario = cluster_scenario(name)
    try:
        result = compute.topology_set_schedule(scenario, scheduler)
    except Exception as err:  # a scheduler's failure is shown in its column, in words
        return ClusterResult(None, error=f"{scheduler} failed: {err}")
    unfit = tuple(
        (topo, result.outcomes[topo].message or result.outcomes[topo].status)
        for topo in result.order
        if not result.outcomes[topo].ok
    )
    return ClusterResult(
        node_aggregates(scenario, result.assignments),
        scheduled=len(result.scheduled),
        topologies=len(result.order),
        unfit=unfit,
        elapsed_ms=result.elapsed_ms,
    )


def _store(name: str, scheduler: str) -> None:
    """Compute and keep one result (the oldest go beyond :data:`KEPT_RESULTS`)."""
    try:
        outcome = compute_result(name, scheduler)
    except Exception as err:  # shown in the scheduler's column instead of placed again
        outcome = ClusterResult(None, error=f"{scheduler} on {name} failed: {err}")
    with _RESULTS_LOCK:
        _RESULTS[(name, scheduler)] = outcome
        while len(_RESULTS) > KEPT_RESULTS:
            forgotten = next(iter(_RESULTS))
            del _RESULTS[forgotten]
            _GENERATION[forgotten] = _GENERATION.get(forgotten, 0) + 1  # asked anew next time


def cluster_result(name: str, scheduler: str, wait_s: float = WAIT_S) -> ClusterResult | str:
    """The result if kept, else a status line: the placement is queued in the background
    pool and this request waits ``wait_s`` seconds for it at most."""
    with _RESULTS_LOCK:
        if (name, scheduler) in _RESULTS:
            return _RESULTS[(name, scheduler)]
        key = ("cluster-view", name, scheduler, _GENERATION.get((name, scheduler), 0))
    status = jobs.placements.wait(key, wait_s, work=lambda: _store(name, scheduler))
    with _RESULTS_LOCK:
        if (name, scheduler) in _RESULTS:
            return _RESULTS[(name, scheduler)]
        if status.ready:  # done, then forgotten (or its thread killed): ask again next poll
            _GENERATION[(name, scheduler)] = _GENERATION.get((name, scheduler), 0) + 1
    if status.state == jobs.REFUSED:
        return status.message or "refused: the server is busy, it is asked again shortly"
    return f"placing in the background ({status.state}, {status.elapsed_s:.0f} s)"


# ---------------------------------------------------------------- drawing


def _cells(z: np.ndarray) -> list[list[float | None]]:
    """A grid as nested lists, empty cells None (plotly's JSON null: not drawn)."""
    return np.where(np.isnan(z), None, z).tolist()


def grid_figure(aggregates: NodeAggregates, figure: str, topology: str = NO_TOPOLOGY) -> go.Figure:
    """The node grid of one placement coloured by ``figure``; with ``topology``, the nodes
    not hosting it are grey."""
    cells, labels = grid_layout(aggregates.racks)
    values = figure_values(aggregates, figure)
    real = cells >= 0
    safe = np.where(real, cells, 0)
    z = np.where(real, values[safe], np.nan)
    if topology:
        z = np.where(real & aggregates.hosts(topology)[safe], z, np.nan)
    names = np.asarray(aggregates.node_ids, dtype=object)[safe]
    text = np.where(real, names, "")
    label, unit, _ = GRID_FIGURES[figure]
    rows, cols = cells.shape
    fig = go.Figure(
        [
            go.Heatmap(  # every node, grey: what the coloured trace leaves out stays visible
                z=_cells(np.where(real, 0.0, np.nan)),
                colorscale=[[0, "#d5d8dc"], [1, "#d5d8dc"]],
                showscale=False,
                hoverinfo="skip",
                xgap=1,
                ygap=1,
            ),
            go.Heatmap(
                z=_cells(z),
                text=text,
                colorscale="YlOrRd",
                zmin=0,
                zmax=100 if unit == "%" else None,
                colorbar={"title": {"text": unit}, "thickness": 10},
                hovertemplate="%{text}<br>" + label + ": %{z:.4g}<extra></extra>",
                xgap=1,
                ygap=1,
            ),
        ]
    )
    tick_rows = [r for r, lab in enumerate(labels) if lab]
    fig.update_layout(
        margin=GRID_MARGIN,
        width=grid_width(cols),
        height=max(120, ROW_PX * rows + GRID_MARGIN["t"] + GRID_MARGIN["b"]),
        plot_bgcolor="white",
        xaxis={"visible": False, "range": [-0.5, cols - 0.5], "fixedrange": True},
        yaxis={
            "autorange": "reversed",
            "tickvals": tick_rows,
            "ticktext": [labels[r] for r in tick_rows],
            "tickfont": {"size": 12},
            "fixedrange": True,
        },
    )
    return fig


def grid_width(cols: int) -> int:
    """The figure's width in px for ``cols`` cells a row: CELL_PX each, the rack labels'
    margin and the colour scale (a cluster with fewer nodes than a row is narrower).

    >>> grid_width(ROW_NODES) == GRID_WIDTH, grid_width(2)
    (True, 182)
    """
    return GRID_MARGIN["l"] + max(cols, 1) * CELL_PX + COLORBAR_PX + GRID_MARGIN["r"]


def clicked_node(aggregates: NodeAggregates, click: dict[str, Any] | None) -> int | None:
    """The node index of a heatmap click (its cell's x, y), or None."""
    if not click or not click.get("points"):
        return None
    point = click["points"][0]
    cells, _ = grid_layout(aggregates.racks)
    row, col = int(round(point.get("y", -1))), int(round(point.get("x", -1)))
    if 0 <= row < cells.shape[0] and 0 <= col < cells.shape[1] and cells[row, col] >= 0:
        return int(cells[row, col])
    return None


def unfit_block(result: ClusterResult) -> html.Div:
    """The scheduled count and, per topology that did not fit, why, in words."""
    head = (
        f"{result.scheduled} of {result.topologies} topologies scheduled in "
        f"{result.elapsed_ms / 1000:.1f} s"
    )
    if not result.unfit:
        return html.Div(head + "; every one fits.", className="cluster-fit")
    return html.Div(
        className="cluster-unfit",
        children=html.Details(
            [
                html.Summary(f"{head}; {len(result.unfit)} did not fit (why, one by one)"),
                html.Div(
                    [
                        html.Pre(why, className="cluster-why", style=WHY_STYLE)
                        for _, why in result.unfit
                    ],
                    style=UNFIT_STYLE,
                ),
            ]
        ),
    )


def scheduler_column(
    scheduler: str, result: ClusterResult | str, figure: str, topology: str
) -> html.Div:
    """One scheduler's grid with its "did not fit" explanation under it."""
    title = html.H3(scheduler, className="cluster-scheduler")
    if isinstance(result, str):
        body: list[Any] = [html.Div(result, className="cluster-pending")]
    elif result.aggregates is None:
        body = [html.Div(result.error, className="cluster-error")]
    else:
        hosting = ""
        if topology:
            hosting = f"{topology}: on {int(result.aggregates.hosts(topology).sum())} nodes"
        body = [
            dcc.Graph(
                id=ids.cluster_grid_id(scheduler),
                figure=grid_figure(result.aggregates, figure, topology),
                config={"displayModeBar": False},
                className="cluster-grid",
            ),
            html.Div(hosting, className="cluster-hosting"),
            unfit_block(result),
        ]
    return html.Div([title, *body], className="cluster-column", style=COLUMN_STYLE)


def detail_table(
    scheduler: str, aggregates: NodeAggregates, node: int, topology: str = NO_TOPOLOGY
) -> html.Div:
    """A node's worker slots and their executors by topology and component."""
    rows = node_slots(aggregates, node)
    name = aggregates.node_ids[node]
    head = (
        f"{name} ({aggregates.racks[node]}) under {scheduler}: "
        f"{int(aggregates.slots_used[node])} of {int(aggregates.slots[node])} slots used, "
        f"{int(aggregates.executors[node])} executors, "
        f"{aggregates.cpu_used[node]:,.0f} of {aggregates.cpu_capacity[node]:,.0f} % CPU, "
        f"{aggregates.mem_used[node]:,.0f} of {aggregates.mem_capacity[node]:,.0f} MB declared"
    )
    columns = ["Slot", "Topology", "Component", "Executors", "CPU %", "Memory MB"]
    body = [
        html.Tr(
            [
                html.Td(r["slot"]),
                html.Td(r["topology"]),
                html.Td(r["component"]),
                html.Td(r["executors"]),
                html.Td(f"{r['cpu_pct']:g}"),
                html.Td(f"{r['memory_mb']:g}"),
            ],
            className="cluster-picked" if topology and r["topology"] == topology else None,
            style=PICKED_STYLE if topology and r["topology"] == topology else None,
        )
        for r in rows
    ]
    return html.Div(
        [
            html.Div(head, className="cluster-detail-head"),
            html.Table(
                [html.Thead(html.Tr([html.Th(c) for c in columns])), html.Tbody(body)],
                className="cluster-table",
                style=TABLE_STYLE,
            )
            if rows
            else html.Div("No executor on this node."),
        ]
    )


# ---------------------------------------------------------------- the view's picks in a link

DEFAULT_FIGURE = "cpu"
OPEN_SIGNAL = "cluster-open"  # a link asks for the view: scrolled into sight (its data)
OPENED = "cluster-opened"  # the scroll's (empty) output


@dataclass(frozen=True)
class ClusterPicks:
    """What a link keeps of the Cluster view: the cluster (a large preset), the
    schedulers, the figure the grids are coloured by and the highlighted topology."""

    cluster: str
    schedulers: tuple[str, ...] = DEFAULT_SCHEDULERS
    figure: str = DEFAULT_FIGURE
    topology: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "schedulers": list(self.schedulers),
            "figure": self.figure,
            "topology": self.topology,
        }

    def query(self) -> dict[str, str]:
        """The URL's keys for the picks: the cluster, and the rest when not the default.

        >>> ClusterPicks("storm-large-cluster-03", figure="slots").query()
        {'cluster': 'storm-large-cluster-03', 'cluster_figure': 'slots'}
        """
        out = {"cluster": self.cluster}
        if self.schedulers != DEFAULT_SCHEDULERS:
            out["cluster_schedulers"] = ",".join(self.schedulers)
        if self.figure != DEFAULT_FIGURE:
            out["cluster_figure"] = self.figure
        if self.topology:
            out["cluster_topology"] = self.topology
        return out


def topology_options(name: str) -> list[dict[str, str]]:
    """The topology picker's options for a large preset: its topologies, in order."""
    return [{"label": t.name, "value": t.name} for t in cluster_scenario(name).topology_set]


def checked_picks(
    cluster: Any, schedulers: Any = None, figure: Any = None, topology: Any = None
) -> tuple[ClusterPicks | None, list[str]]:
    """The picks a link (or the page) names, each checked; an unknown value is dropped
    (the view's default stands) with a note saying which. None when no cluster is named.

    >>> picks, notes = checked_picks("storm-large-cluster-03", ["ras-default", "nope"], "heat")
    >>> picks.schedulers, picks.figure, len(notes)
    (('ras-default',), 'cpu', 2)
    """
    if cluster is None or cluster == "":
        return None, []
    if not isinstance(cluster, str) or cluster not in LARGE_PRESETS:
        return None, [f"'{str(cluster)[:40]}' is no large preset: not shown"]
    notes = []
    chosen = DEFAULT_SCHEDULERS
    if isinstance(schedulers, list | tuple):
        names = [s for s in schedulers if isinstance(s, str)]
        chosen = tuple(dict.fromkeys(s for s in names if s in SCHEDULERS))
        notes += [f"scheduler '{s[:40]}' is unknown: dropped" for s in names if s not in SCHEDULERS]
    shown = DEFAULT_FIGURE
    if isinstance(figure, str) and figure in GRID_FIGURES:
        shown = figure
    elif figure is not None:
        notes.append(f"figure '{str(figure)[:40]}' is unknown: CPU is shown")
    highlighted = None
    if topology:
        if isinstance(topology, str) and topology in topology_names(cluster):
            highlighted = topology
        else:
            notes.append(f"{cluster} has no topology '{str(topology)[:40]}': none highlighted")
    return ClusterPicks(cluster, chosen, shown, highlighted), notes


def topology_names(name: str) -> frozenset[str]:
    """The topology names of a large preset (built once: the preset is cached)."""
    return frozenset(t.name for t in cluster_scenario(name).topology_set)


def open_outputs(picks: ClusterPicks) -> dict[str, Any]:
    """What a link's picks set in the view (the topology picker's options with the
    highlighted topology, which a dropdown without them would clear), and the signal
    that scrolls the view into sight."""
    return {
        "cluster": picks.cluster,
        "cluster_schedulers": list(picks.schedulers),
        "cluster_figure": picks.figure,
        "cluster_topology": picks.topology,
        "cluster_topology_options": topology_options(picks.cluster),
        "cluster_open": picks.cluster,
    }


def layout() -> html.Section:
    """The view: cluster, schedulers, figure and topology pickers, the grids, the drill-down."""
    schedulers = [s for s in SCHEDULERS if s in DEFAULT_SCHEDULERS or s.startswith("ras-")]
    schedulers += [s for s in SCHEDULERS if s not in schedulers]
    return html.Section(
        id=ids.CLUSTER_SECTION,
        className="cluster-view",
        children=[
            html.H2("Cluster view"),
            html.P(
                "A topology set on a large cluster: one cell per node, grouped by rack, "
                "coloured by the figure picked; one grid per scheduler; click a node for its "
                "slots and executors. CPU and memory are the executors' declared requests.",
                className="description",
            ),
            html.Div(
                className="cluster-controls",
                children=[
                    dcc.RadioItems(
                        id=ids.CLUSTER_PRESET,
                        options=[{"label": n, "value": n} for n in LARGE_PRESETS],
                        value=None,
                        inline=True,
                    ),
                    dcc.Dropdown(
                        id=ids.CLUSTER_SCHEDULERS,
                        options=[{"label": s, "value": s} for s in schedulers],
                        value=list(DEFAULT_SCHEDULERS),
                        multi=True,
                        clearable=False,
                    ),
                    dcc.RadioItems(
                        id=ids.CLUSTER_FIGURE,
                        options=[
                            {"label": v[0].split(" (")[0], "value": k}
                            for k, v in GRID_FIGURES.items()
                        ],
                        value=DEFAULT_FIGURE,
                        inline=True,
                    ),
                    dcc.Dropdown(
                        id=ids.CLUSTER_TOPOLOGY,
                        options=[],
                        value=None,
                        placeholder="Highlight one topology",
                    ),
                ],
            ),
            html.Div("Pick a cluster.", id=ids.CLUSTER_STATUS, className="cluster-status"),
            html.Div(id=ids.CLUSTER_GRIDS, className="cluster-grids", style=GRIDS_STYLE),
            html.Div(id=ids.CLUSTER_DETAIL, className="cluster-detail"),
            dcc.Interval(id=ids.CLUSTER_POLL, interval=POLL_MS, disabled=True),
            dcc.Store(id=OPEN_SIGNAL),
            html.Span(id=OPENED, hidden=True),
        ],
    )


# A link that names a cluster (or a preset too large for the page) opens the view: it is
# scrolled into sight once the page has drawn above it.
clientside_callback(
    """
    function (name) {
        if (!name) { return window.dash_clientside.no_update; }
        var show = function () {
            var view = document.getElementById(SECTION);
            if (view) { view.scrollIntoView({block: "start"}); }
        };
        [100, 1500].forEach(function (ms) { setTimeout(show, ms); });
        return name;
    }
    """.replace("SECTION", repr(ids.CLUSTER_SECTION)),
    Output(OPENED, "children"),
    Input(OPEN_SIGNAL, "data"),
)


@callback(
    Output(ids.CLUSTER_GRIDS, "children"),
    Output(ids.CLUSTER_STATUS, "children"),
    Output(ids.CLUSTER_POLL, "disabled"),
    Output(ids.CLUSTER_TOPOLOGY, "options"),
    Input(ids.CLUSTER_PRESET, "value"),
    Input(ids.CLUSTER_SCHEDULERS, "value"),
    Input(ids.CLUSTER_FIGURE, "value"),
    Input(ids.CLUSTER_TOPOLOGY, "value"),
    Input(ids.CLUSTER_POLL, "n_intervals"),
)
def draw(name: str | None, schedulers: list[str] | None, figure: str, topology: str | None, _n):
    """One column per scheduler; polls while any placement runs."""
    if not name or name not in LARGE_PRESETS:
        return [], "Pick a cluster.", True, []
    scenario = cluster_scenario(name)
    chosen = [s for s in (schedulers or []) if s in SCHEDULERS]
    if not chosen:
        return [], "Pick one scheduler or more.", True, no_update
    results = {s: cluster_result(name, s) for s in chosen}
    pending = [s for s, r in results.items() if isinstance(r, str)]
    columns = [scheduler_column(s, results[s], figure or "cpu", topology or "") for s in chosen]
    nodes = len(scenario.cluster.nodes)
    racks = len({n.rack for n in scenario.cluster.nodes})
    status = f"{name}: {len(scenario.topology_set)} topologies on {nodes:,} nodes in {racks} racks"
    if pending:
        status += f"; placing {', '.join(pending)} in the background"
    return columns, status, not pending, topology_options(name)


@callback(
    Output(ids.CLUSTER_DETAIL, "children"),
    Input({"type": ids.CLUSTER_GRID_TYPE, "scheduler": ALL}, "clickData"),
    State(ids.CLUSTER_PRESET, "value"),
    State(ids.CLUSTER_TOPOLOGY, "value"),
    prevent_initial_call=True,
)
def drill(_clicks: list[Any], name: str | None, topology: str | None):
    """The clicked node's slots and executors."""
    trigger = ctx.triggered_id
    if not name or not isinstance(trigger, dict) or not ctx.triggered:
        return no_update
    click = ctx.triggered[0]["value"]
    scheduler = trigger["scheduler"]
    with _RESULTS_LOCK:
        result = _RESULTS.get((name, scheduler))
    if result is None or result.aggregates is None:
        return no_update
    node = clicked_node(result.aggregates, click)
    if node is None:
        return no_update
    return detail_table(scheduler, result.aggregates, node, topology or "")

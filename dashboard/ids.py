"""Every component id of the dashboard, in one place.

Plain strings for components that exist once; ``*_TYPE`` names are the
``type`` key of pattern-matching ids for components that exist once per
scheduler (``{"type": DAG_TYPE, "sched": "even"}``) or per parameter.
"""

URL = "url"
PRESENT_PRESETS = "present-presets"  # presentation mode: the preset order the arrow keys step

# scenario bar
PRESET = "preset"
UPLOAD = "upload"
DOWNLOAD_SCENARIO_BUTTON = "download-scenario-button"
DOWNLOAD_SCENARIO = "download-scenario"
RATE = "rate"
SCHEDULERS = "schedulers"
PARAMS_AREA = "params-area"
PARAM_TYPE = "param"
PARAMS_STORE = "params-store"
PARAMS_MESSAGE = "params-message"
BAR_MESSAGE = "bar-message"
SCENARIO_TITLE = "scenario-title"
SCENARIO_DESCRIPTION = "scenario-description"
SCENARIO_FACTS = "scenario-facts"
IMPORT_UPLOAD = "import-upload"  # Storm UI / Flink plan files (dashboard/importer.py)
IMPORT_REPORT = "import-report"
RATE_MESSAGE = "rate-message"  # why the offered rate typed is not applied
PARAM_MESSAGE_TYPE = "param-message"  # one per parameter input: why its value is refused
LOADED_STORE = "loaded-scenario"  # the preset box value whose scenario the editors hold
VIEW_STORE = "view-link"  # the URL query of the view on screen (dashboard/view_state.py)
VIEW_SYNC = "view-sync"  # written by the script that puts VIEW_STORE's query in the URL
LINK_NOTE = "link-note"  # why a link keeps only part of the view, when it does

# scenario state: the loaded scenario and the last valid edited one
BASE_STORE = "base-scenario"
SCENARIO_STORE = "scenario"

# editors
NODES_GRID = "nodes-grid"
COMPONENTS_GRID = "components-grid"
STREAMS_GRID = "streams-grid"
ROW_OP_TYPE = "row-op"
WORKERS = "workers"
ACKERS = "ackers"
EDIT_MESSAGE = "edit-message"
TOPOLOGY_MESSAGE = "topology-message"  # at W and ackers: why their value is refused

# placement panels
PANELS = "panels"
RANKING = "ranking"
COMPARE_A = "compare-a"
COMPARE_B = "compare-b"
COMPARE_RESULT = "compare-result"
COMPARE_STORE = "compare-store"
FAIL_NODE = "fail-node"
FAIL_UNDO = "fail-undo"
WHATIF_RESULT = "whatif-result"
ALL_EDGES = "all-edges"
DAG_TYPE = "dag"
MAP_TYPE = "placement-map"
STATS_TYPE = "panel-stats"
NOTE_TYPE = "panel-note"
DECISIONS_TYPE = "panel-decisions"
DRILL_TYPE = "panel-drill"

# simulation
SIMULATE = "simulate"
CANCEL = "cancel"
SWEEP = "sweep"
REPLICAS = "replicas"
TUPLES = "tuples"
PROGRESS_BAR = "progress-bar"
PROGRESS_LABEL = "progress-label"
SIM_MESSAGE = "sim-message"
SETTINGS_MESSAGE = "sim-settings-message"  # at replicas and tuples: why a value is refused
POLL = "poll"
JOB_STORE = "job"
RESULTS_STORE = "results"

# charts and results
CHARTS_AREA = "charts"
PLOTLY_PRELOAD = "plotly-preload"
PRELOAD_TIMER = "preload-timer"
CHART_THROUGHPUT = "chart-throughput"
CHART_LATENCY = "chart-latency"
CHART_SWEEP = "chart-sweep"
CHART_CPU = "chart-cpu"
CHART_TRAFFIC = "chart-traffic"
CHART_RESOURCES = "chart-resources"
CHART_MEMORY = "chart-memory"
DIFF_TABLE = "diff-table"
ENGINE_INFO = "engine-info"
DOWNLOAD_CSV_BUTTON = "download-csv-button"
DOWNLOAD_JSON_BUTTON = "download-json-button"
DOWNLOAD_RESULTS = "download-results"

CHARTS = (
    CHART_THROUGHPUT,
    CHART_LATENCY,
    CHART_SWEEP,
    CHART_CPU,
    CHART_TRAFFIC,
    CHART_RESOURCES,
    CHART_MEMORY,
)


def dag_id(scheduler: str) -> dict[str, str]:
    return {"type": DAG_TYPE, "sched": scheduler}


def map_id(scheduler: str) -> dict[str, str]:
    return {"type": MAP_TYPE, "sched": scheduler}


def stats_id(scheduler: str) -> dict[str, str]:
    return {"type": STATS_TYPE, "sched": scheduler}


def note_id(scheduler: str) -> dict[str, str]:
    return {"type": NOTE_TYPE, "sched": scheduler}


def decisions_id(scheduler: str) -> dict[str, str]:
    return {"type": DECISIONS_TYPE, "sched": scheduler}


def drill_id(scheduler: str) -> dict[str, str]:
    return {"type": DRILL_TYPE, "sched": scheduler}


def param_id(scheduler: str, name: str) -> dict[str, str]:
    return {"type": PARAM_TYPE, "sched": scheduler, "name": name}


def param_message_id(scheduler: str, name: str) -> dict[str, str]:
    return {"type": PARAM_MESSAGE_TYPE, "sched": scheduler, "name": name}


def row_op_id(grid: str, op: str) -> dict[str, str]:
    return {"type": ROW_OP_TYPE, "grid": grid, "op": op}


PAPERS_SECTION = "papers"
PAPERS_SELECT = "papers-select"
PAPERS_RUN = "papers-run"
PAPERS_SUMMARY = "papers-summary"
PAPERS_GRID = "papers-grid"
PAPERS_VERDICT = "papers-verdict"
PAPERS_CHART = "papers-chart"
PAPERS_DETAIL = "papers-detail"
PAPERS_STORE = "papers-store"
PAPERS_POLL = "papers-poll"

# the Cluster view (dashboard/cluster_view.py): a topology set on a large cluster
CLUSTER_SECTION = "cluster"
CLUSTER_PRESET = "cluster-preset"
CLUSTER_SCHEDULERS = "cluster-schedulers"
CLUSTER_FIGURE = "cluster-figure"
CLUSTER_TOPOLOGY = "cluster-topology"
CLUSTER_GRIDS = "cluster-grids"
CLUSTER_STATUS = "cluster-status"
CLUSTER_DETAIL = "cluster-detail"
CLUSTER_POLL = "cluster-poll"
CLUSTER_GRID_TYPE = "cluster-grid"  # one heatmap per scheduler: {"type": ..., "scheduler": s}


def cluster_grid_id(scheduler: str) -> dict[str, str]:
    return {"type": CLUSTER_GRID_TYPE, "scheduler": scheduler}

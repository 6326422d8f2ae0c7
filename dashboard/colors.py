"""The one colour palette of the dashboard: schedulers, components, traffic, UI.

Every chart, panel and stylesheet takes its colours from here, so a
scheduler (or a component) has the same colour wherever it appears.
Schedulers the palette does not name yet (new ones land in the registry over
time) get a colour from ``EXTRA`` by their position in the registry, which is
stable for a given registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.model import ACKER_ID

SCHEDULER_COLORS: Mapping[str, str] = {
    "even": "#64748b",
    "rstorm": "#e4572e",
    "aniello-offline": "#f2a541",
    "aniello-online": "#c98b00",
    "toss": "#2ca58d",
    "top-storm": "#3066be",
    "lf": "#9b5de5",
    "hetero": "#f15bb5",
    "optimal": "#111827",
    "slotscope": "#00a6d6",
}

EXTRA: Sequence[str] = ("#8d6e63", "#7cb518", "#ff7f51", "#5c7aff", "#b5838d", "#06d6a0")

# Tableau 10: distinct, readable on white, kind to most colour-blind readers.
COMPONENT_PALETTE: Sequence[str] = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#e15759",
    "#76b7b2",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
ACKER_COLOR = "#9ca3af"

TRAFFIC_COLORS: Mapping[str, str] = {
    "intra_worker": "#34d399",
    "inter_worker": "#fbbf24",
    "inter_node": "#ef4444",
}
TRAFFIC_LABELS: Mapping[str, str] = {
    "intra_worker": "intra-worker",
    "inter_worker": "inter-worker (same node)",
    "inter_node": "inter-node",
}

INK = "#0f172a"
MUTED = "#64748b"
GRID_LINE = "#e2e8f0"
ACCENT = "#4f46e5"
BETTER = "#059669"
WORSE = "#dc2626"
FONT_FAMILY = "Inter, 'Segoe UI', system-ui, -apple-system, Roboto, sans-serif"


def scheduler_color(scheduler: str, registry: Iterable[str] = ()) -> str:
    """The colour of a scheduler; unknown ids by their position in ``registry``."""
    if scheduler in SCHEDULER_COLORS:
        return SCHEDULER_COLORS[scheduler]
    unknown = [s for s in registry if s not in SCHEDULER_COLORS]
    index = unknown.index(scheduler) if scheduler in unknown else sum(map(ord, scheduler))
    return EXTRA[index % len(EXTRA)]


def scheduler_colors(schedulers: Iterable[str]) -> dict[str, str]:
    ids = list(schedulers)
    return {s: scheduler_color(s, ids) for s in ids}


def component_colors(component_ids: Sequence[str]) -> dict[str, str]:
    """One colour per component, by its position in the topology (ackers grey).

    >>> component_colors(["spout", "split", "__acker"])["__acker"]
    '#9ca3af'
    """
    out: dict[str, str] = {}
    i = 0
    for cid in component_ids:
        if cid == ACKER_ID:
            out[cid] = ACKER_COLOR
            continue
        out[cid] = COMPONENT_PALETTE[i % len(COMPONENT_PALETTE)]
        i += 1
    return out

"""What a panel shows: headline figures, graphs and decisions of one placement.

Pure builders over :func:`dashboard.compute.evaluate`, memoised like it; the
panels feature (``dashboard.panels``) lays them out and refreshes them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from dash import html

from core.figures import FIGURES
from core.model import Scenario
from dashboard.colors import component_colors
from dashboard.compute import Evaluation, evaluate, scenario_of
from dashboard.cyto_styles import DAG_LAYOUT, MAP_LAYOUT
from dashboard.elements import dag_elements, placement_elements, summarised_dag, topology_elements
from dashboard.ranking import Standing, simulated_p99, standing

__all__ = ["PanelContent", "panel_content", "parallelism_note", "simulated_p99", "stats"]

MAX_DECISIONS = 400  # decisions listed per panel; the rest are counted
# ... and at most this many characters of them: hetero's 400 lines of ~200 characters were
# 80 KB of every refresh's answer, in a list folded away under its summary
MAX_DECISION_CHARS = 12_000


@dataclass(frozen=True)
class PanelContent:
    """What a panel shows for one scenario, scheduler, parameters and rate."""

    stats: list[Any]
    note: list[Any]
    dag: list[dict[str, Any]]
    placement: list[dict[str, Any]]
    decisions: list[Any]
    dag_layout: dict[str, Any] = field(default_factory=lambda: DAG_LAYOUT)

    def layouts(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The two layouts, keyed by the graphs they lay out: cytoscape reruns a layout
        only when the layout itself changes, and new elements need one."""
        return (layout_for(self.dag_layout, self.dag), layout_for(MAP_LAYOUT, self.placement))


def layout_for(layout: dict[str, Any], elements: list[dict[str, Any]]) -> dict[str, Any]:
    """``layout`` tagged with a digest of the elements' ids and positions."""
    shape = [(e["data"]["id"], e.get("position")) for e in elements]
    digest = hashlib.blake2b(json.dumps(shape).encode(), digest_size=6).hexdigest()
    return {**layout, "elements": digest}


def _number(value: float | None, unit: str = "", digits: int = 0) -> str:
    if value is None:
        return "—"
    return f"{value:,.{digits}f}{unit}"


def _stat(label: str, value: str, title: str = "") -> html.Div:
    return html.Div(
        [html.Span(value, className="stat-value"), html.Span(label, className="stat-label")],
        className="stat",
        title=title,
    )


MAX_VIOLATIONS_SHOWN = 3  # "cannot run" lines in a panel header; the rest are counted


def apart_lines(s: Standing) -> list[str]:
    """The header lines saying why a placement is not compared with the others: the
    parallelism it changed, and every node it over-fills ("cannot run: ...").

    >>> apart_lines(Standing("h", 1.0, 1.0, 1, 1, 0.0, changed="h raised the executors",
    ...     violations=("node a needs 5 GB", "node b needs 6 GB")))
    ['h raised the executors', 'cannot run: node a needs 5 GB', 'cannot run: node b needs 6 GB']
    """
    lines = [s.changed] if s.changed else []
    lines += [f"cannot run: {v}" for v in s.violations[:MAX_VIOLATIONS_SHOWN]]
    if len(s.violations) > MAX_VIOLATIONS_SHOWN:
        lines.append(f"cannot run: and {len(s.violations) - MAX_VIOLATIONS_SHOWN} more nodes")
    return lines


def stats(
    ev: Evaluation,
    nodes_total: int,
    p99_ms: float | None = None,
    asked: Mapping[str, int] | None = None,
) -> list[Any]:
    """The panel header, capacity first: R* and its headroom over the offered rate, then
    the simulated p99 when a simulation of this scenario has run, else the analytic
    latency estimate, labelled as such.

    A placement that cannot run (a node needing more memory than its RAM) carries a
    "cannot run" badge and one line per node; one that changed the parallelism
    ``asked`` (component -> executors) a "parallelism changed" badge and a line saying
    how: the ranking shows both apart (:mod:`dashboard.ranking`).
    """
    s = standing(ev, asked)
    badges = []
    if ev.schedule is not None and not ev.schedule.ok:
        badges.append(html.Span(ev.schedule.status.value, className="badge badge-error"))
    if s.violations:
        badges.append(
            html.Span("cannot run", className="badge badge-error", title="; ".join(s.violations))
        )
    if s.changed:
        badges.append(html.Span("parallelism changed", className="badge badge-warn"))
    if s.saturated:
        badges.append(
            html.Span(
                "saturated", className="badge badge-warn", title=FIGURES["saturated"].description
            )
        )
    max_rate, p99, estimate = (
        FIGURES[k] for k in ("max_rate", "latency_ms.p99", "latency_estimate_ms")
    )
    headroom = f" · {s.max_rate / s.rate:.1f}x offered" if s.max_rate and s.rate else ""
    nodes = f"{s.nodes_used} / {nodes_total}" if s.nodes_used is not None else "—"
    cells = [
        _stat(
            f"{max_rate.short} /s{headroom}",
            max_rate.format(s.max_rate),
            "Maximum sustainable rate per spout component, and its headroom over the offered rate",
        ),
        _stat(p99.short, f"{p99.format(p99_ms)} {p99.unit}", p99.description)
        if p99_ms is not None
        else _stat(
            estimate.short,
            _number(s.latency_ms, f" {estimate.unit}", 2),
            f"{estimate.description}. Simulate for p50/p95/p99",
        ),
        _stat(f"{FIGURES['nodes_used'].short} used", nodes),
        _stat("bottleneck", s.bottleneck or "—", FIGURES["bottleneck"].description),
    ]
    header = [html.Div(badges, className="badges"), html.Div(cells, className="stats")]
    lines = apart_lines(s)
    if lines:
        header.append(
            html.Div(
                [html.Div(line) for line in lines],
                className="alert alert-error" if s.violations else "alert alert-warn",
                style={"margin": "6px 0 0"},
            )
        )
    return header


def decisions_text(
    decisions: Sequence[str], limit: int = MAX_DECISIONS, chars: int = MAX_DECISION_CHARS
) -> str:
    """Numbered decisions, one per line (one text node: thousands of list-item components
    would slow every update of the page down): the first ``limit``, and no more lines than
    fit in ``chars`` characters (always the first one).

    >>> print(decisions_text(["a -> n1", "b -> n2", "c -> n1"], limit=2))
    1. a -> n1
    2. b -> n2
    … and 1 more
    >>> print(decisions_text(["a -> n1", "b -> n2", "c -> n1"], chars=25))
    1. a -> n1
    2. b -> n2
    … and 1 more
    """
    lines: list[str] = []
    used = 0
    for i, d in enumerate(decisions[:limit], start=1):
        line = f"{i}. {d}"
        used += len(line) + 1
        if lines and used > chars:
            break
        lines.append(line)
    if len(decisions) > len(lines):
        lines.append(f"… and {len(decisions) - len(lines)} more")
    return "\n".join(lines)


def parallelism_note(asked: Mapping[str, int], used: Mapping[str, int]) -> str | None:
    """What a scheduler changed in the parallelism the user asked for, or None.

    >>> parallelism_note({"a": 2, "b": 4}, {"a": 2, "b": 9})
    'This scheduler changed the parallelism: b x4 -> x9 (asked 6 executors, placed 11)'
    >>> parallelism_note({"a": 2}, {"a": 2}) is None
    True
    """
    changed = [c for c in asked if c in used and used[c] != asked[c]]
    if not changed:
        return None
    total = sum(used[c] for c in asked if c in used)
    return (
        "This scheduler changed the parallelism: "
        + ", ".join(f"{c} x{asked[c]} -> x{used[c]}" for c in changed)
        + f" (asked {sum(asked.values())} executors, placed {total})"
    )


def _decisions(ev: Evaluation) -> list[Any]:
    decisions = list(ev.schedule.decisions) if ev.schedule else []
    where = f" · placed in {ev.server_ms:.1f} ms" if ev.schedule else ""
    return [
        html.Summary(f"Why this placement: {len(decisions)} decisions{where}"),
        html.Div(decisions_text(decisions), className="decision-list"),
    ]


@lru_cache(maxsize=256)
def panel_content(
    scenario_text: str, scheduler: str, params_text: str, rate: float
) -> PanelContent:
    """A panel's figures, graphs and decisions (memoised like the evaluation under it)."""
    ev = evaluate(scenario_text, scheduler, params_text, rate)
    scenario = scenario_of(scenario_text)
    asked = {c.id: c.parallelism for c in scenario.topology.components}
    header = stats(ev, len(scenario.cluster.nodes), asked=asked)
    if ev.schedule is None or ev.graph is None:
        note = [
            html.Div(
                ["This scheduler could not place the scenario: ", ev.error],
                className="alert alert-error",
            )
        ]
        return PanelContent(header, note, [], [], _decisions(ev))
    colors = component_colors(list(ev.graph.order))
    note = (
        [html.Div(ev.schedule.message, className="alert alert-warn")] if ev.schedule.message else []
    )
    changed = parallelism_note(asked, ev.schedule.parallelism)
    if changed:
        note.append(html.Div(changed, className="alert alert-warn"))
    # A partial placement (a scheduler that failed) is drawn without traffic edges.
    placement = placement_elements(
        scenario, ev.graph, ev.schedule.placement(), colors, traffic=bool(ev.complete)
    )
    if summarised_dag(ev.graph):  # one box per topology, positioned here
        return PanelContent(
            header,
            note,
            topology_elements(ev.graph, ev.schedule.parallelism),
            placement,
            _decisions(ev),
            MAP_LAYOUT,
        )
    return PanelContent(
        header,
        note,
        dag_elements(ev.graph, colors, ev.schedule.parallelism),
        placement,
        _decisions(ev),
    )


def scenario_facts(scenario: Scenario) -> str:
    """One line under the top bar's title: executors, components, nodes, slots and W."""
    topo = scenario.topology
    executors = sum(c.parallelism for c in topo.components) + topo.ackers
    slots = sum(n.slots for n in scenario.cluster.nodes)
    return (
        f"{executors} executors · {len(topo.components)} components · "
        f"{len(scenario.cluster.nodes)} nodes · {slots} slots · W = {scenario.workers}"
    )

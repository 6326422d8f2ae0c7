"""The page's glossary: every figure the page reports and every term it uses, in one list.

Figures come from the registry (:data:`core.figures.FIGURES`: label, short name,
unit, which way is better, its glossary line), so a figure added there appears
here; :data:`TERMS` adds the words of Storm, of the papers and of the page that are
not figures (executor, worker slot, headroom, inter-node, BogoMIPS, ...). Terms
follow docs/model.md (the performance model) and docs/schedulers.md (the papers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dash import html

from core.figures import FIGURES, Figure

SECTION_ID = "glossary"  # the page's anchor (the top bar's "Glossary" link)

# TOP-Storm's Table 4 heads a column "FLOPs/cycle" that holds Linux's BogoMIPS (2 x the
# clock in MHz; docs/schedulers.md, top-storm), and its presets carry those values in
# ``flops_per_cycle``. Real FLOPs per cycle per core are 4 (SSE2) to 32 (AVX-512), and a
# CPU of the last twenty years shows over 1,000 BogoMIPS, so a value above this is BogoMIPS.
BOGOMIPS_ABOVE = 128.0
FLOPS_HEADER = "FLOPs/cyc or BogoMIPS"
FLOPS_TOOLTIP = (
    "TOP-Storm's per-core factor (Eq. 1), used only to rank nodes for top-storm; never a "
    "speed. FLOPs per cycle per core (4-32), or, as TOP-Storm's Table 4 lists it under "
    '"FLOPs/cycle", Linux\'s BogoMIPS = 2 x the clock in MHz (6816 for a 3.4 GHz i7): '
    "values above 128 are BogoMIPS"
)
SPEED_TOOLTIP = (
    "TOP-Storm Eq. 1: sockets x cores x GHz x FLOPs/cycle, GFLOP/s; with BogoMIPS (the "
    "TOP-Storm presets) a ranking score in the paper's units, not GFLOP/s"
)
# an AG Grid value formatter (run in the browser): BogoMIPS said as such
FLOPS_FORMATTER = {
    "function": f"params.value > {BOGOMIPS_ABOVE:g} ? params.value + ' BogoMIPS' : params.value"
}


def is_bogomips(flops_per_cycle: float) -> bool:
    """Whether a node's ``flops_per_cycle`` is TOP-Storm's BogoMIPS, not FLOPs per cycle.

    >>> is_bogomips(16), is_bogomips(6816)
    (False, True)
    """
    return flops_per_cycle > BOGOMIPS_ABOVE


def speed_text(speed: float, flops_per_cycle: float) -> str:
    """TOP-Storm's Eq. 1 speed in the unit it has: GFLOP/s, or a score when the node's
    factor is BogoMIPS.

    >>> speed_text(192.0, 16), speed_text(185395.2, 6816)
    ('192 GFLOP/s', '185,395 (Eq. 1, BogoMIPS)')
    """
    if is_bogomips(flops_per_cycle):
        return f"{speed:,.0f} (Eq. 1, BogoMIPS)"
    return f"{speed:,.0f} GFLOP/s"


@dataclass(frozen=True)
class Entry:
    """One glossary line: the name as the page shows it, and what it means."""

    term: str
    text: str
    kind: str = "term"  # "term" or "figure"


TERMS: tuple[Entry, ...] = (
    Entry(
        "Topology",
        "A Storm application: a DAG of components (spouts and bolts) joined by streams.",
    ),
    Entry(
        "Component",
        "A spout (a source of tuples) or a bolt (an operator) of the topology; streams "
        "connect them with a grouping (shuffle, fields, local-or-shuffle, all, global).",
    ),
    Entry(
        "Executor",
        "A thread inside a worker running one component's code. A component's parallelism "
        "is its number of executors; the dots in a placement map are executors.",
    ),
    Entry(
        "Task",
        "One instance of a component's code. Storm may run several tasks in one executor; "
        "slotscope runs one task per executor, so here a task is an executor.",
    ),
    Entry(
        "Acker",
        "Storm's __acker executors: they track every tuple tree so that a spout learns when "
        "its tuple is fully processed (complete latency ends there).",
    ),
    Entry(
        "Node",
        "A machine (Storm: a supervisor). It offers worker slots; its cores, hardware threads "
        "and clock set how fast its executors run.",
    ),
    Entry(
        "Worker slot",
        "A port on a node where one worker (one JVM process) can run. A topology asks for "
        "W workers; each scheduler decides which slots they take.",
    ),
    Entry("Worker", "One JVM process of the topology, in one slot; it runs executors."),
    Entry("W", "The number of workers the topology asks for (topology.workers)."),
    Entry(
        "Scheduler",
        "The algorithm that places executors into worker slots: Storm's defaults and the "
        "papers' schedulers, listed with their paper on each panel.",
    ),
    Entry(
        "Placement",
        "Where every executor runs: node, slot and executor, as the panel's map draws it.",
    ),
    Entry(
        "Offered rate",
        "Tuples per second each spout component is asked to emit (the rate box), the load "
        "every figure is computed at.",
    ),
    Entry(
        "R_eff",
        "The rate the spouts actually run at: min(offered rate, R*). Above R* the spouts are "
        "throttled to R* (Storm's max.spout.pending backpressure).",
    ),
    Entry(
        "Headroom",
        'R* over the offered rate ("2.1x offered"): how much more load the placement '
        "sustains before it saturates; below 1x it is saturated.",
    ),
    Entry(
        "Inter-node",
        "Traffic between executors on different nodes: it crosses the network (serialised, "
        "slowest). Inter-worker: same node, different workers (serialised, no network). "
        "Intra-worker: inside one worker (handed over in memory).",
    ),
    Entry(
        "Runnable",
        "A placement Storm could run as placed; one that needs more memory on a node than "
        "the node has cannot run, and the ranking shows it apart with the reason.",
    ),
    Entry(
        "Shown apart",
        "Ranking rows below the others: schedulers that changed the parallelism asked for, "
        "whose placement cannot run, or that could not place; they are not ranked against "
        "the placements of the topology as given.",
    ),
    Entry(
        "Complete latency",
        "Time from a spout's emit until its whole tuple tree is processed (with ackers: until "
        "the spout learns of the last ack), from the simulated trace.",
    ),
    Entry(
        "p50 / p95 / p99",
        "Percentiles: half, 95% and 99% of the simulated tuple trees complete within this "
        "time (p99: the slowest 1% take longer).",
    ),
    Entry(
        "Replica",
        "One repetition of a simulation with another random seed; charts show the mean of "
        "the replicas and their spread as error bars.",
    ),
    Entry(
        "FLOPs/cycle or BogoMIPS",
        "The per-core factor of TOP-Storm's Eq. 1, used only to rank nodes for top-storm. "
        'Real FLOPs per cycle are 4-32; TOP-Storm\'s Table 4 column headed "FLOPs/cycle" '
        "holds Linux's BogoMIPS (2 x the clock in MHz, e.g. 6816 for a 3.4 GHz i7), so the "
        "TOP-Storm presets carry BogoMIPS here. It never changes how fast a node runs.",
    ),
    Entry(
        "Speed (Eq. 1)",
        "TOP-Storm's processing speed: sockets x cores x GHz x FLOPs/cycle, in GFLOP/s; "
        "with BogoMIPS (the TOP-Storm presets) a ranking score in the paper's units, not "
        "GFLOP/s.",
    ),
    Entry(
        "Power (Eq. 2)",
        "TOP-Storm's computation power: alpha x speed + (1 - alpha) x RAM GB (alpha 0.8), "
        "the order in which top-storm fills nodes.",
    ),
    Entry(
        "What-if",
        "A node or one slot fails: each scheduler re-places as it would in Storm (Storm's "
        "EvenScheduler keeps surviving executors in place; the others re-place everything).",
    ),
)


def figure_term(figure: Figure) -> str:
    """A figure's name as the page shows it: its label, and its short name when the label
    does not contain it.

    >>> figure_term(FIGURES["max_rate"]), figure_term(FIGURES["saturated"])
    ('Max rate R*', 'Saturated')
    >>> figure_term(FIGURES["sink_throughput"]), figure_term(FIGURES["traffic.inter_worker"])
    ('Sink throughput (sinks)', 'Inter-worker traffic')
    """
    short = figure.short.split(" (")[0]
    if short.lower() in figure.label.lower():
        return figure.label
    return f"{figure.label} ({short})"


def figure_text(figure: Figure) -> str:
    """A figure's glossary line with its unit and better way.

    >>> figure_text(FIGURES["latency_ms.p99"]).endswith("Unit: ms; lower is better.")
    True
    """
    unit = {"": "", "%": "Unit: % (of 100)"}.get(figure.unit, f"Unit: {figure.unit}")
    better = f"{figure.better} is better" if figure.better else ""
    tail = "; ".join(part for part in (unit, better) if part)
    return (
        f"{figure.description}. {tail[:1].upper()}{tail[1:]}." if tail else f"{figure.description}."
    )


def figure_entries(figures: Iterable[Figure] = ()) -> list[Entry]:
    """One entry per figure of the registry (or of ``figures``), in its order."""
    return [Entry(figure_term(f), figure_text(f), "figure") for f in figures or FIGURES.values()]


def entries() -> list[Entry]:
    """The whole glossary: the terms, then every figure."""
    return [*TERMS, *figure_entries()]


def section() -> html.Section:
    """The page's glossary section: two lists, terms and figures."""

    def listing(found: Sequence[Entry]) -> html.Dl:
        return html.Dl([part for e in found for part in (html.Dt(e.term), html.Dd(e.text))])

    return html.Section(
        id=SECTION_ID,
        className="card glossary",
        children=[
            html.H2("Glossary"),
            html.H3("Terms"),
            listing(TERMS),
            html.H3("Figures (every number the page reports)"),
            listing(figure_entries()),
        ],
    )

"""Every paper claim beside slotscope's own figure (``slotscope reproduce``).

For each claim of :mod:`core.claims`, run the subject and baseline schedulers
on the claim's preset(s), measure what the paper measured, in the paper's
convention, and give a verdict: ``reproduced`` (inside the claim's band),
``direction`` (the right way round, outside the band), ``wrong direction``
or ``not run`` (a preset or scheduler this build lacks, or a placement that
failed; the reason is given). A claim whose presets name CPUs with a sourced
per-clock range (:mod:`core.cpus`) is measured again with every such factor
at the low and at the high end of its range: when the verdict there differs,
the claim is ``sensitive`` (its figures at both ends are given), whatever its
verdict at the table's factors.

Conventions (the papers'): a *gain* of A over B is ``(B / A - 1) x 100`` for
costs (latency, CPU, memory: L/F's "improves by 139.2%") and
``(A / B - 1) x 100`` for throughput; a *reduction* is ``(1 - A / B) x 100``
(Aniello's "20% to 30% improvement on latency"); a *change* is
``(A / B - 1) x 100`` of a cost (TOP-Storm's "5% less memory" is -5).
Throughput is measured where the papers measured it: at the maximum
sustainable rate R* when their spouts ran flat out (TOP-Storm, Nasiri: the
gain is the ratio of R*), at the offered rate otherwise (L/F's 1 KB every
1 ms), where it can differ only when one placement saturates. L/F's figure is
what Storm 1.2.3's ThroughputVsLatency prints as "acked/sec": the spouts'
acked tuple trees per second (:func:`acked_per_s`), not the tuples every
executor processes (the ``throughput`` of a ``simulate`` row, ackers included).
"""

from __future__ import annotations

import itertools
import math
import random
import textwrap
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from core.claims import CLAIMS, PAPERS, Claim
from core.hardware import PerClockEnd, at_per_clock_end, has_per_clock_range
from core.metrics import schedule_metrics
from core.model import Cluster, Scenario, with_changes
from core.presets import PRESETS, preset
from core.registry import SCHEDULERS, run_scheduler
from core.simulator import analyze, simulate
from core.topology import build_graph

TRACE_TUPLES = 20_000  # spout tuples per latency trace: p99 within a few percent
# Latency figures are the mean over replicas: each replica draws its own
# arrivals and, under Storm 1.x batching, its own flush-timer phase per worker
# (set when the worker starts), and a run's latency depends on those phases
# (page view unique's gain spans 16-30% over 8 replicas of 10^5 tuples).
TRACE_REPLICAS = 8
SATURATED_PAPERS = frozenset({"top-storm", "nasiri"})  # spouts ran flat out
# Storm's EvenScheduler deals workers to supervisors sorted by id (sortSlots;
# Storm 0.9.5's sort-slots takes them in hash-map order), and a supervisor's id
# is a random UUID kept in its local state (2.0.0 StandaloneSupervisor.
# generateSupervisorId, 0.9.5 generate-supervisor-id), so on a heterogeneous
# cluster which nodes take which workers was a draw, the same for all of a
# paper's runs: claims of a gain over even are means over this many id orders
# (all of them when there are fewer).
SUPERVISOR_ORDERS = 120
PER_CLOCK_ENDS: tuple[PerClockEnd, ...] = ("low", "high")  # where sensitivity is measured
SENSITIVE = "sensitive"


@dataclass(frozen=True)
class Figures:
    """What one scheduler's placement of one preset measures."""

    max_rate: float
    throughput: float
    latency_ms: float
    p99_ms: float
    cpu_cores: float
    memory_mb: float
    nodes_used: int
    # L/F's placement metrics (core.metrics) and the executors of each bolt (a
    # component fed by a stream), in the scenario's order
    cohesion: float = 0.0
    coupling: float = 0.0
    bolt_instances: tuple[int, ...] = ()
    # the spouts' acked tuple trees per second (acked_per_s): ThroughputVsLatency's figure
    acked_per_s: float = 0.0
    workers_used: int = 0  # worker processes (slots) the placement uses


@dataclass(frozen=True)
class Row:
    """One claim beside slotscope's figure."""

    claim: Claim
    value: float | None
    verdict: str
    note: str = ""
    # slotscope's figure with the per-clock factors at the low and high ends of their
    # sourced ranges (None: the presets name no CPU with a range), and the seconds spent
    ends: tuple[float, float] | None = None
    ends_s: float = 0.0

    @property
    def ratio(self) -> float | None:
        if self.value is None or self.claim.paper_value == 0:
            return None
        return self.value / self.claim.paper_value

    def to_json(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "paper": c.paper,
            "claim": c.text,
            "source": c.source,
            "measure": c.measure,
            "presets": list(c.presets),
            "subject": c.subject,
            "baseline": c.baseline,
            "paper_value": c.paper_value,
            "band": list(c.band),
            "slotscope_value": self.value,
            "ratio": self.ratio,
            "verdict": self.verdict,
            "per_clock_ends": None
            if self.ends is None
            else dict(zip(PER_CLOCK_ENDS, self.ends, strict=True)),
            "training": c.training,
            "known_gap": c.known_gap or None,
            "note": self.note or None,
        }


def scenario_figures(
    scenario: Scenario, scheduler: str, graph_of: str | None = None, trace: bool = True
) -> Figures:
    """Run one scheduler on a scenario and measure its placement.

    With ``graph_of``, the instance counts of that scheduler's schedule replace
    the scenario's first, as when a paper compares two placements of one
    execution graph. ``trace`` False: no simulated latencies (NaN; see
    :func:`measure_placement`).
    """
    scenario = _on_graph_of(scenario, graph_of)
    return measure_placement(scenario, _placed(scenario, scheduler), trace)


def _on_graph_of(scenario: Scenario, graph_of: str | None) -> Scenario:
    """The scenario with the instance counts of ``graph_of``'s schedule (as is when None)."""
    if graph_of is None:
        return scenario
    counts = run_scheduler(scenario, graph_of).parallelism
    components = [
        c.model_copy(update={"parallelism": counts[c.id]}) for c in scenario.topology.components
    ]
    return with_changes(
        scenario, topology=scenario.topology.model_copy(update={"components": components})
    )


def _placed(scenario: Scenario, scheduler: str):
    schedule = run_scheduler(scenario, scheduler)
    if not schedule.ok:
        raise ValueError(f"{scheduler} could not place {scenario.name}: {schedule.message}")
    return schedule


def supervisor_orders(scenario: Scenario, limit: int = SUPERVISOR_ORDERS) -> list[Scenario]:
    """The scenario under the orders in which Storm may sort its supervisors.

    Each order renames the nodes ``"<rank>:<id>"``, so that ``even`` (Storm's
    ``sortSlots``, node ids ascending) meets them in that order: all n!
    orders when there are at most ``limit``, else ``limit`` seeded draws. A
    cluster of identical nodes, or one with observations keyed by node id,
    keeps its one order.

    Examples
    --------
    >>> from core.presets import preset
    >>> [[n.id for n in sc.cluster.nodes] for sc in supervisor_orders(preset("nasiri-linear"))][:2]
    [['0:core-i5', '1:core-i3', '2:pentium'], ['0:core-i5', '2:core-i3', '1:pentium']]
    >>> len(supervisor_orders(preset("lf-linear")))
    1
    """
    nodes = scenario.cluster.nodes
    kinds = {n.model_dump_json(exclude={"id"}) for n in nodes}
    if len(kinds) == 1 or scenario.observations is not None:
        return [scenario]
    ranks = range(len(nodes))
    if math.factorial(len(nodes)) <= limit:
        orders = list(itertools.permutations(ranks))
    else:
        draw = random.Random(0)
        orders = [tuple(draw.sample(ranks, len(nodes))) for _ in range(limit)]
    width = len(str(len(nodes) - 1))
    return [
        with_changes(
            scenario,
            cluster=Cluster(
                nodes=[
                    n.model_copy(update={"id": f"{rank:0{width}d}:{n.id}"})
                    for n, rank in zip(nodes, order, strict=True)
                ]
            ),
        )
        for order in orders
    ]


def max_rates_over_orders(scenario: Scenario, scheduler: str) -> list[float]:
    """R* of ``scheduler``'s placement under every supervisor order (:func:`supervisor_orders`)."""
    return [analyze(sc, _placed(sc, scheduler)).max_rate for sc in supervisor_orders(scenario)]


@cache
def preset_at(preset_name: str, end: PerClockEnd | None = None) -> Scenario:
    """A built-in preset, with its CPUs' per-clock factors at one end of their range
    (:func:`core.hardware.at_per_clock_end`; the table's factors when ``end`` is None)."""
    sc = preset(preset_name)
    return sc if end is None else at_per_clock_end(sc, end)


@cache
def _preset_rates_over_orders(
    preset_name: str, scheduler: str, graph_of: str | None, end: PerClockEnd | None = None
):
    return max_rates_over_orders(_on_graph_of(preset_at(preset_name, end), graph_of), scheduler)


@cache
def figures(
    preset_name: str,
    scheduler: str,
    graph_of: str | None = None,
    end: PerClockEnd | None = None,
    trace: bool = True,
) -> Figures:
    """:func:`scenario_figures` of a built-in preset (memoised), at a per-clock ``end``."""
    return scenario_figures(preset_at(preset_name, end), scheduler, graph_of, trace)


# The measures read from the simulated trace; a claim of any other measure needs no trace
# (three quarters of `reproduce`'s time is spent in traces: py-spy, 2026-11-26)
TRACE_MEASURES = frozenset(
    {"latency_gain", "p99_gain", "latency_reduction", "latency_ms", "p99_ms"}
)


def measure_placement(scenario: Scenario, schedule, trace: bool = True) -> Figures:
    """The figures of one placement; with ``trace`` False its simulated latencies
    (``latency_ms``, ``p99_ms``) are NaN and no trace is run."""
    rate = scenario.workload.rate
    an = analyze(scenario, schedule, rate)
    runs = [
        simulate(scenario, schedule, rate, replica=r, tuples=TRACE_TUPLES)["latency_ms"]
        for r in range(TRACE_REPLICAS if trace else 0)
    ]
    cores = {n.id: n.sockets * n.cores for n in scenario.cluster.nodes}
    graph = build_graph(scenario, schedule.parallelism)
    placement = schedule_metrics(schedule, graph)
    fed = {s.target for s in scenario.topology.streams}
    return Figures(
        max_rate=an.max_rate,
        throughput=an.throughput,
        acked_per_s=acked_per_s(
            an.effective_rate, len(graph.spouts), scenario.topology.reliable_spouts
        ),
        latency_ms=_replica_mean(run["mean"] for run in runs) if trace else math.nan,
        p99_ms=_replica_mean(run["p99"] for run in runs) if trace else math.nan,
        cpu_cores=sum(u * cores[n] for n, u in an.cpu_util.items()),
        memory_mb=sum(an.memory_mb.values()),
        nodes_used=an.nodes_used,
        workers_used=an.slots_used,
        cohesion=placement.cohesion,
        coupling=placement.coupling,
        bolt_instances=tuple(
            schedule.parallelism[c.id] for c in scenario.topology.components if c.id in fed
        ),
    )


def acked_per_s(effective_rate: float, spout_components: int, reliable: bool) -> float:
    """The spouts' acked tuples per second, as Storm 1.2.3's ThroughputVsLatency prints it.

    ``printMetrics`` (storm-starter ``ThroughputVsLatency.java`` at v1.2.3) sums the
    ":all-time" acked counts of the spout's executors over every stream, and prints the
    increase since its last call over the uptime since then (every 30 s) as "acked/sec":
    tuple trees completed per second, not the tuples every executor processes. A spout
    tuple is acked once, when its tree completes (with ackers), or as it is emitted when
    the topology runs none; one emitted without a message id is never acked
    (``send-spout-msg`` in ``daemon/executor.clj``; sampled stats are scaled back by the
    sample rate, ``stats.clj``). In the model every tree completes at R_eff =
    min(offered, R*) per spout component, so the figure is R_eff x spout components.

    Parameters
    ----------
    effective_rate : float
        R_eff, tuples/s per spout component (:attr:`core.simulator.Analysis.effective_rate`).
    spout_components : int
        Spout components of the topology (ThroughputVsLatency has one, ``spout``).
    reliable : bool
        Whether the spouts emit with message ids (``topology.reliable_spouts``).

    Returns
    -------
    float
        Acked tuples per second, summed over the spouts' executors.

    Examples
    --------
    >>> acked_per_s(10_000.0, 1, True), acked_per_s(500.0, 2, True), acked_per_s(500.0, 1, False)
    (10000.0, 1000.0, 0.0)
    """
    return effective_rate * spout_components if reliable else 0.0


def _replica_mean(values: Iterable[float | None]) -> float:
    """Mean over replicas; NaN when a replica has no latency (nothing completed)."""
    numbers = [math.nan if v is None else float(v) for v in values]
    return sum(numbers) / len(numbers)


def _pct(ratio: float) -> float:
    return (ratio - 1.0) * 100.0


def _pct_of_metric(subject: float, baseline: float) -> float:
    """``_pct(subject / baseline)``, 0 when both are 0 (two placements with no coupling)."""
    return 0.0 if subject == baseline == 0 else _pct(subject / baseline)


def _bolt(f: Figures, index: int) -> float:
    """Executors of the ``index``-th bolt (NaN when the topology has fewer bolts)."""
    return float(f.bolt_instances[index]) if index < len(f.bolt_instances) else math.nan


def _throughput(claim: Claim, f: Figures) -> float:
    """The throughput a paper measured: R* where its spouts ran flat out, else the spouts'
    acked tuples per second at the offered rate (L/F: ThroughputVsLatency's acked/sec)."""
    return f.max_rate if claim.paper in SATURATED_PAPERS else f.acked_per_s


# ThroughputVsLatency sums the workers' user + sys CPU ms (storm-metrics' sigar CPUMetric:
# the process's CPU since its last report) per metrics bucket; L/F's buckets are 10 s
# (Sec. 4.5: "measured every 10 s"), so its R_U_CPU in seconds is cores busy x 10 s.
LF_METRICS_BUCKET_S = 10.0

Measure = Callable[[Claim, Figures, "Figures | None"], float]

MEASURES: dict[str, Measure] = {
    "throughput_gain": lambda c, s, b: _pct(_throughput(c, s) / _throughput(c, b)),
    "gap_to_optimal": lambda c, s, b: _pct(s.max_rate / b.max_rate),
    "latency_gain": lambda c, s, b: _pct(b.latency_ms / s.latency_ms),
    "p99_gain": lambda c, s, b: _pct(b.p99_ms / s.p99_ms),
    "cpu_gain": lambda c, s, b: _pct(b.cpu_cores / s.cpu_cores),
    "memory_gain": lambda c, s, b: _pct(b.memory_mb / s.memory_mb),
    "memory_change": lambda c, s, b: _pct(s.memory_mb / b.memory_mb),
    "latency_reduction": lambda c, s, b: (1.0 - s.latency_ms / b.latency_ms) * 100.0,
    "latency_ms": lambda c, s, b: s.latency_ms,
    "p99_ms": lambda c, s, b: s.p99_ms,
    "cpu_seconds": lambda c, s, b: s.cpu_cores * LF_METRICS_BUCKET_S,
    "memory_mb": lambda c, s, b: s.memory_mb,
    "nodes_used": lambda c, s, b: float(s.nodes_used),
    "workers_used": lambda c, s, b: float(s.workers_used),
    # TOP-Storm's "up to 80% fewer resources": supervisor nodes saved against the baseline
    "nodes_reduction": lambda c, s, b: (1.0 - s.nodes_used / b.nodes_used) * 100.0,
    # Nasiri's "better utilizes the processing resources": the relative increase in busy
    # cores (the paper weights machine types by Table 3's profiling, Eq. 7-8; its claims
    # are not run, Table 4 missing)
    "utilization_gain": lambda c, s, b: _pct(s.cpu_cores / b.cpu_cores),
    "cohesion_gain": lambda c, s, b: _pct_of_metric(s.cohesion, b.cohesion),
    "coupling_change": lambda c, s, b: _pct_of_metric(s.coupling, b.coupling),
    "bolt1_instances": lambda c, s, b: _bolt(s, 0),
    "bolt2_instances": lambda c, s, b: _bolt(s, 1),
}
COUNTS = frozenset({"nodes_used", "workers_used", "bolt1_instances", "bolt2_instances"})  # exact
ABSOLUTE = frozenset({"latency_ms", "p99_ms", "cpu_seconds", "memory_mb"})  # not a change
RELATIVE = frozenset(MEASURES) - ABSOLUTE - COUNTS


def measure(
    claim: Claim,
    scenario_of: Callable[[str], Scenario] | None = None,
    end: PerClockEnd | None = None,
) -> float:
    """slotscope's figure for a claim: over several presets, the largest ("up to"), or
    the smallest for the low end of a range (``claim.over == "min"``).

    ``scenario_of`` maps a preset name to the scenario to run (e.g. with other
    constants, :mod:`bench.calibrate`); default the built-in preset, memoised,
    with its CPUs' per-clock factors at ``end`` of their ranges when given.
    """
    values = []
    for name in claim.presets:
        trace = claim.measure in TRACE_MEASURES
        if scenario_of is None:
            run = partial(_figures_at, name, end, trace=trace)
        else:
            run = partial(scenario_figures, scenario_of(name), trace=trace)
        subject = run(claim.subject)
        graph_of = claim.subject if claim.same_graph else None
        if _over_supervisor_orders(claim):
            if scenario_of is None:
                rates = _preset_rates_over_orders(name, claim.baseline, graph_of, end)
            else:
                rates = max_rates_over_orders(
                    _on_graph_of(scenario_of(name), graph_of), claim.baseline
                )
            values.append(sum(_pct(subject.max_rate / r) for r in rates) / len(rates))
            continue
        baseline = run(claim.baseline, graph_of) if claim.baseline else None
        values.append(MEASURES[claim.measure](claim, subject, baseline))
    return min(values) if claim.over == "min" else max(values)


def _figures_at(
    name: str,
    end: PerClockEnd | None,
    scheduler: str,
    graph_of: str | None = None,
    trace: bool = True,
) -> Figures:
    return figures(name, scheduler, graph_of, end, trace)


def _over_supervisor_orders(claim: Claim) -> bool:
    """A gain in R* over ``even``, whose placement rests on the supervisors' random ids."""
    return (
        claim.baseline == "even"
        and claim.measure == "throughput_gain"
        and claim.paper in SATURATED_PAPERS
    )


def verdict(claim: Claim, value: float) -> str:
    low, high = claim.band
    if not math.isfinite(value):
        return "not run"
    if low <= value <= high:
        return "reproduced"
    if claim.measure in RELATIVE and claim.paper_value != 0:
        same_way = (value > 0) == (claim.paper_value > 0) and value != 0
        return "direction" if same_way else "wrong direction"
    return "outside band"


def missing(claim: Claim) -> str:
    """Why a claim cannot run in this build ('' when it can)."""
    if claim.not_run:
        return claim.not_run
    absent = [p for p in claim.presets if p not in PRESETS]
    if absent:
        return f"preset(s) not built in: {', '.join(absent)}"
    schedulers = [s for s in (claim.subject, claim.baseline) if s and s not in SCHEDULERS]
    if schedulers:
        return f"scheduler(s) not registered: {', '.join(schedulers)}"
    return ""


def has_cpu_range(claim: Claim) -> bool:
    """Whether a claim's presets name a CPU whose per-clock factor has a sourced range."""
    return any(name in PRESETS and has_per_clock_range(preset_at(name)) for name in claim.presets)


def sensitivity_note(claim: Claim, central: str, ends: tuple[float, float]) -> str:
    """Why a claim is sensitive: its figure and verdict at each end of the per-clock ranges.

    >>> from core.claims import CLAIMS
    >>> CLAIMS[0].band
    (19.5, 78.0)
    >>> parts = sensitivity_note(CLAIMS[0], "reproduced", (10.0, 30.0)).split("; ")
    >>> parts[0].split(": ")[1], parts[1]
    ('10 (direction) at the low end', '30 (reproduced) at the high end')
    >>> parts[2].startswith("reproduced at the table's factors")
    True
    """
    told = "; ".join(
        f"{v:.4g} ({verdict(claim, v)}) at the {end} end"
        for end, v in zip(PER_CLOCK_ENDS, ends, strict=True)
    )
    return (
        f"the verdict moves inside the sourced per-clock ranges of its CPUs: {told}; "
        f"{central} at the table's factors (core/cpus.py, docs/model.md Hardware)"
    )


def judge(claim: Claim, value: float, ends: tuple[float, float] | None) -> tuple[str, str]:
    """The verdict and its reason, ``sensitive`` when a range end gives another verdict."""
    central = verdict(claim, value)
    if ends is not None and any(verdict(claim, v) != central for v in ends):
        note = sensitivity_note(claim, central, ends)
        return SENSITIVE, f"{note}. {claim.known_gap}" if claim.known_gap else note
    return central, claim.known_gap


def reproduce_claim(claim: Claim) -> Row:
    why = missing(claim)
    if why:
        return Row(claim, None, "not run", why)
    try:
        value = measure(claim)
    except (ValueError, ZeroDivisionError) as err:
        return Row(claim, None, "not run", str(err))
    if not math.isfinite(value):
        return Row(claim, None, "not run", "no latency: nothing completes (R* = 0)")
    ends, started = None, time.perf_counter()
    if has_cpu_range(claim):
        try:
            low, high = (measure(claim, end=end) for end in PER_CLOCK_ENDS)
        except (ValueError, ZeroDivisionError) as err:
            return Row(claim, value, "not run", f"at an end of the per-clock ranges: {err}")
        if math.isfinite(low) and math.isfinite(high):
            ends = (low, high)
    verdict_now, note = judge(claim, value, ends)
    return Row(claim, value, verdict_now, note, ends, time.perf_counter() - started)


# TOP-Storm's six WordCount gains (Sec. 6.1) came from runs on one cluster, whose
# supervisors had one id order for all six: besides the claims (means over the
# orders), ``reproduce`` reports how many single orders fit most of them at once.
WORDCOUNT_GAINS = tuple(f"top-storm/wordcount-c{config}-throughput" for config in range(1, 7))
ORDERS_FIT_AT_LEAST = 5  # of the six


def gains_per_order(claim: Claim, end: PerClockEnd | None = None) -> list[float]:
    """A gain over ``even`` in R* (%) under each supervisor order (:func:`supervisor_orders`),
    in the orders' fixed sequence, from the memoised runs :func:`measure` makes."""
    name = claim.presets[0]
    graph_of = claim.subject if claim.same_graph else None
    subject = figures(name, claim.subject, None, end, trace=False).max_rate
    rates = _preset_rates_over_orders(name, claim.baseline, graph_of, end)
    return [_pct(subject / rate) for rate in rates]


def claims_fit_per_order(claims: Sequence[Claim]) -> list[int]:
    """How many of ``claims`` (gains over ``even``) each supervisor order puts in band.

    The orders are the same sequence for every preset of one cluster, so
    column ``i`` is one cluster whose supervisors drew one id order.
    """
    inside = [
        [claim.band[0] <= gain <= claim.band[1] for gain in gains_per_order(claim)]
        for claim in claims
    ]
    return [sum(column) for column in zip(*inside, strict=True)]


def reported(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Figures reported beside the claims (not claims): TOP-Storm's WordCount gains as the
    paper ran them, one supervisor order for all six. Empty when the rows lack them."""
    claims = [r.claim for r in rows if r.claim.id in WORDCOUNT_GAINS and r.value is not None]
    if len(claims) != len(WORDCOUNT_GAINS):
        return {}
    fits = claims_fit_per_order(claims)
    fitting = sum(f >= ORDERS_FIT_AT_LEAST for f in fits)
    return {
        "top-storm/wordcount-orders-fitting": {
            "text": (
                f"TOP-Storm WordCount C1-C6: {fitting} of {len(fits)} supervisor orders fit "
                f"at least {ORDERS_FIT_AT_LEAST} of the {len(claims)} gains at once "
                f"(best order: {max(fits)})"
            ),
            "orders": len(fits),
            "fitting": fitting,
            "at_least": ORDERS_FIT_AT_LEAST,
            "of": len(claims),
            "most_in_one_order": max(fits),
        }
    }


def select(paper: str | None = None, claims: Iterable[Claim] = CLAIMS) -> list[Claim]:
    """The claims of one paper (all papers when None); unknown papers are an error."""
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"paper: unknown '{paper}'; one of {', '.join(PAPERS)}")
    return [c for c in claims if paper is None or c.paper == paper]


def reproduce(paper: str | None = None) -> list[Row]:
    """Every claim of ``paper`` (all papers when None) beside slotscope's figure."""
    return [reproduce_claim(c) for c in select(paper)]


def summary(rows: Sequence[Row]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    return counts


TABLE_WIDTH = 120  # characters per line of ``slotscope reproduce``'s table, at most
ID_WIDTH = 40  # the claim id column (longer ids are cut with an ellipsis)
REASON = "*"  # marks a row whose reason --verbose (or --json) prints


def cut(text: str, width: int) -> str:
    """``text`` on one line (line breaks become spaces) of at most ``width`` characters,
    cut with an ellipsis.

    >>> cut("queue batching is modelled", 12), cut("short", 12)
    ('queue batch…', 'short')
    """
    flat = " ".join(text.splitlines())
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "…"


def table(rows: Sequence[Row], verbose: bool = False, width: int = TABLE_WIDTH) -> str:
    """The rows as a plain-text table, one claim per line of at most ``width`` characters.

    Columns: the claim's id, the paper's figure, slotscope's, their ratio, the verdict
    and the measure. A row marked ``*`` has a reason (a known gap, or why it did not
    run); ``verbose`` prints it, with the claim's words, wrapped under the row.
    """
    head = f"{'claim':<{ID_WIDTH}} {'paper':>9} {'slotscope':>10} {'ratio':>6}  {'verdict':<16}"
    key = "" if verbose else f"{'measure':<18}({REASON}: reason, -v)"
    lines = [cut(head + (key or "measure"), width)]
    for row in rows:
        value = "-" if row.value is None else f"{row.value:.4g}"
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}"
        mark = REASON if row.note else " "
        line = (
            f"{cut(row.claim.id, ID_WIDTH):<{ID_WIDTH}} {row.claim.paper_value:>9.4g} "
            f"{value:>10} {ratio:>6} {mark}{row.verdict:<16}{row.claim.measure}"
        )
        lines.append(cut(line, width))
        if verbose:
            lines += _wrapped("claim", row.claim.text, width)
            if row.note:
                lines += _wrapped("why", row.note, width)
    ranged = [r for r in rows if r.ends is not None]
    if ranged:
        seconds = sum(r.ends_s for r in ranged)
        lines.append(
            cut(
                f"{len(ranged)} claims re-run at both ends of their CPUs' per-clock ranges "
                f"in {seconds:.1f} s",
                width,
            )
        )
    lines += [cut(figure["text"], width) for figure in reported(rows).values()]
    trained = [r for r in rows if r.claim.training and r.verdict == "reproduced"]
    if trained:
        lines.append(
            cut(
                f"{len(trained)} of the reproduced are training claims (a constant is fitted "
                "to or taken from them; --json: 'training')",
                width,
            )
        )
    counts = ", ".join(f"{n} {v}" for v, n in sorted(summary(rows).items()))
    lines.append(cut(f"{len(rows)} claims: {counts}", width))
    return "\n".join(lines)


def _wrapped(label: str, text: str, width: int) -> list[str]:
    """``label: text`` wrapped under a table row, indented, each line at most ``width``."""
    indent = " " * 6
    return textwrap.wrap(
        " ".join(text.split()),
        width=width,
        initial_indent=f"{indent}{label}: ",
        subsequent_indent=indent + " " * (len(label) + 2),
        break_long_words=True,
    )

"""The performance model: what a placement would give (docs/model.md).

Two layers on one set of inputs: the analytic steady state
(:mod:`core.simulator.capacity`: rates, CPU, NIC, memory, R*, bottleneck,
traffic; microseconds per placement) and a vectorised trace of the tuple
trees (:mod:`core.simulator.trace`: latency percentiles). Plain
Python and numpy: what a Spark task runs, the tests and the dashboard call
directly.

- :func:`analyze`: the analytic :class:`Analysis` of a schedule;
- :func:`simulate`: one result row of the ``simulate --json`` contract;
- :func:`simulate_replicas`: several replicas of it;
- :func:`observe`: runtime observations (flows, executor load in Hz, node
  CPU) for the schedulers that need them;
- :class:`Evaluator`: many placements of one scenario, as integer arrays,
  for searches.

Examples
--------
>>> from core.presets import preset
>>> from core.registry import run_scheduler
>>> sc = preset("lf-linear")
>>> row = simulate(sc, run_scheduler(sc, "even"), rate=500.0, tuples=2000)
>>> row["throughput"], row["saturated"], row["nodes_used"]
(8000.0, False, 8)
>>> row["latency_ms"]["p50"] <= row["latency_ms"]["p99"]
True
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from core.model import Observations, Scenario
from core.placement import Schedule
from core.settings import (
    DEFAULT_TUPLES,
    MAX_REPLICAS,
    MAX_TUPLES,
    MIN_TUPLES,
    SettingsError,
    check_count,
    check_rate,
    check_seed,
)
from core.simulator.capacity import RHO_CAP, Analysis, Evaluator, Score, evaluator_of
from core.simulator.errors import SimulationError
from core.simulator.flows import heaviest_flows
from core.simulator.plan import trace_plan
from core.simulator.trace import WARMUP_FRACTION, TraceResult, run_trace
from core.simulator.window import little_latency_ms, saturated_warmup

MAX_HOPS = 40_000_000  # tuples processed per replica (~100 B of arrays each, ~4 GB at most)
HZ_PER_GHZ = 1e9

__all__ = [
    "MAX_HOPS",
    "MAX_TUPLES",
    "MIN_TUPLES",
    "RHO_CAP",
    "Analysis",
    "Evaluator",
    "Score",
    "SimulationError",
    "TraceResult",
    "analyze",
    "violations",
    "evaluator_of",
    "observe",
    "observed_values",
    "saturated_latency_ms",
    "simulate",
    "simulate_replicas",
]


def _rate(rate: Any) -> float:
    """:func:`core.settings.check_rate`, naming the argument ``rate``."""
    try:
        return check_rate(rate)
    except SettingsError as err:
        raise SimulationError("rate", err.message) from None


def _count(name: str, value: Any, low: int = 0, high: int | None = None) -> int:
    """:func:`core.settings.check_count`, or with no upper bound (a replica, a seed)
    :func:`core.settings.check_seed` (a whole number >= 0), naming the argument ``name``."""
    try:
        return check_seed(value) if high is None else check_count(name, value, low, high)
    except SettingsError as err:
        raise SimulationError(name, err.message) from None


def _prepare(scenario: Scenario, schedule: Schedule, rate: float | None):
    ev = evaluator_of(scenario, schedule.parallelism)
    slots = ev.encode(schedule.placement())
    r0 = scenario.workload.rate if rate is None else _rate(rate)
    an = ev.evaluate(slots, r0)
    if an.saturated and an.effective_rate > 0:
        an = replace(an, latency_estimate_ms=saturated_latency_ms(ev, slots, an.effective_rate))
    return ev, slots, an


def saturated_latency_ms(ev: Evaluator, slots, max_rate: float) -> float:
    """Mean complete latency of a saturated placement by Little's law, ms.

    Above R* every spout executor keeps ``max_spout_pending`` trees in flight
    (its window is full whenever it waits), and trees complete at R* per
    spout component, so the mean complete latency is (max_spout_pending x
    spout executors) / (R* x spout components); never below the path's
    latency at zero load (a window too small to fill the path throttles the
    spouts below R* instead, which the analytic R_eff does not model).

    References
    ----------
    .. [1] J. D. C. Little, "A proof for the queuing formula L = lambda W",
       Operations Research 9(3), 1961, doi:10.1287/opre.9.3.383.
    """
    spouts = ev.graph.spouts
    in_flight = ev.scenario.workload.max_spout_pending * sum(
        ev.graph.parallelism[c] for c in spouts
    )
    little = little_latency_ms(in_flight, max_rate * len(spouts))
    return max(little, ev.latency_estimate_ms(ev.loads(slots, 0.0), 0.0))


def violations(scenario: Scenario, schedule: Schedule) -> tuple[str, ...]:
    """Why a schedule's placement cannot run (:attr:`Analysis.violations`), computed from
    its memory alone: what ``schedule --json`` reports without analysing the placement."""
    ev = evaluator_of(scenario, schedule.parallelism)
    return ev.memory_violations(ev.encode(schedule.placement()))


def analyze(scenario: Scenario, schedule: Schedule, rate: float | None = None) -> Analysis:
    """The analytic steady state of a schedule's placement.

    Everything at R_eff = min(rate, R*). The latency estimate is the
    critical path of mean sojourn times below R*; above it (saturated), the
    spouts are throttled by ``workload.max_spout_pending`` and the estimate
    is Little's law over the trees in flight (:func:`saturated_latency_ms`).

    Parameters
    ----------
    scenario : Scenario
    schedule : Schedule
        Its parallelism and placement are used; every executor must be placed.
    rate : float, optional
        Offered rate per spout component, tuples/s; default the workload's.

    Raises
    ------
    SimulationError
        A bad rate or an incomplete placement.
    """
    return _prepare(scenario, schedule, rate)[2]


def simulate(
    scenario: Scenario,
    schedule: Schedule,
    rate: float,
    replica: int = 0,
    tuples: int = DEFAULT_TUPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """One result row of the ``simulate --json`` contract (docs/architecture.md).

    Throughput, R*, CPU, memory and traffic come from the analytic layer at
    R_eff = min(rate, R*) (``saturated`` says when R_eff < rate). Latency
    percentiles come from a trace of ``tuples`` spout tuples offered at
    ``rate`` and throttled by Storm's flow control (at most
    ``workload.max_spout_pending`` trees in flight per spout executor,
    :mod:`core.simulator.window`); latency runs from a tuple's emission, as
    Storm's complete latency does, so above R* it is bounded by Little's law
    whatever the number of tuples. Service times are those at R_eff (a node
    is not charged for CPU it never gets to spend). The trace's own
    completion rate is what its busiest executor allows: R_eff when that
    executor's thread is the bottleneck, more when the bottleneck is a node's
    CPU or NIC (the trace queues at executors, not at cores or NICs), less
    when the window is too small to fill the path (about max_spout_pending x
    spout executors / path latency); the row reports the analytic figures.
    ``violations`` lists why the placement could not run as placed (a node
    needing more memory than its RAM, :func:`core.simulator.costs.memory_violations`),
    empty when it can. The row holds plain JSON types; ``max_rate`` is None when nothing
    bounds the rate
    (no CPU cost at all) and the latency figures are None when R* is 0 (fixed
    overheads fill a node).

    Parameters
    ----------
    scenario, schedule
        As for :func:`analyze`.
    rate : float
        Offered rate per spout component, tuples/s (> 0).
    replica : int
        Replica number (>= 0): selects the random streams.
    tuples : int
        Spout tuples measured, in [MIN_TUPLES, MAX_TUPLES], of which the
        first 10% are a warm-up. Above R* the trace first runs the tuples
        that fill every spout executor's window and turn it over twice
        (:func:`core.simulator.window.saturated_warmup`, at most MAX_TUPLES
        and what ``MAX_HOPS`` leaves) and drops them too, so that the
        figures are the saturated steady state's whatever ``tuples``.
    seed : int
        Base seed (>= 0).

    Raises
    ------
    SimulationError
        An argument out of range (its name first), an incomplete placement,
        or a trace that would exceed ``MAX_HOPS`` tuple-hops.
    """
    rate = _rate(rate)
    replica = _count("replica", replica, 0)
    tuples = _count("tuples", tuples, MIN_TUPLES, MAX_TUPLES)
    seed = _count("seed", seed, 0)
    ev, slots, an = _prepare(scenario, schedule, rate)
    spouts = len(ev.graph.spouts)
    hops = tuples / spouts * sum(ev.visits.values())
    if hops > MAX_HOPS:
        raise SimulationError(
            "tuples",
            f"{tuples} spout tuples make ~{hops:,.0f} tuple-hops, the limit is "
            f"{MAX_HOPS:,}: simulate fewer tuples",
        )
    if an.effective_rate > 0:
        plan = trace_plan(ev, slots, rate, service_rate=an.effective_rate)
        extra = _saturated_warmup(ev, plan.window, rate, an.effective_rate, tuples, hops)
        warmup = (extra + WARMUP_FRACTION * tuples) / (tuples + extra)
        trace = run_trace(plan, tuples + extra, seed, replica, warmup=warmup)
        latency: dict[str, float | None] = trace.summary_ms()
    else:
        latency = dict.fromkeys(("p50", "p95", "p99", "mean", "max"))
    return {
        "scheduler": schedule.scheduler,
        "rate": rate,
        "replica": replica,
        "throughput": an.throughput,
        "sink_throughput": an.sink_throughput,
        "max_rate": an.max_rate if math.isfinite(an.max_rate) else None,
        "saturated": an.saturated,
        "bottleneck": an.bottleneck,
        "latency_ms": latency,
        "nodes_used": an.nodes_used,
        "slots_used": an.slots_used,
        "cpu_util": dict(an.cpu_util),
        "memory_mb": dict(an.memory_mb),
        "traffic": dict(an.traffic),
        "traffic_bytes": dict(an.traffic_bytes),
        "placement_ms": float(schedule.elapsed_ms),
        "violations": list(an.violations),
    }


def _saturated_warmup(
    ev: Evaluator, window: int | None, rate: float, r_eff: float, tuples: int, hops: float
) -> int:
    """Spout tuples run and dropped before ``tuples`` when the spouts are throttled.

    Enough to fill every spout executor's window and turn it over
    (:func:`core.simulator.window.saturated_warmup`), within ``MAX_TUPLES``
    and the trace's ``MAX_HOPS`` (``hops`` is what ``tuples`` alone make).
    """
    if window is None or rate <= r_eff:
        return 0
    spouts = [ev.graph.parallelism[c] for c in ev.graph.spouts]
    wanted = saturated_warmup(window, spouts, rate, r_eff)
    room = int((MAX_HOPS - hops) * tuples / hops) if hops > 0 else MAX_TUPLES
    return max(0, min(wanted, MAX_TUPLES, room))


def simulate_replicas(
    scenario: Scenario,
    schedule: Schedule,
    rate: float,
    replicas: int = 1,
    tuples: int = DEFAULT_TUPLES,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """:func:`simulate` for replicas 0 .. replicas - 1 (``replicas`` >= 1)."""
    replicas = _count("replicas", replicas, 1, MAX_REPLICAS)
    return [simulate(scenario, schedule, rate, r, tuples, seed) for r in range(replicas)]


MAX_OBSERVED_FLOWS = 20_000  # 1,000 x 1,000 shuffles would otherwise report 10^6 pairs


def observe(scenario: Scenario, schedule: Schedule, rate: float | None = None) -> Observations:
    """Runtime observations of a placement, from the analytic layer at R_eff.

    Executor-to-executor tuple rates (tuples/s, zero flows left out; the
    ``MAX_OBSERVED_FLOWS`` heaviest, as a monitor sampling the hottest pairs
    would report them), the CPU load of every executor in Hz (cores busy x
    the node's clock) and the CPU utilisation of every node: what
    ``aniello-online`` and ``toss`` consume when the scenario carries no
    observations of its own.
    """
    flows, load_hz, util = observed_values(scenario, schedule, rate)
    return Observations(  # the flows validated as one list (not one model call each)
        traffic=[{"from": u, "to": v, "rate": r} for u, v, r in flows],
        executor_load_hz=load_hz,
        node_cpu_util=util,
    )


def observed_values(
    scenario: Scenario, schedule: Schedule, rate: float | None = None
) -> tuple[list[tuple[str, str, float]], dict[str, float], dict[str, float]]:
    """:func:`observe`'s values before they are models: the flows as (sender, receiver,
    tuples/s), each executor's load in Hz, each node's utilisation (0..1). What a scheduler
    that reads them takes directly (the dashboard's aniello-online): 20,000 flow models
    are a third of its refresh and load the cyclic garbage collector."""
    ev, slots, an = _prepare(scenario, schedule, rate)
    keep = ev.loads(slots, an.effective_rate).rates.keep if ev.table.has_spill else None
    flows = heaviest_flows(ev.table, slots, an.effective_rate, MAX_OBSERVED_FLOWS, keep)
    ghz = ev.nodes.ghz[ev.nodes.slot_node[slots]]
    load_hz = {
        e: an.executor_cpu[e] * g * HZ_PER_GHZ
        for e, g in zip(ev.executors, ghz.tolist(), strict=True)
    }
    # a monitor reports at most 100%: the steady state at R* may sit a rounding above
    util = {n: min(1.0, max(0.0, u)) for n, u in an.cpu_util.items()}
    return flows, load_hz, util

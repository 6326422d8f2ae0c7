"""The dashboard's one way into the core: a memoised placement evaluation.

Callbacks pass the scenario as canonical JSON text (hashable, so it can key
``functools.lru_cache``), a scheduler id, its parameters as JSON text and
the offered rate. :func:`evaluate` runs the scheduler in process (no Spark),
computes the static placement metrics and its analytic steady state.
Nothing here raises for bad input: a failure comes back as
``Evaluation.error``.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.comparison import NEEDS_OBSERVATIONS, with_observations
from core.metrics import PlacementMetrics, placement_metrics
from core.model import Scenario, ScenarioError, validate_scenario
from core.schedulers import Schedule, SchedulerError, run_scheduler
from core.simulator import analyze
from core.topology import TopologyGraph, build_graph

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Evaluation:
    """One scheduler's placement of one scenario, with what it costs."""

    scheduler: str
    schedule: Schedule | None
    graph: TopologyGraph | None
    metrics: PlacementMetrics | None
    analysis: Any = None
    error: str = ""
    server_ms: float = 0.0


def canonical(data: Mapping[str, Any]) -> str:
    """Canonical JSON text of a JSON-ready mapping (the cache key)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=64)
def scenario_of(text: str) -> Scenario:
    """The validated scenario of canonical JSON text (raises ScenarioError)."""
    return validate_scenario(json.loads(text))


def _observed(scenario: Scenario, scheduler: str, rate: float) -> Scenario:
    """Runtime observations for the schedulers that use them, as ``simulate`` feeds them."""
    if scheduler not in NEEDS_OBSERVATIONS:
        return scenario
    return with_observations(scenario, rate)


def _fully_placed(graph: TopologyGraph, schedule: Schedule) -> bool:
    placed = {a.executor for a in schedule.assignments}
    return all(e in placed for c in graph.order for e in graph.executors(c))


@lru_cache(maxsize=1024)
def evaluate(scenario_text: str, scheduler: str, params_text: str, rate: float) -> Evaluation:
    """Schedule, measure and analyse one placement."""
    start = time.perf_counter()
    try:
        scenario = _observed(scenario_of(scenario_text), scheduler, rate)
        schedule = run_scheduler(scenario, scheduler, json.loads(params_text))
        graph = build_graph(scenario, schedule.parallelism)
    except (ScenarioError, SchedulerError) as err:
        return Evaluation(scheduler, None, None, None, error=str(err))
    except Exception as err:  # a scheduler bug must not take the page down
        log.exception("scheduler %s failed", scheduler)
        return Evaluation(scheduler, None, None, None, error=f"{type(err).__name__}: {err}")
    metrics = analysis = None
    if _fully_placed(graph, schedule):
        metrics = placement_metrics(graph, schedule.placement())
        if schedule.ok:
            try:
                analysis = analyze(scenario, schedule, rate=rate)
            except Exception:
                log.exception("analysis of %s failed", scheduler)
    elapsed = (time.perf_counter() - start) * 1000.0
    return Evaluation(scheduler, schedule, graph, metrics, analysis, server_ms=elapsed)


def _field(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def headline(ev: Evaluation) -> dict[str, Any]:
    """The panel header's figures: None where the placement or the simulator has none.

    >>> headline(Evaluation("even", None, None, None))["throughput"] is None
    True
    """
    a = ev.analysis
    latency = _field(a, "latency_estimate_ms")
    max_rate = _field(a, "max_rate")
    nodes = _field(a, "nodes_used")
    if nodes is None and ev.metrics is not None:
        nodes = ev.metrics.nodes_used
    slots = _field(a, "slots_used")
    if slots is None and ev.metrics is not None:
        slots = ev.metrics.slots_used
    return {
        "throughput": _field(a, "throughput"),
        "sink_throughput": _field(a, "sink_throughput"),
        "rate": _field(a, "rate"),
        "max_rate": max_rate if max_rate is not None and math.isfinite(max_rate) else None,
        "latency_estimate_ms": latency,
        "nodes_used": nodes,
        "slots_used": slots,
        "saturated": _field(a, "saturated"),
        "bottleneck": _field(a, "bottleneck"),
    }

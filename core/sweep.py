"""``slotscope sweep``: every scheduler on a topology set (x offered rates) as one Spark job.

Pure functions in three steps (docs/architecture.md, "Sweep"):

1. :func:`sweep_tasks`: the task list. Storm-style schedulers place a set's topologies
   one after another on what the earlier ones left, and ras-* and TOSS schedule the set
   as a whole, so the unit of work is one scheduler on the whole set
   (:func:`core.topology_set.schedule_set`); a scheduler fed observations at the offered
   rate (aniello-online) gives one task per rate, as its placement depends on it.
2. :func:`run_task`: one task, on a Spark executor: schedule the set, then
   :func:`summarise` the combined placement into one plain row.
3. :func:`sweep_document`: the rows as one JSON document; :func:`sweep_table` and
   :func:`sweep_csv` print it.

What a row reports, per scheduler:

- topologies fully scheduled (of N), nodes and slots used by the combined placement;
- traffic by scope (:func:`scope_traffic`), in tuples/s at the scenario's
  ``workload.rate`` per spout: intra-worker, inter-worker (same node), inter-node (same
  rack), inter-rack; Storm's own locality order (``LoadAwareShuffleGrouping``'s
  ``LocalityScope``: WORKER_LOCAL < HOST_LOCAL < RACK_LOCAL < EVERYTHING, in Apache
  Storm's storm-client/src/jvm/org/apache/storm/grouping/LoadAwareShuffleGrouping.java).
  The network metric weighs each tuple by the scope boundaries it crosses
  (:data:`SCOPE_STEPS`: 0, 1, 2, 3): ``network_cost`` is their sum in tuple-steps/s,
  ``steps_per_tuple`` its mean;
- CPU and memory balance: the coefficient of variation (population standard deviation
  over mean) of declared use over capacity across every node with a slot (CPU: the
  executors' ``cpu_pct`` over 100 % per core; memory: ``memory_mb`` over ``ram_gb``;
  ackers at Storm's default request), and the fullest node's share;
- with offered rates, per topology: R* and the latency estimate of the analytic model
  (:func:`core.simulator.analyze`) of that topology alone on the cluster with its
  placement (the other topologies' load is not in its figure), for topologies of at
  most :data:`SIMULATE_MAX_EXECUTORS` executors; a larger one is "not simulated" with
  that reason.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from core import spark
from core.hardware import total_cores
from core.model import Scenario, Topology, parse_scenario, qualified
from core.placement import Schedule, SchedulerError, Status, assignment
from core.presets import is_preset, preset
from core.registry import get_scheduler
from core.simulator import analyze
from core.simulator.rates import stream_table, unit_rates
from core.topology import build_graph
from core.topology_set import (
    CPU_PCT_PER_CORE,
    MB_PER_GB,
    SetSchedule,
    component_requests,
    one_topology,
    schedule_set,
)

SCOPES = ("intra_worker", "inter_worker", "inter_node", "inter_rack")
SCOPE_STEPS = np.array([0.0, 1.0, 2.0, 3.0])  # LocalityScope boundaries crossed
SCOPE_HEADERS = ("inWkr%", "xWkr%", "xNode%", "xRack%")  # the scopes' columns, as printed
LEGEND = (
    "inWkr%..xRack%: traffic intra-worker, inter-worker (same node), inter-node "
    "(same rack), inter-rack; steps: scope boundaries crossed per tuple (0-3); CV: "
    "declared use over capacity across nodes with a slot"
)
# Largest topology (executors) simulated per rate: the analytic model builds per-executor
# and per-node arrays once per topology; bench/bench_sweep.py measures the sweep.
SIMULATE_MAX_EXECUTORS = 2_000
Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Sequence[Any]]


# 1. the task list


def sweep_tasks(
    source: Mapping[str, str],
    scenario: Scenario,
    schedulers: Sequence[str],
    rates: Sequence[float] = (),
    params: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """One JSON-ready task per scheduler (per scheduler and rate when its placement
    depends on the rate: a scheduler fed observations, ``running_placement``).

    ``source`` names the scenario for the worker: ``{"preset": NAME}`` (rebuilt there,
    no large JSON shipped) or ``{"json": TEXT}``. ``params``: scheduler id -> its
    parameters for every topology of the set (the dashboard's; the command gives none).
    """
    tasks = []
    for sid in schedulers:
        spec = get_scheduler(sid)
        fed = [float(r) for r in rates] if spec.running_placement and rates else [None]
        for rate in fed:
            simulate_at = [float(r) for r in rates] if rate is None else [rate]
            task = {"source": dict(source), "scheduler": sid, "fed_rate": rate}
            task["rates"] = simulate_at
            if params and params.get(sid):
                task["params"] = dict(params[sid])
            tasks.append(task)
    return tasks


def source_of(ref: str, scenario: Scenario) -> dict[str, str]:
    """How a task names its scenario: the preset's name, else the scenario's JSON."""
    if is_preset(ref):
        return {"preset": ref}
    return {"json": json.dumps(scenario.to_json_dict(), sort_keys=True)}


@functools.lru_cache(maxsize=4)
def _scenario(kind: str, text: str) -> Scenario:
    return preset(text) if kind == "preset" else parse_scenario(text)


def scenario_of(source: Mapping[str, str]) -> Scenario:
    """The scenario a task names (cached per worker process)."""
    kind = "preset" if "preset" in source else "json"
    return _scenario(kind, source[kind])


# 2. one task


def run_task(task: Mapping[str, Any]) -> dict[str, Any]:
    """Schedule the set with one scheduler and summarise it: one plain row."""
    scenario = scenario_of(task["source"])
    start = time.perf_counter()
    try:
        result = schedule_set(
            scenario, task["scheduler"], task.get("params"), rate=task["fed_rate"]
        )
    except SchedulerError as err:
        return {"scheduler": task["scheduler"], "fed_rate": task["fed_rate"], "error": str(err)}
    row = summarise(scenario, result, task["rates"])
    row["fed_rate"] = task["fed_rate"]
    row["task_s"] = round(time.perf_counter() - start, 3)
    return row


def _own_scenario(scenario: Scenario, topology: Topology) -> Scenario:
    """One topology of the set alone on the whole cluster (its own component ids), without
    observations: the sweep measures placements, it does not feed them."""
    return one_topology(scenario, topology, scenario.cluster).model_copy(
        update={"observations": None}
    )


def _placements(scenario: Scenario, result: SetSchedule) -> dict[str, dict[str, tuple[str, int]]]:
    """Scheduled topology -> its executors (own ids) -> (node, slot)."""
    out = {}
    for name in result.scheduled:
        prefix = qualified(name, "") if scenario.is_set else ""
        out[name] = {
            a.executor.removeprefix(prefix): (a.node, a.slot)
            for a in result.outcomes[name].assignments
        }
    return out


def scope_traffic(
    scenario: Scenario, placement: Mapping[str, tuple[str, int]], rate: float | None = None
) -> np.ndarray:
    """Tuples/s of a one-topology scenario's placement by scope (:data:`SCOPES`).

    Per stream, each sender's tuples go to the target executors in the grouping's
    shares (:func:`core.simulator.rates.target_weights`; ``all`` copies to every one);
    the share of targets in the sender's worker, node and rack splits them. A
    local-or-shuffle stream (and a shuffle under Storm 2's locality-first rule, counted
    at light load: no spill) keeps its tuples in the sender's worker when it holds a
    target. ``rate``: tuples/s per spout component, default ``workload.rate``.
    """
    graph = build_graph(scenario, parallelism_of(placement))
    table = stream_table(graph)
    nodes = {n.id: n for n in scenario.cluster.nodes}
    where = [placement[e] for e in table.executors]
    worker = np.unique([f"{n}\0{s}" for n, s in where], return_inverse=True)[1]
    node = np.unique([n for n, _ in where], return_inverse=True)[1]
    rack = np.unique([nodes[n].rack for n, _ in where], return_inverse=True)[1]
    rates = unit_rates(table, worker if table.has_local else None)
    out = np.zeros(len(SCOPES))
    out[0] += rates.local_total.sum()
    for k in range(len(table.streams)):
        senders = table.src_ex[table.src_start[k] : table.src_start[k + 1]]
        sent = rates.src_out[table.src_start[k] : table.src_start[k + 1]]
        d = table.dst_comp[k]
        targets = np.arange(table.comp_start[d], table.comp_start[d + 1])
        w = table.weights[k]
        shares = [
            np.bincount(labels[targets], weights=w, minlength=int(labels.max()) + 1)[
                labels[senders]
            ]
            for labels in (worker, node, rack)
        ]
        cumulative = np.stack([*shares, np.full(len(senders), w.sum())])  # within scope
        by_scope = np.diff(cumulative, axis=0, prepend=0.0)
        out += by_scope @ sent
    return out * (scenario.workload.rate if rate is None else rate)


def parallelism_of(placement: Mapping[str, tuple[str, int]]) -> dict[str, int]:
    """Executors per component (ackers included) in a placement: a scheduler such as
    hetero chooses its own parallelism."""
    return dict(Counter(e.rsplit("#", 1)[0] for e in placement))


def balance(values: np.ndarray) -> float:
    """Coefficient of variation (population std / mean); 0 for an empty or all-zero use."""
    mean = float(values.mean()) if values.size else 0.0
    return float(values.std() / mean) if mean > 0 else 0.0


def node_use(
    scenario: Scenario, placements: Mapping[str, Mapping[str, tuple[str, int]]]
) -> tuple[np.ndarray, np.ndarray]:
    """Declared CPU and memory use over capacity (0..1+) of every node with a slot."""
    nodes = [n for n in scenario.cluster.nodes if n.slots > 0]
    index = {n.id: i for i, n in enumerate(nodes)}
    cpu, mem = np.zeros(len(nodes)), np.zeros(len(nodes))
    by_name = {t.name: t for t in scenario.topology_set}
    for name, placement in placements.items():
        request = component_requests(by_name[name])
        at = np.array([index[n] for n, _ in placement.values()], dtype=np.int64)
        need = np.array([request[e.rsplit("#", 1)[0]] for e in placement], dtype=float)
        need = need.reshape(-1, 2)
        cpu += np.bincount(at, weights=need[:, 0], minlength=len(nodes))
        mem += np.bincount(at, weights=need[:, 1], minlength=len(nodes))
    cpu_cap = np.array([total_cores(n) * CPU_PCT_PER_CORE for n in nodes])
    mem_cap = np.array([n.ram_gb * MB_PER_GB for n in nodes])
    return cpu / cpu_cap, mem / mem_cap


def simulated(
    scenario: Scenario, topology: Topology, placement: Mapping[str, tuple[str, int]], rate: float
) -> dict[str, Any]:
    """R* (tuples/s per spout) and the latency estimate (ms) of one placed topology."""
    executors = len(placement)
    if executors > SIMULATE_MAX_EXECUTORS:
        return {
            "topology": topology.name,
            "not_simulated": f"{executors:,} executors, over the sweep's bound of "
            f"{SIMULATE_MAX_EXECUTORS:,} per topology",
        }
    own = _own_scenario(scenario, topology)
    schedule = Schedule(
        scheduler="sweep",
        status=Status.OK,
        params={},
        parallelism=parallelism_of(placement),
        assignments=tuple(assignment(e, n, s) for e, (n, s) in placement.items()),
        decisions=(),
        elapsed_ms=0.0,
    )
    an = analyze(own, schedule, rate)
    return {
        "topology": topology.name,
        "r_star": _finite(an.max_rate),
        "latency_ms": _finite(an.latency_estimate_ms),
        "saturated": an.saturated,
    }


def not_scheduled(result: SetSchedule, name: str) -> dict[str, Any]:
    """A topology the scheduler did not fully place: not simulated, with its status (the
    placement's own words are in ``slotscope schedule``)."""
    status = result.outcomes[name].status.replace("-", " ")
    return {"topology": name, "not_simulated": f"not scheduled ({status})"}


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unbounded R* (no CPU cost at all) is None."""
    return float(value) if np.isfinite(value) else None


def summarise(
    scenario: Scenario, result: SetSchedule, rates: Sequence[float] = ()
) -> dict[str, Any]:
    """One scheduler's sweep row (see the module's docstring for every figure)."""
    placements = _placements(scenario, result)
    by_name = {t.name: t for t in scenario.topology_set}
    traffic = np.zeros(len(SCOPES))
    for name, placement in placements.items():
        traffic += scope_traffic(_own_scenario(scenario, by_name[name]), placement)
    combined = {(n, s) for p in placements.values() for n, s in p.values()}
    cpu, mem = node_use(scenario, placements)
    total = float(traffic.sum())
    cost = float(SCOPE_STEPS @ traffic)
    row: dict[str, Any] = {
        "scheduler": result.scheduler,
        "topologies": len(result.order),
        "scheduled": len(result.scheduled),
        "not_scheduled": [n for n in result.order if not result.outcomes[n].ok],
        "nodes_used": len({n for n, _ in combined}),
        "slots_used": len(combined),
        "traffic": {scope: float(v) for scope, v in zip(SCOPES, traffic, strict=True)},
        "network_cost": cost,
        "steps_per_tuple": cost / total if total > 0 else 0.0,
        "cpu_cv": balance(cpu),
        "memory_cv": balance(mem),
        "cpu_max": float(cpu.max()) if cpu.size else 0.0,
        "memory_max": float(mem.max()) if mem.size else 0.0,
        "schedule_ms": result.elapsed_ms,
        "simulations": [],
    }
    for rate in rates:
        per_topology = [
            simulated(scenario, by_name[name], placement, rate)
            for name, placement in placements.items()
        ] + [not_scheduled(result, name) for name in row["not_scheduled"]]
        done = [t for t in per_topology if t.get("r_star") is not None]
        row["simulations"].append(
            {
                "rate": float(rate),
                "simulated": len(done),
                "r_star_min": min((t["r_star"] for t in done), default=None),
                "latency_ms_max": max(
                    (t["latency_ms"] for t in done if t["latency_ms"] is not None), default=None
                ),
                "topologies": per_topology,
            }
        )
    return row


# 3. the job and the document


def sweep_document(
    scenario: Scenario,
    rows: Sequence[Mapping[str, Any]],
    rates: Sequence[float] = (),
    engine: Mapping[str, Any] | None = None,
    elapsed_s: float | None = None,
) -> dict[str, Any]:
    """The sweep as one JSON document."""
    return {
        "scenario": scenario.name,
        "topologies": len(scenario.topology_set),
        "nodes": len(scenario.cluster.nodes),
        "traffic_rate": scenario.workload.rate,
        "rates": [float(r) for r in rates],
        "network_metric": "tuples/s by scope at traffic_rate per spout; network_cost = "
        "sum of tuples/s x scope steps (intra-worker 0, inter-worker 1, inter-node 2, "
        "inter-rack 3)",
        "engine": dict(engine or {}),
        "elapsed_s": elapsed_s,
        "results": [dict(r) for r in rows],
    }


def run_sweep(
    scenario: Scenario,
    source: Mapping[str, str],
    schedulers: Sequence[str],
    rates: Sequence[float],
    mapper: Mapper,
    params: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The sweep's rows through ``mapper`` (e.g. ``core.spark.map_tasks``: one Spark job)."""
    return list(mapper(run_task, sweep_tasks(source, scenario, schedulers, rates, params)))


def row_name(row: Mapping[str, Any]) -> str:
    """A row's scheduler, with ``@rate`` when it was fed observations at that rate.

    >>> row_name({"scheduler": "aniello-online", "fed_rate": 500.0})
    'aniello-online@500'
    >>> row_name({"scheduler": "even"})
    'even'
    """
    return row["scheduler"] + (f"@{row['fed_rate']:g}" if row.get("fed_rate") else "")


def traffic_shares(traffic: Mapping[str, float]) -> list[float]:
    """Each scope's share of a row's traffic, percent, in :data:`SCOPES` order."""
    total = sum(traffic.values()) or 1.0
    return [100.0 * traffic[s] / total for s in SCOPES]


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def sweep_table(doc: Mapping[str, Any]) -> str:
    """The sweep for the terminal: one line per scheduler (and fed rate)."""
    lines = [
        f"{doc['scenario']}: {doc['topologies']} topologies on {doc['nodes']:,} nodes; "
        f"traffic at {doc['traffic_rate']:g} tuples/s per spout",
        f"{'scheduler':<16} {'sched':>7} {'nodes':>6} {'slots':>6} {SCOPE_HEADERS[0]:>7} "
        f"{SCOPE_HEADERS[1]:>6} {SCOPE_HEADERS[2]:>6} {SCOPE_HEADERS[3]:>6} {'steps':>5} "
        f"{'cpuCV':>6} {'memCV':>6}",
    ]
    for r in doc["results"]:
        if "error" in r:
            lines.append(f"{r['scheduler']:<16} refused: {r['error']}")
            continue
        share = traffic_shares(r["traffic"])
        name = row_name(r)
        lines.append(
            f"{name:<16} {r['scheduled']:>3}/{r['topologies']:<3} {r['nodes_used']:>6} "
            f"{r['slots_used']:>6} {share[0]:>7.1f} {share[1]:>6.1f} {share[2]:>6.1f} "
            f"{share[3]:>6.1f} {r['steps_per_tuple']:>5.2f} {r['cpu_cv']:>6.2f} "
            f"{r['memory_cv']:>6.2f}"
        )
        for sim in r["simulations"]:
            lines.append(
                f"{'':<16} rate {sim['rate']:g}: {sim['simulated']} simulated, min R* "
                f"{_fmt(sim['r_star_min'], ',.0f')} tuples/s, max latency "
                f"{_fmt(sim['latency_ms_max'], ',.2f')} ms"
            )
    lines.append(LEGEND)
    return "\n".join(lines)


CSV_FIELDS = (
    "scheduler",
    "fed_rate",
    "scheduled",
    "topologies",
    "nodes_used",
    "slots_used",
    *SCOPES,
    "network_cost",
    "steps_per_tuple",
    "cpu_cv",
    "memory_cv",
    "cpu_max",
    "memory_max",
    "schedule_ms",
    "rate",
    "simulated",
    "r_star_min",
    "latency_ms_max",
    "error",
)


def sweep_csv(doc: Mapping[str, Any]) -> str:
    """One CSV row per scheduler and simulated rate (rate blank when none was given)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, CSV_FIELDS, lineterminator="\r\n", extrasaction="ignore")
    writer.writeheader()
    for r in doc["results"]:
        base = {**r, **r.get("traffic", {})}
        for sim in r.get("simulations") or [{}]:
            writer.writerow({**base, **{k: v for k, v in sim.items() if k != "topologies"}})
    return buf.getvalue()


def spark_sweep(
    scenario: Scenario,
    source: Mapping[str, str],
    schedulers: Sequence[str],
    rates: Sequence[float] = (),
    master: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    deadline_s: float | None = None,
    group: str | None = None,
    params: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The sweep as one Spark job (:func:`core.spark.map_tasks`, one Spark task per sweep
    task) in job group ``group`` (default: a new one; the dashboard passes its job's id,
    which its Cancel cancels); Ctrl-C (KeyboardInterrupt) cancels the job's group before
    it is raised again. ``params``: see :func:`sweep_tasks`.

    Raises
    ------
    core.spark.SparkUnavailable
        Spark cannot start, a task failed, or the job stalled or passed ``deadline_s``.
    """
    group = group or f"slotscope-sweep-{uuid.uuid4().hex[:12]}"
    mapper = functools.partial(
        spark.map_tasks, group=group, master=master, progress=progress, deadline_s=deadline_s
    )
    start = time.perf_counter()
    try:
        rows = run_sweep(scenario, source, schedulers, rates, mapper, params)
    except KeyboardInterrupt:
        spark.cancel(group)
        raise
    elapsed = round(time.perf_counter() - start, 3)
    engine = {**spark.engine_info(master), "tasks": len(rows), "wall_s": elapsed}
    return sweep_document(scenario, rows, rates, engine, elapsed)

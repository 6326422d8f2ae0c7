"""Heterogeneity-aware scheduling that also picks the parallelism (Nasiri et al. 2023).

The scheduler predicts each task's CPU use on each machine, places one
instance per component, then raises the input rate and adds instances of
the bottleneck component until the cluster is full; the last state in which
no machine is over-utilised is the answer: its instance counts (returned as
``Outcome.parallelism``), its placement and its rate. One worker per
machine (slot 0 of every node with a slot); W is not used. It follows the
paper [1] and, where the two differ, the authors' public simulator [2]
(``Scheduler_Simulator.py``; the paper's ref. [32]).

CPU model (percent of the machine): ``TCU_ij = e_ij x IR_i + MET_ij``
(:mod:`core.schedulers.hetero_model`). Rates: a spout component takes the
topology rate R; ``OR_i = IR_i x alpha_i`` (alpha = selectivity) and every
instance of component c gets ``IR_c = R x v_c / x_c``, v_c the visit ratio
(1 for spouts, ``sum v_u x alpha_u`` over inputs), x_c its instances.

1. FirstAssignment: at R = R0, one instance per component, in topological
   order, each on the machine where its TCU is least among those with room.
   R0 (parameter ``r0``): the paper leaves it open ("a given topology with
   an initial input rate R0"); by default it is their code's start, the
   profiled input rate (``profiling.per_type[c][type].ir``) of the first
   component in topological order that has one, on the machine type where its
   e is least (``FirstAssign`` takes the row with the largest Y), divided by
   that component's visit ratio; 1 tuple/s when no profile gives a rate.
2. MaximizeThroughput: Scale = 1; loop: no machine over-utilised: keep this
   state as the last stable one and raise the rate, ``R = R + R / Scale``.
   Else take the hottest task (below), and add k = 1 instance of its
   component: its input is re-split over x + k instances and each new
   instance goes where its TCU is least among machines with room. If the k
   do not all fit, try k + 1, k + 2, ... up to ``max_batch`` (their
   simulator's ``divInstance``, 1 to 199; a larger split lowers every
   instance's TCU, so more, smaller instances may fill gaps one could not);
   k stays at the size that fitted until the rate changes. If none fits:
   if ``R > Scale``, double Scale and go back to the last stable state,
   otherwise stop.

Hottest task (parameter ``hottest``):

- ``load-ratio`` (default, the authors' code, ``NewInstanceFromTask``): over
  all over-utilised machines, the task group (component, machine) of the
  last stable state with the largest ``IR_new / IR_available``, where
  ``IR_available = IR_stable + MAC_stable / (instances there x e)`` is the
  input per instance that would have filled the machine's spare capacity.
- ``first-machine`` (the paper's text): the task with the highest TCU on
  the first over-utilised machine.

``thread_cap`` (default on): a task is one executor thread, so its TCU may
not exceed one core, ``100 / cores`` percent of its machine; a machine
hosting a task over it counts as over-utilised, a new instance needs a core's
worth of room, and ``IR_available`` is also capped there. Off: the paper's
machine-level model exactly (one task may use the whole machine).

Departures and choices (all deterministic):

- Groupings: the paper's Eq. 6 splits every stream evenly over the
  downstream tasks, and so does this model for every grouping. Not modelled:
  local-or-shuffle's same-worker preference (a downstream instance beside
  its upstream one gets all of that upstream's output), fields grouping's
  key skew (the busiest instance gets more than 1/x), all (every instance
  gets the whole stream) and global (one instance gets it all). The
  simulator charges these; hetero's predicted ``final_rate`` can then be
  above what the placement sustains.
- FirstAssignment and new instances go where their TCU is least (the
  paper's text); the authors' code takes the machine type with the largest Y
  (least e), whatever the MET. The two agree at their start rate but not
  far below it: at 1 tuple/s a TCU is nearly all MET. On their nine-machine
  UniqueVisitor mix R0 = 1 puts the first spout on a type-B machine (MET
  5.9% against type A's 6.9%) where their code, at 2,866 tuples/s, takes
  type A, and the run ends 20% below theirs; from their start rate the two
  runs add the same instances at the same rates, step for step
  (tests/schedulers/test_hetero.py). Hence the profiled start above.
- Termination is the paper's (``R <= Scale``); their code stops when its
  divisor reaches 2048. Their integer truncation of rates is not copied.
- e_ij, MET_ij: ``scenario.profiling.per_type[component][node.type]``
  (``e_ms``, ``met_pct``) when present; else ``e = cpu_us / per-core speed``
  (:func:`core.hardware.core_speed`) and MET = 0. A task running e ms per
  tuple at IR tuples/s uses ``e / 1000 x IR / cores x 100`` percent of a
  machine with ``cores`` cores (all sockets).
- Machines are taken in the order the scenario lists them (ties of least
  TCU, the first over-utilised); hottest-task ties go to the first machine,
  then the component earlier in topological order. Capacity checks allow
  1e-9 percent of rounding.
- Guards: at most ``time_limit`` seconds (default 60: 500 components on
  5,000 machines take about 0.1 s an iteration) and ``MAX_ITERATIONS`` loop
  iterations (200,000), whichever comes first, ending in the last stable
  state; the rate
  never exceeds ``MAX_RATE`` (a topology with no CPU cost would otherwise
  rise forever) and at most ``MAX_INSTANCES`` instances in all (the
  scenario format's executor limit). The reason the loop stopped is in
  ``details["stop"]``.
- If the first assignment cannot place a component, the status is
  ``not-enough-resources`` with the predicted need against the best
  capacity left.

Against the authors' simulator (run unchanged under Python 2.7 on the eight
RollingCount / UniqueVisitor machine mixes of its file, with its profiled
rates) its maximum throughput is within 4.5% on all eight, with
``thread_cap`` off. The paper's "within 4% of optimal" holds in its own
model only on mixes of fast machines: where MET is large (their AMD type,
24-36% per task) the optimum runs fewer instances and hetero, like their
simulator, reaches 53-63% of it.

``details``: ``r0`` (the start rate, tuples/s), ``final_rate`` (R of the
stable state, tuples/s), ``max_throughput`` (the authors' figure: sum over
components of input rate x instances, tuples/s), ``iterations``, ``stop``
(why the loop ended), ``scale``, ``hottest``, ``thread_cap`` and
``machine_cpu_pct`` (predicted CPU per machine at the final rate).

References
----------
.. [1] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "A scheduling algorithm
   to maximize storm throughput in heterogeneous cluster", Journal of Big
   Data 10:103, 2023. https://doi.org/10.1186/s40537-023-00771-y
.. [2] H. Nasiri, Scheduling Simulator, https://github.com/h-nasiri/Scheduling-Simulator
   (commit 5374606), 2022.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from core.model import MAX_EXECUTORS, Scenario
from core.problem import Problem, problem_of
from core.schedulers.base import Outcome, Param, SchedulerError, SchedulerSpec, Status, assignment
from core.schedulers.hetero_model import (
    CAPACITY_PCT,
    TOLERANCE_PCT,
    Model,
    Reason,
    Snapshot,
    State,
    cpu_model,
)
from core.topology import executor_id

DEFAULT_R0 = 0.0  # 0 = the profiled start rate (``start_rate``)
FALLBACK_R0 = 1.0  # tuples/s: the start rate when no profile gives one
MAX_ITERATIONS = 200_000  # loop guard; each iteration adds instances or raises R
MAX_RATE = 1e9  # tuples/s: far above any Storm cluster; stops a cost-free topology
MAX_INSTANCES = MAX_EXECUTORS  # the scenario format's limit on executors
# Most instances added at once: the authors' simulator tries 1 .. 199
# (``while divInstance != 200`` in SecondAssign, Scheduling-Simulator [2]).
DEFAULT_MAX_BATCH = 199
HOTTEST_RULES = ("load-ratio", "first-machine")
BATCH_CHUNK = 8  # batch sizes checked in the first numpy pass (then 16, 32, ...)
DEFAULT_TIME_LIMIT_S = 60.0  # the MaximizeThroughput loop ends there in its last stable state


def _hottest_first_machine(state: State, rate: float, over: np.ndarray) -> tuple[int, int]:
    """The paper's text: the task with the highest TCU on the first over-utilised machine."""
    hot = int(np.argmax(over))
    on_hot = np.flatnonzero(state.hosts[:, hot])
    return int(on_hot[np.argmax(state.tcu_on(on_hot, hot, rate))]), hot


def _hottest_load_ratio(
    state: State, rate: float, over: np.ndarray, stable: Snapshot
) -> tuple[int, int]:
    """The authors' code: the largest IR_new / IR_available over all over-utilised machines.

    IR_available is the input rate per instance at which the task's instances
    of the last stable state would fill its machine's spare capacity there
    (and, with the thread cap, the rate at which one instance fills a core).
    Instances added since the stable state are not candidates, as in their
    ``NewInstanceFromTask``; with none, the paper's rule decides.
    """
    m = state.m
    avail, hosted, costly = stable.available(m)
    candidate = hosted & over[:, None]
    if not candidate.any():
        return _hottest_first_machine(state, rate, over)
    ir_new = rate * m.visit / np.maximum(state.x, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(candidate, np.where(costly, ir_new[None, :] / avail, 0.0), -np.inf)
    # ranked as after np.nan_to_num(ratio, nan=inf) (NaN first, then +inf, then the
    # largest finite), which argmax does already: it returns the first NaN, else the
    # first maximum; machines in order, then components in topological order
    k = int(np.argmax(ratio))
    if ratio.flat[k] == -np.inf:  # every candidate is -inf (the authors' -largest float)
        k = int(np.argmax(candidate))
    j, c = divmod(k, ratio.shape[1])
    return c, j


def _batches_that_fit(state: State, c: int, rate: float, first: int, last: int) -> Iterator[int]:
    """Batch sizes k in first..last, in order, for which k new instances of c all find room.

    With k more instances every instance of c gets ``R v_c / (x + k)``: the
    machines hosting c lose part of their load, and a new instance needs the
    same TCU ``t_j`` each time it lands on machine j, so greedy placement
    succeeds exactly when ``sum_j floor(room_j / t_j) >= k`` (t_j within the
    per-task cap). Checked a chunk of sizes at a time in one numpy pass, the
    chunks doubling: the caller places the first that fits and stops asking.
    """
    last = min(last, MAX_INSTANCES - len(state.instances))
    lo, size = first, BATCH_CHUNK
    while lo <= last:
        hi = min(last, lo + size - 1)
        yield from _fitting(state, c, rate, np.arange(lo, hi + 1)).tolist()
        lo, size = hi + 1, 2 * size


def _fitting(state: State, c: int, rate: float, ks: np.ndarray) -> np.ndarray:
    """The batch sizes of ``ks`` for which that many new instances of c all find room."""
    m = state.m
    x = state.x[c]
    new_x = x + ks
    relief = (1.0 / x if x else 0.0) - 1.0 / new_x  # share each hosted instance gives up
    load = state.load(rate)[None, :] - (
        rate * m.visit[c] * relief[:, None] * (state.hosts[c] * m.a[c])[None, :]
    )
    need = m.a[c][None, :] * (rate * m.visit[c] / new_x)[:, None] + m.met[c][None, :]
    room = CAPACITY_PCT - load + TOLERANCE_PCT
    with np.errstate(divide="ignore", invalid="ignore"):
        count = np.where(need > 0, np.floor(room / need), MAX_INSTANCES)
    count = np.where((need <= m.cap + TOLERANCE_PCT) & (room >= 0), count, 0)
    return ks[count.sum(axis=1) >= ks]


def _add(state: State, c: int, k: int, rate: float, why: tuple[int, float]) -> bool:
    """Add k instances of c at once (all or none), each where its TCU is least with room
    (``State.best_machine``'s choice, instance by instance).

    All k have the same TCU on a machine (x is raised first), and each instance placed only
    adds to its machine's load when its costs are not negative: a machine that has no room
    for one never gets it back within the batch. The machines are then taken in TCU order
    (ties by index, as argmin) and the first with room is kept until it is full: the same
    machines, and the same floats, as asking ``best_machine`` k times (a numpy pass each;
    batches of tens of instances made those passes half of hetero's time).
    """
    if len(state.instances) + k > MAX_INSTANCES:
        return False
    saved = state.save(c)
    state.split(c, state.x[c] + k)
    m = state.m
    if (m.a[c] < 0).any() or (m.met[c] < 0).any():  # loads could fall: ask each time
        for _ in range(k):
            best = state.best_machine(c, rate)
            if best is None:
                state.restore(saved)
                return False
            state.place(c, best[0], (rate, why[0], why[1], best[1], k))
        return True
    need, load = state.tcu(c, rate), state.load(rate)
    order = np.argsort(need, kind="stable").tolist()
    pos = 0
    for _ in range(k):
        while pos < len(order):
            j = order[pos]
            room = min(CAPACITY_PCT - load[j], m.cap[j])
            if need[j] <= room + TOLERANCE_PCT:
                break
            pos += 1
        else:
            state.restore(saved)
            return False
        state.place(c, j, (rate, why[0], why[1], float(need[j]), k))
        load[j] = rate * state.per_rate[j] + state.fixed[j]  # as State.load computes it
    return True


def start_rate(scenario: Scenario, model: Model) -> tuple[float, str]:
    """R0 as the authors' FirstAssign starts (tuples/s), and where it comes from.

    The first component in topological order with a profiled input rate
    (``profiling.per_type[c][type].ir``) on some machine: that rate, on the
    machine where the component's e is least (the first listed on ties, as
    their stable sort and strict ``>`` keep it), over the component's visit
    ratio. Without one, ``FALLBACK_R0``.
    """
    for c, cid in enumerate(model.components):
        by_type = scenario.profiling.per_type.get(cid, {})
        rates = [getattr(by_type.get(n.type or ""), "ir", None) for n in model.machines]
        known = [j for j, ir in enumerate(rates) if ir is not None]
        if not known or model.visit[c] <= 0:
            continue
        j = min(known, key=lambda k: model.a[c, k])
        return (
            float(rates[j] / model.visit[c]),
            f"{cid}'s profiled input rate on {model.machines[j].id}, where its e is least",
        )
    return FALLBACK_R0, "no profile gives an input rate"


def _first_assignment(state: State, r0: float) -> str | None:
    """Place one instance per component; a message if one fits nowhere."""
    for c, cid in enumerate(state.m.components):
        state.split(c, 1)
        best = state.best_machine(c, r0)
        if best is None:
            need = float(state.tcu(c, r0).min())
            return (
                f"{cid} needs {need:.1f}% of a machine at R0 = {r0:g} tuples/s but at most "
                f"{state.room(r0):.1f}% is available to one task on any machine"
            )
        state.place(c, best[0], (r0, -1, 0.0, best[1], 1))
    return None


def _maximize(
    state: State, r0: float, rule: str, max_batch: int, time_limit_s: float = math.inf
) -> tuple[float, int, str, int]:
    """The MaximizeThroughput loop; returns (stable rate, scale, why it stopped, iterations)."""
    rate, scale, batch = r0, 1, 1
    stable = state.snapshot(r0)  # the first assignment fits at R0 by construction
    deadline = time.perf_counter() + time_limit_s
    for iteration in range(1, MAX_ITERATIONS + 1):
        if time.perf_counter() > deadline:
            state.truncate(stable.n)
            return stable.rate, scale, f"time limit of {time_limit_s:g} s reached", iteration
        over = state.over(rate)
        if not over.any():
            stable, batch = state.snapshot(rate), 1
            if rate + rate / scale > MAX_RATE:
                return rate, scale, f"the rate would exceed {MAX_RATE:g} tuples/s", iteration
            rate += rate / scale
            continue
        if rule == "load-ratio":
            c, hot = _hottest_load_ratio(state, rate, over, stable)
        else:
            c, hot = _hottest_first_machine(state, rate, over)
        why = (hot, float(state.load(rate)[hot]))
        added = _add(state, c, batch, rate, why)  # the current batch size usually fits
        if not added:
            for k in _batches_that_fit(state, c, rate, batch + 1, max_batch):
                if _add(state, c, k, rate, why):
                    batch, added = k, True
                    break
        if added:
            continue
        stuck = f"no machine can take 1 to {max_batch} more instances of the hottest task"
        if len(state.instances) + 1 > MAX_INSTANCES:
            stuck = f"instance cap {MAX_INSTANCES} reached"
        if rate <= scale:
            state.truncate(stable.n)
            return stable.rate, scale, stuck, iteration
        scale, batch = scale * 2, 1
        state.truncate(stable.n)
        rate = stable.rate
    state.truncate(stable.n)
    return stable.rate, scale, f"iteration cap {MAX_ITERATIONS} reached", MAX_ITERATIONS


def _why(cid: str, reason: Reason, names: list[str], j: int) -> str:
    rate, hot, hot_load, tcu, k = reason
    if hot < 0:
        return (
            f"first instance of {cid}, placed where its predicted CPU at R0 = {rate:g} tuples/s "
            f"is least among machines with room ({tcu:.2f}% of {names[j]})"
        )
    batch = f" (one of {k} added at once)" if k > 1 else ""
    return (
        f"added{batch} at {rate:.6g} tuples/s because {cid} was the hottest task on "
        f"over-utilised {names[hot]} ({hot_load:.1f}% CPU); {names[j]} is where the new "
        f"instance's predicted CPU is least ({tcu:.2f}%) with room for it"
    )


def schedule(problem: Problem | Scenario, params: Mapping[str, Any]) -> Outcome:
    """Choose instance counts and machines that maximise the sustainable input rate.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {})
    >>> # 8 components and the acker's 8 acks per tuple
    >>> out.details["max_throughput"] == 16 * out.details["final_rate"]
    True
    """
    problem = problem_of(problem)
    scenario = problem.scenario
    r0 = float(params.get("r0", DEFAULT_R0))
    rule = str(params.get("hottest", HOTTEST_RULES[0]))
    if rule not in HOTTEST_RULES:
        raise SchedulerError(
            f"parameter hottest: {rule!r} is not one of {', '.join(HOTTEST_RULES)}"
        )
    thread_cap = bool(params.get("thread_cap", True))
    max_batch = int(params.get("max_batch", DEFAULT_MAX_BATCH))
    time_limit_s = float(params.get("time_limit", DEFAULT_TIME_LIMIT_S))
    graph = problem.graph
    machines = [n for n in scenario.cluster.nodes if n.slots > 0]
    model: Model = cpu_model(scenario, graph, machines, thread_cap)
    r0, r0_source = (r0, "given") if r0 > 0 else start_rate(scenario, model)
    state = State(model)
    problem = _first_assignment(state, r0)
    if problem:
        return Outcome((), (problem,), Status.NOT_ENOUGH_RESOURCES, problem)
    rate, scale, stop, iterations = _maximize(state, r0, rule, max_batch, time_limit_s)

    count = dict.fromkeys(model.components, 0)
    assignments, decisions = [], []
    names = [n.id for n in machines]
    for c, j, reason in state.instances:
        cid = model.components[c]
        ex = executor_id(cid, count[cid])
        count[cid] += 1
        assignments.append(assignment(ex, names[j], 0))
        decisions.append(f"{ex} -> {names[j]} slot 0: {_why(cid, reason, names, j)}")
    throughput = float(rate * model.visit.sum())
    cap = "one core per task" if thread_cap else "no per-task cap, as in the paper"
    decisions.insert(
        0,
        f"hetero chose {sum(count.values())} instances "
        f"({', '.join(f'{c} x {k}' for c, k in count.items())}), one worker per machine: "
        f"the highest input rate at which no machine is predicted over 100% CPU ({cap}) is "
        f"{rate:.6g} tuples/s (maximum throughput {throughput:.6g} tuples/s), from R0 = "
        f"{r0:.6g} tuples/s ({r0_source}); stopped: {stop}",
    )
    load = state.load(rate)
    return Outcome(
        assignments=tuple(assignments),
        decisions=tuple(decisions),
        parallelism=count,
        details={
            "r0": r0,
            "final_rate": float(rate),
            "max_throughput": throughput,
            "iterations": iterations,
            "scale": scale,
            "stop": stop,
            "hottest": rule,
            "thread_cap": thread_cap,
            "machine_cpu_pct": {
                n.id: round(float(v), 6) for n, v in zip(machines, load, strict=True)
            },
        },
    )


SPEC = SchedulerSpec(
    id="hetero",
    keeps_parallelism=False,
    name="Heterogeneity-aware (maximum throughput)",
    paper=(
        "H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, A scheduling algorithm to maximize "
        "storm throughput in heterogeneous cluster, Journal of Big Data 10:103, 2023, "
        "doi:10.1186/s40537-023-00771-y"
    ),
    params=(
        Param(
            "r0",
            DEFAULT_R0,
            "Initial topology input rate R0, tuples/s; 0 = the profiled input rate (as the "
            "authors' simulator starts), or 1 tuple/s without one.",
            float,
            0.0,
            None,
        ),
        Param(
            "hottest",
            HOTTEST_RULES[0],
            "Which task gains instances: load-ratio (the authors' simulator: largest input "
            "rate over available rate on any over-utilised machine) or first-machine (the "
            "paper's text: highest CPU on the first over-utilised machine).",
            str,
        ),
        Param(
            "thread_cap",
            True,
            "A task is one executor thread: its predicted CPU may not exceed one core of its "
            "machine. Off: the paper's machine-level model exactly.",
            bool,
        ),
        Param(
            "max_batch",
            DEFAULT_MAX_BATCH,
            "Most instances of the hottest task added at once when fewer fit nowhere "
            "(the authors' simulator: 199).",
            int,
            1,
            MAX_INSTANCES,
        ),
        Param(
            "time_limit",
            DEFAULT_TIME_LIMIT_S,
            "Wall-clock limit, seconds: the loop ends there in its last stable state.",
            float,
            0.1,
            3600,
        ),
    ),
    run=schedule,
    summary="Picks each component's instance count and machine with a CPU model per machine "
    "type, raising the input rate until the cluster is full; one worker per machine.",
)

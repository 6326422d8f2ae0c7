"""Heterogeneity-aware scheduling that also picks the parallelism (Nasiri et al. 2023).

The scheduler predicts each task's CPU use on each machine, places one
instance per component, then raises the input rate and adds instances of
the bottleneck component until the cluster is full; the last state in which
no machine is over-utilised is the answer: its instance counts (returned as
``Outcome.parallelism``), its placement and its rate. One worker per
machine (slot 0 of every node with a slot); W is not used.

CPU model (percent of the machine): ``TCU_ij = e_ij x IR_i + MET_ij``.
Rates: a spout component takes the topology rate R; ``OR_i = IR_i x
alpha_i`` (alpha = selectivity) and a downstream task's input is the sum
over its upstream tasks of ``OR / x``, x = the downstream instances, so every
instance of component c gets ``IR_c = R x v_c / x_c`` with v_c the visit
ratio (1 for spouts, ``sum v_u x alpha_u`` over inputs).

1. FirstAssignment: at R = R0, one instance per component, in topological
   order, each on the machine where its TCU is least among those whose
   available capacity ``MAC_w`` (starting at 100) can take it.
2. MaximizeThroughput: Scale = 1; loop: recompute every TCU and MAC. No
   machine over 100: keep this state as the last stable one and raise the
   rate, ``R = R + R / Scale``. Else take the hottest task on the first
   over-utilised machine, add an instance of its component and put it on
   the machine with room for it where its TCU is least; if none has room:
   if ``R > Scale``, double Scale and go back to the last stable state,
   otherwise stop.

Where the paper is silent (all deterministic):

- e_ij, MET_ij: ``scenario.profiling.per_type[component][node.type]``
  (``e_ms``, ``met_pct``) when present; else ``e = cpu_us / per-core speed``
  (:func:`core.hardware.core_speed`) and MET = 0. A task running e ms per
  tuple at IR tuples/s uses ``e / 1000 x IR / cores x 100`` percent of a
  machine with ``cores`` cores (all sockets).
- The paper's rate model splits every stream evenly; all, global and fields
  groupings are treated like shuffle here.
- R0 (parameter ``r0``) defaults to 1 tuple/s: low enough that the first
  assignment fits on any cluster that can hold the topology at all; the
  loop doubles it quickly (R + R/1 while Scale = 1).
- Machines are taken in the order the scenario lists them ("first
  over-utilised", and ties of least TCU); the hottest task's ties go to the
  component earlier in topological order. Capacity checks allow 1e-9
  percent of rounding.
- The new instance's TCU and the machines' MAC are computed after its
  component's input is re-split over the larger instance count.
- Guards: at most ``MAX_ITERATIONS`` loop iterations (200,000; the bench's
  10,000-executor, 1,000-machine scenario needs about 6,400), and the rate
  never exceeds ``MAX_RATE`` (a topology with no CPU cost would otherwise
  rise forever); either ends the loop at the last stable state. At most
  ``MAX_INSTANCES`` instances in all (the scenario format's executor limit):
  at the cap, a new instance is treated as one that fits nowhere. The reason
  the loop stopped is in ``details["stop"]``.
- If the first assignment cannot place a component, the status is
  ``not-enough-resources`` with the predicted need against the best
  capacity left.

``details``: ``final_rate`` (R of the stable state, tuples/s),
``max_throughput`` (the authors' figure: sum over components of input rate x
instances, tuples/s), ``iterations``, ``stop`` (why the loop ended),
``scale`` and ``machine_cpu_pct`` (predicted CPU per machine at the final
rate).

References
----------
.. [1] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "A scheduling algorithm
   to maximize storm throughput in heterogeneous cluster", Journal of Big
   Data 10:103, 2023. https://doi.org/10.1186/s40537-023-00771-y
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.hardware import core_speed, total_cores
from core.model import MAX_EXECUTORS, Node, Scenario
from core.schedulers.base import Outcome, Param, SchedulerSpec, Status, assignment
from core.topology import TopologyGraph, build_graph, executor_id

DEFAULT_R0 = 1.0  # tuples/s: initial topology input rate
MAX_ITERATIONS = 200_000  # loop guard; each iteration adds one instance or raises R
MAX_RATE = 1e9  # tuples/s: far above any Storm cluster; stops a cost-free topology
MAX_INSTANCES = MAX_EXECUTORS  # the scenario format's limit on executors
CAPACITY_PCT = 100.0  # a machine's CPU, percent
TOLERANCE_PCT = 1e-9


@dataclass
class _Model:
    """Per component c (topological order) and machine j: TCU = a[c, j] x IR + met[c, j]."""

    components: list[str]
    machines: list[Node]
    a: np.ndarray  # percent of machine j per tuple/s of input to one instance of c
    met: np.ndarray  # fixed percent of machine j per instance of c
    visit: np.ndarray  # total input of component c per tuple/s of topology rate


def cpu_model(scenario: Scenario, graph: TopologyGraph, machines: list[Node]) -> _Model:
    """Costs from per-type profiling where present, else from cpu_us and core speed."""
    comps = list(graph.order)
    cpu_us = np.array([graph.components[c].cpu_us for c in comps])
    speed = np.array([core_speed(n, scenario.profiling) for n in machines])
    cores = np.array([total_cores(n) for n in machines], dtype=float)
    e_ms = cpu_us[:, None] / 1000.0 / speed[None, :]
    met = np.zeros_like(e_ms)
    for c, cid in enumerate(comps):
        for j, node in enumerate(machines):
            prof = scenario.profiling.per_type.get(cid, {}).get(node.type or "")
            if prof is not None:
                e_ms[c, j], met[c, j] = prof.e_ms, prof.met_pct
    a = e_ms / 1000.0 * CAPACITY_PCT / cores[None, :]
    rank = {c: i for i, c in enumerate(comps)}
    visit = np.zeros(len(comps))
    for c, cid in enumerate(comps):
        preds = graph.preds[cid]
        visit[c] = (
            1.0
            if not preds
            else sum(visit[rank[u]] * graph.components[u].selectivity for u in preds)
        )
    return _Model(comps, machines, a, met, visit)


class _State:
    """Instances (component, machine, reason) and per-machine load terms.

    Load of machine j at rate R: ``R x per_rate[j] + fixed[j]``. A reason is
    kept raw, ``(rate, hot machine, its load, TCU)`` (hot = -1 for the first
    assignment), and worded only for the instances of the final state.
    """

    def __init__(self, model: _Model):
        self.m = model
        self.instances: list[tuple[int, int, tuple[float, int, float, float]]] = []
        self.truncate(0)

    def truncate(self, n: int) -> None:
        """Back to the first n instances (the last stable state), rebuilt in one go."""
        del self.instances[n:]
        a, met, visit = self.m.a, self.m.met, self.m.visit
        self.hosts = np.zeros(a.shape, dtype=int)
        if self.instances:
            cs, js = np.array([(c, j) for c, j, _ in self.instances]).T
            np.add.at(self.hosts, (cs, js), 1)
        self.x = self.hosts.sum(axis=1)
        share = np.divide(visit, self.x, out=np.zeros_like(visit), where=self.x > 0)
        self.per_rate = (self.hosts * a * share[:, None]).sum(axis=0)
        self.fixed = (self.hosts * met).sum(axis=0)

    def load(self, rate: float) -> np.ndarray:
        return rate * self.per_rate + self.fixed

    def split(self, c: int, new_x: int) -> None:
        """Re-split component c's input over ``new_x`` instances."""
        old = self.x[c]
        if old:
            self.per_rate += self.hosts[c] * self.m.a[c] * (self.m.visit[c] * (1 / new_x - 1 / old))
        self.x[c] = new_x

    def place(self, c: int, j: int, reason: tuple[float, int, float, float]) -> None:
        """Put one more instance of c (already counted in x) on machine j."""
        self.instances.append((c, j, reason))
        self.hosts[c, j] += 1
        self.per_rate[j] += self.m.a[c, j] * self.m.visit[c] / self.x[c]
        self.fixed[j] += self.m.met[c, j]

    def tcu(self, c: int, rate: float) -> np.ndarray:
        """TCU of one instance of c on every machine at the current x."""
        return self.m.a[c] * (rate * self.m.visit[c] / self.x[c]) + self.m.met[c]

    def best_machine(self, c: int, rate: float) -> tuple[int, float] | None:
        """Where a new instance of c has the least TCU among machines with room, and that TCU."""
        need = self.tcu(c, rate)
        fits = need <= CAPACITY_PCT + TOLERANCE_PCT - self.load(rate)
        if not fits.any():
            return None
        j = int(np.argmin(np.where(fits, need, np.inf)))
        return j, float(need[j])


def _first_assignment(state: _State, r0: float) -> str | None:
    """Place one instance per component; a message if one fits nowhere."""
    for c, cid in enumerate(state.m.components):
        state.split(c, 1)
        best = state.best_machine(c, r0)
        if best is None:
            need = float(state.tcu(c, r0).min())
            room = float((CAPACITY_PCT - state.load(r0)).max())
            return (
                f"{cid} needs {need:.1f}% of a machine at R0 = {r0:g} tuples/s but at most "
                f"{room:.1f}% is available on any machine"
            )
        state.place(c, best[0], (r0, -1, 0.0, best[1]))
    return None


def _maximize(state: _State, r0: float) -> tuple[float, int, str, int]:
    """The MaximizeThroughput loop; returns (stable rate, scale, why it stopped, iterations)."""
    rate, scale = r0, 1
    stable = (len(state.instances), r0)  # the first assignment fits at R0 by construction
    for iteration in range(1, MAX_ITERATIONS + 1):
        load = state.load(rate)
        hot = int(np.argmax(load))  # first machine with the highest load
        if load[hot] <= CAPACITY_PCT + TOLERANCE_PCT:
            stable = (len(state.instances), rate)
            if rate + rate / scale > MAX_RATE:
                return rate, scale, f"the rate would exceed {MAX_RATE:g} tuples/s", iteration
            rate += rate / scale
            continue
        hot = int(np.argmax(load > CAPACITY_PCT + TOLERANCE_PCT))  # the first over-utilised
        on_hot = np.flatnonzero(state.hosts[:, hot])
        per_task = state.m.a[on_hot, hot] * rate * state.m.visit[on_hot] / state.x[on_hot]
        c = int(on_hot[np.argmax(per_task + state.m.met[on_hot, hot])])
        stuck = f"instance cap {MAX_INSTANCES} reached"
        if len(state.instances) < MAX_INSTANCES:
            state.split(c, state.x[c] + 1)
            best = state.best_machine(c, rate)
            if best is not None:
                state.place(c, best[0], (rate, hot, float(load[hot]), best[1]))
                continue
            stuck = "no machine can take another instance"
        if rate <= scale:
            state.truncate(stable[0])
            return stable[1], scale, stuck, iteration
        scale *= 2
        state.truncate(stable[0])
        rate = stable[1]
    state.truncate(stable[0])
    return stable[1], scale, f"iteration cap {MAX_ITERATIONS} reached", MAX_ITERATIONS


def _why(cid: str, reason: tuple[float, int, float, float], names: list[str], j: int) -> str:
    rate, hot, hot_load, tcu = reason
    if hot < 0:
        return (
            f"first instance of {cid}, placed where its predicted CPU at R0 = {rate:g} tuples/s "
            f"is least among machines with room ({tcu:.2f}% of {names[j]})"
        )
    return (
        f"added at {rate:.6g} tuples/s because {cid} was the hottest task on over-utilised "
        f"{names[hot]} ({hot_load:.1f}% CPU); {names[j]} is where the new instance's predicted "
        f"CPU is least ({tcu:.2f}%) with room for it"
    )


def schedule(scenario: Scenario, params: Mapping[str, Any]) -> Outcome:
    """Choose instance counts and machines that maximise the sustainable input rate.

    Examples
    --------
    >>> from core.presets import preset
    >>> out = schedule(preset("lf-linear"), {})
    >>> out.details["max_throughput"] == 8 * out.details["final_rate"]
    True
    """
    r0 = float(params.get("r0", DEFAULT_R0))
    graph = build_graph(scenario)
    machines = [n for n in scenario.cluster.nodes if n.slots > 0]
    model = cpu_model(scenario, graph, machines)
    state = _State(model)
    problem = _first_assignment(state, r0)
    if problem:
        return Outcome((), (problem,), Status.NOT_ENOUGH_RESOURCES, problem)
    rate, scale, stop, iterations = _maximize(state, r0)

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
    decisions.insert(
        0,
        f"hetero chose {sum(count.values())} instances "
        f"({', '.join(f'{c} x {k}' for c, k in count.items())}), one worker per machine: "
        f"the highest input rate at which no machine is predicted over 100% CPU is "
        f"{rate:.6g} tuples/s (maximum throughput {throughput:.6g} tuples/s); stopped: {stop}",
    )
    load = state.load(rate)
    return Outcome(
        assignments=tuple(assignments),
        decisions=tuple(decisions),
        parallelism=count,
        details={
            "final_rate": float(rate),
            "max_throughput": throughput,
            "iterations": iterations,
            "scale": scale,
            "stop": stop,
            "machine_cpu_pct": {
                n.id: round(float(v), 6) for n, v in zip(machines, load, strict=True)
            },
        },
    )


SPEC = SchedulerSpec(
    id="hetero",
    name="Heterogeneity-aware (maximum throughput)",
    paper=(
        "H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, A scheduling algorithm to maximize "
        "storm throughput in heterogeneous cluster, Journal of Big Data 10:103, 2023, "
        "doi:10.1186/s40537-023-00771-y"
    ),
    params=(
        Param("r0", DEFAULT_R0, "Initial topology input rate R0, tuples/s.", float, 1e-6, None),
    ),
    run=schedule,
    summary="Picks each component's instance count and machine with a CPU model per machine "
    "type, raising the input rate until the cluster is full; one worker per machine.",
)

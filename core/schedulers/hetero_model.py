"""The CPU model and the mutable placement state behind ``hetero`` (Nasiri et al. 2023).

Per component c (topological order) and machine j a task's CPU use is
``TCU = a[c, j] x IR + met[c, j]`` percent of the machine (the paper's Eq. 5,
``e_ij x IR_i + MET_ij``); every instance of c gets ``IR_c = R x v_c / x_c``
(Eq. 6 with every stream split evenly), v_c the visit ratio.

References
----------
.. [1] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi, "A scheduling algorithm
   to maximize storm throughput in heterogeneous cluster", Journal of Big
   Data 10:103, 2023. https://doi.org/10.1186/s40537-023-00771-y
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.hardware import core_speed, total_cores
from core.model import Node, Scenario
from core.topology import TopologyGraph

CAPACITY_PCT = 100.0  # a machine's CPU, percent
TOLERANCE_PCT = 1e-9  # rounding allowed in every capacity check, percent

Reason = tuple[float, int, float, float, int]  # rate, hot machine (-1: first), its load, TCU, k


@dataclass
class Model:
    """TCU = a[c, j] x IR + met[c, j]; ``cap[j]``: the most one task may use of machine j."""

    components: list[str]
    machines: list[Node]
    a: np.ndarray  # percent of machine j per tuple/s of input to one instance of c
    met: np.ndarray  # fixed percent of machine j per instance of c
    visit: np.ndarray  # total input of component c per tuple/s of topology rate
    cap: np.ndarray  # percent of machine j one task may use (100 / cores, or 100)


def cpu_model(
    scenario: Scenario, graph: TopologyGraph, machines: list[Node], thread_cap: bool
) -> Model:
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
    cap = CAPACITY_PCT / cores if thread_cap else np.full(len(machines), CAPACITY_PCT)
    return Model(comps, machines, a, met, visit, cap)


@dataclass
class Snapshot:
    """A stable state: its instance count, rate, hosts, instance counts and machine loads."""

    n: int
    rate: float
    hosts: np.ndarray
    x: np.ndarray
    load: np.ndarray
    _available: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def available(self, m: Model) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """IR_available per (machine, component), where this state hosts it, where e > 0.

        IR_available is the input per instance at which this state's instances
        of c on machine j would fill j's spare capacity, capped where one
        instance fills its per-task share (``m.cap``). All three are M x C
        (machines first: the order hottest-task ties are broken in), computed
        once per stable state: the MaximizeThroughput loop asks at every step.
        """
        if self._available is None:
            ir = self.rate * m.visit / np.maximum(self.x, 1)
            spare = np.maximum(CAPACITY_PCT - self.load, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                avail = ir[:, None] + spare[None, :] / (np.maximum(self.hosts, 1) * m.a)
                avail = np.minimum(avail, (m.cap[None, :] - m.met) / m.a)
            self._available = (
                np.ascontiguousarray(avail.T),
                np.ascontiguousarray(self.hosts.T > 0),
                np.ascontiguousarray(m.a.T > 0),
            )
        return self._available


class State:
    """Instances (component, machine, reason) and per-machine load terms.

    Load of machine j at rate R: ``R x per_rate[j] + fixed[j]``. A reason is
    kept raw (see ``Reason``) and worded only for the instances of the final
    state.
    """

    def __init__(self, model: Model):
        self.m = model
        self.instances: list[tuple[int, int, Reason]] = []
        self.truncate(0)

    def truncate(self, n: int) -> None:
        """Back to the first n instances (the last stable state), rebuilt in one go."""
        del self.instances[n:]
        a, met, visit = self.m.a, self.m.met, self.m.visit
        n_c, n_m = a.shape
        flat = np.fromiter((c * n_m + j for c, j, _ in self.instances), int, len(self.instances))
        self.hosts = np.bincount(flat, minlength=n_c * n_m).reshape(n_c, n_m)
        self.x = self.hosts.sum(axis=1)
        share = np.divide(visit, self.x, out=np.zeros_like(visit), where=self.x > 0)
        self.per_rate = (self.hosts * a * share[:, None]).sum(axis=0)
        self.fixed = (self.hosts * met).sum(axis=0)

    def save(self, c: int) -> tuple:
        """What adding instances of component c changes (its row of ``hosts``, not all C x M
        of them: a copy per step of 500 components on 5,000 machines would be 20 MB)."""
        return (len(self.instances), c, self.hosts[c].copy(), int(self.x[c]),
                self.per_rate.copy(), self.fixed.copy())  # fmt: skip

    def restore(self, saved: tuple) -> None:
        n, c, row, x_c, per_rate, fixed = saved
        del self.instances[n:]
        self.hosts[c], self.x[c], self.per_rate, self.fixed = row, x_c, per_rate, fixed

    def snapshot(self, rate: float) -> Snapshot:
        return Snapshot(
            len(self.instances), rate, self.hosts.copy(), self.x.copy(), self.load(rate)
        )

    def load(self, rate: float) -> np.ndarray:
        return rate * self.per_rate + self.fixed

    def task_tcu(self, rate: float) -> np.ndarray:
        """TCU of one instance of every component on every machine (C x M) at the current x."""
        share = np.divide(self.m.visit, self.x, out=np.zeros(len(self.x)), where=self.x > 0)
        return self.m.a * (rate * share)[:, None] + self.m.met

    def over(self, rate: float) -> np.ndarray:
        """Machines over 100%, or hosting a task over its one-core cap."""
        limit = TOLERANCE_PCT + self.m.cap
        hottest = np.where(self.hosts > 0, self.task_tcu(rate), -np.inf).max(axis=0)
        return (self.load(rate) > CAPACITY_PCT + TOLERANCE_PCT) | (hottest > limit)

    def split(self, c: int, new_x: int) -> None:
        """Re-split component c's input over ``new_x`` instances."""
        old = self.x[c]
        if old:
            self.per_rate += self.hosts[c] * self.m.a[c] * (self.m.visit[c] * (1 / new_x - 1 / old))
        self.x[c] = new_x

    def place(self, c: int, j: int, reason: Reason) -> None:
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
        room = np.minimum(CAPACITY_PCT - self.load(rate), self.m.cap)
        fits = need <= room + TOLERANCE_PCT
        if not fits.any():
            return None
        j = int(np.argmin(np.where(fits, need, np.inf)))
        return j, float(need[j])

    def room(self, rate: float) -> float:
        """The most CPU one new task could use anywhere, percent."""
        return float(np.minimum(CAPACITY_PCT - self.load(rate), self.m.cap).max())

    def tcu_on(self, comps: np.ndarray, j: int, rate: float) -> np.ndarray:
        """TCU of one instance of each of ``comps`` on machine j at the current x."""
        m = self.m
        return m.a[comps, j] * (rate * m.visit[comps] / self.x[comps]) + m.met[comps, j]

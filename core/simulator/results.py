"""What the analytic layer returns: an :class:`Analysis`, a :class:`Score`, the :class:`Loads`.

Plain immutable values, built by :class:`core.simulator.capacity.Evaluator`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from core.simulator.rates import UnitRates

RHO_CAP = 0.99  # utilisation charged to a saturated server in the latency estimate


@dataclass(frozen=True)
class Analysis:
    """The analytic steady state of one placement at one offered rate.

    Rates in tuples/s, bytes in B/s, CPU utilisation 0..1 of the node's
    cores, memory in MB, latency in ms. Everything is at ``effective_rate``.
    """

    rate: float
    effective_rate: float
    max_rate: float
    saturated: bool
    bottleneck: str
    throughput: float
    sink_throughput: float
    latency_estimate_ms: float
    cpu_util: Mapping[str, float]
    memory_mb: Mapping[str, float]
    traffic: Mapping[str, float]
    traffic_bytes: Mapping[str, float]
    nodes_used: int
    slots_used: int
    executor_rate: Mapping[str, float]
    executor_cpu: Mapping[str, float]
    warnings: tuple[str, ...] = ()
    violations: tuple[str, ...] = ()  # why it cannot run (costs.memory_violations); () if it can


class Score(NamedTuple):
    """What a placement search compares (see :meth:`Evaluator.score`)."""

    throughput: float
    max_rate: float
    latency_estimate_ms: float
    nodes_used: int


@dataclass(frozen=True, eq=False)
class Loads:
    """Loads of one placement per unit of offered rate (see :meth:`Evaluator.loads`).

    Multiply by a rate R in tuples/s to get cores, tuples/s or NIC
    utilisation at R; ``max_rate`` and ``bottleneck`` are R* and its name.
    """

    slot_of: np.ndarray
    node_of: np.ndarray
    rates: UnitRates
    service: np.ndarray  # (E,) mean compute time per tuple on its node, s
    serdes: np.ndarray  # (E,) mean (de)serialisation time per tuple processed, s
    cpu: np.ndarray  # (E,) cores per unit R
    node_cpu: np.ndarray  # (N,) cores per unit R
    fixed: np.ndarray  # (N,) cores, rate-independent
    nic: np.ndarray  # (N,) utilisation of the NIC per unit R (max of in and out)
    same_worker: np.ndarray  # (S,) tuples per unit R
    same_node: np.ndarray  # (S,)
    total: np.ndarray  # (S,)
    wire: np.ndarray  # (S,) summed wire seconds x tuples per unit R
    max_rate: float
    bottleneck: str

"""The settings of a simulation, with every limit and message in one place.

A :class:`Settings` value holds what a comparison runs with besides the
scenario and the schedulers: the offered rates, replicas, spout tuples per
replica, the base seed and the Spark master. Building one checks it; a bad
value raises :class:`SettingsError`, whose message names the field in the
words a web user sees next to the input ("offered rate: -5 is not a positive
number of tuples/s"), never a command-line flag. The CLI maps its flags onto
these fields and may put the flag in front of the message in its own line.

This module imports nothing of the project: the simulator, the comparison,
the CLI and the dashboard all take their limits from here.

Limits, and why these numbers
-----------------------------
- ``MAX_RATES`` = 64 offered rates per comparison: a sweep is 5; tasks grow
  as schedulers x rates x replicas, so each factor is capped.
- ``MAX_REPLICAS`` = 32. Two limits disagreed before (32 for a comparison,
  1,000 for ``core.simulator.simulate_replicas``); 32 wins because replicas
  are asked for by web users and multiply a Spark job's tasks: 32 replicas
  already narrow the mean p99 to 1/sqrt(32) ~ 18% of one replica's spread,
  while 1,000 would make one click of nine schedulers on a five-rate sweep
  45,000 tasks of up to 2,000,000 tuples each.
- ``MIN_TUPLES`` = 100 spout tuples per replica: the simulator's floor
  (fewer leave no p99 after its 10% warm-up). A comparison used to refuse
  fewer than 1,000 with no reason given; one floor now serves both.
- ``MAX_TUPLES`` = 2,000,000 spout tuples per replica: ~10^6 already gives
  p99 within a few percent, and the trace's arrays grow with it.
- ``MEMORY_BUDGET_MB`` = 2,048 MB of process memory (peak resident set): every
  scheduler and a simulation stay under it for any scenario within the
  scenario format's limits (``core.model``: 50,000 executors, 5,000 nodes,
  256 slots a node, 1,000,000 keys a fields stream). The searches keep no
  executor x executor or stream x slot arrays above a few MB, CP-SAT models
  above ``core.search.optimal.MAX_CPSAT_VARIABLES`` are not built, and
  ``python -m bench memory`` measures every scheduler at those maxima.
- ``MAX_SCENARIO_BYTES`` = 2,000,000 bytes of JSON a scenario file, upload or
  imported document: files are measured before they are read, responses cut
  off past it (``core.model`` re-exports it; this is its one home).
- ``seed``: an integer >= 0 (numpy's ``SeedSequence`` takes any of them).
- ``master``: None for the default (``SLOTSCOPE_SPARK_MASTER``, else
  ``local[*]``), or a Spark master URL without spaces, at most
  ``MAX_MASTER_CHARS`` characters; Spark itself judges the rest.

Examples
--------
>>> Settings(rates=(500, 1000)).rates
(500.0, 1000.0)
>>> Settings(rates=(-5,))
Traceback (most recent call last):
...
core.settings.SettingsError: offered rate: -5 is not a positive number of tuples/s
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

MAX_RATES = 64  # offered rates per comparison (a sweep is 5)
MAX_REPLICAS = 32  # replicas per (scheduler, rate); see the module docstring for why not 1,000
MIN_TUPLES = 100  # spout tuples per replica: fewer leave no p99 after the 10% warm-up
MAX_TUPLES = 2_000_000  # spout tuples per replica; ~10^6 gives p99 within a few percent
DEFAULT_TUPLES = 100_000  # spout tuples per replica when none are asked for
MAX_MASTER_CHARS = 500  # a Spark master URL, several hosts included
MAX_SCENARIO_BYTES = 2_000_000  # a scenario or imported document, checked before reading
MEMORY_BUDGET_MB = 2_048  # peak resident memory of one command within the scenario limits
# The performance model's version: raise it whenever a change moves any simulated figure, so
# cached results of the old model are not served (the dashboard's result cache keys on it).
MODEL_VERSION = 2  # 2: node speed and hardware threads from the CPU table (core/cpus.py)

RATE = "offered rate"
RATES = "offered rates"
REPLICAS = "replicas"
TUPLES = "spout tuples per replica"
SEED = "seed"
MASTER = "Spark master"
FIELDS = {
    "rates": RATES,
    "replicas": REPLICAS,
    "tuples": TUPLES,
    "seed": SEED,
    "master": MASTER,
}  # Settings field -> the words users read


class SettingsError(ValueError):
    """A bad simulation setting; ``field`` holds the words that name it.

    ``str(error)`` is one line: ``replicas: 0 is not between 1 and 32``.
    """

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _integral(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_rate(rate: Any) -> float:
    """One offered rate, tuples/s per spout component, as a float (> 0, finite)."""
    if rate is None:
        raise SettingsError(RATE, "a number of tuples/s is needed")
    ok = isinstance(rate, numbers.Real) and not isinstance(rate, bool)
    if not ok or not math.isfinite(rate) or rate <= 0:
        shown = f"{rate:g}" if ok else repr(rate)
        raise SettingsError(RATE, f"{shown} is not a positive number of tuples/s")
    return float(rate)


def check_rates(rates: Sequence[Any]) -> tuple[float, ...]:
    """Between 1 and ``MAX_RATES`` offered rates, each > 0."""
    if isinstance(rates, str | bytes) or not isinstance(rates, Sequence) or not rates:
        raise SettingsError(RATES, "give at least one offered rate")
    if len(rates) > MAX_RATES:
        raise SettingsError(RATES, f"{len(rates)} rates, at most {MAX_RATES}")
    return tuple(check_rate(r) for r in rates)


def check_count(field: str, value: Any, low: int, high: int) -> int:
    """An integer in [low, high]."""
    if value is None:
        raise SettingsError(field, f"a whole number between {low:,} and {high:,} is needed")
    if not _integral(value):
        raise SettingsError(field, f"{value!r} is not a whole number")
    if not low <= value <= high:
        raise SettingsError(field, f"{value:,} is not between {low:,} and {high:,}")
    return int(value)


def check_seed(seed: Any) -> int:
    """A seed: an integer >= 0."""
    if not _integral(seed) or seed < 0:
        raise SettingsError(SEED, f"{seed!r} is not a whole number >= 0")
    return int(seed)


def check_master(master: Any) -> str | None:
    """None (the default master) or a Spark master URL with no spaces."""
    if master is None:
        return None
    if not isinstance(master, str) or not master.strip():
        raise SettingsError(MASTER, f"{master!r} is not a Spark master URL (e.g. local[*])")
    if len(master) > MAX_MASTER_CHARS or any(c.isspace() for c in master):
        raise SettingsError(
            MASTER,
            f"{master[:40]!r} is not a Spark master URL (no spaces, at most "
            f"{MAX_MASTER_CHARS} characters)",
        )
    return master


@dataclass(frozen=True)
class Settings:
    """What a comparison runs with besides the scenario and the schedulers; checked when built.

    Parameters
    ----------
    rates : sequence of float
        Offered rates, tuples/s per spout component: 1 to ``MAX_RATES`` of them, each > 0.
    replicas : int
        Replicas per (scheduler, rate), 1 to ``MAX_REPLICAS``.
    tuples : int
        Spout tuples per replica, ``MIN_TUPLES`` to ``MAX_TUPLES``.
    seed : int
        Base seed (>= 0).
    master : str, optional
        Spark master URL; None for the default.

    Raises
    ------
    SettingsError
        The first bad field, named in words.
    """

    rates: tuple[float, ...]
    replicas: int = 1
    tuples: int = DEFAULT_TUPLES
    seed: int = 0
    master: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rates", check_rates(self.rates))
        object.__setattr__(self, "replicas", check_count(REPLICAS, self.replicas, 1, MAX_REPLICAS))
        object.__setattr__(self, "tuples", check_count(TUPLES, self.tuples, MIN_TUPLES, MAX_TUPLES))
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "master", check_master(self.master))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields (a cache key's part)."""
        return {
            "rates": list(self.rates),
            "replicas": self.replicas,
            "tuples": self.tuples,
            "seed": self.seed,
            "master": self.master,
        }

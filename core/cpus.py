"""The CPU table: the processors the papers name, in the terms their vendors give.

A node may name one of these entries (``Node.cpu_model``); its cores, hardware
threads and base clock then default to the entry's (what a user types on the
node overrides them), and the performance model takes the node's single-thread
speed from the entry's all-core clock and its microarchitecture's work per
clock (:func:`core.hardware.core_speed`).

Work per clock is stated relative to :data:`REFERENCE_MICROARCHITECTURE`
(Skylake = 1.0): the reference core on which every ``cpu_us`` is measured is a
Skylake core at ``Profiling.reference_ghz``. Each factor is the middle of the
range its public per-clock integer benchmarks span, and the range is kept
with it: ``slotscope reproduce`` re-runs the claims whose presets name a CPU
at both ends of its range and calls a claim whose verdict moves "sensitive"
(docs/model.md, Hardware). No factor is fitted to a paper's claim.

This module imports nothing of the project (:mod:`core.model` reads it).

References
----------
.. [ark] Intel ARK product specification pages (ark.intel.com) of the Core
   i7-6700, Core i5-4460, Core i5-460M and Xeon E5-2620 v3: cores, threads,
   base and maximum turbo frequency.
.. [nbc] Notebookcheck, "Intel Core i7-6700 Desktop-Prozessor"
   (notebookcheck.com): turbo by active cores, 4.0 GHz with one,
   3.9 with two, 3.7 GHz with all four cores busy; Skylake's work per MHz
   5-10% above Haswell's.
.. [pcper] PC Perspective, "The Intel Core i7-6700K Review: Skylake First for
   Enthusiasts", p. 5 "Clock for Clock" (2015): Skylake, Broadwell, Haswell,
   Ivy Bridge and Sandy Bridge all fixed at 3.5 GHz; Skylake 10% (single
   thread) and 11% (multi-thread) faster than Haswell, 21% and 25% faster than
   Sandy Bridge.
.. [snb] redbcm.com, "What is the Difference Between Sandy Bridge and Nehalem
   Architecture?": Sandy Bridge does about 17% more work per clock than
   Nehalem (a secondary summary; no primary measurement was at hand).
   Westmere is Nehalem's core on 32 nm.
.. [dojo] Hardware Dojo CPU benchmark (bm.hardlimit.com), "Performance/GHz"
   of the non-optimised integer test: Core i5-6500 (Skylake) 960 points/GHz,
   Core i7-720QM (Nehalem core) 533 points/GHz, a ratio of 0.555.
"""

from __future__ import annotations

from dataclasses import dataclass

REFERENCE_MICROARCHITECTURE = "Skylake"  # work per clock 1.0: the core cpu_us is measured on


@dataclass(frozen=True)
class PerClock:
    """Work per clock of one microarchitecture relative to Skylake, with its sources.

    ``factor`` is the middle of ``low``..``high``, the range the sources span.
    """

    factor: float
    low: float
    high: float
    source: str

    @property
    def has_range(self) -> bool:
        return self.high > self.low


@dataclass(frozen=True)
class Cpu:
    """One processor model as its vendor specifies it.

    Attributes
    ----------
    model : str
        The vendor's name, e.g. ``"Core i7-6700"``.
    microarchitecture : str
        A key of :data:`PER_CLOCK`.
    cores, threads : int
        Physical cores and hardware threads per socket.
    base_ghz : float
        Base (nominal) clock, GHz: the "@ 3.40GHz" of the name.
    all_core_ghz : float or None
        Clock with every core busy (turbo), GHz; None when no source gives it
        (the base clock is used then).
    source : str
        Where cores, threads and clocks come from.
    """

    model: str
    microarchitecture: str
    cores: int
    threads: int
    base_ghz: float
    all_core_ghz: float | None
    source: str

    @property
    def per_clock(self) -> PerClock:
        return PER_CLOCK[self.microarchitecture]

    @property
    def clock_ghz(self) -> float:
        """The clock under all-core load: all-core turbo when known, else the base clock."""
        return self.base_ghz if self.all_core_ghz is None else self.all_core_ghz


PER_CLOCK: dict[str, PerClock] = {
    "Skylake": PerClock(1.0, 1.0, 1.0, "the reference (1.0 by definition)"),
    # [pcper] 1/1.10 = 0.909 and 1/1.11 = 0.901; [nbc] 1/1.10..1/1.05 = 0.909..0.952.
    "Haswell": PerClock(
        0.925,
        0.90,
        0.95,
        "PC Perspective, Skylake i7-6700K review, clock for clock at 3.5 GHz (Skylake +10% "
        "single-thread, +11% multi-thread over Haswell: 0.90-0.91); Notebookcheck, Core "
        "i7-6700 (Skylake +5-10% per MHz over Haswell: 0.91-0.95)",
    ),
    # high end: [pcper] Sandy Bridge at 1/1.21 of Skylake, [snb] Nehalem at 1/1.17 of
    # Sandy Bridge: 0.826 / 1.17 = 0.71; low end: [dojo] integer per GHz 533 / 960 = 0.555.
    "Westmere": PerClock(
        0.63,
        0.55,
        0.71,
        "Hardware Dojo, integer points per GHz, Core i7-720QM (Nehalem core) over Core "
        "i5-6500 (Skylake): 533/960 = 0.555; PC Perspective, Skylake over Sandy Bridge at "
        "3.5 GHz (+21% single-thread) with Sandy Bridge ~17% per clock over Nehalem: 0.71",
    ),
}

_ARK = "Intel ARK product specifications"

CPUS: dict[str, Cpu] = {
    "i7-6700": Cpu(
        "Core i7-6700",
        "Skylake",
        4,
        8,
        3.40,
        3.7,
        f"{_ARK}, Core i7-6700 (4 cores, 8 threads, 3.40 GHz base, 4.00 GHz max turbo); "
        "Notebookcheck, Core i7-6700: 3.7 GHz with all four cores busy",
    ),
    "i5-4460": Cpu(
        "Core i5-4460",
        "Haswell",
        4,
        4,
        3.20,
        None,
        f"{_ARK}, Core i5-4460 (4 cores, 4 threads, 3.20 GHz base, 3.40 GHz max turbo; "
        "no all-core turbo given)",
    ),
    "i5-M460": Cpu(
        "Core i5 M 460",
        "Westmere",
        2,
        4,
        2.53,
        None,
        f"{_ARK}, Core i5-460M (Arrandale, 2 cores, 4 threads, 2.53 GHz base, 2.80 GHz "
        "max turbo; no all-core turbo given)",
    ),
    "E5-2620v3": Cpu(
        "Xeon E5-2620 v3",
        "Haswell",
        6,
        12,
        2.40,
        None,
        f"{_ARK}, Xeon E5-2620 v3 (6 cores, 12 threads, 2.40 GHz base, 3.20 GHz max turbo; "
        "no all-core turbo given)",
    ),
}


def _key(name: str) -> str:
    """A model name without case, spaces, hyphens or the vendor's brand words.

    >>> _key("Intel Core i5 CPU M 460"), _key("i5-M460"), _key("Xeon E5-2620 v3")
    ('i5m460', 'i5m460', 'e52620v3')
    """
    words = name.lower().replace("-", " ").replace("(r)", " ").replace("(tm)", " ").split()
    return "".join(w for w in words if w not in {"intel", "core", "xeon", "cpu"})


_BY_KEY = {_key(name): cpu for name, cpu in CPUS.items()}


def lookup(name: str) -> Cpu:
    """The table's entry for a model name, however it is spelt (``i5 M 460``, ``i5-M460``).

    Raises
    ------
    ValueError
        An unknown model, with the names the table knows.

    >>> lookup("Intel Core i7-6700").threads
    8
    """
    cpu = _BY_KEY.get(_key(name))
    if cpu is None:
        raise ValueError(f"unknown CPU model {name!r}; the table has {', '.join(CPUS)}")
    return cpu


def known(name: str) -> bool:
    return _key(name) in _BY_KEY

"""Nasiri et al.'s benchmarks on heterogeneous clusters (J Big Data 10:103, 2023).

Two sources. (1) The paper: Storm Micro-Benchmark topologies (Linear,
Diamond, Star of lowCompute / midCompute / highCompute bolts, Fig. 9, from
R-Storm [6]) on "a cluster of four heterogeneous machines", one Core i3 being
the master, so three workers: Core i5, Core i3 and Pentium (Sec. "Experimental
setup"; Sec. "Throughput comparison" names the i5 and the Pentium); one
worker process per machine (Sec. "Problem statement"), on Apache Storm
0.9.5 (Sec. "Experimental setup"), so hops do not wait for a transfer
thread (``STORM_0_X``; the same for the simulator's presets). Its Table 2
(machines) and Table 3 (profiling e_ij) are missing from our copy and from
the authors' repositories, so the machines' clocks and the bolts' costs of
those presets are ours (said per number). (2) The authors' public simulator
(github.com/h-nasiri/Scheduling-Simulator, ``Scheduler_Simulator.py``,
commit 5374606, the paper's ref. [32]): profiling rows of Storm-Benchmark's
RollingCount and UniqueVisitor on three machine types, which we name A, B, C
(their file names only C, "AMD"), and machine mixes. Those rows are taken
exactly.

A row ``[task, machine, IR0, alpha, Y, U0]`` says: at IR0 tuples/s one
instance uses U0 percent of the machine, and every Y more tuples/s add one
percent (their ``UtilizationNew = (IR - IR0) / Y + U0``). In Eq. 5's terms,
TCU = e x IR + MET with e = 1/Y percent per tuple/s and MET = U0 - IR0 / Y;
IR0 is kept as the profile's ``ir`` (their FirstAssign starts there).
Our ``e_ms`` is the time of one tuple on one core, so e_ms = 10 x cores / Y.
Cores per type are given nowhere (the simulator works in percent of the
machine); a task is one executor thread, and type C's rows show one task at
40% of its machine, so C has at most 2 cores. We take 2 cores for all three
types (the Core i3 and Pentium of the paper's cluster are dual-core parts).

References
----------
.. [1] H. Nasiri, S. Nasehi, A. Divband, M. Goudarzi. A scheduling algorithm to
   maximize storm throughput in heterogeneous cluster. J Big Data 10:103, 2023.
   doi:10.1186/s40537-023-00771-y
"""

from __future__ import annotations

from typing import Any

from core.presets.common import STORM_0_X, comp, node, scenario, stream

STORM_VERSION = "0.9.5"  # Sec. "Experimental setup": Apache Storm 0.9.5 (uniform shuffle)

TYPE_CORES = 2  # see the module docstring: not given; C's rows bound it to <= 2
# Clock and RAM of types A/B/C are not given anywhere; ours, equal for all three
# (service times come from the profiling rows, not from these).
TYPE_HARDWARE = {"cores": TYPE_CORES, "ghz": 3.0, "ram_gb": 4}

# Scheduler_Simulator.py rows per component and type: (IR0 tuples/s, alpha, Y, U0 %).
SIMULATOR_ROWS = {
    "rollingcount": {  # "senario 2 Rc", "senario 3", "Senario 5 FOR RC", "all Machine AMD"
        "split": {"A": (295, 10, 160, 10), "B": (244, 10, 72, 10), "C": (277, 10, 60, 40)},
        "rolling_count": {
            "A": (2872, 1, 1586, 10),
            "B": (2300, 1, 697, 10),
            "C": (1853, 1, 299, 30),
        },
    },
    "uniquevisitor": {  # "Senario 5 FOR UV", "all Machine AMD in UniqueVisitor"
        "view": {"A": (2866, 1, 927, 10), "B": (2806, 1, 680, 10), "C": (300, 1, 239, 30)},
        "uniquer": {"A": (3013, 0.5, 790, 10), "B": (2909, 0.5, 774, 10), "C": (381, 0.5, 91, 40)},
    },
}
# Machine types of their "Senario 5" blocks (machines 0..8), the mix both
# RollingCount and UniqueVisitor were written for.
SCENARIO_5_MIX = "CBACBACAC"


def profile(row: tuple[float, float, float, float]) -> dict[str, float]:
    """TypeProfile of one simulator row: e_ms = 10 x cores / Y, met_pct = U0 - IR0 / Y,
    ir = IR0 (the profiled rate, where their simulator starts)."""
    ir0, _, y, u0 = row
    return {
        "e_ms": round(10.0 * TYPE_CORES / y, 12),
        "met_pct": round(u0 - ir0 / y, 12),
        "ir": float(ir0),
    }


def mix_nodes(mix: str) -> list[dict[str, Any]]:
    """One node per letter of ``mix``, one worker slot each; ids a1, b1, c1, c2, ..."""
    seen: dict[str, int] = {}
    nodes = []
    for t in mix:
        seen[t] = seen.get(t, 0) + 1
        nodes.append(node(f"{t.lower()}{seen[t]}", {**TYPE_HARDWARE, "type": t}, 1))
    return nodes


def _benchmark(name: str, components: list, streams: list, rate: float) -> dict[str, Any]:
    rows = SIMULATOR_ROWS[name]
    per_type = {c: {t: profile(r) for t, r in by_type.items()} for c, by_type in rows.items()}
    # The authors' model has no spout cost (their topologies start at the first
    # bolt, whose input rate is the topology's): the spout is profiled at zero.
    per_type["spout"] = {t: {"e_ms": 0.0, "met_pct": 0.0} for t in "ABC"}
    nodes = mix_nodes(SCENARIO_5_MIX)
    topology = {"workers": len(nodes), "components": components, "streams": streams}
    profiling = {"per_type": per_type}
    return scenario(
        name,
        topology,
        nodes,
        rate,
        profiling=profiling,
        network=STORM_0_X,
        storm_version=STORM_VERSION,
    )


def rollingcount() -> dict[str, Any]:
    # [bench] RollingCount: FileReadSpout -> SplitSentence -> RollingCountBolt,
    # parallelism as in the benchmark's defaults (spout 4, split 8, counter 8).
    # Selectivity: the simulator's alpha (split 10, rolling_count 1). Sizes,
    # ours: ~45 B per line, ~6 B per word, (word, count) ~14 B. Words follow
    # Zipf's law (s ~ 1) over ~20k tokens of "A Tale of Two Cities" (ours).
    components = [
        comp("spout", 4, 0.0, 1.0, 45),
        comp("split", 8, 15.0, 10.0, 6),
        comp("rolling_count", 8, 3.0, 1.0, 14),
    ]
    streams = [
        stream("spout", "split", "local-or-shuffle"),
        stream("split", "rolling_count", "fields", keys=20_000, key_skew=1.0),
    ]
    # Rate, ours: even's busiest executor at about half a core.
    return _benchmark("rollingcount", components, streams, 1_000)


def uniquevisitor() -> dict[str, Any]:
    # [bench] UniqueVisitor: spout -> PageViewBolt -> UniqueVisitorBolt (4 each),
    # fields grouping on the URL: 3 keys at 0.7 / 0.2 / 0.1, i.e. Zipf 1.8 (see
    # pageview). Selectivity: the simulator's alpha (view 1, uniquer 0.5).
    components = [
        comp("spout", 4, 0.0, 1.0, 30),
        comp("view", 4, 4.0, 1.0, 24),
        comp("uniquer", 4, 2.5, 0.5, 24),
    ]
    streams = [
        stream("spout", "view", "local-or-shuffle"),
        stream("view", "uniquer", "fields", keys=3, key_skew=1.8),
    ]
    return _benchmark("uniquevisitor", components, streams, 1_000)


# The paper's three workers. Clocks, cores and speeds are not given (Table 2
# is missing): ours, typical of the named families. speed = single-thread
# speed relative to the 3 GHz reference core.
PAPER_MACHINES = {
    "core-i5": {"cores": 4, "ghz": 3.2, "flops_per_cycle": 16, "ram_gb": 8, "speed": 1.0},
    "core-i3": {"cores": 2, "ghz": 3.4, "flops_per_cycle": 16, "ram_gb": 4, "speed": 0.95},
    "pentium": {"cores": 2, "ghz": 2.8, "flops_per_cycle": 8, "ram_gb": 4, "speed": 0.7},
}
# lowCompute / midCompute / highCompute busy work per tuple on the reference
# core: not given (Table 3 is missing); ours, as in the rstorm presets.
COMPUTE_US = {"low": 10.0, "mid": 100.0, "high": 500.0}
SPOUT_US = 5.0  # ours


def paper_nodes() -> list[dict[str, Any]]:
    return [node(t, {**hw, "type": t}, 1) for t, hw in PAPER_MACHINES.items()]


def _micro(name: str, components: list, streams: list, rate: float) -> dict[str, Any]:
    topology = {"workers": 3, "components": components, "streams": streams}
    return scenario(
        name, topology, paper_nodes(), rate, network=STORM_0_X, storm_version=STORM_VERSION
    )


def _bolt(cid: str, level: str, selectivity: float = 1.0) -> dict[str, Any]:
    # One instance each: the user topology graph; hetero chooses instance counts.
    return comp(cid, 1, COMPUTE_US[level], selectivity, 100)


def nasiri_linear() -> dict[str, Any]:
    # Fig. 9 Linear: one source, a sequence of intermediate components, a sink.
    components = [
        comp("spout", 1, SPOUT_US, 1.0, 100),
        _bolt("low", "low"),
        _bolt("mid", "mid"),
        _bolt("high", "high", 0.0),
    ]
    streams = [stream("spout", "low"), stream("low", "mid"), stream("mid", "high")]
    return _micro("nasiri-linear", components, streams, 800)  # rate: ours


def nasiri_diamond() -> dict[str, Any]:
    # Fig. 9 Diamond: parallel components between the source and the sink.
    components = [
        comp("spout", 1, SPOUT_US, 1.0, 100),
        _bolt("low", "low"),
        _bolt("mid", "mid"),
        _bolt("high", "high", 0.0),
    ]
    streams = [
        stream("spout", "low"),
        stream("spout", "mid"),
        stream("low", "high"),
        stream("mid", "high"),
    ]
    return _micro("nasiri-diamond", components, streams, 400)  # rate: ours


def nasiri_star() -> dict[str, Any]:
    # Fig. 9 Star: several sources into one component, the parent of several sinks.
    components = [
        comp("spout1", 1, SPOUT_US, 1.0, 100),
        comp("spout2", 1, SPOUT_US, 1.0, 100),
        _bolt("low", "low"),
        _bolt("mid", "mid", 0.0),
        _bolt("high", "high", 0.0),
    ]
    streams = [
        stream("spout1", "low"),
        stream("spout2", "low"),
        stream("low", "mid"),
        stream("low", "high"),
    ]
    return _micro("nasiri-star", components, streams, 400)  # rate per spout: ours


def nasiri_example() -> dict[str, Any]:
    # The shape of the paper's exhaustive-search example (Sec. "Motivation"):
    # four bolts on three machines with k_j = 10 tasks each, C(30, 4) = 27,405
    # instance vectors (optimal's search_parallelism, max_tasks_per_node 10).
    # Costs are not given: ours, on the paper's three workers.
    components = [
        comp("spout", 1, 8.0, 1.0, 30),
        comp("parse", 1, 20.0, 1.0, 24),
        comp("enrich", 1, 60.0, 1.0, 40),
        comp("store", 1, 10.0, 0.0, 24),
    ]
    streams = [
        stream("spout", "parse"),
        stream("parse", "enrich"),
        stream("enrich", "store", "fields", keys=1_000),
    ]
    return _micro("nasiri-example", components, streams, 5_000)


def presets() -> dict[str, tuple[str, Any]]:
    machines = "Nasiri et al.'s three workers (Core i5, Core i3, Pentium), one worker each"
    return {
        "rollingcount": (
            "Storm-Benchmark RollingCount (spout -> split -> rolling_count) with Nasiri et "
            "al.'s published profiling rows on their simulator's 9-machine mix of types A/B/C.",
            rollingcount,
        ),
        "uniquevisitor": (
            "Storm-Benchmark UniqueVisitor (spout -> view -> uniquer, 3 skewed URL keys) with "
            "Nasiri et al.'s published profiling rows on their 9-machine mix of types A/B/C.",
            uniquevisitor,
        ),
        "nasiri-linear": (
            f"Micro-benchmark Linear (spout -> low -> mid -> high compute) on {machines}.",
            nasiri_linear,
        ),
        "nasiri-diamond": (
            f"Micro-benchmark Diamond (spout -> low, mid -> high compute) on {machines}.",
            nasiri_diamond,
        ),
        "nasiri-star": (
            f"Micro-benchmark Star (2 spouts -> low -> mid, high compute) on {machines}.",
            nasiri_star,
        ),
        "nasiri-example": (
            "Nasiri et al.'s exhaustive-search example shape: 4 components on 3 machines, "
            "one worker each; optimal's instance-count search covers C(30, 4) = 27,405 vectors.",
            nasiri_example,
        ),
    }

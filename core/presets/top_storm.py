"""TOP-Storm's cluster and topologies (Muhammad, Aleem, Islam, Cluster Computing 2020).

storm-starter's WordCount and Exclamation on the five supervisors of the
paper's Table 4, in the six slot configurations of its Table 5.

References
----------
.. [1] A. Muhammad, M. Aleem, M. A. Islam. TOP-Storm: a topology-based
   resource-aware scheduler for stream processing engine. Cluster Computing,
   2020. doi:10.1007/s10586-020-03117-y
"""

from __future__ import annotations

from typing import Any, NamedTuple

from core import cpus
from core.presets.common import comp, node, scenario, stream


class Host(NamedTuple):
    """One row of TOP-Storm's Table 4, as printed."""

    hostname: str
    processor: str  # its key in the CPU table (core/cpus.py)
    cores: int  # the "x N" after the processor: logical CPUs as Ubuntu lists them
    ghz: float
    no_of_flop: int  # the "FLOPs/cycle" column, Alg. 3's noOfFlop (see below)
    gflops: int  # "GFLOPs (Eq. 1)" as printed (= cores x GHz x noOfFlop)
    ram_gb: float
    power: int  # "Computation power (Eq. 2)" as printed, alpha = 0.8
    index: int  # "Index": the rank, equal powers share one
    supervisor: bool  # Sec. 5.1: a nimbus node, a ZooKeeper node and 5 supervisors


# Table 4, row by row (Sec. 5.1 names Nimbus and ZooKeeper apart from the five
# supervisor nodes, so those two hosts run no worker slots). The "FLOPs/cycle"
# figures are Linux's BogoMIPS, 2 x the clock in MHz (6816 = 2 x 3408,
# 6385 ~ 2 x 3192, 5054 ~ 2 x 2527): Eq. 1 ranks by logical CPUs x GHz x clock
# and carries no per-clock speed. Each node's speed comes from its processor's
# entry in the CPU table instead (cores, threads, all-core turbo, work per clock).
TABLE_4 = (
    Host("Nimbus-Server", "i7-6700", 8, 3.40, 6816, 185_395, 3.7, 148_317, 1, False),
    Host("Zookeeper-Server", "i7-6700", 8, 3.40, 6816, 185_395, 3.7, 148_317, 1, False),
    Host("Node-C", "i7-6700", 8, 3.40, 6816, 185_395, 3.7, 148_317, 1, True),
    Host("Node-A", "i7-6700", 4, 3.40, 6816, 92_698, 3.7, 74_159, 2, True),  # 4 cores disabled
    Host("Node-B", "i5-4460", 4, 3.20, 6385, 81_728, 7.7, 65_384, 3, True),
    Host("Node-D", "i5-M460", 4, 2.53, 5054, 51_147, 3.7, 40_918, 4, True),
    Host("Node-E", "i7-6700", 2, 3.40, 6816, 46_349, 3.7, 37_080, 5, True),  # 6 disabled
)

# Our node ids (kept from earlier versions: the dashboard and its tests use
# them) -> Table 4 hostname, in the order the preset lists the supervisors.
NODE_IDS = {
    "i7-8c": "Node-C",
    "i7-4c": "Node-A",
    "i7-2c": "Node-E",
    "i5-4460": "Node-B",
    "i5-m460": "Node-D",
}

# Table 5: configuration -> (slots per supervisor node, slots the topology requires W).
TABLE_5 = {1: (5, 5), 2: (4, 5), 3: (3, 5), 4: (4, 4), 5: (3, 4), 6: (3, 3)}


def preset_name(topology: str, config: int) -> str:
    """The preset of a Table 5 configuration, e.g. ``top-storm-wordcount-s3-w5`` for 3.

    >>> preset_name("wordcount", 3)
    'top-storm-wordcount-s3-w5'
    """
    slots, workers = TABLE_5[config]
    return f"top-storm-{topology}-s{slots}-w{workers}"


# Notebookcheck, Core i7-6700: 3.9 GHz turbo with two cores busy (3.7 with four).
I7_6700_TWO_CORE_GHZ = 3.9


def host_hardware(host: Host) -> dict[str, Any]:
    """Node fields of a Table 4 host: its processor, GHz, noOfFlop and RAM exactly.

    The processor names its CPU table entry (``cpu_model``), which gives the
    physical cores, hardware threads, all-core turbo and work per clock. Table
    4's "x N" counts logical CPUs: the i5 M 460's 4 are 2 cores x 2 threads.
    Where it lists fewer than the chip has ("4 CPU Cores disabled"), the
    logical CPUs taken offline are the highest-numbered, which Linux gives to
    the second thread of each core on these chips (cpu0-3 are the four cores
    of an i7-6700, cpu4-7 their siblings): Node-A keeps 4 cores x 1 thread,
    Node-E 2 cores x 1 thread, at two-core turbo. ``flops_per_cycle`` carries
    the table's noOfFlop, so that Eq. 1-2 over logical CPUs give the table's
    GFLOPs and powers.
    """
    cpu = cpus.lookup(host.processor)
    hardware: dict[str, Any] = {
        "cpu_model": host.processor,
        "cores": min(host.cores, cpu.cores),
        "threads": host.cores,
        "ghz": host.ghz,
        "flops_per_cycle": host.no_of_flop,
        "ram_gb": host.ram_gb,
        "type": host.processor,
    }
    if host.processor == "i7-6700" and host.cores == 2:
        hardware["all_core_ghz"] = I7_6700_TWO_CORE_GHZ
    return hardware


def top_storm_nodes(slots: int) -> list[dict[str, Any]]:
    """The five supervisors of Table 4, ``slots`` worker slots each (Table 5)."""
    hosts = {h.hostname: h for h in TABLE_4}
    return [node(nid, host_hardware(hosts[name]), slots) for nid, name in NODE_IDS.items()]


def wordcount_topology(workers: int) -> dict[str, Any]:
    # [starter] WordCountTopology: spout 5, split 8, count 12 executors, and
    # Sec. 6.2 of the paper: "we have 28 executors for wordcount topology",
    # i.e. 25 + 3 ackers (storm-starter sets 3 workers; Storm's acker count
    # defaults to the number of workers). RandomSentenceSpout emits without a
    # message id (Storm 2.0.0 storm-starter, RandomSentenceSpout.nextTuple), so
    # Storm tracks no tuple trees: the ackers run but receive nothing
    # (reliable_spouts false).
    # Costs, ours [costs]: five sentences, 6.4 words each on average (32 words,
    # 148 characters): sentence ~30 B, word ~4 B, (word, count) ~8 B of values.
    # 27 distinct words; "the" is 4 of the 32 (12.5%): Zipf s = 0.5 over 27
    # keys gives the top key 11%. The spout really sleeps 100 ms per
    # nextTuple (10 tuples/s per executor); the offered rate replaces that.
    # split is Python over Storm's multilang protocol: one JSON message to the
    # subprocess, one back per word and a sync, each encoded on one side and
    # parsed on the other (~7 us per message in CPython/Jackson): ~60 us per
    # sentence. count: a HashMap<String,Integer> update + emit (~3 us).
    return {
        "name": "wordcount",
        "workers": workers,
        "ackers": 3,
        "reliable_spouts": False,
        "components": [
            comp("spout", 5, 5.0, 1.0, 30),
            comp("split", 8, 60.0, 6.4, 4),
            comp("count", 12, 3.0, 1.0, 8),  # emits (word, count); nothing subscribes
        ],
        "streams": [
            stream("spout", "split"),
            stream("split", "count", "fields", keys=27, key_skew=0.5),
        ],
    }


def exclamation_topology(workers: int) -> dict[str, Any]:
    # [starter] ExclamationTopology: word 10, exclaim1 3, exclaim2 2; Sec. 6.1:
    # "a total of 18 executors for exclamation topology" = 15 + 3 ackers.
    # TestWordSpout emits without a message id: as for WordCount, no acks flow.
    # Costs, ours [costs]: TestWordSpout emits one of five names (~6 B; it
    # sleeps 100 ms per call, replaced by the offered rate); each
    # ExclamationBolt appends "!!!" and emits anchored (~3 us).
    return {
        "name": "exclamation",
        "workers": workers,
        "ackers": 3,
        "reliable_spouts": False,
        "components": [
            comp("word", 10, 4.0, 1.0, 6),
            comp("exclaim1", 3, 3.0, 1.0, 9),
            comp("exclaim2", 2, 3.0, 1.0, 12),  # emits; nothing subscribes
        ],
        "streams": [stream("word", "exclaim1"), stream("exclaim1", "exclaim2")],
    }


# Offered sentences (words) per second. The paper gives no input rate (its
# spouts emit as fast as storm-starter's sleeps allow and it reports only
# relative throughput), so these are ours: under even, in every configuration,
# the busiest executor and the busiest node (the i5 M 460: 2 Westmere cores at 0.53 of
# the reference core's speed) stay below 0.8 of a core and of its physical cores
# (WordCount C6 at 20,000/s: 0.71; 50,000/s, chosen before the CPU table, now
# overloads it). The throughput claims are at R*, whatever this rate.
TOP_STORM_TOPOLOGIES = {
    "wordcount": (wordcount_topology, 20_000),
    "exclamation": (exclamation_topology, 125_000),
}


def top_storm(topology: str, slots: int, workers: int, name: str = "") -> dict[str, Any]:
    build, rate = TOP_STORM_TOPOLOGIES[topology]
    name = name or preset_name(topology, _config_number(slots, workers))
    # Sec. 5.1: "uses Apache Storm 2.0.0 as a base system" (its locality-first shuffle)
    return scenario(name, build(workers), top_storm_nodes(slots), rate, storm_version="2.0.0")


def _config_number(slots: int, workers: int) -> int:
    return next(c for c, sw in TABLE_5.items() if sw == (slots, workers))


def presets() -> dict[str, tuple[str, Any]]:
    """Registry entries: the two headline demos and the 12 paper configurations."""
    entries = {
        "wordcount": (
            "storm-starter WordCount (28 executors with 3 ackers) on TOP-Storm's five "
            "supervisors of Table 4, 4 slots each, W = 5 (configuration 2): the headline demo.",
            lambda: top_storm("wordcount", 4, 5, name="wordcount"),
        ),
        "exclamation": (
            "storm-starter Exclamation (18 executors with 3 ackers) on TOP-Storm's five "
            "supervisors of Table 4, 4 slots each, W = 5 (configuration 2).",
            lambda: top_storm("exclamation", 4, 5, name="exclamation"),
        ),
    }
    for topo in TOP_STORM_TOPOLOGIES:
        for config, (s, w) in sorted(TABLE_5.items(), key=lambda item: item[1]):
            entries[preset_name(topo, config)] = (
                f"TOP-Storm paper, configuration {config} (Table 5): {topo} on "
                f"the five supervisors of Table 4, {s} slots each and W = {w}; TOP-Storm "
                "packs executors onto the most powerful nodes.",
                lambda t=topo, s=s, w=w: top_storm(t, s, w),
            )
    return entries

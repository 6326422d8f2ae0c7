"""Built-in scenarios from the papers (``slotscope presets``).

Each preset is a function returning scenario JSON (a dict), registered in the
literal ``PRESETS`` dict with a one-line description: the paper and what the
scenario demonstrates. Costs (cpu_us, selectivity, tuple_bytes) cite their
sources in comments; where a figure is an estimate, the comment says how it
was made. Each offered rate loads the busiest executor of Storm's default
placement (``even``) to about half a core (less on the L/F workloads, where
a node would saturate first) and no node beyond ~70% of its cores: loaded
enough for placements to differ, far from saturation.

Sources
-------
[starter] apache/storm ``examples/storm-starter``: WordCountTopology (its
    split is a multilang ShellBolt running ``splitsentence.py``),
    RandomSentenceSpout, ExclamationTopology, TestWordSpout.
[bench] intel-hadoop/storm-benchmark (read in its fork manuzhang/storm-benchmark):
    RollingCount, UniqueVisitor, PageViewCount, their bolts and
    PageViewGenerator. RollingCountBolt and UniqueVisitorBolt emit only on
    tick tuples (once a window), so per input tuple they emit ~nothing.
[flops] Double-precision FLOPs per cycle per core (the StackOverflow answer
    "FLOPS per cycle for Sandy Bridge and Haswell", question 15655835, from
    Intel's and Agner Fog's instruction tables): Core 2 / Nehalem 4 (2-wide
    SSE2 add + 2-wide mul; Westmere, incl. Arrandale's i5 M460, is Nehalem's
    shrink with the same FP units), Sandy/Ivy Bridge 8 (AVX), Haswell and
    Skylake 16 (two 4-wide FMAs).
[costs] Per-tuple CPU on the reference core (3.0 GHz, 16 FLOPs/cycle) is an
    estimate: Storm's executor path (queue hand-off, execute(), anchored emit,
    ack) costs a few microseconds per tuple on a current core, plus the
    bolt's own work, sized by what the code does (noted per component).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from core.model import Scenario, ScenarioError, validate_scenario

FRAMING_BYTES = 30  # Storm's task message header + Kryo tuple header (ids, anchors); estimate


def _comp(cid: str, parallelism: int, cpu_us: float, selectivity: float, payload: int, **kw):
    """A component; ``payload`` is the emitted values' size, framing is added."""
    costs = {"cpu_us": cpu_us, "selectivity": selectivity, "tuple_bytes": payload + FRAMING_BYTES}
    return {"id": cid, "parallelism": parallelism, **costs, **kw}


def _stream(source: str, target: str, grouping: str = "shuffle", **kw) -> dict[str, Any]:
    return {"from": source, "to": target, "grouping": grouping, **kw}


def _node(nid: str, hw: dict[str, Any], slots: int, **kw) -> dict[str, Any]:
    return {"id": nid, **hw, "slots": slots, **kw}


def _scenario(name: str, topology: dict, nodes: list, rate: float, **extra) -> dict[str, Any]:
    """Scenario JSON; its description is the one registered in ``PRESETS``."""
    topology = {"name": name, **topology}
    return {
        "name": name,
        "description": PRESETS[name][0],
        "topology": topology,
        "cluster": {"nodes": nodes},
        "workload": {"rate": rate},
        **extra,
    }


# --------------------------------------------------------------------------
# L/F synthetic workloads (Son & Moon, Electronics 2020, Sec. 5): eight
# components in a line; 8 nodes x 1 slot and W = 8 ("low parallelism"), or
# everything x10: 10 slots per node and W = 80 ("high parallelism").

LF_SHAPES = {
    "linear": (1, 1, 1, 1, 1, 1, 1, 1),
    "ascent": (1, 2, 3, 4, 5, 6, 7, 8),
    "descent": (8, 7, 6, 5, 4, 3, 2, 1),
    "diamond": (2, 4, 6, 8, 8, 6, 4, 2),
    "star": (8, 6, 4, 2, 2, 4, 6, 8),
}


def lf_synthetic(shape: str, scale: int = 1) -> dict[str, Any]:
    parallelism = [p * scale for p in LF_SHAPES[shape]]
    ids = [f"c{i + 1}" for i in range(len(parallelism))]
    return {
        "name": f"lf-{shape}" + (f"-x{scale}" if scale > 1 else ""),
        "description": (
            f"L/F paper's synthetic '{shape}' workload, "
            f"{'high' if scale > 1 else 'low'} parallelism: 8 components in a line "
            f"({', '.join(map(str, parallelism))} executors) on 8 nodes x {scale} slot(s)."
        ),
        "topology": {
            "name": shape,
            "workers": 8 * scale,
            "components": [
                # Son & Moon's synthetic bolts do a fixed small amount of work per
                # tuple (20 us, estimated). The rate loads a single-executor
                # component about half a core (low parallelism) and a node about
                # 60% of its cores (x10, where each node runs ten executors).
                {"id": cid, "parallelism": p, "cpu_us": 20.0, "selectivity": 1.0}
                for cid, p in zip(ids, parallelism, strict=True)
            ],
            "streams": [{"from": a, "to": b} for a, b in zip(ids, ids[1:], strict=False)],
        },
        "cluster": {"nodes": lf_nodes(scale)},
        "workload": {"rate": 20_000 if scale == 1 else 100_000},
    }


def lf_nodes(slots: int) -> list[dict[str, Any]]:
    """The L/F evaluation's eight identical nodes (4 cores at 3 GHz, 16 GB)."""
    hw = {"cores": 4, "ghz": 3.0, "ram_gb": 16}
    return [_node(f"n{i + 1}", hw, slots) for i in range(8)]


def pageview() -> dict[str, Any]:
    # L/F's page-view count: Storm-Benchmark's PageViewCount chain plus a sink.
    # [bench] PageViewGenerator builds four java.util.Random objects and a
    # String.format per event (~6 us); PageViewBolt splits on a tab and parses
    # three ints (~4 us); WordCount.Count is a HashMap update + emit (~3 us).
    # A view "http://foo.com/news\t200\t94709\t42" is ~30 B, (url, 1) ~20 B.
    # count is fields-grouped on the URL: 3 keys with shares 0.7 / 0.2 / 0.1,
    # which a Zipf exponent of 1.8 reproduces (0.70 / 0.20 / 0.10). The paper
    # does not say how count feeds the sink: shuffle.
    components = [
        _comp("source", 4, 6.0, 1.0, 30),
        _comp("view", 4, 4.0, 1.0, 20),
        _comp("count", 4, 3.0, 1.0, 24),  # emits (url, running count)
        _comp("sink", 4, 1.0, 0.0, 1),
    ]
    streams = [
        _stream("source", "view", "local-or-shuffle"),
        _stream("view", "count", "fields", keys=3, key_skew=1.8),
        _stream("count", "sink"),
    ]
    topology = {"workers": 8, "components": components, "streams": streams}
    return _scenario("pageview", topology, lf_nodes(1), 180_000)


# --------------------------------------------------------------------------
# TOP-Storm (Muhammad, Aleem, Islam, Cluster Computing 2020): storm-starter's
# WordCount and Exclamation on five heterogeneous supervisors.
#
# The paper lists the processors and cores; counts are logical cores (the
# i7-6700 has 4 cores / 8 threads, the i5 M460 2 / 4). FLOPs per cycle per
# [flops]. It gives RAM only as 3.7-7.7 GB: we assume the four desktops have
# 8 GB (7.7 GB usable) and the laptop-class M460 4 GB (3.7 GB usable).
I7_6700 = {"cores": 8, "ghz": 3.4, "flops_per_cycle": 16, "ram_gb": 7.7, "type": "i7-6700"}
I5_4460 = {"cores": 4, "ghz": 3.2, "flops_per_cycle": 16, "ram_gb": 7.7, "type": "i5-4460"}
I5_M460 = {"cores": 4, "ghz": 2.53, "flops_per_cycle": 4, "ram_gb": 3.7, "type": "i5-M460"}

# (slots per node, W): the paper's six configurations, W >= slots per node.
TOP_STORM_CONFIGS = ((3, 3), (3, 4), (3, 5), (4, 4), (4, 5), (5, 5))


def top_storm_nodes(slots: int) -> list[dict[str, Any]]:
    return [
        _node("i7-8c", I7_6700, slots),
        _node("i7-4c", {**I7_6700, "cores": 4}, slots),
        _node("i7-2c", {**I7_6700, "cores": 2}, slots),
        _node("i5-4460", I5_4460, slots),
        _node("i5-m460", I5_M460, slots),
    ]


def wordcount_topology(workers: int) -> dict[str, Any]:
    # [starter] Five sentences, 6.4 words each on average (32 words, 148
    # characters): sentence ~30 B, word ~4 B, (word, count) ~8 B of values.
    # 27 distinct words; "the" is 4 of the 32 (12.5%): Zipf s = 0.5 over 27
    # keys gives the top key 11%. The spout really sleeps 100 ms per
    # nextTuple (10 tuples/s per executor); the offered rate replaces that.
    # split is Python over Storm's multilang protocol: one JSON message to the
    # subprocess, one back per word and a sync, each encoded on one side and
    # parsed on the other (~7 us per message in CPython/Jackson): ~60 us per
    # sentence, estimated. count: a HashMap<String,Integer> update + emit.
    return {
        "name": "wordcount",
        "workers": workers,
        "ackers": 3,  # TOP-Storm counts 28 executors: 5 + 8 + 12 + 3 ackers
        "components": [
            _comp("spout", 5, 5.0, 1.0, 30),
            _comp("split", 8, 60.0, 6.4, 4),
            _comp("count", 12, 3.0, 1.0, 8),  # emits (word, count); nothing subscribes
        ],
        "streams": [
            _stream("spout", "split"),
            _stream("split", "count", "fields", keys=27, key_skew=0.5),
        ],
    }


def exclamation_topology(workers: int) -> dict[str, Any]:
    # [starter] TestWordSpout emits one of five names (~6 B; it also sleeps
    # 100 ms per call, replaced by the offered rate); each ExclamationBolt
    # appends "!!!" and emits anchored (~3 us: a string concat + emit + ack).
    return {
        "name": "exclamation",
        "workers": workers,
        "ackers": 3,  # TOP-Storm counts 18 executors: 10 + 3 + 2 + 3 ackers
        "components": [
            _comp("word", 10, 4.0, 1.0, 6),
            _comp("exclaim1", 3, 3.0, 1.0, 9),
            _comp("exclaim2", 2, 3.0, 1.0, 12),  # emits; nothing subscribes
        ],
        "streams": [_stream("word", "exclaim1"), _stream("exclaim1", "exclaim2")],
    }


# Offered sentences (words) per second. Under even, the busiest executor
# (split or exclaim2 on the i5 M460, 0.21x the reference core by the FLOPs
# model) runs at just over half a core, that node at 30-65% of its cores.
TOP_STORM_TOPOLOGIES = {
    "wordcount": (wordcount_topology, 15_000),
    "exclamation": (exclamation_topology, 75_000),
}


def top_storm(topology: str, slots: int, workers: int, name: str = "") -> dict[str, Any]:
    build, rate = TOP_STORM_TOPOLOGIES[topology]
    name = name or f"top-storm-{topology}-s{slots}-w{workers}"
    return _scenario(name, build(workers), top_storm_nodes(slots), rate)


# --------------------------------------------------------------------------
# R-Storm (Peng et al., Middleware 2015) micro-benchmarks: Linear, Diamond and
# Star with low / mid / high compute bolts, on identical machines in two
# racks as in its evaluation. Machine model, sizes and costs here are ours:
# 4 cores at 3 GHz, 8 GB, 4 slots; bolts do synthetic busy work per tuple,
# low 10 us, mid 100 us, high 500 us; tuples carry ~500 B (estimate).
# Declared cpu_pct = the expected per-executor load at the preset's rate with
# 25% headroom, rounded up to 5 (what a user would set after profiling);
# memory_mb grows with the work (state, buffers): 128 / 256 / 512.
RSTORM_HW = {"cores": 4, "ghz": 3.0, "flops_per_cycle": 16, "ram_gb": 8}
RSTORM_COST_US = {"spout": 5.0, "low": 10.0, "mid": 100.0, "high": 500.0}
RSTORM_MEMORY_MB = {"spout": 128.0, "low": 128.0, "mid": 256.0, "high": 512.0}
# Between racks keep inter_node_us (250 us one way: half a datacenter round
# trip); within a rack, one switch hop less (estimate).
RSTORM_NETWORK = {"same_rack_us": 100.0}


def rstorm_nodes() -> list[dict[str, Any]]:
    return [_node(f"{r}{i}", RSTORM_HW, 4, rack=f"rack-{r}") for r in "ab" for i in range(1, 7)]


def _rstorm_comp(cid: str, level: str, parallelism: int, rate: float, selectivity=1.0):
    """A micro-benchmark component at ``level``, receiving ``rate`` tuples/s in all."""
    cpu_us = RSTORM_COST_US[level]
    load_pct = 100.0 * rate / parallelism * cpu_us * 1e-6 * 1.25
    declared = {"cpu_pct": max(5.0, 5.0 * -(-load_pct // 5.0))}
    declared["memory_mb"] = RSTORM_MEMORY_MB[level]
    return _comp(cid, parallelism, cpu_us, selectivity, 500, **declared)


def _rstorm(name: str, components: list, streams: list, rate: float) -> dict[str, Any]:
    topology = {"components": components, "streams": streams}
    return _scenario(name, topology, rstorm_nodes(), rate, network=RSTORM_NETWORK)


def rstorm_linear(rate: float = 9000) -> dict[str, Any]:
    components = [
        _rstorm_comp("spout", "spout", 4, rate),
        _rstorm_comp("b1", "low", 4, rate),
        _rstorm_comp("b2", "mid", 4, rate),
        _rstorm_comp("b3", "high", 8, rate, selectivity=0.0),
    ]
    streams = [_stream("spout", "b1"), _stream("b1", "b2"), _stream("b2", "b3")]
    return _rstorm("rstorm-linear", components, streams, rate)


def rstorm_diamond(rate: float = 9000) -> dict[str, Any]:
    # Every branch subscribes to the spout, so each gets all of its tuples and
    # the sink three times the spout's rate.
    branches = (("b1", "low", 2), ("b2", "mid", 4), ("b3", "high", 8))
    components = [_rstorm_comp("spout", "spout", 4, rate)]
    components += [_rstorm_comp(b, level, p, rate) for b, level, p in branches]
    components.append(_rstorm_comp("sink", "low", 4, 3 * rate, selectivity=0.0))
    streams = [_stream("spout", b) for b, _, _ in branches]
    streams += [_stream(b, "sink") for b, _, _ in branches]
    return _rstorm("rstorm-diamond", components, streams, rate)


def rstorm_star(rate: float = 4000) -> dict[str, Any]:
    # Three spouts (the rate is per spout) feed one hub, which every sink reads.
    spouts, hub_rate = ("s1", "s2", "s3"), 3 * rate
    sinks = (("k1", "low", 2), ("k2", "mid", 4), ("k3", "high", 12))
    components = [_rstorm_comp(s, "spout", 2, rate) for s in spouts]
    components.append(_rstorm_comp("hub", "mid", 6, hub_rate))
    components += [_rstorm_comp(k, level, p, hub_rate, selectivity=0.0) for k, level, p in sinks]
    streams = [_stream(s, "hub") for s in spouts] + [_stream("hub", k) for k, _, _ in sinks]
    return _rstorm("rstorm-star", components, streams, rate)


# --------------------------------------------------------------------------
# Storm-Benchmark RollingCount and UniqueVisitor with per-node-type profiling,
# as Nasiri et al. (J Big Data 2023) schedule them: a cluster of three machine
# types, one worker per machine. Their exact machines and measured e_ij are
# not reproduced here: the three types below are ours, two machines of each.
#
# e_ms per type (time of one tuple on one core of that type) = reference
# cpu_us / the type's single-thread speed relative to the reference core,
# estimated as turbo clock / 3 GHz x IPC of its generation relative to
# Skylake (Haswell 0.95, Ivy Bridge 0.85, Penryn 0.6): string and hash-map
# work does not scale with FLOPs, which is why profiling beats the FLOPs
# model here. met_pct: Storm's fixed per-task overhead (timers, metrics,
# heartbeats), estimated at 2-6% of one core, i.e. 0.5-1.5% of the machine.
HETERO_TYPES = {
    # type: (hardware, relative single-thread speed, met_pct)
    "i7-4790": ({"cores": 4, "ghz": 3.6, "flops_per_cycle": 16, "ram_gb": 16}, 1.27, 0.5),
    "i5-3470": ({"cores": 4, "ghz": 3.2, "flops_per_cycle": 8, "ram_gb": 8}, 1.02, 0.75),
    "core2-q9400": ({"cores": 4, "ghz": 2.66, "flops_per_cycle": 4, "ram_gb": 4}, 0.53, 1.5),
}


def hetero_nodes() -> list[dict[str, Any]]:
    return [
        _node(f"{t.split('-')[0]}-{i}", {**hw, "type": t}, 1)
        for t, (hw, _, _) in HETERO_TYPES.items()
        for i in (1, 2)
    ]


def type_profiles(components: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """profiling.per_type for every component and node type (see above)."""
    return {
        c["id"]: {
            t: {"e_ms": round(c["cpu_us"] / speed / 1000.0, 5), "met_pct": met}
            for t, (_, speed, met) in HETERO_TYPES.items()
        }
        for c in components
    }


def _benchmark(name: str, components: list, streams: list, rate: float) -> dict[str, Any]:
    topology = {"workers": 6, "components": components, "streams": streams}
    profiling = {"per_type": type_profiles(components)}
    return _scenario(name, topology, hetero_nodes(), rate, profiling=profiling)


def rollingcount() -> dict[str, Any]:
    # [bench] FileReadSpout cycles through the lines of "A Tale of Two Cities"
    # (~135k words on ~16k lines: ~8 words and ~45 B per line, estimated;
    # blank lines still yield one empty token). SplitSentence is Java:
    # String.split("\\s+") (a regex) + one emit per word (~15 us per line).
    # RollingCountBolt adds 1 to the word's slot of a SlidingWindow (~3 us).
    # Words: Zipf's law (s ~ 1) over ~20k whitespace-separated tokens.
    components = [
        _comp("spout", 4, 4.0, 1.0, 45),
        _comp("split", 8, 15.0, 8.0, 6),
        _comp("rolling_count", 8, 3.0, 0.0, 14),  # emits (word, count) once a window
    ]
    streams = [
        _stream("spout", "split", "local-or-shuffle"),
        _stream("split", "rolling_count", "fields", keys=20_000, key_skew=1.0),
    ]
    return _benchmark("rollingcount", components, streams, 50_000)


def uniquevisitor() -> dict[str, Any]:
    # [bench] spout: a KafkaSpout of PageViewGenerator events (~8 us to fetch
    # and decode one); PageViewBolt parses the view and emits (url, user id)
    # (~4 us); UniqueVisitorBolt adds the user to a HashSet per URL (~2.5 us)
    # and emits (url, count) once a window. Fields grouping on the URL: 3
    # keys, 0.7 / 0.2 / 0.1, i.e. Zipf s = 1.8 (see pageview).
    components = [
        _comp("spout", 4, 8.0, 1.0, 30),
        _comp("view", 4, 4.0, 1.0, 24),
        _comp("uniquer", 4, 2.5, 0.0, 24),
    ]
    streams = [
        _stream("spout", "view", "local-or-shuffle"),
        _stream("view", "uniquer", "fields", keys=3, key_skew=1.8),
    ]
    return _benchmark("uniquevisitor", components, streams, 120_000)


def nasiri_example() -> dict[str, Any]:
    # The shape of Nasiri et al.'s exhaustive-search example: 4 components on
    # 3 machines (one of each type above, one worker each); their exhaustive
    # scheduler searched C(30, 4) = 27,405 instance vectors with a capacity of
    # 10 tasks per machine (optimal's search_parallelism, max_tasks_per_node
    # 10). The paper's own costs are not reproduced: the components reuse the
    # UniqueVisitor-like costs above, with a CPU-heavy enrichment step.
    components = [
        _comp("spout", 1, 8.0, 1.0, 30),
        _comp("parse", 1, 20.0, 1.0, 24),
        _comp("enrich", 1, 60.0, 1.0, 40),
        _comp("store", 1, 10.0, 0.0, 24),
    ]
    streams = [
        _stream("spout", "parse"),
        _stream("parse", "enrich"),
        _stream("enrich", "store", "fields", keys=1_000),
    ]
    nodes = [n for n in hetero_nodes() if n["id"].endswith("-1")]
    topology = {"workers": 3, "components": components, "streams": streams}
    profiling = {"per_type": type_profiles(components)}
    return _scenario("nasiri-example", topology, nodes, 5_000, profiling=profiling)


# --------------------------------------------------------------------------
# The registry: name -> (description, scenario function)

_TOP_STORM_DESCRIPTION = (
    "TOP-Storm paper: {topo} on its five heterogeneous supervisors, {s} slots each "
    "and W = {w}; TOP-Storm packs executors onto the most powerful nodes."
)
_RSTORM_DESCRIPTION = (
    "R-Storm micro-benchmark {} with declared CPU and memory, on 12 identical "
    "machines in two racks."
)

PRESETS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "wordcount": (
        "storm-starter WordCount (28 executors with 3 ackers) on TOP-Storm's five "
        "heterogeneous supervisors, 4 slots each, W = 5: the headline demo.",
        lambda: top_storm("wordcount", 4, 5, name="wordcount"),
    ),
    "exclamation": (
        "storm-starter Exclamation (18 executors with 3 ackers) on TOP-Storm's five "
        "heterogeneous supervisors, 4 slots each, W = 5.",
        lambda: top_storm("exclamation", 4, 5, name="exclamation"),
    ),
    **{
        f"lf-{shape}": (lf_synthetic(shape)["description"], lambda s=shape: lf_synthetic(s))
        for shape in LF_SHAPES
    },
    **{
        f"lf-{shape}-x10": (
            lf_synthetic(shape, 10)["description"],
            lambda s=shape: lf_synthetic(s, 10),
        )
        for shape in LF_SHAPES
    },
    "pageview": (
        "L/F paper's page-view count (source -> view -> count -> sink, 4 executors each; "
        "fields grouping on 3 skewed URLs) on its 8 identical nodes.",
        pageview,
    ),
    **{
        f"top-storm-{topo}-s{s}-w{w}": (
            _TOP_STORM_DESCRIPTION.format(topo=topo, s=s, w=w),
            lambda t=topo, s=s, w=w: top_storm(t, s, w),
        )
        for topo in TOP_STORM_TOPOLOGIES
        for s, w in TOP_STORM_CONFIGS
    },
    "rstorm-linear": (
        _RSTORM_DESCRIPTION.format("Linear (spout -> low -> mid -> high compute bolts)"),
        rstorm_linear,
    ),
    "rstorm-diamond": (
        _RSTORM_DESCRIPTION.format("Diamond (spout -> low/mid/high bolts -> sink)"),
        rstorm_diamond,
    ),
    "rstorm-star": (
        _RSTORM_DESCRIPTION.format("Star (3 spouts -> hub -> low/mid/high sinks)"),
        rstorm_star,
    ),
    "rollingcount": (
        "Storm-Benchmark RollingCount (spout -> split -> rolling_count) with per-type "
        "profiling on three machine types, one worker each, as Nasiri et al. run it.",
        rollingcount,
    ),
    "uniquevisitor": (
        "Storm-Benchmark UniqueVisitor (spout -> view -> uniquer, 3 skewed URL keys) "
        "with per-type profiling on three machine types, one worker each (Nasiri et al.).",
        uniquevisitor,
    ),
    "nasiri-example": (
        "Nasiri et al.'s exhaustive-search example shape: 4 components on 3 machine types, "
        "one worker each; optimal's instance-count search covers C(30, 4) = 27,405 vectors.",
        nasiri_example,
    ),
}


@cache
def preset(name: str) -> Scenario:
    """A built-in scenario by name; an unknown name lists the valid ones."""
    if name not in PRESETS:
        raise ScenarioError("preset", f"unknown preset '{name}' (valid: {', '.join(PRESETS)})")
    return validate_scenario(PRESETS[name][1]())


def preset_json(name: str) -> dict[str, Any]:
    """The preset's scenario as JSON-ready data (what ``slotscope preset NAME`` prints)."""
    return preset(name).to_json_dict()

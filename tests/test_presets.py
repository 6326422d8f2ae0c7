"""Built-in scenarios: valid, described, round-tripping, schedulable, as the papers say."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from core.hardware import (
    computation_power,
    core_speed,
    power_ranks,
    processing_speed,
    total_cores,
)
from core.model import ACKER_ID, Node, ScenarioError, validate_scenario
from core.presets import PRESETS, TABLE_4, TABLE_5, preset, preset_json
from core.presets.lf import LF_SHAPES
from core.presets.nasiri import SIMULATOR_ROWS
from core.presets.top_storm import host_hardware, preset_name
from core.registry import SCHEDULERS, SchedulerError, Status, run_scheduler
from core.topology import build_graph

NAMES = list(PRESETS)
TOP_STORM = [
    (preset_name(topo, config), topo, s, w)
    for topo in ("wordcount", "exclamation")
    for config, (s, w) in TABLE_5.items()
]


@pytest.mark.parametrize("name", NAMES)
def test_preset_validates_and_carries_its_description(name):
    description, build = PRESETS[name]
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name)
    assert len(description) > 20
    sc = validate_scenario(build())
    assert sc.name == name
    assert sc.description == description


@pytest.mark.parametrize("name", NAMES)
def test_preset_round_trips_through_json(name):
    text = json.dumps(preset_json(name))
    assert validate_scenario(json.loads(text)) == preset(name)


def test_unknown_preset_lists_the_valid_ones():
    with pytest.raises(ScenarioError, match="unknown preset 'nope'.*wordcount"):
        preset("nope")


# CP-SAT starts from a greedy hint, so a short limit still yields a full placement.
PARAMS = {"optimal": {"time_limit": 1.0}}


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_scheduler_places_every_executor(name):
    # The registry is read at test time: schedulers are added concurrently.
    sc = preset(name)
    for scheduler_id in SCHEDULERS:
        try:
            result = run_scheduler(sc, scheduler_id, PARAMS.get(scheduler_id))
        except SchedulerError as err:
            # Only the exhaustive search may refuse a space above its limit.
            assert scheduler_id == "optimal" and str(err), (scheduler_id, err)
            continue
        assert result.status in (Status.OK, Status.NOT_ENOUGH_RESOURCES), scheduler_id
        if result.status is Status.NOT_ENOUGH_RESOURCES:
            assert result.message.strip(), scheduler_id
            continue
        graph = build_graph(sc, result.parallelism)
        expected = {e for c in graph.order for e in graph.executors(c)}
        placed = [a.executor for a in result.assignments]
        assert sorted(placed) == sorted(expected), scheduler_id
        slots = {n.id: n.slots for n in sc.cluster.nodes}
        assert all(0 <= a.slot < slots[a.node] for a in result.assignments), scheduler_id


@pytest.mark.parametrize("name", ["wordcount"] + [t[0] for t in TOP_STORM if t[1] == "wordcount"])
def test_wordcount_has_the_28_executors_top_storm_counts(name):
    graph = build_graph(preset(name))
    assert dict(graph.parallelism) == {"spout": 5, "split": 8, "count": 12, ACKER_ID: 3}
    assert graph.executor_count == 28
    assert graph.stream("split", "count").grouping == "fields"
    assert graph.stream("spout", "split").grouping == "shuffle"


@pytest.mark.parametrize(
    "name", ["exclamation"] + [t[0] for t in TOP_STORM if t[1] == "exclamation"]
)
def test_exclamation_has_the_18_executors_top_storm_counts(name):
    graph = build_graph(preset(name))
    assert dict(graph.parallelism) == {"word": 10, "exclaim1": 3, "exclaim2": 2, ACKER_ID: 3}
    assert graph.executor_count == 18


@pytest.mark.parametrize(("name", "topology", "slots", "workers"), TOP_STORM)
def test_top_storm_configuration_has_the_slots_and_workers_it_claims(
    name, topology, slots, workers
):
    sc = preset(name)
    assert sc.topology.name == topology
    assert len(sc.cluster.nodes) == 5
    assert {n.slots for n in sc.cluster.nodes} == {slots}
    assert sc.workers == workers >= slots


def test_top_storm_presets_are_the_papers_six_configurations_per_topology():
    configs = {n for n in NAMES if n.startswith("top-storm-")}
    assert configs == {t[0] for t in TOP_STORM}
    assert len(configs) == 12


def test_top_storm_supervisors_are_table_4_rows_exactly():
    # Table 4: logical CPUs (the "x N") as threads over the processor's physical cores,
    # GHz, FLOPs/cycle (noOfFlop), RAM as printed.
    nodes = {n.id: n for n in preset("wordcount").cluster.nodes}
    hw = {
        nid: (n.cpu_model, n.cores, n.threads, n.ghz, n.flops_per_cycle, n.ram_gb)
        for nid, n in nodes.items()
    }
    assert hw == {
        "i7-8c": ("i7-6700", 4, 8, 3.40, 6816, 3.7),  # Node-C
        "i7-4c": ("i7-6700", 4, 4, 3.40, 6816, 3.7),  # Node-A
        "i5-4460": ("i5-4460", 4, 4, 3.20, 6385, 7.7),  # Node-B
        "i5-m460": ("i5-M460", 2, 4, 2.53, 5054, 3.7),  # Node-D
        "i7-2c": ("i7-6700", 2, 2, 3.40, 6816, 3.7),  # Node-E
    }
    assert {n.sockets for n in nodes.values()} == {1}


def test_top_storm_speeds_and_powers_are_table_4_figures():
    # Eq. 1 and Eq. 2 (alpha 0.8) on the preset's hardware give the printed
    # columns, which Table 4 prints as integers (within 1: it prints 4 x 2.53 x
    # 5054 = 51,146.48 as 51,147).
    nodes = {n.id: n for n in preset("wordcount").cluster.nodes}
    printed = {
        "i7-8c": (185_395, 148_317),
        "i7-4c": (92_698, 74_159),
        "i5-4460": (81_728, 65_384),
        "i5-m460": (51_147, 40_918),
        "i7-2c": (46_349, 37_080),
    }
    for nid, (gflops, power) in printed.items():
        assert processing_speed(nodes[nid]) == pytest.approx(gflops, abs=1.0), nid
        assert computation_power(nodes[nid]) == pytest.approx(power, abs=1.0), nid


def test_top_storm_ranks_are_table_4_index_column_dense():
    # The five supervisors alone: Table 4's Index for Node-C, A, B, D, E.
    ranks = power_ranks(preset("wordcount").cluster.nodes)
    assert ranks == {"i7-8c": 1, "i7-4c": 2, "i5-4460": 3, "i5-m460": 4, "i7-2c": 5}
    # All seven hosts of the table, Nimbus and ZooKeeper included: 1,1,1,2,3,4,5.
    hosts = [
        Node(id=h.hostname, slots=0, **{k: v for k, v in host_hardware(h).items() if k != "type"})
        for h in TABLE_4
    ]
    all_ranks = power_ranks(hosts)
    assert [all_ranks[h.hostname] for h in TABLE_4] == [1, 1, 1, 2, 3, 4, 5]
    assert [h.index for h in TABLE_4] == [1, 1, 1, 2, 3, 4, 5]
    assert sum(h.supervisor for h in TABLE_4) == 5


@pytest.mark.parametrize(
    ("config", "slots", "workers"),
    [(1, 5, 5), (2, 4, 5), (3, 3, 5), (4, 4, 4), (5, 3, 4), (6, 3, 3)],
)
def test_top_storm_configurations_are_table_5(config, slots, workers):
    assert TABLE_5[config] == (slots, workers)
    for topology in ("wordcount", "exclamation"):
        sc = preset(preset_name(topology, config))
        assert sc.name == f"top-storm-{topology}-s{slots}-w{workers}"
        assert f"configuration {config} " in sc.description


@pytest.mark.parametrize("name", ["rollingcount", "uniquevisitor"])
def test_benchmark_presets_run_on_the_authors_scenario_5_mix(name):
    sc = preset(name)
    # Scheduler_Simulator.py "Senario 5": machines 0..8 of types C B A C B A C A C.
    assert [n.type for n in sc.cluster.nodes] == list("CBACBACAC")
    assert {n.slots for n in sc.cluster.nodes} == {1}  # one worker per machine
    assert {n.cores for n in sc.cluster.nodes} == {2}
    assert sc.workers == 9
    per_type = sc.profiling.per_type
    assert set(per_type) == {c.id for c in sc.topology.components}
    assert all(set(p) == {"A", "B", "C"} for p in per_type.values())


def test_rollingcount_profiles_are_the_authors_rows():
    # Row [IR0, alpha, Y, U0]: U = (IR - IR0) / Y + U0 percent of a 2-core
    # machine, so e_ms = 10 x 2 / Y and met_pct = U0 - IR0 / Y.
    p = preset("rollingcount").profiling.per_type
    assert p["split"]["A"].e_ms == pytest.approx(20 / 160)  # [295, 10, 160, 10]
    assert p["split"]["A"].met_pct == pytest.approx(10 - 295 / 160)
    assert p["split"]["C"].e_ms == pytest.approx(20 / 60)  # [277, 10, 60, 40]
    assert p["split"]["C"].met_pct == pytest.approx(40 - 277 / 60)
    assert p["rolling_count"]["B"].e_ms == pytest.approx(20 / 697)  # [2300, 1, 697, 10]
    # The model's TCU at the profiled rate reproduces the row's U0 on every type.
    for comp_id, by_type in SIMULATOR_ROWS["rollingcount"].items():
        for t, (ir0, _, _, u0) in by_type.items():
            prof = p[comp_id][t]
            tcu = prof.e_ms / 1000 * ir0 * 100 / 2 + prof.met_pct
            assert tcu == pytest.approx(u0, abs=1e-3), (comp_id, t)
    assert p["spout"]["A"].e_ms == 0.0  # the authors' model has no spout cost


def test_storm_benchmark_topologies_carry_the_authors_alphas():
    rc = build_graph(preset("rollingcount"))
    assert dict(rc.parallelism) == {"spout": 4, "split": 8, "rolling_count": 8}
    assert rc.components["split"].selectivity == 10.0  # alpha 10
    assert rc.stream("spout", "split").grouping == "local-or-shuffle"
    assert rc.stream("split", "rolling_count").grouping == "fields"
    uv = build_graph(preset("uniquevisitor"))
    assert dict(uv.parallelism) == {"spout": 4, "view": 4, "uniquer": 4}
    assert uv.components["uniquer"].selectivity == 0.5  # alpha 0.5
    assert uv.stream("view", "uniquer").keys == 3


@pytest.mark.parametrize("name", ["nasiri-linear", "nasiri-diamond", "nasiri-star"])
def test_nasiri_micro_benchmarks_run_on_the_papers_three_workers(name):
    sc = preset(name)
    assert [n.id for n in sc.cluster.nodes] == ["core-i5", "core-i3", "pentium"]
    assert {n.slots for n in sc.cluster.nodes} == {1} and sc.workers == 3
    costs = sorted(c.cpu_us for c in sc.topology.components if c.kind != "spout")
    assert {10.0, 100.0, 500.0} <= set(costs)  # low, mid, high compute
    assert all(c.parallelism == 1 for c in sc.topology.components)


def test_nasiri_diamond_and_star_have_their_figure_9_shapes():
    d = build_graph(preset("nasiri-diamond"))
    assert {(s.source, s.target) for s in d.streams} == {
        ("spout", "low"),
        ("spout", "mid"),
        ("low", "high"),
        ("mid", "high"),
    }
    s = build_graph(preset("nasiri-star"))
    assert sorted(c for c in s.order if not [x for x in s.streams if x.target == c]) == [
        "spout1",
        "spout2",
    ]
    assert {x.target for x in s.streams if x.source == "low"} == {"mid", "high"}


def test_lf_cluster_is_the_papers_eight_xeon_nodes():
    for name, slots in (("lf-linear", 1), ("lf-linear-x10", 10), ("pageview", 1)):
        nodes = preset(name).cluster.nodes
        assert len(nodes) == 8
        assert {(n.cores, n.ghz, n.ram_gb, n.slots) for n in nodes} == {(6, 2.4, 64, slots)}


@pytest.mark.parametrize("shape", list(LF_SHAPES))
@pytest.mark.parametrize("scale", [1, 10])
def test_lf_synthetic_workloads_are_table_3_with_and_without_lsp(shape, scale):
    table_3 = {
        "linear": [1] * 8,
        "ascent": [1, 2, 3, 4, 5, 6, 7, 8],
        "descent": [8, 7, 6, 5, 4, 3, 2, 1],
        "diamond": [2, 4, 6, 8, 8, 6, 4, 2],
        "star": [8, 6, 4, 2, 2, 4, 6, 8],
    }[shape]
    suffix = "-x10" if scale == 10 else ""
    for lsp, grouping in ((False, "shuffle"), (True, "local-or-shuffle")):
        sc = preset(f"lf-{shape}{suffix}" + ("-lsp" if lsp else ""))
        graph = build_graph(sc)
        order = [c for c in graph.order if c != ACKER_ID]
        assert [graph.parallelism[c] for c in order] == [p * scale for p in table_3]
        assert {s.grouping for s in sc.topology.streams} == {grouping}
        assert sc.workers == 8 * scale
        assert sc.topology.ackers == sc.workers  # Storm 1.2.3's default: one per worker
        assert sc.workload.rate == 1000 * table_3[0] * scale  # 1 msg/ms per PO1 instance
        assert {c.tuple_bytes for c in sc.topology.components} == {1024 + 30}  # 1 KB
        assert {c.selectivity for c in sc.topology.components} == {1.0}


@pytest.mark.parametrize("name", ["pageview", "pageview-unique"])
def test_pageview_is_the_lf_four_stage_chain(name):
    sc = preset(name)
    graph = build_graph(sc)
    assert graph.order == ("source", "view", "count", "sink", ACKER_ID)
    assert {graph.parallelism[c] for c in graph.order[:4]} == {4}
    assert graph.parallelism[ACKER_ID] == sc.workers == 8  # Storm 1.2.3: one per worker
    assert graph.stream("source", "view").grouping == "local-or-shuffle"
    assert graph.stream("view", "count").grouping == "fields"
    assert graph.stream("view", "count").keys == 3
    assert graph.stream("count", "sink").grouping == "local-or-shuffle"  # Sec. 4.5 (4)
    assert sc.workload.rate == 4 * 1000  # four sources, one click per ms each
    zipf = [k**-1.8 for k in (1, 2, 3)]
    assert [round(z / sum(zipf), 2) for z in zipf] == [0.70, 0.20, 0.10]


def test_unique_pageview_count_emits_once_per_3_s_window():
    # 3 pages per count executor per 3 s against 1000 inputs/s per executor.
    count = build_graph(preset("pageview-unique")).components["count"]
    assert count.selectivity == pytest.approx(3 / 3 / 1000)


def test_aniello_preset_is_a_linear_chain_on_identical_nodes():
    sc = preset("aniello")
    graph = build_graph(sc)
    assert graph.order == ("source", "parse", "stage1", "stage2", "sink")
    assert len({(n.cores, n.ghz, n.ram_gb, n.slots) for n in sc.cluster.nodes}) == 1
    assert sc.workers == 8 and len(sc.cluster.nodes) == 8


# Every preset name the dashboard, the claims and older tests use.
EXISTING_NAMES = (
    ["wordcount", "exclamation", "pageview", "rollingcount", "uniquevisitor", "nasiri-example"]
    + ["rstorm-linear", "rstorm-diamond", "rstorm-star"]
    + [f"lf-{s}{x}" for s in LF_SHAPES for x in ("", "-x10")]
    + [t[0] for t in TOP_STORM]
)
NEW_NAMES = [f"lf-{s}{x}-lsp" for s in LF_SHAPES for x in ("", "-x10")] + [
    "pageview-unique",
    "nasiri-linear",
    "nasiri-diamond",
    "nasiri-star",
    "aniello",
]


def test_every_existing_preset_name_still_exists_and_the_new_ones_too():
    assert set(EXISTING_NAMES) <= set(PRESETS)
    assert set(NEW_NAMES) <= set(PRESETS)
    assert len(PRESETS) == len(EXISTING_NAMES) + len(NEW_NAMES)


@pytest.mark.parametrize("name", ["rstorm-linear", "rstorm-diamond", "rstorm-star"])
def test_rstorm_presets_declare_more_cpu_for_heavier_bolts_on_two_racks(name):
    sc = preset(name)
    racks = defaultdict(int)
    for n in sc.cluster.nodes:
        racks[n.rack] += 1
    assert racks == {"rack-a": 6, "rack-b": 6}
    assert len({(n.cores, n.ghz, n.ram_gb) for n in sc.cluster.nodes}) == 1
    by_cost = sorted(sc.topology.components, key=lambda c: c.cpu_us)
    assert {c.cpu_us for c in by_cost} >= {10.0, 100.0, 500.0}  # low, mid, high
    assert [c.memory_mb for c in by_cost] == sorted(c.memory_mb for c in by_cost)
    heaviest = by_cost[-1]
    assert heaviest.cpu_pct > max(c.cpu_pct for c in by_cost if c.cpu_us <= 10.0)


def _speed(node, profiling):
    """Single-thread speed as the model documents ``node.speed``: given, else the all-core
    clock x work per clock (core/cpus.py) over the reference clock."""
    return core_speed(node, profiling)


def _even_loads(name):
    """Busiest executor (cores) and node (share of its cores) under ``even``.

    A first-order CPU estimate, independent of the simulator: shuffle splits
    evenly, a fields stream gives at least its hottest key's Zipf share to one
    executor, every tuple crosses a worker (serialisation per 200 B, absolute),
    and profiled types use e_ms plus met_pct of the machine per executor.
    """
    sc = preset(name)
    graph = build_graph(sc)
    place = run_scheduler(sc, "even").placement()
    nodes = {n.id: n for n in sc.cluster.nodes}
    net, rate = sc.network, {}
    for c in graph.order:  # an acker gets one ack per tuple processed upstream
        ins = [s for s in graph.streams if s.target == c]
        per_tuple = {
            s.source: 1.0 if c == ACKER_ID else graph.components[s.source].selectivity for s in ins
        }
        rate[c] = sum(rate[u] * k for u, k in per_tuple.items()) if ins else sc.workload.rate
    executor, node_cores = {}, defaultdict(float)
    for c in graph.order:
        comp, p = graph.components[c], graph.parallelism[c]
        share = 1.0 / p
        for s in graph.streams:
            if s.target == c != ACKER_ID and s.grouping == "fields":
                zipf = [k**-s.key_skew for k in range(1, s.keys + 1)]
                share = max(share, zipf[0] / sum(zipf))
        wire_us = (
            (net.serialize_us * comp.selectivity + net.deserialize_us) * comp.tuple_bytes / 200
        )
        for e in graph.executors(c):
            node = nodes[place[e][0]]
            profile = sc.profiling.per_type.get(c, {}).get(node.type or "")
            us = profile.e_ms * 1000 if profile else comp.cpu_us / _speed(node, sc.profiling)
            executor[e] = rate[c] * share * (us + wire_us) * 1e-6
            node_cores[node.id] += executor[e]
            node_cores[node.id] += profile.met_pct / 100 * total_cores(node) if profile else 0.0
    node_share = max(load / total_cores(nodes[nid]) for nid, load in node_cores.items())
    return max(executor.values()), node_share


# L/F gives its rates (1 message/ms per source, Sec. 4.1 and 4.5) and says the
# load is "very little" (Sec. 4.3): no lower bound there.
PAPER_RATES = {n for n in NAMES if n.startswith(("lf-", "pageview"))}


@pytest.mark.parametrize("name", NAMES)
def test_preset_rate_loads_even_placement_without_saturating_it(name):
    hottest_executor, busiest_node = _even_loads(name)
    assert hottest_executor < 0.8  # one executor is one thread: at most one core
    assert busiest_node < 0.8
    if name not in PAPER_RATES:  # where the rate is ours: loaded enough to matter
        assert max(hottest_executor, busiest_node) > 0.2


# Apache Storm's production corpus as topology sets (core/presets/storm_large.py)
LARGE = {  # preset: (topologies, spout and bolt executors, acker executors, supervisors)
    "storm-large-cluster-01": (40, 24_403, 3_037, 1_312),
    "storm-large-cluster-02": (45, 36_150, 3_787, 1_922),
    "storm-large-cluster-03": (50, 1_414, 760, 80),
}


@pytest.mark.parametrize("name", list(LARGE))
def test_the_storm_corpus_presets_build_with_their_sizes(name):
    from core.presets import LARGE_PRESETS

    assert name in LARGE_PRESETS and name not in PRESETS  # kept out of the quick list
    sc = preset(name)
    topologies, executors, ackers, nodes = LARGE[name]
    assert sc.is_set and len(sc.topology_set) == topologies
    assert sum(c.parallelism for t in sc.topology_set for c in t.components) == executors
    assert sum(t.ackers for t in sc.topology_set) == ackers
    assert len(sc.cluster.nodes) == nodes
    # stated defaults: the corpus has no rates, per-tuple costs or tuple sizes
    assert "Stated defaults, not in the corpus: offered rate 1000 tuples/s" in sc.description
    assert sc.workload.rate == 1000.0
    assert {c.cpu_us for t in sc.topology_set for c in t.components} == {10.0}
    assert {c.tuple_bytes for t in sc.topology_set for c in t.components} == {200}


def test_a_corpus_preset_says_its_defaults_and_schedules_every_topology(capsys):
    from core.cli import main

    assert main(["schedule", "storm-large-cluster-03", "--scheduler", "ras-default", "--json"]) == 0
    out, err = capsys.readouterr()
    assert "storm-large-cluster-03: stated defaults: offered rate 1000 tuples/s" in err
    doc = json.loads(out)
    # As Storm accounts it (off-heap memory, each conf's acker request, unset hints run
    # once as Nimbus runs them) all but one fit, as on the corpus path
    # (tests/ras/test_ras.py::test_large_cluster_03_as_nimbus_would_run_it)
    assert doc["scheduled"] == 49 and len(doc["topologies"]) == 50
    unfit = [t["topology"] for t in doc["topologies"] if t["placed"] != t["executors"]]
    assert unfit == ["TopologyName00047"]
    assert sum(t["executors"] for t in doc["topologies"]) == 1_414 + 760

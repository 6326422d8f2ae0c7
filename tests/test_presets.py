"""Built-in scenarios: valid, described, round-tripping, schedulable, as the papers say."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from core.hardware import computation_power, core_speed, processing_speed, total_cores
from core.model import ACKER_ID, ScenarioError, validate_scenario
from core.presets import PRESETS, TOP_STORM_CONFIGS, preset, preset_json
from core.schedulers import SCHEDULERS, SchedulerError, Status, run_scheduler
from core.topology import build_graph

NAMES = list(PRESETS)
TOP_STORM = [
    (f"top-storm-{topo}-s{s}-w{w}", topo, s, w)
    for topo in ("wordcount", "exclamation")
    for s, w in TOP_STORM_CONFIGS
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


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_scheduler_places_every_executor(name):
    # The registry is read at test time: schedulers are added concurrently.
    sc = preset(name)
    for scheduler_id in SCHEDULERS:
        try:
            result = run_scheduler(sc, scheduler_id)
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


def test_top_storm_cluster_ranks_by_the_processors_real_flops():
    # i7-6700 (Skylake) and i5-4460 (Haswell): 16 DP FLOPs/cycle; i5 M460
    # (Westmere): 4. Speeds in GFLOP/s, TOP-Storm's Eq. 1.
    nodes = {n.id: n for n in preset("wordcount").cluster.nodes}
    speeds = {nid: processing_speed(n) for nid, n in nodes.items()}
    assert speeds == pytest.approx(
        {"i7-8c": 435.2, "i7-4c": 217.6, "i7-2c": 108.8, "i5-4460": 204.8, "i5-m460": 40.48}
    )
    ranked = sorted(nodes, key=lambda nid: -computation_power(nodes[nid]))
    assert ranked == ["i7-8c", "i7-4c", "i5-4460", "i7-2c", "i5-m460"]
    assert all(3.7 <= n.ram_gb <= 7.7 for n in nodes.values())
    assert {n.type for n in nodes.values()} == {"i7-6700", "i5-4460", "i5-M460"}


@pytest.mark.parametrize("name", ["rollingcount", "uniquevisitor"])
def test_benchmark_presets_profile_every_component_on_every_node_type(name):
    sc = preset(name)
    types = {n.type for n in sc.cluster.nodes}
    assert len(types) == 3 and None not in types
    assert {n.slots for n in sc.cluster.nodes} == {1}  # one worker per machine
    assert sc.workers == len(sc.cluster.nodes)
    per_type = sc.profiling.per_type
    assert set(per_type) == {c.id for c in sc.topology.components}
    for cid, profiles in per_type.items():
        assert set(profiles) == types, cid
        times = sorted(p.e_ms for p in profiles.values())
        assert 0 < times[0] < times[-1], cid  # the machine types really differ


def test_storm_benchmark_topologies_match_the_benchmark_code():
    rc = build_graph(preset("rollingcount"))
    assert dict(rc.parallelism) == {"spout": 4, "split": 8, "rolling_count": 8}
    assert rc.stream("spout", "split").grouping == "local-or-shuffle"
    assert rc.stream("split", "rolling_count").grouping == "fields"
    uv = build_graph(preset("uniquevisitor"))
    assert dict(uv.parallelism) == {"spout": 4, "view": 4, "uniquer": 4}
    assert uv.stream("view", "uniquer").keys == 3


def test_pageview_is_the_lf_four_stage_chain():
    graph = build_graph(preset("pageview"))
    assert graph.order == ("source", "view", "count", "sink")
    assert set(graph.parallelism.values()) == {4}
    assert graph.stream("source", "view").grouping == "local-or-shuffle"
    assert graph.stream("view", "count").grouping == "fields"


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
            us = profile.e_ms * 1000 if profile else comp.cpu_us / core_speed(node, sc.profiling)
            executor[e] = rate[c] * share * (us + wire_us) * 1e-6
            node_cores[node.id] += executor[e]
            node_cores[node.id] += profile.met_pct / 100 * total_cores(node) if profile else 0.0
    node_share = max(load / total_cores(nodes[nid]) for nid, load in node_cores.items())
    return max(executor.values()), node_share


@pytest.mark.parametrize("name", NAMES)
def test_preset_rate_loads_even_placement_without_saturating_it(name):
    hottest_executor, busiest_node = _even_loads(name)
    assert hottest_executor < 0.8  # one executor is one thread: at most one core
    assert busiest_node < 0.8
    assert max(hottest_executor, busiest_node) > 0.2  # loaded enough to matter

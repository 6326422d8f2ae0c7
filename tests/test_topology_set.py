"""Every scheduler on a topology set (core/topology_set.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.model import validate_scenario
from core.presets import preset
from core.registry import SCHEDULERS, get_scheduler
from core.schedulers import feed
from core.schedulers.base import SchedulerError, run_spec
from core.search.enumeration import score_key
from core.simulator.capacity import Evaluator
from core.topology_set import (
    NOT_RUN,
    SET_TREATMENT,
    executor_requests,
    kept_to_the_set,
    schedule_in_turn,
    schedule_set,
    set_ids,
    storm_order,
)

NODES = [{"id": f"n{i}", "cores": 2, "ghz": 2, "slots": 2, "ram_gb": 1} for i in (1, 2, 3)]


def _topology(name: str, priority: int, bolts: int, workers: int) -> dict:
    return {
        "name": name,
        "priority": priority,
        "workers": workers,
        "components": [
            {"id": "s", "parallelism": 1, "memory_mb": 600, "cpu_pct": 50},
            {"id": "b", "parallelism": bolts, "memory_mb": 600, "cpu_pct": 50},
        ],
        "streams": [{"from": "s", "to": "b"}],
    }


@pytest.fixture(scope="module")
def two_topologies():
    # "low" is listed first but has the larger priority number: Storm schedules "high" first
    return validate_scenario(
        {
            "topologies": [_topology("low", 5, 1, 2), _topology("high", 1, 2, 3)],
            "cluster": {"nodes": NODES},
        }
    )


@pytest.mark.parametrize("scheduler", ["even", "rstorm", "ras-default", "lf"])
def test_storm_order_is_by_priority(two_topologies, scheduler):
    assert schedule_set(two_topologies, scheduler).order == ("high", "low")


def test_residual_slots_are_respected(two_topologies):
    result = schedule_set(two_topologies, "even")
    assert result.scheduled == ["high", "low"]
    high = {(a.node, a.slot) for a in result.outcomes["high"].assignments}
    low = {(a.node, a.slot) for a in result.outcomes["low"].assignments}
    assert len(high) == 3 and len(low) == 2  # their workers
    assert not high & low  # no slot shared between topologies
    assert {a.executor for a in result.assignments} == {
        "high/s#0",
        "high/b#0",
        "high/b#1",
        "low/s#0",
        "low/b#0",
    }  # ids qualified by topology: unique across the set


@pytest.mark.parametrize("scheduler", ["rstorm", "ras-default"])
def test_a_topology_that_does_not_fit_is_reported_with_numbers(two_topologies, scheduler):
    # high: 3 executors x 600 MB, one per 1,024 MB node; left: 424 MB, 150 %, 1 slot a node;
    # low needs 2 x 600 MB: no node can take one executor
    result = schedule_set(two_topologies, scheduler)
    assert result.scheduled == ["high"]
    low = result.outcomes["low"]
    assert low.status == "not-enough-resources" and low.assignments == ()
    assert "100 % CPU and 1,200 MB in all" in low.message
    assert "Free at its turn: 450 % CPU, 1,272 MB and 3 slots on 3 nodes" in low.message
    assert "0 nodes could take its largest executor" in low.message
    assert "n1 (default): 150 % CPU, 424 MB, 1 free slots" in low.message


def test_toss_allocates_every_group_of_the_set_from_one_queue(two_topologies):
    result = schedule_set(two_topologies, "toss")
    # Alg. 1 in set order: low's 2 groups, then high's 3; Alg. 2 pops the least loaded
    # node per group: 5 groups on 3 nodes use every node, no slot twice
    slots = [(a.node, a.slot) for o in result.outcomes.values() for a in o.assignments]
    assert result.order == ("low", "high") and result.scheduled == ["low", "high"]
    workers = set(slots)
    assert len(workers) == 5 and {n for n, _ in workers} == {"n1", "n2", "n3"}


def test_the_searches_are_bounded_on_a_large_topology():
    """A search is offered the nodes with most free CPU, bound // executors of them
    (100,000 // 600 = 166 of 400), unless the nodes its workers need are already over
    the bound (2,000 executors whose 400 workers need 100 four-slot nodes: 200,000)."""
    nodes = [{"id": f"n{i}", "cores": 4, "ghz": 2, "slots": 4} for i in range(400)]
    sc = validate_scenario(
        {
            "topologies": [
                {
                    "name": "huge",
                    "workers": 400,
                    "components": [{"id": "s", "parallelism": 2000}],
                },
                {"name": "big", "components": [{"id": "s", "parallelism": 600}]},
                {"name": "small", "components": [{"id": "s", "parallelism": 1}]},
            ],
            "cluster": {"nodes": nodes},
        }
    )
    result = schedule_set(sc, "slotscope", {"time_limit": 2})
    assert result.treatment.startswith(
        "searched topology by topology, not jointly: the set's 2,601 executors on 400 nodes "
        "are 1,040,400 executor-node pairs, over slotscope's bound of 100,000"
    )
    assert result.outcomes["huge"].status == NOT_RUN
    assert "200,000 executor-node pairs" in result.outcomes["huge"].message
    assert result.outcomes["big"].ok
    assert result.outcomes["big"].decisions[0].startswith("searched on the 166 nodes")
    assert len({a.node for a in result.outcomes["big"].assignments}) <= 166
    assert result.outcomes["small"].ok


def test_every_scheduler_says_how_it_treats_a_set():
    assert set(SCHEDULERS) <= set(SET_TREATMENT)


@pytest.mark.parametrize("scheduler", list(SCHEDULERS))
def test_a_set_of_one_equals_the_single_topology_result(scheduler):
    data = preset("lf-linear").to_json_dict()
    data["topology"]["ackers"] = 0  # the searches prove this one optimal within 5 s
    sc = validate_scenario(data)
    data = sc.to_json_dict()
    data["topologies"] = [data.pop("topology")]
    as_set = validate_scenario(data)
    assert not as_set.is_set and as_set.topology == sc.topology
    params = {"time_limit": 5} if scheduler in ("optimal", "slotscope") else {}
    if scheduler == "optimal":
        params["workers"] = 1  # one CP-SAT worker: the same optimum of several, every run
    spec = get_scheduler(scheduler)
    single = run_spec(spec, feed(sc, spec, sc.workload.rate), params)
    outcome = schedule_set(as_set, scheduler, params).outcomes[sc.topology.name]
    assert outcome.status == single.status.value
    assert sorted((a.executor, a.node, a.slot) for a in outcome.assignments) == sorted(
        (a.executor, a.node, a.slot) for a in single.assignments
    )


def test_slotscope_schedule_prints_each_topology_of_a_set(two_topologies, tmp_path, capsys):
    from core.cli import main

    path = tmp_path / "set.json"
    path.write_text(json.dumps(two_topologies.to_json_dict()))
    assert main(["schedule", str(path), "--scheduler", "rstorm"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rstorm on 2 topologies: 1 scheduled")
    rows = [line.split() for line in out.splitlines()[2:4]]
    assert [r[:4] for r in rows] == [
        ["high", "1", "ok", "3"],
        ["low", "5", "not-enough-resources", "2"],
    ]
    assert "low did not fit under rstorm" in out
    assert main(["schedule", str(path), "--scheduler", "even", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [t["topology"] for t in doc["topologies"]] == ["high", "low"]
    assert [t["workers"] for t in doc["topologies"]] == [3, 2]


def test_slotscope_schedulers_says_how_each_treats_a_set(capsys):
    from core.cli import main

    assert main(["schedulers"]) == 0
    out = capsys.readouterr().out
    assert out.count("topology set: ") == len(SCHEDULERS)
    assert "topology set: Alg. 1 partitions every topology" in out


def _one_node_two_topologies(own: str | None) -> object:
    second = _topology("second", 1, 1, 1)
    if own is not None:
        second["scheduler_params"] = {"ras": {"strategy": own}}
    node = {"id": "n1", "cores": 4, "ghz": 2, "slots": 4, "ram_gb": 8}
    return validate_scenario(
        {"topologies": [_topology("first", 0, 1, 1), second], "cluster": {"nodes": [node]}}
    )


def test_a_topologys_own_ras_strategy_wins_unless_forced():
    """Round robin takes only nodes no other topology runs on (getTruncatedNodeList):
    on one node, 'second' fits only under its own ras-default (as Nimbus reads the
    strategy from each topology's conf, and TestLargeCluster runs the corpus)."""
    forced_everywhere = schedule_set(_one_node_two_topologies(None), "ras-round-robin")
    assert forced_everywhere.scheduled == ["first"]
    assert "no other topology runs on" in forced_everywhere.outcomes["second"].message
    own = schedule_set(_one_node_two_topologies("DefaultResourceAwareStrategy"), "ras-round-robin")
    assert own.scheduled == ["first", "second"]
    assert (
        own.outcomes["second"]
        .decisions[0]
        .startswith("ras-default (its own strategy, over ras-round-robin)")
    )
    forced = schedule_set(
        _one_node_two_topologies("ras-default"), "ras-round-robin", {"force": "true"}
    )
    assert forced.scheduled == ["first"]


def test_an_unknown_own_strategy_is_one_line_naming_the_field():
    with pytest.raises(SchedulerError, match=r"topologies\[1\]\.scheduler_params\.ras\.strategy"):
        schedule_set(_one_node_two_topologies("ras-fastest"), "ras-default")


def test_the_large_presets_carry_each_topologys_own_strategy():
    """largeCluster02's confs: 40 DefaultResourceAwareStrategy, 4 Generic, 1 ConstraintSolver."""
    from collections import Counter

    sc = preset("storm-large-cluster-02")
    own = Counter(t.scheduler_params["ras"]["strategy"] for t in sc.topology_set)
    assert own == {"ras-default": 40, "ras-generic": 4, "ras-constraint": 1}


def _full_node_five_topologies() -> object:
    """Five one-executor topologies (100 % CPU, 1,000 MB) for a node that holds four;
    listed (submitted) least important first."""
    topologies = [
        {
            "name": f"t{i}",
            "priority": 29 - i,
            "worker_max_heap_mb": 1024,
            "components": [{"id": "s", "parallelism": 1, "cpu_pct": 100, "memory_mb": 1000}],
        }
        for i in range(5)
    ]
    node = {"id": "n1", "cores": 4, "ghz": 2, "slots": 4, "ram_gb": 4}
    return validate_scenario({"topologies": topologies, "cluster": {"nodes": [node]}})


def test_a_topology_evicted_by_priority_is_reported_in_words():
    """Storm's eviction (ResourceAwareScheduler.scheduleTopology): submitted last, t4
    (priority 25) evicts t0 (29), the last in Storm's order; in one round nothing is
    running yet, so t0 is simply left out."""
    sc = _full_node_five_topologies()
    one = schedule_set(sc, "ras-default")
    assert one.scheduled == ["t4", "t3", "t2", "t1"]
    assert "evicted" not in one.outcomes["t0"].message
    rounds = schedule_set(sc, "ras-default", {"rounds": "submission"})
    assert rounds.scheduled == ["t4", "t3", "t2", "t1"]
    assert rounds.outcomes["t0"].message.startswith(
        "t0 was running and was evicted to make room for t4"
    )
    assert "evicted t0 to make room" in " ".join(rounds.outcomes["t4"].decisions)
    with pytest.raises(SchedulerError, match="parameter rounds"):
        schedule_set(sc, "ras-default", {"rounds": "sometimes"})


def _chain(name: str, priority: int, bolts: int, workers: int) -> dict:
    """A spout (10 us a tuple) shuffling to ``bolts`` bolts (100 us a tuple, at 3 GHz)."""
    return {
        "name": name,
        "priority": priority,
        "workers": workers,
        "components": [
            {"id": "s", "parallelism": 1, "cpu_us": 10},
            {"id": "b", "parallelism": bolts, "cpu_us": 100},
        ],
        "streams": [{"from": "s", "to": "b"}],
    }


def _fast_and_slow(cores: int, bolts: int, workers: int):
    nodes = [
        {"id": "fast", "cores": cores, "ghz": 3, "slots": 4},
        {"id": "slow", "cores": cores, "ghz": 2.5, "slots": 4},
    ]
    return validate_scenario(
        {
            "topologies": [_chain("a", 0, bolts, workers), _chain("b", 1, bolts, workers)],
            "cluster": {"nodes": nodes},
        }
    )


def _union_score(sc, outcomes):
    """The set's model score (its union's R*, latency, nodes) of per-topology outcomes."""
    ids = set_ids(storm_order(sc.topology_set))
    placement = {
        ids.to_union[a.executor]: (a.node, a.slot) for o in outcomes for a in o.assignments
    }
    ev = Evaluator(sc)
    return ev.loads(ev.encode(placement)), ev.score(ev.encode(placement))


def _workers(outcome):
    return {(a.node, a.slot) for a in outcome.assignments}


OPTIMAL = {"time_limit": 4, "workers": 1}  # one CP-SAT thread: the same optimum every run


def test_the_joint_search_places_the_set_better_than_topology_by_topology():
    """Two chains of 1 spout + 3 bolts, 2 workers each, on a fast (4 cores, 3 GHz) and a
    slow node (4 cores, 2.5 GHz). Searched in turn, a takes the fast node; b, offered the
    nodes by free CPU, does not see a's load and puts its bolts there too: 6 bolts on 4
    cores, the fast node's CPU bounds R*. Jointly, b's bolts go to the slow node: each gets
    R/3 tuples/s at 100 us x 3/2.5 = 120 us, so R* = 3 / 120 us = 25,000/s."""
    sc = _fast_and_slow(cores=4, bolts=3, workers=2)
    order, in_turn = schedule_in_turn(sc, "optimal", OPTIMAL, None)
    loads, turn = _union_score(sc, [in_turn[n] for n in order])
    assert loads.bottleneck == "node fast CPU" and turn.max_rate < 20_000
    result = schedule_set(sc, "optimal", OPTIMAL)
    assert result.treatment.startswith("joint search of the set (8 executors on 2 nodes)")
    assert result.scheduled == ["a", "b"]
    loads, joint = _union_score(sc, result.outcomes.values())
    assert joint.max_rate == pytest.approx(25_000)
    assert loads.bottleneck.endswith("thread")
    assert score_key(joint) <= score_key(turn)
    a, b = (result.outcomes[n] for n in ("a", "b"))
    assert len(a.assignments) == len(b.assignments) == 4  # whole: 1 spout + 3 bolts each
    assert 1 <= len(_workers(a)) <= 2 and 1 <= len(_workers(b)) <= 2  # their declared 2
    assert not _workers(a) & _workers(b)  # a worker holds one topology's executors
    assert a.decisions[0].startswith("placed by optimal's joint search of the set")


@pytest.mark.parametrize("scheduler", ["optimal", "slotscope"])
def test_the_joint_search_keeps_each_topology_in_its_declared_workers(scheduler):
    """1 worker each, 2 bolts each, 2-core nodes: the search on the union alone shares
    and adds workers (R* above what one worker per topology allows); the joint search
    keeps a and b in one worker each and is never below the searches in turn."""
    sc = _fast_and_slow(cores=2, bolts=2, workers=1)
    params = OPTIMAL if scheduler == "optimal" else {"time_limit": 4}
    order, in_turn = schedule_in_turn(sc, scheduler, params, None)
    _, turn = _union_score(sc, [in_turn[n] for n in order])
    result = schedule_set(sc, scheduler, params)
    _, joint = _union_score(sc, result.outcomes.values())
    assert result.scheduled == ["a", "b"]
    assert [len(_workers(result.outcomes[n])) for n in ("a", "b")] == [1, 1]
    assert not _workers(result.outcomes["a"]) & _workers(result.outcomes["b"])
    assert score_key(joint) <= score_key(turn)
    assert "executors moved to keep one topology per worker" in result.treatment


def test_keeping_a_union_placement_to_the_set_parts_and_merges_workers():
    """Slot 0 holds a/s and b/s: b/s moves to fast's first free slot, 2. Each then has
    two workers where it declared one, and its first of equals merges into the other:
    a's slot 0 into slot 1 (fast), b's slot 2 into slot 4 (slow, b's only other)."""
    sc = _fast_and_slow(cores=2, bolts=1, workers=1)
    ev = Evaluator(sc)
    ids = set_ids(storm_order(sc.topology_set))
    owner = np.array([ids.owner[e] for e in ev.executors])
    where = {"a/s#0": 0, "a/b#0": 1, "b/s#0": 0, "b/b#0": 4}  # global slots (4 a node)
    slots = np.array([where[e] for e in ev.executors])
    kept, moved = kept_to_the_set(ev, slots, owner, [1, 1])
    assert dict(zip(ev.executors, kept.tolist(), strict=True)) == {
        "a/s#0": 1,
        "a/b#0": 1,
        "b/s#0": 4,
        "b/b#0": 4,
    }
    assert moved == 3
    assert kept_to_the_set(ev, slots, owner, [2, 2])[0].tolist() == [
        {"a/s#0": 0, "a/b#0": 1, "b/s#0": 2, "b/b#0": 4}[e] for e in ev.executors
    ]  # within 2 workers each: only the shared slot is parted


def test_hetero_on_a_shared_cluster_says_the_first_topology_took_it():
    """hetero grows "first" (1 spout + 1 bolt declared, 1 worker) until both nodes are
    full, one worker on each: its 100 % CPU per executor then uses up both 2-core nodes
    and "second" finds no slot; the report says why, in words (the paper's algorithm)."""
    nodes = [{"id": f"n{i}", "cores": 2, "ghz": 2, "slots": 4, "ram_gb": 8} for i in (1, 2)]
    topo = {
        "workers": 1,
        "components": [
            {"id": "s", "parallelism": 1, "cpu_pct": 100},
            {"id": "b", "parallelism": 1, "cpu_pct": 100},
        ],
        "streams": [{"from": "s", "to": "b"}],
    }
    sc = validate_scenario(
        {
            "topologies": [topo | {"name": "first", "priority": 0}, topo | {"name": "second"}],
            "cluster": {"nodes": nodes},
        }
    )
    result = schedule_set(sc, "hetero")
    first, second = result.outcomes["first"], result.outcomes["second"]
    assert first.ok and not second.ok
    grown = len(first.assignments)
    assert grown > 2 and len(_workers(first)) == 2  # one worker per machine, not its 1
    assert first.decisions[0] == (
        f"given first {grown:,} executors in 2 workers on 2 nodes (declared 2 executors, 1 worker)"
    )
    assert "8 ports are unused" not in second.message  # hetero used 1 port of each 4
    assert "6 ports are unused, on nodes whose CPU or memory" in second.message
    assert "Earlier topologies were given more than they declared: first" in second.message
    assert "this is the paper's algorithm" in second.message


@pytest.mark.parametrize("scheduler", ["optimal", "slotscope"])
def test_the_joint_search_places_a_topology_whole_or_not_at_all(scheduler):
    """One node of one slot, two topologies of 4 executors (1 worker each): the search
    on the union puts all 8 in the one slot, which no free slot can part, so the
    searches in turn win: x whole in the slot, y nowhere, reported."""
    topo = {
        "workers": 1,
        "ackers": 1,
        "components": [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": 2}],
        "streams": [{"from": "s", "to": "b"}],
    }
    sc = validate_scenario(
        {
            "topologies": [topo | {"name": "x", "priority": 0}, topo | {"name": "y"}],
            "cluster": {"nodes": [{"id": "n", "cores": 4, "ghz": 2, "slots": 1}]},
        }
    )
    result = schedule_set(sc, scheduler, {"time_limit": 2})
    assert result.scheduled == ["x"]
    assert result.treatment.startswith("joint search of the set (8 executors on 1 node)")
    assert "shares workers between topologies and no free slot is left" in result.treatment
    assert sorted(a.executor for a in result.assignments) == [
        "x/__acker#0",
        "x/b#0",
        "x/b#1",
        "x/s#0",
    ]
    assert result.outcomes["y"].assignments == ()
    assert result.outcomes["y"].message.startswith("y did not fit under")


def test_declared_requests_count_off_heap_memory_and_the_ackers_own_request():
    sc = validate_scenario(
        {
            "topology": {
                "components": [
                    {
                        "id": "s",
                        "parallelism": 2,
                        "cpu_pct": 50,
                        "memory_mb": 300,
                        "offheap_mb": 200,
                    }
                ],
                "ackers": 1,
                "acker_cpu_pct": 25,
                "acker_memory_mb": 64,
                "acker_offheap_mb": 16,
            },
            "cluster": {"nodes": NODES},
        }
    )
    ids, cpu, mem = executor_requests(sc.topology)
    assert ids == ["s#0", "s#1", "__acker#0"]
    # Storm's getTotalMemoryMb: on-heap + off-heap; the acker its own request
    assert cpu.tolist() == [50.0, 50.0, 25.0] and mem.tolist() == [500.0, 500.0, 80.0]

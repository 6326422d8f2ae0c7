"""Every scheduler on a topology set (core/topology_set.py)."""

from __future__ import annotations

import json

import pytest

from core.model import validate_scenario
from core.presets import preset
from core.registry import SCHEDULERS, get_scheduler
from core.schedulers import feed
from core.schedulers.base import SchedulerError, run_spec
from core.topology_set import NOT_RUN, SET_TREATMENT, schedule_set

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

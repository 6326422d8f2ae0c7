"""The public entry points: argument checks, the result contract, observations."""

import json
import math

import pytest
from sim_builders import make, manual

from core.model import Observations
from core.registry import run_scheduler
from core.settings import SettingsError
from core.simulator import (
    MAX_TUPLES,
    MIN_TUPLES,
    SimulationError,
    analyze,
    observe,
    simulate,
    simulate_replicas,
)

CONTRACT_KEYS = {
    "scheduler",
    "rate",
    "replica",
    "throughput",
    "sink_throughput",
    "max_rate",
    "saturated",
    "bottleneck",
    "latency_ms",
    "nodes_used",
    "slots_used",
    "cpu_util",
    "memory_mb",
    "traffic",
    "traffic_bytes",
    "placement_ms",
    "violations",  # why the placement cannot run (a list of sentences), [] when it can
}


def _plain(value) -> bool:
    """True when value is built only of JSON's own Python types (no numpy scalars)."""
    if isinstance(value, dict):
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or type(value) in (bool, int, float, str)


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"rate": 0.0}, "rate"),
        ({"rate": -5.0}, "rate"),
        ({"rate": math.nan}, "rate"),
        ({"rate": math.inf}, "rate"),
        ({"rate": "fast"}, "rate"),
        ({"rate": True}, "rate"),
        ({"tuples": MIN_TUPLES - 1}, "tuples"),
        ({"tuples": MAX_TUPLES + 1}, "tuples"),
        ({"tuples": 1000.5}, "tuples"),
        ({"replica": -1}, "replica"),
        ({"seed": -3}, "seed"),
    ],
)
def test_bad_arguments_raise_a_typed_error_naming_them(wordcount, kwargs, argument):
    args = {"rate": 1000.0, "tuples": 1000, **kwargs}
    with pytest.raises(SimulationError) as err:
        simulate(wordcount, run_scheduler(wordcount, "even"), **args)
    assert err.value.argument == argument
    assert str(err.value).startswith(f"{argument}: ")
    assert isinstance(err.value, ValueError)
    assert isinstance(err.value, SettingsError)  # one family: the rules live in core.settings


def test_replicas_below_one_are_refused(wordcount):
    with pytest.raises(SimulationError, match="^replicas: 0 is not between 1 and 32"):
        simulate_replicas(wordcount, run_scheduler(wordcount, "even"), 1000.0, replicas=0)


def test_analyze_refuses_a_bad_rate(wordcount):
    with pytest.raises(SimulationError, match="^rate: "):
        analyze(wordcount, run_scheduler(wordcount, "even"), rate=-1)


def test_an_incomplete_placement_is_refused(wordcount):
    placement = run_scheduler(wordcount, "even").placement()
    del placement["count#3"]
    with pytest.raises(SimulationError, match="executor 'count#3' is not placed"):
        analyze(wordcount, manual(wordcount, placement))


def test_too_many_tuple_hops_are_refused():
    comps = [
        {"id": "s", "parallelism": 1, "selectivity": 100.0},
        {"id": "b", "parallelism": 1, "selectivity": 0.0},
    ]
    sc = make(comps, [("s", "b")])
    with pytest.raises(SimulationError, match="^tuples: .*tuple-hops"):
        simulate(sc, run_scheduler(sc, "even"), 10.0, tuples=MAX_TUPLES)


def test_a_row_has_exactly_the_contract_keys_in_plain_json_types(wordcount_acked):
    sched = run_scheduler(wordcount_acked, "even")
    row = simulate(wordcount_acked, sched, rate=20_000.0, replica=2, tuples=2000, seed=1)
    assert set(row) == CONTRACT_KEYS
    assert set(row["latency_ms"]) == {"p50", "p95", "p99", "mean", "max"}
    assert (
        set(row["traffic"])
        == set(row["traffic_bytes"])
        == {"intra_worker", "inter_worker", "inter_node"}
    )
    assert set(row["cpu_util"]) == set(row["memory_mb"]) == {f"n{i}" for i in range(1, 6)}
    assert _plain(row), row
    json.dumps(row, allow_nan=False)
    assert (row["scheduler"], row["rate"], row["replica"]) == ("even", 20_000.0, 2)
    assert row["placement_ms"] == sched.elapsed_ms


def test_rate_defaults_to_the_workload(wordcount):
    sched = run_scheduler(wordcount, "even")
    assert analyze(wordcount, sched) == analyze(wordcount, sched, rate=20_000.0)


def test_replicas_are_numbered_and_differ(wordcount):
    rows = simulate_replicas(
        wordcount, run_scheduler(wordcount, "even"), 20_000.0, replicas=3, tuples=1000
    )
    assert [r["replica"] for r in rows] == [0, 1, 2]
    assert len({r["latency_ms"]["p99"] for r in rows}) == 3


def test_observations_carry_flows_cpu_load_in_hz_and_node_utilisation(wordcount_acked):
    sched = run_scheduler(wordcount_acked, "even")
    obs = observe(wordcount_acked, sched, rate=10_000.0)
    a = analyze(wordcount_acked, sched, rate=10_000.0)
    assert isinstance(obs, Observations)
    total = sum(f.rate for f in obs.traffic)
    assert total == pytest.approx(sum(a.traffic.values()))
    node_of = {e: n for e, (n, _) in sched.placement().items()}
    ghz = {n.id: n.ghz for n in wordcount_acked.cluster.nodes}
    for e, hz in obs.executor_load_hz.items():
        assert hz == pytest.approx(a.executor_cpu[e] * ghz[node_of[e]] * 1e9)
    assert obs.node_cpu_util == a.cpu_util
    assert set(obs.executor_load_hz) == set(sched.placement())


def test_a_placement_without_cost_has_no_bound_and_says_so():
    free = [
        {"id": "s", "parallelism": 1, "cpu_us": 0.0},
        {"id": "b", "parallelism": 1, "cpu_us": 0.0, "selectivity": 0.0},
    ]
    sc = make(free, [("s", "b")])
    row = simulate(sc, manual(sc, {"s#0": ("n1", 0), "b#0": ("n1", 0)}), 500.0, tuples=200)
    assert row["max_rate"] is None and row["bottleneck"] == "none" and not row["saturated"]
    assert row["throughput"] == 1000.0
    assert row["latency_ms"]["max"] == pytest.approx(1e-3)  # the 1 us in-worker hand-off


def test_fixed_overheads_that_fill_a_node_leave_no_rate():
    profiling = {"per_type": {"b": {"t": {"e_ms": 0.01, "met_pct": 100.0}}}}
    comps = [{"id": "s", "parallelism": 1}, {"id": "b", "parallelism": 1, "selectivity": 0.0}]
    sc = make(comps, [("s", "b")], [{"id": "n1", "type": "t"}], profiling=profiling)
    row = simulate(sc, manual(sc, {"s#0": ("n1", 0), "b#0": ("n1", 0)}), 500.0, tuples=200)
    assert row["max_rate"] == 0.0 and row["saturated"] and row["bottleneck"] == "node n1 CPU"
    assert row["throughput"] == 0.0
    assert set(row["latency_ms"].values()) == {None}
    json.dumps(row, allow_nan=False)

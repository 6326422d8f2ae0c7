"""hetero (Nasiri et al. 2023): CPU model, FirstAssignment, MaximizeThroughput."""

import pytest

from core.model import validate_scenario
from core.schedulers import Status, run_scheduler
from core.schedulers.hetero import MAX_RATE

ONE_CORE = {"cores": 1, "ghz": 3.0, "slots": 1}  # 3 GHz x 16 FLOPs = the reference core


def scenario(components, streams, nodes, **extra):
    return validate_scenario(
        {
            "topology": {"components": components, "streams": streams},
            "cluster": {"nodes": nodes},
            **extra,
        }
    )


def spout_and_bolt(nodes, **extra):
    """A cost-free spout feeding a bolt of 1 ms per tuple on the reference core."""
    return scenario(
        [
            {"id": "spout", "parallelism": 1, "cpu_us": 0.0},
            {"id": "bolt", "parallelism": 1, "cpu_us": 1000.0},
        ],
        [{"from": "spout", "to": "bolt"}],
        nodes,
        **extra,
    )


def test_hetero_hand_computed_two_machines():
    # The bolt takes 1 ms per tuple on a 1-core machine: TCU = 0.1% x IR.
    # FirstAssignment (R0 = 1): spout TCU 0 and bolt 0.1% tie on m1, m2 -> m1 (listed first).
    # R doubles while stable: 1, 2, ..., 512. At 1024 m1 is at 102.4%: its hottest task is
    # the bolt; a 2nd bolt splits the input (512/s each, 51.2%): m1 has 48.8% left, m2 100%
    # -> bolt#1 on m2. Stable at 1024. At 2048 a 3rd bolt would need 68.3% where 31.7% is
    # left: Scale 2, back to 1024. Then the rate creeps up under the 2,000/s the two bolts
    # can take: 1536 ok, 2304 no (Scale 4), 1920 ok, 2400, 2160, 2040 no (Scale 32),
    # 1980 ok, 2041.9, 2010.9 no (128), 1995.47 ok, 2011.1, 2003.3 no (512), 1999.37 ok,
    # 2003.3, 2001.3 no (2048), 2000.34 no and 2000.34 <= Scale 2048: stop at 1999.37.
    result = run_scheduler(
        spout_and_bolt([{"id": "m1", **ONE_CORE}, {"id": "m2", **ONE_CORE}]), "hetero"
    )
    assert result.parallelism == {"spout": 1, "bolt": 2}
    assert result.placement() == {"spout#0": ("m1", 0), "bolt#0": ("m1", 0), "bolt#1": ("m2", 0)}
    assert result.details["final_rate"] == pytest.approx(1999.36615, abs=1e-4)
    assert result.details["scale"] == 2048
    assert result.details["stop"] == "no machine can take another instance"
    # max throughput = spout 1999.37 x 1 + bolt (1999.37 / 2) x 2
    assert result.details["max_throughput"] == pytest.approx(2 * 1999.36615, abs=1e-3)
    assert result.decisions[3].startswith(
        "bolt#1 -> m2 slot 0: added at 1024 tuples/s because bolt was the hottest task on "
        "over-utilised m1 (102.4% CPU)"
    )


def test_hetero_grows_the_bottleneck_component():
    # heavy costs 100x light; 4 two-core machines. The heavy bolt is the hottest task
    # wherever it runs, so it gains the instances.
    sc = scenario(
        [
            {"id": "spout", "parallelism": 1, "cpu_us": 1.0},
            {"id": "heavy", "parallelism": 1, "cpu_us": 1000.0},
            {"id": "light", "parallelism": 1, "cpu_us": 10.0},
        ],
        [{"from": "spout", "to": "heavy"}, {"from": "heavy", "to": "light"}],
        [{"id": f"m{i}", "cores": 2, "ghz": 3.0, "slots": 2} for i in range(4)],
    )
    result = run_scheduler(sc, "hetero")
    par = result.parallelism
    assert par["heavy"] > 1
    assert par["heavy"] > par["light"] and par["heavy"] > par["spout"]
    # 8 cores in all at 1 ms per heavy tuple: at most 8,000 tuples/s
    assert 7000 < result.details["final_rate"] <= 8000
    assert all(slot == 0 for _, slot in result.placement().values())


def test_hetero_max_throughput_is_the_sum_of_input_rate_times_instances():
    # spout -> split (10 words per line) -> count: visit ratios 1, 1, 10.
    # IR_c = R x v_c / x_c, so sum IR_c x x_c = R x (1 + 1 + 10) = 12 R.
    sc = scenario(
        [
            {"id": "spout", "parallelism": 1, "cpu_us": 2.0},
            {"id": "split", "parallelism": 1, "cpu_us": 8.0, "selectivity": 10.0},
            {"id": "count", "parallelism": 1, "cpu_us": 0.6, "selectivity": 0.0},
        ],
        [{"from": "spout", "to": "split"}, {"from": "split", "to": "count", "grouping": "fields"}],
        [
            {"id": "fast", "cores": 8, "ghz": 3.4, "slots": 4},
            {"id": "slow", "cores": 4, "ghz": 2.5, "flops_per_cycle": 4, "slots": 4},
        ],
    )
    result = run_scheduler(sc, "hetero")
    rate = result.details["final_rate"]
    visit = {"spout": 1.0, "split": 1.0, "count": 10.0}
    by_instances = sum(rate * visit[c] / x * x for c, x in result.parallelism.items())
    assert result.details["max_throughput"] == pytest.approx(by_instances)
    assert result.details["max_throughput"] == pytest.approx(12 * rate)


def test_hetero_uses_per_type_profiling_when_present():
    # Identical hardware, so from cpu_us alone the bolt (1 ms) ties and goes to the first
    # machine, "old". Profiling says it takes 0.01 ms on type "new": TCU 0.001% x IR there,
    # 0.1% x IR on "old" -> first instance on "new". A 2nd bolt never helps: on "new" it
    # shares the same machine, on "old" it costs 100x, so the rate tops out below
    # 100 / 0.001 = 100,000 tuples/s with one bolt.
    nodes = [{"id": "old", "type": "t-old", **ONE_CORE}, {"id": "new", "type": "t-new", **ONE_CORE}]
    plain = run_scheduler(spout_and_bolt(nodes), "hetero")
    assert plain.placement()["bolt#0"] == ("old", 0)
    profiled = run_scheduler(
        spout_and_bolt(nodes, profiling={"per_type": {"bolt": {"t-new": {"e_ms": 0.01}}}}),
        "hetero",
    )
    assert profiled.placement()["bolt#0"] == ("new", 0)
    assert profiled.parallelism == {"spout": 1, "bolt": 1}
    assert 99_000 < profiled.details["final_rate"] <= 100_000


def test_hetero_counts_the_fixed_overhead_met():
    # "new" is 100x faster per tuple but carries a 50% fixed overhead: at R0 = 1 the bolt
    # costs 50.001% there and 0.1% on "old" -> first instance on "old".
    nodes = [{"id": "old", "type": "t-old", **ONE_CORE}, {"id": "new", "type": "t-new", **ONE_CORE}]
    profiling = {"per_type": {"bolt": {"t-new": {"e_ms": 0.01, "met_pct": 50.0}}}}
    result = run_scheduler(spout_and_bolt(nodes, profiling=profiling), "hetero")
    assert result.decisions[2] == (
        "bolt#0 -> old slot 0: first instance of bolt, placed where its predicted CPU at "
        "R0 = 1 tuples/s is least among machines with room (0.10% of old)"
    )


def test_hetero_first_assignment_that_fits_nowhere_is_not_enough_resources():
    # At R0 = 2000 the bolt needs 0.1% x 2000 = 200% of a one-core machine.
    sc = spout_and_bolt([{"id": "m1", **ONE_CORE}])
    result = run_scheduler(sc, "hetero", {"r0": 2000})
    assert result.status is Status.NOT_ENOUGH_RESOURCES
    assert result.message == (
        "bolt needs 200.0% of a machine at R0 = 2000 tuples/s but at most 100.0% is "
        "available on any machine"
    )


def test_hetero_cost_free_topology_stops_at_the_rate_cap():
    sc = scenario(
        [
            {"id": "a", "parallelism": 1, "cpu_us": 0.0},
            {"id": "b", "parallelism": 1, "cpu_us": 0.0},
        ],
        [{"from": "a", "to": "b"}],
        [{"id": "m1", **ONE_CORE}],
    )
    result = run_scheduler(sc, "hetero")
    assert result.details["final_rate"] <= MAX_RATE
    assert result.details["stop"] == f"the rate would exceed {MAX_RATE:g} tuples/s"


def test_hetero_skips_machines_without_slots():
    nodes = [{"id": "m0", "cores": 64, "ghz": 3.0, "slots": 0}, {"id": "m1", **ONE_CORE}]
    result = run_scheduler(spout_and_bolt(nodes), "hetero")
    assert {n for n, _ in result.placement().values()} == {"m1"}
    assert result.parallelism == {"spout": 1, "bolt": 1}

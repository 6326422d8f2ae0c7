"""The CPU table: sourced entries, nodes that name one, and the speed and capacity it gives."""

from __future__ import annotations

import pytest

from core import cpus
from core.hardware import (
    at_per_clock_end,
    clock_ghz,
    core_speed,
    has_per_clock_range,
    per_clock,
    per_clock_range,
    processing_speed,
)
from core.model import Node, Profiling, ScenarioError, validate_scenario
from core.presets import preset
from core.presets.top_storm import TABLE_4
from core.simulator.coefficients import capacity_cores

REFERENCE = Profiling()  # cpu_us measured on a Skylake core at 3.0 GHz


def _node(**fields) -> Node:
    return Node(id="n", slots=1, **fields)


@pytest.mark.parametrize("name", sorted(cpus.CPUS))
def test_every_entry_is_sourced_and_consistent(name):
    cpu = cpus.CPUS[name]
    assert "Intel ARK" in cpu.source  # cores, threads and clocks from the vendor
    assert cpu.threads >= cpu.cores > 0
    assert cpu.all_core_ghz is None or cpu.all_core_ghz >= cpu.base_ghz
    factor = cpu.per_clock
    assert factor.source
    assert factor.low <= factor.factor <= factor.high
    assert factor.factor == pytest.approx((factor.low + factor.high) / 2, abs=5e-3)  # the middle


def test_the_reference_is_skylake_and_the_older_cores_do_less_per_clock():
    per = cpus.PER_CLOCK
    assert per[cpus.REFERENCE_MICROARCHITECTURE].factor == 1.0
    assert not per["Skylake"].has_range
    # the sourced ranges: Haswell 0.90-0.95, Westmere 0.55-0.71 of Skylake
    assert (per["Haswell"].low, per["Haswell"].high) == (0.90, 0.95)
    assert (per["Westmere"].low, per["Westmere"].high) == (0.55, 0.71)
    assert per["Westmere"].high < per["Haswell"].low < 1.0


def test_the_vendors_figures():
    i7, laptop = cpus.lookup("i7-6700"), cpus.lookup("i5-M460")
    assert (i7.cores, i7.threads, i7.base_ghz, i7.all_core_ghz) == (4, 8, 3.40, 3.7)
    assert (laptop.cores, laptop.threads, laptop.base_ghz) == (2, 4, 2.53)
    assert laptop.clock_ghz == 2.53  # no all-core turbo given: the base clock
    assert (cpus.lookup("i5-4460").cores, cpus.lookup("i5-4460").threads) == (4, 4)


def test_models_are_found_however_they_are_spelt():
    # Table 4 prints "Intel Core i5 CPU M 460 @ 2.53 GHz"
    assert cpus.lookup("Intel Core i5 CPU M 460") is cpus.CPUS["i5-M460"]
    assert cpus.lookup("Xeon E5-2620 v3") is cpus.CPUS["E5-2620v3"]
    with pytest.raises(ValueError, match="unknown CPU model 'i9-9900K'"):
        cpus.lookup("i9-9900K")


def test_an_unknown_model_is_refused_naming_the_field():
    doc = preset("wordcount").to_json_dict()
    doc["cluster"]["nodes"][0]["cpu_model"] = "Pentium 4"
    with pytest.raises(ScenarioError, match=r"cluster\.nodes\[0\]\.cpu_model: unknown CPU"):
        validate_scenario(doc)


def test_a_node_takes_its_cores_threads_and_clock_from_the_table():
    node = _node(cpu_model="i5 M 460")
    assert (node.cores, node.threads, node.ghz) == (2, 4, 2.53)
    assert per_clock(node) == 0.63 and per_clock_range(node) == (0.55, 0.71)


def test_what_a_user_types_overrides_the_table():
    # two of the i7-6700's cores switched on: threads follow the typed cores (2 per core)
    assert (_node(cpu_model="i7-6700", cores=2).threads, _node(cpu_model="i7-6700").threads) == (
        4,
        8,
    )
    assert _node(cpu_model="i7-6700", cores=2, threads=2).threads == 2
    assert clock_ghz(_node(cpu_model="i7-6700")) == 3.7  # all-core turbo at the base clock
    assert clock_ghz(_node(cpu_model="i7-6700", ghz=3.0)) == 3.0  # a typed clock is meant
    assert clock_ghz(_node(cpu_model="i7-6700", all_core_ghz=3.9)) == 3.9
    typed = _node(cpu_model="i5-M460", per_clock=0.8)
    assert per_clock(typed) == 0.8 and per_clock_range(typed) is None
    assert core_speed(_node(cpu_model="i5-M460", speed=0.4), REFERENCE) == 0.4
    # without a CPU model nothing changes: the clock over the reference clock
    assert core_speed(_node(cores=4, ghz=2.4), REFERENCE) == pytest.approx(0.8)


def test_the_i5_m460_by_hand():
    """2 Westmere cores + 2 hyperthreads at 2.53 GHz (no all-core turbo given), 0.63 of
    Skylake's work per clock: speed 2.53 x 0.63 / 3.0 = 0.5313 of the reference core,
    capacity 2 + 2 x 0.3 = 2.6 cores, 1.381 reference cores in all (the paper's Eq. 1
    counted 4 full CPUs at the clock: 4 x 2.53 / 3.0 = 3.37)."""
    laptop = next(n for n in preset("wordcount").cluster.nodes if n.id == "i5-m460")
    assert (laptop.cpu_model, laptop.cores, laptop.threads) == ("i5-M460", 2, 4)
    speed = core_speed(laptop, REFERENCE)
    assert speed == pytest.approx(0.5313)
    sc = preset("wordcount")
    capacity = dict(zip([n.id for n in sc.cluster.nodes], capacity_cores(sc), strict=True))
    assert capacity["i5-m460"] == pytest.approx(2.6)
    assert capacity["i5-m460"] * speed == pytest.approx(1.38138)


def test_table_4_hosts_keep_the_papers_eq_1_over_logical_cpus():
    """Eq. 1 counts what Ubuntu lists (logical CPUs): the table's GFLOPs, to the unit."""
    nodes = {n.type: n for n in preset("wordcount").cluster.nodes}
    hosts = {h.hostname: h for h in TABLE_4}
    pairs = {"Node-B": "i5-4460", "Node-D": "i5-M460"}
    for host, cpu in pairs.items():
        assert processing_speed(nodes[cpu]) == pytest.approx(hosts[host].gflops, abs=1)
    by_id = {n.id: n for n in preset("wordcount").cluster.nodes}
    assert processing_speed(by_id["i7-8c"]) == pytest.approx(hosts["Node-C"].gflops, abs=1)
    assert (by_id["i7-4c"].cores, by_id["i7-4c"].threads) == (4, 4)  # 4 logical CPUs off
    assert (by_id["i7-2c"].cores, by_id["i7-2c"].threads) == (2, 2)  # 6 off: 2-core turbo
    assert clock_ghz(by_id["i7-2c"]) == 3.9


def test_per_clock_ends_move_only_the_nodes_with_a_range():
    sc = preset("wordcount")
    assert has_per_clock_range(sc) and not has_per_clock_range(preset("nasiri-linear"))
    low, high = at_per_clock_end(sc, "low"), at_per_clock_end(sc, "high")
    ratio = {}
    for a, b, c in zip(sc.cluster.nodes, low.cluster.nodes, high.cluster.nodes, strict=True):
        ratio[a.id] = (core_speed(b, REFERENCE), core_speed(c, REFERENCE))
    assert ratio["i5-m460"] == pytest.approx((2.53 * 0.55 / 3, 2.53 * 0.71 / 3))
    assert ratio["i5-4460"] == pytest.approx((3.2 * 0.90 / 3, 3.2 * 0.95 / 3))
    assert ratio["i7-8c"] == pytest.approx((3.7 / 3, 3.7 / 3))  # Skylake: the reference
    assert at_per_clock_end(preset("nasiri-linear"), "low") == preset("nasiri-linear")

"""Scenario fields for Storm's resource accounting: off-heap memory and the acker request
(core/model.py), read by core/ras/scenario.py ``from_scenario``."""

from __future__ import annotations

import math

import pytest

from core.model import ScenarioError, validate_scenario
from core.ras.model import Request
from core.ras.scenario import from_scenario
from core.ras.schedule import schedule_cluster


def _scenario(component: dict | None = None, **topology) -> dict:
    return {
        "name": "acct",
        "topology": {
            "name": "t",
            "ackers": 2,
            "components": [
                {"id": "s", "parallelism": 2, "cpu_pct": 50.0, "memory_mb": 512.0},
                {"id": "b", "parallelism": 1, **(component or {})},
            ],
            "streams": [{"from": "s", "to": "b"}],
            **topology,
        },
        "cluster": {"nodes": [{"id": "n0", "cores": 4, "ghz": 3.0, "slots": 4, "ram_gb": 8}]},
    }


def test_defaults_are_storms_defaults_yaml():
    """defaults.yaml (Storm 2.0.0): 10 %, 128 MB on heap, 0 MB off heap, for ackers too."""
    _cluster, (topo,) = from_scenario(validate_scenario(_scenario()))
    assert topo.all_components[1].request == Request(10.0, 128.0, 0.0)
    assert topo.acker_request == Request(10.0, 128.0, 0.0)
    assert topo.ackers_per_worker == 1 and topo.isolated_machines is None


def test_off_heap_and_acker_requests_reach_the_strategy():
    sc = validate_scenario(
        _scenario(
            {"offheap_mb": 300.0},
            acker_cpu_pct=25.0,
            acker_memory_mb=200.0,
            acker_offheap_mb=50.0,
        )
    )
    cluster, (topo,) = from_scenario(sc)
    assert topo.all_components[1].request == Request(10.0, 128.0, 300.0)
    assert topo.acker_request == Request(25.0, 200.0, 50.0)
    assert schedule_cluster(cluster, [topo], "ras-default").results["t"].success
    # node memory = on + off heap of all 5 executors (no shared memory):
    # 2 x 512 + (128 + 300) + 2 x (200 + 50) = 1,952 MB; CPU 2 x 50 + 10 + 2 x 25 = 160 %
    assert cluster.used_mem.tolist() == [1952.0]
    assert cluster.used_cpu.tolist() == [160.0]


def test_off_heap_does_not_count_toward_the_worker_heap():
    """A 700 MB on-heap executor with 3,000 MB off heap fits a 768 MB worker heap
    (Storm's topology.worker.max.heap.size.mb limits on-heap memory only)."""
    sc = validate_scenario(_scenario({"memory_mb": 700.0, "offheap_mb": 3000.0}, ackers=0))
    cluster, (topo,) = from_scenario(sc)
    assert schedule_cluster(cluster, [topo], "ras-default").results["t"].success
    assert cluster.used_mem.tolist() == [2 * 512.0 + 700.0 + 3000.0]


@pytest.mark.parametrize(
    ("where", "value", "path"),
    [
        ("component", -1.0, "topology.components[1].offheap_mb"),
        ("component", math.inf, "topology.components[1].offheap_mb"),
        ("component", "many", "topology.components[1].offheap_mb"),
        ("acker_cpu_pct", -5.0, "topology.acker_cpu_pct"),
        ("acker_memory_mb", math.nan, "topology.acker_memory_mb"),
        ("acker_offheap_mb", -0.5, "topology.acker_offheap_mb"),
    ],
)
def test_bad_accounting_fields_give_one_line_naming_the_field(where, value, path):
    data = _scenario({"offheap_mb": value}) if where == "component" else _scenario(**{where: value})
    with pytest.raises(ScenarioError) as err:
        validate_scenario(data)
    assert str(err.value).startswith(f"{path}:")
    assert "\n" not in str(err.value)

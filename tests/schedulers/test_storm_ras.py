"""Storm 2's resource-aware strategies as slotscope schedulers: the adapter around core.ras."""

from __future__ import annotations

import pytest

from core.model import validate_scenario, with_changes
from core.presets import preset
from core.registry import SCHEDULERS, Status, run_scheduler
from core.schedulers.storm_ras import SPECS, STORM_CLASSES

RAS = sorted(SPECS)


def test_every_strategy_is_registered_under_its_storm_class():
    assert set(RAS) <= set(SCHEDULERS)
    assert set(STORM_CLASSES) == set(RAS)


@pytest.mark.parametrize("strategy", RAS)
def test_each_executor_placed_once_within_node_memory(strategy):
    sc = preset("wordcount")
    out = run_scheduler(sc, strategy)
    assert out.status is Status.OK, out.message
    executors = [a.executor for a in out.assignments]
    assert len(executors) == len(set(executors)) == sum(out.parallelism.values())
    # Storm's accounting: on-heap requests of a node's executors fit its memory
    memory = {c.id: c.memory_mb for c in sc.topology.components}
    ram = {n.id: n.ram_gb * 1024 for n in sc.cluster.nodes}
    used: dict[str, float] = {}
    for a in out.assignments:
        used[a.node] = used.get(a.node, 0.0) + memory.get(a.component, 128.0)
    assert all(used[n] <= ram[n] for n in used)


def test_default_packs_a_small_topology_into_one_worker():
    # lf-linear: 8 executors of 128 MB (1,024 MB) under the 768 MB worker heap of
    # Storm's defaults.yaml: the default strategy fills a worker to 6 executors
    # (768 / 128), then opens a second one; W = 8 is ignored, as in Storm 2
    data = preset("lf-linear").to_json_dict()
    data["topology"]["ackers"] = 0  # the components' 8 executors only
    out = run_scheduler(validate_scenario(data), "ras-default")
    workers = {(a.node, a.slot) for a in out.assignments}
    assert out.status is Status.OK
    assert len(workers) == 2


def test_a_topology_that_does_not_fit_is_placed_nowhere_and_told_node_by_node():
    sc = preset("lf-linear")
    tiny = [dict(n.model_dump(), ram_gb=0.1) for n in sc.cluster.nodes]
    out = run_scheduler(with_changes(sc, cluster={"nodes": tiny}), "ras-default")
    assert out.status is Status.NOT_ENOUGH_RESOURCES
    assert out.assignments == ()
    assert "MB" in out.message and sc.cluster.nodes[0].id in out.message


def test_a_topologys_own_strategy_wins_unless_forced():
    data = preset("wordcount").to_json_dict()
    data["topology"]["scheduler_params"] = {"ras": {"strategy": "GenericResourceAwareStrategy"}}
    sc = validate_scenario(data)
    own = run_scheduler(sc, "ras-default")
    assert own.decisions[0].startswith("GenericResourceAwareStrategy: all")
    assert "the topology's own strategy" in own.decisions[-1]
    forced = run_scheduler(sc, "ras-default", {"force": True})
    assert forced.decisions[0].startswith("DefaultResourceAwareStrategy: all")

"""Properties every registered scheduler keeps, on random DAGs and clusters.

The registry is read when the tests are collected, so a scheduler added to
``core.registry.SCHEDULERS`` is covered without touching this file.
"""

import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st

from core.model import GROUPINGS, validate_scenario
from core.registry import SCHEDULERS, SchedulerError, Status, run_scheduler
from core.topology import build_graph, component_of

# Schedulers allowed to answer "not enough resources" on a cluster with enough slots
# (R-Storm's per-worker heap and per-node CPU/memory are hard limits).
# R-Storm and Storm 2's resource-aware strategies refuse a topology whose requests do not fit
MAY_RUN_OUT = {"rstorm", "ras-default", "ras-generic", "ras-round-robin", "ras-constraint"}

# Names whose id order differs from any natural order, to tell id order from
# topological order.
NAMES = ("spout", "split", "count", "alpha", "zeta", "mid")


@st.composite
def scenarios(draw):
    """A small random DAG on a small heterogeneous cluster with W <= free slots."""
    ids = draw(st.permutations(NAMES))[: draw(st.integers(1, 5))]
    components = [
        {
            "id": cid,
            "parallelism": draw(st.integers(1, 4)),
            "cpu_us": draw(st.sampled_from([0.0, 1.0, 10.0, 100.0])),
            "selectivity": draw(st.sampled_from([0.0, 0.5, 1.0, 2.0])),
        }
        for cid in ids
    ]
    streams = [
        {"from": ids[i], "to": ids[j], "grouping": draw(st.sampled_from(GROUPINGS))}
        for i in range(len(ids))
        for j in range(i + 1, len(ids))
        if draw(st.booleans())
    ]
    nodes = [
        {
            "id": f"n{k}",
            "cores": draw(st.integers(1, 8)),
            "ghz": draw(st.sampled_from([1.0, 2.53, 3.4])),
            "flops_per_cycle": draw(st.sampled_from([4, 16, 32])),
            "ram_gb": draw(st.sampled_from([4, 16, 64])),
            "slots": draw(st.integers(0, 4)),
            "rack": f"r{k % 2}",
            "type": draw(st.sampled_from(["t1", "t2"])),
        }
        for k in range(draw(st.integers(1, 4)))
    ]
    if sum(n["slots"] for n in nodes) == 0:
        nodes[0]["slots"] = 1
    free = sum(n["slots"] for n in nodes)
    data = {
        "topology": {
            "components": components,
            "streams": streams,
            "workers": draw(st.integers(1, free)),
            "ackers": draw(st.sampled_from([0, 0, 1, 2])),
        },
        "cluster": {"nodes": nodes},
    }
    if draw(st.booleans()):
        data["profiling"] = {"per_type": {ids[0]: {"t1": {"e_ms": 0.01, "met_pct": 1.0}}}}
    if draw(st.booleans()):
        executors = st.sampled_from(
            [f"{c['id']}#{i}" for c in components for i in range(c["parallelism"])]
        )
        flows = st.fixed_dictionaries(
            {"from": executors, "to": executors, "rate": st.sampled_from([0.0, 5.0, 100.0])}
        )
        data["observations"] = {
            "node_cpu_util": {n["id"]: draw(st.sampled_from([0.0, 0.3, 0.9])) for n in nodes},
            "traffic": draw(st.lists(flows, max_size=5)),
        }
    return validate_scenario(data)


def check_placement(scenario, result, complete: bool) -> None:
    """Each executor of the result's parallelism placed at most (or exactly) once."""
    slots = {n.id: n.slots for n in scenario.cluster.nodes}
    executors = [a.executor for a in result.assignments]
    assert len(executors) == len(set(executors)), "an executor placed twice"
    for a in result.assignments:
        assert a.node in slots, f"{a.executor} on unknown node {a.node}"
        assert 0 <= a.slot < slots[a.node], f"{a.executor} on {a.node} slot {a.slot}"
        assert a.component == component_of(a.executor)
    graph = build_graph(scenario, result.parallelism)
    expected = set(graph.executors_topological())
    assert set(executors) <= expected
    if complete:
        assert set(executors) == expected


# keep the exhaustive search to spaces it explores in well under a second
PARAMS = {"optimal": {"limit": 2_000, "method": "enumerate"}}


@pytest.mark.parametrize("scheduler_id", sorted(SCHEDULERS))
@settings(max_examples=40, deadline=None)
@given(scenario=scenarios())
def test_every_scheduler_places_each_executor_once_deterministically(scheduler_id, scenario):
    try:
        first = run_scheduler(scenario, scheduler_id, PARAMS.get(scheduler_id))
    except SchedulerError:
        reject()  # a scheduler may refuse an input it cannot handle (a size limit)
    second = run_scheduler(scenario, scheduler_id, PARAMS.get(scheduler_id))
    if scheduler_id not in MAY_RUN_OUT:
        assert first.status is Status.OK, first.message
    check_placement(scenario, first, complete=first.ok)
    assert (second.status, second.parallelism, second.assignments, second.decisions) == (
        first.status,
        first.parallelism,
        first.assignments,
        first.decisions,
    )

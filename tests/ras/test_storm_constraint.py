"""Storm's TestConstraintSolverStrategy cases, with the values they assert."""

from __future__ import annotations

import itertools

import pytest
from ras_fixtures import gen_supervisors, gen_topology

from core.ras import RasCluster
from core.ras.constraint import ConstraintStrategy, parse_constraints

MAX_TRAVERSAL_DEPTH = 2000
NORMAL_BOLT_PARALLEL = 11
BACKTRACK_BOLT_PARALLEL = 3
PAIRS = [
    ("spout-0", "bolt-0"),
    ("bolt-2", "spout-0"),
    ("bolt-1", "bolt-2"),
    ("bolt-1", "bolt-0"),
    ("bolt-1", "spout-0"),
]
COMPONENTS = {"spout-0", "bolt-0", "bolt-1", "bolt-2", "bolt-3"}


def _conf(colocation: int, consolidated: bool) -> dict:
    """makeTestTopoConf: the constraints in the old (list) or new (map) format."""
    if consolidated:
        spec: dict = {}
        for a, b in PAIRS:
            spec.setdefault(a, {}).setdefault("incompatibleComponents", []).append(b)
        spec.setdefault("spout-0", {})["maxNodeCoLocationCnt"] = str(colocation)
        return {"topology.ras.constraints": spec}
    return {
        "topology.ras.constraints": [list(p) for p in PAIRS],
        "topology.spread.components": ["spout-0"],
    }


def _topology(colocation: int, consolidated: bool, bolts: int, state_search=MAX_TRAVERSAL_DEPTH):
    """makeTopology: 1 spout x 4, 4 bolts x ``bolts``, 10 %, 100 MB, heap 100,000 MB."""
    inc, most = parse_constraints(_conf(colocation, consolidated), COMPONENTS)
    topo = gen_topology("testTopo", 1, 4, 4, bolts, 10.0, 100.0, 0.0, 100_000.0, priority=1)
    topo.incompatible, topo.max_node_colocation = inc, most
    topo.max_state_search = state_search
    return topo


def _cluster() -> RasCluster:
    """makeCluster: genSupervisors(4, 2, 120, 1200)."""
    return RasCluster(
        gen_supervisors(4, 2, 120.0, 1200.0), daemon_max_state_search=MAX_TRAVERSAL_DEPTH
    )


def _valid(cluster: RasCluster, topo) -> bool:
    """ConstraintSolverStrategy.validateSolution: co-location, incompatibility, resources."""
    placed = cluster.assignments[topo.name]
    comp = {e: topo.all_components[topo.exec_comp[e]].id for e in placed}
    per_node: dict[tuple[int, str], int] = {}
    per_slot: dict[tuple[int, int], set[str]] = {}
    for e, (node, slot) in placed.items():
        per_node[(node, comp[e])] = per_node.get((node, comp[e]), 0) + 1
        per_slot.setdefault((node, slot), set()).add(comp[e])
    for (_node, c), n in per_node.items():
        if n > topo.max_node_colocation.get(c, n):
            return False
    for comps in per_slot.values():
        for a, b in itertools.permutations(comps, 2):
            if b in topo.incompatible.get(a, ()):
                return False
    return bool((cluster.used_cpu <= cluster.total_cpu + 1e-9).all()) and bool(
        (cluster.used_mem <= cluster.total_mem + 1e-9).all()
    )


def _kill_and_recover(strategy: ConstraintStrategy, bolts: int, colocation: int, consolidated):
    """basicUnitTestWithKillAndRecover: schedule, free every other worker, schedule again."""
    cluster, topo = _cluster(), _topology(colocation, consolidated, bolts)
    res = strategy.schedule(cluster, topo)
    assert res.success, res.message
    assert len(cluster.assignments[topo.name]) == topo.executors == 4 + 4 * bolts
    assert _valid(cluster, topo)
    slots = sorted({where for where in cluster.assignments[topo.name].values()})
    for i, (node, slot) in enumerate(slots):
        if i % 2 == 0:
            cluster.free_slot(node, slot)
    assert len(cluster.assignments[topo.name]) < topo.executors
    res = ConstraintStrategy().schedule(cluster, topo)
    assert res.success, res.message
    assert len(cluster.assignments[topo.name]) == topo.executors
    assert _valid(cluster, topo)


def test_new_constraint_format():
    """testNewConstraintFormat."""
    conf = {
        "topology.ras.constraints": {
            "comp-1": {"maxNodeCoLocationCnt": 2, "incompatibleComponents": ["comp-2", "comp-3"]},
            "comp-2": {"incompatibleComponents": ["comp-4"]},
            "comp-3": {"incompatibleComponents": "comp-5"},
        }
    }
    inc, most = parse_constraints(conf, {"comp-1", "comp-2", "comp-3", "comp-4", "comp-5"})
    assert inc["comp-1"] == {"comp-2", "comp-3"}
    assert inc["comp-2"] == {"comp-1", "comp-4"}
    assert inc["comp-3"] == {"comp-1", "comp-5"}
    assert most == {"comp-1": 2}


def test_missing_config():
    """testMissingConfig: no constraints, or constraints on unknown components, are fine."""
    assert parse_constraints({}, set()) == ({}, {})
    conf = {"topology.ras.constraints": [["comp-1", "comp-2"], ["comp-2", "comp-4"]]}
    assert parse_constraints(conf, {"comp-x"}) == ({"comp-x": frozenset()}, {})
    assert parse_constraints(conf, {"comp-1"}) == ({"comp-1": frozenset()}, {})


@pytest.mark.parametrize("consolidated", [True, False])
def test_constraint_solver(consolidated):
    """testConstraintSolver: 48 executors fill 4 nodes of 120 % / 1,200 MB exactly."""
    _kill_and_recover(ConstraintStrategy(), NORMAL_BOLT_PARALLEL, 1, consolidated)


def test_constraint_solver_with_spread_colocation():
    """testConstraintSolverWithSpreadCoLocation: at most 2 spout-0 per node (new format)."""
    _kill_and_recover(ConstraintStrategy(), NORMAL_BOLT_PARALLEL, 2, True)


class _Reversed(ConstraintStrategy):
    """The executor order reversed, to force backtracking."""

    def order_executors(self, run):
        return super().order_executors(run)[::-1].copy()


def test_constraint_solver_force_backtrack_with_spread_colocation():
    """testConstraintSolverForceBacktrackWithSpreadCoLocation."""
    _kill_and_recover(_Reversed(), BACKTRACK_BOLT_PARALLEL, 2, True)


@pytest.mark.parametrize("consolidated", [True, False])
def test_too_many_state_transitions(consolidated):
    """testTooManyStateTransitions: topology.ras.constraint.max.state.search = 10 fails."""
    topo = _topology(1, consolidated, NORMAL_BOLT_PARALLEL, state_search=10)
    assert not ConstraintStrategy().schedule(_cluster(), topo).success


def test_timeout():
    """testTimeout: topology.ras.constraint.max.time.secs = 1 with a clock 1,001 ms on."""
    ticks = itertools.count(0.0, 1.001)
    topo = _topology(1, True, NORMAL_BOLT_PARALLEL)
    topo.max_time_secs = 1
    res = ConstraintStrategy(clock=lambda: next(ticks)).schedule(_cluster(), topo)
    assert not res.success


def _pairs_conf(pairs, spreads: dict[str, int]) -> dict:
    spec: dict = {}
    for a, b in pairs:
        spec.setdefault(a, {}).setdefault("incompatibleComponents", []).append(b)
    for comp, most in spreads.items():
        spec.setdefault(comp, {})["maxNodeCoLocationCnt"] = most
    return {"topology.ras.constraints": spec}


def test_schedule_large_executor_constraint_count_small():
    """testScheduleLargeExecutorConstraintCountSmall: 600 executors, 30 supervisors."""
    from core.ras import schedule_cluster

    pairs = [
        ("spout-0", "spout-0"),
        ("bolt-1", "bolt-1"),
        ("spout-0", "bolt-0"),
        ("bolt-2", "spout-0"),
        ("bolt-1", "bolt-2"),
        ("bolt-1", "bolt-0"),
        ("bolt-1", "spout-0"),
    ]
    topo = gen_topology("testTopo-1", 10, 10, 30, 30, 10.0, 10.0, 0.0)
    comps = {c.id for c in topo.components}
    topo.incompatible, topo.max_node_colocation = parse_constraints(
        _pairs_conf(pairs, {"spout-0": 1, "bolt-1": 1}), comps
    )
    topo.max_state_search, topo.max_time_secs, topo.timeout_secs = 50_000, 120, 120
    cluster = RasCluster(gen_supervisors(30, 30, 3500.0, 35000.0))
    res = schedule_cluster(cluster, [topo], "ras-constraint")
    assert res.results[topo.name].success
    assert len(cluster.assignments[topo.name]) == 600
    assert _valid(cluster, topo)


def test_integration_with_ras_and_partial_reschedule():
    """testIntegrationWithRAS: 960 executors; keep half the placement, schedule the rest."""
    from core.ras import schedule_cluster
    from core.ras.strategies import TopologyRun

    pairs = [("spout-0", "bolt-0"), ("bolt-1", "bolt-1"), ("bolt-1", "bolt-2")]
    topo = gen_topology("testTopo", 2, 3, 30, 300, 10.0, 100.0, 0.0, 100_000.0, priority=1)
    comps = {c.id for c in topo.components}
    topo.incompatible, topo.max_node_colocation = parse_constraints(
        _pairs_conf(pairs, {"spout-0": 1, "bolt-1": 10}), comps
    )
    topo.max_state_search = MAX_TRAVERSAL_DEPTH
    cluster = RasCluster(gen_supervisors(37, 16, 400.0, 4096.0))
    assert schedule_cluster(cluster, [topo], "ras-constraint").results["testTopo"].success
    assert len(cluster.assignments["testTopo"]) == 960 and _valid(cluster, topo)
    keep = dict(list(sorted(cluster.assignments["testTopo"].items()))[::2])
    cluster.unassign("testTopo")
    run = TopologyRun(cluster, topo)
    for e, (node, slot) in keep.items():
        run.assign(e, node, slot)
    run.record()
    assert len(cluster.assignments["testTopo"]) == 480
    res = schedule_cluster(cluster, [topo], "ras-constraint")
    assert res.results["testTopo"].success
    assert len(cluster.assignments["testTopo"]) == 960 and _valid(cluster, topo)
    assert all(cluster.assignments["testTopo"][e] == where for e, where in keep.items())


def test_zero_executor_scheduling():
    """testZeroExecutorScheduling: scheduling a fully scheduled topology again succeeds."""
    topo = _topology(1, True, 1, state_search=1_000)
    cluster = _cluster()
    assert ConstraintStrategy().schedule(cluster, topo).success
    again = ConstraintStrategy().schedule(cluster, topo)
    assert again.success and again.message.startswith("Fully Scheduled")

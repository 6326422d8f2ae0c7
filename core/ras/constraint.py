"""``ConstraintSolverStrategy`` and its configuration, ported from Storm 2.

``ConstraintSolverConfig``: ``topology.ras.constraints`` as a list of incompatible
pairs (old style) or a map component -> {``incompatibleComponents``: [...],
``maxNodeCoLocationCnt``: n}; ``topology.spread.components`` gives a maximum of 1 per
node where no count is set. ``ConstraintSolverStrategy.isExecAssignmentToWorkerValid``
refuses a worker holding an incompatible component and a node already holding the
maximum of the executor's component; ``isSchedulingFeasible`` fails early when a
component has more executors than nodes x maximum. Executors are ordered by
``ExecSorterByConstraintSeverity``: components by (incompatible count + components //
maximum co-location), descending, then id descending. The search and its limits
(``topology.ras.constraint.max.state.search``, the daemon's
``resource.aware.scheduler.constraint.max.state.search``,
``topology.ras.constraint.max.time.secs``) are the base strategy's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from core.ras.execsort import acker_order, component_executors
from core.ras.model import RasTopology
from core.ras.strategies import BaseStrategy, SchedulingResult, TopologyRun


def parse_constraints(
    conf: Mapping[str, Any], components: set[str]
) -> tuple[dict[str, frozenset[str]], dict[str, int]]:
    """``ConstraintSolverConfig.computeComponentConstraints``: (incompatible, max per node)."""
    incompatible: dict[str, set[str]] = {c: set() for c in components}
    max_node: dict[str, int] = {}
    raw = conf.get("topology.ras.constraints")
    if isinstance(raw, list):
        for pair in raw:
            if isinstance(pair, list) and len(pair) >= 2:
                a, b = pair[0], pair[1]
                if a in components and b in components:
                    incompatible[a].add(b)
                    incompatible[b].add(a)
    elif isinstance(raw, dict):
        for a, spec in raw.items():
            if a not in components or not isinstance(spec, dict):
                continue
            for ctype, value in spec.items():
                if ctype == "maxNodeCoLocationCnt":
                    try:
                        count = int(str(value))
                    except ValueError:
                        continue
                    if count >= 1:
                        max_node[a] = count
                elif ctype == "incompatibleComponents":
                    others = [value] if isinstance(value, str) else value
                    if not isinstance(others, list):
                        continue
                    for b in others:
                        if b in components:
                            incompatible[a].add(b)
                            incompatible[b].add(a)
    spread = conf.get("topology.spread.components")
    if isinstance(spread, list):
        for c in spread:
            if c in components and c not in max_node:
                max_node[c] = 1
    return {k: frozenset(v) for k, v in incompatible.items()}, max_node


def by_constraint_severity(topo: RasTopology, unassigned: set[int] | None = None) -> np.ndarray:
    """``ExecSorterByConstraintSeverity.getSortedExecs`` (ackers moved last after)."""
    ncomp = len(topo.all_components)
    counts: dict[str, int] = {}
    for c in topo.all_components:
        cnt = len(topo.incompatible.get(c.id, ()))
        if c.id in topo.max_node_colocation:
            cnt += ncomp // topo.max_node_colocation[c.id]
        counts[c.id] = cnt
    # value descending, then key descending (sortByValues compares k2 to k1)
    order = sorted(counts, key=lambda c: (-counts[c], _desc(c)))
    out = [e for cid in order for e in component_executors(topo, topo.comp_index[cid])]
    keep = set(range(topo.executors)) if unassigned is None else unassigned
    ackers = [e for e in acker_order(topo) if e in keep]
    rest = [e for e in out if e in keep and e not in set(ackers)]
    return np.array(rest + ackers, dtype=np.int64)


class _Desc(str):
    def __lt__(self, other: str) -> bool:
        return str.__gt__(self, other)


def _desc(text: str) -> _Desc:
    return _Desc(text)


class ConstraintStrategy(BaseStrategy):
    """``ConstraintSolverStrategy``."""

    name = "ras-constraint"
    java_class = "ConstraintSolverStrategy"

    def order_executors(self, run: TopologyRun) -> np.ndarray:
        """``ExecSorterByConstraintSeverity``."""
        return by_constraint_severity(run.topo, run.unassigned)

    def has_extra_checks(self, run: TopologyRun) -> bool:
        """Constraints present."""
        t = run.topo
        return bool(t.max_node_colocation) or any(t.incompatible.values())

    def feasibility(self, run: TopologyRun, execs: int, max_states: int) -> SchedulingResult | None:
        """Base checks, then ``isSchedulingFeasible``."""
        early = super().feasibility(run, execs, max_states)
        if early is not None:
            return early
        nodes = run.cluster.size
        for cid, most in run.topo.max_node_colocation.items():
            comp = run.topo.all_components[run.topo.comp_index[cid]]
            if comp.parallelism > nodes * most:
                return SchedulingResult(False, "Scheduling not feasible!")
        return None

    def node_mask(self, run: TopologyRun, comp: int, seq: np.ndarray) -> np.ndarray | None:
        """Nodes below the component's maximum co-location."""
        counts = run.colocated.get(comp)
        if counts is None:
            return None
        most = run.topo.max_node_colocation[run.topo.all_components[comp].id]
        return counts[seq] < most

    def extra_valid(self, run: TopologyRun, execu: int, node: int, slot: int) -> bool:
        """Incompatible components in the worker; maximum co-location on the node."""
        t = run.topo
        comp = int(t.exec_comp[execu])
        cid = t.all_components[comp].id
        bad = t.incompatible.get(cid)
        if bad:
            here = run.slot_comps.get((node, slot))
            if here and any(t.all_components[c].id in bad for c in here):
                return False
        most = t.max_node_colocation.get(cid)
        return most is None or run.node_comps.get(node, {}).get(comp, 0) < most

"""Storm's executor orderings.

``ExecSorterByConnectionCount.sortExecutors`` (storm-server .../scheduling/sorter/):
components by connection count (sum over neighbours of executors(neighbour) x
executors(component), descending, then id), and for each component one executor of
its own, then one of each neighbour (neighbours by executors(neighbour) x
executors(component) ascending, then id), round after round; system components
(ids starting with ``__``) and anything left come after, ackers last
(``BaseResourceAwareStrategy.isolateAckersToEnd``).
``ExecSorterByProximity.sortExecutors`` (``topology.ras.order.executors.by.proximity.
needs``): components in topological order, and for each executor of a component the
executors its children need next to it, depth first (a shuffle-fed child takes
children // parents executors per parent executor, any other child one).
``ExecSorterByConstraintSeverity`` is in :mod:`core.ras.constraint`.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from core.ras.javaorder import executor_order, hash_order, hash_set_order, java_string_hash
from core.ras.model import RasTopology


def neighbours(topo: RasTopology) -> dict[str, set[str]]:
    """Parents and children of every user component (``Component.getParents/Children``)."""
    user = {c.id for c in topo.components if not c.id.startswith("__")}
    out: dict[str, set[str]] = {c: set() for c in user}
    for c in topo.components:
        if c.id not in user:
            continue
        for parent in c.inputs:
            if parent in user and parent != c.id:
                out[c.id].add(parent)
                out[parent].add(c.id)
            elif parent == c.id:
                out[c.id].add(parent)
    return out


def java_rank(topo: RasTopology) -> np.ndarray:
    """Each executor's position in Storm's iteration of ``executorToComponent``."""
    cached = getattr(topo, "java_rank_cache", None)
    if cached is None:
        cached = np.empty(topo.executors, dtype=np.int64)
        cached[executor_order(topo.executors)] = np.arange(topo.executors)
        topo.java_rank_cache = cached
    return cached


def component_executors(topo: RasTopology, comp: int) -> list[int]:
    """Executor ids of component index ``comp`` in ``Component.getExecs`` order."""
    first = int(topo.comp_first_exec[comp])
    ids = np.arange(first, first + topo.all_components[comp].parallelism)
    return ids[np.argsort(java_rank(topo)[ids], kind="stable")].tolist()


def acker_order(topo: RasTopology) -> list[int]:
    """Acker executors as ``compToExecs.get(__acker)`` (a HashSet) gives them."""
    if topo.acker_comp < 0:
        return []
    return hash_set_order(component_executors(topo, topo.acker_comp))


def by_connection_count(topo: RasTopology, unassigned: set[int] | None = None) -> np.ndarray:
    """Executor ids in ``ExecSorterByConnectionCount`` order, ackers at the end.

    Only ``unassigned`` executors (default: all) are ordered, as the sorter's queues
    hold only those.
    """
    links = neighbours(topo)
    size = {c.id: c.parallelism for c in topo.components}
    queues = {
        cid: deque(
            e
            for e in component_executors(topo, topo.comp_index[cid])
            if unassigned is None or e in unassigned
        )
        for cid in links
    }

    def connections(cid: str) -> int:
        return sum(size[n] * size[cid] for n in links[cid])

    comps = sorted(links, key=lambda cid: (-connections(cid), cid))
    ordered: list[int] = []
    seen: set[int] = set()
    for cid in comps:
        nbrs = sorted(links[cid], key=lambda n: (size[n] * size[cid], n))
        while True:
            moved = False
            if queues[cid]:
                e = queues[cid].popleft()
                if e not in seen:
                    seen.add(e)
                    ordered.append(e)
                moved = True
            for n in nbrs:
                if queues[n]:
                    e = queues[n].popleft()
                    if e not in seen:
                        seen.add(e)
                        ordered.append(e)
                    moved = True
            if not moved:
                break
    ackers = [e for e in acker_order(topo) if unassigned is None or e in unassigned]
    skip = seen | set(ackers)
    others = [
        e
        for e in range(topo.executors)
        if e not in skip and (unassigned is None or e in unassigned)
    ]
    return np.array(ordered + others + ackers, dtype=np.int64)


def _java_key_order(names: list[str]) -> list[str]:
    """Iteration order of a default ``HashMap``/``HashSet`` of these strings."""
    return [names[i] for i in hash_order([java_string_hash(n) for n in names])]


def by_proximity(topo: RasTopology, unassigned: set[int] | None = None) -> np.ndarray:
    """Executor ids in ``ExecSorterByProximity`` order, ackers at the end."""
    user = [c for c in topo.components if not c.id.startswith("__")]
    by_id = {c.id: c for c in user}
    children: dict[str, list[str]] = {c.id: [] for c in user}
    for c in user:  # Component.addChild in TopologyDetails.computeComponentMap order
        for parent in c.inputs:
            if parent in children and c.id not in children[parent]:
                children[parent].append(c.id)
    children = {k: _java_key_order(v) for k, v in children.items()}  # HashSet<String>
    queues = {
        c.id: deque(
            e
            for e in component_executors(topo, topo.comp_index[c.id])
            if unassigned is None or e in unassigned
        )
        for c in user
    }

    def shuffle(parent: str, child: str) -> bool:
        return parent in by_id[child].shuffle_inputs

    def sorted_children(comp: str) -> list[str]:
        # getSortedChildren's TreeSet: each non-shuffle child goes before all others,
        # shuffle children by id after them
        plain = [c for c in children[comp] if not shuffle(comp, c)]
        return plain[::-1] + sorted(c for c in children[comp] if shuffle(comp, c))

    def take(comp: str) -> list[int]:
        queue = queues[comp]
        waiting = len(queue)
        if waiting == 0:
            return []
        out = [queue.popleft()]
        for child in sorted_children(comp):
            left = len(queues[child])
            if left == 0:
                continue
            count = max(1, left // waiting) if shuffle(comp, child) else 1
            for _ in range(count):
                out += take(child)
        return out

    ids = _java_key_order([c.id for c in user])  # componentMap.keySet()
    indegree = {cid: 0 for cid in ids}
    for cid in ids:
        for child in children[cid]:
            indegree[child] += 1
    order: list[str] = []
    for _ in ids:
        for cid in ids:
            if indegree[cid] == 0 and cid not in order:
                order.append(cid)
                for child in children[cid]:
                    indegree[child] -= 1
                break
    order += [cid for cid in ids if cid not in order]  # components on a cycle
    ordered: list[int] = []
    seen: set[int] = set()
    for cid in order:
        for _ in range(len(queues[cid])):
            for e in take(cid):
                if e not in seen:
                    seen.add(e)
                    ordered.append(e)
    ackers = [e for e in acker_order(topo) if unassigned is None or e in unassigned]
    skip = seen | set(ackers)
    others = [
        e
        for e in range(topo.executors)
        if e not in skip and (unassigned is None or e in unassigned)
    ]
    return np.array(ordered + others + ackers, dtype=np.int64)

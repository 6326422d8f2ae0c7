"""Storm's node sorting: racks, then hosts, then nodes, by subordinate resource availability.

Ported from ``NodeSorterHostProximity`` (storm-server .../scheduling/sorter/): racks are
sorted once per sort (``getSortedRacks``), the hosts of a rack when the iteration first
reaches it (``LazyNodeSorting.getSortedHostsForRack``) and the nodes of a host likewise
(``getSortedNodesForHost``); favoured nodes come first, unfavoured ones last
(``LazyNodeSortingIterator``). Each level uses ``sortObjectResourcesCommon``:
executors of the topology already on the object (descending), then the average
percentage of the level's free resources the object holds (descending; generic
resources the executor does not request count negatively,
``updateForRareResourceAffinity``), then the minimum such percentage (descending),
then the id.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def resource_percentages(
    cpu: np.ndarray, mem: np.ndarray, gen: np.ndarray, req_gen: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Average and minimum % of the level's free resources each object holds.

    ``NormalizedResourceOffer.calculateAveragePercentageUsedBy`` and
    ``calculateMinPercentageUsedBy`` with the level's sum as the total; resources whose
    total is 0 are skipped. Returns (avg %, min %), one entry per object.
    """
    mem_t, cpu_t = float(mem.sum()), float(cpu.sum())
    gen_t = gen.sum(axis=0) if gen.shape[1] else np.zeros(0)
    if req_gen is not None and gen.shape[1]:
        gen = np.where((req_gen[None, :] == 0.0) & (gen > 0.0), -gen, gen)
    total = np.zeros(cpu.shape[0])
    low = np.ones(cpu.shape[0])
    skipped = 0
    if mem_t != 0.0:
        total = total + mem / mem_t
        low = np.minimum(low, mem / mem_t)
    else:
        skipped += 1
    if cpu_t != 0.0:
        total = total + cpu / cpu_t
        low = np.minimum(low, cpu / cpu_t)
    else:
        skipped += 1
    for i in range(gen.shape[1]):
        if gen_t[i] == 0.0:
            skipped += 1
            continue
        total = total + gen[:, i] / gen_t[i]
        low = np.minimum(low, gen[:, i] / gen_t[i])
    divisor = 2 + gen.shape[1] - skipped
    avg = np.full(cpu.shape[0], 100.0) if divisor == 0 else total * 100.0 / divisor
    return avg, low * 100.0


SORT_TYPES = ("common", "default", "generic")  # BaseResourceAwareStrategy.NodeSortType


def sort_objects(
    counts: np.ndarray,
    cpu: np.ndarray,
    mem: np.ndarray,
    gen: np.ndarray,
    id_rank: np.ndarray,
    req_gen: np.ndarray | None,
    sort_type: str = "common",
) -> np.ndarray:
    """Order of objects (indices into the inputs) under one of Storm's three sorts.

    ``common`` (``sortObjectResourcesCommon``, used by every strategy): existing
    executors, average %, minimum %, id, with rare-resource affinity. ``default``
    (deprecated ``sortObjectResourcesDefault``): existing executors, minimum %, average
    %, id, no affinity. ``generic`` (deprecated ``sortObjectResourcesGeneric``):
    existing executors, average %, id, with affinity.
    """
    if sort_type == "default":
        avg, low = resource_percentages(cpu, mem, gen, None)
        return np.lexsort((id_rank, -avg, -low, -counts))
    avg, low = resource_percentages(cpu, mem, gen, req_gen)
    if sort_type == "generic":
        return np.lexsort((id_rank, -avg, -counts))
    return np.lexsort((id_rank, -low, -avg, -counts))


class LazyNodeSorting:
    """One sort of all nodes for one executor (``NodeSorterHostProximity.sortAllNodes``).

    Parameters
    ----------
    run : TopologyRun (core.ras.strategies)
        The topology being scheduled (cluster state, executors already placed).
    req_gen
        Generic resources the executor requests (None: no executor, no affinity).
    """

    def __init__(self, run: Any, req_gen: np.ndarray | None, sort_type: str = "common"):
        self.run = run
        cl = run.cluster
        self.req_gen = req_gen
        self.sort_type = sort_type
        self.node_counts = run.node_exec_count.copy()
        self.host_counts = run.host_exec_count.copy()
        rack_counts = run.rack_exec_count
        r_cpu, r_mem, r_gen = cl.rack_free()
        present = run.rack_present
        racks = np.flatnonzero(present)
        order = sort_objects(
            rack_counts[racks],
            r_cpu[racks],
            r_mem[racks],
            r_gen[racks],
            run.rack_rank[racks],
            req_gen,
            sort_type,
        )
        self.racks = racks[order]
        self._rack_seq: dict[int, np.ndarray] = {}
        self.sorted_hosts: dict[int, np.ndarray] = {}  # rack -> host indices, once visited

    def rack_sequence(self, rack: int) -> np.ndarray:
        """Nodes of ``rack`` in sorted order (hosts sorted, then nodes per host), skips out."""
        seq = self._rack_seq.get(rack)
        if seq is not None:
            return seq
        run, cl = self.run, self.run.cluster
        hosts = run.rack_hosts[rack]
        if run.single_node_hosts:
            nodes = run.host_first_node[hosts]
            order = sort_objects(
                self.host_counts[hosts],
                np.maximum(cl.total_cpu[nodes] - cl.used_cpu[nodes], 0.0),
                np.maximum(cl.total_mem[nodes] - cl.used_mem[nodes], 0.0),
                np.maximum(cl.total_gen[nodes] - cl.used_gen[nodes], 0.0),
                run.host_rank[hosts],
                self.req_gen,
                self.sort_type,
            )
            seq = nodes[order]
            self.sorted_hosts[rack] = hosts[order]
        else:
            cpu, mem, gen = cl.avail_cpu(), cl.avail_mem(), cl.avail_gen()
            h_cpu = np.array([cpu[run.host_nodes[h]].sum() for h in hosts])
            h_mem = np.array([mem[run.host_nodes[h]].sum() for h in hosts])
            h_gen = np.array([gen[run.host_nodes[h]].sum(axis=0) for h in hosts]).reshape(
                len(hosts), gen.shape[1]
            )
            order = sort_objects(
                self.host_counts[hosts],
                h_cpu,
                h_mem,
                h_gen,
                run.host_rank[hosts],
                self.req_gen,
                self.sort_type,
            )
            parts = []
            self.sorted_hosts[rack] = hosts[order]
            for h in hosts[order]:
                nodes = run.host_nodes[h]
                o = sort_objects(
                    self.node_counts[nodes],
                    cpu[nodes],
                    mem[nodes],
                    gen[nodes],
                    run.node_rank[nodes],
                    self.req_gen,
                    self.sort_type,
                )
                parts.append(nodes[o])
            seq = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        if run.skip_mask is not None:
            seq = seq[~run.skip_mask[seq]]
        self._rack_seq[rack] = seq
        return seq

    def segments(self):
        """Node sequences in iteration order: favoured, each rack in order, unfavoured."""
        run = self.run
        if run.favored.size:
            yield run.favored
        for rack in self.racks:
            yield self.rack_sequence(int(rack))
        if run.unfavored.size:
            yield run.unfavored

    def all_nodes(self) -> np.ndarray:
        """Every node in sorted order (materialises every rack)."""
        parts = list(self.segments())
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

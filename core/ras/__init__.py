"""Storm 2's resource-aware scheduling (RAS), ported from Apache Storm's Java source.

See :mod:`core.ras.model` (supervisors, topologies, Storm's resource accounting),
:mod:`core.ras.strategies` (the search), :mod:`core.ras.sorter` (node sorting),
:mod:`core.ras.execsort` and :mod:`core.ras.constraint` (executor orders and the
constraint solver), :mod:`core.ras.schedule` (Storm's ResourceAwareScheduler: a
topology set in priority order with eviction, and a report in words for each topology
that does not fit) and :mod:`core.ras.corpus` (Storm's large-cluster test bed).

Example::

    from core.ras import schedule_cluster
    from core.ras.corpus import corpus_topologies, large_cluster

    cluster = large_cluster("largeCluster02")
    result = schedule_cluster(cluster, corpus_topologies("largeCluster02"), "ras-default")
    result.scheduled, result.reports, cluster.assignments
"""

from core.ras.model import RasCluster, RasComponent, RasTopology, Request, Supervisor
from core.ras.schedule import (
    STRATEGIES,
    ClusterSchedule,
    get_strategy,
    node_free_table,
    schedule_cluster,
    schedule_rounds,
)

__all__ = [
    "STRATEGIES",
    "ClusterSchedule",
    "RasCluster",
    "RasComponent",
    "RasTopology",
    "Request",
    "Supervisor",
    "get_strategy",
    "node_free_table",
    "schedule_cluster",
    "schedule_rounds",
]

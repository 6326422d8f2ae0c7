"""Apache Storm's production corpus as topology-set scenarios (``storm-large-cluster-0N``).

Storm ships 135 anonymised production topologies (40, 45 and 50 in its test
resources' largeCluster01..03) and models the clusters they ran on in
``TestLargeCluster.java`` (1,312 supervisors in 16 racks, 1,922 in 21, 80 in 2).
slotscope ships both in a compact form (core/presets/data/storm_large_clusters.json.gz,
Apache License 2.0, NOTICE-apache-storm.txt beside it; read by :mod:`core.ras.corpus`).
Each preset here is one cluster with every topology of its corpus folder: the
supervisors as ``TestLargeCluster.createSupervisors`` builds them
(:func:`core.ras.corpus.scenario_nodes`), each topology as ``slotscope import`` reads
Nimbus's files (:func:`core.importers.stormser.to_scenario_topology`: components
without a parallelism hint run once, as Nimbus runs them; acker executors as the
conf declares; its ``topology.scheduler.strategy`` as ``scheduler_params.ras.strategy``,
which the ras-* schedulers honour as Nimbus and TestLargeCluster do). Built lazily, from
the shipped data only (no network).

What the corpus does not carry is given stated defaults (:data:`STATED_DEFAULTS`):
the scenario format's offered rate, per-tuple CPU, selectivity and tuple size, and
a 3 GHz clock. Figures that depend on them (throughput, latency, R*) are the
defaults' figures, not the production clusters'.
"""

from __future__ import annotations

from typing import Any

from core.importers.stormser import to_scenario_topology
from core.model import Component, Workload
from core.ras.corpus import CLUSTER_NAMES, SCENARIO_GHZ, corpus_stormser, scenario_nodes
from core.schedulers.storm_ras import JAVA_IDS, OWN_KEY, STRATEGY_PARAM

PRESET_NAMES = {
    "storm-large-cluster-01": "largeCluster01",
    "storm-large-cluster-02": "largeCluster02",
    "storm-large-cluster-03": "largeCluster03",
}
assert set(PRESET_NAMES.values()) == set(CLUSTER_NAMES)
_component = Component.model_fields
STATED_DEFAULTS = (
    f"offered rate {Workload.model_fields['rate'].default:g} tuples/s per spout, "
    f"{_component['cpu_us'].default:g} us CPU per tuple, selectivity "
    f"{_component['selectivity'].default:g}, {_component['tuple_bytes'].default} B tuples "
    f"(the scenario format's defaults) and a {SCENARIO_GHZ:g} GHz clock: Storm's corpus "
    "gives none of them"
)
SIZES = {  # topologies, supervisors, racks (TestLargeCluster)
    "largeCluster01": (40, 1312, 16),
    "largeCluster02": (45, 1922, 21),
    "largeCluster03": (50, 80, 2),
}


def own_strategy(conf: dict[str, Any]) -> str:
    """The ras-* id of a topology conf's ``topology.scheduler.strategy`` (Storm 0.10's
    ``backtype.storm`` package or 2's; Storm's default when absent or not a ras-* one)."""
    name = str(conf.get("topology.scheduler.strategy") or "").rsplit(".", 1)[-1]
    return JAVA_IDS.get(name, "ras-default")


def large_cluster_scenario(cluster: str) -> dict[str, Any]:
    """One corpus cluster as a topology-set scenario dict."""
    topologies = []
    for topo in corpus_stormser(cluster):
        doc, _notes = to_scenario_topology(topo)
        if doc["components"]:
            own = doc.get("scheduler_params", {}).get(OWN_KEY, {})  # and the solver's settings
            doc["scheduler_params"] = {OWN_KEY: {**own, STRATEGY_PARAM: own_strategy(topo.conf)}}
            topologies.append(doc)
    return {
        "name": f"storm-{cluster}",
        "topologies": topologies,
        "cluster": {"nodes": scenario_nodes(cluster)},
    }


def _description(preset_name: str, cluster: str) -> str:
    topologies, supervisors, racks = SIZES[cluster]
    return (
        f"Apache Storm's production corpus {cluster}: {topologies} anonymised topologies on "
        f"TestLargeCluster's {supervisors:,} supervisors in {racks} racks (Apache License "
        f"2.0). Stated defaults, not in the corpus: {STATED_DEFAULTS}."
    )


def presets() -> dict[str, tuple[str, Any]]:
    """name -> (description, scenario builder), built when asked."""
    return {
        name: (_description(name, cluster), lambda cluster=cluster: large_cluster_scenario(cluster))
        for name, cluster in PRESET_NAMES.items()
    }

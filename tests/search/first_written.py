"""Scenarios on the hardware and Storm their hand-computed figures were written for.

The search tests check CP-SAT's bounds and the local search against figures worked out by
hand for "8 nodes of 6 cores, 25 us a tuple": every core a full core, the clock alone
setting the speed, Storm 1.x's uniform shuffle (which CP-SAT models exactly). The presets
now name their CPUs (hardware threads at their yield, work per clock; core/cpus.py) and
their Storm release; these tests take the hardware and shuffle out again, so their figures
still test the search, not the CPU table.
"""

from core.model import Cluster, Scenario, with_changes


def first_written(scenario: Scenario) -> Scenario:
    """``scenario`` with physical cores only, clock-only speed and Storm 1.x's shuffle."""
    nodes = [
        n.model_copy(
            update={"cpu_model": None, "threads": None, "per_clock": None, "all_core_ghz": None}
        )
        for n in scenario.cluster.nodes
    ]
    return with_changes(scenario, cluster=Cluster(nodes=nodes), storm_version=None)


def without_ackers(scenario: Scenario) -> Scenario:
    """``scenario`` without Storm's ackers: the L/F presets run one per worker, as Storm
    1.2.3 does (docs/schedulers.md, "lf"); these figures were worked out for the topology
    alone."""
    return with_changes(scenario, topology=scenario.topology.model_copy(update={"ackers": 0}))

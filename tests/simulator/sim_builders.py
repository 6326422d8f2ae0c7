"""Builders for the simulator tests: small scenarios and hand-made placements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.model import Scenario, validate_scenario
from core.schedulers.base import Schedule, Status, assignment
from core.topology import build_graph

# A node whose cores run at the reference speed (3.0 GHz x 16 FLOPs/cycle).
# Storm with no thread sleeping when idle (no transfer-thread or spout wake-up
# waits), for hand-computed hop latencies.
NO_IDLE_SLEEP = {"transfer_sleep_ms": 0.0, "spout_sleep_ms": 0.0}
REFERENCE_NODE = {"cores": 4, "ghz": 3.0, "flops_per_cycle": 16, "slots": 2}


def make(
    components: list[dict[str, Any]],
    streams: list[tuple] = (),
    nodes: list[dict[str, Any]] | None = None,
    rate: float = 1000.0,
    **extra: Any,
) -> Scenario:
    """A scenario from component dicts, (from, to[, grouping[, extra]]) streams, node dicts."""
    nodes = nodes or [{"id": "n1"}]
    data = {
        "name": "test",
        "topology": {
            "components": components,
            "streams": [
                {
                    "from": s[0],
                    "to": s[1],
                    "grouping": s[2] if len(s) > 2 else "shuffle",
                    **(s[3] if len(s) > 3 else {}),
                }
                for s in streams
            ],
            **extra.pop("topology", {}),
        },
        "cluster": {"nodes": [{**REFERENCE_NODE, **n} for n in nodes]},
        "workload": {"rate": rate, **extra.pop("workload", {})},
        **extra,
    }
    return validate_scenario(data)


def acked_pair(
    placement: Mapping[str, tuple[str, int]],
    network: Mapping[str, Any] | None = None,
    reliable: bool = True,
    rate: float = 100.0,
    spouts: int = 2,
) -> tuple[Scenario, Schedule]:
    """s (1 us, ``spouts`` executors) -> b (1 us), one acker, nodes n0 and n1, placed by hand."""
    comps = [
        {"id": "s", "parallelism": spouts, "cpu_us": 1.0},
        {"id": "b", "parallelism": 1, "cpu_us": 1.0, "selectivity": 0.0},
    ]
    sc = make(
        comps,
        [("s", "b")],
        [{"id": "n0"}, {"id": "n1"}],
        rate=rate,
        topology={"ackers": 1, "reliable_spouts": reliable},
        network=dict(network or {}),
    )
    return sc, manual(sc, placement)


def manual(
    scenario: Scenario,
    placement: Mapping[str, tuple[str, int]],
    parallelism: Mapping[str, int] | None = None,
) -> Schedule:
    """A Schedule placing executors by hand (scheduler id 'manual')."""
    par = dict(build_graph(scenario, parallelism).parallelism)
    return Schedule(
        scheduler="manual",
        status=Status.OK,
        params={},
        parallelism=par,
        assignments=tuple(assignment(e, n, s) for e, (n, s) in placement.items()),
        decisions=(),
        elapsed_ms=0.25,
    )


def wordcount_data(ackers: int = 0, skew: float = 0.0) -> dict[str, Any]:
    """The brief's WordCount-sized case: spout x5 -> split x8 -> count x12 on 5 nodes."""
    hardware = [(8, 3.4, 16), (4, 3.4, 16), (2, 3.4, 16), (4, 3.2, 16), (4, 2.53, 4)]
    return {
        "name": "wordcount-sized",
        "topology": {
            "workers": 5,
            "ackers": ackers,
            "components": [
                {"id": "spout", "parallelism": 5, "cpu_us": 5.0},
                {"id": "split", "parallelism": 8, "cpu_us": 8.0, "selectivity": 10.0},
                {"id": "count", "parallelism": 12, "cpu_us": 0.6, "selectivity": 0.0},
            ],
            "streams": [
                {"from": "spout", "to": "split"},
                {"from": "split", "to": "count", "grouping": "fields", "key_skew": skew},
            ],
        },
        "cluster": {
            "nodes": [
                {"id": f"n{i + 1}", "cores": c, "ghz": g, "flops_per_cycle": f, "slots": 4}
                for i, (c, g, f) in enumerate(hardware)
            ]
        },
        "workload": {"rate": 20000},
    }

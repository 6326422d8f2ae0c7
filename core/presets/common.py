"""Builders shared by the preset modules: components, streams, nodes, scenarios.

Sources cited across the preset modules
---------------------------------------
[starter] apache/storm ``examples/storm-starter``: WordCountTopology (its
    split is a multilang ShellBolt running ``splitsentence.py``),
    RandomSentenceSpout, ExclamationTopology, TestWordSpout.
[bench] intel-hadoop/storm-benchmark (read in its fork manuzhang/storm-benchmark):
    RollingCount, UniqueVisitor, PageViewCount, their bolts and
    PageViewGenerator.
[flops] Double-precision FLOPs per cycle per core (the StackOverflow answer
    "FLOPS per cycle for Sandy Bridge and Haswell", question 15655835, from
    Intel's and Agner Fog's instruction tables): Core 2 / Nehalem 4, Sandy/Ivy
    Bridge 8 (AVX), Haswell and Skylake 16 (two 4-wide FMAs).
[costs] Per-tuple CPU on the reference core (3.0 GHz) is ours wherever a paper
    gives none: Storm's executor path (queue hand-off, execute(), anchored
    emit, ack) costs a few microseconds per tuple on a current core, plus the
    bolt's own work, sized by what the code does (noted per component).
[storm0] Apache Storm 0.9.5 ``daemon/worker.clj`` (``transfer-thread``) and
    ``disruptor.clj`` (``consume-loop*``, over ``topology.disruptor.wait.strategy``
    ``BlockingWaitStrategy``): the worker transfer thread blocks on its queue,
    where Storm 2.x's sleeps 1 ms when idle (:mod:`core.simulator.polling`).
"""

from __future__ import annotations

from typing import Any

# Storm's task message header + Kryo tuple header (task ids, anchors), bytes.
# Not given by any of the papers: our estimate, added to every payload.
FRAMING_BYTES = 30

# Network settings of a Storm 0.x preset: hops do not wait for a transfer thread [storm0].
STORM_0_X = {"transfer_sleep_ms": 0.0}


def comp(cid: str, parallelism: int, cpu_us: float, selectivity: float, payload: int, **kw):
    """A component; ``payload`` is the emitted values' size in bytes, framing is added."""
    costs = {"cpu_us": cpu_us, "selectivity": selectivity, "tuple_bytes": payload + FRAMING_BYTES}
    return {"id": cid, "parallelism": parallelism, **costs, **kw}


def stream(source: str, target: str, grouping: str = "shuffle", **kw) -> dict[str, Any]:
    return {"from": source, "to": target, "grouping": grouping, **kw}


def node(nid: str, hw: dict[str, Any], slots: int, **kw) -> dict[str, Any]:
    return {"id": nid, **hw, "slots": slots, **kw}


def scenario(name: str, topology: dict, nodes: list, rate: float, **extra) -> dict[str, Any]:
    """Scenario JSON without its description (the registry adds the one it lists)."""
    workload = extra.pop("workload", {})
    return {
        "name": name,
        "topology": {"name": name, **topology},
        "cluster": {"nodes": nodes},
        "workload": {"rate": rate, **workload},
        **extra,
    }

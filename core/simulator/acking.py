"""The acker's message back to the spout, in the analytic latency estimate.

Storm measures a tree's complete latency at its spout executor: when the
tree's last ack has reached its acker, the acker sends the spout task an
``__ack_ack`` tuple, and the spout's executor takes the latency when that
arrives [1]_. So the critical path of an acked topology ends one hop after
the acker: acker -> the tree's spout executor. An ack reaches any acker
executor with equal chance (acks are fields-grouped on the tree's id) and a
tree starts at a spout executor with its share of the spout tuples, so the
hop's mean delay mixes the locality classes of every (acker, spout executor)
pair with those weights, plus the flush-timer waits when the queues batch
(:func:`core.simulator.batching.mean_hop_waits_s`), and half a sleep of the
spout executor, which takes the message at its next wake-up
(:mod:`core.simulator.polling`). The trace draws each tree's own hop
(:func:`core.simulator.trace.walk`). Not charged: the CPU of
these messages (one per tree, against one ack per tuple) and the spout's
time on them.

References
----------
.. [1] Apache Storm 2.0.0, ``storm-client/src/jvm/org/apache/storm/daemon/Acker.java``
   (``ACKER_ACK_STREAM_ID`` emitted direct to the spout task) and
   ``executor/spout/SpoutExecutor.java`` (``ackSpoutMsg``: the complete latency).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.hardware import NodeArrays
from core.model import ACKER_ID
from core.simulator.batching import mean_hop_waits_s
from core.simulator.costs import BITS_PER_BYTE, HopDelays
from core.simulator.placed_rates import row_bincount, row_take
from core.simulator.rates import StreamTable
from core.topology import TopologyGraph


@dataclass(frozen=True, eq=False)
class AckHop:
    """Who sends the acker's message, who receives it, and with what weight."""

    component: int  # the acker's index in the topological order
    ackers: np.ndarray  # (A,) global executor indices
    spouts: np.ndarray  # (S,) spout executors, every spout component's
    weight: np.ndarray  # (S,) share of the trees that start at each
    tuple_bytes: float


def ack_hop(graph: TopologyGraph, table: StreamTable) -> AckHop | None:
    """The acker -> spout hop of a topology; None without ackers or acks to them."""
    if ACKER_ID not in graph.components or not graph.reliable_spouts:
        return None
    order = graph.order
    spouts = [order.index(cid) for cid in graph.spouts]
    start = table.comp_start
    executors, weight = [], []
    for c in spouts:
        p = int(start[c + 1] - start[c])
        executors.append(np.arange(start[c], start[c + 1]))
        weight.append(np.full(p, 1.0 / (p * len(spouts))))  # equal rates per spout component
    a = order.index(ACKER_ID)
    return AckHop(
        component=a,
        ackers=np.arange(start[a], start[a + 1]),
        spouts=np.concatenate(executors),
        weight=np.concatenate(weight),
        tuple_bytes=float(graph.components[ACKER_ID].tuple_bytes),
    )


def ack_return_s(
    hop: AckHop,
    nodes: NodeArrays,
    delays: HopDelays,
    slot_of: np.ndarray,
    node_of: np.ndarray,
    acker_sojourn: np.ndarray,
) -> np.ndarray:
    """Mean delay of the acker's message to the spout, s, for each row of placements.

    ``slot_of`` and ``node_of`` are (B, E); ``acker_sojourn`` (B,) the ackers'
    mean sojourn (what the flush timer's first wait depends on).
    """
    n_g, n_n = nodes.slots, len(nodes.ids)
    ackers_slot, ackers_node = slot_of[:, hop.ackers], node_of[:, hop.ackers]
    spouts_node = node_of[:, hop.spouts]
    same_worker = row_take(row_bincount(slot_of[:, hop.spouts], hop.weight, n_g), ackers_slot)
    same_node = row_take(row_bincount(spouts_node, hop.weight, n_n), ackers_node)
    if delays.racks > 1:
        rack = nodes.rack
        spread = row_bincount(rack[spouts_node], hop.weight, delays.racks)
        same_rack = row_take(spread, rack[ackers_node])
    else:
        same_rack = same_node
    lat = delays.class_s
    wire = hop.tuple_bytes * BITS_PER_BYTE / nodes.nic_bits_per_s[ackers_node]
    delay = (
        same_worker * lat[0]
        + (same_node - same_worker) * lat[1]
        + (same_rack - same_node) * lat[2]
        + (1.0 - same_rack) * lat[3]
        + (1.0 - same_node) * wire
    )
    if delays.flush_s > 0:
        delay = delay + mean_hop_waits_s(
            delays.flush_s, acker_sojourn[:, None], False, 1.0 - same_worker
        )
    return delay.mean(axis=1) + delays.spout_wait_s

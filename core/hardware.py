"""Node hardware: processing speed, computation power and their ranks.

TOP-Storm's Eq. 1-2 (Muhammad, Aleem, Islam, Cluster Computing 2020):
``speed = sockets x cores x ghz x flops_per_cycle`` (GFLOP/s) and
``power = alpha x speed + (1 - alpha) x ram_gb``.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.model import Node, Profiling

DEFAULT_ALPHA = 0.8  # TOP-Storm's weight of CPU against memory


def processing_speed(node: Node) -> float:
    """Peak GFLOP/s of the node (TOP-Storm Eq. 1)."""
    return node.sockets * node.cores * node.ghz * node.flops_per_cycle


def computation_power(node: Node, alpha: float = DEFAULT_ALPHA) -> float:
    """TOP-Storm Eq. 2: alpha x processing speed + (1 - alpha) x RAM in GB."""
    return alpha * processing_speed(node) + (1 - alpha) * node.ram_gb


def power_ranks(nodes: Sequence[Node], alpha: float = DEFAULT_ALPHA) -> dict[str, int]:
    """Rank 1 = most powerful; equal powers share a rank (competition ranking)."""
    powers = {n.id: round(computation_power(n, alpha), 9) for n in nodes}
    ordered = sorted(set(powers.values()), reverse=True)
    ranks, rank = {}, 1
    for p in ordered:
        same = [nid for nid, q in powers.items() if q == p]
        for nid in same:
            ranks[nid] = rank
        rank += len(same)
    return ranks


def core_speed(node: Node, profiling: Profiling) -> float:
    """Speed of one core relative to the reference core on which cpu_us is measured."""
    return (node.ghz * node.flops_per_cycle) / (
        profiling.reference_ghz * profiling.reference_flops_per_cycle
    )


def total_cores(node: Node) -> int:
    return node.sockets * node.cores

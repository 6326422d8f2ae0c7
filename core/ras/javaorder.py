"""Java's hash orders, where Storm's results depend on them.

Storm iterates ``HashMap``/``HashSet`` in places that decide an outcome: the rack
numbers of ``TestLargeCluster.createSupervisors`` (racks are numbered in the
iteration order of a ``HashMap<String, ...>``) and the order in which
``RasNode.getSlotsAvailableToScheduleOn`` offers a node's slots (a ``HashSet`` of
``WorkerSlot``, whose ``hashCode`` is ``nodeId.hashCode() + 13 * port``). These
helpers reproduce that order: a key goes to bucket ``spread(hash) & (capacity - 1)``
(``HashMap.hash``: ``h ^ (h >>> 16)``), the table doubles from 16 when its size passes
0.75 x capacity, and keys of one bucket keep their insertion order.
"""

from __future__ import annotations

from collections.abc import Sequence

INT_MASK = 0xFFFFFFFF
DEFAULT_CAPACITY = 16  # java.util.HashMap DEFAULT_INITIAL_CAPACITY
LOAD_FACTOR = 0.75  # java.util.HashMap DEFAULT_LOAD_FACTOR


def java_string_hash(text: str) -> int:
    """``String.hashCode`` (s[0]*31^(n-1) + ... + s[n-1], 32-bit), as an unsigned int."""
    h = 0
    for ch in text.encode("utf-16-be").decode("utf-16-be"):
        h = (31 * h + ord(ch)) & INT_MASK
    return h


def table_capacity(size: int) -> int:
    """Capacity of a default ``HashMap`` after ``size`` puts."""
    capacity = DEFAULT_CAPACITY
    while size > capacity * LOAD_FACTOR:
        capacity *= 2
    return capacity


def hash_order(hashes: Sequence[int]) -> list[int]:
    """Iteration order (indices) of keys inserted in the given order with these hashes."""
    capacity = table_capacity(len(hashes))
    buckets = [((h ^ (h >> 16)) & (capacity - 1)) for h in (x & INT_MASK for x in hashes)]
    return sorted(range(len(hashes)), key=lambda i: (buckets[i], i))


def worker_slot_order(node_id: str, ports: Sequence[int]) -> list[int]:
    """Indices of ``ports`` in the order a ``HashSet<WorkerSlot>`` of the node gives them."""
    base = java_string_hash(node_id)
    return hash_order([(base + 13 * int(p)) & INT_MASK for p in ports])


def table_size_for(cap: int) -> int:
    """``HashMap.tableSizeFor``: the power of two at or above ``cap`` (at least 1)."""
    n = 1
    while n < cap:
        n *= 2
    return n


def _bucket(h: int, capacity: int) -> int:
    h &= INT_MASK
    return (h ^ (h >> 16)) & (capacity - 1)


def executor_order(n: int) -> list[int]:
    """Iteration order of ``TopologyDetails.executorToComponent`` for executors 0..n-1.

    ``genExecsAndComps`` fills a default ``HashMap`` in id order (``ExecutorDetails``
    hash: start + 13 x end = 14 x id), and ``TopologyDetails`` copies it with
    ``putAll`` into ``new HashMap<>(0)``, whose table is ``tableSizeFor(n / 0.75 + 1)``.
    """
    if n == 0:
        return []
    first = hash_order([14 * i for i in range(n)])
    capacity = table_size_for(int(n / LOAD_FACTOR + 1.0))
    pos = {e: k for k, e in enumerate(first)}
    return sorted(range(n), key=lambda e: (_bucket(14 * e, capacity), pos[e]))


def hash_set_order(items: list[int]) -> list[int]:
    """Order of executor ids added, in this order, to a default ``HashSet<ExecutorDetails>``."""
    order = hash_order([14 * e for e in items])
    return [items[i] for i in order]

"""Storm 1.x queue batching: the flush timer's wait on every hop.

In Storm 1.x (``DisruptorQueue``, 1.0 to 1.2.3) every queue a tuple passes
is batched per producer thread: a batch is published when it holds
``topology.disruptor.batch.size`` tuples (100) or when the worker's flush
timer fires, every ``topology.disruptor.batch.timeout.millis`` (1 ms) [1]_.
One ``java.util.Timer`` per worker JVM drives the flushers of all its
queues (``FlusherPool``), so a worker's queues flush together, on ticks
``phase + k x period``. A tuple from executor A to executor B passes [2]_:

- A's send queue (``executor-send-queue``), flushed at the next tick of
  A's worker after A emits;
- then, inside one worker, B's receive queue, filled by A's send thread
  right after that tick and flushed one period later;
- or, between workers, the worker transfer queue (one period later, same
  worker), Netty (written at once while the channel is writable [3]_), and
  B's receive queue, flushed at the next tick of B's worker.

So a hop inside a worker takes the wait to A's next tick plus one period,
and a hop between workers that, plus its transfer delay, plus the wait to
B's next tick. Worker timers start when their JVMs do: each worker's phase
is uniform in [0, period), drawn from the replica's seed (common random
numbers: never from the scheduler). Storm 2 publishes each tuple at once
(``topology.producer.batch.size`` and ``topology.transfer.batch.size`` 1),
as do Storm 0.9.x queues, so with ``batch_size`` 1 no hop waits.

Modelled regime: batches are released by the timer, i.e. an executor emits
fewer than ``batch_size`` tuples per period (100,000 tuples/s with Storm
1.x defaults); a full batch leaves earlier, which the model ignores. The
flusher's CPU time is not charged.

References
----------
.. [1] Apache Storm 1.2.3, ``conf/defaults.yaml`` (``topology.disruptor.batch.size:
   100``, ``topology.disruptor.batch.timeout.millis: 1``) and
   ``storm-core/src/jvm/org/apache/storm/utils/DisruptorQueue.java``
   (``ThreadLocalBatcher``, ``FlusherPool``).
.. [2] Apache Storm 1.2.3, ``daemon/executor.clj`` (send queue) and
   ``daemon/worker.clj`` (receive queues, ``worker-transfer-queue``), all made
   with the batch size and timeout above.
.. [3] Apache Storm 1.2.3, ``messaging/netty/Client.java``: an unfilled
   message batch is written at once while the channel is writable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.model import Network

MS = 1e-3  # seconds per millisecond


def flush_period_s(net: Network) -> float:
    """Flush timer period in seconds, 0 when the queues do not batch."""
    return net.batch_flush_ms * MS if net.batch_size > 1 else 0.0


def next_tick(t: np.ndarray, phase: np.ndarray, period: float) -> np.ndarray:
    """First tick ``phase + k x period`` at or after each time t.

    >>> next_tick(np.array([0.0, 0.25e-3, 1.0e-3]), np.full(3, 0.5e-3), 1e-3) * 1e3
    array([0.5, 0.5, 1.5])
    """
    k = np.subtract(t, phase)  # in place from here on: this runs on every hop of the trace
    k /= period
    np.ceil(k, out=k)
    k *= period
    k += phase
    return k


@dataclass(frozen=True, eq=False)
class Flush:
    """The flush timers on the hops into one component, per arriving tuple."""

    period_s: float
    out_phase: np.ndarray  # phase of the sender's worker timer
    in_phase: np.ndarray  # phase of the receiver's worker timer
    cross: np.ndarray  # bool: the hop leaves the worker (transfer queue, receiver's timer)

    def arrivals(
        self, departure: np.ndarray, delay: np.ndarray, idx: np.ndarray | None = None
    ) -> np.ndarray:
        """Arrival at the receiver of tuples sent at ``departure`` (rows ``idx``).

        >>> f = Flush(1e-3, np.zeros(2), np.full(2, 0.3e-3), np.array([False, True]))
        >>> np.round(f.arrivals(np.full(2, 0.2e-3), np.full(2, 0.1e-3)) * 1e3, 6)
        array([2.1, 2.3])
        """
        out, into, cross = self.out_phase, self.in_phase, self.cross
        if idx is not None:
            out, into, cross = out[idx], into[idx], cross[idx]
        sent = next_tick(departure, out, self.period_s) + self.period_s
        arrived = sent + delay
        return np.where(cross, next_tick(arrived, into, self.period_s), arrived)


def arrivals(
    departure: np.ndarray, delay: np.ndarray, flush: Flush | None, idx: np.ndarray | None = None
) -> np.ndarray:
    """Arrival times of a hop: departure plus delay, through the flush timers if any."""
    if flush is None:
        return departure + delay if idx is None else departure + delay[idx]
    return flush.arrivals(departure, delay if idx is None else delay[idx], idx)


def mean_hop_waits_s(
    period: float, sender_sojourn: np.ndarray, sender_spout: np.ndarray, cross: np.ndarray
) -> np.ndarray:
    """Mean batching wait of each hop (stream), for the analytic latency estimate.

    The wait from the sender's emission to its worker's next tick is half a
    period after a spout's random emission; a bolt's tuples arrive on a
    tick, so for a bolt it is the period less its mean sojourn when that is
    shorter (else half a period). Then one period for the second queue, and
    half a period for the receiver's timer on the share ``cross`` of tuples
    that leave the worker. Arguments broadcast (streams, or rows x streams).

    >>> w = mean_hop_waits_s(1e-3, np.array([0.0, 0.2e-3]), np.array([True, False]),
    ...                      np.array([1.0, 0.0]))
    >>> np.round(w * 1e3, 6)
    array([2. , 1.8])
    """
    send = np.where(
        sender_spout | (sender_sojourn >= period), 0.5 * period, period - sender_sojourn
    )
    return send + period + 0.5 * period * cross

"""Storm 2.x: a tuple leaving its worker waits for the worker's transfer thread.

In Storm 2.x an executor serialises a tuple bound for another worker and
publishes it to its worker's transfer queue; one thread per worker drains
that queue into Netty. The thread runs ``Utils.asyncLoop`` over
``WorkerTransfer.makeTransferThread``: it drains the queue (``JCQueue.consume``
runs until the queue is empty) and, when a pass found nothing, returns 1,
which ``asyncLoop`` takes as milliseconds to sleep [1]_. So the thread wakes
about once a millisecond, and a tuple published while it sleeps leaves at its
next wake-up. Inside a worker a tuple goes straight to the receiver's queue,
and the receiving worker's Netty thread hands it on as it arrives, so only
the sender's side waits.

Modelled as a timer per worker ticking every ``transfer_sleep_ms`` at a phase
drawn from the replica's seed (common random numbers: never from the
scheduler); a hop that leaves its worker departs on the sender worker's first
tick at or after the tuple's departure, then takes its transfer delay. The
wake-ups really drift by the time each drain takes and by the sleep's
overshoot; neither is modelled. Storm 0.x and 1.x drain the transfer queue
with a blocking consumer (``disruptor/consume-loop*`` over a
``BlockingWaitStrategy`` in 0.9.5; ``DisruptorQueue`` in 1.x) [2]_, so their
presets set the sleep to 0; with ``batch_size`` > 1 the Storm 1.x batching
model (:mod:`core.simulator.batching`) holds instead.

References
----------
.. [1] Apache Storm 2.0.0, ``storm-client/src/jvm/org/apache/storm/``:
   ``daemon/worker/WorkerTransfer.java`` (``makeTransferThread``) and
   ``utils/Utils.java`` (``asyncLoop``: a positive return is slept, in ms).
.. [2] Apache Storm 0.9.5, ``storm-core/src/clj/backtype/storm/daemon/worker.clj``
   (``transfer-thread``), ``disruptor.clj`` (``consume-loop*``) and
   ``conf/defaults.yaml`` (``topology.disruptor.wait.strategy``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.model import Network
from core.simulator.batching import next_tick

MS = 1e-3  # seconds per millisecond


def transfer_sleep_s(net: Network) -> float:
    """The transfer thread's sleep in seconds; 0 when hops do not wait for it."""
    return net.transfer_sleep_ms * MS if net.batch_size == 1 else 0.0


def mean_transfer_wait_s(net: Network) -> float:
    """Mean wait of a hop that leaves its worker: half a sleep (a uniform phase)."""
    return 0.5 * transfer_sleep_s(net)


@dataclass(frozen=True, eq=False)
class TransferPoll:
    """The sender workers' transfer threads on the hops into one component."""

    period_s: float
    phase: np.ndarray  # per tuple: the phase of its sender worker's wake-ups, s
    cross: np.ndarray  # bool per tuple: the hop leaves the sender's worker

    def arrivals(
        self, departure: np.ndarray, delay: np.ndarray, idx: np.ndarray | None = None
    ) -> np.ndarray:
        """Arrival at the receiver of tuples sent at ``departure`` (rows ``idx``).

        >>> poll = TransferPoll(1e-3, np.full(2, 0.3e-3), np.array([False, True]))
        >>> np.round(poll.arrivals(np.full(2, 0.5e-3), np.full(2, 0.1e-3)) * 1e3, 6)
        array([0.6, 1.4])
        """
        phase, cross = self.phase, self.cross
        if idx is not None:
            phase, cross = phase[idx], cross[idx]
        leaves = np.where(cross, next_tick(departure, phase, self.period_s), departure)
        return leaves + delay

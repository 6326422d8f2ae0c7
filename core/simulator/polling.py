"""Threads that sleep when idle: Storm 2.x transfer threads, and every spout.

**Transfer threads (Storm 2.x).**

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
overshoot; neither is modelled. Nor is a busy thread: a pass that finds new
tuples is followed by another without sleep, so once a worker sends so many
tuples between workers that every short pass finds some (a pass of a few
microseconds: beyond some 10^5 tuples/s per worker) the wait shrinks toward
the pass time, and the model's half a millisecond per hop is an upper bound.
Storm 0.x and 1.x drain the transfer queue with a blocking consumer
(``disruptor/consume-loop*`` over a ``BlockingWaitStrategy`` in 0.9.5;
``DisruptorQueue`` in 1.x) [2]_, so their presets set the sleep to 0; with
``batch_size`` > 1 the Storm 1.x batching model
(:mod:`core.simulator.batching`) holds instead.

**Spouts (every Storm version).** A spout executor's loop takes what its
receive queue holds (acks among it), calls ``nextTuple`` and, when that
emitted nothing, runs the spout wait strategy: 1 ms of sleep in Storm 0.9 to
1.x (``SleepSpoutWaitStrategy``) and in Storm 2.x (``WaitStrategyProgressive``
with no spin and no park levels before its 1 ms sleep) [3]_ [4]_. Storm 2.x
skips the sleep when the pass took more than one message from the queue,
but the next pass, finding the queue drained, sleeps again. So while a
spout has nothing due, the acker's message for a tree waits for the spout's
next wake-up, and the complete latency, which the spout takes when it
handles that message, includes the wait. Modelled as wake-ups every
``spout_sleep_ms`` at a phase per spout executor drawn from the replica's
seed; a spout that always has something to emit never sleeps, which the
model ignores. Where the tuple's data waits for the wake-up to be emitted
is left out too: Storm's complete latency starts at the emit.

References
----------
.. [1] Apache Storm 2.0.0, ``storm-client/src/jvm/org/apache/storm/``:
   ``daemon/worker/WorkerTransfer.java`` (``makeTransferThread``) and
   ``utils/Utils.java`` (``asyncLoop``: a positive return is slept, in ms).
.. [2] Apache Storm 0.9.5, ``storm-core/src/clj/backtype/storm/daemon/worker.clj``
   (``transfer-thread``), ``disruptor.clj`` (``consume-loop*``) and
   ``conf/defaults.yaml`` (``topology.disruptor.wait.strategy``).
.. [3] Apache Storm 1.2.3, ``daemon/executor.clj`` (the spout loop:
   ``consume-batch`` of the receive queue, ``nextTuple``, ``emptyEmit``) and
   ``conf/defaults.yaml`` (``topology.sleep.spout.wait.strategy.time.ms: 1``).
.. [4] Apache Storm 2.0.0, ``executor/spout/SpoutExecutor.java`` (``call``) and
   ``conf/defaults.yaml`` (``topology.spout.wait.progressive.level1.count: 0``,
   ``level2.count: 0``, ``level3.sleep.millis: 1``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.model import Network
from core.simulator.batching import MS, next_tick


def transfer_sleep_s(net: Network) -> float:
    """The transfer thread's sleep in seconds; 0 when hops do not wait for it."""
    return net.transfer_sleep_ms * MS if net.batch_size == 1 else 0.0


def mean_transfer_wait_s(net: Network) -> float:
    """Mean wait of a hop that leaves its worker: half a sleep (a uniform phase)."""
    return 0.5 * transfer_sleep_s(net)


def spout_sleep_s(net: Network) -> float:
    """A spout executor's sleep when it emitted nothing, seconds."""
    return net.spout_sleep_ms * MS


@dataclass(frozen=True, eq=False)
class SpoutWakeups:
    """The wake-ups of the spout executors that take the acker's messages."""

    period_s: float
    phase: np.ndarray  # per message: the phase of its spout executor's wake-ups, s

    def after(self, t: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        """The first wake-up at or after each time t (rows ``idx``).

        >>> SpoutWakeups(1e-3, np.array([0.4e-3, 0.0])).after(np.array([1.0e-3, 2.0e-3])) * 1e3
        array([1.4, 2. ])
        """
        phase = self.phase if idx is None else self.phase[idx]
        return next_tick(t, phase, self.period_s)


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

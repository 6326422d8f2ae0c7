"""A scenario for Aniello, Baldoni, Querzoni's schedulers (DEBS 2013).

What the paper gives (our copy, cut off in Sec. 3.2.3): the setting its two
schedulers target — an acyclic topology whose executors are spread by
Storm's EvenScheduler over worker nodes with S_i slots each, a topology
running on W workers (Sec. 3), the offline scheduler's partial order of
components from the spout on (Sec. 3.1), node loads measured in Hz and
inter-executor traffic in tuples/s (Sec. 3.2.1), and the claim that on the
DEBS 2013 Grand Challenge workload the online scheduler improves event
processing latency by 20% to 30% over the default one (Sec. 1). The
authors' code (leonardoaniello/storm-adaptive-schedulers, for Storm 0.8.1)
adds defaults: beta = 1 in OfflineScheduler, a 180 s reschedule timeout in
OnlineScheduler. The evaluation section (cluster, topologies, rates) is
not in our copy nor in the code: every size and rate below is ours.

References
----------
.. [1] L. Aniello, R. Baldoni, L. Querzoni. Adaptive Online Scheduling in Storm.
   DEBS 2013, 207-218. doi:10.1145/2488222.2488267
"""

from __future__ import annotations

from typing import Any

from core.presets.common import STORM_0_X, comp, node, scenario, stream

# Ours: eight identical worker nodes (a Storm 0.8-era small cluster), 4 cores
# at 2.4 GHz, 8 GB, 4 slots each. Not given by the copy.
ANIELLO_HW = {"cores": 4, "ghz": 2.4, "flops_per_cycle": 8, "ram_gb": 8}
ANIELLO_NODES = 8
ANIELLO_SLOTS = 4


def aniello() -> dict[str, Any]:
    # A linear chain, the shape the offline scheduler's partial order (Sec. 3.1)
    # is built on: a source of sensor events, a parser, two analytics stages
    # and a sink. Parallelism 4 each, W = 8 workers, so that Storm's even
    # placement puts consecutive stages in different workers. Costs, ours
    # [costs]: 5 / 10 / 30 / 20 / 5 us per tuple on the reference core, 100 B
    # per event. The second stage is fields-grouped (per-sensor state) on 40
    # keys (ours; the Grand Challenge has a few dozen sensors).
    components = [
        comp("source", 4, 5.0, 1.0, 100),
        comp("parse", 4, 10.0, 1.0, 100),
        comp("stage1", 4, 30.0, 1.0, 100),
        comp("stage2", 4, 20.0, 1.0, 60),
        comp("sink", 4, 5.0, 0.0, 1),
    ]
    streams = [
        stream("source", "parse"),
        stream("parse", "stage1"),
        stream("stage1", "stage2", "fields", keys=40),
        stream("stage2", "sink"),
    ]
    nodes = [node(f"w{i + 1}", ANIELLO_HW, ANIELLO_SLOTS) for i in range(ANIELLO_NODES)]
    topology = {"workers": ANIELLO_NODES, "components": components, "streams": streams}
    # rate: ours; Storm 0.8.1 (the authors' code) drains the transfer queue blocking
    # Storm 0.8.1: the release the authors' code targets (uniform shuffle)
    return scenario("aniello", topology, nodes, 40_000, network=STORM_0_X, storm_version="0.8.1")


def presets() -> dict[str, tuple[str, Any]]:
    return {
        "aniello": (
            "A five-stage linear topology (4 executors per stage, W = 8) on 8 identical "
            "nodes x 4 slots: the setting of Aniello et al.'s offline and online schedulers "
            "(sizes and rates ours; the paper's evaluation is not in our copy).",
            aniello,
        ),
    }

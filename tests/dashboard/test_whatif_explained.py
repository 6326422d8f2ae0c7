"""The what-if says why an R* grows when a node fails (a re-placement from scratch that
lands better than the healthy one), instead of leaving a rise unexplained."""

from __future__ import annotations

from core.presets import preset_json
from core.whatif import Failure
from dashboard.compute import canonical
from dashboard.whatif import table, whatif_row, why_rise


def _row(before: float, after: float, keeps: bool = False) -> dict:
    return {
        "scheduler": "s",
        "keeps": keeps,
        "moved": 3,
        "max_rate": (before, after),
        "latency_ms": (1.0, 1.0),
        "nodes": (5, 4),
        "bottleneck": ("node b's CPU", "executor x#1 thread on c"),
        "error": "",
    }


def test_only_a_rise_over_one_percent_is_explained():
    assert why_rise(_row(100.0, 100.0), Failure("a")) == ""
    assert why_rise(_row(100.0, 90.0), Failure("a")) == ""
    assert why_rise(_row(100.0, 101.0), Failure("a")) == ""  # within 1%
    rise = why_rise(_row(100.0, 108.0), Failure("a"))
    assert rise.startswith("s's R* rises 8% when a fails: it re-places every executor")
    assert "bound by node b's CPU, which the new placement loads less" in rise
    assert "now executor x#1 thread on c binds" in rise
    kept = why_rise(_row(100.0, 110.0, keeps=True), Failure("a", 1))
    assert kept.startswith("s's R* rises 10% when a slot 1 fails: it keeps the surviving")


def test_a_bottleneck_on_the_failed_node_is_said_to_have_failed_with_it():
    rise = why_rise(_row(100.0, 130.0), Failure("b"))
    assert "bound by node b's CPU, on the node that failed" in rise


def test_aniello_offline_rises_on_wordcount_and_the_table_says_why():
    # hardware-blind dealing of workers: some single node's failure raises its R* (the
    # issue saw +8% when i7-8c failed); every rise is explained, every fall is not
    data = preset_json("wordcount")
    text, rate = canonical(data), float(data["workload"]["rate"])
    rows = {
        n["id"]: whatif_row(text, n["id"], "aniello-offline", "{}", rate)
        for n in data["cluster"]["nodes"]
    }
    rises = {}
    for node, row in rows.items():
        before, after = row["max_rate"]
        why = why_rise(row, Failure(node))
        assert bool(why) == (after > 1.01 * before), node
        if why:
            rises[node] = why
            assert why.startswith(
                f"aniello-offline's R* rises {(after - before) / before:.0%} when {node} fails: "
                "it groups the executors into workers by the topology's shape alone"
            )
            assert f"bound by {row['bottleneck'][0]}" in why
    assert rises, "no node failure raises aniello-offline's R* on wordcount"
    node, why = next(iter(rises.items()))
    shown = table([rows[node]], Failure(node))
    assert shown[-1].children == why and shown[-1].className == "whatif-why"

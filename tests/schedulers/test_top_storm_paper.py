"""TOP-Storm and Storm's even on the paper's WordCount configuration 1, by hand."""

from core.presets import preset
from core.registry import run_scheduler
from core.schedulers.top_storm import group_executors
from core.topology import build_graph


def _ids(prefix: str, indices) -> list[str]:
    return [f"{prefix}#{i}" for i in indices]


def test_top_storm_groups_wordcount_configuration_1_as_algorithm_2_does():
    # 28 executors (spout 5, split 8, count 12, 3 ackers), omega = W = 5, eps = 6.
    # Pair spout#0 -> split#0: spouts, splits and counts tie at 1 edge with the pair,
    # spouts first (topological order): spout#1..4 fill the slot. Pair split#1 ->
    # count#0: splits first, split#2..5. Pair split#6 -> count#1: split#7, count#2..4.
    # No pair is left; count#5..11 and the ackers (no edges in the user DAG) go
    # round robin from slot 1 % 5.
    groups = group_executors(build_graph(preset("top-storm-wordcount-s5-w5")), 5)
    assert groups == [
        ["spout#0", "split#0", *_ids("spout", range(1, 5)), "count#9", "__acker#2"],
        ["split#1", "count#0", *_ids("split", range(2, 6)), "count#5", "count#10"],
        ["split#6", "count#1", "split#7", *_ids("count", range(2, 5)), "count#6", "count#11"],
        ["count#7", "__acker#0"],
        ["count#8", "__acker#1"],
    ]


def test_top_storm_puts_configuration_1_on_node_c_alone():
    # Sec. 6.1, Fig. 10: one supervisor (Node-C, the i7-6700 x 8, rank 1) takes all 5 slots.
    placement = run_scheduler(preset("top-storm-wordcount-s5-w5"), "top-storm").placement()
    assert set(placement.values()) == {("i7-8c", s) for s in range(5)}


def test_even_deals_storm_task_ids_over_one_slot_per_supervisor():
    # Storm numbers tasks by sorted component id: __acker 1-3, count 4-15, split
    # 16-23, spout 24-28; sortSlots takes the first slot of each supervisor (id
    # order, all have 5 free) and executor i goes to slot i mod 5.
    placement = run_scheduler(preset("top-storm-wordcount-s5-w5"), "even").placement()
    first = {e for e, where in placement.items() if where == ("i5-4460", 0)}
    assert first == {"__acker#0", "count#2", "count#7", "split#0", "split#5", "spout#2"}
    assert {node for node, _ in placement.values()} == {
        "i5-4460",
        "i5-m460",
        "i7-2c",
        "i7-4c",
        "i7-8c",
    }

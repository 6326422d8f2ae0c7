"""Aniello's pair-by-pair packing: both layouts of the neighbour traffic agree, and
skipping the pairs that stay (StayScan) changes nothing."""

import numpy as np
import pytest

import core.schedulers.aniello_packing as packing
from core.presets import preset
from core.registry import run_scheduler, with_observations


def _adds():
    """Items 0-2 (0-1 at 5 tuples/s, 0-2 at 3) in 2 bins: 1 and 2 placed, 1 moved."""
    adj = [{1: 5.0, 2: 3.0}, {0: 5.0}, {0: 3.0}]
    add, near, near_all = packing.neighbour_traffic(adj, 2)
    add(1, 0, 1), add(2, 1, 1), add(1, 0, -1), add(1, 1, 1)
    return [near(b, 0) for b in range(2)], near_all(0), near(1, 1)


@pytest.mark.parametrize("cells", [packing.DENSE_CELLS, 0])
def test_neighbour_traffic_is_a_running_sum_per_bin(monkeypatch, cells):
    monkeypatch.setattr(packing, "DENSE_CELLS", cells)
    assert _adds() == ([0.0, 8.0], 8.0, 0.0)


def test_dense_and_dict_layouts_place_lf_diamond_x10_alike(monkeypatch):
    sc = preset("lf-diamond-x10")
    observed = with_observations(sc, sc.workload.rate, "aniello-offline")
    dense = run_scheduler(observed, "aniello-online")
    monkeypatch.setattr(packing, "DENSE_CELLS", 0)
    sparse = run_scheduler(observed, "aniello-online")
    assert dense.placement() == sparse.placement()
    assert dense.decisions == sparse.decisions
    assert dense.details == sparse.details
    assert dense.details["observed_pairs"] == 20000
    assert (dense.details["traffic_before"], dense.details["traffic_after"]) == (
        154520.833,
        128293.75,
    )


def _pair_by_pair(monkeypatch) -> None:
    """Every pair through pack's own loop: the dense layout without its arrays (no scan)."""
    tables = packing.neighbour_tables
    monkeypatch.setattr(packing, "neighbour_tables", lambda adj, n: (*tables(adj, n)[:3], None))


def _random_packing(seed: int, uniform: bool, keep_order: bool):
    """A small packing with ties (integer loads and rates) and tight caps."""
    rng = np.random.default_rng(seed)
    items, bins = int(rng.integers(4, 14)), int(rng.integers(2, 5))
    loads = rng.integers(0, 4, items).astype(float)
    links = int(rng.integers(items, 4 * items))
    flows = packing.hottest(
        rng.integers(0, items, links),
        rng.integers(0, items, links),
        rng.integers(1, 6, links) * 1.0,
    )
    count_cap = rng.integers(-(-items // bins), items + 1, bins)
    total = float(loads.sum())
    load_cap = np.full(bins, total) if uniform else rng.uniform(0.3, 1.0, bins) * total
    names = (lambda i: f"e{i}", lambda b: f"w{b}", "worker")

    def run():
        try:
            slot_of, why, adj = packing.pack(
                loads, flows, packing.Bins(count_cap, load_cap), names, keep_order
            )
        except packing.Infeasible as err:
            return str(err)
        return slot_of.tolist(), why, adj

    return run


@pytest.mark.parametrize("scan_after", [0, 3])
def test_skipping_the_pairs_that_stay_changes_nothing(monkeypatch, scan_after):
    # these packings have tens of pairs: scan as soon as both items are placed (0), or
    # after a few quiet pairs (pack's own rule, at a scale that reaches it here)
    monkeypatch.setattr(packing, "SCAN_AFTER", scan_after)
    cases = [_random_packing(s, s % 2 == 0, s % 3 != 0) for s in range(300)]
    skipped = []
    first_change = packing.StayScan.first_change

    def counted(scan, start, end):
        stop = first_change(scan, start, end)
        skipped.append(stop - start)
        return stop

    monkeypatch.setattr(packing.StayScan, "first_change", counted)
    scanned = [run() for run in cases]
    _pair_by_pair(monkeypatch)
    assert [run() for run in cases] == scanned
    assert sum(skipped) > 300  # the scan did skip pairs (not only handed them back)
    assert any(isinstance(r, str) for r in scanned)  # and some cases fit nowhere


def test_lf_star_x10_is_placed_alike_with_and_without_the_scan(monkeypatch):
    sc = preset("lf-star-x10")
    observed = with_observations(sc, sc.workload.rate, "aniello-offline")
    scanned = run_scheduler(observed, "aniello-online")
    _pair_by_pair(monkeypatch)
    alone = run_scheduler(observed, "aniello-online")
    assert scanned.placement() == alone.placement()
    assert scanned.decisions == alone.decisions
    assert scanned.details == alone.details


@pytest.mark.parametrize("uniform", [True, False])
def test_the_scan_s_least_loaded_is_the_bins_own_for_every_load(uniform):
    """StayScan.least_loaded (one load cap: only the least loaded bin is tried) answers as
    Bins.least_loaded, pair by pair, also where no bin fits (-1)."""
    rng = np.random.default_rng(7 if uniform else 8)
    answers = []
    for _ in range(50):
        n = int(rng.integers(1, 7))
        caps = np.full(n, 6.0) if uniform else rng.uniform(2.0, 8.0, n)
        bins = packing.Bins(rng.integers(1, 4, n), caps)
        for b in rng.integers(0, n, int(rng.integers(0, 8))).tolist():
            if bins.count[b] < bins.count_cap[b]:
                bins.put(b, float(rng.integers(0, 4)))
        loads = rng.integers(0, 9, 12).astype(float)
        flows = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        placed = np.full(1, -1, dtype=np.int64)
        scan = packing.StayScan(flows, loads, bins, placed, (np.zeros((n, 1)), np.zeros(1)), True)
        count, held = np.array(bins.count), np.array(bins.load)
        got = scan.least_loaded(loads, count, held).tolist()
        want = [bins.least_loaded(1, float(x)) for x in loads]
        assert got == [-1 if w is None else w for w in want]
        answers += got
    assert -1 in answers and max(answers) > 0  # some loads fit nowhere, some beyond bin 0

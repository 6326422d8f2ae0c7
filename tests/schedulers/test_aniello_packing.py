"""Aniello's pair-by-pair packing: both layouts of the neighbour traffic agree."""

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
    assert (dense.details["traffic_before"], dense.details["traffic_after"]) == (115837.5, 86062.5)

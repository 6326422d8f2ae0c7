"""Storm 2.0.0's locality-first shuffle against hand-computed shares; Storm 1.x's uniform one.

The scenario: two one-core nodes of one worker each, A at half the reference
speed and B at the reference speed; a spout of two executors (one a worker,
no CPU) shuffles to a bolt of two (100 us a tuple on the reference core: bolt
A takes at most 5,000 tuples/s, bolt B 10,000). No (de)serialisation cost, so
every load is a tuple count. Each spout executor emits R / 2.

- Storm 1.x: each bolt gets R / 2, half of it from the other worker; R* =
  10,000 (bolt A).
- Storm 2.0.0 below 10,000: each spout keeps its tuples in its worker; no
  tuple crosses.
- Above: worker A keeps a share k and spreads 1 - k over both bolts, so bolt
  A gets R/2 (1 + k)/2 and bolt B R/2 (3 - k)/2; bolt A full: k = 20,000/R - 1
  (2/3 at 12,000: bolt A 5,000 tuples/s, bolt B 7,000, 1,000 crossing); R* when
  bolt B fills too, R (4 - 20,000/R) = 40,000: R* = 15,000 with k = 1/3.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.model import validate_scenario
from core.presets import PRESETS, preset
from core.registry import run_scheduler
from core.simulator import analyze, evaluator_of, observe, simulate
from tests.simulator.sim_builders import make, manual

PLACED = {"s#0": ("A", 0), "s#1": ("B", 0), "b#0": ("A", 0), "b#1": ("B", 0)}


def _pair(version: str | None):
    comps = [
        {"id": "s", "parallelism": 2, "cpu_us": 0.0},
        {"id": "b", "parallelism": 2, "cpu_us": 100.0, "selectivity": 0.0},
    ]
    nodes = [
        {"id": "A", "cores": 1, "speed": 0.5, "slots": 1},
        {"id": "B", "cores": 1, "speed": 1.0, "slots": 1},
    ]
    extra = {} if version is None else {"storm_version": version}
    sc = make(
        comps,
        [("s", "b")],
        nodes,
        rate=5000.0,
        network={"serialize_us": 0.0, "deserialize_us": 0.0},
        **extra,
    )
    return sc, manual(sc, PLACED)


@pytest.mark.parametrize("version", [None, "1.2.3", "0.9.5"])
def test_storm_1_shuffles_evenly(version):
    sc, sched = _pair(version)
    a = analyze(sc, sched, 5000.0)
    assert a.max_rate == pytest.approx(10_000.0)
    assert a.executor_rate == pytest.approx({"s#0": 2500, "s#1": 2500, "b#0": 2500, "b#1": 2500})
    assert a.traffic["inter_node"] == pytest.approx(2500.0)  # half of the 5,000 cross


def test_storm_2_keeps_tuples_in_the_worker_below_the_bounds():
    sc, sched = _pair("2.0.0")
    a = analyze(sc, sched, 5000.0)
    assert a.executor_rate == pytest.approx({"s#0": 2500, "s#1": 2500, "b#0": 2500, "b#1": 2500})
    assert a.traffic["inter_node"] == 0.0
    assert a.traffic["intra_worker"] == pytest.approx(5000.0)


def test_storm_2_spills_what_the_local_bolt_cannot_take():
    sc, sched = _pair("2.0.0")
    a = analyze(sc, sched, 12_000.0)
    assert a.executor_rate["b#0"] == pytest.approx(5000.0, rel=1e-4)
    assert a.executor_rate["b#1"] == pytest.approx(7000.0, rel=1e-4)
    assert a.traffic["inter_node"] == pytest.approx(1000.0, rel=1e-3)
    ev = evaluator_of(sc)
    keep = ev.loads(ev.encode(sched.placement()), 12_000.0).rates.keep
    k = int(np.flatnonzero(ev.table.spill)[0])
    assert keep[k, :2] == pytest.approx([2 / 3, 1.0], rel=1e-4)


def test_storm_2_max_rate_fills_both_bolts():
    sc, sched = _pair("2.0.0")
    a = analyze(sc, sched, 20_000.0)
    assert a.max_rate == pytest.approx(15_000.0, rel=2e-3)
    assert a.saturated
    ev = evaluator_of(sc)
    keep = ev.loads(ev.encode(sched.placement())).rates.keep
    k = int(np.flatnonzero(ev.table.spill)[0])
    assert keep[k, :2] == pytest.approx([1 / 3, 1.0], abs=2e-3)


def test_storm_2_scores_one_by_one_as_in_a_batch():
    sc, sched = _pair("2.0.0")
    ev = evaluator_of(sc)
    rows = np.stack([ev.encode(sched.placement()), np.array([0, 0, 0, 0])])
    assert ev.score_many(rows, 12_000.0) == [ev.score(r, 12_000.0) for r in rows]


def test_storm_2_trace_routes_the_spilled_share():
    sc, sched = _pair("2.0.0")
    from core.simulator.plan import route_targets, trace_plan

    ev = evaluator_of(sc)
    plan = trace_plan(ev, ev.encode(sched.placement()), 12_000.0)
    route = plan.routes[0]
    u = (np.arange(60_000) + 0.5) / 60_000  # evenly spaced draws
    worker_a = np.full(len(u), plan.worker[0])
    targets = route_targets(route, u, worker_a)
    # worker A keeps 2/3 (all to b#0) and spreads 1/3 evenly: b#1 gets 1/6
    assert np.mean(targets == 1) == pytest.approx(1 / 6, abs=1e-3)


def test_storm_2_observed_flows_carry_the_spill():
    sc, sched = _pair("2.0.0")
    flows = {(f.source, f.target): f.rate for f in observe(sc, sched, 12_000.0).traffic}
    # worker A: 4,000 kept + 1,000 spilled back to b#0, 1,000 to b#1; B keeps its 6,000
    assert flows[("s#0", "b#0")] == pytest.approx(5000.0, rel=1e-4)
    assert flows[("s#0", "b#1")] == pytest.approx(1000.0, rel=1e-3)
    assert flows[("s#1", "b#1")] == pytest.approx(6000.0, rel=1e-4)
    assert ("s#1", "b#0") not in flows


def test_storm_2_simulates_a_row():
    sc, sched = _pair("2.0.0")
    row = simulate(sc, sched, rate=12_000.0, tuples=3000)
    assert row["max_rate"] == pytest.approx(15_000.0, rel=2e-3)
    assert row["latency_ms"]["p50"] > 0 and row["violations"] == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_is_unchanged_under_storm_1(name):
    """A preset said to run Storm 1.x gives exactly what it gives with no version."""
    data = preset(name).to_json_dict()
    data.pop("storm_version", None)
    plain = validate_scenario(data)
    older = validate_scenario({**data, "storm_version": "1.2.3"})
    sched = run_scheduler(plain, "even")
    assert analyze(older, sched) == analyze(plain, sched)


def test_a_bad_version_names_its_field():
    with pytest.raises(ValueError, match="storm_version"):
        _pair("two")


def test_storm_2_below_the_local_bound_keeps_everything_and_loads_as_placed():
    """Below the all-local R* (10,000 here) spill_keep answers at once: every share 1, and the
    loads it returns are those of that routing; just above, worker A keeps less."""
    from core.simulator.spill import all_kept, placed, spill_keep

    sc, sched = _pair("2.0.0")
    ev = evaluator_of(sc)
    slot_of = ev.encode(sched.placement())
    keep, r, u = spill_keep(ev.coef, slot_of, 9_000.0)
    assert (keep == 1.0).all()
    r_ref, u_ref = placed(ev.coef, slot_of, all_kept(ev.coef))
    assert np.array_equal(r.arrival, r_ref.arrival) and np.array_equal(u.cpu, u_ref.cpu)
    k = int(np.flatnonzero(ev.table.spill)[0])
    assert spill_keep(ev.coef, slot_of, 11_000.0)[0][k, 0] == pytest.approx(20_000 / 11_000 - 1)


def _reference_max_rate(model, step=1.02):
    """R* on an affine model the slow way: R raised in 2% steps from the all-local R*, the
    steady state settled warm at each with many steps (the quasi-static path), then 30
    bisections in the last step."""
    from core.simulator.spill import max_rate, settle

    def fits(rate, start):
        x, ok = settle(model, rate, start, 200)
        return ok and float(model.loads(x).max()) * rate <= 1.0 + 1e-10, x

    rate = max_rate(float(model.base.max()))
    x = np.ones(len(model.at))
    while True:
        ok, shares = fits(rate * step, x)
        if not ok:
            break
        rate, x = rate * step, shares
    low, high = rate, rate * step
    for _ in range(30):
        ok, shares = fits(0.5 * (low + high), x)
        low, high, x = (0.5 * (low + high), high, shares) if ok else (low, 0.5 * (low + high), x)
    return low


def _wordcount_samples(count: int):
    ev = evaluator_of(preset("wordcount"))
    rng = np.random.default_rng(7)
    return ev, [rng.integers(0, ev.nodes.slots // 4, len(ev.executors)) for _ in range(count)]


def test_storm_2_max_rate_is_the_slow_reference():
    """R* followed along the path equals the stepwise reference on dense wordcount
    placements, where workers of one node share its CPU (the old bisection gave up on those
    pairs within its 8 Newton steps and answered up to 30% low)."""
    from core.simulator.spill import _max_rate, all_kept, linear

    ev, rows = _wordcount_samples(4)
    checked = 0
    for slot_of in rows:
        model = linear(ev.coef, slot_of, all_kept(ev.coef))
        if not len(model.at):
            continue
        assert _max_rate(model)[0] == pytest.approx(_reference_max_rate(model), rel=1e-4)
        checked += 1
    assert checked >= 3


def test_storm_2_max_rate_is_the_edge_of_the_steady_state():
    """At R* the kept shares fit every bound; just above, the steady state does not."""
    from core.simulator.spill import FIT_STEPS, linear, placed, resources, settle, spill_max_rate

    ev, rows = _wordcount_samples(40)
    for slot_of in rows:
        rate, keep = spill_max_rate(ev.coef, slot_of)
        assert rate * resources(ev.coef, placed(ev.coef, slot_of, keep)[1]).max() <= 1 + 1e-8
        model = linear(ev.coef, slot_of, keep)
        if len(model.at):
            above = rate * (1 + 1e-6)
            x, ok = settle(model, above, model.at, FIT_STEPS * 10)
            assert not ok or model.loads(x).max() * above > 1 + 1e-9

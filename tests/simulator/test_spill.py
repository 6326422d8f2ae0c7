"""Storm 2.0.0's shuffle solver (core/simulator/spill.py) against its straightforward form.

The solver's small steps run on Python floats and its placement passes in one batch;
every product of matrices stays numpy's. So the model, the settled shares and the path
are bit-for-bit those of the plain numpy form kept here (``_reference_settle``,
``_reference_path``: the solver as it was, one placement pass per share), on one-stream
(wordcount) and two-stream (exclamation: spilling streams feeding each other) placements.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.comparison import at_rate
from core.presets import preset
from core.simulator import evaluator_of
from core.simulator.spill import (
    MAX_DOUBLINGS,
    NEWTON_STEPS,
    PATH_STEPS,
    SPILL_TOL,
    TIE,
    _max_rate,
    _path,
    all_kept,
    content_key,
    forget,
    linear,
    linear_many,
    memo_size,
    placed,
    resources,
    resources_many,
    settle,
    spill_below,
    spill_max_rate,
)

PRESETS = ("wordcount", "exclamation")


def _samples(name: str, count: int, seed: int = 11):
    """Random placements of a preset: half on every slot, half packed on a quarter."""
    ev = evaluator_of(preset(name))
    rng = np.random.default_rng(seed)
    n, slots = len(ev.executors), ev.nodes.slots
    rows = [rng.integers(0, slots if i % 2 else max(2, slots // 4), n) for i in range(count)]
    return ev, rows


def _groups(top, cols, x):
    tops, group = np.unique(top[cols], return_inverse=True)
    scale = np.zeros((len(x), len(tops)))
    scale[cols, group] = np.maximum(x[cols], 1e-300)
    return tops, group, scale


def _reference_settle(model, rate, x, steps=NEWTON_STEPS):
    rows = np.arange(len(x))
    watch, grad, base, at = model.watch, model.grad, model.base, model.at
    x = x.copy()
    for _ in range(steps):
        res = base + grad @ (x - at)
        top = watch[rows, res[watch].argmax(1)]
        rho = rate * res[top]
        active = ((x < 1.0) | (rho > 1.0)) & ~((x <= 0.0) & (rho >= 1.0))
        if not active.any() or np.abs(rho[active] - 1.0).max() <= SPILL_TOL:
            return x, True
        rising = active & (grad[top, rows] > 0)
        new = x.copy()
        flat = active & ~rising
        new[flat] = np.where(rho[flat] > 1.0, 0.0, 1.0)
        cols = np.flatnonzero(rising)
        if len(cols):
            tops, group, scale = _groups(top, cols, x)
            jac = rate * (grad[tops] @ scale)
            first = cols[np.unique(group, return_index=True)[1]]
            try:
                step = np.linalg.solve(jac, 1.0 - rho[first])
            except np.linalg.LinAlgError:
                step = 1.0 / rho[first] - 1.0
            step = np.nan_to_num(step, nan=0.0, posinf=1.0, neginf=-1.0)[group]
            grown = x[cols] * (1.0 + step)
            new[cols] = np.clip(np.where(x[cols] > 0.0, grown, step), 0.0, 1.0)
        moved = np.abs(new - x).max()
        x = new
        if moved <= SPILL_TOL:
            return x, True
    return x, False


def _reference_enter(grad, member, loads, s, mode, top):
    for m in np.flatnonzero(loads >= s * (1.0 - TIE)).tolist():
        pairs = np.flatnonzero(member[m])
        if (mode[pairs] & (top[pairs] == m)).any():
            continue
        held = pairs[grad[m, pairs] > 0]
        if not len(held):
            return False
        mode[held], top[held] = True, m
    return True


def _reference_path(model, until=0.0):
    grad, base, watch = model.grad, model.base, model.watch
    x = np.ones(len(model.at))
    loads = model.loads(x)
    s = float(loads.max(initial=0.0))
    floor = s * 2.0 ** -(MAX_DOUBLINGS + 1)
    mode, top, stuck = np.zeros(len(x), bool), np.full(len(x), -1), 0
    member = np.zeros((len(base), len(x)), bool)
    member[watch, np.arange(len(x))[:, None]] = True
    for _ in range(PATH_STEPS):
        if not _reference_enter(grad, member, loads, s, mode, top):
            return 1.0 / s, x, True
        cols = np.flatnonzero(mode)
        tops, _, scale = _groups(top, cols, x)
        fixed = np.where(mode, 0.0, x)
        c = base + grad @ (fixed - model.at)
        h = grad @ scale
        try:
            ya, yb = np.linalg.solve(h[tops], np.stack([np.ones(len(tops)), c[tops]], 1)).T
        except np.linalg.LinAlgError:
            return None
        if not (np.isfinite(ya).all() and np.isfinite(yb).all()):
            return None
        slope, x0 = h @ ya, c - h @ yb
        x_slope, x_zero = scale @ ya, fixed - scale @ yb
        near = watch[cols]
        same = np.abs(loads[near] - s) <= TIE * s
        flat = slope[near] <= slope[top[cols]][:, None] + TIE * np.abs(slope).max()
        follow = np.zeros(len(c), bool)
        follow[near[same & flat]] = True
        follow[tops] = True
        closing = (1.0 - slope > 0) & ~follow
        fall = [s - max(floor, until)]
        if closing.any():
            room = np.maximum(s - loads[closing], 0.0)
            fall.append(float((room / (1.0 - slope[closing])).min()))
        xs = x_zero[cols] + x_slope[cols] * s
        down, up = x_slope[cols] > 0, x_slope[cols] < 0
        if down.any():
            fall.append(float((xs[down] / x_slope[cols][down]).min()))
        if up.any():
            fall.append(float(((1.0 - xs[up]) / -x_slope[cols][up]).min()))
        step = max(min(fall), 0.0)
        stuck = stuck + 1 if step <= TIE * s else 0
        if stuck > len(x) + 1:
            return 1.0 / s, x, True
        s -= step
        if s <= floor:
            return None
        x = np.clip(x_zero + x_slope * s, 0.0, 1.0)
        loads = x0 + slope * s
        if (x[cols] <= TIE).any():
            return 1.0 / s, x, True
        if s <= until * (1.0 + 1e-12):
            return 1.0 / s, x, False
        back = cols[x[cols] >= 1.0 - TIE]
        mode[back], x[back] = False, 1.0
    return None


def _reference_linear_loads(coef, slot_of, keep, model):
    """base and grad of ``model`` as one placement pass per share (the plain form)."""
    base = resources(coef, placed(coef, slot_of, keep)[1])
    grad = np.zeros((len(base), len(model.at)))
    for p in range(len(model.at)):
        step = -0.5 if model.at[p] >= 0.5 else 0.5
        moved = keep.copy()
        moved[model.stream[p], model.worker[p]] += step
        grad[:, p] = (resources(coef, placed(coef, slot_of, moved)[1]) - base) / step
    return base, grad


@pytest.mark.parametrize("name", PRESETS)
def test_batched_passes_are_those_of_one_placement_each(name):
    ev, rows = _samples(name, 6)
    rng = np.random.default_rng(3)
    for slot_of in rows:
        keeps = rng.random((4, *all_kept(ev.coef).shape))
        keeps[0] = 1.0
        batch = resources_many(ev.coef, slot_of, keeps)
        for keep, row in zip(keeps, batch, strict=True):
            assert np.array_equal(row, resources(ev.coef, placed(ev.coef, slot_of, keep)[1]))


@pytest.mark.parametrize("name", PRESETS)
def test_model_settle_and_path_are_the_plain_forms_bit_for_bit(name):
    ev, rows = _samples(name, 16)
    paths = 0
    for slot_of in rows:
        keep = all_kept(ev.coef)
        model = linear(ev.coef, slot_of, keep)
        base, grad = _reference_linear_loads(ev.coef, slot_of, keep, model)
        assert np.array_equal(model.base, base) and np.array_equal(model.grad, grad)
        if not len(model.at):
            continue
        found, expected = _path(model), _reference_path(model)
        assert (found is None) == (expected is None)
        if found is None:
            continue
        paths += 1
        assert found[0] == expected[0] and found[2] == expected[2]
        assert np.array_equal(found[1], expected[1])
        for factor, start in ((0.9, model.at), (1.0 - 1e-7, found[1]), (1.3, found[1])):
            rate = found[0] * factor
            got, want = settle(model, rate, start), _reference_settle(model, rate, start)
            assert got[1] == want[1] and np.array_equal(got[0], want[0])
        until = 2.0 / (found[0] + 1.0 / float(model.base.max()))  # halfway from the local R*
        part, whole = _path(model, until), _reference_path(model, until)
        assert part[0] == whole[0] and part[2] == whole[2] and np.array_equal(part[1], whole[1])
    assert paths >= 4


@pytest.mark.parametrize("name", PRESETS)
def test_models_of_many_placements_are_those_of_each(name, monkeypatch):
    """linear_many's passes (a placement a row, split to stay under MODEL_CELLS) give each
    placement's linear model bit for bit."""
    import core.simulator.spill as spill

    ev, rows = _samples(name, 12, seed=4)
    keep = all_kept(ev.coef)
    monkeypatch.setattr(spill, "MODEL_CELLS", 5 * keep.size)  # a few placements a pass
    for many, row in zip(linear_many(ev.coef, np.array(rows), keep), rows, strict=True):
        one = linear(ev.coef, row, keep)
        for field in ("stream", "worker", "at", "base", "grad", "watch"):
            assert np.array_equal(getattr(many, field), getattr(one, field)), field
        assert many.holders == one.holders and many.watching == one.watching


@pytest.mark.parametrize("name", (*PRESETS, "top-storm-wordcount-s3-w5"))
def test_below_is_said_only_of_placements_whose_r_star_is_below(name):
    """spill_below's True is certain (R* < rate), and it says it of most placements that
    are below: at rates around each placement's R* and around another's."""
    ev, rows = _samples(name, 16, seed=7)
    forget()
    stars = [spill_max_rate(ev.coef, row)[0] for row in rows]
    said = below = 0
    for reference in (stars[0], stars[5], *stars[8:10]):
        for factor in (0.5, 0.9, 0.99, 1.0 - 1e-6, 1.01, 1.5):
            rate = reference * factor
            forget()  # not from the memo: from the model
            answers = spill_below(ev.coef, np.array(rows), rate)
            for star, answer in zip(stars, answers, strict=True):
                assert not (answer and star >= rate), (star, rate)
                said += answer
                below += star < rate
    assert below > 0 and said >= 0.6 * below, (said, below)


def test_the_rate_sweep_shares_one_memo_and_other_costs_do_not():
    """R* does not read the offered rate: one preset at two rates has one content key (a
    rate sweep's searches share their answers); another service cost does not."""
    sc = preset("wordcount")
    low, high = evaluator_of(at_rate(sc, 5_000.0)), evaluator_of(at_rate(sc, 50_000.0))
    assert low.coef is not high.coef
    assert content_key(low.coef) == content_key(high.coef)
    data = sc.to_json_dict()
    data["topology"]["components"][1]["cpu_us"] *= 2
    from core.model import validate_scenario

    other = evaluator_of(validate_scenario(data))
    assert content_key(other.coef) != content_key(low.coef)
    slot_of = low.encode(_even(sc))
    first = spill_max_rate(low.coef, slot_of)
    again = spill_max_rate(high.coef, slot_of)
    assert first[0] == again[0] and np.array_equal(first[1], again[1])
    again[1][:] = -1.0  # a caller's copy: the memo keeps its own
    assert np.array_equal(spill_max_rate(low.coef, slot_of)[1], first[1])
    assert spill_max_rate(other.coef, slot_of)[0] != first[0]


def _even(sc):
    from core.registry import run_scheduler

    return run_scheduler(sc, "even").placement()


def test_max_rate_fits_on_two_stream_placements():
    """On exclamation (two spilling streams, one feeding the other) the answer fits every
    bound at R* and the affine R* is the plain path's when the path is confirmed."""
    ev, rows = _samples("exclamation", 12, seed=5)
    for slot_of in rows:
        rate, keep = spill_max_rate(ev.coef, slot_of)
        assert rate * resources(ev.coef, placed(ev.coef, slot_of, keep)[1]).max() <= 1 + 1e-8
        model = linear(ev.coef, slot_of, all_kept(ev.coef))
        if len(model.at):
            assert _max_rate(model)[0] > 0


def test_the_memo_stays_within_its_bytes(monkeypatch):
    """Old answers leave once the shares and placements pass MEMO_BYTES; a newer answer
    stays and is returned as computed."""
    import core.simulator.spill as spill

    ev, rows = _samples("wordcount", 10, seed=2)
    entry = all_kept(ev.coef).nbytes + rows[0].astype(np.int64).nbytes
    monkeypatch.setattr(spill, "MEMO_BYTES", 3 * entry)
    forget()
    answers = [spill_max_rate(ev.coef, slot_of) for slot_of in rows]
    count, used = memo_size()
    assert count == 3 and used == 3 * entry
    assert spill_max_rate(ev.coef, rows[-1])[0] == answers[-1][0]
    forget()
    assert memo_size() == (0, 0)

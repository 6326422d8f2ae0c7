"""Scheduler parameters from the registry: defaults, conversion, the last valid value kept."""

from __future__ import annotations

import pytest
from dash import no_update

from core.registry import SCHEDULERS, SchedulerError
from dashboard.registry import default_params, default_selection, params_for, parse_param
from dashboard.scenario_bar import apply_params, params_area


def _ids(*pairs):
    return [{"type": "param", "sched": s, "name": n} for s, n in pairs]


def test_defaults_come_from_the_registry_for_every_selected_scheduler():
    params = default_params(default_selection())
    for sid in default_selection():
        assert set(params[sid]) == {p.name for p in SCHEDULERS[sid].params}
    assert "optimal" not in default_selection()


def test_stored_values_win_over_defaults():
    assert params_for(["top-storm"], {"top-storm": {"alpha": 0.5, "gone": 1}}) == {
        "top-storm": {"alpha": 0.5}
    }


def test_values_are_converted_and_range_checked():
    assert parse_param("top-storm", "alpha", "0.25") == 0.25
    with pytest.raises(SchedulerError, match="top-storm parameter alpha"):
        parse_param("top-storm", "alpha", 7)
    with pytest.raises(SchedulerError, match="a value is needed"):
        parse_param("top-storm", "alpha", None)


def test_an_invalid_value_keeps_the_previous_one_and_says_why():
    stored = {"top-storm": {"alpha": 0.8}}
    params, message = apply_params([0.5], _ids(("top-storm", "alpha")), stored)
    assert params == {"top-storm": {"alpha": 0.5}} and message == ""
    params, message = apply_params([3], _ids(("top-storm", "alpha")), stored)
    assert params is no_update
    assert "alpha" in str(message) and "previous value stays" in str(message)


def test_every_parameter_gets_an_input():
    selected = [s for s in default_selection() if SCHEDULERS[s].params]
    area = str(params_area(selected, default_params(selected)))
    for sid in selected:
        for p in SCHEDULERS[sid].params:
            assert f"'name': '{p.name}'" in area and f"'sched': '{sid}'" in area

"""Scheduler parameters from the registry: defaults, conversion, the last valid value kept."""

from __future__ import annotations

import pytest
from dash import no_update

from core.registry import SCHEDULERS, SchedulerError
from dashboard.registry import default_params, default_selection, params_for, parse_param
from dashboard.scenario_bar import (
    apply_params,
    param_errors,
    params_area,
    params_changed,
    rate_feedback,
)
from dashboard.simulate import NO_RESULTS, export_states, settings_problems


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


def test_each_refused_value_is_named_at_its_own_input():
    pids = _ids(("top-storm", "alpha"), ("aniello-offline", "alpha"))
    stored = {"top-storm": {"alpha": 0.8}, "aniello-offline": {"alpha": 0.0}}
    params, errors = param_errors([0.5, 2], pids, stored)
    assert params["top-storm"]["alpha"] == 0.5 and params["aniello-offline"]["alpha"] == 0.0
    assert errors[0] == ""
    assert errors[1].startswith("aniello-offline parameter alpha: 2.0 is outside [0, 1]")
    store, summary, at_fields = params_changed([0.5, 2], pids, list(reversed(pids)), stored)
    assert store["top-storm"]["alpha"] == 0.5
    assert "outside [0, 1]" in str(at_fields[0]) and at_fields[1] == ""  # in the messages' order


def test_an_out_of_range_parameter_reaches_the_server_to_be_named():
    area = str(params_area(["aniello-offline"], default_params(["aniello-offline"])))
    assert "max=" not in area and "min=" not in area  # the browser would send it as empty
    assert "'type': 'param-message'" in area


@pytest.mark.parametrize(
    ("rate", "says"),
    [
        (0, "Offered rate: 0 is not a positive number of tuples/s"),
        (-100, "Offered rate: -100 is not a positive number of tuples/s"),
        (None, "Offered rate: a number of tuples/s is needed"),  # "abc", or empty
    ],
)
def test_a_bad_rate_is_named_at_the_field(rate, says):
    message, css = rate_feedback(rate)
    assert message.startswith(says) and "last valid rate" in message
    assert css == "rate-input invalid"
    assert rate_feedback(7000) == ("", "rate-input")


def test_simulate_says_why_it_cannot_run():
    assert settings_problems(["even"], 7000, 1, 10_000) == ("", "", "")
    rate, at_settings, reason = settings_problems([], -1, 0, 50)
    assert rate == "offered rate: -1 is not a positive number of tuples/s"
    assert at_settings == (
        "replicas: 0 is not between 1 and 32; "
        "spout tuples per replica: 50 is not between 100 and 2,000,000"
    )
    assert reason.startswith("pick at least one scheduler; offered rate: -1")


def test_exports_wait_for_results_and_say_so():
    assert export_states(None) == (True, NO_RESULTS, True, NO_RESULTS)
    assert export_states({"results": []})[0] is True
    disabled_csv, csv_title, disabled_json, _ = export_states({"results": [{"scheduler": "x"}]})
    assert not disabled_csv and not disabled_json and "CSV" in csv_title

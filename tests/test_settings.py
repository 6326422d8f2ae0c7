"""Simulation settings: one value, its limits, and messages that name the field in words."""

import math
from pathlib import Path

import pytest

from core import settings
from core.comparison import SettingsError as OldHome
from core.settings import (
    MAX_RATES,
    MAX_REPLICAS,
    MAX_TUPLES,
    MIN_TUPLES,
    Settings,
    SettingsError,
)
from core.simulator import MAX_TUPLES as SIM_MAX_TUPLES
from core.simulator import MIN_TUPLES as SIM_MIN_TUPLES


def test_a_good_value_keeps_its_fields_with_rates_as_floats():
    s = Settings(rates=[500, 1000.5], replicas=3, tuples=2000, seed=7, master="local[2]")
    assert s.rates == (500.0, 1000.5) and all(type(r) is float for r in s.rates)
    assert (s.replicas, s.tuples, s.seed, s.master) == (3, 2000, 7, "local[2]")
    assert s.as_dict() == {
        "rates": [500.0, 1000.5],
        "replicas": 3,
        "tuples": 2000,
        "seed": 7,
        "master": "local[2]",
    }


def test_defaults_are_one_replica_of_100000_tuples_seed_0_default_master():
    s = Settings(rates=(10,))
    assert (s.replicas, s.tuples, s.seed, s.master) == (1, 100_000, 0, None)


def test_the_value_is_frozen():
    s = Settings(rates=(10,))
    with pytest.raises(AttributeError):
        s.replicas = 5


def test_limits_are_the_ones_chosen_and_the_simulator_shares_them():
    assert (MAX_RATES, MAX_REPLICAS, MIN_TUPLES, MAX_TUPLES) == (64, 32, 100, 2_000_000)
    assert (SIM_MIN_TUPLES, SIM_MAX_TUPLES) == (MIN_TUPLES, MAX_TUPLES)


def test_limits_are_inclusive():
    s = Settings(rates=[1.0] * MAX_RATES, replicas=MAX_REPLICAS, tuples=MAX_TUPLES)
    assert (len(s.rates), s.replicas, s.tuples) == (64, 32, 2_000_000)
    assert Settings(rates=(1,), replicas=1, tuples=MIN_TUPLES).tuples == 100


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"rates": (-5,)}, "offered rate: -5 is not a positive number of tuples/s"),
        ({"rates": (0.0,)}, "offered rate: 0 is not a positive number of tuples/s"),
        ({"rates": (math.nan,)}, "offered rate: nan is not a positive number of tuples/s"),
        ({"rates": (math.inf,)}, "offered rate: inf is not a positive number of tuples/s"),
        ({"rates": ("fast",)}, "offered rate: 'fast' is not a positive number of tuples/s"),
        ({"rates": (True,)}, "offered rate: True is not a positive number of tuples/s"),
        ({"rates": (None,)}, "offered rate: a number of tuples/s is needed"),
        ({"rates": ()}, "offered rates: give at least one offered rate"),
        ({"rates": "100"}, "offered rates: give at least one offered rate"),
        ({"rates": [1.0] * 65}, "offered rates: 65 rates, at most 64"),
        ({"replicas": 0}, "replicas: 0 is not between 1 and 32"),
        ({"replicas": 33}, "replicas: 33 is not between 1 and 32"),
        ({"replicas": 2.5}, "replicas: 2.5 is not a whole number"),
        ({"replicas": None}, "replicas: a whole number between 1 and 32 is needed"),
        ({"tuples": 99}, "spout tuples per replica: 99 is not between 100 and 2,000,000"),
        (
            {"tuples": 2_000_001},
            "spout tuples per replica: 2,000,001 is not between 100 and 2,000,000",
        ),
        ({"seed": -1}, "seed: -1 is not a whole number >= 0"),
        ({"seed": 1.5}, "seed: 1.5 is not a whole number >= 0"),
        ({"master": ""}, "Spark master: '' is not a Spark master URL (e.g. local[*])"),
        (
            {"master": "spark://a b"},
            "Spark master: 'spark://a b' is not a Spark master URL (no spaces, "
            "at most 500 characters)",
        ),
    ],
)
def test_bad_fields_are_refused_with_a_message_naming_the_field(fields, message):
    with pytest.raises(SettingsError) as err:
        Settings(**{"rates": (10.0,), **fields})
    assert str(err.value) == message
    assert str(err.value) == f"{err.value.field}: {err.value.message}"


def test_every_message_names_a_field_in_words_never_a_flag():
    words = set(settings.FIELDS.values()) | {settings.RATE}
    assert words == {
        "offered rate",
        "offered rates",
        "replicas",
        "spout tuples per replica",
        "seed",
        "Spark master",
    }
    assert not any(w.startswith("-") for w in words)


def test_settings_error_is_still_importable_from_the_comparison():
    assert OldHome is SettingsError and issubclass(SettingsError, ValueError)


def test_the_settings_module_imports_nothing_of_the_project():
    source = Path(settings.__file__).read_text()
    assert "from core" not in source.replace("core.settings.SettingsError", "")
    assert "import core" not in source

"""Fixtures of the simulator tests (builders in ``sim_builders``)."""

from __future__ import annotations

import pytest
from sim_builders import wordcount_data

from core.model import Scenario, validate_scenario


@pytest.fixture
def wordcount() -> Scenario:
    """WordCount-sized: spout x5 -> split x8 (shuffle, x10) -> count x12 (fields), 5 nodes."""
    return validate_scenario(wordcount_data())


@pytest.fixture
def wordcount_acked() -> Scenario:
    """The same with 3 acker executors."""
    return validate_scenario(wordcount_data(ackers=3))

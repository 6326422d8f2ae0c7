"""What a panel shows: the decisions list's bounds (its answer's size on every refresh)."""

from __future__ import annotations

from dashboard.panel_content import MAX_DECISION_CHARS, MAX_DECISIONS, decisions_text


def test_long_decisions_are_listed_within_the_character_budget_and_the_rest_counted():
    decisions = ["d" * 99] * 1529  # lines of 103 characters (1-9), 104 (10-99), 105 (100-)
    lines = decisions_text(decisions).split("\n")
    # 9 x 103 + 90 x 104 = 10,287 characters, then 16 lines of 105 fit in 12,000
    assert MAX_DECISION_CHARS == 12_000 and len(lines) == 115 + 1
    assert lines[:115] == [f"{i}. {'d' * 99}" for i in range(1, 116)]
    assert lines[-1] == "… and 1414 more"


def test_short_decisions_are_listed_up_to_the_line_limit():
    lines = decisions_text([f"e#{i} -> n1 slot 0" for i in range(500)]).split("\n")
    assert len(lines) == MAX_DECISIONS + 1 and lines[-1] == "… and 100 more"
    assert lines[0] == "1. e#0 -> n1 slot 0" and lines[399] == "400. e#399 -> n1 slot 0"


def test_one_decision_longer_than_the_budget_is_still_shown():
    assert decisions_text(["x" * 20_000]) == "1. " + "x" * 20_000

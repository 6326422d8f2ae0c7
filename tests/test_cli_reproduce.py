"""``slotscope reproduce [PAPER] [--json]``: one row per claim, bad papers named."""

import json

from core.claims import CLAIMS
from core.cli import main

ROW_KEYS = {
    "id", "paper", "claim", "source", "measure", "presets", "subject", "baseline",
    "paper_value", "band", "slotscope_value", "ratio", "verdict", "training",
    "known_gap", "note",
}  # fmt: skip


def test_reproduce_json_lists_every_claim_of_the_paper(capsys):
    assert main(["reproduce", "top-storm", "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    expected = [c.id for c in CLAIMS if c.paper == "top-storm"]
    assert [row["id"] for row in doc["claims"]] == expected
    assert all(set(row) == ROW_KEYS for row in doc["claims"])
    assert sum(doc["summary"].values()) == len(expected)
    nodes = next(r for r in doc["claims"] if r["id"] == "top-storm/wordcount-c1-nodes")
    assert nodes["paper_value"] == 1 and nodes["slotscope_value"] == 1
    assert nodes["verdict"] == "reproduced"


def test_reproduce_table_ends_with_the_counts(capsys):
    assert main(["reproduce", "top-storm"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0].startswith("claim")
    assert " claims: " in out.splitlines()[-1]


def test_unknown_paper_exits_2_naming_it(capsys):
    assert main(["reproduce", "storm-2099"]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("slotscope: paper: unknown 'storm-2099'")

"""``slotscope reproduce [PAPER] [--json] [--verbose]``: one row per claim in 120 columns,
reasons under --verbose or in the JSON, bad papers named."""

import dataclasses
import json

from core.claims import CLAIMS
from core.cli import main
from core.reproduce import TABLE_WIDTH, Row, table

ROW_KEYS = {
    "id", "paper", "claim", "source", "measure", "presets", "subject", "baseline",
    "paper_value", "band", "slotscope_value", "ratio", "verdict", "per_clock_ends",
    "training", "known_gap", "note",
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


def test_unknown_paper_exits_2_naming_it(capsys):
    assert main(["reproduce", "storm-2099"]) == 2
    _, err = capsys.readouterr()
    assert err.startswith("slotscope: paper: unknown 'storm-2099'")


def test_the_table_fits_120_columns_and_ends_with_the_counts(capsys):
    assert main(["reproduce", "top-storm"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("claim") and " claims: " in lines[-1]
    assert max(len(line) for line in lines) <= 120
    ids = [c.id for c in CLAIMS if c.paper == "top-storm"]
    assert [line.split()[0] for line in lines[1 : 1 + len(ids)]] == ids  # one line a claim
    assert lines[0].endswith("(*: reason, -v)")  # reasons are not in the table


def test_verbose_prints_each_reason_under_its_row_in_120_columns(capsys):
    assert main(["reproduce", "nasiri", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 120
    gap = next(c for c in CLAIMS if c.id == "nasiri/linear-vs-optimal").not_run
    assert " ".join(gap.split()[:8]) in " ".join(out.split())
    assert "      why: " in out and "      claim: " in out


def test_long_ids_and_reasons_are_cut_or_wrapped_to_the_width():
    long = dataclasses.replace(CLAIMS[0], id="x" * 300)
    rows = [Row(long, 12345.678, "direction", "a reason " * 80)]
    plain = table(rows).splitlines()
    assert all(len(line) <= TABLE_WIDTH for line in plain)
    assert plain[1].startswith("x" * 39 + "…")
    verbose = table(rows, verbose=True).splitlines()
    assert all(len(line) <= TABLE_WIDTH for line in verbose)
    start = next(i for i, line in enumerate(verbose) if line.startswith("      why: "))
    why = " ".join(verbose[start:-1]).split()  # the reason's lines, up to the counts
    assert why[0] == "why:" and why[1:] == ("a reason " * 80).split()  # whole, not cut

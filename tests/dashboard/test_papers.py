"""The Papers view's grid: its columns and the rows of one paper."""

from core.claims import CLAIMS
from dashboard.papers import COLUMNS, _column, claim_rows


def test_rows_say_which_claims_the_calibration_was_trained_on():
    rows, line = claim_rows("lf")
    assert line.startswith(f"{sum(c.paper == 'lf' for c in CLAIMS)} claims:")
    training = sorted(r["id"] for r in rows if r["training"])
    assert training == [
        "lf/pageview-cpu",
        "lf/pageview-even-latency-ms",
        "lf/pageview-lf-latency-ms",
    ]
    role = _column(*next(c for c in COLUMNS if c[0] == "training"))
    assert role["headerName"] == "Role"
    assert "'training' : 'check'" in role["valueFormatter"]["function"]

"""Page loads under concurrency (issue 23): no request thread sees a half-imported module.

plotly's JSON encoder and validators look pandas up in ``sys.modules`` without
importing it (``_plotly_utils.optional_imports.get_module(..., should_load=False)``),
so while another thread was importing pandas (Spark's warm-up does, on the first
page served) every page and layout request meanwhile failed with HTTP 500
("partially initialized module 'pandas' has no attribute 'NaT'"): 186 of 798 page
requests from 20 users under gunicorn. The server now imports those modules before
it serves anything.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

PEEKED = ("numpy", "pandas")  # what plotly reads from sys.modules without importing


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas not installed")
def test_the_app_imports_what_plotly_reads_without_importing():
    # A fresh interpreter: this test process may have imported pandas already.
    probe = (
        "import sys, dashboard.app\n"
        f"missing = [n for n in {PEEKED!r} if n not in sys.modules]\n"
        "print(','.join(missing))\n"
        "import pandas\n"
        "print(hasattr(pandas, 'NaT') and hasattr(pandas, 'Series'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    assert out == ["", "True"], out

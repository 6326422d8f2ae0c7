"""The Papers view in a browser: press Reproduce, read the claims beside our figures."""

from __future__ import annotations

import pytest

from browser.duo_helpers import click, wait_until
from core.claims import CLAIMS
from dashboard import ids

pytestmark = pytest.mark.browser


def test_reproduce_fills_the_claims_grid(page):
    click(page, f"#{ids.PAPERS_RUN}")
    summary = f"#{ids.PAPERS_SUMMARY}"
    wait_until(lambda: "claims:" in page.find_element(summary).text, timeout=60)
    assert page.find_element(summary).text.startswith(f"{len(CLAIMS)} claims:")
    grid = f"#{ids.PAPERS_GRID}"
    wait_until(lambda: page.find_elements(f"{grid} .ag-row"))
    first = page.find_elements(f"{grid} .ag-row")[0].text
    assert CLAIMS[0].text[:20] in first
    assert page.get_logs() == []

"""Simulation results as CSV or JSON text for download (the CLI's formats)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from core import report


def results_csv(doc: Mapping[str, Any]) -> str:
    """One line per result row; nested fields flattened (``latency_ms.p99``, ``cpu_util.n1``).

    The columns and values of ``slotscope simulate --csv`` (:func:`core.report.results_csv`).

    >>> skipped = {"scheduler": "optimal", "rate": 10.0, "replica": 0, "status": "refused",
    ...            "message": "too big", "placement_ms": 0.0}
    >>> print(results_csv({"results": [skipped]}).strip())
    scheduler,rate,replica,status,message,placement_ms
    optimal,10.0,0,refused,too big,0.0
    """
    return report.results_csv(doc.get("results", []))


def results_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=False)

"""Simulation results as CSV or JSON text for download."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

from core.comparison import flatten_result


def results_csv(doc: Mapping[str, Any]) -> str:
    """One line per result row; nested fields flattened (``latency_ms.p99``, ``cpu_util.n1``).

    >>> print(results_csv({"results": [{"scheduler": "even", "latency_ms": {"p99": 2.5}}]}).strip())
    scheduler,latency_ms.p99
    even,2.5
    """
    flat = [flatten_result(r) for r in doc.get("results", [])]
    columns = list(dict.fromkeys(k for row in flat for k in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(flat)
    return out.getvalue()


def results_json(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=False)

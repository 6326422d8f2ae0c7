"""Fetch Storm UI and Flink REST responses over HTTP (urllib, with a timeout).

Given the address of one Storm topology (``http://ui:8080/api/v1/topology/<id>``)
the importer also asks for its ``/visualization`` and the cluster's
``/api/v1/supervisor/summary``; given a Flink job (``http://jm:8081/jobs/<jid>`` or
``.../plan``) it asks for the plan. Any other address is fetched as it is.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from core.importers.common import parse_document
from core.model import MAX_SCENARIO_BYTES, ScenarioError

FETCH_TIMEOUT_S = 10.0  # s: per request; a Storm UI answers in well under a second
_STORM = re.compile(r"^(?P<base>.*?)/api/v1/topology/(?P<id>[^/]+)(?:/visualization)?/?$")
_FLINK = re.compile(r"^(?P<base>.*?)/jobs/(?P<jid>[0-9a-fA-F]{32})(?:/plan)?/?$")


def is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


def read_file(path: str) -> bytes:
    p = Path(path)
    if not p.exists():
        raise ScenarioError(path, "no such file")
    if p.is_dir():
        raise ScenarioError(path, "is a directory, not a JSON file")
    if p.stat().st_size > MAX_SCENARIO_BYTES:
        raise ScenarioError(path, f"larger than the limit of {MAX_SCENARIO_BYTES:,} bytes")
    return p.read_bytes()


def fetch_json(url: str, timeout_s: float = FETCH_TIMEOUT_S) -> Any:
    """GET ``url`` and parse its JSON body; ScenarioError naming the URL on any failure."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = response.read(MAX_SCENARIO_BYTES + 1)
    except urllib.error.HTTPError as err:
        raise ScenarioError(url, f"HTTP {err.code} {err.reason}") from None
    except urllib.error.URLError as err:
        raise ScenarioError(url, f"could not connect ({err.reason})") from None
    except TimeoutError:
        raise ScenarioError(url, f"no answer within {timeout_s:g} s") from None
    except OSError as err:
        raise ScenarioError(url, f"could not fetch ({err})") from None
    return parse_document(body, url)


def documents_from_url(
    url: str, timeout_s: float = FETCH_TIMEOUT_S
) -> tuple[list[tuple[str, Any]], list[str]]:
    """The documents one address stands for, and notes on what could not be fetched."""
    parts = urlsplit(url)
    path = parts.path
    storm = _STORM.match(path)
    flink = _FLINK.match(path)

    def at(new_path: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, new_path, parts.query, ""))

    if storm:
        topo_url = at(f"{storm['base']}/api/v1/topology/{storm['id']}")
        docs = [
            (topo_url, fetch_json(topo_url, timeout_s)),
            (f"{topo_url}/visualization", fetch_json(f"{topo_url}/visualization", timeout_s)),
        ]
        sup_url = urlunsplit(
            (parts.scheme, parts.netloc, f"{storm['base']}/api/v1/supervisor/summary", "", "")
        )
        try:
            docs.append((sup_url, fetch_json(sup_url, timeout_s)))
        except ScenarioError as err:
            return docs, [f"nodes: {err}; Storm's default nodes instead"]
        return docs, []
    if flink:
        plan_url = at(f"{flink['base']}/jobs/{flink['jid']}/plan")
        return [(plan_url, fetch_json(plan_url, timeout_s))], []
    return [(url, fetch_json(url, timeout_s))], []

"""Scenarios in and out of the page: the shareable URL, uploads, downloads.

An upload is only ever decoded and parsed as JSON, then validated: nothing
in it is executed. Its size is checked before it is decoded.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode

from core.model import MAX_EXECUTORS, Scenario, ScenarioError, parse_scenario
from core.settings import MAX_SCENARIO_BYTES

UPLOAD_GUARD_BYTES = 4 * MAX_SCENARIO_BYTES  # the browser refuses files above this outright
T = TypeVar("T")
# The page places every selected scheduler on every edit, in process: above this many
# executors that takes tens of seconds and GBs (10,000 executors: 50 s of CPU and 3.4 GB
# over the default panels); the command line takes the full limits.
DASHBOARD_MAX_EXECUTORS = 5_000


def check_dashboard_size(scenario: Scenario) -> Scenario:
    """``scenario`` if the page may place it; ScenarioError at the largest component's
    parallelism when it has more than ``DASHBOARD_MAX_EXECUTORS`` executors."""
    topo = scenario.topology
    executors = sum(c.parallelism for c in topo.components) + topo.ackers
    if executors <= DASHBOARD_MAX_EXECUTORS:
        return scenario
    largest = max(range(len(topo.components)), key=lambda i: topo.components[i].parallelism)
    raise ScenarioError(
        f"topology.components[{largest}].parallelism",
        f"{executors:,} executors in all: the dashboard places at most "
        f"{DASHBOARD_MAX_EXECUTORS:,} (the command line takes up to {MAX_EXECUTORS:,})",
    )


def build_query(preset: str | None, schedulers: Sequence[str]) -> str:
    """The URL query that reproduces a view: ``?preset=wordcount&schedulers=even,lf``.

    >>> build_query("wordcount", ["even", "lf"])
    '?preset=wordcount&schedulers=even%2Clf'
    """
    query = {}
    if preset:
        query["preset"] = preset
    query["schedulers"] = ",".join(schedulers)
    return "?" + urlencode(query)


def parse_query(
    search: str | None, presets: Iterable[str], schedulers: Iterable[str]
) -> tuple[str | None, list[str] | None]:
    """(preset, schedulers) named by a URL query; None for what it does not name validly.

    >>> parse_query("?preset=wordcount&schedulers=lf,nope,even", ["wordcount"], ["even", "lf"])
    ('wordcount', ['lf', 'even'])
    """
    query = parse_qs((search or "").lstrip("?"))
    known_presets, known_schedulers = set(presets), list(schedulers)
    preset = query.get("preset", [None])[0]
    if preset not in known_presets:
        preset = None
    chosen = None
    if "schedulers" in query:
        names = [s.strip() for s in query["schedulers"][0].split(",")]
        chosen = list(dict.fromkeys(s for s in names if s in known_schedulers))
    return preset, chosen


PRESENT_DEFAULT = ("even", "slotscope")  # the pair a presentation opens with


def parse_present(search: str | None, schedulers: Iterable[str]) -> list[str] | None:
    """The scheduler pair of a presentation (``?present=even,lf``), None when not presenting.

    ``present=1`` or a pair that names unknown schedulers falls back to even
    and slotscope.

    >>> parse_present("?preset=w&present=lf,even", ["even", "lf", "slotscope"])
    ['lf', 'even']
    >>> parse_present("?present=1", ["even", "lf", "slotscope"]), parse_present("?x=1", [])
    (['even', 'slotscope'], None)
    """
    query = parse_qs((search or "").lstrip("?"))
    if "present" not in query:
        return None
    known = list(schedulers)
    names = [s.strip() for s in query["present"][0].split(",")]
    pair = list(dict.fromkeys(s for s in names if s in known))[:2]
    return pair if len(pair) == 2 else [s for s in PRESENT_DEFAULT if s in known]


def upload_bytes(contents: str | None, filename: str | None) -> tuple[bytes, str]:
    """The bytes and name of one upload (a ``data:...;base64,`` URL); ScenarioError if refused."""
    source = filename if isinstance(filename, str) and filename else "upload"
    if not isinstance(contents, str):  # a hand-sent request: the browser sends a data URL
        raise ScenarioError(source, "not a file's contents (expected a data: URL)")
    if not contents or "," not in contents:
        raise ScenarioError(source, "empty upload")
    payload = contents.split(",", 1)[1]
    size = len(payload) * 3 // 4
    if size > MAX_SCENARIO_BYTES:
        raise ScenarioError(source, f"about {size:,} bytes, the limit is {MAX_SCENARIO_BYTES:,}")
    try:
        return base64.b64decode(payload, validate=True), source
    except (binascii.Error, ValueError):
        raise ScenarioError(source, "could not be read (not base64 data)") from None


def decode_upload(contents: str | None, filename: str | None) -> Scenario:
    """The scenario in an upload; ScenarioError if refused (whatever the file holds)."""
    raw, source = upload_bytes(contents, filename)
    return check_dashboard_size(guarded(source, lambda: parse_scenario(raw, source=source)))


def guarded(source: str, read: Callable[[], T]) -> T:
    """``read()``, with any failure but a ScenarioError turned into one naming ``source``:
    an upload is never an HTTP 500, whatever it holds.

    >>> guarded("deep.json", lambda: json.loads("[" * 100_000))
    Traceback (most recent call last):
    ...
    core.model.ScenarioError: deep.json: JSON nested too deeply to be a scenario
    """
    try:
        return read()
    except ScenarioError:
        raise
    except RecursionError:
        raise ScenarioError(source, "JSON nested too deeply to be a scenario") from None
    except (ValueError, TypeError, OverflowError, UnicodeError) as err:
        raise ScenarioError(source, f"could not be read ({type(err).__name__}: {err})") from None


def scenario_download(data: Mapping[str, Any], rate: float | None) -> dict[str, Any]:
    """A ``dcc.Download`` payload: the scenario JSON with the offered rate in force."""
    doc = json.loads(json.dumps(data))
    if rate:
        doc.setdefault("workload", {})["rate"] = rate
    name = str(doc.get("name") or "scenario").replace("/", "_")
    return {
        "content": json.dumps(doc, indent=2),
        "filename": f"{name}.json",
        "type": "application/json",
    }

"""The whole view in a link: scenario (edits, imports), rate, schedulers, parameters,
compare pair and what-if, as a URL query plus, when needed, a short id kept on disk.

A view names what is loaded (a preset, or ``imported: NAME`` / ``file: NAME``), the
scenario in force when it is not the preset's own, the offered rate, the selected
schedulers, the parameters that differ from the registry defaults, the compare pair
and the failed node of the what-if. What a query can carry plainly (preset,
schedulers, rate, the Cluster view's picks) stays readable in it; the rest goes into
a JSON file named by the first 16 hex digits of the SHA-256 of the view's canonical
JSON (``?view=<id>``), in ``views/`` under the result cache's private (0700)
directory. The same view always has the same id; files are written 0600, at most
``MAX_VIEW_BYTES`` each, and the least recently used go first beyond ``MAX_VIEWS``
files or ``MAX_VIEWS_BYTES`` in all. A view read back is checked again (its id,
schedulers, parameters, scenario): a file changed on disk cannot put an invalid value
in the page. Nothing read is executed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import stat
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

from core.model import ScenarioError, validate_scenario
from core.presets import LARGE_PRESETS, PRESETS, preset
from core.registry import SCHEDULERS, SchedulerError
from core.settings import SettingsError, check_rate
from dashboard import registry
from dashboard.cluster_view import ClusterPicks, checked_picks
from dashboard.jobs import cache_dir, private_dir, write_private
from dashboard.transfer import check_dashboard_size

log = logging.getLogger(__name__)

VIEW_VERSION = 1
ID_LENGTH = 16  # hex digits of the SHA-256: 64 bits
MAX_VIEW_BYTES = 4_000_000  # a view's JSON at most (a 2 MB scenario, canonical, fits)
MAX_VIEWS = 500  # view files kept, at most
MAX_VIEWS_BYTES = 100_000_000  # bytes of view files kept, at most
LOADED_PREFIXES = {"imported": "imported: ", "uploaded": "file: "}  # the preset box's words
QUERY_KEYS = {"imported": "imported", "uploaded": "file"}  # the URL's words for them
_ID = re.compile(rf"^[0-9a-f]{{{ID_LENGTH}}}$")


class ViewError(ValueError):
    """A view that cannot be linked or restored; ``str`` is one line for the page."""


@dataclass(frozen=True)
class View:
    """Everything a link restores.

    ``loaded`` is the preset box's value: a preset name or ``imported: NAME`` /
    ``file: NAME``; ``scenario`` the scenario in force (JSON) when it is not the
    preset's own; ``rate`` tuples/s per spout; ``params`` the values that differ
    from the registry defaults, per scheduler; ``compare`` the picked pair;
    ``whatif`` the failed node or slot (``whatif.failure_of_value``'s value); ``cluster``
    the Cluster view's picks (:class:`dashboard.cluster_view.ClusterPicks`), in the JSON
    only when a cluster is picked (the ids of views without one are unchanged).
    """

    loaded: str
    scenario: dict[str, Any] | None
    rate: float
    schedulers: tuple[str, ...]
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    compare: tuple[str | None, str | None] = (None, None)
    whatif: str | None = None
    cluster: ClusterPicks | None = None

    def to_json(self) -> dict[str, Any]:
        doc = {
            "v": VIEW_VERSION,
            "loaded": self.loaded,
            "scenario": self.scenario,
            "rate": self.rate,
            "schedulers": list(self.schedulers),
            "params": self.params,
            "compare": list(self.compare),
            "whatif": self.whatif,
        }
        if self.cluster is not None:
            doc["cluster"] = self.cluster.to_json()
        return doc


def loaded_value(kind: str, name: str) -> str:
    """The preset box's value for a scenario that is no preset.

    >>> loaded_value("imported", "WordCount3")
    'imported: WordCount3'
    """
    return LOADED_PREFIXES[kind] + name


LARGE_GROUP = "__large_presets__"  # the disabled heading of the large presets


def loaded_kind(value: str | None) -> str | None:
    """``preset``, ``imported`` or ``uploaded`` for a preset box value; None if neither.

    >>> loaded_kind("wordcount"), loaded_kind("file: x"), loaded_kind("nope")
    ('preset', 'uploaded', None)
    """
    if value in PRESETS or (value in LARGE_PRESETS and too_large(value) is None):
        return "preset"
    for kind, prefix in LOADED_PREFIXES.items():
        if isinstance(value, str) and value.startswith(prefix):
            return kind
    return None


def preset_options(loaded: str | None = None) -> list[dict[str, Any]]:
    """The preset box's options: every preset, then what is loaded when it is no preset."""
    options = [{"label": name, "value": name, "title": desc} for name, (desc, _) in PRESETS.items()]
    options += large_preset_options()
    if loaded is not None and loaded not in PRESETS and loaded not in LARGE_PRESETS:
        options.append({"label": loaded, "value": loaded, "title": "the scenario loaded now"})
    return options


def large_preset_options() -> list[dict[str, Any]]:
    """The large-cluster topology sets, a group of their own under a disabled heading."""
    heading = "── Large clusters: topology sets ──"
    group = [{"label": heading, "value": LARGE_GROUP, "disabled": True}]
    return group + [
        {"label": name, "value": name, "title": desc} for name, (desc, _) in LARGE_PRESETS.items()
    ]


def default_pair(schedulers: Sequence[str]) -> tuple[str | None, str | None]:
    """The compare pair a selection starts with: its first two schedulers."""
    return (
        schedulers[0] if schedulers else None,
        schedulers[1] if len(schedulers) > 1 else None,
    )


def follow_selection(
    schedulers: Sequence[str], pair: Sequence[str | None]
) -> tuple[str | None, str | None]:
    """The compare pair after the selection changed: a picked scheduler stays while it is
    selected; one that left is replaced by the first selected one not already picked.

    >>> follow_selection(["even", "lf", "toss"], ["lf", "rstorm"])
    ('lf', 'even')
    >>> follow_selection(["even"], ["lf", "rstorm"])
    ('even', None)
    """
    kept = [s if s in schedulers else None for s in (list(pair) + [None, None])[:2]]
    for i, s in enumerate(kept):
        if s is None:
            free = [x for x in schedulers if x not in kept]
            kept[i] = free[0] if free else None
    return kept[0], kept[1]


def _differing_params(
    schedulers: Sequence[str], params: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    defaults = registry.default_params(schedulers)
    chosen = registry.params_for(schedulers, params)
    out = {}
    for s, values in chosen.items():
        changed = {k: v for k, v in values.items() if defaults[s].get(k) != v}
        if changed:
            out[s] = changed
    return out


@cache
def too_large(name: str) -> str | None:
    """Why the page cannot load a large preset, in words (None when it can: the set is
    then loaded in the editors, as choosing it in the preset box does)."""
    try:
        check_dashboard_size(preset(name))
    except ScenarioError as err:
        return err.message
    return None


@cache
def _preset_data(name: str) -> dict[str, Any]:
    return json.loads(json.dumps(preset(name).to_json_dict()))  # as a page's store holds it


def base_scenario(loaded: str) -> dict[str, Any] | None:
    """The scenario a preset box value loads by itself (None when it is no preset, or a
    large preset too large for the page). Built once per preset: do not change it."""
    if loaded in PRESETS or loaded_kind(loaded) == "preset":
        return _preset_data(loaded)
    return None


def view_of(
    loaded: str,
    scenario: Mapping[str, Any] | None,
    rate: Any,
    schedulers: Sequence[str] | None,
    params: Mapping[str, Mapping[str, Any]] | None,
    compare: Sequence[str | None] = (None, None),
    whatif: str | None = None,
    cluster: ClusterPicks | None = None,
) -> View:
    """The view the page shows; ViewError when the rate is not a positive number."""
    try:
        rate_value = check_rate(rate)
    except SettingsError as err:
        raise ViewError(str(err)) from None
    chosen = [s for s in (schedulers or []) if s in SCHEDULERS]
    base = base_scenario(loaded)
    data = None
    if scenario and scenario != base:  # the preset's own (most edits' case): no copy
        data = json.loads(json.dumps(scenario))
        data = None if data == base else data
    pair = tuple(s if s in chosen else None for s in (list(compare) + [None, None])[:2])
    return View(
        loaded=loaded,
        scenario=data,
        rate=rate_value,
        schedulers=tuple(chosen),
        params=_differing_params(chosen, params),
        compare=(pair[0], pair[1]),
        whatif=whatif or None,
        cluster=cluster,
    )


def canonical_text(view: View) -> str:
    return json.dumps(view.to_json(), sort_keys=True, separators=(",", ":"))


def view_id(view: View) -> str:
    """The view's short id: the first 16 hex digits of its canonical JSON's SHA-256."""
    return hashlib.sha256(canonical_text(view).encode()).hexdigest()[:ID_LENGTH]


def loaded_rate(view: View) -> float | None:
    """The offered rate the loaded scenario states by itself."""
    data = view.scenario if view.scenario is not None else base_scenario(view.loaded)
    return (data or {}).get("workload", {}).get("rate")


def needs_id(view: View) -> bool:
    """Whether the query alone cannot carry the view (edits, imports, parameters, the
    compare pair, a what-if)."""
    return (
        view.scenario is not None
        or bool(view.params)
        or view.compare != default_pair(view.schedulers)
        or view.whatif is not None
    )


def query_of(view: View, saved_id: str | None) -> str:
    """The URL query of a view: preset (or what was loaded), schedulers, the rate when it
    is not the scenario's own, and the view's id when the rest needs one.

    >>> query_of(View("wordcount", None, 7000.0, ("even", "lf")), None)
    '?preset=wordcount&schedulers=even%2Clf&rate=7000'
    """
    kind = loaded_kind(view.loaded)
    query: dict[str, str] = {}
    if kind == "preset":
        query["preset"] = view.loaded
    elif kind is not None:
        query[QUERY_KEYS[kind]] = view.loaded[len(LOADED_PREFIXES[kind]) :]
    query["schedulers"] = ",".join(view.schedulers)
    if view.rate != loaded_rate(view):
        query["rate"] = f"{view.rate:g}"
    if view.cluster is not None:
        query.update(view.cluster.query())
    if saved_id:
        query["view"] = saved_id
    return "?" + urlencode(query)


@dataclass(frozen=True)
class LinkRequest:
    """What a URL query asks for: a view id and the plain fields (None: not named).
    ``preset`` may be a large preset (too large for the page or not); ``notes`` say
    which of the Cluster view's values were dropped."""

    view: str | None = None
    preset: str | None = None
    schedulers: list[str] | None = None
    rate: float | None = None
    bad_rate: str | None = None
    cluster: ClusterPicks | None = None
    notes: tuple[str, ...] = ()


def read_query(search: str | None) -> LinkRequest:
    """The view id, preset, schedulers, rate and Cluster view picks a URL query names
    (unknown names dropped; the Cluster view's with a note).

    >>> req = read_query("?preset=wordcount&schedulers=lf,nope&rate=7000&view=abc")
    >>> req.view, req.preset, req.schedulers, req.rate, req.cluster
    (None, 'wordcount', ['lf'], 7000.0, None)
    """
    query = parse_qs((search or "").lstrip("?"))
    wanted = query.get("view", [""])[0]
    name = query.get("preset", [None])[0]
    chosen = None
    if "schedulers" in query:
        names = [s.strip() for s in query["schedulers"][0].split(",")]
        chosen = list(dict.fromkeys(s for s in names if s in SCHEDULERS))
    rate, bad = None, None
    if "rate" in query:
        raw = query["rate"][0]
        try:
            rate = check_rate(float(raw))
        except (ValueError, SettingsError):
            bad = raw
    too_big = name if name in LARGE_PRESETS and too_large(name) is not None else None
    cluster, notes = cluster_request(query, too_big)
    return LinkRequest(
        view=wanted if _ID.match(wanted) else None,
        preset=name if name in PRESETS or name in LARGE_PRESETS else None,
        schedulers=chosen,
        rate=rate,
        bad_rate=bad,
        cluster=cluster,
        notes=tuple(notes),
    )


CLUSTER_KEYS = ("cluster", "cluster_schedulers", "cluster_figure", "cluster_topology")


def cluster_request(
    query: Mapping[str, list[str]], implied: str | None = None
) -> tuple[ClusterPicks | None, list[str]]:
    """The Cluster view's picks a parsed query names (``cluster``, ``cluster_schedulers``,
    ``cluster_figure``, ``cluster_topology``), checked; notes for what was dropped. The
    cluster is ``implied`` when the query names none (a preset too large for the page).

    >>> query = {"cluster": ["storm-large-cluster-01"], "cluster_figure": ["slots"]}
    >>> picks, notes = cluster_request(query)
    >>> picks.cluster, picks.schedulers, picks.figure, notes
    ('storm-large-cluster-01', ('ras-default', 'ras-generic'), 'slots', [])
    """
    raw = {key: query[key][0] for key in CLUSTER_KEYS if key in query}
    if implied is not None:
        raw.setdefault("cluster", implied)
    if "cluster" not in raw:
        if raw:
            return None, [f"{', '.join(sorted(raw))} named without a cluster: ignored"]
        return None, []
    schedulers = raw.get("cluster_schedulers")
    return checked_picks(
        raw["cluster"],
        [s.strip() for s in schedulers.split(",") if s.strip()] if schedulers is not None else None,
        raw.get("cluster_figure"),
        raw.get("cluster_topology"),
    )


def asked_view_id(search: str | None) -> str | None:
    """The ``view=`` value of a query as given (valid or not), None when absent."""
    values = parse_qs((search or "").lstrip("?")).get("view")
    return values[0] if values else None


def checked(doc: Any) -> View:
    """A view read back from disk, checked field by field; ViewError if unusable."""
    if not isinstance(doc, dict) or doc.get("v") != VIEW_VERSION:
        raise ViewError("not a view of this version")
    loaded = doc.get("loaded")
    kind = loaded_kind(loaded)
    scenario = doc.get("scenario")
    if kind is None or (kind != "preset" and scenario is None):
        raise ViewError(f"it names no loaded scenario ({loaded!r})")
    if scenario is not None:
        try:
            scenario = validate_scenario(scenario).to_json_dict()
        except ScenarioError as err:
            raise ViewError(f"its scenario is invalid: {err}") from None
    schedulers = [s for s in doc.get("schedulers") or [] if s in SCHEDULERS]
    params: dict[str, dict[str, Any]] = {}
    for s, values in (doc.get("params") or {}).items():
        for name, value in (values or {}).items() if s in schedulers else ():
            try:
                params.setdefault(s, {})[name] = registry.parse_param(s, name, value)
            except SchedulerError:
                continue  # dropped: the registry default stands
    compare = list(doc.get("compare") or [None, None]) + [None, None]
    whatif = doc.get("whatif")
    picked = doc.get("cluster") if isinstance(doc.get("cluster"), dict) else {}
    names = picked.get("schedulers")
    cluster, _ = checked_picks(
        picked.get("cluster"),
        names if isinstance(names, list) else None,
        picked.get("figure"),
        picked.get("topology"),
    )
    return view_of(
        loaded,
        scenario if scenario is not None else base_scenario(loaded),
        doc.get("rate"),
        schedulers,
        params,
        [c if isinstance(c, str) else None for c in compare[:2]],
        whatif if isinstance(whatif, str) else None,
        cluster,
    )


class ViewStore:
    """Views as JSON files ``<id>.json`` in a private directory (default: ``views`` under
    the result cache's directory). When the directory is unusable nothing is stored."""

    def __init__(self, directory: Path | str | None = None):
        self._lock = threading.Lock()
        try:
            self.directory: Path | None = private_dir(Path(directory or cache_dir() / "views"))
        except OSError as err:
            log.warning("views will not be stored: %s", err)
            self.directory = None

    def save(self, view: View) -> str:
        """Store the view; its id. ViewError when it is too large or cannot be stored."""
        text = canonical_text(view)
        if len(text) > MAX_VIEW_BYTES:
            raise ViewError(
                f"the view takes {len(text):,} bytes, a link holds at most {MAX_VIEW_BYTES:,}"
            )
        if self.directory is None:
            raise ViewError("the server cannot store views (its cache directory is unusable)")
        saved = view_id(view)
        path = self.directory / f"{saved}.json"
        if path.exists():
            os.utime(path)  # recently used: pruned last
            return saved
        write_private(path, text)
        self._prune()
        return saved

    def load(self, wanted: str) -> View:
        """The view stored under ``wanted``; ViewError when absent or untrustworthy."""
        if self.directory is None or not _ID.match(wanted or ""):
            raise ViewError(f"no view '{wanted}' on this server")
        path = self.directory / f"{wanted}.json"
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            raise ViewError(f"no view '{wanted}' on this server (expired or never made)") from None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if info.st_uid != os.getuid() or not stat.S_ISREG(info.st_mode):
                raise ViewError(f"view '{wanted}' is not this server's")
            if info.st_size > MAX_VIEW_BYTES:
                raise ViewError(f"view '{wanted}' is too large")
            raw = f.read(MAX_VIEW_BYTES + 1)
        try:
            doc = json.loads(raw)
        except (ValueError, RecursionError):
            raise ViewError(f"view '{wanted}' could not be read") from None
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
        if hashlib.sha256(text.encode()).hexdigest()[:ID_LENGTH] != wanted:
            raise ViewError(f"view '{wanted}' was changed on disk")
        os.utime(path)
        return checked(doc)

    def _prune(self) -> None:
        assert self.directory is not None
        with self._lock:
            files = []
            for p in self.directory.glob("*.json"):
                try:
                    files.append((p.stat().st_mtime, p.stat().st_size, p))
                except OSError:
                    continue
            files.sort()
            total = sum(size for _, size, _ in files)
            while files and (len(files) > MAX_VIEWS or total > MAX_VIEWS_BYTES):
                _, size, old = files.pop(0)
                old.unlink(missing_ok=True)
                total -= size


_STORE: ViewStore | None = None
_STORE_LOCK = threading.Lock()


def store() -> ViewStore:
    """The server's view store (made on first use)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = ViewStore()
        return _STORE


def link_of(view: View, views: ViewStore | None = None) -> tuple[str, str | None]:
    """The URL query of a view, saving it when the query alone cannot carry it; and why
    the link is partial (None when whole)."""
    if not needs_id(view):
        return query_of(view, None), None
    try:
        return query_of(view, (views or store()).save(view)), None
    except (ViewError, OSError) as err:
        return query_of(view, None), f"The link keeps only the preset, schedulers and rate: {err}"

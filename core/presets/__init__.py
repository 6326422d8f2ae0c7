"""Built-in scenarios from the papers (``slotscope presets``).

One module per paper: :mod:`core.presets.top_storm` (TOP-Storm's Table 4
cluster, WordCount and Exclamation), :mod:`core.presets.lf` (L/F's cluster,
synthetic workloads and page view), :mod:`core.presets.rstorm` (R-Storm's
micro-benchmarks), :mod:`core.presets.nasiri` (Nasiri et al.'s benchmarks
and profiling rows) and :mod:`core.presets.aniello`. Each module's
``presets()`` returns name -> (one-line description, builder); every number a
paper gives is taken from it and cited, every other number is marked ours.

Offered rates: where the paper gives one (L/F: 1 message/ms per source) it is
used; elsewhere (ours) it loads the busiest executor of Storm's default
placement (``even``) to about half a core and no node beyond ~70% of its
cores: loaded enough for placements to differ, far from saturation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from core.model import Scenario, ScenarioError, parse_scenario, validate_scenario
from core.presets import aniello as _aniello
from core.presets import lf as _lf
from core.presets import nasiri as _nasiri
from core.presets import rstorm as _rstorm
from core.presets import storm_large as _storm_large
from core.presets import top_storm as _top_storm
from core.presets.lf import LF_SHAPES, lf_nodes, lf_synthetic
from core.presets.top_storm import TABLE_4, TABLE_5, top_storm

__all__ = [
    "LARGE_PRESETS",
    "LF_SHAPES",
    "PRESETS",
    "STATED_DEFAULTS",
    "TABLE_4",
    "TABLE_5",
    "is_preset",
    "lf_nodes",
    "lf_synthetic",
    "load_scenario",
    "preset",
    "preset_json",
    "top_storm",
]


def _described(description: str, build: Callable[[], dict[str, Any]]):
    """The builder, with the description the registry lists set on its scenario."""
    return lambda: {**build(), "description": description}


def _registry() -> dict[str, tuple[str, Callable[[], dict[str, Any]]]]:
    entries: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {}
    for module in (_top_storm, _lf, _rstorm, _nasiri, _aniello):
        for name, (description, build) in module.presets().items():
            assert name not in entries, name
            entries[name] = (description, _described(description, build))
    return entries


# name -> (one-line description, scenario JSON builder)
PRESETS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = _registry()
# Apache Storm's production corpus as topology sets (core/presets/storm_large.py): tens
# of thousands of executors on up to 1,922 nodes, so kept apart from PRESETS, the quick
# list every view and test loops over; preset() and load_scenario() take them.
LARGE_PRESETS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    name: (description, _described(description, build))
    for name, (description, build) in _storm_large.presets().items()
}
STATED_DEFAULTS = {name: _storm_large.STATED_DEFAULTS for name in LARGE_PRESETS}


def is_preset(name: str) -> bool:
    """Whether ``name`` is a built-in scenario (the quick list or a large cluster)."""
    return name in PRESETS or name in LARGE_PRESETS


@cache
def preset(name: str) -> Scenario:
    """A built-in scenario by name; an unknown name lists the valid ones."""
    if not is_preset(name):
        valid = ", ".join([*PRESETS, *LARGE_PRESETS])
        raise ScenarioError("preset", f"unknown preset '{name}' (valid: {valid})")
    return validate_scenario({**PRESETS, **LARGE_PRESETS}[name][1]())


def preset_json(name: str) -> dict[str, Any]:
    """The preset's scenario as JSON-ready data (what ``slotscope preset NAME`` prints)."""
    return preset(name).to_json_dict()


def load_scenario(ref: str) -> Scenario:
    """A scenario from a preset name or a JSON file path.

    Raises
    ------
    ScenarioError
        No such preset or file, a directory, or an invalid scenario.
    """
    if is_preset(ref):
        return preset(ref)
    path = Path(ref)
    if not path.exists():
        raise ScenarioError(
            ref, "no such file or preset (see 'slotscope presets' for the built-in ones)"
        )
    if path.is_dir():
        raise ScenarioError(ref, "is a directory, not a scenario file")
    return parse_scenario(path.read_bytes(), source=ref)

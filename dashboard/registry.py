"""The scheduler registry as the dashboard sees it: selection, defaults, colours.

Everything iterates ``core.registry.SCHEDULERS``: a scheduler that lands in
the registry appears in the picker, the panels and the charts without a
change here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core.registry import SCHEDULERS, Param, SchedulerError, get_scheduler
from dashboard.colors import scheduler_colors

# Exhaustive search takes seconds to hours: not a default for a refresh on every edit.
# Storm 2's resource-aware strategies are in the picker, not in the first screen's nine.
EXCLUDED_BY_DEFAULT = ("optimal", "ras-default", "ras-generic", "ras-round-robin", "ras-constraint")


def default_selection() -> list[str]:
    return [s for s in SCHEDULERS if s not in EXCLUDED_BY_DEFAULT]


def colors() -> dict[str, str]:
    """Scheduler id -> colour, stable for the registry."""
    return scheduler_colors(SCHEDULERS)


def json_ready(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def default_params(selected: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Registry defaults of every parameter of the selected schedulers."""
    return {
        s: {p.name: json_ready(p.default) for p in SCHEDULERS[s].params}
        for s in selected
        if s in SCHEDULERS
    }


def params_for(
    selected: Iterable[str], stored: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    """Stored values where there are some, registry defaults elsewhere."""
    out = default_params(selected)
    for s, values in (stored or {}).items():
        if s in out:
            out[s].update({k: v for k, v in values.items() if k in out[s]})
    return out


def param_spec(scheduler: str, name: str) -> Param:
    for p in get_scheduler(scheduler).params:
        if p.name == name:
            return p
    raise SchedulerError(f"unknown parameter '{name}' of scheduler '{scheduler}'")


def parse_param(scheduler: str, name: str, value: Any) -> Any:
    """A parameter value from its input widget, converted and range-checked (JSON-ready)."""
    param = param_spec(scheduler, name)
    if value is None or (value == "" and param.kind != "floats"):
        raise SchedulerError(f"{scheduler} {name}: a value is needed")
    if param.kind is bool and isinstance(value, list):
        value = bool(value)
    try:
        return json_ready(param.parse(value))
    except SchedulerError as err:
        raise SchedulerError(f"{scheduler} {err}") from None

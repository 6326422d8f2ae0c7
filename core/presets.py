"""Built-in scenarios from the papers (``slotscope presets``).

Each preset is a function returning scenario JSON (a dict), registered in the
literal ``PRESETS`` dict with a one-line description: the paper and what the
scenario demonstrates. Costs (cpu_us, selectivity, tuple_bytes) cite their
sources in comments.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from core.model import Scenario, ScenarioError, validate_scenario

# --------------------------------------------------------------------------
# L/F synthetic workloads (Son & Moon, Electronics 2020, Sec. 5): eight
# components in a line; 8 nodes x 1 slot and W = 8 ("low parallelism"), or
# everything x10: 10 slots per node and W = 80 ("high parallelism").

LF_SHAPES = {
    "linear": (1, 1, 1, 1, 1, 1, 1, 1),
    "ascent": (1, 2, 3, 4, 5, 6, 7, 8),
    "descent": (8, 7, 6, 5, 4, 3, 2, 1),
    "diamond": (2, 4, 6, 8, 8, 6, 4, 2),
    "star": (8, 6, 4, 2, 2, 4, 6, 8),
}


def lf_synthetic(shape: str, scale: int = 1) -> dict[str, Any]:
    parallelism = [p * scale for p in LF_SHAPES[shape]]
    ids = [f"c{i + 1}" for i in range(len(parallelism))]
    return {
        "name": f"lf-{shape}" + (f"-x{scale}" if scale > 1 else ""),
        "description": (
            f"L/F paper's synthetic '{shape}' workload, "
            f"{'high' if scale > 1 else 'low'} parallelism: 8 components in a line "
            f"({', '.join(map(str, parallelism))} executors) on 8 nodes x {scale} slot(s)."
        ),
        "topology": {
            "name": shape,
            "workers": 8 * scale,
            "components": [
                # Son & Moon's synthetic bolts do a fixed small amount of work per
                # tuple; 20 us keeps a node far from saturation at the demo rate.
                {"id": cid, "parallelism": p, "cpu_us": 20.0, "selectivity": 1.0}
                for cid, p in zip(ids, parallelism, strict=True)
            ],
            "streams": [{"from": a, "to": b} for a, b in zip(ids, ids[1:], strict=False)],
        },
        "cluster": {
            "nodes": [
                {"id": f"n{i + 1}", "cores": 4, "ghz": 3.0, "ram_gb": 16, "slots": scale}
                for i in range(8)
            ]
        },
        "workload": {"rate": 1000},
    }


PRESETS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    **{
        f"lf-{shape}": (lf_synthetic(shape)["description"], lambda s=shape: lf_synthetic(s))
        for shape in LF_SHAPES
    },
    **{
        f"lf-{shape}-x10": (
            lf_synthetic(shape, 10)["description"],
            lambda s=shape: lf_synthetic(s, 10),
        )
        for shape in LF_SHAPES
    },
}


@cache
def preset(name: str) -> Scenario:
    """A built-in scenario by name; an unknown name lists the valid ones."""
    if name not in PRESETS:
        raise ScenarioError("preset", f"unknown preset '{name}' (valid: {', '.join(PRESETS)})")
    return validate_scenario(PRESETS[name][1]())


def preset_json(name: str) -> dict[str, Any]:
    """The preset's scenario as JSON-ready data (what ``slotscope preset NAME`` prints)."""
    return preset(name).to_json_dict()

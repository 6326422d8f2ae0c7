"""Server CPU of one placement refresh after an edit, in process (no browser, no HTTP).

What the panels' callback computes for an edit (``dashboard.panels.fill_panels``): every
default panel's placement and analysis (``dashboard.compute.evaluate``) and its content
(``dashboard.panel_content.panel_content``), the background placements (the searches)
left out. Every preset is shown once first (the memo a running server has), then
``EDITS`` edits as ``python -m bench load`` makes them: a random preset, one component's
parallelism or one node's cores moved by one. Prints the process CPU per refresh (mean,
p50, p95: the x10 presets make the tail), the cyclic collector's full passes and their
time, and the CPU per scheduler. Process CPU, so other work on the machine does not
count; compare runs back to back all the same (caches and memory bandwidth are shared).
"""

from __future__ import annotations

import copy
import gc
import random
import time
from typing import Any

import numpy as np

from bench.load import default_schedulers
from core.model import ScenarioError
from core.presets import PRESETS, preset_json
from dashboard import compute
from dashboard.jobs import in_background
from dashboard.panel_content import panel_content

EDITS = 80
SEED = 7


class FullPasses:
    """The cyclic collector's full (generation 2) passes while installed: count and time, s."""

    def __init__(self) -> None:
        self.count, self.seconds, self._start = 0, 0.0, 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        elif info["generation"] == 2:
            self.count += 1
            self.seconds += time.perf_counter() - self._start


def refresh(text: str, rate: float, schedulers: list[str], cpu: dict[str, float]) -> None:
    """Every foreground panel of ``text`` at ``rate``; adds each scheduler's CPU (s) to cpu."""
    for s in schedulers:
        if in_background(s, text):
            continue
        start = time.process_time()
        compute.evaluate(text, s, "{}", rate)
        panel_content(text, s, compute.resolved_params(s, "{}"), rate)
        cpu[s] = cpu.get(s, 0.0) + time.process_time() - start


def edited(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``data`` with one component's parallelism or one node's cores moved by one."""
    data = copy.deepcopy(data)
    if rng.random() < 0.5:
        row, field = rng.choice(data["topology"]["components"]), "parallelism"
    else:
        row, field = rng.choice(data["cluster"]["nodes"]), "cores"
    row[field] = max(1, row[field] + rng.choice([-1, 1]))
    return data


def main(edits: int = EDITS, seed: int = SEED) -> None:
    schedulers = default_schedulers()
    gc.freeze()  # as the server does after its imports (dashboard/app.py)
    for name in PRESETS:  # the page shown once per preset, as on a server that ran a while
        data = preset_json(name)
        refresh(compute.canonical(data), float(data["workload"]["rate"]), schedulers, {})
    rng, shown = random.Random(seed), {}
    passes, cpu, times = FullPasses(), {}, []
    gc.callbacks.append(passes)
    try:
        while len(times) < edits:
            name = rng.choice(list(PRESETS))
            data = edited(shown.get(name) or preset_json(name), rng)
            text = compute.canonical(data)
            try:
                compute.scenario_of(text)  # the editors refuse it (cores above threads)
            except ScenarioError:
                continue
            shown[name] = data
            start = time.process_time()
            refresh(text, float(data["workload"]["rate"]), schedulers, cpu)
            times.append(time.process_time() - start)
    finally:
        gc.callbacks.remove(passes)
    ms = np.asarray(times) * 1000.0
    p50, p95 = np.percentile(ms, [50, 95])
    print(
        f"placement refresh after an edit ({edits} edits): CPU mean {ms.mean():.1f} ms, "
        f"p50 {p50:.0f} ms, p95 {p95:.0f} ms; full collector passes {passes.count} "
        f"({passes.seconds * 1000 / edits:.1f} ms per refresh)"
    )
    per = sorted(cpu.items(), key=lambda kv: -kv[1])
    shares = ", ".join(f"{s} {t * 1000 / edits:.1f}" for s, t in per)
    print(f"per scheduler (placement, analysis, panel content), ms per refresh: {shares}")


if __name__ == "__main__":
    main()

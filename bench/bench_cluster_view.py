"""The dashboard's Cluster view on storm-large-cluster-02 (1,922 supervisors in 21 racks,
45 topologies, 36,150 executors).

    .venv/bin/python -m bench cluster_view

Prints, for the view's default schedulers (:data:`dashboard.cluster_view.DEFAULT_SCHEDULERS`):
the placement and per-node sums (:func:`dashboard.cluster_view.compute_result`, once per
scheduler, then cached), the view's callback on cached placements (every figure: the grids'
figures built and serialized as Dash sends them), and plotly.js drawing both grids in
headless Chrome (the page's own plotly.min.js). Target (issue 21): the view drawn in < 3 s.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import plotly
from plotly.utils import PlotlyJSONEncoder

from dashboard import cluster_view as cv

PRESET = "storm-large-cluster-02"
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def _browser_draw_ms(figures: list[dict]) -> float | None:
    """Milliseconds plotly.js takes to draw ``figures`` in headless Chrome (None: no Chrome)."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
    except ImportError:
        return None
    page = Path(tempfile.mkdtemp(prefix="slotscope-bench-")) / "grid.html"
    divs = "".join(f'<div id="g{i}" style="width:700px"></div>' for i in range(len(figures)))
    page.write_text(f"<html><body>{divs}<script src='{PLOTLY_JS.as_uri()}'></script></body></html>")
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(options=options)
    except Exception as err:  # no Chrome here: say so, the server-side figures stand
        print(f"  (no headless Chrome: {err.__class__.__name__})")
        return None
    try:
        driver.set_window_size(1440, 900)
        driver.get(page.as_uri())
        return driver.execute_async_script(
            "var figs = JSON.parse(arguments[0]), done = arguments[arguments.length - 1];"
            "var t = performance.now();"
            "Promise.all(figs.map(function (f, i) {"
            "  return Plotly.newPlot('g' + i, f.data, f.layout, {displayModeBar: false}); }))"
            ".then(function () { requestAnimationFrame(function () {"
            "  done(performance.now() - t); }); });",
            json.dumps(figures, cls=PlotlyJSONEncoder),
        )
    finally:
        driver.quit()


def main() -> None:
    start = time.perf_counter()
    scenario = cv.cluster_scenario(PRESET)
    print(
        f"{PRESET}: {len(scenario.topology_set)} topologies, {len(scenario.cluster.nodes):,} "
        f"nodes; scenario built in {time.perf_counter() - start:.2f} s"
    )
    for scheduler in cv.DEFAULT_SCHEDULERS:
        start = time.perf_counter()
        result = cv.cluster_result(PRESET, scheduler, wait_s=600.0)
        assert not isinstance(result, str), result
        print(
            f"  {scheduler}: placed and summed per node in {time.perf_counter() - start:.2f} s "
            f"({result.scheduled} of {result.topologies} topologies scheduled)"
        )
    columns = None
    for figure in cv.GRID_FIGURES:
        start = time.perf_counter()
        columns, _status, _done, _options = cv.draw(
            PRESET, list(cv.DEFAULT_SCHEDULERS), figure, None, 0
        )
        sent = json.dumps(columns, cls=PlotlyJSONEncoder)
        print(
            f"  view callback, figure {figure}: {(time.perf_counter() - start) * 1000:.0f} ms "
            f"({len(sent) / 1e3:.0f} kB sent)"
        )
    figures = [
        cv.grid_figure(cv.cluster_result(PRESET, s).aggregates, "cpu")
        for s in cv.DEFAULT_SCHEDULERS
    ]
    drawn = _browser_draw_ms([f.to_plotly_json() for f in figures])
    if drawn is not None:
        print(f"  plotly.js draws the {len(figures)} grids in {drawn:.0f} ms (headless Chrome)")


if __name__ == "__main__":
    main()

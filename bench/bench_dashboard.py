"""The dashboard's speed: placement refresh per preset, first paint, Simulate to charts,
and each interaction in a real browser.

Targets (issues 5, 10 and 11): a placement refresh under 300 ms of server time
for every preset, the x10 ones included; the page loaded with every panel drawn
in under 3 s on the x10 presets; Simulate to filled charts under 10 s for
WordCount with every scheduler on a warm Spark session. Issue 24: in headless
Chromium, ``RUNS`` times each, p50 and p95 of a preset switch, an edit to refreshed
placements and a what-if under 1 s, the first page (warm) under 2 s, Simulate on
WordCount under 10 s. The server is the app on werkzeug's threaded server, with
``SLOTSCOPE_PLACEMENT_PROCESSES`` evaluation processes (none unless set, as the Procfile).
Each interaction also prints its breakdown: callbacks answered, the seconds the server
was answering one, and the rest (the browser's own work: dash-renderer passes over every
component of the page once per callback answered and per component it renders anew, see
:mod:`dashboard.static_html`). ``SLOTSCOPE_BENCH_PARTS=interactions`` runs only those;
``SLOTSCOPE_BENCH_INTERACTIONS=page,switch`` only the ones named (of ``INTERACTIONS``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import socket
import tempfile
import threading
import time

import numpy as np
from werkzeug.serving import make_server

from core.presets import PRESETS, preset_json

SPARK_MASTER = "local[2]"
PAINT_PRESET = "lf-diamond-x10"  # the largest: 400 executors on 80 slots
PAINT_TARGET_S = 3.0  # page load to every panel drawn
DOTS_PRESET = "lf-linear-x10"  # the largest map drawn as executor dots (80), not as pies
RUNS = int(os.environ.get("SLOTSCOPE_BENCH_RUNS", "5"))  # timed runs of each interaction
EVALUATION_PROCESSES = int(os.environ.get("SLOTSCOPE_PLACEMENT_PROCESSES", "0"))  # as served
INTERACTION_TARGET_S = 1.0  # p95 of a preset switch, an edit, a what-if
FIRST_PAGE_TARGET_S = 2.0  # p95 of the first page, warm
SIMULATE_TARGET_S = 10.0
INTERACTIONS = ("page", "switch", "edit", "whatif", "simulate")
SWITCH_PRESETS = ("lf-diamond", "wordcount", "rollingcount", "nasiri-diamond", "aniello")


def refresh_times() -> None:
    """Server time of a placement refresh: every default scheduler, cold caches.

    Wall time is what a user waits for; CPU time (this process) is the figure to
    compare between runs on a shared machine. ``slotscope`` is also shown apart: it
    starts from the placements the other panels computed, so its time is its local
    search, which dominates the larger presets.
    """
    import dashboard.app  # noqa: F401  (the server's process as served: gc.freeze after import)
    from dashboard import compute, panel_content
    from dashboard.registry import default_selection

    print(
        "placement refresh (server ms, every default scheduler, cold cache): "
        "wall, CPU, CPU without slotscope"
    )
    schedulers = default_selection()
    for name in PRESETS:
        compute.clear_caches()
        panel_content.panel_content.cache_clear()
        data = preset_json(name)
        text = compute.canonical(data)
        rate = float(data["workload"]["rate"])
        start, cpu_start = time.perf_counter(), time.process_time()
        slowest, searches = ("", 0.0), 0.0
        for sid in schedulers:
            t0, c0 = time.perf_counter(), time.process_time()
            panel_content.panel_content(text, sid, "{}", rate)
            ms = (time.perf_counter() - t0) * 1000
            if sid == "slotscope":
                searches += (time.process_time() - c0) * 1000
            slowest = max(slowest, (sid, ms), key=lambda s: s[1])
        total = (time.perf_counter() - start) * 1000
        cpu = (time.process_time() - cpu_start) * 1000
        flag = "" if total < 300 else "  (over 300 ms)"
        print(
            f"  {name:<28} {total:7.0f} ms  CPU {cpu:6.0f}  w/o slotscope {cpu - searches:5.0f}"
            f"  slowest {slowest[0]} {slowest[1]:.0f} ms{flag}"
        )


class CallbackLog:
    """The page's callback requests answered by the bench's server (start and end, s): the
    breakdown of an interaction into server time and the browser's own (the rest)."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def install(self, server) -> None:
        from flask import g, request

        @server.before_request
        def _started() -> None:
            g.slotscope_bench_start = time.perf_counter()

        @server.after_request
        def _answered(response):
            if request.path.endswith("_dash-update-component"):
                with self._lock:
                    self.spans.append((g.slotscope_bench_start, time.perf_counter()))
            return response

    def take(self) -> tuple[int, float]:
        """Callbacks answered since the last call, and the seconds at least one was being
        answered (the union of their spans); the log starts again."""
        with self._lock:
            spans, self.spans = sorted(self.spans), []
        busy, end = 0.0, float("-inf")
        for a, b in spans:
            busy += max(0.0, b - max(a, end))
            end = max(end, b)
        return len(spans), busy


LOG = CallbackLog()


class CpuMeter:
    """CPU seconds per interaction, which the machine's load does not inflate as it does
    wall time: Chromium's (every process under chromedriver), the server's (this
    process: werkzeug's threads; and its evaluation or search processes), and of
    Chromium's the page's main thread as the DevTools Performance domain counts it
    (scripts, style and layout: what dash-renderer and cytoscape cost)."""

    MAIN_THREAD = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")

    def __init__(self, driver) -> None:
        import psutil

        self.driver = driver
        self.me = psutil.Process()
        self.browser_root = psutil.Process(driver.service.process.pid)
        driver.execute_cdp_cmd("Performance.enable", {})
        self.runs: list[dict[str, float]] = []
        self._start: dict[str, float] = {}

    @staticmethod
    def _tree_cpu(root) -> float:
        import psutil

        total = 0.0
        for p in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def _server_cpu(self) -> float:
        import psutil

        t = self.me.cpu_times()
        total = t.user + t.system
        for p in self.me.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if p.pid == self.browser_root.pid or p in self.browser_root.children(True):
                    continue
                c = p.cpu_times()
                total += c.user + c.system
        return total

    def _main_thread(self) -> dict[str, float]:
        got = self.driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
        values = {m["name"]: float(m["value"]) for m in got}
        return {k: values.get(k, 0.0) for k in self.MAIN_THREAD}

    def _now(self) -> dict[str, float]:
        return {
            "browser": self._tree_cpu(self.browser_root),
            "server": self._server_cpu(),
            **self._main_thread(),
        }

    def start(self) -> None:
        self._start = self._now()

    def document(self) -> dict[str, float]:
        """The page's main-thread seconds since its document started (a page load: the
        DevTools counters start again with each document)."""
        return self._main_thread()

    def stop(self) -> None:
        end = self._now()
        self.runs.append({k: end[k] - self._start.get(k, end[k]) for k in end})

    def take(self) -> list[dict[str, float]]:
        runs, self.runs = self.runs, []
        return runs


def cpu_line(runs: list[dict[str, float]], main_thread: bool = True) -> str:
    """p50 of each CPU figure over ``runs`` (:class:`CpuMeter`), one line; without the
    page's main-thread figures when ``main_thread`` is False (a page load: the DevTools
    counters start again with each document)."""
    if not runs:
        return ""
    med = {k: float(np.median([r[k] for r in runs])) for k in runs[0]}
    if not main_thread:
        return f"CPU p50: Chromium {med['browser']:.2f} s, server {med['server']:.2f} s"
    return (
        f"CPU p50: Chromium {med['browser']:.2f} s (main thread: task {med['TaskDuration']:.2f},"
        f" script {med['ScriptDuration']:.2f}, style {med['RecalcStyleDuration']:.2f}, layout"
        f" {med['LayoutDuration']:.2f}), server {med['server']:.2f} s"
    )


def document_line(documents: list[dict[str, float]]) -> str:
    """p50 of the page's main-thread seconds over page loads (:meth:`CpuMeter.document`)."""
    med = {k: float(np.median([d[k] for d in documents])) for k in documents[0]}
    return (
        f"page's main thread p50: task {med['TaskDuration']:.2f} s, script"
        f" {med['ScriptDuration']:.2f}, style {med['RecalcStyleDuration']:.2f}, layout"
        f" {med['LayoutDuration']:.2f}"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options

    options = Options()
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--window-size=1600,1200",
    ):
        options.add_argument(arg)
    return webdriver.Chrome(options=options)


def _wait(condition, timeout: float) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        try:
            if condition():
                return time.perf_counter() - start
        except Exception:  # the page is still rendering
            pass
        time.sleep(0.05)
    return float("nan")


DOTS_JS = (
    "var maps = document.querySelectorAll('.cyto-map');"
    "if (!maps.length) return false;"
    "for (var i = 0; i < maps.length; i++) {"
    "  var cy = maps[i]._cyreg && maps[i]._cyreg.cy;"
    "  if (!cy || cy.nodes().length === 0) return false; }"
    "return maps.length;"
)
PENDING_JS = (  # callbacks the dash renderer still waits for (dash.testing's own test)
    "var s = window.store && window.store.getState(); if (!s) return -1;"
    "var c = Object.assign({}, s.callbacks); delete c.stored; delete c.completed;"
    "return [].concat.apply([], Object.values(c)).length;"
)
# the simulation's first chart (not the hidden chart that preloads plotly, nor another view's)
CHART_JS = "var CHARTS = '#charts .js-plotly-plot';"
TRACES_JS = CHART_JS + (
    "var g = document.querySelector(CHARTS);return !!(g && g.data && g.data.length);"
)


def browser_times(only_interactions: bool = False) -> None:
    from core import spark
    from dashboard import compute
    from dashboard.app import server
    from dashboard.jobs import MASTER_CONFIG, WARM_ON_VISIT_CONFIG, job_pool, warm_up

    compute.clear_caches()
    compute.start_processes(EVALUATION_PROCESSES)  # as the Procfile serves it
    if not only_interactions or "simulate" in chosen_interactions():
        warm_up(SPARK_MASTER)
    server.config[MASTER_CONFIG] = SPARK_MASTER
    server.config[WARM_ON_VISIT_CONFIG] = False
    job_pool(server).prestart()
    LOG.install(server)
    port = _free_port()
    httpd = make_server("127.0.0.1", port, server, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    driver = _browser()
    try:
        if only_interactions:
            interaction_times(driver, f"http://127.0.0.1:{port}")
            return
        for name, label in (
            (PAINT_PRESET, "cold server caches"),
            (PAINT_PRESET, "warm server caches"),
            (DOTS_PRESET, "cold server caches"),
        ):
            start = time.perf_counter()
            driver.get(f"http://127.0.0.1:{port}/?preset={name}")
            seconds = _wait(lambda: driver.execute_script(DOTS_JS), 120)
            total = time.perf_counter() - start
            _wait(lambda: driver.execute_script(PENDING_JS) == 0, 120)
            settled = time.perf_counter() - start
            flag = "" if total < PAINT_TARGET_S else f"  (over {PAINT_TARGET_S:g} s)"
            print(
                f"page load to every panel drawn, {name} ({label}): {total:.1f} s"
                f" (after the request: {seconds:.1f} s; no callback pending: {settled:.1f} s)"
                f"{flag}"
            )
        driver.get(f"http://127.0.0.1:{port}/?preset=wordcount")
        _wait(lambda: driver.execute_script(DOTS_JS), 60)
        start = time.perf_counter()
        driver.find_element("css selector", "#simulate").click()
        seconds = _wait(lambda: driver.execute_script(TRACES_JS), 120)
        print(
            f"Simulate to filled charts, wordcount, default schedulers, warm Spark: "
            f"{seconds:.1f} s (target < 10 s)"
        )
        interaction_times(driver, f"http://127.0.0.1:{port}")
    finally:
        driver.quit()
        httpd.shutdown()
        spark.stop_session()
        compute.start_processes(0)


_CALLBACKS_JS = (  # callbacks the dash renderer still waits for, as n
    "var s = window.store && window.store.getState(); if (!s) return false;"
    "var c = Object.assign({}, s.callbacks); delete c.stored; delete c.completed;"
    "var n = [].concat.apply([], Object.values(c)).length;"
)
SETTLED_JS = _CALLBACKS_JS + (  # a search still running in the background shows its progress
    "return n === 0 && !document.querySelector('.alert.pending, td.pending');"
)
BUSY_JS = _CALLBACKS_JS + "return n > 0;"
# Drawn: no callback pending but the polls of background searches (a panel or a what-if row
# showing its progress): what every scheduler placed in the request shows at once.
DRAWN_JS = (
    "var s = window.store && window.store.getState(); if (!s) return false;"
    "var c = Object.assign({}, s.callbacks); delete c.stored; delete c.completed;"
    "var polls = function (cb) { var ids = Object.keys(cb.changedPropIds || {});"
    "  return ids.length > 0 && ids.every(function (p) {"
    "    return p.indexOf('poll') >= 0 && p.slice(-12) === '.n_intervals'; }); };"
    "return [].concat.apply([], Object.values(c)).filter(function (cb) {"
    "  return !polls(cb); }).length === 0;"
)
MARK_CHARTS_JS = CHART_JS + (
    "var g = document.querySelector(CHARTS); window.__slotscopeOld = g && g.data;"
)
NEW_CHARTS_JS = CHART_JS + (
    "var g = document.querySelector(CHARTS);"
    "return !!(g && g.data && g.data.length && g.data !== window.__slotscopeOld);"
)
SET_PROPS_JS = "window.dash_clientside.set_props(arguments[0], arguments[1]);"


def _settled(driver, timeout: float = 60.0) -> float:
    """Seconds until the page has callbacks pending (at most 1 s), then none."""
    start = time.perf_counter()
    _wait(lambda: driver.execute_script(BUSY_JS), 1.0)
    _wait(lambda: driver.execute_script(SETTLED_JS), timeout)
    return time.perf_counter() - start


def _percentiles(
    label: str,
    seconds: list[float],
    target: float,
    answered: list[tuple[int, float]] | None = None,
    cpu: list[dict[str, float]] | None = None,
    main_thread: bool = True,
) -> None:
    """One interaction's p50/p95 and its runs, the load, and (``answered``: per run, the
    callbacks answered and the seconds the server was answering one) the breakdown;
    ``cpu``: per run, the CPU seconds (:class:`CpuMeter`)."""
    p50, p95 = np.percentile(np.asarray(seconds), [50, 95])
    flag = "" if p95 < target else f"  (p95 over {target:g} s)"
    runs = ", ".join(f"{s:.2f}" for s in seconds)
    load = os.getloadavg()[0]  # the machine is shared: the figures mean little without it
    print(f"  {label:<44} p50 {p50:5.2f} s  p95 {p95:5.2f} s  ({runs}){flag}  load {load:.1f}")
    if answered:
        counts = np.asarray([n for n, _ in answered])
        busy = np.asarray([b for _, b in answered])
        browser = np.asarray(seconds) - busy
        print(
            f"  {'':<44} callbacks answered p50 {np.median(counts):.0f}, server busy p50"
            f" {np.median(busy):.2f} s, the rest (browser, network) p50 {np.median(browser):.2f} s"
        )
    if cpu:
        print(f"  {'':<44} {cpu_line(cpu, main_thread)}")


def _set(
    driver,
    component: str,
    props: dict,
    answered: list | None = None,
    drawn: list | None = None,
    meter: CpuMeter | None = None,
) -> float:
    """Set a component's properties as its user would (Dash's set_props: its callbacks
    run), and answer the seconds until the page has settled (background searches done);
    ``answered`` gets the run's callbacks answered and server seconds (:class:`CallbackLog`),
    ``drawn`` the seconds until only the polls of background searches were pending."""
    LOG.take()
    if meter is not None:
        meter.start()
    start = time.perf_counter()
    driver.execute_script(SET_PROPS_JS, component, props)
    _wait(lambda: driver.execute_script(BUSY_JS), 1.0)
    _wait(lambda: driver.execute_script(DRAWN_JS), 60.0)
    if drawn is not None:
        drawn.append(time.perf_counter() - start)
    _wait(lambda: driver.execute_script(SETTLED_JS), 60.0)
    seconds = time.perf_counter() - start
    if meter is not None:
        meter.stop()
    if answered is not None:
        answered.append(LOG.take())
    return seconds


def chosen_interactions() -> tuple[str, ...]:
    """The interactions ``SLOTSCOPE_BENCH_INTERACTIONS`` names (comma-separated), else all."""
    asked = os.environ.get("SLOTSCOPE_BENCH_INTERACTIONS", "")
    names = tuple(n.strip() for n in asked.split(",") if n.strip())
    unknown = sorted(set(names) - set(INTERACTIONS))
    if unknown:
        raise SystemExit(f"SLOTSCOPE_BENCH_INTERACTIONS: unknown {unknown}, one of {INTERACTIONS}")
    return names or INTERACTIONS


def interaction_times(driver, base_url: str, runs: int = RUNS) -> None:
    """p50/p95 of each interaction of issue 24 in the browser, ``runs`` times each: the
    first page (warm server caches), a preset switch (placements drawn), an edit of a
    component's parallelism (every panel refreshed: each run a new scenario), a what-if
    (a node failed, its table filled), and Simulate (a new offered rate each run)."""
    from core.presets import preset_json
    from dashboard import ids

    print(f"interactions in headless Chromium, {runs} runs each (default schedulers):")
    chosen = chosen_interactions()
    meter = CpuMeter(driver)
    url = f"{base_url}/?preset=wordcount"
    driver.get(url)
    _wait(lambda: driver.execute_script(DOTS_JS), 120)
    _settled(driver, 120)
    pages, documents = [], []
    for _ in range(runs if "page" in chosen else 0):
        meter.start()
        start = time.perf_counter()
        driver.get(url)
        _wait(lambda: driver.execute_script(DOTS_JS), 60)
        _wait(lambda: driver.execute_script(SETTLED_JS), 60)
        pages.append(time.perf_counter() - start)
        meter.stop()
        documents.append(meter.document())
    if pages:
        _percentiles(
            "first page, warm (every panel drawn)",
            pages,
            FIRST_PAGE_TARGET_S,
            cpu=meter.take(),
            main_thread=False,
        )
        print(f"  {'':<44} {document_line(documents)}")

    answered: list[tuple[int, float]] = []
    drawn: list[float] = []
    switches = [
        _set(
            driver,
            ids.PRESET,
            {"value": SWITCH_PRESETS[i % len(SWITCH_PRESETS)]},
            answered,
            drawn,
            meter,
        )
        for i in range(runs if "switch" in chosen else 0)
    ]
    if switches:
        _percentiles("preset switch, drawn (searches may run)", drawn, INTERACTION_TARGET_S)
        _percentiles(
            "preset switch (placements drawn)",
            switches,
            INTERACTION_TARGET_S,
            answered,
            meter.take(),
        )
    if not {"edit", "whatif", "simulate"} & set(chosen):
        return

    _set(driver, ids.PRESET, {"value": "wordcount"})
    rows = preset_json("wordcount")["topology"]["components"]
    edits, answered, drawn = [], [], []
    for i in range(runs if "edit" in chosen else 0):  # a new parallelism each run: not cached
        row = i % len(rows)
        rows = [dict(r) for r in rows]
        rows[row]["parallelism"] = rows[row]["parallelism"] + 1
        edits.append(_set(driver, ids.COMPONENTS_GRID, {"rowData": rows}, answered, drawn, meter))
    if edits:
        _percentiles("edit, drawn (searches show progress)", drawn, INTERACTION_TARGET_S)
        _percentiles(
            "edit to refreshed placements", edits, INTERACTION_TARGET_S, answered, meter.take()
        )

    nodes = [n["id"] for n in preset_json("wordcount")["cluster"]["nodes"]]
    answered, drawn = [], []
    whatifs = [
        _set(driver, ids.FAIL_NODE, {"value": nodes[i % len(nodes)]}, answered, drawn, meter)
        for i in range(runs if "whatif" in chosen else 0)
    ]
    if whatifs:
        _percentiles("what-if, drawn (searches show progress)", drawn, INTERACTION_TARGET_S)
        _percentiles(
            "what-if (a node failed, table filled)",
            whatifs,
            INTERACTION_TARGET_S,
            answered,
            meter.take(),
        )
    if "simulate" not in chosen:
        return

    driver.get(url)
    _wait(lambda: driver.execute_script(DOTS_JS), 60)
    _settled(driver, 60)
    sims = []
    rng = random.Random(7)
    for _ in range(max(1, min(runs, 3))):  # a simulation takes seconds: at most 3
        _set(driver, ids.RATE, {"value": rng.randrange(2000, 9000)})
        driver.execute_script(MARK_CHARTS_JS)
        start = time.perf_counter()
        driver.find_element("css selector", f"#{ids.SIMULATE}").click()
        _wait(lambda: driver.execute_script(NEW_CHARTS_JS), 120)
        _wait(lambda: driver.execute_script(SETTLED_JS), 120)
        sims.append(time.perf_counter() - start)
    _percentiles("Simulate on wordcount (charts filled)", sims, SIMULATE_TARGET_S)


def main() -> None:
    """Every part; ``SLOTSCOPE_BENCH_PARTS=interactions`` runs only the browser's
    interactions (no server refresh table, page loads or first Simulate)."""
    os.environ.setdefault("SLOTSCOPE_CACHE_DIR", tempfile.mkdtemp(prefix="slotscope-bench-"))
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    only_interactions = os.environ.get("SLOTSCOPE_BENCH_PARTS", "") == "interactions"
    if not only_interactions:
        refresh_times()
    browser_times(only_interactions)


if __name__ == "__main__":
    main()

"""The dashboard under load: 20 users for 2 minutes on 127.0.0.1 (issue 23).

``python -m bench load`` starts the dashboard the way production serves it (the
Procfile's gunicorn line, read from the Procfile: one worker, 8 threads, keep-alive,
2 search processes) on a free port of 127.0.0.1, lets simulated users work it through
Dash's own HTTP endpoints, then stops it and prints, per kind of request, the count and
p50/p95/p99 latency, the HTTP 500s and other failures, the server's CPU (at priority 0,
niced, Spark), the load generator's own CPU and the machine's load average (other work
on the machine shows in the latencies), and the server's peak memory (the gunicorn
worker, its Python processes, and with its Spark JVM). It ends by itself: the users stop at the
deadline, a simulation still running then is cancelled, and the server is
stopped. It is never part of ``make test``.

Each user loops over weighted actions, as a browser would send them:

- *page*: ``GET /?preset=P&schedulers=...`` then ``GET /_dash-layout`` (the page
  request starts the panels' placements, the layout waits for them);
- *preset switch*: the preset picker's callback, then the editors' (which puts
  the scenario in force), then one request per placement panel, six at a time;
- *edit*: one cell changed (a component's parallelism, a node's cores), the
  editors' callback, then every panel refreshed;
- *simulate*: the Simulate button's callback, then the progress poll every
  second until the job ends (cancelled after ``SIM_TIMEOUT_S`` seconds).

Options (also ``SLOTSCOPE_LOAD_USERS``, ``SLOTSCOPE_LOAD_SECONDS``,
``SLOTSCOPE_LOAD_SERVER``): ``python -m bench.load --users 5 --seconds 30 --server dev``
(``dev``: the app's own server, as ``slotscope dashboard`` runs it). ``python -m bench
load`` takes no options: set the variables. ``SLOTSCOPE_LOAD_PROCESSES=N`` and
``SLOTSCOPE_LOAD_SEARCH_PROCESSES=N`` replace the Procfile's counts of evaluation and
search processes (``SLOTSCOPE_LOAD_SEARCH_PROCESSES=0``: the searches in the server's
threads, as before they had processes of their own). ``SLOTSCOPE_LOAD_LOG=PATH`` keeps a
copy of the server's log. A failure is reported with its reason (an HTTP 500's page, a
connection error's message).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import requests

from core.presets import PRESETS

USERS = 20
SECONDS = 120.0
THINK_S = (0.1, 0.5)  # a user's pause between actions, s (uniform)
SIM_TUPLES = 20_000  # spout tuples per replica of a user's simulation
SIM_TIMEOUT_S = 60.0  # a simulation still running after this long is cancelled
START_TIMEOUT_S = 180.0  # the server must answer a page within this
REQUEST_TIMEOUT_S = 120.0
MEMORY_SAMPLE_S = 0.5
ACTIONS = {"page": 0.15, "preset": 0.25, "edit": 0.45, "simulate": 0.15}  # weights
ROOT = Path(__file__).resolve().parent.parent
REFRESH_KINDS = ("placement refresh (edit)", "placement refresh (preset)")
PROCESSES_ENV = "SLOTSCOPE_LOAD_PROCESSES"  # replaces the Procfile's evaluation processes
SEARCH_PROCESSES_ENV = "SLOTSCOPE_LOAD_SEARCH_PROCESSES"  # ... and its search processes
SERVER_SETTINGS = {  # this bench's variable -> the server's it replaces (gunicorn's --env)
    PROCESSES_ENV: "SLOTSCOPE_PLACEMENT_PROCESSES",
    SEARCH_PROCESSES_ENV: "SLOTSCOPE_SEARCH_PROCESSES",
}
PANEL_ID_STATE = '{"sched":["MATCH"],"type":"panel-stats"}.id'  # the panel callback's State


# The server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def procfile_command(port: int, procfile: Path = ROOT / "Procfile") -> list[str]:
    """The Procfile's ``web:`` command, run by this interpreter, bound to 127.0.0.1:``port``
    (so the bench loads the server exactly as deployed: threads, timeout, keep-alive)."""
    for line in procfile.read_text().splitlines():
        if line.startswith("web:"):
            words = shlex.split(line.removeprefix("web:"))
            break
    else:
        raise RuntimeError(f"{procfile}: no 'web:' line")
    if words[0] != "gunicorn" or "--bind" not in words:
        raise RuntimeError(f"{procfile}: the web line is not 'gunicorn ... --bind ADDRESS'")
    words[words.index("--bind") + 1] = f"127.0.0.1:{port}"
    for ours, theirs in SERVER_SETTINGS.items():
        value = os.environ.get(ours)
        if value is None:
            continue
        # the same server with another count of evaluation or search processes
        setting = f"{theirs}="
        if any(w.startswith(setting) for w in words):
            at = next(i for i, w in enumerate(words) if w.startswith(setting))
            del words[at - 1 : at + 1]  # --env NAME=VALUE
        words += ["--env", f"{setting}{value}"]
    return [sys.executable, "-m", *words]


def start_server(kind: str, port: int, cache_dir: str) -> subprocess.Popen:
    """The dashboard on 127.0.0.1:``port``: gunicorn as the Procfile runs it, or ``dev``."""
    if kind == "gunicorn":
        cmd = procfile_command(port)
    else:
        cmd = [sys.executable, "-m", "dashboard", "--host", "127.0.0.1", "--port", str(port)]
    env = {
        **os.environ,
        "SLOTSCOPE_CACHE_DIR": cache_dir,
        "SLOTSCOPE_SPARK_MASTER": os.environ.get("SLOTSCOPE_SPARK_MASTER", "local[2]"),
    }
    log = open(Path(cache_dir) / "server.log", "wb")  # noqa: SIM115 (lives as long as the server)
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def wait_until_up(base: str, server: subprocess.Popen) -> float:
    """Seconds until the server answers ``GET /``; RuntimeError if it dies or times out."""
    start = time.perf_counter()
    while time.perf_counter() - start < START_TIMEOUT_S:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            if requests.get(base + "/_dash-dependencies", timeout=5).status_code == 200:
                return time.perf_counter() - start
        except requests.RequestException:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the server did not answer within {START_TIMEOUT_S:.0f} s")


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM to the server's process group (gunicorn, its worker, Spark's JVM), then SIGKILL."""
    for sig, wait_s in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            return
        try:
            server.wait(wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


class MemoryWatch:
    """Peak RSS of the server's Python processes and of its whole process tree, sampled."""

    def __init__(self, pid: int):
        self.root = psutil.Process(pid)
        self.peak_python = 0
        self.peak_python_all = 0  # the server's Python processes together (evaluation ones)
        self.peak_tree = 0
        # pid -> (python, niced or spark, CPU-s so far); niced: the server's Python processes
        # at a lower priority (the search processes, the Papers view's reproduce run)
        self.cpu_s: dict[int, tuple[str, float]] = {}
        self.cpu_start: dict[int, float] = {}  # pid -> CPU-s when the users started
        self.load: list[float] = []  # the machine's 1-minute load average, per sample
        self.client_cpu_s = 0.0  # CPU-s of this process (the users) while they ran
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        procs = [self.root, *self.root.children(recursive=True)]
        python, python_all, tree = 0, 0, 0
        for p in procs:
            try:
                rss = p.memory_info().rss
                name = p.name()
                spark_worker = any("pyspark" in word for word in p.cmdline())
                times = p.cpu_times()
                niced = p.nice() > 0
            except psutil.Error:
                continue
            tree += rss
            server = ("python" in name or "gunicorn" in name) and not spark_worker
            kind = ("niced" if niced else "python") if server else "spark"
            self.cpu_s[p.pid] = (kind, times.user + times.system)
            if ("python" in name or "gunicorn" in name) and not spark_worker:
                python = max(python, rss)
                python_all += rss
        self.peak_python = max(self.peak_python, python)
        self.peak_python_all = max(self.peak_python_all, python_all)
        self.peak_tree = max(self.peak_tree, tree)
        self.load.append(os.getloadavg()[0])

    def cpu_seconds(self, kind: str) -> float:
        """CPU-s the server's processes of ``kind`` used (python: gunicorn's and the
        evaluation processes; niced: the search processes and other Python children at a
        lower priority; spark: the JVM and its Python workers), as last sampled."""
        return sum(
            cpu - self.cpu_start.get(pid, 0.0) for pid, (k, cpu) in self.cpu_s.items() if k == kind
        )

    def _run(self) -> None:
        while not self.stop.wait(MEMORY_SAMPLE_S):
            try:
                self._sample()
            except psutil.Error:
                return

    def __enter__(self) -> MemoryWatch:
        with contextlib.suppress(psutil.Error):
            self._sample()  # the server's start-up is not the users' CPU
        self.cpu_start = {pid: cpu for pid, (_, cpu) in self.cpu_s.items()}
        self.load.clear()
        self.client_cpu_s = -time.process_time()
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.client_cpu_s += time.process_time()
        with contextlib.suppress(psutil.Error):
            self._sample()  # the CPU times at the end


# Dash's HTTP protocol: POST /_dash-update-component with the callback's output key


def _id_text(cid: Any) -> str:
    return cid if isinstance(cid, str) else json.dumps(cid, sort_keys=True, separators=(",", ":"))


@dataclass
class Callback:
    """One server callback as ``/_dash-dependencies`` lists it."""

    output: str
    inputs: list[dict[str, Any]]
    state: list[dict[str, Any]]

    @property
    def outputs(self) -> list[tuple[Any, str]]:
        """(id, property) of each output; pattern ids as dicts with their wildcards."""
        parts = self.output[2:-2].split("...") if self.output.startswith("..") else [self.output]
        out = []
        for part in parts:
            cid, prop = part.rsplit(".", 1)
            out.append((json.loads(cid) if cid.startswith("{") else cid, prop))
        return out

    def body(
        self, values: Mapping[str, Any], changed: str, match: Mapping[str, Any] | None = None
    ) -> dict:
        """The request: ``values`` maps ``id.property`` to its value; MATCH ids take ``match``."""
        match = match or {}

        def concrete(cid: Any) -> Any:
            if isinstance(cid, str) and cid.startswith("{"):
                cid = json.loads(cid)
            if isinstance(cid, dict):
                return {k: (match[k] if v == ["MATCH"] else v) for k, v in cid.items()}
            return cid

        def entry(dep: Mapping[str, Any]) -> dict[str, Any]:
            cid = concrete(dep["id"])
            key = f"{_id_text(dep['id'])}.{dep['property']}"
            return {"id": cid, "property": dep["property"], "value": values.get(key)}

        outputs = [{"id": concrete(cid), "property": prop} for cid, prop in self.outputs]
        return {
            "output": self.output,
            "outputs": outputs if self.output.startswith("..") else outputs[0],
            "inputs": [entry(d) for d in self.inputs],
            "state": [entry(d) for d in self.state],
            "changedPropIds": [changed],
        }


def find(deps: Sequence[Callback], trigger: str, output_part: str) -> Callback:
    """The callback with input ``trigger`` (``id.property``) whose output names ``output_part``."""
    for cb in deps:
        keys = [f"{_id_text(d['id'])}.{d['property']}" for d in cb.inputs]
        if trigger in keys and output_part in cb.output:
            return cb
    raise LookupError(f"no callback on {trigger} -> {output_part}")


def response_value(doc: Mapping[str, Any], cid: Any, prop: str) -> Any:
    """A property's new value in a callback's response (None when not updated)."""
    return doc.get("response", {}).get(_id_text(cid), {}).get(prop.split("@", 1)[0])


def failure_reason(err: requests.RequestException) -> str:
    """The exception's class and its innermost cause's class (``ConnectionError
    (RemoteDisconnected)``: the server closed a kept-alive connection as it was reused)."""
    return f"{type(err).__name__} ({str(err)[-90:]})"


@dataclass
class Stats:
    """Latencies by request kind, and failures."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    http_500: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    reasons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, ms: float) -> None:
        with self.lock:
            self.times[kind].append(ms)

    def fail(self, kind: str, status: int | None, reason: str = "") -> None:
        with self.lock:
            if status is not None and status >= 500:
                self.http_500[kind] += 1
            else:
                self.failures[kind] += 1
            self.reasons[reason or f"HTTP {status}"] += 1


class User:
    """One browser: its own session, preset, rows and scenario in force."""

    def __init__(
        self, k: int, base: str, deps: list[Callback], stats: Stats, schedulers: list[str]
    ):
        self.rng = random.Random(1000 + k)
        self.base = base
        self.http = requests.Session()
        self.stats = stats
        self.schedulers = schedulers
        self.cb = {
            "load": find(deps, "preset.value", "base-scenario.data"),
            "edit": find(deps, "nodes-grid.rowData", "scenario.data"),
            "panel": find(deps, "scenario.data", '"type":"panel-stats"'),
            "poll_panel": find(
                deps, '{"sched":["MATCH"],"type":"panel-poll"}.n_intervals', '"type":"panel-stats"'
            ),
            "simulate": find(deps, "simulate.n_clicks", "job.data"),
            "poll": find(deps, "poll.n_intervals", "progress-bar.style"),
            "cancel": find(deps, "cancel.n_clicks", "sim-message.children"),
        }
        self.preset = self.rng.choice(list(PRESETS))
        self.rows: dict[str, Any] = {}
        self.scenario: Any = None
        self.base_data: Any = None
        self.rate: float = 1000.0
        self.workers: Any = None
        self.ackers: Any = 0

    # one request

    def _timed(self, kind: str, method: str, path: str, **kw: Any) -> requests.Response | None:
        start = time.perf_counter()
        try:
            r = self.http.request(method, self.base + path, timeout=REQUEST_TIMEOUT_S, **kw)
        except requests.RequestException as err:
            self.stats.fail(kind, None, failure_reason(err))
            return None
        ms = (time.perf_counter() - start) * 1000
        if r.status_code >= 400 and r.status_code != 204:
            self.stats.fail(kind, r.status_code, f"HTTP {r.status_code} ({r.text[:200]!r})")
            return None
        self.stats.add(kind, ms)
        return r

    def _callback(
        self, kind: str, cb: Callback, values: dict, changed: str, match: dict | None = None
    ) -> dict:
        r = self._timed(
            kind, "POST", "/_dash-update-component", json=cb.body(values, changed, match)
        )
        if r is None or r.status_code == 204 or not r.content:
            return {}
        return r.json()

    # actions

    def page(self) -> None:
        start = time.perf_counter()
        query = f"?preset={self.preset}&schedulers={','.join(self.schedulers)}"
        if self._timed("page GET /", "GET", "/" + query) is None:
            return
        if self._timed("page layout", "GET", "/_dash-layout") is None:
            return
        self.stats.add("page load (both)", (time.perf_counter() - start) * 1000)

    def switch_preset(self) -> None:
        self.preset = self.rng.choice(list(PRESETS))
        doc = self._callback(
            "preset switch", self.cb["load"], {"preset.value": self.preset}, "preset.value"
        )
        outs = self.cb["load"].outputs
        got = [response_value(doc, cid, prop) for cid, prop in outs]
        if got[0] is None:
            return
        self.base_data = got[0]
        self.rows = {"nodes": got[1], "components": got[2], "streams": got[3]}
        self.workers, self.ackers, self.rate = got[4], got[5], got[6] or self.rate
        self.scenario = None
        self._apply_and_refresh("placement refresh (preset)")

    def edit(self) -> None:
        if not self.rows:
            self.switch_preset()
            return
        grid = self.rng.choice(["components", "nodes"])
        rows = [dict(r) for r in self.rows[grid]]
        row = rows[self.rng.randrange(len(rows))]
        if grid == "components":
            row["parallelism"] = max(1, int(row.get("parallelism", 1)) + self.rng.choice([-1, 1]))
        else:
            row["cores"] = max(1, int(row.get("cores", 1)) + self.rng.choice([-1, 1]))
        self.rows = {**self.rows, grid: rows}
        self._apply_and_refresh("placement refresh (edit)")

    def _apply_and_refresh(self, kind: str) -> None:
        values = {
            "nodes-grid.rowData": self.rows["nodes"],
            "components-grid.rowData": self.rows["components"],
            "streams-grid.rowData": self.rows["streams"],
            "workers.value": self.workers,
            "ackers.value": self.ackers,
            "base-scenario.data": self.base_data,
            "scenario.data": self.scenario,
        }
        doc = self._callback("edit (validate)", self.cb["edit"], values, "nodes-grid.rowData")
        scenario = response_value(doc, "scenario", "data")
        if scenario is None:
            return
        self.scenario = scenario
        start = time.perf_counter()
        values = {
            "scenario.data": scenario,
            "params-store.data": {},
            "rate.value": self.rate,
            "results.data": None,
            "schedulers.value": self.schedulers,
        }
        cb = self.cb["panel"]
        outputs = []
        for cid, prop in cb.outputs:
            if isinstance(cid, dict) and ["ALL"] in cid.values():
                outputs.append(
                    [
                        {
                            "id": {k: (s if v == ["ALL"] else v) for k, v in cid.items()},
                            "property": prop,
                        }
                        for s in self.schedulers
                    ]
                )
            else:
                outputs.append({"id": cid, "property": prop})

        def entry(dep):
            cid = dep["id"]
            if isinstance(cid, str) and cid.startswith("{"):
                cid = json.loads(cid)
            if isinstance(cid, dict) and ["ALL"] in cid.values():  # one per panel, as sent
                return [  # by the browser (what each panel shows: unknown here, None)
                    {
                        "id": {k: (s if v == ["ALL"] else v) for k, v in cid.items()},
                        "property": dep["property"],
                        "value": None,
                    }
                    for s in self.schedulers
                ]
            key = f"{_id_text(dep['id'])}.{dep['property']}"
            return {"id": cid, "property": dep["property"], "value": values.get(key)}

        body = {
            "output": cb.output,
            "outputs": outputs,
            "inputs": [entry(d) for d in cb.inputs],
            "state": [entry(d) for d in cb.state],
            "changedPropIds": ["scenario.data"],
        }
        r = self._timed("fill_panels", "POST", "/_dash-update-component", json=body)
        self.stats.add(kind, (time.perf_counter() - start) * 1000)
        if r is None or not r.content:
            return
        doc = r.json()
        pending = [
            s
            for s in self.schedulers
            if doc.get("response", {})
            .get(_id_text({"sched": s, "type": "panel-poll"}), {})
            .get("disabled")
            is False
        ]
        if getattr(self, "poll_stop", None) is not None:
            self.poll_stop.set()  # the browser drops the old panels' polls
        stop = self.poll_stop = threading.Event()

        def poll_all() -> None:  # as the browser: every second, until done or replaced
            http = requests.Session()
            left = list(pending)
            while left and not stop.wait(1.0):
                for s in list(left):
                    pv = {
                        "scenario.data": scenario,
                        "params-store.data": {},
                        "rate.value": self.rate,
                        "results.data": None,
                        '{"sched":["MATCH"],"type":"panel-poll"}.n_intervals': 1,
                        '{"sched":["MATCH"],"type":"placement-map"}.layout': None,
                    }
                    pid = _id_text({"sched": s, "type": "panel-poll"})
                    body = self.cb["poll_panel"].body(pv, pid + ".n_intervals", {"sched": s})
                    t0 = time.perf_counter()
                    try:
                        r = http.post(
                            self.base + "/_dash-update-component",
                            json=body,
                            timeout=REQUEST_TIMEOUT_S,
                        )
                    except requests.RequestException as err:
                        self.stats.fail("panel poll", None, failure_reason(err))
                        continue
                    if r.status_code >= 500:
                        self.stats.fail("panel poll", r.status_code)
                        continue
                    self.stats.add("panel poll", (time.perf_counter() - t0) * 1000)
                    d = r.json() if r.content else {}
                    if d.get("response", {}).get(pid, {}).get("disabled") is True:
                        self.stats.add(
                            "background panel ready", (time.perf_counter() - start) * 1000
                        )
                        left.remove(s)

        threading.Thread(target=poll_all, daemon=True).start()

    def simulate(self, deadline: float) -> None:
        if self.scenario is None:
            self.switch_preset()
            if self.scenario is None:
                return
        start = time.perf_counter()
        values = {
            "simulate.n_clicks": 1,
            "scenario.data": self.scenario,
            "schedulers.value": self.schedulers,
            "params-store.data": {},
            "rate.value": self.rate * self.rng.choice([0.5, 1.0, 1.5]),
            "sweep.value": [],
            "replicas.value": 1,
            "tuples.value": SIM_TUPLES,
            "job.data": None,
        }
        doc = self._callback("simulate (start)", self.cb["simulate"], values, "simulate.n_clicks")
        job = response_value(doc, "job", "data")
        if job is None:
            return
        polling = response_value(doc, "poll", "disabled") is False
        give_up = min(deadline, time.monotonic() + SIM_TIMEOUT_S)
        while polling and time.monotonic() < give_up:
            time.sleep(1.0)
            doc = self._callback(
                "simulate (poll)", self.cb["poll"], {"poll.n_intervals": 1, "job.data": job},
                "poll.n_intervals",
            )  # fmt: skip
            polling = response_value(doc, "poll", "disabled") is not True
        if polling:  # cancelled: past SIM_TIMEOUT_S (a failure), or the run's end (not one)
            self._callback(
                "simulate (cancel)", self.cb["cancel"], {"cancel.n_clicks": 1, "job.data": job},
                "cancel.n_clicks",
            )  # fmt: skip
            if time.monotonic() < deadline:
                self.stats.fail(f"simulate (over {SIM_TIMEOUT_S:.0f} s)", None, "cancelled")
            return
        self.stats.add("simulate (to results)", (time.perf_counter() - start) * 1000)

    def run(self, deadline: float) -> None:
        self.page()
        kinds, weights = list(ACTIONS), list(ACTIONS.values())
        while time.monotonic() < deadline:
            action = self.rng.choices(kinds, weights)[0]
            if action == "page":
                self.page()
            elif action == "preset":
                self.switch_preset()
            elif action == "edit":
                self.edit()
            else:
                self.simulate(deadline)
            time.sleep(self.rng.uniform(*THINK_S))


def default_schedulers() -> list[str]:
    """The dashboard's default selection (its registry), read without importing Dash."""
    from core.registry import SCHEDULERS

    excluded = {"optimal"}
    try:
        from dashboard.registry import EXCLUDED_BY_DEFAULT

        excluded = set(EXCLUDED_BY_DEFAULT)
    except ImportError:
        pass
    return [s for s in SCHEDULERS if s not in excluded]


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    p50, p95, p99 = np.percentile(np.asarray(values), [50, 95, 99])
    return float(p50), float(p95), float(p99)


def print_report(stats: Stats, seconds: float, users: int, watch: MemoryWatch, up_s: float) -> None:
    total = sum(len(v) for v in stats.times.values())
    errors = sum(stats.http_500.values())
    print(f"{users} users for {seconds:.0f} s; server up in {up_s:.1f} s; {total} timed requests")
    head = ("count", "p50 ms", "p95 ms", "p99 ms")
    print(
        f"{'request kind':<30} " + " ".join(f"{h:>8}" for h in head) + f" {'500s':>5} {'other':>6}"
    )
    kinds = sorted(set(stats.times) | set(stats.http_500) | set(stats.failures))
    for kind in kinds:
        values = stats.times.get(kind, [])
        p = percentiles(values) if values else (float("nan"),) * 3
        print(
            f"{kind:<30} {len(values):>8} {p[0]:>8.0f} {p[1]:>8.0f} {p[2]:>8.0f} "
            f"{stats.http_500.get(kind, 0):>5} {stats.failures.get(kind, 0):>6}"
        )
    refreshes = sum(len(stats.times.get(k, [])) for k in REFRESH_KINDS)
    python_s, spark_s = watch.cpu_seconds("python"), watch.cpu_seconds("spark")
    niced_s = watch.cpu_seconds("niced")
    print(
        f"server CPU: {python_s:.1f} s in its Python processes at priority 0 "
        f"({1000 * python_s / max(1, refreshes):.0f} ms per placement refresh, pages and "
        f"simulation requests included; {refreshes} refreshes), {niced_s:.1f} s in its niced "
        f"Python processes (searches, the claims' run), {spark_s:.1f} s in Spark"
    )
    load = watch.load or [float("nan")]
    print(
        f"load generator (this process): {watch.client_cpu_s:.1f} s CPU; the machine's 1-minute "
        f"load average while the users ran: mean {np.mean(load):.1f}, max {max(load):.1f} "
        f"({os.cpu_count()} CPUs)"
    )
    why = ", ".join(f"{k} x{v}" for k, v in sorted(stats.reasons.items())) or "none"
    print(f"HTTP 500s: {errors}; other failures: {sum(stats.failures.values())} ({why})")
    print(
        f"server peak memory: {watch.peak_python / 1e6:,.0f} MB (largest Python process), "
        f"{watch.peak_python_all / 1e6:,.0f} MB (its Python processes together: gunicorn's, "
        f"the evaluation and search processes), {watch.peak_tree / 1e6:,.0f} MB (with every child, "
        "Spark's JVM and Python workers included)"
    )


def print_server_errors(log: Path, most: int = 8) -> None:
    """The server log's error lines (the causes of 500s and dropped connections)."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    errors = [line for line in lines if "Error" in line or "Exception" in line or "WORKER" in line]
    for line in list(dict.fromkeys(errors))[:most]:
        print(f"  server: {line[:200]}")


def run_load(users: int, seconds: float, server_kind: str) -> Stats:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="slotscope-load-") as cache_dir:
        server = start_server(server_kind, port, cache_dir)
        try:
            up_s = wait_until_up(base, server)
            # Dash registers the callbacks at the first page it serves: until then
            # /_dash-dependencies lists none (the page's first render, served from its
            # own cache, may not count as one: the layout request does)
            requests.get(base + "/", timeout=REQUEST_TIMEOUT_S)
            requests.get(base + "/_dash-layout", timeout=REQUEST_TIMEOUT_S)
            deps = [
                Callback(d["output"], d["inputs"], d["state"])
                for d in requests.get(base + "/_dash-dependencies", timeout=30).json()
                if not d.get("clientside_function")
            ]
            stats = Stats()
            schedulers = default_schedulers()
            with MemoryWatch(server.pid) as watch:
                deadline = time.monotonic() + seconds
                crowd = [User(k, base, deps, stats, schedulers) for k in range(users)]
                threads = [threading.Thread(target=u.run, args=(deadline,)) for u in crowd]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
            print_report(stats, seconds, users, watch, up_s)
            if stats.http_500 or stats.failures:
                print_server_errors(Path(cache_dir) / "server.log")
            if os.environ.get("SLOTSCOPE_LOAD_LOG"):
                shutil.copyfile(Path(cache_dir) / "server.log", os.environ["SLOTSCOPE_LOAD_LOG"])
            return stats
        finally:
            stop_server(server)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--users", type=int, default=int(os.environ.get("SLOTSCOPE_LOAD_USERS", USERS))
    )
    parser.add_argument(
        "--seconds", type=float, default=float(os.environ.get("SLOTSCOPE_LOAD_SECONDS", SECONDS))
    )
    parser.add_argument(
        "--server",
        choices=("gunicorn", "dev"),
        default=os.environ.get("SLOTSCOPE_LOAD_SERVER", "gunicorn"),
    )
    args = parser.parse_args(list(argv) if argv is not None else [])
    run_load(args.users, args.seconds, args.server)


if __name__ == "__main__":
    main(sys.argv[1:])

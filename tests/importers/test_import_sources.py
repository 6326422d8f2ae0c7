"""Telling documents apart, combining them, and fetching them from a live server."""

from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fixture_files import FIXTURES, load

from core.importers import classify, import_documents, import_sources
from core.model import ScenarioError

TOPOLOGY_ID = "WordCount3-1-1402960825"
JOB_ID = "3511bedc59aea74b21229d4727507a83"
ROUTES = {
    f"/api/v1/topology/{TOPOLOGY_ID}": "storm_docs_topology.json",
    f"/api/v1/topology/{TOPOLOGY_ID}/visualization": "storm_ui_topology_visualization.json",
    "/api/v1/supervisor/summary": "storm_docs_supervisor_summary.json",
    f"/jobs/{JOB_ID}/plan": "flink_wordcount_rest_plan.json",
}
SLOW_PATH = "/slow"
SLOW_S = 0.5  # s the slow route waits before answering


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        path = self.path.split("?")[0]
        self.server.seen.append(path)
        if path == SLOW_PATH:
            time.sleep(SLOW_S)
        name = ROUTES.get(path)
        if name is None or (path == "/api/v1/supervisor/summary" and self.server.no_supervisors):
            self.send_error(404, "Not Found")
            return
        body = (FIXTURES / name).read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # a client that gave up (the timeout tests, on the slow route) has closed its end
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@pytest.fixture
def server():
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.seen, httpd.no_supervisors = [], False
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _base(httpd) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}"


def test_each_fixture_is_recognised():
    kinds = {
        name: classify(load(name), name)
        for name in (
            "storm_docs_topology.json",
            "storm_ui_topology_visualization.json",
            "storm_docs_supervisor_summary.json",
            "flink_wordcount_plan.json",
            "flink_wordcount_rest_plan.json",
        )
    }
    assert list(kinds.values()) == [
        "storm-topology",
        "storm-visualization",
        "storm-supervisors",
        "flink-plan",
        "flink-plan",
    ]


def test_storm_topology_url_fetches_visualization_and_supervisors(server):
    imported = import_sources([f"{_base(server)}/api/v1/topology/{TOPOLOGY_ID}"])
    assert server.seen == [
        f"/api/v1/topology/{TOPOLOGY_ID}",
        f"/api/v1/topology/{TOPOLOGY_ID}/visualization",
        "/api/v1/supervisor/summary",
    ]
    sc = imported.scenario
    assert sum(c.parallelism for c in sc.topology.components) == 25
    assert [n.id for n in sc.cluster.nodes] == ["10.11.1.7"]


def test_missing_supervisor_summary_falls_back_to_default_nodes_and_says_why(server):
    server.no_supervisors = True
    imported = import_sources([f"{_base(server)}/api/v1/topology/{TOPOLOGY_ID}"])
    assert imported.warnings[0].startswith("nodes: http://127.0.0.1:")
    assert "HTTP 404" in imported.warnings[0]
    assert [n.slots for n in imported.scenario.cluster.nodes] == [4]


def test_flink_job_url_fetches_its_plan(server):
    imported = import_sources([f"{_base(server)}/jobs/{JOB_ID}"])
    assert server.seen == [f"/jobs/{JOB_ID}/plan"]
    assert {c.id: c.parallelism for c in imported.scenario.topology.components}["count"] == 3


def test_http_errors_unreachable_servers_and_timeouts_are_one_line(server):
    with pytest.raises(ScenarioError, match=r"/nothing: HTTP 404 Not Found"):
        import_sources([f"{_base(server)}/nothing"])
    with pytest.raises(ScenarioError, match=r"^http://127.0.0.1:1/x: could not connect"):
        import_sources(["http://127.0.0.1:1/x"])
    with pytest.raises(ScenarioError, match=r"/slow: no answer within 0.1 s"):
        import_sources([f"{_base(server)}{SLOW_PATH}"], timeout_s=0.1)


def test_documents_that_do_not_fit_are_refused_by_name():
    topo, sups = load("storm_docs_topology.json"), load("storm_docs_supervisor_summary.json")
    plan = load("flink_wordcount_plan.json")
    cases = {
        "supervisors only": ([("s.json", sups)], "s.json: the Storm topology response"),
        "twice": ([("a", topo), ("b", topo)], "b: a second storm-topology document"),
        "mixed": ([("p", plan), ("s", sups)], "s: a Flink plan is imported alone"),
        "scenario": (
            [("sc.json", {"topology": {}, "cluster": {}})],
            "sc.json: this is already a slotscope scenario",
        ),
        "other": (
            [("o.json", {"hello": 1})],
            "o.json: unrecognised document (top-level fields: 'hello')",
        ),
        "list": ([("l.json", [1, 2])], "l.json: not a JSON object"),
    }
    for label, (docs, start) in cases.items():
        with pytest.raises(ScenarioError) as err:
            import_documents(docs)
        assert str(err.value).startswith(start), label


def test_the_scenario_file_says_what_was_assumed():
    names = (
        "storm_docs_topology.json",
        "storm_ui_topology_visualization.json",
        "storm_docs_supervisor_summary.json",
    )
    imported = import_documents([(n, load(n)) for n in names], notes=["nodes: a note"])
    assert imported.warnings[0] == "nodes: a note"
    assert imported.scenario.description == (
        "Imported from the Storm UI REST API (topology WordCount3-1-1402960825). Assumed, as "
        "the source does not give them: nodes; cpu_us of spout; node clock; ackers."
    )

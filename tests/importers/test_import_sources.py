"""Telling documents apart, combining them, and fetching them from a live server."""

from __future__ import annotations

import socket
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
TRICKLE_PATH = "/trickle"  # one byte every 0.05 s: each read is quick, the whole is not
REDIRECTS = {
    "/moved": f"/jobs/{JOB_ID}/plan",  # same host: followed
    "/away": "http://localhost:1/x",  # another host (localhost is not 127.0.0.1): refused
    "/loop": "/loop",
}
HUGE_PATH = "/huge"  # announces 3 MB
UNSIZED_PATH = "/unsized"  # 2.1 MB with no Content-Length


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        path = self.path.split("?")[0]
        self.server.seen.append(path)
        self.server.hosts.append(self.headers["Host"])
        if path == SLOW_PATH:
            time.sleep(SLOW_S)
        if path in REDIRECTS:
            self.send_response(302)
            self.send_header("Location", REDIRECTS[path])
            self.end_headers()
            return
        if path in (TRICKLE_PATH, HUGE_PATH, UNSIZED_PATH):
            self._stream(path)
            return
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

    def _stream(self, path):
        self.send_response(200)
        if path == HUGE_PATH:
            self.send_header("Content-Length", str(3_000_000))
        self.end_headers()
        if path == TRICKLE_PATH:
            for _ in range(200):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.05)
        elif path == UNSIZED_PATH:
            for _ in range(21):
                self.wfile.write(b" " * 100_000)

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
    httpd.seen, httpd.hosts, httpd.no_supervisors = [], [], False
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
    with pytest.raises(ScenarioError, match=r"/slow: no complete answer within 0.1 s"):
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


def test_redirects_are_followed_within_the_same_host_only(server):
    imported = import_sources([f"{_base(server)}/moved"])
    assert server.seen == ["/moved", f"/jobs/{JOB_ID}/plan"]
    assert imported.scenario.topology.components
    with pytest.raises(ScenarioError, match=r"/away: redirects to http://localhost:1/x: only"):
        import_sources([f"{_base(server)}/away"])
    with pytest.raises(ScenarioError, match=r"/loop: more than 5 redirects"):
        import_sources([f"{_base(server)}/loop"])


def test_one_deadline_holds_for_the_whole_answer_and_its_size_is_capped(server):
    with pytest.raises(ScenarioError, match=r"/trickle: no complete answer within 0.3 s"):
        import_sources([f"{_base(server)}{TRICKLE_PATH}"], timeout_s=0.3)
    with pytest.raises(ScenarioError, match=r"/huge: the answer is 3,000,000 bytes, the limit"):
        import_sources([f"{_base(server)}{HUGE_PATH}"])
    with pytest.raises(ScenarioError, match=r"/unsized: the answer is over the limit of"):
        import_sources([f"{_base(server)}{UNSIZED_PATH}"])


def test_the_deadline_covers_the_host_name_lookup(monkeypatch):
    release = threading.Event()
    asked = []

    def stuck_lookup(host, port, *args, **kwargs):  # a resolver that never answers in time
        asked.append((host, port))
        release.wait(30)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", stuck_lookup)
    url = "http://storm-ui.invalid:8080/api/v1/topology/T-1"
    try:
        with pytest.raises(ScenarioError) as err:
            import_sources([url], timeout_s=0.2)
    finally:
        release.set()
    assert str(err.value) == (
        f"{url}: no complete answer within 0.2 s (the host name storm-ui.invalid did not "
        "resolve in time)"
    )
    assert asked == [("storm-ui.invalid", 8080)]


NO_NAME = "Name or service not known"


def test_a_host_name_is_resolved_once_per_request_and_sent_as_the_host(server, monkeypatch):
    port = server.server_address[1]
    real_lookup = socket.getaddrinfo
    asked = []

    def lookup(host, *args, **kwargs):  # never asks a DNS server
        asked.append(host)
        if host == "nowhere.test":
            raise socket.gaierror(socket.EAI_NONAME, NO_NAME)
        return real_lookup("127.0.0.1" if host == "jobmanager.test" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    imported = import_sources([f"http://jobmanager.test:{port}/moved"])
    assert imported.scenario.topology.components
    assert server.seen == ["/moved", f"/jobs/{JOB_ID}/plan"]
    assert server.hosts == [f"jobmanager.test:{port}"] * 2
    with pytest.raises(ScenarioError) as err:
        import_sources(["http://nowhere.test:1/x"])
    assert str(err.value) == "http://nowhere.test:1/x: could not connect (" + NO_NAME + ")"
    assert asked == ["jobmanager.test", "jobmanager.test", "nowhere.test"]

"""Read the importers' inputs: files, and Storm UI and Flink REST responses over HTTP.

Given the address of one Storm topology (``http://ui:8080/api/v1/topology/<id>``)
the importer also asks for its ``/visualization`` and the cluster's
``/api/v1/supervisor/summary``; given a Flink job (``http://jm:8081/jobs/<jid>`` or
``.../plan``) it asks for the plan. Any other address is fetched as it is.

Bounds, so that no input can hold the command or fill its memory:

- a file is checked before it is read: a regular file (not a directory, FIFO or
  device such as ``/dev/zero``) of at most ``MAX_SCENARIO_BYTES``, and no more
  than that is read even if it grows meanwhile;
- an address gets one total deadline (``timeout_s``, default ``FETCH_TIMEOUT_S``)
  for all its requests, redirects and reads together: the host name's lookup
  (``getaddrinfo``, which has no timeout of its own, runs in a thread waited for
  no longer than the time left), the connection, the TLS handshake and every
  read are each cut to the time left;
- redirects are followed only within the same scheme, host and port, at most
  ``MAX_REDIRECTS`` of them;
- a response is refused as soon as its ``Content-Length`` or the bytes received
  pass ``MAX_SCENARIO_BYTES``.
"""

from __future__ import annotations

import http.client
import os
import re
import socket
import ssl
import stat
import threading
import time
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from core.importers.common import parse_document
from core.model import ScenarioError
from core.settings import MAX_SCENARIO_BYTES

FETCH_TIMEOUT_S = 10.0  # s: per address, all requests together; a Storm UI answers in < 1 s
MIN_TIMEOUT_S = 0.1  # s: the shortest --timeout
MAX_TIMEOUT_S = 600.0  # s: the longest --timeout
MAX_REDIRECTS = 5  # redirects followed per request, each within the same host
READ_CHUNK_BYTES = 65_536  # bytes per read of a response body
REDIRECTS = (301, 302, 303, 307, 308)
_STORM = re.compile(r"^(?P<base>.*?)/api/v1/topology/(?P<id>[^/]+)(?:/visualization)?/?$")
_FLINK = re.compile(r"^(?P<base>.*?)/jobs/(?P<jid>[0-9a-fA-F]{32})(?:/plan)?/?$")


def is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


def read_file(path: str) -> bytes:
    """A JSON input file's bytes, its kind and size checked before reading.

    Raises
    ------
    ScenarioError
        No such file, not a regular file (directory, FIFO, device), unreadable, or
        larger than ``MAX_SCENARIO_BYTES``.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ScenarioError(path, "no such file") from None
    except (OSError, ValueError) as err:
        raise ScenarioError(path, f"cannot read it ({_reason(err)})") from None
    if stat.S_ISDIR(info.st_mode):
        raise ScenarioError(path, "is a directory, not a JSON file")
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError(path, "not a regular file (a FIFO, socket or device): give a file")
    if info.st_size > MAX_SCENARIO_BYTES:
        raise ScenarioError(
            path, f"{info.st_size:,} bytes, larger than the limit of {MAX_SCENARIO_BYTES:,}"
        )
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # never blocks on a swapped-in FIFO
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ScenarioError(path, "not a regular file (replaced while opening it)")
            raw = fh.read(MAX_SCENARIO_BYTES + 1)
    except OSError as err:
        raise ScenarioError(path, f"cannot read it ({_reason(err)})") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError(path, f"larger than the limit of {MAX_SCENARIO_BYTES:,} bytes")
    return raw


def _reason(err: BaseException) -> str:
    return getattr(err, "strerror", None) or str(err) or type(err).__name__


class _Deadline:
    """The time left of one address's total deadline."""

    def __init__(self, url: str, timeout_s: float):
        self.url, self.timeout_s = url, timeout_s
        self.end = time.monotonic() + timeout_s

    def left(self) -> float:
        """Seconds left (> 0); ScenarioError once the deadline has passed."""
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise ScenarioError(self.url, f"no complete answer within {self.timeout_s:g} s")
        return remaining


def _origin(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL; ScenarioError for a malformed one."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as err:
        raise ScenarioError(url, f"not a valid URL ({err})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ScenarioError(url, "not an http(s) URL with a host")
    if any(ord(c) < 33 or ord(c) == 127 for c in url):
        raise ScenarioError(url, "not a valid URL (spaces or control characters)")
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname.lower(), port or default


def _resolve(host: str, port: int, deadline: _Deadline) -> list[tuple[Any, ...]]:
    """``getaddrinfo(host, port)`` within the time left: it runs in a daemon thread (it
    has no timeout of its own), waited for no longer than the deadline allows.

    Raises
    ------
    ScenarioError
        The name did not resolve before the deadline (the thread is left to finish).
    OSError
        The name does not resolve (``socket.gaierror``).
    """
    found: dict[str, Any] = {}

    def lookup() -> None:
        try:
            found["addresses"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as err:
            found["error"] = err

    resolver = threading.Thread(target=lookup, name=f"resolve-{host[:40]}", daemon=True)
    resolver.start()
    resolver.join(deadline.left())
    if "error" in found:
        raise found["error"]  # "could not connect (Name or service not known)", as before
    if not found.get("addresses"):
        raise ScenarioError(
            deadline.url,
            f"no complete answer within {deadline.timeout_s:g} s (the host name {host} "
            "did not resolve in time)",
        )
    return found["addresses"]


def _connect(scheme: str, host: str, port: int, deadline: _Deadline) -> socket.socket:
    """A socket connected to ``host:port`` (TLS for https, the certificate checked for
    ``host``), each step within the time left; OSError or TimeoutError when none is."""
    error: OSError = OSError(f"no address for {host}")
    for family, kind, proto, _, address in _resolve(host, port, deadline):
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.left())
            sock.connect(address)
            if scheme == "https":
                sock.settimeout(deadline.left())
                return ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            return sock
        except ScenarioError:
            sock.close()
            raise
        except OSError as err:  # the next address, if any (IPv6 then IPv4, say)
            sock.close()
            error = err
    raise error


def _get(url: str, deadline: _Deadline) -> tuple[int, str, dict[str, str], bytes]:
    """One GET: (status, reason, headers, body), the body read up to the size cap."""
    scheme, host, port = _origin(url)
    parts = urlsplit(url)
    target = urlunsplit(("", "", parts.path or "/", parts.query, ""))
    kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    conn = kind(host, port, timeout=deadline.left())
    sock = _connect(scheme, host, port, deadline)
    conn.sock = sock  # connected within the deadline: the connection does not open its own
    try:
        conn.request("GET", target, headers={"Accept": "application/json"})
        sock.settimeout(deadline.left())
        response = conn.getresponse()
        headers = {k.lower(): v for k, v in response.getheaders()}
        if response.status in REDIRECTS:
            return response.status, response.reason, headers, b""
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                url, f"the answer is {int(length):,} bytes, the limit is {MAX_SCENARIO_BYTES:,}"
            )
        body = bytearray()
        while True:
            sock.settimeout(deadline.left())
            chunk = response.read1(READ_CHUNK_BYTES)
            if not chunk:
                break
            body += chunk
            if len(body) > MAX_SCENARIO_BYTES:
                raise ScenarioError(
                    url, f"the answer is over the limit of {MAX_SCENARIO_BYTES:,} bytes"
                )
        return response.status, response.reason, headers, bytes(body)
    finally:
        conn.close()
        sock.close()


def fetch_json(
    url: str, timeout_s: float = FETCH_TIMEOUT_S, deadline: _Deadline | None = None
) -> Any:
    """GET ``url`` and parse its JSON body; ScenarioError naming the URL on any failure.

    Redirects within the same scheme, host and port are followed (at most
    ``MAX_REDIRECTS``); one to anywhere else is refused. ``deadline`` (from
    :func:`documents_from_url`) shares one total time among several requests.
    """
    deadline = deadline or _Deadline(url, timeout_s)
    first = url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            status, reason, headers, body = _get(url, deadline)
        except ScenarioError:
            raise
        except TimeoutError:
            raise ScenarioError(
                first, f"no complete answer within {deadline.timeout_s:g} s"
            ) from None
        except (http.client.HTTPException, ValueError) as err:
            raise ScenarioError(url, f"not an HTTP answer ({_reason(err)})") from None
        except OSError as err:
            raise ScenarioError(url, f"could not connect ({_reason(err)})") from None
        if status not in REDIRECTS:
            if status >= 400:
                raise ScenarioError(url, f"HTTP {status} {reason}")
            return parse_document(body, url)
        location = headers.get("location")
        if not location:
            raise ScenarioError(url, f"HTTP {status} redirect without a Location")
        target = urljoin(url, location)
        if _origin(target) != _origin(url):
            raise ScenarioError(
                url,
                f"redirects to {target[:200]}: only redirects within "
                f"{'://'.join(_origin(url)[:2])}:{_origin(url)[2]} are followed",
            )
        url = target
    raise ScenarioError(first, f"more than {MAX_REDIRECTS} redirects")


def documents_from_url(
    url: str, timeout_s: float = FETCH_TIMEOUT_S
) -> tuple[list[tuple[str, Any]], list[str]]:
    """The documents one address stands for, and notes on what could not be fetched.

    All the requests of one address share one deadline of ``timeout_s`` seconds.
    """
    _origin(url)
    deadline = _Deadline(url, timeout_s)
    parts = urlsplit(url)
    path = parts.path
    storm = _STORM.match(path)
    flink = _FLINK.match(path)

    def at(new_path: str) -> str:
        return urlunsplit((parts.scheme, parts.netloc, new_path, parts.query, ""))

    def get(address: str) -> Any:
        return fetch_json(address, timeout_s, deadline)

    if storm:
        topo_url = at(f"{storm['base']}/api/v1/topology/{storm['id']}")
        docs = [
            (topo_url, get(topo_url)),
            (f"{topo_url}/visualization", get(f"{topo_url}/visualization")),
        ]
        sup_url = urlunsplit(
            (parts.scheme, parts.netloc, f"{storm['base']}/api/v1/supervisor/summary", "", "")
        )
        try:
            docs.append((sup_url, get(sup_url)))
        except ScenarioError as err:
            return docs, [f"nodes: {err}; Storm's default nodes instead"]
        return docs, []
    if flink:
        plan_url = at(f"{flink['base']}/jobs/{flink['jid']}/plan")
        return [(plan_url, get(plan_url))], []
    return [(url, get(url))], []

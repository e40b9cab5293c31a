"""A capture server: a plain HTTP server on loopback that records every request it gets.

It stands for "some other server" in the tests that show a saved token never travels there:
whatever reaches it (method, path, headers, body) is in ``requests``, and it answers 404.
The owner's webhook tests read what was posted to it.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Captured:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""


@dataclass
class CaptureServer:
    url: str
    requests: list[Captured] = field(default_factory=list)

    @property
    def mcp_url(self) -> str:
        return self.url + "/mcp/trading"

    def authorizations(self) -> list[str]:
        """Every ``Authorization`` header that arrived (none, in a passing test)."""
        return [
            value
            for request in self.requests
            for name, value in request.headers.items()
            if name.lower() == "authorization"
        ]


@contextmanager
def capture_server() -> Iterator[CaptureServer]:
    """A recording server on a free loopback port for the block."""
    captured: list[Captured] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            captured.append(Captured(self.command, self.path, dict(self.headers.items()), body))
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()

        do_GET = do_POST = do_DELETE = _record

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: the test reads ``requests``

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield CaptureServer(f"http://127.0.0.1:{server.server_address[1]}", captured)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def unused_port() -> int:
    """A loopback port nothing listens on (bound once to learn it, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port

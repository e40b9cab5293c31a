"""The floor of ``ordergate bench gateway``: a minimal forwarding proxy, run as its own process.

``bare_hop_read`` measures the same request through this proxy that ``gateway_read`` sends
through the gateway, on the same server stack (Starlette on uvicorn, httptools on uvloop,
configured by ``ordergate._serving`` as the gateway's is) and with the same HTTP client the
gateway reaches its upstream with (one ``ordergate.client.Wire``: the keep-alive HTTP/1.1 pool
the gateway's calls to its venue take, each request in one write), and nothing else: no
authentication, no Host or Origin check, no limits, no policy, no parsing of either body.
Each POST's body and its MCP headers (the client's bearer, which is the venue's own token,
the session id and protocol version) go to the upstream as they came; its status, content
type, session id and body come back as they went. What the gateway costs above this is what
its checks and its forward cost; what this costs above ``direct_read`` is what any Python hop
costs here.

Never a server to deploy: it checks nothing.
"""

from __future__ import annotations

import sys

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ordergate._serving import bind_socket, serve_foreground
from ordergate.client import Wire

__all__ = ["READY", "hop_app", "serve_hop"]

READY = "bench hop: ready"
_PASSED = (b"authorization", b"accept", b"content-type", b"mcp-session-id", b"mcp-protocol-version")


def hop_app(upstream: str, wire: Wire | None = None) -> Starlette:
    """The proxy: every POST to ``/mcp`` forwarded to ``upstream`` over one pooled client:
    ``wire`` (its owner closes it), else one the first request makes on the serving loop
    (the process ends with its connections)."""
    wires = [] if wire is None else [wire]

    async def forward(request: Request) -> Response:
        if not wires:
            wires.append(Wire(upstream, timeout_s=30.0))  # as the gateway's calls go
        came = dict(request.scope["headers"])
        headers = [(name, came[name]) for name in _PASSED if name in came]
        answer = await wires[0].post(headers, await request.body())
        passed = {}
        session = answer.header(b"mcp-session-id")
        if session is not None:
            passed["mcp-session-id"] = session
        return Response(
            answer.content,
            status_code=answer.status_code,
            headers=passed,
            media_type=answer.header(b"content-type"),
        )

    return Starlette(routes=[Route("/mcp", forward, methods=["POST"])])


def serve_hop(upstream: str, port: str) -> None:
    """The proxy's process: serves on ``127.0.0.1:port`` until terminated; the ready line
    goes to stderr once it listens."""
    sock = bind_socket("127.0.0.1", int(port))
    serve_foreground(
        hop_app(upstream),
        sock,
        on_ready=lambda: print(READY, file=sys.stderr, flush=True),
        fast=True,  # the gateway's server stack: httptools on uvloop
    )


if __name__ == "__main__":
    serve_hop(*sys.argv[1:])

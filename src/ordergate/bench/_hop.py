"""The floor of ``ordergate bench gateway``: a minimal forwarding proxy, run as its own process.

``bare_hop_read`` measures the same request through this proxy that ``gateway_read`` sends
through the gateway, on the same server stack (Starlette on uvicorn, httptools on uvloop,
configured by ``ordergate._serving`` as the gateway's is) and with the same HTTP client the
gateway reaches its upstream with (one pooled ``httpx2.AsyncClient`` sending each request in
one write, ``ordergate.client._coalesce``), and nothing else: no authentication, no Host or
Origin check, no limits, no policy, no parsing of either body. Each POST's body and its MCP
headers (the client's bearer, which is the venue's own token, the session id and protocol
version) go to the upstream as they came; its status, content type, session id and body come
back as they went. What the gateway costs above this is what its checks and its forward
cost; what this costs above ``direct_read`` is what any Python hop costs here.

Never a server to deploy: it checks nothing.
"""

from __future__ import annotations

import sys

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ordergate._serving import bind_socket, serve_foreground
from ordergate.client import coalesce

__all__ = ["READY", "hop_app", "serve_hop"]

READY = "bench hop: ready"
_PASSED = ("authorization", "accept", "content-type", "mcp-session-id", "mcp-protocol-version")


def hop_app(upstream: str, http: httpx2.AsyncClient | None = None) -> Starlette:
    """The proxy: every POST to ``/mcp`` forwarded to ``upstream`` over one pooled client:
    ``http`` (its owner closes it), else one the first request makes on the serving loop
    (the process ends with its connections)."""
    url = httpx2.URL(upstream)
    clients = [] if http is None else [http]

    async def forward(request: Request) -> Response:
        if not clients:
            clients.append(httpx2.AsyncClient(timeout=30.0))
            coalesce(clients[0])  # as the gateway's upstream client is
        http = clients[0]
        headers = {name: request.headers[name] for name in _PASSED if name in request.headers}
        answer = await http.post(url, content=await request.body(), headers=headers)
        passed = {}
        session = answer.headers.get("mcp-session-id")
        if session is not None:
            passed["mcp-session-id"] = session
        return Response(
            answer.content,
            status_code=answer.status_code,
            headers=passed,
            media_type=answer.headers.get("content-type"),
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

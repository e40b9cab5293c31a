"""The floor of ``ordergate bench gateway``: a minimal forwarding proxy, run as its own process.

``bare_hop_read`` measures the same request through this proxy that ``gateway_read`` sends
through the gateway, on the same server stack (a plain ASGI app on uvicorn, httptools on
uvloop, configured by ``ordergate._serving`` as the gateway's is; the gateway's ``/mcp`` is a
plain ASGI endpoint too, reached without Starlette's routing) and with the same HTTP client the
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
from typing import Any

from ordergate._serving import bind_socket, serve_foreground
from ordergate.client import Wire

__all__ = ["READY", "hop_app", "serve_hop"]

READY = "bench hop: ready"
_PASSED = (b"authorization", b"accept", b"content-type", b"mcp-session-id", b"mcp-protocol-version")


def hop_app(upstream: str, wire: Wire | None = None) -> Any:
    """The proxy: every POST to ``/mcp`` forwarded to ``upstream`` over one pooled client:
    ``wire`` (its owner closes it), else one the first request makes on the serving loop
    (the process ends with its connections). Anything else is 404 (or 405 for ``/mcp``)."""
    wires = [] if wire is None else [wire]

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] != "/mcp" or scope["method"] != "POST":
            status = 405 if scope["path"] == "/mcp" else 404
            await send({"type": "http.response.start", "status": status, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        body = b""
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if not wires:
            wires.append(Wire(upstream, timeout_s=30.0))  # as the gateway's calls go
        came = dict(scope["headers"])
        headers = [(name, came[name]) for name in _PASSED if name in came]
        answer = await wires[0].post(headers, body)
        passed = [(b"content-length", str(len(answer.content)).encode())]
        for name in (b"content-type", b"mcp-session-id"):
            value = answer.header(name)
            if value is not None:
                passed.append((name, value.encode("latin-1")))
        await send({"type": "http.response.start", "status": answer.status_code, "headers": passed})
        await send({"type": "http.response.body", "body": answer.content})

    return app


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

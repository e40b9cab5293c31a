"""A loopback reverse proxy that adds a bearer token, for clients that cannot sign in.

The MCP conformance suite's server scenarios speak to an unauthenticated endpoint; the venue
always requires a token, as the live one does. This proxy forwards every request unchanged
(``Host`` and ``Origin`` included, so the venue's own checks still run) and adds the token.
"""

from __future__ import annotations

import httpx2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ordergate._serving import BackgroundServer, bind_socket

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"}


def _app(upstream: str, token: str) -> Starlette:
    async def forward(request: Request) -> Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_BY_HOP}
        headers.setdefault("authorization", f"Bearer {token}")
        async with httpx2.AsyncClient(timeout=30.0) as client:
            answer = await client.request(
                request.method,
                upstream + request.url.path,
                params=request.query_params,
                content=await request.body(),
                headers=headers,
            )
        passed = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP_BY_HOP}
        passed.pop("content-encoding", None)
        return Response(answer.content, status_code=answer.status_code, headers=passed)

    methods = ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)])


class BearerProxy:
    """``with BearerProxy(upstream, token) as proxy:`` serves on ``proxy.url``."""

    def __init__(self, upstream: str, token: str) -> None:
        self._server = BackgroundServer(_app(upstream, token), bind_socket("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.port}"

    def __enter__(self) -> BearerProxy:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()

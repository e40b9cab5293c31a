"""The capability broker: ``POST /api/capability/{name}/{action}``, for agents that do not
speak MCP.

The bearer token (a caller token or a gateway access token) is verified exactly as ``/mcp``
verifies it; Host and Origin are checked by the gateway app's ``HostCheck`` as for every
route (DNS rebinding); a refused token counts against the per-IP ``unauthenticated`` limit
and the 8 KB body cap applies (``_limits``); each principal's calls spend its own budget, as
on ``/mcp`` (``admit``: 429 with ``Retry-After`` and ``RATE_LIMITED``), and the body is parsed as
``/mcp`` parses it (``loads_json``: amounts as ``Decimal``, nesting bounded). The request is
authorized by the permission named after the capability (``orders/place`` →
``orders.place``) and then runs as the same ``tools/call`` the MCP endpoint runs
(``GatewayMethods.capability``): the same profile check, routing, guard and record, so both
paths enforce identically.

Answers are JSON: 200 with the tool's ``{data, guide}``; 401 with the same challenge as
``/mcp``; 403 when the profile does not grant the permission; 404 for an unknown capability
or tool; 400 for a malformed body; 429 over the principal's budget; 422 when the call was
refused or failed (the same ``{error: {code, message}}`` the MCP result carries).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ordergate.gateway.mcp import GatewayMethods, Principal, Verify
from ordergate.mcpserve import Admit, dumps_decimal_numbers, loads_json

__all__ = ["BROKER_PATH", "broker_route"]

BROKER_PATH = "/api/capability/{name}/{action}"


class _Json(JSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps_decimal_numbers(content)


def broker_route(
    methods: GatewayMethods,
    *,
    verify: Verify,
    challenge: Callable[..., str],
    admit: Admit[Principal] | None = None,
) -> Route:
    async def broker(request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        principal = None
        if scheme.lower() == "bearer" and token.strip():
            principal = await verify(token.strip())
        if principal is None:
            error = "invalid_token" if token.strip() else None
            return _Json(
                {"error": "invalid_token", "error_description": "authentication required"},
                status_code=401,
                headers={"www-authenticate": challenge(error=error)},
            )
        wait = await admit(principal) if admit is not None else None
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            limited = {
                "code": "RATE_LIMITED",
                "message": f"Too many requests on this connection; retry after {seconds} s.",
                "retry_after": seconds,
            }
            return _Json({"error": limited}, status_code=429, headers={"retry-after": str(seconds)})
        try:
            body = loads_json(await request.body())
        except ValueError:  # not JSON, or nested past MAX_JSON_DEPTH
            return _Json(_bad("The body must be JSON."), status_code=400)
        permission = f"{request.path_params['name']}.{request.path_params['action']}"
        status, answer = await methods.capability(principal, permission, body)
        return _Json(answer, status_code=status)

    return Route(BROKER_PATH, broker, methods=["POST"])


def _bad(message: str) -> dict[str, Any]:
    return {"error": {"code": "INVALID_ARGUMENT", "message": message}}

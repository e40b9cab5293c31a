"""The owner route: ``/owner/…`` on the running gateway, the desk's acts over loopback HTTP.

The owner's commands (``ordergate approve``, ``resume``, ``policy apply``, ``connections``,
``token mint``, ``pause``, ``deny``, ``owner status``) talk to it, so they work when the
gateway runs as another OS user and the owner's user cannot open its files. What guards it:

- the owner code, in the JSON body as ``owner_code``, for every act that needs one (the
  agent can reach this route as well as anyone on the machine: the code is what it lacks);
- only a loopback peer is served (the socket's own peer address; forwarded headers are
  never read here), so a gateway bound beyond loopback keeps its owner route local;
- no browser: a request carrying ``Origin`` is refused (a page cannot post here on the
  owner's behalf), and a ``POST`` must be ``application/json``.

Routes (answers are JSON; a refusal is ``{"error": {"code", "message"}}`` with its status):

- ``GET /owner/status``, ``GET /owner/approvals``, ``GET /owner/connections``;
- ``POST /owner/approvals/{id}/approve`` ``{owner_code}``, ``/owner/approvals/{id}/deny``;
- ``POST /owner/pause`` ``{reason}``, ``POST /owner/resume`` ``{owner_code}``;
- ``POST /owner/policy`` ``{text, owner_code?}``;
- ``POST /owner/connections/{id}/revoke``;
- ``POST /owner/tokens`` ``{caller, profile, ttl_s, connection?, owner_code?}``;
- ``GET /owner/delayed`` (the acts that wait for the owner's delay), ``POST
  /owner/delayed/cancel`` ``{id?}`` (no code: every waiting act when no id is given).

An act that loosens answers ``{"delayed": {id, act, summary, effective_at, …}, "message"}``
instead of its own answer: it takes effect when its delay has passed.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ordergate.gateway.desk._desk import OwnerDesk
from ordergate.gateway.desk._errors import DeskError
from ordergate.oauth import NO_STORE

__all__ = ["OWNER_PREFIX", "owner_routes"]

logger = logging.getLogger(__name__)

OWNER_PREFIX = "/owner"
MAX_REASON = 200

Handler = Callable[[Request, dict[str, Any]], Awaitable[Any]]


def _is_loopback_peer(request: Request) -> bool:
    client = request.scope.get("client")
    if not client:
        return False
    try:
        return ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False


def _answer(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=NO_STORE)


def _text(body: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise DeskError(400, "invalid_request", f"{name} must be a non-empty string.")
    return value


def _code(body: dict[str, Any]) -> str | None:
    value = body.get("owner_code")
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise DeskError(400, "invalid_request", "owner_code must be a string.")
    return value


def owner_routes(desk: OwnerDesk) -> list[BaseRoute]:
    """The owner route's endpoints, to mount at the gateway's root."""

    def endpoint(handler: Handler, *, post: bool) -> Callable[[Request], Awaitable[Response]]:
        async def serve(request: Request) -> Response:
            try:
                if not _is_loopback_peer(request):
                    raise DeskError(403, "not_local", "The owner route answers on loopback only.")
                if "origin" in request.headers:
                    raise DeskError(403, "browser_refused", "The owner route is not for browsers.")
                body: dict[str, Any] = {}
                if post:
                    kind = request.headers.get("content-type", "").split(";")[0].strip()
                    if kind != "application/json":
                        raise DeskError(415, "json_required", "Send application/json.")
                    try:
                        parsed = json.loads(await request.body() or b"{}")
                    except (ValueError, RecursionError):
                        raise DeskError(400, "invalid_json", "The body must be JSON.") from None
                    if not isinstance(parsed, dict):
                        raise DeskError(400, "invalid_json", "The body must be a JSON object.")
                    body = parsed
                return _answer(await handler(request, body))
            except DeskError as error:
                return _answer(error.as_json(), error.status)
            except Exception as error:  # fail closed, without echoing anything submitted
                logger.warning("owner route %s failed: %s", request.url.path, type(error).__name__)
                failed = DeskError(500, "desk_failed", "The act could not be completed.")
                return _answer(failed.as_json(), 500)

        return serve

    async def status(request: Request, body: dict[str, Any]) -> Any:
        return await desk.status()

    async def approvals(request: Request, body: dict[str, Any]) -> Any:
        return {"approvals": await desk.approvals()}

    async def connections(request: Request, body: dict[str, Any]) -> Any:
        return {"connections": await desk.connections()}

    async def approve(request: Request, body: dict[str, Any]) -> Any:
        return await desk.approve(request.path_params["approval_id"], _code(body))

    async def deny(request: Request, body: dict[str, Any]) -> Any:
        return await desk.deny(request.path_params["approval_id"])

    async def pause(request: Request, body: dict[str, Any]) -> Any:
        reason = body.get("reason", "")
        if not isinstance(reason, str) or len(reason) > MAX_REASON or not reason.isprintable():
            raise DeskError(
                400, "invalid_reason", f"reason must be at most {MAX_REASON} printable characters."
            )
        return await desk.pause(reason.strip())

    async def resume(request: Request, body: dict[str, Any]) -> Any:
        return await desk.resume(_code(body))

    async def policy(request: Request, body: dict[str, Any]) -> Any:
        text = _text(body, "text")
        assert text is not None
        return await desk.apply_policy(text, _code(body))

    async def revoke(request: Request, body: dict[str, Any]) -> Any:
        return await desk.revoke(request.path_params["connection_id"])

    async def tokens(request: Request, body: dict[str, Any]) -> Any:
        ttl = body.get("ttl_s")
        if isinstance(ttl, bool) or not isinstance(ttl, int):
            raise DeskError(400, "invalid_request", "ttl_s must be a whole number of seconds.")
        caller, profile = _text(body, "caller"), _text(body, "profile")
        assert caller is not None and profile is not None
        return await desk.mint(
            caller=caller,
            profile=profile,
            ttl_s=ttl,
            connection=_text(body, "connection", required=False),
            code=_code(body),
        )

    async def delayed(request: Request, body: dict[str, Any]) -> Any:
        return {"delayed": await desk.pending_acts()}

    async def cancel(request: Request, body: dict[str, Any]) -> Any:
        return await desk.cancel_delayed(_text(body, "id", required=False))

    prefix = OWNER_PREFIX
    return [
        Route(f"{prefix}/delayed", endpoint(delayed, post=False), methods=["GET"]),
        Route(f"{prefix}/delayed/cancel", endpoint(cancel, post=True), methods=["POST"]),
        Route(f"{prefix}/status", endpoint(status, post=False), methods=["GET"]),
        Route(f"{prefix}/approvals", endpoint(approvals, post=False), methods=["GET"]),
        Route(f"{prefix}/connections", endpoint(connections, post=False), methods=["GET"]),
        Route(
            f"{prefix}/approvals/{{approval_id}}/approve",
            endpoint(approve, post=True),
            methods=["POST"],
        ),
        Route(
            f"{prefix}/approvals/{{approval_id}}/deny", endpoint(deny, post=True), methods=["POST"]
        ),
        Route(f"{prefix}/pause", endpoint(pause, post=True), methods=["POST"]),
        Route(f"{prefix}/resume", endpoint(resume, post=True), methods=["POST"]),
        Route(f"{prefix}/policy", endpoint(policy, post=True), methods=["POST"]),
        Route(
            f"{prefix}/connections/{{connection_id}}/revoke",
            endpoint(revoke, post=True),
            methods=["POST"],
        ),
        Route(f"{prefix}/tokens", endpoint(tokens, post=True), methods=["POST"]),
    ]

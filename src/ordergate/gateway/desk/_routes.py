"""The owner routes: ``/owner/…`` on the owner channel (``_channel``), the desk's acts as JSON.

The owner's commands (``ordergate approve``, ``resume``, ``policy apply``, ``connections``,
``token mint``, ``pause``, ``deny``, ``owner status``) talk to them over the gateway's Unix
socket; the TCP listener the agent reaches serves none of them. What guards them:

- the channel itself: only the gateway's user, root and the socket directory's group reach
  it, each peer checked by its credentials (``_channel.PeerCheck``);
- the owner code, for every act that needs one, spent on the digest of the act the gateway
  prepared (``POST /owner/prepare``, then ``POST /owner/authorize``): the code authorises
  that act only, exactly as prepared;
- no browser: a request carrying ``Origin`` is refused, and a ``POST`` must be
  ``application/json``.

Routes (answers are JSON; a refusal is ``{"error": {"code", "message"}}`` with its status):

- ``GET /owner/status``, ``GET /owner/approvals``, ``GET /owner/connections``;
- ``POST /owner/approvals/{id}/deny``, ``POST /owner/pause`` ``{reason, connection_id?}``,
  ``POST /owner/connections/{id}/revoke``, ``POST /owner/connections/{id}/limits``
  ``{limits}`` (a person's connection's limits, each at most the one in force), ``POST
  /owner/connections/{id}/approval-mode`` ``{approval_mode: true}`` (every order of a person's
  connection held for them; ``false`` is refused: the person's act) (safer: no code);
  ``GET /owner/connections/{id}/limits``;
- ``POST /owner/prepare`` ``{act, params}`` → ``{act_id, act, summary, digest, needs_code,
  expires_at}``, for ``approve`` ``{approval_id}``, ``resume`` ``{connection_id?}``,
  ``policy_apply`` ``{text}``, ``token_mint`` ``{caller, profile, ttl_s, connection?}``;
- ``POST /owner/authorize`` ``{act_id, digest, owner_code?}`` → the act's answer;
- ``GET /owner/delayed`` (the acts that wait for the owner's delay), ``POST
  /owner/delayed/cancel`` ``{id?}`` (no code: every waiting act when no id is given).

An act that loosens answers ``{"delayed": {id, act, summary, effective_at, …}, "message"}``
instead of its own answer: it takes effect when its delay has passed.
"""

from __future__ import annotations

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
    """The owner routes' endpoints, to serve on the owner channel."""

    def endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        """``handler`` served: a ``POST``'s body is JSON it is handed (a ``GET`` has none)."""

        async def serve(request: Request) -> Response:
            try:
                if "origin" in request.headers:
                    raise DeskError(403, "browser_refused", "The owner route is not for browsers.")
                body: dict[str, Any] = {}
                if request.method == "POST":
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

    async def deny(request: Request, body: dict[str, Any]) -> Any:
        return await desk.deny(request.path_params["approval_id"])

    async def pause(request: Request, body: dict[str, Any]) -> Any:
        reason = body.get("reason", "")
        if not isinstance(reason, str) or len(reason) > MAX_REASON or not reason.isprintable():
            raise DeskError(
                400, "invalid_reason", f"reason must be at most {MAX_REASON} printable characters."
            )
        cancel_open = body.get("cancel_open", False)
        if not isinstance(cancel_open, bool):
            raise DeskError(400, "invalid_request", "cancel_open must be true or false.")
        connection_id = _text(body, "connection_id", required=False)
        return await desk.pause(
            reason.strip(), cancel_open=cancel_open, connection_id=connection_id
        )

    async def revoke(request: Request, body: dict[str, Any]) -> Any:
        return await desk.revoke(request.path_params["connection_id"])

    async def limits(request: Request, body: dict[str, Any]) -> Any:
        connection_id = request.path_params["connection_id"]
        if request.method == "GET":
            return {"connection_id": connection_id, "limits": await desk.connection_limits(
                connection_id
            )}  # fmt: skip
        return await desk.tighten_limits(connection_id, body.get("limits"))

    async def approval_mode(request: Request, body: dict[str, Any]) -> Any:
        on = body.get("approval_mode")
        if not isinstance(on, bool):
            raise DeskError(400, "invalid_request", "approval_mode must be true or false.")
        return await desk.approval_mode(request.path_params["connection_id"], on)

    async def prepare(request: Request, body: dict[str, Any]) -> Any:
        act = _text(body, "act")
        params = body.get("params", {})
        if not isinstance(params, dict):
            raise DeskError(400, "invalid_request", "params must be a JSON object.")
        assert act is not None
        return await desk.prepare(act, params)

    async def authorize(request: Request, body: dict[str, Any]) -> Any:
        act_id, digest = _text(body, "act_id"), _text(body, "digest")
        assert act_id is not None and digest is not None
        return await desk.authorize_act(act_id, digest, _code(body))

    async def delayed(request: Request, body: dict[str, Any]) -> Any:
        return {"delayed": await desk.pending_acts()}

    async def cancel(request: Request, body: dict[str, Any]) -> Any:
        return await desk.cancel_delayed(_text(body, "id", required=False))

    prefix = OWNER_PREFIX
    return [
        Route(f"{prefix}/delayed", endpoint(delayed), methods=["GET"]),
        Route(f"{prefix}/delayed/cancel", endpoint(cancel), methods=["POST"]),
        Route(f"{prefix}/status", endpoint(status), methods=["GET"]),
        Route(f"{prefix}/approvals", endpoint(approvals), methods=["GET"]),
        Route(f"{prefix}/connections", endpoint(connections), methods=["GET"]),
        Route(f"{prefix}/approvals/{{approval_id}}/deny", endpoint(deny), methods=["POST"]),
        Route(f"{prefix}/pause", endpoint(pause), methods=["POST"]),
        Route(f"{prefix}/connections/{{connection_id}}/revoke", endpoint(revoke), methods=["POST"]),
        Route(
            f"{prefix}/connections/{{connection_id}}/limits",
            endpoint(limits),
            methods=["GET", "POST"],
        ),
        Route(
            f"{prefix}/connections/{{connection_id}}/approval-mode",
            endpoint(approval_mode),
            methods=["POST"],
        ),
        Route(f"{prefix}/prepare", endpoint(prepare), methods=["POST"]),
        Route(f"{prefix}/authorize", endpoint(authorize), methods=["POST"]),
    ]

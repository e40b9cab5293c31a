"""A person's own routes on a hosted rail, each authenticated by that person's own code.

Until the person's console signs a person in, each request names its connection by the digest
its record carries (``connection``: the 32 hex digits of its ``conn:`` identity, which tells
nothing of the connection id) and carries a current code of the person's (``person_code``),
spent on that one act (``PersonCodes``; every outcome journalled ``person_act``). They take
JSON only, so a form on another site cannot post to them without the browser asking first.

==================================  ==========================================================
``POST /person/approval-mode``      ``{"connection", "person_code", "approval_mode": bool}``:
                                    hold every order for the person, or leave it to the
                                    rail's policy (``_approval_mode``)
``POST /person/limits``             ``{"connection", "person_code", "limits": {cap: value}}``:
                                    the connection's own limits, each up to the rail's
                                    ceiling (``null``: up to it; ``_person_limits``); the
                                    answer shows each cap's ceiling, own value and the one in
                                    force
==================================  ==========================================================

A refusal is ``{"error": {"code", "field"?, "message"}}`` with a fixed sentence, never an echo
of what was sent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import Engine
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ordergate.gateway.custody._approval_mode import ApprovalModes
from ordergate.gateway.custody._person import PERSON_FIELD, PersonRefused, sealed_connection_of
from ordergate.gateway.custody._person_limits import ConnectionLimits, LimitRefused
from ordergate.store import blocking

__all__ = ["PersonRouteRefused", "person_body", "person_routes", "refused_json"]

_DIGEST = re.compile(r"[0-9a-f]{32}")
_MAX_BODY = 8192


class PersonRouteRefused(Exception):
    """A person's request refused before any code was checked: ``status``, ``code``,
    ``field`` (the bad one, when one is)."""

    def __init__(self, status: int, code: str, message: str, *, field: str | None = None) -> None:
        self.status = status
        self.code = code
        self.field = field
        super().__init__(message)


def refused_json(status: int, code: str, message: str, field: str | None = None) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return JSONResponse({"error": error}, status_code=status, headers={"cache-control": "no-store"})


async def person_body(request: Request, engine: Engine) -> tuple[str, str | None, dict[str, Any]]:
    """The connection a person's request names, their code and the whole body.
    ``PersonRouteRefused`` for a body that is not JSON, or a connection that is not a live
    sealed one's digest."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise PersonRouteRefused(415, "json_only", "Send the request as application/json.")
    raw = await request.body()
    if len(raw) > _MAX_BODY:
        raise PersonRouteRefused(413, "too_large", "The request body is too large.")
    try:
        body = json.loads(raw)
    except ValueError:
        raise PersonRouteRefused(400, "invalid_json", "The body is not JSON.") from None
    if not isinstance(body, dict):
        raise PersonRouteRefused(400, "invalid_json", "The body is not a JSON object.")
    digest = body.get("connection")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise PersonRouteRefused(
            400,
            "invalid_connection",
            "connection must be your connection's 32 hex digits.",
            field="connection",
        )
    connection_id = await blocking(sealed_connection_of, engine, "conn:" + digest)
    if connection_id is None:
        raise PersonRouteRefused(
            404, "unknown_connection", "No connection of a person has that digest.",
            field="connection",
        )  # fmt: skip
    code = body.get(PERSON_FIELD)
    if code is not None and not isinstance(code, str):
        raise PersonRouteRefused(
            400, "invalid_code", "person_code must be text.", field=PERSON_FIELD
        )
    return connection_id, code, body


Handler = Callable[[Request], Awaitable[Response]]


def answering(handler: Handler) -> Handler:
    """``handler`` with its refusals answered as JSON."""

    async def serve(request: Request) -> Response:
        try:
            return await handler(request)
        except PersonRouteRefused as refused:
            return refused_json(refused.status, refused.code, str(refused), refused.field)
        except PersonRefused as refused:
            return refused_json(refused.status, refused.reason, str(refused), PERSON_FIELD)
        except LimitRefused as refused:
            return refused_json(refused.status, refused.code, str(refused), refused.field)

    return serve


def person_routes(
    engine: Engine, modes: ApprovalModes, limits: ConnectionLimits
) -> list[BaseRoute]:
    """The person's routes over the rail's ``engine``."""

    async def approval_mode(request: Request) -> Response:
        connection_id, code, body = await person_body(request, engine)
        on = body.get("approval_mode")
        if not isinstance(on, bool):
            raise PersonRouteRefused(
                400, "invalid_approval_mode", "approval_mode must be true or false.",
                field="approval_mode",
            )  # fmt: skip
        changed = await blocking(lambda: modes.set_by_person(connection_id, on=on, code=code))
        return JSONResponse(
            {"approval_mode": on, "changed": changed}, headers={"cache-control": "no-store"}
        )

    async def own_limits(request: Request) -> Response:
        connection_id, code, body = await person_body(request, engine)
        asked = body.get("limits")
        answer = await blocking(lambda: limits.set_by_person(connection_id, asked, code))
        return JSONResponse(answer, headers={"cache-control": "no-store"})

    return [
        Route("/person/approval-mode", answering(approval_mode), methods=["POST"]),
        Route("/person/limits", answering(own_limits), methods=["POST"]),
    ]

"""Upstream failures as fixed sentences: the agent learns what kind of failure it was, never
the upstream's own text (which may echo a token, an account or anything else).

Only the upstream's reason code passes, and only when it is a plain upper-snake word
(``INSUFFICIENT_BUYING_POWER``); the field it names likewise.
"""

from __future__ import annotations

import re
from typing import Any

from ordergate.client import (
    BusinessError,
    HTTPStatusError,
    LoginRequired,
    ResponseParseError,
    RpcError,
    TransportError,
)

__all__ = ["failure_payload", "plain_code"]

_CODE = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_FIELD = re.compile(r"[a-z][a-z0-9_]{0,63}")


def plain_code(text: object) -> str | None:
    """``text`` when it is a plain upper-snake reason code, else ``None``."""
    return text if isinstance(text, str) and _CODE.fullmatch(text) else None


def failure_payload(error: Exception, *, cancel: bool = False) -> dict[str, Any]:
    """The ``{"error": {code, message[, upstream_code, field]}}`` payload for a failed forward."""
    body: dict[str, Any]
    if isinstance(error, BusinessError):
        body = {"code": "UPSTREAM_REFUSED", "message": "The broker refused the call."}
        upstream = plain_code(error.code)
        if upstream is not None:
            body["message"] = f"The broker refused the call ({upstream})."
            body["upstream_code"] = upstream
        if isinstance(error.field, str) and _FIELD.fullmatch(error.field):
            body["field"] = error.field
    elif isinstance(error, TransportError):
        message = (
            "The broker did not answer the cancel: read your open orders to see whether it "
            "took effect before sending it again."
            if cancel
            else "The broker did not answer; try again shortly."
        )
        body = {"code": "UPSTREAM_UNANSWERED", "message": message}
    elif isinstance(error, LoginRequired):
        body = {
            "code": "UPSTREAM_SIGNED_OUT",
            "message": "The gateway's session with the broker has ended; connect again.",
        }
    elif isinstance(error, HTTPStatusError):
        if error.status in (401, 403):
            body = {
                "code": "UPSTREAM_SIGNED_OUT",
                "message": "The broker no longer accepts this connection's session; connect again.",
            }
        else:
            body = {
                "code": "UPSTREAM_ERROR",
                "message": f"The broker answered with an error (HTTP {error.status}).",
            }
    elif isinstance(error, RpcError):
        body = {"code": "UPSTREAM_ERROR", "message": "The broker did not accept the request."}
    elif isinstance(error, ResponseParseError):
        body = {"code": "UPSTREAM_UNREADABLE", "message": "The broker's answer could not be read."}
    else:
        body = {"code": "GATEWAY_ERROR", "message": "The gateway could not forward the call."}
    return {"error": body}

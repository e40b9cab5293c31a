"""Response framing for streamable HTTP: a plain JSON body or a one-shot SSE stream.

Robinhood answers either way; clients must read both. Each server has a default and a request
may narrow it with its ``Accept`` header.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Framing", "choose_framing", "encode_body"]


class Framing(StrEnum):
    JSON = "json"
    SSE = "sse"


JSON_TYPE = b"application/json"
SSE_TYPE = b"text/event-stream"


def choose_framing(accept: bytes, default: Framing) -> Framing | None:
    """The framing this request accepts, ``None`` when it accepts neither."""
    accept = accept.lower()
    wants_json = JSON_TYPE in accept or b"*/*" in accept or b"application/*" in accept
    wants_sse = SSE_TYPE in accept
    if wants_json and wants_sse:
        return default
    if wants_json:
        return Framing.JSON
    if wants_sse:
        return Framing.SSE
    return None


def encode_body(
    payload: bytes, framing: Framing, *, malformed: bool = False
) -> tuple[bytes, bytes]:
    """(content type, body) for one JSON-RPC message."""
    if framing is Framing.JSON:
        return JSON_TYPE, payload
    if malformed:
        # A fault for tests: the event's data line is cut short and never terminated.
        return SSE_TYPE, b"event: message\ndata: " + payload[: max(1, len(payload) // 2)]
    return SSE_TYPE, b"event: message\ndata: " + payload + b"\n\n"

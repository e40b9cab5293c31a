"""Serving a metadata document (RFC 8414, RFC 9728) as the MCP SDK's metadata handlers do.

The document is rendered once: compact JSON, cached by clients for an hour
(``Cache-Control: public, max-age=3600``, the SDK handlers' header).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

__all__ = ["DocumentHandler", "checked_url", "document_route"]

_CACHE = {"Cache-Control": "public, max-age=3600"}


def checked_url(field: str, url: str) -> str:
    """``url`` when it is an absolute http(s) URL with a host; ``ValueError`` naming ``field``
    otherwise (what the SDK's ``AnyHttpUrl`` would refuse)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{field} must be an absolute http(s) URL")
    return url


class DocumentHandler:
    """Answers one metadata document, rendered once."""

    def __init__(self, document: dict[str, Any]) -> None:
        self._body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()

    async def handle(self, request: Request) -> Response:
        return Response(self._body, media_type="application/json", headers=_CACHE)


def document_route(path: str, document: dict[str, Any]) -> Route:
    """The ``GET`` route at ``path`` answering ``document`` as JSON."""
    return Route(path, DocumentHandler(document).handle, methods=["GET"])

"""Where one side of a drift comes from: a snapshot file, a reference capture, or a live venue.

The kind is decided explicitly, never guessed from a file name:

- a spec starting ``http://`` or ``https://`` is a **live** MCP endpoint, listed through the
  typed client (signed in with the token file);
- a file whose ``format`` is ``ordergate-tools-snapshot/1`` is a **snapshot**;
- a file whose ``tools`` maps names to ``{"inputSchema": …}`` objects is a **contract**
  capture (``contract-1.7.0.json``);
- a file whose ``tools`` is a list of ``{"name": …, "inputSchema": …}`` is an **inventory**
  capture (``inventory-2026-09-21.json``).

Anything else is refused with ``SourceError`` (``unrecognised``). The capture files removed
every description, so their entries carry ``description=None`` (unknown, not empty).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from ordergate.core import Clock, RealtimeClock
from ordergate.discovery._classify import classify
from ordergate.discovery._snapshot import SNAPSHOT_FORMAT, Snapshot, SnapshotError
from ordergate.inventory import ToolClass

if TYPE_CHECKING:
    from ordergate.client import TokenSet

__all__ = [
    "SourceError",
    "SourceKind",
    "detect_kind",
    "is_url",
    "load_file",
    "load_live",
    "load_surface",
    "public_url",
    "refuse_token_values",
]

# A stored token shorter than this cannot be told apart from ordinary text in a listing.
_MIN_TOKEN_LENGTH = 8


class SourceKind(StrEnum):
    LIVE = "live"
    SNAPSHOT = "snapshot"
    CONTRACT = "contract"
    INVENTORY = "inventory"


class SourceError(SnapshotError):
    """A side cannot be loaded: ``unreadable`` (missing file, not JSON), ``unrecognised``
    (JSON of no known shape), ``malformed`` (a known shape with a bad field)."""


def is_url(spec: str) -> bool:
    return spec.startswith(("http://", "https://"))


def detect_kind(document: Any) -> SourceKind:
    """The kind of a parsed file. Raises ``SourceError`` (``unrecognised``)."""
    if isinstance(document, dict):
        if document.get("format") == SNAPSHOT_FORMAT:
            return SourceKind.SNAPSHOT
        tools = document.get("tools")
        if isinstance(tools, dict) and all(
            isinstance(tool, dict) and "inputSchema" in tool for tool in tools.values()
        ):
            return SourceKind.CONTRACT
        if isinstance(tools, list) and all(
            isinstance(tool, dict) and "name" in tool and "inputSchema" in tool for tool in tools
        ):
            return SourceKind.INVENTORY
    raise SourceError(
        "unrecognised",
        "not a snapshot (format "
        f"{SNAPSHOT_FORMAT}), a contract file ({{tools: {{name: {{inputSchema}}}}}}) or an "
        "inventory file ({tools: [{name, inputSchema}]})",
    )


def load_file(path: Path, *, classifier: Callable[[str], ToolClass] = classify) -> Snapshot:
    """A snapshot, contract or inventory file as a checked ``Snapshot``.

    Raises ``SourceError`` when the file cannot be read or is of no known kind, and
    ``SnapshotError`` when its content fails a sanity check.
    """
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise SourceError("unreadable", f"{path}: cannot read ({type(error).__name__})") from None
    except ValueError:
        raise SourceError("unreadable", f"{path}: not JSON") from None
    kind = detect_kind(document)
    if kind is SourceKind.SNAPSHOT:
        return Snapshot.from_document(document)
    tools = document["tools"]
    if kind is SourceKind.CONTRACT:
        descriptors = [{**tool, "name": name} for name, tool in tools.items()]
        captured = document.get("captured_at", document.get("reviewed_at"))
    else:
        descriptors = tools
        captured = document.get("captured_at")
    server_name = document.get("server_name")
    server_version = document.get("server_version")
    for key, value in (("server_name", server_name), ("server_version", server_version)):
        if not isinstance(value, str | None):
            raise SourceError("malformed", f"{path}: {key} is not a string")
    return Snapshot.from_listing(
        descriptors,
        captured_at=_capture_date(path, captured),
        classifier=classifier,
        missing_description=None,
        server_name=server_name,
        server_version=server_version,
        source=f"{kind.value} {path.name}",
    )


def _capture_date(path: Path, value: Any) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise SourceError("malformed", f"{path}: capture date {value!r} is not ISO 8601") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed


async def load_live(
    url: str,
    *,
    token_file: Path | None = None,
    classifier: Callable[[str], ToolClass] = classify,
    clock: Clock | None = None,
) -> Snapshot:
    """A snapshot of what ``url`` lists now, every ``tools/list`` page drained.

    Raises the client's ``ToolError`` subclasses (``LoginRequired``: run ``ordergate
    login``) and ``SnapshotError`` for a listing that fails a sanity check or that carries
    the value of a stored token (``token_in_listing``; nothing is returned then).
    """
    from ordergate.client import Config, connect, read_token_file

    config = Config(url=url, token_file=token_file) if token_file else Config(url=url)
    # The tokens before the session and after it (a refresh during it rotates them).
    secrets = _token_values(read_token_file(config.token_file))
    async with connect(config) as robinhood:
        descriptors = await robinhood.list_tools()
        server = robinhood.server
        protocol_version = robinhood.protocol_version
    secrets |= _token_values(read_token_file(config.token_file))
    snapshot = Snapshot.from_listing(
        descriptors,
        captured_at=(clock or RealtimeClock()).now(),
        classifier=classifier,
        server_name=server.name if server else None,
        server_version=server.version if server else None,
        protocol_version=protocol_version,
        source=public_url(url),
    )
    refuse_token_values(snapshot, secrets)
    return snapshot


async def load_surface(
    spec: str,
    *,
    token_file: Path | None = None,
    classifier: Callable[[str], ToolClass] = classify,
    clock: Clock | None = None,
) -> Snapshot:
    """One side of a drift: a live URL, or a snapshot, contract or inventory file.

    Raises ``SourceError``, ``SnapshotError`` and, for a URL, the client's ``ToolError``.
    """
    if is_url(spec):
        return await load_live(spec, token_file=token_file, classifier=classifier, clock=clock)
    return load_file(Path(spec), classifier=classifier)


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment: fit to be written into a snapshot."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _token_values(tokens: TokenSet) -> set[str]:
    values = {tokens.access_token.reveal()}
    if tokens.refresh_token is not None:
        values.add(tokens.refresh_token.reveal())
    return {value for value in values if len(value) >= _MIN_TOKEN_LENGTH}


def refuse_token_values(snapshot: Snapshot, secrets: set[str]) -> None:
    """Raise ``SnapshotError`` (``token_in_listing``) if any of ``secrets`` appears in the
    snapshot's text: a venue that echoes the bearer token into a description must not get
    it written to disk. The message never contains the value."""
    text = snapshot.to_json()
    for secret in secrets:
        # A value with quotes or backslashes appears JSON-escaped in the text.
        if secret in text or json.dumps(secret, ensure_ascii=False)[1:-1] in text:
            raise SnapshotError(
                "token_in_listing",
                "the listing contains the value of a stored token; nothing was kept",
            )

"""Opaque cursors for the paginated reads: a cursor names the scope it came from and an offset.

A cursor from one tool (or one filter) is refused by another rather than silently skipping
rows, so a client that mixes cursors up finds out.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TypeVar

from ordergate.sandbox.tools._prose_rules import invalid

__all__ = ["page"]

_T = TypeVar("_T")


def _encode(scope: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{scope}|{offset}".encode()).decode().rstrip("=")


def _decode(scope: str, cursor: str, field: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        found_scope, _, offset = base64.urlsafe_b64decode(padded).decode().rpartition("|")
        value = int(offset)
    except (ValueError, UnicodeDecodeError):
        raise invalid(field, f"{field} is not a cursor this tool issued") from None
    if found_scope != scope or value < 0:
        raise invalid(field, f"{field} is not a cursor this tool issued")
    return value


def page(
    items: Sequence[_T], *, scope: str, cursor: str | None, size: int, field: str = "cursor"
) -> tuple[list[_T], str | None]:
    """The page after ``cursor`` and the cursor of the next page (``None`` on the last)."""
    start = _decode(scope, cursor, field) if cursor else 0
    chunk = list(items[start : start + size])
    following = start + size
    return chunk, _encode(scope, following) if following < len(items) else None

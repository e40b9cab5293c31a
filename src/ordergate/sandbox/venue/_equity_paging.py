"""Opaque ``cursor`` / ``next`` tokens for the equity and P&L listings.

A token names its listing and a position in it, so a cursor from one listing is refused by
another instead of silently paging the wrong list.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import TypeVar

from ordergate.sandbox.tools._registry import VenueError

__all__ = ["PAGE_SIZE", "decode_cursor", "encode_cursor", "offset_page"]

PAGE_SIZE = 50
_T = TypeVar("_T")


def encode_cursor(kind: str, position: int) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{position}".encode()).decode().rstrip("=")


def decode_cursor(kind: str, cursor: object) -> int | None:
    """The position a cursor holds; ``None`` for no cursor; ``INVALID_ARGUMENT`` if foreign."""
    if cursor is None or cursor == "":
        return None
    text = str(cursor)
    try:
        decoded = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        decoded = ""
    prefix, _, number = decoded.partition(":")
    if prefix != kind or not number.isdigit():
        raise VenueError(
            "INVALID_ARGUMENT", "cursor is not one this listing issued", field="cursor"
        )
    return int(number)


def offset_page(
    kind: str, items: Sequence[_T], cursor: object, size: int = PAGE_SIZE
) -> tuple[list[_T], str | None]:
    """One page of ``items`` from the cursor's offset, and the cursor of the next page."""
    start = decode_cursor(kind, cursor) or 0
    chunk = list(items[start : start + size])
    following = start + size
    return chunk, encode_cursor(kind, following) if following < len(items) else None

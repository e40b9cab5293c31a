"""Walking a cursor-paginated listing: cursor in, ``next`` out, until a page has no ``next``.

The walk is bounded: it stops with ``PaginationError`` (code ``page_limit``) after
``max_pages`` pages rather than loop forever on a venue that always answers with a ``next``,
and with code ``repeated_cursor`` when the venue hands back a cursor it already gave (which
would otherwise replay the same pages endlessly).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol, TypeVar

from ordergate.client._errors import ToolError

__all__ = ["MAX_PAGES", "Page", "PaginationError", "walk_pages"]

MAX_PAGES = 100
"""Default bound of a walk: at 50 rows a page (Robinhood's order listings), 5,000 rows."""


class Page(Protocol):
    """One page of a listing: whatever it holds, plus the cursor of the following page."""

    @property
    def next(self) -> str | None: ...


P = TypeVar("P", bound=Page)


class PaginationError(ToolError):
    """A listing could not be walked to its end (``code``: ``page_limit``, ``repeated_cursor``)."""

    def __init__(self, message: str, *, tool: str, code: str) -> None:
        super().__init__(message, tool=tool, code=code)


async def walk_pages(
    fetch: Callable[[str | None], Awaitable[P]], *, tool: str, max_pages: int = MAX_PAGES
) -> AsyncIterator[P]:
    """Each page ``fetch(cursor)`` returns, starting from no cursor, following ``next``.

    Raises ``PaginationError`` when a ``next`` repeats an earlier cursor, or when a page
    after the ``max_pages``-th would still be needed; ``ValueError`` for ``max_pages < 1``.
    """
    if max_pages < 1:
        raise ValueError("max_pages must be at least 1")
    seen: set[str] = set()
    cursor: str | None = None
    for _ in range(max_pages):
        page = await fetch(cursor)
        yield page
        following = page.next
        if not following:
            return
        if following in seen:
            raise PaginationError(
                "the listing handed back a cursor it had already given",
                tool=tool,
                code="repeated_cursor",
            )
        seen.add(following)
        cursor = following
    raise PaginationError(
        f"the listing has more than {max_pages} pages; narrow it with filters or raise max_pages",
        tool=tool,
        code="page_limit",
    )

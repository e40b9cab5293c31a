"""Walking cursor-paginated listings: every page once, bounded, and never round in circles."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from ordergate.client._pages import MAX_PAGES, PaginationError, walk_pages


@dataclass(frozen=True)
class _Page:
    rows: tuple[int, ...]
    next: str | None


def _listing(
    pages: dict[str | None, _Page], asked: list[str | None]
) -> Callable[[str | None], Awaitable[_Page]]:
    async def fetch(cursor: str | None) -> _Page:
        asked.append(cursor)
        return pages[cursor]

    return fetch


@pytest.mark.anyio
async def test_pages_are_followed_by_their_next_cursor_until_one_has_none() -> None:
    asked: list[str | None] = []
    pages = {None: _Page((1, 2), "b"), "b": _Page((3,), ""), "c": _Page((9,), None)}
    walked = [page.rows async for page in walk_pages(_listing(pages, asked), tool="t")]
    assert (walked, asked) == ([(1, 2), (3,)], [None, "b"])


@pytest.mark.anyio
async def test_a_cursor_handed_back_twice_stops_the_walk_with_an_error() -> None:
    pages = {None: _Page((1,), "b"), "b": _Page((2,), "c"), "c": _Page((3,), "b")}
    asked: list[str | None] = []
    with pytest.raises(PaginationError) as raised:
        _ = [page async for page in walk_pages(_listing(pages, asked), tool="get_x")]
    assert (raised.value.code, raised.value.tool) == ("repeated_cursor", "get_x")
    assert asked == [None, "b", "c"]


@pytest.mark.anyio
async def test_a_listing_longer_than_the_bound_stops_with_an_error_after_the_bound() -> None:
    asked: list[str | None] = []

    async def endless(cursor: str | None) -> _Page:
        asked.append(cursor)
        return _Page((len(asked),), f"page-{len(asked)}")

    with pytest.raises(PaginationError) as raised:
        _ = [page async for page in walk_pages(endless, tool="get_x", max_pages=3)]
    assert (raised.value.code, len(asked)) == ("page_limit", 3)
    assert MAX_PAGES >= 20


@pytest.mark.anyio
async def test_a_bound_below_one_page_is_refused() -> None:
    with pytest.raises(ValueError, match="max_pages"):
        _ = [page async for page in walk_pages(_listing({}, []), tool="t", max_pages=0)]

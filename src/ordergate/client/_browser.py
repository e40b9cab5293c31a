"""Opening the authorization URL: in the user's browser, or printed when there is none."""

from __future__ import annotations

import sys
import webbrowser
from collections.abc import Awaitable, Callable

import anyio

__all__ = ["OpenUrl", "open_in_browser"]

OpenUrl = Callable[[str], Awaitable[None]]
"""What ``login`` calls with the authorization URL (tests pass a fake browser)."""


async def open_in_browser(url: str) -> None:
    """Open ``url`` with ``webbrowser``; print it to stderr when no browser can be started."""
    if not await anyio.to_thread.run_sync(_open, url):
        print(
            f"Open this address in a browser to sign in to Robinhood:\n\n  {url}\n", file=sys.stderr
        )


def _open(url: str) -> bool:
    try:
        return webbrowser.open(url, new=1)
    except webbrowser.Error:
        return False

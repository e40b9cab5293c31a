"""What a paper answer reads (``PaperDesk``), and the checks every paper answer shares.

A paper answer (``_paper_reads``, ``_paper_pnl``, ``_paper_review``) is a function of a
``PaperDesk`` and the call's arguments. ``same_account`` refuses a read of another account
than the one the gateway trades (``NOT_THE_PAPER_ACCOUNT``); ``BOOK_UNREADABLE`` is what a
book that cannot be read answers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ordergate.gateway.mcp._refusing import Failure, refuse
from ordergate.ledger import Ledger
from ordergate.venues.paper import PaperAccountReader, PaperBook

__all__ = ["BOOK_UNREADABLE", "PaperAnswer", "PaperDesk", "same_account"]

BOOK_UNREADABLE = Failure(
    "paper read", "PAPER_BOOK_UNREADABLE", "The gateway could not read its paper book."
)


@dataclass(frozen=True, slots=True)
class PaperDesk:
    """What a paper answer reads: the book, its quotes, the ledger, the account traded and
    the caller's identity."""

    book: PaperBook
    reader: PaperAccountReader
    ledger: Ledger
    account: str
    identity: str
    upstream: Callable[[str, dict[str, Any]], Awaitable[Any]] | None = None
    """A call of the upstream's tool (its ``data``): ``get_accounts`` for the rhs account
    number, the review whose buying power the paper account's replaces."""


PaperAnswer = Callable[[PaperDesk, dict[str, Any]], Awaitable[dict[str, Any]]]


def same_account(desk: PaperDesk, arguments: dict[str, Any]) -> None:
    """Refuse a read of another account than the paper one (``NOT_THE_PAPER_ACCOUNT``)."""
    if arguments.get("account_number") != desk.account:
        refuse(
            "NOT_THE_PAPER_ACCOUNT",
            "In paper mode the gateway answers only for the account it trades "
            "(account_number: the agentic account of get_accounts).",
        )

"""Paper is the whole loop: in paper mode, an agent's account reads are answered by the venue's
own engine on the paper book the guard trades, marked paper in the ``guide``.

The paper venue (``ordergate.venues.paper.PaperVenue``) is the live lane over a
``PaperCaller``; a read the engine answers (``ENGINE``: the caller's ``ANSWERED`` tools —
orders, positions, the portfolio, reviews, tax lots, realised P&L — and the quotes, which the
caller answers with the paper market's bid and ask) is sent to that caller, so the answer is
the venue's own answer, in its wire shapes and under its output schema. A paper market
without slippage quotes the upstream's bid and ask unchanged, so there the quotes are
forwarded as the market data they are (``on_book``), on the gateway's plain-read path.
``paper_entry`` says what paper mode does with every other tool:

- ``FORWARD``: market data, and the account facts the engine takes from the upstream
  (``FORWARDED``: the account list, its approval setting, tradability), forwarded as live;
- ``REFUSE``: a read of account state the engine does not keep (advanced orders, or a tool
  the upstream lists later that takes an account number or whose name says it reads the
  account): refused, never sent to the real account (fail closed).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final, Literal, NoReturn

from ordergate.discovery import classify, name_words
from ordergate.execution import Guard
from ordergate.gateway.mcp._answers import answer
from ordergate.gateway.mcp._refusing import Failure, refuse, step
from ordergate.inventory import ToolClass
from ordergate.venues.paper import ANSWERED, FORWARDED, PaperVenue

__all__ = [
    "BOOK_READS",
    "ENGINE",
    "FORWARD",
    "PAPER_GUIDE",
    "REFUSE",
    "on_book",
    "paper_entry",
    "paper_read",
    "reads_account",
    "refuse_unanswerable",
]

PAPER_GUIDE = (
    "Paper: answered by the venue's own engine on the ordergate gateway's paper book, not the "
    "broker's account; prices are the broker's quotes."
)
ENGINE: Final = "engine"
FORWARD: Final = "forward"
REFUSE: Final = "refuse"
PaperEntry = Literal["engine", "forward", "refuse"]
BOOK_READS: Final = frozenset({"get_equity_orders"})
"""The engine's answers that read the paper book alone: the only prices they may read are the
book's own, which the caller reads upstream at most once a ``QUOTE_REUSE`` however often it
is asked. For the rate limit, answered by the gateway itself (the others price what a call
names, or read the upstream's account list)."""

_QUOTES: Final = frozenset({"get_equity_quotes", "get_crypto_quotes"})
_ACCOUNT_ARGUMENTS = frozenset({"account_number", "rhs_account_number"})
_ACCOUNT_WORDS = frozenset(
    {
        "account", "accounts", "order", "orders", "position", "positions", "portfolio",
        "pnl", "lot", "lots", "balance", "balances", "cash", "buying", "holdings", "history",
        "transfers", "statement", "statements", "dividends",
    }
)  # fmt: skip
_ENGINE_FAILED = Failure("paper read", broker=True, level=logging.INFO)


def reads_account(name: str, descriptor: Mapping[str, Any] | None) -> bool:
    """Whether a tool the engine does not answer reads the account: it takes an account
    number, or its name says so."""
    schema = (descriptor or {}).get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if isinstance(properties, Mapping) and _ACCOUNT_ARGUMENTS & set(properties):
        return True
    return bool(_ACCOUNT_WORDS & set(name_words(name)))


def paper_entry(name: str, descriptor: Mapping[str, Any] | None) -> PaperEntry:
    """What paper mode does with a tool ``name`` that takes the forward route."""
    if name in ANSWERED or name in _QUOTES:
        return ENGINE
    if name in FORWARDED or classify(name) is not ToolClass.READ:
        return FORWARD
    return REFUSE if reads_account(name, descriptor) else FORWARD


def on_book(guard: Guard, name: str, entry: PaperEntry | None) -> PaperEntry | None:
    """What paper mode does with ``name`` (``entry``: its ``paper_entry``, ``None`` when not
    decided yet) on the paper book ``guard`` trades: a quote read the paper market would
    answer with the upstream's own bid and ask (no slippage) is forwarded."""
    if entry == ENGINE and name in _QUOTES:
        venue = guard.venue
        if isinstance(venue, PaperVenue) and venue.caller.slippage_bps == 0:
            return FORWARD
    return entry


async def paper_read(guard: Guard, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The engine's answer to ``name`` on the paper book ``guard`` trades, marked paper; a
    guard on another venue is refused (nothing can answer for it, so nothing is sent)."""
    venue = guard.venue
    if not isinstance(venue, PaperVenue):
        refuse(
            "PAPER_BOOK_UNREADABLE",
            "The gateway trades on paper but has no paper book to answer from.",
        )
    data = await step(venue.caller.call(name, arguments), _ENGINE_FAILED)
    return answer(data, PAPER_GUIDE)


def refuse_unanswerable(name: str) -> NoReturn:
    refuse(
        "PAPER_NOT_ANSWERED",
        f"The gateway trades on paper, and {name} reads account state its paper book does "
        "not keep, so it was not sent to the broker's real account.",
    )

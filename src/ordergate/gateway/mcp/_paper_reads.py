"""Paper is the whole loop: in paper mode, the account reads an agent makes answer from the
paper book, in the venue's own shapes, marked as paper in the ``guide``.

``ACCOUNT_READS`` is the one table of which tools read the account and what paper mode does
with each (the captured inventory's 82 tools, ``ordergate.inventory``):

- a ``PaperAnswer``: answered from the paper book (orders, positions, portfolio: the
  answers are ``ordergate.execution``'s ``paper_portfolio``, ``paper_positions`` and
  ``paper_orders_of``, the ones the agent's paper snapshot reads too; this module adds the
  account check, the filters and the envelope);
- ``FORWARD``: takes an account number but reads nothing the paper book holds (the account
  list, its approval setting, tradability, crypto quotes): forwarded as in live mode;
- ``REFUSE``: reads account state the paper book cannot answer (tax lots, option, crypto and
  advanced orders and positions): refused, never sent to the real account.

Realised P&L (``get_realized_pnl``, ``get_pnl_trade_history``) is answered from the book's
fills (``_paper_pnl``); those take the rhs account number, read from ``get_accounts``.

Reviews and enrolment links are forwarded as in live mode. A read not in the table (the
upstream may list new ones) is an account read when it takes an account number or its name
says so (``account``, ``orders``, ``positions`` …): in paper mode it is refused, fail closed.
Everything else (quotes, instruments, fundamentals …) is market data and still comes from the
upstream.

Orders: only the caller identity's own. The newest ``ORDER_WINDOW`` filings of the identity
(``Ledger.filings_of``: its cost is that window, not the history) are looked up in the book
by ``ref_id`` (= the filing id), so another identity's orders never show. Positions, cash and
buying power are the account's, as at the broker: every connection trades the one account.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Final, Literal, NoReturn, TypeVar

from ordergate.discovery import (
    InvalidArguments,
    InvalidSchema,
    check_arguments,
    classify,
    name_words,
)
from ordergate.execution import Guard
from ordergate.gateway.mcp._answers import answer
from ordergate.gateway.mcp._paper_desk import BOOK_UNREADABLE, PaperAnswer, PaperDesk, same_account
from ordergate.gateway.mcp._paper_pnl import pnl_trade_history, realized_pnl
from ordergate.gateway.mcp._paper_review import REVIEW_TOOL, paper_review
from ordergate.gateway.mcp._proposal import shown_name
from ordergate.gateway.mcp._refusing import refuse, step
from ordergate.inventory import ToolClass
from ordergate.store import blocking
from ordergate.venues.paper import (
    ORDER_WINDOW,
    PAPER_AGENT,
    PaperAccountReader,
    PaperOrder,
    PaperUnanswered,
    order_wire,
    paper_orders_of,
    paper_portfolio,
    paper_positions,
)

T = TypeVar("T")

__all__ = [
    "ACCOUNT_READS",
    "BOOK_READS",
    "FORWARD",
    "ORDER_WINDOW",
    "PAPER_GUIDE",
    "REFUSE",
    "PaperAnswer",
    "PaperDesk",
    "paper_desk",
    "paper_entry",
    "paper_read",
    "reads_account",
    "refuse_unanswerable",
    "venue_arguments",
]

PAPER_GUIDE = (
    "Paper: answered from the ordergate gateway's paper book, not the broker's account. "
    "Orders are the ones you filed through the gateway; positions, cash and buying power are "
    "the paper account's; realised P&L is its fills matched first in, first out. Fees are "
    "zero and instrument_id is paper:SYMBOL on paper."
)
FORWARD: Final = "forward"
REFUSE: Final = "refuse"
_ACCOUNT_ARGUMENTS = frozenset({"account_number", "rhs_account_number"})
_ACCOUNT_WORDS = frozenset(
    {
        "account", "accounts", "order", "orders", "position", "positions", "portfolio",
        "pnl", "lot", "lots", "balance", "balances", "cash", "buying", "holdings", "history",
        "transfers", "statement", "statements", "dividends",
    }
)  # fmt: skip


def _own_orders(desk: PaperDesk) -> list[PaperOrder]:
    """The identity's paper orders on the account, newest first (blocking)."""
    return paper_orders_of(desk.book, desk.ledger, desk.account, desk.identity)


async def _answered(awaitable: Awaitable[T]) -> T:
    """The paper answer ``awaitable`` gives; what the book cannot answer is refused with the
    answer's own code and sentence, any other failure as ``BOOK_UNREADABLE``."""

    async def answering() -> T:
        try:
            return await awaitable
        except PaperUnanswered as error:
            refuse(error.code, error.message)

    return await step(answering(), BOOK_UNREADABLE)


def _after(arguments: dict[str, Any]) -> datetime | None:
    value = arguments.get("created_at_gte")
    if value is None:
        return None
    try:
        instant = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        refuse("INVALID_ARGUMENT", "created_at_gte must be an ISO 8601 instant.")
    return instant if instant.tzinfo is not None else instant.replace(tzinfo=UTC)


def _wanted(order: PaperOrder, arguments: dict[str, Any], after: datetime | None) -> bool:
    checks = (
        ("order_id", order.order_id),
        ("state", order.state.value),
        ("symbol", order.symbol),
        ("placed_agent", PAPER_AGENT),
    )
    for name, value in checks:
        wanted = arguments.get(name)
        if wanted is not None and str(wanted).strip().upper() != value.upper():
            return False
    return after is None or order.created_at >= after


async def equity_orders(desk: PaperDesk, arguments: dict[str, Any]) -> dict[str, Any]:
    """``get_equity_orders``: the caller's own paper orders, newest first, filtered as the
    venue filters (``order_id`` reads one). One page: the window is the page."""
    same_account(desk, arguments)
    if arguments.get("cursor") is not None:
        refuse("INVALID_ARGUMENT", "cursor: paper orders come on one page; send no cursor.")
    after = _after(arguments)
    orders = await step(blocking(_own_orders, desk), BOOK_UNREADABLE)
    return {"orders": [order_wire(order) for order in orders if _wanted(order, arguments, after)]}


async def equity_positions(desk: PaperDesk, arguments: dict[str, Any]) -> dict[str, Any]:
    """``get_equity_positions``: the paper account's holdings at the last trade price."""
    same_account(desk, arguments)
    if arguments.get("cursor") is not None:
        refuse("INVALID_ARGUMENT", "cursor: paper positions come on one page; send no cursor.")
    return await _answered(paper_positions(desk.reader, desk.account))


async def portfolio(desk: PaperDesk, arguments: dict[str, Any]) -> dict[str, Any]:
    """``get_portfolio``: the paper account's cash, buying power and value, as the guard
    reads it (positions at the bid)."""
    same_account(desk, arguments)
    return await _answered(paper_portfolio(desk.reader, desk.account))


ACCOUNT_READS: Mapping[str, PaperAnswer | Literal["forward", "refuse"]] = {
    "get_equity_orders": equity_orders,
    "get_equity_positions": equity_positions,
    "get_portfolio": portfolio,
    REVIEW_TOOL: paper_review,
    "get_accounts": FORWARD,
    "get_trade_approval_setting": FORWARD,
    "get_equity_tradability": FORWARD,
    "get_crypto_quotes": FORWARD,
    "get_limited_margin_upgrade_info": FORWARD,
    "get_equity_tax_lots": REFUSE,
    "get_realized_pnl": realized_pnl,
    "get_pnl_trade_history": pnl_trade_history,
    "get_option_orders": REFUSE,
    "get_option_positions": REFUSE,
    "get_crypto_orders": REFUSE,
    "get_crypto_positions": REFUSE,
    "get_advanced_orders": REFUSE,
}


BOOK_READS = frozenset({"get_equity_orders"})
"""The paper answers that read the paper book alone (the others price holdings, or read the
upstream's account list or review): for the rate limit, answered by the gateway itself."""


def reads_account(name: str, descriptor: Mapping[str, Any] | None) -> bool:
    """Whether a tool not in ``ACCOUNT_READS`` reads the account: it takes an account number,
    or its name says so."""
    schema = (descriptor or {}).get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if isinstance(properties, Mapping) and _ACCOUNT_ARGUMENTS & set(properties):
        return True
    return bool(_ACCOUNT_WORDS & set(name_words(name)))


def paper_entry(
    name: str, descriptor: Mapping[str, Any] | None
) -> PaperAnswer | Literal["forward", "refuse"]:
    """What paper mode does with a forwarded tool ``name``: reviews and enrolment links are
    forwarded as ever (a review places nothing), reads by the table."""
    entry = ACCOUNT_READS.get(name)
    if entry is not None:
        return entry
    if classify(name) is not ToolClass.READ:
        return FORWARD
    return REFUSE if reads_account(name, descriptor) else FORWARD


def paper_desk(
    guard: Guard,
    identity: str,
    *,
    upstream: Callable[[str, dict[str, Any]], Awaitable[Any]] | None = None,
) -> PaperDesk:
    """The paper book behind a paper guard; refused when the guard reads no paper book (a
    paper guard over another reader: nothing can answer for it, so nothing is sent).
    ``upstream`` calls one of the upstream's tools (``get_accounts``, the review)."""
    reader = guard.reader
    if not isinstance(reader, PaperAccountReader):
        refuse(
            "PAPER_BOOK_UNREADABLE",
            "The gateway trades on paper but has no paper book to answer from.",
        )
    return PaperDesk(
        book=reader.book,
        reader=reader,
        ledger=guard.ledger,
        account=guard.account,
        identity=identity,
        upstream=upstream,
    )


def venue_arguments(arguments: Mapping[str, Any], descriptor: Mapping[str, Any] | None) -> None:
    """Refuse ``arguments`` the tool's advertised input schema refuses, as the venue would:
    a missing (or ``null``) required argument ``MISSING_ARGUMENT``, any other breach
    ``INVALID_ARGUMENT``, each naming the argument. A tool without a schema is not checked
    here (the answer's own checks still run)."""
    schema = (descriptor or {}).get("inputSchema")
    if not isinstance(schema, Mapping):
        return
    required = schema.get("required")
    for name in required if isinstance(required, list) else ():
        if isinstance(name, str) and arguments.get(name) is None:
            refuse("MISSING_ARGUMENT", f"{shown_name(name)} is required. Nothing was read.")
    try:
        check_arguments(arguments, schema)
    except InvalidArguments as error:
        refuse("INVALID_ARGUMENT", f"{shown_name(error.field)}: {error.kind}. Nothing was read.")
    except InvalidSchema:
        refuse("INVALID_ARGUMENT", "The tool's input schema cannot be read. Nothing was read.")


async def paper_read(
    answer_of: PaperAnswer,
    desk: PaperDesk,
    arguments: dict[str, Any],
    descriptor: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A paper answer in the venue's envelope, marked paper; ``arguments`` the tool's
    ``descriptor`` refuses are refused first (``venue_arguments``)."""
    venue_arguments(arguments, descriptor)
    return answer(await answer_of(desk, arguments), PAPER_GUIDE)


def refuse_unanswerable(name: str) -> NoReturn:
    refuse(
        "PAPER_NOT_ANSWERED",
        f"The gateway trades on paper, and {name} reads account state its paper book does "
        "not keep, so it was not sent to the broker's real account.",
    )

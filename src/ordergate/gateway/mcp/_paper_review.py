"""A paper review: the venue's review of the terms, with the paper account's buying power.

In paper mode ``review_equity_order`` still goes to the upstream (the quote, the session, the
fees and the venue's other checks are the market's), but the account it would trade is the
paper book's, so the answer's buying-power check is the paper account's: ``available`` is
the paper buying power ``get_portfolio`` reports, ``passed`` (and the order checks'
``passed``) say whether the paper account can pay ``required``. One question, one answer:
the agent never sees the real account's buying power beside the paper one.

The review names the account as every paper read does (``NOT_THE_PAPER_ACCOUNT`` for another
account). An answer without a ``buying_power`` check (a venue that words its checks
otherwise) is forwarded with its checks as they are; a paper buying power the book cannot
give refuses (``PAPER_PRICE_UNKNOWN``), never shows the real account's instead.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ordergate.core import DecimalFieldError, parse_decimal, wire_money
from ordergate.gateway.mcp._paper_desk import BOOK_UNREADABLE, PaperDesk, same_account
from ordergate.gateway.mcp._refusing import Failure, refuse, step

__all__ = ["REVIEW_TOOL", "paper_review"]

REVIEW_TOOL = "review_equity_order"
REVIEW_FAILED = Failure("paper review", broker=True, level=logging.INFO)
SHORT = "Not enough buying power for this order."
"""The venue's warning when the buying-power check fails (the sandbox's words)."""


async def _buying_power(desk: PaperDesk) -> Decimal:
    view = await step(desk.reader.read(desk.account, None), BOOK_UNREADABLE)
    if view.buying_power is None:
        refuse("PAPER_PRICE_UNKNOWN", "The paper account's buying power cannot be read now.")
    return view.buying_power


def with_paper_power(data: Mapping[str, Any], power: Decimal) -> dict[str, Any]:
    """The review ``data`` with its buying-power check made the paper account's."""
    answer = dict(data)
    checks = data.get("order_checks")
    item = checks.get("buying_power") if isinstance(checks, Mapping) else None
    if not isinstance(checks, Mapping) or not isinstance(item, Mapping):
        return answer
    try:
        required = parse_decimal("required", item.get("required"))
    except DecimalFieldError:
        required = None
    if required is None:
        refuse("PAPER_PRICE_UNKNOWN", "The review does not say what the order needs.")
    enough = data.get("side") == "sell" or required <= power
    paper_item: dict[str, Any] = {
        "passed": enough,
        "required": item.get("required"),
        "available": wire_money(power),
    }
    if not enough:
        paper_item["code"] = "INSUFFICIENT_BUYING_POWER"
    # The venue's other checks stand; its verdict on its own buying power does not.
    others_passed = checks.get("passed") is True or item.get("passed") is False
    warnings = [w for w in checks.get("warnings") or () if w != SHORT]
    if not enough:
        warnings.append(SHORT)
    paper_checks = {**checks, "buying_power": paper_item, "passed": enough and others_passed}
    if "warnings" in checks:
        paper_checks["warnings"] = warnings
    answer["order_checks"] = paper_checks
    return answer


async def paper_review(desk: PaperDesk, arguments: dict[str, Any]) -> dict[str, Any]:
    """``review_equity_order`` in paper mode: the venue's review, the paper buying power."""
    same_account(desk, arguments)
    if desk.upstream is None:
        refuse("PAPER_NOT_ANSWERED", "The gateway cannot reach the venue to review the order.")
    data = await step(desk.upstream(REVIEW_TOOL, arguments), REVIEW_FAILED)
    if not isinstance(data, Mapping):
        refuse("GATEWAY_ERROR", "The review's answer could not be read.")
    return with_paper_power(data, await _buying_power(desk))

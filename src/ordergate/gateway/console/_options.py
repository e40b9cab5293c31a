"""The console's option views: an option order's legs and figures on the approvals and filings
pages (``ordergate.gateway._option_facts``), and the account's open option positions on the
positions page.

The positions are read through the guard's option lane, one underlying at a time, for the
underlyings the policy's ``[options]`` allows (the lane reads holdings by underlying): each
position's contract (underlying, expiry, strike, call or put), its contracts (short below
zero), its mark (the quote's mid) and its market value (mark × 100 × contracts). A policy
without ``[options]``, or a venue without an option lane, shows none (``None``: not read).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from ordergate.core import to_wire
from ordergate.execution import Guard
from ordergate.gateway._option_facts import OPTION_EXERCISE, OPTION_ORDER, option_facts
from ordergate.ledger import Ledger, LedgerError
from ordergate.venues import NoAnswer

__all__ = ["approvals_with_options", "option_positions"]

_SHARES = 100


def approvals_with_options(
    ledger: Ledger, approvals: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``approvals`` (the desk's), each option order's and exercise request's with its
    ``option`` facts (blocking)."""
    shown = []
    for approval in approvals:
        if approval.get("kind") in (OPTION_ORDER, OPTION_EXERCISE):
            try:
                record = ledger.filing(approval["filing_id"])
            except LedgerError:
                record = None
            if record is not None:
                approval = {**approval, "option": option_facts(ledger, record)}
        shown.append(approval)
    return shown


async def option_positions(guard: Guard) -> list[dict[str, Any]] | None:
    """The account's open option positions on the policy's underlyings, by underlying and
    expiry (``None`` when none can be read: no ``[options]``, no option lane)."""
    options = guard.policy.options
    lane = guard.venue.options
    if options is None or lane is None:
        return None
    held: dict[str, Decimal] = {}
    for underlying in sorted(options.underlyings):
        holdings = await lane.holdings(guard.account, underlying)
        held.update({i: n for i, n in (holdings.contracts or {}).items() if n})
    if not held:
        return []
    try:
        listed = await lane.contracts(list(held))
    except NoAnswer:
        listed = {}
    quotes = await lane.quotes(list(held))
    rows = []
    for option_id, contracts in held.items():
        contract = listed.get(option_id)
        quote = quotes.get(option_id)
        mark = None
        if quote is not None and quote.bid is not None and quote.ask is not None:
            mark = (quote.bid + quote.ask) / 2
        rows.append(
            {
                "option_id": option_id,
                "underlying": contract.underlying if contract else None,
                "expiry": contract.expiry.isoformat() if contract else None,
                "strike": to_wire(contract.strike) if contract else None,
                "type": contract.kind.value if contract else None,
                "contracts": to_wire(contracts),
                "mark": None if mark is None else to_wire(mark),
                "market_value": None if mark is None else to_wire(mark * _SHARES * contracts),
            }
        )
    rows.sort(key=lambda row: (row["underlying"] or "", row["expiry"] or "", row["option_id"]))
    return rows

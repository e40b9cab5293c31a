"""What ``gate_how`` and ``gate_record`` answer: the caller's limits and the caller's own record.

Each filing shows its terms, its status and reasons, its fills as the ledger booked them
(price, quantity, fees: zero on paper, which charges none; ``null`` live, where the ledger
keeps no fee) with the filled quantity and average price, and ``grade``: ``null`` here, filled
in by ``gate_record`` from the graded record (``ordergate.record``) once one is kept. A
filing's fills are one read by its id (the ``executions.ref_id`` index; none for a filing that
never reached the broker), so the record costs its limit, never the history.

A caller sees its own filings only: the ledger's filings of the caller's identity (the hashed
connection id), never anything wider, newest first and at most ``RECORD_LIMIT`` of them
(``Ledger.filings_of``: its cost is that limit, not the caller's history). No account number
is shown: a filing's terms are copied field by field, the account left out. The caps are the
account's (every connection to it shares them), so ``gate_how`` shows the account's 24-hour
spend against them beside the caller's own open proposals.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ordergate.core import ZERO, to_wire
from ordergate.execution import Guard
from ordergate.ledger import Execution, FilingRecord, FilingStatus, Ledger

__all__ = ["RECORD_LIMIT", "how", "open_count", "record"]

RECORD_LIMIT = 50
_PRICE = Decimal("0.0001")
# Filings that never reached the broker have no fills to read.
_NEVER_PLACED = frozenset(
    {
        FilingStatus.REFUSED,
        FilingStatus.PENDING_APPROVAL,
        FilingStatus.DENIED,
        FilingStatus.EXPIRED,
        FilingStatus.NOT_PLACED,
    }
)
_SHOWN_TERMS = (
    "symbol",
    "pair",
    "lane",
    "side",
    "type",
    "quantity",
    "asset_quantity",
    "dollar_amount",
    "quote_amount",
    "limit_price",
    "stop_price",
    "time_in_force",
    "market_hours",
    "direction",
)

HOW = (
    "This is the ordergate gateway. Every equity order you send through its order tool is "
    "filed on the owner's ledger under your connection's identity, checked against the "
    "owner's policy, and placed only as filed; the answer carries the filing id. Reads and "
    "reviews are forwarded unchanged, except that in paper mode your orders, positions, "
    "portfolio, cash, buying power and reviews are the venue's own engine's answers on the "
    "paper book (guide: 'Paper: …') and other account reads are refused. You cancel only "
    "the orders you filed through the gateway (cancels are recorded). Option orders go "
    "through place_option_order and crypto orders through place_crypto_order, filed and "
    "checked the same way (crypto on paper too). "
    "Advanced orders, transfers and any other tool that would place or move something the "
    "gateway cannot file are refused. If an order gets no answer from the broker, read your "
    "open orders before sending it again."
)


def open_count(ledger: Ledger, account: str, identity: str) -> int:
    """The identity's filings on ``account`` that are not finished (blocking)."""
    return ledger.open_count(account, identity)


def _fills(fills: list[Execution], *, paper: bool) -> dict[str, Any]:
    filled = sum((fill.quantity for fill in fills), ZERO)
    average = None
    if filled > 0:
        average = sum((fill.notional for fill in fills), ZERO) / filled
    return {
        "fills": [
            {
                "id": fill.id,
                "price": to_wire(fill.price),
                "quantity": to_wire(fill.quantity),
                "fees": "0.00" if paper else None,
                "executed_at": fill.executed_at.isoformat(),
            }
            for fill in fills
        ],
        "filled_quantity": to_wire(filled),
        "average_price": None if average is None else to_wire(average.quantize(_PRICE)),
    }


def _shown(ledger: Ledger, record: FilingRecord, *, paper: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "filing_id": str(record.id),
        "filed_at": record.created_at.isoformat(),
        "status": record.status.value,
        "reasons": list(record.reasons),
        "kind": record.kind,
    }
    for name in _SHOWN_TERMS:
        value = record.terms.get(name)
        if value is not None:
            entry[name] = str(value)
    legs = record.terms.get("legs")
    if isinstance(legs, list):  # an option order's: each leg with its contract
        entry["legs"] = [
            {key: str(value) for key, value in leg.items()} for leg in legs if isinstance(leg, dict)
        ]
    placed = record.accepted and record.status not in _NEVER_PLACED
    fills = ledger.orders.executions(record.id) if placed else []
    entry.update(_fills(fills, paper=paper))
    entry["grade"] = None
    return entry


def record(
    ledger: Ledger, identity: str, *, paper: bool, limit: int = RECORD_LIMIT
) -> dict[str, Any]:
    """The identity's latest filings, newest first, with their outcomes and fills
    (blocking)."""
    shown = [
        _shown(ledger, filing, paper=paper) for filing in ledger.filings_of(identity, limit=limit)
    ]
    return {"filings": shown, "shown": len(shown), "limit": limit, "paper": paper}


def how(guard: Guard, identity: str, *, max_open: int) -> dict[str, Any]:
    """What the gateway does and the caller's limits (blocking)."""
    policy = guard.policy
    spend = guard.ledger.rolling_spend(guard.account)
    left_usd = max(policy.max_daily_usd - spend.notional, ZERO)
    return {
        "gateway": HOW,
        "mode": "paper" if guard.paper else "live",
        "limits": {
            "max_order_usd": to_wire(policy.max_order_usd),
            "max_daily_usd": to_wire(policy.max_daily_usd),
            "max_orders_per_day": policy.max_orders_per_day,
            "max_open_orders": policy.max_open_orders,
            "max_open_proposals": max_open,
            "order_types": sorted(kind.value for kind in policy.order_types),
            "sessions": sorted(session.value for session in policy.sessions),
            "approval": policy.approval.kind.value,
        },
        "last_24h": {
            "spent_usd": to_wire(spend.notional),
            "orders": spend.orders,
            "left_usd": to_wire(left_usd),
            "orders_left": max(policy.max_orders_per_day - spend.orders, 0),
        },
        "open_proposals": open_count(guard.ledger, guard.account, identity),
    }

"""A filing's terms: the order exactly as filed, as the ledger stores and hashes it.

``filing_terms`` turns a ``Proposal`` into the canonical mapping that is filed (and so
hash-chained) and that an approval is bound to; ``ticket_of`` turns a filed record back into
the ``Ticket`` that is reviewed and placed. Nothing but these fields is ever sent, so what
reaches the broker is what was filed, byte for byte; ``terms_sha256`` is the digest an
approval holds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any
from uuid import UUID

from ordergate.core import MarketHours, OrderType, Side, TimeInForce
from ordergate.ledger import FilingRecord, canonical_json
from ordergate.policy import Proposal, ProposalError
from ordergate.venues import Ticket

__all__ = ["KIND", "filed_amount", "filing_terms", "proposal_of", "terms_sha256", "ticket_of"]

KIND = "equity_order"
_AMOUNTS = ("quantity", "dollar_amount", "limit_price", "stop_price")


def filing_terms(proposal: Proposal, account: str) -> dict[str, Any]:
    """The order's fields as filed: wire names, enums as their values, amounts as Decimals."""
    terms: dict[str, Any] = {
        "account_number": account,
        "symbol": proposal.symbol,
        "side": proposal.side.value,
        "type": proposal.order_type.value,
        "time_in_force": proposal.time_in_force.value,
        "market_hours": proposal.market_hours.value,
    }
    amounts = {
        "quantity": proposal.quantity,
        "dollar_amount": proposal.notional,
        "limit_price": proposal.limit_price,
        "stop_price": proposal.stop_price,
    }
    terms.update({name: value for name, value in amounts.items() if value is not None})
    return terms


def terms_sha256(terms: Mapping[str, Any]) -> str:
    """SHA-256 of the terms' canonical JSON (the ledger's canonical form)."""
    return hashlib.sha256(canonical_json(terms).encode("ascii")).hexdigest()


def proposal_of(terms: Mapping[str, Any]) -> Proposal:
    """The ``Proposal`` a filing's stored terms describe; ``ProposalError`` if they do not
    describe one (a damaged or foreign record is never sent)."""
    try:
        amounts = {name: filed_amount(name, terms.get(name)) for name in _AMOUNTS}
        return Proposal(
            symbol=str(terms["symbol"]),
            side=Side(terms["side"]),
            quantity=amounts["quantity"],
            notional=amounts["dollar_amount"],
            order_type=OrderType(terms["type"]),
            limit_price=amounts["limit_price"],
            stop_price=amounts["stop_price"],
            time_in_force=TimeInForce(terms["time_in_force"]),
            market_hours=MarketHours(terms["market_hours"]),
            account=str(terms["account_number"]),
        )
    except (KeyError, ValueError, TypeError) as error:
        raise ProposalError(
            "terms", f"the filed terms do not describe an order ({error})"
        ) from None


def ticket_of(record: FilingRecord) -> Ticket:
    """The ticket of a filed order: its id is the broker's ``ref_id``."""
    proposal = proposal_of(record.terms)
    assert proposal.account is not None
    return Ticket(ref_id=UUID(str(record.id)), account=proposal.account, proposal=proposal)


def filed_amount(name: str, value: object) -> Decimal | None:
    """A filed amount read back: ``None``, or the decimal its text spells (``TypeError``
    for anything but text, ``ValueError`` for text that is no decimal)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} is not a decimal string")
    try:
        return Decimal(value)
    except InvalidOperation:
        raise ValueError(f"{name} is not a decimal") from None

"""An option filing's terms: the order exactly as filed, as the ledger stores and hashes it.

``option_terms`` turns an ``OptionProposal`` into the canonical mapping that is filed (kind
``option_order``): every leg with the contract the venue lists under its ``option_id``
(underlying, expiry, strike, call/put), side, position effect and ratio; the quantity, type,
net limit, direction, time in force and account. ``proposal_of_option`` and
``option_ticket_of`` turn a filed record back into what is reviewed and placed, so nothing
but these fields is ever sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any
from uuid import UUID

from ordergate.core import (
    OptionDirection,
    OptionPositionEffect,
    OptionType,
    OrderType,
    Side,
    TimeInForce,
)
from ordergate.ledger import FilingRecord
from ordergate.policy import ProposalError
from ordergate.policy.options import OptionContract, OptionLeg, OptionProposal
from ordergate.venues import OptionTicket

__all__ = ["OPTION_KIND", "option_terms", "option_ticket_of", "proposal_of_option"]

OPTION_KIND = "option_order"


def option_terms(proposal: OptionProposal, account: str) -> dict[str, Any]:
    """The option order's fields as filed (and hash-chained): every leg with its contract."""
    terms: dict[str, Any] = {
        "account_number": account,
        "legs": [
            {
                "option_id": leg.option_id,
                "underlying": leg.contract.underlying,
                "expiry": leg.contract.expiry.isoformat(),
                "strike": leg.contract.strike,
                "type": leg.contract.kind.value,
                "side": leg.side.value,
                "position_effect": leg.position_effect.value,
                "ratio": leg.ratio,
            }
            for leg in proposal.legs
        ],
        "quantity": proposal.quantity,
        "type": proposal.order_type.value,
        "direction": proposal.direction.value,
        "time_in_force": proposal.time_in_force.value,
    }
    if proposal.limit_price is not None:
        terms["limit_price"] = proposal.limit_price
    return terms


def proposal_of_option(terms: Mapping[str, Any]) -> OptionProposal:
    """The ``OptionProposal`` a filing's stored terms describe; ``ProposalError`` when they do
    not describe one (a damaged or foreign record is never sent)."""
    try:
        legs = tuple(
            OptionLeg(
                option_id=str(leg["option_id"]),
                contract=OptionContract(
                    underlying=str(leg["underlying"]),
                    expiry=date.fromisoformat(str(leg["expiry"])),
                    strike=Decimal(str(leg["strike"])),
                    kind=OptionType(leg["type"]),
                ),
                side=Side(leg["side"]),
                position_effect=OptionPositionEffect(leg["position_effect"]),
                ratio=int(leg["ratio"]),
            )
            for leg in terms["legs"]
        )
        limit = terms.get("limit_price")
        return OptionProposal(
            legs=legs,
            quantity=int(terms["quantity"]),
            direction=OptionDirection(terms["direction"]),
            order_type=OrderType(terms["type"]),
            limit_price=None if limit is None else Decimal(str(limit)),
            time_in_force=TimeInForce(terms["time_in_force"]),
            account=str(terms["account_number"]),
        )
    except (KeyError, ValueError, TypeError, InvalidOperation) as error:
        raise ProposalError(
            "terms", f"the filed terms do not describe an option order ({error})"
        ) from None


def option_ticket_of(record: FilingRecord) -> OptionTicket:
    """The ticket of a filed option order: its id is the venue's ``ref_id``."""
    proposal = proposal_of_option(record.terms)
    assert proposal.account is not None
    return OptionTicket(ref_id=UUID(str(record.id)), account=proposal.account, proposal=proposal)

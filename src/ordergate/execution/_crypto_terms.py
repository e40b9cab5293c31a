"""A crypto filing's terms: the crypto order exactly as filed (``kind`` ``crypto_order``).

``crypto_filing_terms`` turns a ``CryptoProposal`` into the mapping that is filed (and so
hash-chained, and bound to by an approval): the guard's account, the crypto account the
lane addresses (``rhs_account_number``), the lane the order goes to (``lane``: ``mcp`` or
``rest``), and the order's own fields under the proposal's names. ``crypto_ticket_of`` turns
a filed record back into the ``CryptoTicket`` that is reviewed and placed, so what reaches
the venue is what was filed, and the reconciler follows it on the lane the filing names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from ordergate.core import CryptoOrderType, CryptoTimeInForce, Side
from ordergate.execution._terms import filed_amount
from ordergate.ledger import FilingRecord
from ordergate.policy import CryptoProposal, ProposalError
from ordergate.venues import CryptoTicket

__all__ = [
    "CRYPTO_KIND",
    "crypto_account_of",
    "crypto_filing_terms",
    "crypto_proposal_of",
    "crypto_ticket_of",
    "lane_of",
]

CRYPTO_KIND = "crypto_order"
_AMOUNTS = ("asset_quantity", "quote_amount", "limit_price", "stop_price")


def crypto_filing_terms(proposal: CryptoProposal, account: str, lane: str | None) -> dict[str, Any]:
    """The crypto order's fields as filed (``proposal.account`` is the crypto account;
    ``lane`` ``None`` for an order refused before a lane was chosen)."""
    terms: dict[str, Any] = {
        "account_number": account,
        "rhs_account_number": proposal.account,
        "lane": lane,
        "pair": proposal.pair,
        "side": proposal.side.value,
        "type": proposal.order_type.value,
        "time_in_force": proposal.time_in_force.value,
    }
    terms.update(
        {name: getattr(proposal, name) for name in _AMOUNTS if getattr(proposal, name) is not None}
    )
    return terms


def crypto_proposal_of(terms: Mapping[str, Any]) -> CryptoProposal:
    """The ``CryptoProposal`` a crypto filing's stored terms describe; ``ProposalError`` if
    they do not describe one (a damaged or foreign record is never sent)."""
    try:
        amounts = {name: filed_amount(name, terms.get(name)) for name in _AMOUNTS}
        return CryptoProposal(
            pair=str(terms["pair"]),
            side=Side(terms["side"]),
            order_type=CryptoOrderType(terms["type"]),
            time_in_force=CryptoTimeInForce(terms["time_in_force"]),
            account=str(terms["rhs_account_number"]),
            **amounts,
        )
    except (KeyError, ValueError, TypeError) as error:
        raise ProposalError(
            "terms", f"the filed terms do not describe a crypto order ({error})"
        ) from None


def crypto_account_of(record: FilingRecord) -> str:
    """The crypto account a crypto filing's order is at."""
    return str(record.terms["rhs_account_number"])


def lane_of(record: FilingRecord) -> str:
    """The lane a crypto filing went to (``mcp`` or ``rest``)."""
    return str(record.terms.get("lane", ""))


def crypto_ticket_of(record: FilingRecord) -> CryptoTicket:
    """The ticket of a filed crypto order: its id is the venue's ``ref_id`` /
    ``client_order_id``."""
    proposal = crypto_proposal_of(record.terms)
    assert proposal.account is not None
    return CryptoTicket(ref_id=UUID(str(record.id)), account=proposal.account, proposal=proposal)

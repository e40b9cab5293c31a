"""The console's filings and refusals: the latest filings, filtered by identity, symbol (an
option order's underlying), outcome (accepted or refused, as filed) and reason code; an option
filing shows each leg and what its last check was decided on (strategy, max loss, premium).

Identity and outcome filter in the ledger's query; symbol and reason code filter the latest
``WINDOW`` filings so matched (terms and reasons are JSON on the record), so a filter finds
what is recent, never an unbounded scan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ordergate.core import to_wire, usd
from ordergate.gateway._option_facts import option_facts
from ordergate.gateway._owner import digest_in
from ordergate.ledger import FilingRecord, FilingStatus, Ledger

__all__ = ["WINDOW", "FilingFilter", "filings_view"]

WINDOW = 500
SHOWN = 100
OUTCOMES = ("accepted", "refused")


@dataclass(frozen=True, slots=True)
class FilingFilter:
    identity: str | None = None
    symbol: str | None = None
    outcome: str | None = None
    reason: str | None = None

    @classmethod
    def of(cls, query: dict[str, str]) -> FilingFilter:
        def value(name: str) -> str | None:
            text = query.get(name, "").strip()
            return text[:200] or None

        outcome = value("outcome")
        return cls(
            identity=value("identity"),
            symbol=(value("symbol") or "").upper() or None,
            outcome=outcome if outcome in OUTCOMES else None,
            reason=value("reason"),
        )


def requested(record: FilingRecord) -> str:
    """What a filing asked for, as a person reads it: the amount reserved for an accepted
    one; for a refused one (nothing was reserved) the dollars it asked for, or its shares
    (at their limit price when it has one)."""
    if record.outcome is not FilingStatus.REFUSED:
        return usd(record.notional)
    terms = record.terms
    dollars = terms.get("dollar_amount") or terms.get("quote_amount")
    if dollars:
        return usd(dollars)
    # A crypto order's size is its asset_quantity (units of the pair's asset).
    shares, limit = terms.get("quantity") or terms.get("asset_quantity"), terms.get("limit_price")
    try:
        if shares and limit:
            return usd(Decimal(str(shares)) * Decimal(str(limit)))
    except InvalidOperation:
        pass
    return f"{shares} shares" if shares else usd(record.notional)


def filings_view(
    ledger: Ledger, wanted: FilingFilter, names: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """The filings ``wanted`` matches, newest first, at most ``SHOWN`` (blocking); ``names``
    (a connection digest's client name) names the client beside each identity."""
    records = ledger.recent_filings(limit=WINDOW, identity=wanted.identity, outcome=wanted.outcome)
    shown = []
    for record in records:
        # A crypto filing names its instrument ``pair`` (``BTC-USD``); an option order, its
        # legs' underlying (``option``: each leg, the strategy, max loss and premium).
        option = option_facts(ledger, record)
        symbol = str(
            record.terms.get("symbol")
            or record.terms.get("pair")
            or (option and option["underlying"])
            or ""
        )
        if wanted.symbol is not None and symbol.upper() != wanted.symbol:
            continue
        if wanted.reason is not None and wanted.reason not in record.reasons:
            continue
        shown.append(
            {
                "filing_id": str(record.id),
                "created_at": record.created_at.isoformat(),
                "identity": record.identity,
                "client_name": (names or {}).get(digest_in(record.identity) or ""),
                "requested": requested(record),
                "symbol": symbol,
                "side": record.terms.get("side")
                or (option and (option.get("direction") or option.get("act"))),
                "option": option,
                "outcome": record.outcome.value,
                "status": record.status.value,
                "reasons": list(record.reasons),
                "notional": to_wire(record.notional),
            }
        )
        if len(shown) >= SHOWN:
            break
    return shown

"""The console's filings and refusals: the latest filings, filtered by identity, symbol,
outcome (accepted or refused, as filed) and reason code.

Identity and outcome filter in the ledger's query; symbol and reason code filter the latest
``WINDOW`` filings so matched (terms and reasons are JSON on the record), so a filter finds
what is recent, never an unbounded scan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ordergate.core import to_wire
from ordergate.ledger import Ledger

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


def filings_view(ledger: Ledger, wanted: FilingFilter) -> list[dict[str, Any]]:
    """The filings ``wanted`` matches, newest first, at most ``SHOWN`` (blocking)."""
    records = ledger.recent_filings(limit=WINDOW, identity=wanted.identity, outcome=wanted.outcome)
    shown = []
    for record in records:
        symbol = str(record.terms.get("symbol") or "")
        if wanted.symbol is not None and symbol.upper() != wanted.symbol:
            continue
        if wanted.reason is not None and wanted.reason not in record.reasons:
            continue
        shown.append(
            {
                "filing_id": str(record.id),
                "created_at": record.created_at.isoformat(),
                "identity": record.identity,
                "symbol": symbol,
                "side": record.terms.get("side"),
                "outcome": record.outcome.value,
                "status": record.status.value,
                "reasons": list(record.reasons),
                "notional": to_wire(record.notional),
            }
        )
        if len(shown) >= SHOWN:
            break
    return shown

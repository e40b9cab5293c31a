"""The console's filings list shows a crypto filing by its pair, and what a refused one asked
for: its dollar amount, or its units at its limit."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from venue_testkit import START

from ordergate.core import SteppedClock
from ordergate.gateway.console._filings import FilingFilter, filings_view
from ordergate.ledger import Decision, Filing, RollingCaps, open_ledger


def test_a_crypto_filing_is_listed_by_its_pair_with_what_it_asked_for(tmp_path: Path) -> None:
    caps = RollingCaps(Decimal(1000), 10)
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=SteppedClock(start=START)) as ledger:
        for terms in (
            {"pair": "BTC-USD", "side": "buy", "quote_amount": Decimal("25.00")},
            {"pair": "ETH-USD", "side": "buy", "asset_quantity": Decimal("0.5"),
             "limit_price": Decimal("3000")},
            {"pair": "SOL-USD", "side": "sell", "asset_quantity": Decimal("2")},
        ):  # fmt: skip
            filing = Filing(
                "a",
                terms,
                account="A1",
                kind="crypto_order",
                decision=Decision.REFUSE,
                reasons=("crypto_pair_not_allowed",),
            )
            ledger.file_and_reserve(filing, notional=Decimal(0), caps=caps)
        shown = filings_view(ledger, FilingFilter(symbol="ETH-USD"))
        every = filings_view(ledger, FilingFilter())
    assert [row["symbol"] for row in shown] == ["ETH-USD"]
    assert shown[0]["requested"] == "$1,500.00"
    asked = {row["symbol"]: row["requested"] for row in every}
    assert asked["BTC-USD"] == "$25.00" and asked["SOL-USD"] == "2 shares"

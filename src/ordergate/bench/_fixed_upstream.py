"""The history bench's upstream: a ``Caller`` answering, for any symbol, one fixed quote.

Paper runs the venue's own engine (``PaperVenue``) on the upstream's prices; the bench
wants every ledger to see the same market, unmoved, so that what a seeded order filled at is
what a measured one fills at: SPY (or any symbol) 99.99 × 100.01, last 100, tradable, stamped
with the clock's instant. It answers the tools the paper caller forwards (``FORWARDED``: the
account, its approval and margin settings, tradability) and ``get_equity_quotes``, in the
venue's wire shapes (``ordergate.sandbox.tools``); any other tool is refused, so a bench
that came to need one fails instead of measuring a made-up answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final

from ordergate.client import BusinessError
from ordergate.core import Clock

__all__ = ["ASK", "BID", "FixedUpstream", "tradability_of"]

BID: Final = Decimal("99.99")
ASK: Final = Decimal("100.01")
_LAST: Final = Decimal(100)


class FixedUpstream:
    """The upstream of one paper ``account`` (a cash account, agentic) quoting ``BID`` ×
    ``ASK`` for every symbol, as of ``clock``'s instant."""

    def __init__(self, account: str, *, clock: Clock) -> None:
        self._account = account
        self._clock = clock

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == "get_equity_quotes":
            return {"results": [{"quote": self._quote(s)} for s in arguments["symbols"]]}
        if name == "get_equity_tradability":
            return {
                "results": [tradability_of(symbol) for symbol in arguments["symbols"]],
                "not_found": [],
            }
        if name == "get_accounts":
            return {"accounts": [self._wire_account()]}
        if name == "get_trade_approval_setting":
            return {
                "setting": {"account_number": self._account, "human_must_approve_trades": False}
            }
        if name == "get_limited_margin_upgrade_info":
            return {
                "account_number": self._account,
                "account_type": "cash",
                "eligible": True,
                "enrolled": False,
                "upgrade_url": None,
                "message": "The bench's account stays a cash account.",
            }
        raise BusinessError(f"the bench's upstream answers no {name}", tool=name, code="bench")

    def _quote(self, symbol: str) -> dict[str, Any]:
        now = self._clock.now().isoformat()
        last = str(_LAST)
        return {
            "symbol": symbol.strip().upper(),
            "last_trade_price": last,
            "venue_last_trade_time": now,
            "adjusted_previous_close": last,
            "previous_close": last,
            "bid_price": str(BID),
            "venue_bid_time": now,
            "ask_price": str(ASK),
            "venue_ask_time": now,
            "has_traded": True,
            "state": "active",
        }

    def _wire_account(self) -> dict[str, Any]:
        return {
            "account_number": self._account,
            "rhs_account_number": f"rhs-{self._account}",
            "type": "cash",
            "unsettled_funds": "0.00",
            "brokerage_account_type": "individual",
            "nickname": "bench",
            "is_default": True,
            "agentic_allowed": True,
            "option_level": "option_level_2",
            "user_option_level": "option_level_2",
            "management_type": "self_directed",
            "affiliate": "rhf",
            "state": "active",
            "deactivated": False,
            "permanently_deactivated": False,
        }


def tradability_of(symbol: str) -> dict[str, Any]:
    """The upstream's ``get_equity_tradability`` entry of ``symbol``: listed, tradable."""
    name = symbol.strip().upper()
    return {
        "symbol": name,
        "name": name,
        "simple_name": name,
        "state": "active",
        "country": "US",
        "tradeable": True,
        "fractional_tradability": "tradable",
        "extended_hours_fractional_tradability": False,
        "all_day_tradability": "untradable",
        "twenty_four_seven_tradability": "untradable",
        "short_selling_tradability": "untradable",
        "account_type_tradabilities": [
            {"account_type": "cash", "account_type_tradability": "tradable"}
        ],
    }

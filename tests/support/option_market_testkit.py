"""The sandbox venue's option market as a test reads it: the nearest expiry's contracts, one
near the money, a contract's quote, legs and their natural net. Anything with the venue's
client as ``venue`` reads it (the gateway's kit, the guard's desk). ``OPTIONS``: an
``[options]`` table open enough for every strategy shape on AAPL; ``OPTION_TRADER``: the
``optiontrader`` profile, which may trade equities and options."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Protocol

from venue_testkit import VenueClient

__all__ = [
    "OPTIONS",
    "OPTION_TRADER",
    "OnVenue",
    "contracts",
    "leg",
    "natural",
    "near_money",
    "quote",
]

OPTIONS = """
[options]
underlyings = ["AAPL"]
strategies = ["long_call", "long_put", "covered_call", "cash_secured_put", "debit_vertical",
  "credit_vertical", "iron_condor", "closing"]
max_contracts = 10
max_premium_usd = "5000"
max_daily_premium_usd = "20000"
max_loss_usd = "100000"
min_days_to_expiry = 0
max_days_to_expiry = 400
no_open_last_minutes = 0
price_collar_bps = 5000
"""

OPTION_TRADER = """
name: optiontrader
description: Trades equities and options within the account policy.
permissions: [account.read, market.read, orders.read, orders.review, orders.place,
  orders.cancel, options.review, options.place, options.cancel]
"""


class OnVenue(Protocol):
    @property
    def venue(self) -> VenueClient: ...


def contracts(on: OnVenue, kind: str, symbol: str = "AAPL") -> list[dict[str, Any]]:
    """The nearest expiry's contracts of ``kind``, by strike."""
    chain = on.venue.data("get_option_chains", {"underlying_symbol": symbol})["chains"][0]
    day = chain["expiration_dates"][0]
    listed = on.venue.data(
        "get_option_instruments",
        {"chain_symbol": symbol, "expiration_dates": day, "type": kind},
    )["instruments"]
    return sorted(listed, key=lambda item: Decimal(item["strike_price"]))


def near_money(on: OnVenue, kind: str, offset: int = 0, symbol: str = "AAPL") -> dict[str, Any]:
    """The contract ``offset`` strikes from the one nearest the underlying's price."""
    listed = contracts(on, kind, symbol)
    quote = on.venue.data("get_equity_quotes", {"symbols": [symbol]})["results"][0]["quote"]
    spot = Decimal(quote["last_trade_price"])
    nearest = min(range(len(listed)), key=lambda i: abs(Decimal(listed[i]["strike_price"]) - spot))
    return listed[nearest + offset]


def quote(on: OnVenue, option_id: str) -> tuple[Decimal, Decimal]:
    """The contract's (bid, ask) per share."""
    result = on.venue.data("get_option_quotes", {"instrument_ids": [option_id]})["results"][0]
    return Decimal(result["quote"]["bid_price"]), Decimal(result["quote"]["ask_price"])


def leg(option_id: str, side: str = "buy", effect: str = "open", ratio: int = 1) -> dict[str, Any]:
    return {
        "option_id": option_id,
        "side": side,
        "position_effect": effect,
        "ratio_quantity": ratio,
    }


def natural(on: OnVenue, legs: list[dict[str, Any]]) -> Decimal:
    """The legs' net at their natural prices (a buy at the ask, a sell at the bid), per
    share of one unit: positive for a debit, negative for a credit."""
    net = Decimal(0)
    for item in legs:
        bid, ask = quote(on, item["option_id"])
        price = ask if item["side"] == "buy" else bid
        sign = 1 if item["side"] == "buy" else -1
        net += sign * item.get("ratio_quantity", 1) * price
    return net

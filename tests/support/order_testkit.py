"""Equity orders over a running venue, as a trader sees them: place, read back, count the money."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

from venue_testkit import VenueClient

CENT = Decimal("0.01")
# Robinhood collars a market buy 5% above the ask (see the equity desk's rules).
MARKET_BUY_COLLAR = Decimal("1.05")


def ref_id(n: int) -> str:
    """A fixed, valid ``ref_id``: reruns and twin venues send the very same ones."""
    return str(uuid.UUID(int=n))


def cents_up(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_CEILING)


def cents_down(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_FLOOR)


def collared(ask: str) -> Decimal:
    """The per-share price a market buy is held at: the ask plus 5%, rounded up to the cent."""
    return cents_up(Decimal(ask) * MARKET_BUY_COLLAR)


def regulatory_fees(price: Decimal, quantity: Decimal) -> Decimal:
    """SEC Section 31 ($27.80 per $1M sold) plus FINRA TAF ($0.000166 a share, at most $8.30)."""
    sec = cents_up(price * quantity * Decimal("0.0000278"))
    taf = cents_up(min(quantity * Decimal("0.000166"), Decimal("8.30")))
    return sec + taf


@dataclass
class Trader:
    """The agentic account of a venue, driven through the MCP tools only."""

    client: VenueClient
    account: str

    @classmethod
    def on(cls, client: VenueClient) -> Trader:
        return cls(client, client.agentic_account()["account_number"])

    def terms(self, symbol: str, **terms: Any) -> dict[str, Any]:
        """Order arguments: a market buy unless told otherwise; a ``None`` drops the key."""
        args: dict[str, Any] = {
            "account_number": self.account,
            "symbol": symbol,
            "side": "buy",
            "type": "market",
        }
        args.update(terms)
        return {key: value for key, value in args.items() if value is not None}

    def place(self, symbol: str, **terms: Any) -> dict[str, Any]:
        """Place an order that must be accepted; the order as placed."""
        order: dict[str, Any] = self.client.data("place_equity_order", self.terms(symbol, **terms))[
            "order"
        ]
        return order

    def refusal(self, symbol: str, **terms: Any) -> dict[str, Any]:
        return self.client.error("place_equity_order", self.terms(symbol, **terms))

    def cancel(self, order_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.client.data(
            "cancel_equity_order", {"account_number": self.account, "order_id": order_id}
        )
        return data

    def orders(self, **filters: Any) -> list[dict[str, Any]]:
        args = {"account_number": self.account, **filters}
        orders: list[dict[str, Any]] = self.client.data("get_equity_orders", args)["orders"]
        return orders

    def order(self, order_id: str) -> dict[str, Any]:
        (order,) = self.orders(order_id=order_id)
        return order

    def quote(self, symbol: str) -> dict[str, Any]:
        quote: dict[str, Any] = self.client.data("get_equity_quotes", {"symbols": [symbol]})[
            "results"
        ][0]["quote"]
        return quote

    def portfolio(self) -> dict[str, Any]:
        data: dict[str, Any] = self.client.data("get_portfolio", {"account_number": self.account})
        return data

    def cash(self) -> Decimal:
        return Decimal(self.portfolio()["cash"])

    def buying_power(self) -> Decimal:
        return Decimal(self.portfolio()["buying_power"]["buying_power"])

    def position(self, symbol: str) -> dict[str, Any] | None:
        rows = self.client.data("get_equity_positions", {"account_number": self.account})
        for row in rows["positions"]:
            if row["symbol"] == symbol:
                found: dict[str, Any] = row
                return found
        return None

    def step_until(self, order_id: str, states: set[str], *, limit: int = 60) -> dict[str, Any]:
        """Step the venue clock a second at a time until the order reaches one of ``states``."""
        for _ in range(limit):
            order = self.order(order_id)
            if order["state"] in states:
                return order
            self.client.step(1)
        raise AssertionError(f"order {order_id} never reached {sorted(states)}")

"""Paper options through the guard: a guard on ``PaperVenue`` over a sandbox whose agentic
account is of a given type and option level, option proposals built from the venue's listed
contracts at their natural net, and the paper book's option orders and positions as the
engine answers them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
from guard_kit import OPEN_POLICY, Desk, desk
from option_market_testkit import OPTIONS, natural

from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, Side
from ordergate.ledger import FilingStatus
from ordergate.policy import PolicyConfig, parse_policy
from ordergate.policy.options import OptionContract, OptionLeg, OptionProposal
from ordergate.venues.paper import PaperVenue

__all__ = [
    "CENT",
    "caller",
    "engine_orders",
    "engine_positions",
    "filled",
    "held",
    "option_policy",
    "paper_options",
    "proposal",
]

BOUND_S = 10
CENT = Decimal("0.01")
SLACK = Decimal("0.05")
KIND = "option_order"


def option_policy(paper: str = "", options: str = OPTIONS) -> PolicyConfig:
    """The guard's open test policy on a big paper account, margin on, with ``options`` and
    ``paper``'s lines under ``[paper]``."""
    text = OPEN_POLICY.replace('max_order_usd = "5000"', 'max_order_usd = "100000"')
    text = text.replace('max_daily_usd = "20000"', 'max_daily_usd = "200000"')
    text = text.replace('starting_cash_usd = "100000"', 'starting_cash_usd = "1000000"')
    text = text.replace("[orders]\n", "[orders]\nmargin = true\n")
    return parse_policy(text + paper + "\n" + options)


@asynccontextmanager
async def paper_options(
    tmp_path: Path,
    *,
    config: PolicyConfig | None = None,
    account_type: str = "margin",
    option_level: int = 3,
) -> AsyncIterator[Desk]:
    """A guard on paper (``PaperVenue``) over a sandbox whose agentic account is of
    ``account_type`` at ``option_level``."""
    venue = {"account_type": account_type, "option_level": option_level}
    async with desk(tmp_path, config=config or option_policy(), venue=venue) as d:
        yield d


def proposal(d: Desk, legs: list[dict[str, Any]], *, quantity: int = 1) -> OptionProposal:
    """``legs`` at their natural net with a little slack, on the contracts the venue lists."""
    net = natural(d, legs)
    debit = net > 0
    price = (abs(net) + SLACK) if debit else (abs(net) - SLACK)
    chosen = []
    for item in legs:
        (listed,) = d.venue.data("get_option_instruments", {"ids": item["option_id"]})[
            "instruments"
        ]
        contract = OptionContract(
            underlying=listed["chain_symbol"],
            expiry=date.fromisoformat(listed["expiration_date"]),
            strike=Decimal(listed["strike_price"]),
            kind=OptionType(listed["type"]),
        )
        chosen.append(
            OptionLeg(
                item["option_id"],
                contract,
                Side(item["side"]),
                OptionPositionEffect(item["position_effect"]),
            )
        )
    return OptionProposal(
        legs=tuple(chosen),
        quantity=quantity,
        direction=OptionDirection.DEBIT if debit else OptionDirection.CREDIT,
        limit_price=price.quantize(CENT),
        account=d.account,
    )


def caller(d: Desk) -> Any:
    assert isinstance(d.port, PaperVenue)
    return d.port.caller


async def engine_orders(d: Desk) -> list[dict[str, Any]]:
    """The paper book's option orders (the engine's)."""
    with anyio.fail_after(BOUND_S):
        listed = await caller(d).call("get_option_orders", {"account_number": d.account})
    orders: list[dict[str, Any]] = listed["orders"]
    return orders


async def engine_positions(d: Desk) -> dict[str, Decimal]:
    """The paper book's open option positions: contracts by option id (short negative)."""
    with anyio.fail_after(BOUND_S):
        listed = await caller(d).call("get_option_positions", {"account_number": d.account})
    return {
        p["option_id"]: Decimal(p["quantity"]) * (-1 if p["type"] == "short" else 1)
        for p in listed["positions"]
        if Decimal(p["quantity"])
    }


def held(d: Desk, at: datetime | None = None) -> Decimal:
    """The option premium reserved in the 24 h before ``at`` (default: now)."""
    return d.ledger.rolling_spend(d.account, now=at, kind=KIND).notional


async def filled(d: Desk, legs: list[dict[str, Any]], *, quantity: int = 1) -> dict[str, Any]:
    """``legs`` through the guard on paper, filled on the engine after a clock step; the
    reservation is the premium the engine says filled. The engine's order."""
    outcome = await d.guard.submit_option(proposal(d, legs, quantity=quantity), identity="a")
    assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
    assert await d.settled(outcome, seconds=3) is FilingStatus.FILLED
    (order,) = [o for o in await engine_orders(d) if o["id"] == outcome.order_id]
    assert order["state"] == "filled"
    assert held(d) == Decimal(order["processed_premium"])
    return order

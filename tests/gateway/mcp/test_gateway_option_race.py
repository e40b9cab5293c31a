"""Thirty option orders at once against the daily premium cap (live mode, the sandbox's
venue): the account's turn decides them one at a time, so exactly as many as the cap holds
are accepted, and the venue receives exactly those."""

from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from options_kit import (
    answer_data,
    leg,
    near_money,
    option_gateway,
    option_policy,
    order,
    quote,
    venue_orders,
)

from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, Side
from ordergate.ledger import FilingStatus
from ordergate.policy.options import OptionContract, OptionLeg, OptionProposal

pytestmark = pytest.mark.anyio

RACERS = 30
FITS = 7
LIMITS = (
    "max_orders_per_minute = 100\nmax_account_orders_per_minute = 100\n"
    "duplicate_window_s = 0\nmax_open_orders = 100"
)


async def test_thirty_orders_at_once_on_the_daily_premium_cap_send_exactly_what_was_accepted(
    tmp_path: Path,
) -> None:
    config = option_policy(limits=LIMITS)
    async with option_gateway(tmp_path, config=config) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        premium = ask * 100
        # Room for FITS orders and half of one more.
        cap = premium * FITS + premium / 2
        gw.guard.use_policy(option_policy(limits=LIMITS, max_daily_premium_usd=f'"{cap}"'))
        contract = OptionContract(
            underlying="AAPL",
            expiry=date.fromisoformat(call["expiration_date"]),
            strike=Decimal(call["strike_price"]),
            kind=OptionType.CALL,
        )
        proposal = OptionProposal(
            legs=(OptionLeg(call["id"], contract, Side.BUY, OptionPositionEffect.OPEN),),
            quantity=1,
            direction=OptionDirection.DEBIT,
            limit_price=ask,
            account=gw.account,
        )
        outcomes = await asyncio.gather(
            *(
                gw.guard.submit_option(proposal, identity=f"racer-{index}")
                for index in range(RACERS)
            )
        )
        sent = venue_orders(gw)
        spent = gw.ledger.rolling_spend(gw.account, kind="option_order").notional
    accepted = [o for o in outcomes if o.status is not FilingStatus.REFUSED]
    refused = [o for o in outcomes if o.status is FilingStatus.REFUSED]
    assert len(accepted) == FITS
    assert all(o.reasons == ("option_daily_premium_over_cap",) for o in refused)
    assert {o.order_id for o in accepted} == {order["id"] for order in sent}
    assert len(sent) == FITS
    assert spent <= cap


async def test_thirty_option_orders_at_once_through_the_gateway_send_exactly_what_was_accepted(
    tmp_path: Path,
) -> None:
    """The same race over the gateway's ``/mcp`` on loopback: thirty ``place_option_order``
    calls at once, each answered; those answered submitted are exactly the venue's orders."""
    async with option_gateway(tmp_path, config=option_policy(limits=LIMITS), max_open=100) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        cap = ask * 100 * FITS + ask * 50  # room for FITS orders and half of one more
        gw.guard.use_policy(option_policy(limits=LIMITS, max_daily_premium_usd=f'"{cap}"'))
        arguments = order(gw, [leg(call["id"])], price=ask, direction="debit")
        answers = await asyncio.gather(
            *(gw.call("place_option_order", arguments) for _ in range(RACERS))
        )
        sent = venue_orders(gw)
        spent = gw.ledger.rolling_spend(gw.account, kind="option_order").notional
    data = [answer_data(answer) for answer in answers]
    accepted = [d for d in data if d["status"] == "submitted"]
    refused = [d for d in data if d["status"] == "refused"]
    assert len(accepted) == FITS and len(refused) == RACERS - FITS
    assert all(d["reasons"] == ["option_daily_premium_over_cap"] for d in refused)
    assert {d["order_id"] for d in accepted} == {o["id"] for o in sent}
    assert len(sent) == FITS
    assert spent <= cap

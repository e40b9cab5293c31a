"""Adversarial option orders through the gateway against the sandbox in live mode: each refused
with its reason code and nothing sent to the venue (its option orders read back empty)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway
from options_kit import (
    leg,
    natural,
    near_money,
    option_gateway,
    option_home,
    option_policy,
    order,
    quote,
    venue_orders,
)

pytestmark = pytest.mark.anyio

CENT = Decimal("0.01")
PLACER = """
name: optiontrader
description: Places option orders but may not cancel them.
permissions: [account.read, market.read, orders.read, options.review, options.place]
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _refused(gw: Gateway, arguments: dict[str, Any]) -> dict[str, Any]:
    """The data of an option order the guard refused; the venue holds no option order."""
    result = await gw.call("place_option_order", arguments)
    data: dict[str, Any] = result["structuredContent"]["data"]
    assert result["isError"] is True, data
    assert data["status"] == "refused", data
    assert venue_orders(gw) == []
    return data


async def test_a_naked_call_is_refused_whatever_the_agent_calls_it(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call", 2)
        bid, _ = quote(gw, call["id"])
        data = await _refused(
            gw, order(gw, [leg(call["id"], "sell")], price=bid, direction="credit")
        )
    assert "option_strategy_not_allowed" in data["reasons"]
    assert "option_undefined_risk" in data["reasons"]
    assert "naked_call" in data["message"]


async def test_a_ratio_that_leaves_a_call_uncovered_is_refused(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        legs = [
            leg(near_money(gw, "call")["id"]),
            leg(near_money(gw, "call", 2)["id"], "sell", ratio=2),
        ]
        net = natural(gw, legs)
        direction = "debit" if net > 0 else "credit"
        price = max(abs(net), CENT)
        data = await _refused(gw, order(gw, legs, price=price, direction=direction))
    assert "option_undefined_risk" in data["reasons"]


async def test_a_net_price_outside_the_collar_is_refused_naming_the_mid(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        legs = [leg(near_money(gw, "call")["id"]), leg(near_money(gw, "call", 2)["id"], "sell")]
        far = (natural(gw, legs) * 3).quantize(CENT)
        data = await _refused(gw, order(gw, legs, price=far, direction="debit"))
    assert data["reasons"] == ["option_price_collar"]
    assert "option_price_collar" in data["message"]


async def test_premium_over_the_per_order_cap_by_one_cent_is_refused_and_at_it_placed(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        cap = ask * 100 - CENT
        gw.guard.use_policy(option_policy(max_premium_usd=f'"{cap}"'))
        data = await _refused(gw, order(gw, [leg(call["id"])], price=ask, direction="debit"))
        gw.guard.use_policy(option_policy(max_premium_usd=f'"{ask * 100}"'))
        placed = await gw.call(
            "place_option_order", order(gw, [leg(call["id"])], price=ask, direction="debit")
        )
    assert data["reasons"] == ["option_premium_over_cap"]
    assert placed["structuredContent"]["data"]["status"] == "submitted", placed


async def test_an_expiry_outside_the_window_is_refused(tmp_path: Path) -> None:
    async with option_gateway(tmp_path, config=option_policy(min_days_to_expiry="300")) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        data = await _refused(gw, order(gw, [leg(call["id"])], price=ask, direction="debit"))
    assert data["reasons"] == ["option_expiry_outside_window"]


async def test_without_an_options_table_every_option_order_is_refused(tmp_path: Path) -> None:
    async with option_gateway(tmp_path, config=option_policy(options="")) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        data = await _refused(gw, order(gw, [leg(call["id"])], price=ask, direction="debit"))
    assert data["reasons"] == ["options_not_enabled"]


async def test_an_agents_exercise_is_held_for_the_owner_and_nothing_reaches_the_venue(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:  # a policy that holds no order for approval
        call = near_money(gw, "call")
        answer = await gw.call(
            "exercise_option",
            {"account_number": gw.account, "option_id": call["id"], "quantity": 1},
        )
        forwarded = gw.backend.forwarded
        [record] = gw.filings()
    assert answer["isError"] is False, answer
    assert answer["structuredContent"]["data"]["status"] == "pending_approval"
    assert record.kind == "option_exercise"
    assert forwarded == []


async def test_a_replace_by_a_profile_that_may_not_cancel_options_is_refused_and_nothing_sent(
    tmp_path: Path,
) -> None:
    replace = {"name": "replace_option_order", "inputSchema": {"type": "object"}}
    placer = option_home(tmp_path)
    (placer / "profiles" / "optiontrader.yaml").write_text(PLACER)
    async with option_gateway(tmp_path, extra_tools=[replace], profiles_home=placer) as gw:
        call = near_money(gw, "call")
        error = await gw.refusal(
            "replace_option_order",
            {"account_number": gw.account, "order_id": call["id"], "price": "999.00"},
        )
        forwarded = gw.backend.forwarded
    assert error["code"] == "PROFILE_REFUSED"
    assert "options.cancel" in error["message"]
    assert forwarded == []

"""An option order sent again under its ``ref_id`` (as the venue's tool descriptions ask an
agent to do on a retry) answers its first filing and sends nothing again, even with the
identity's open orders at the gateway's cap; another order under that ``ref_id`` is refused
``ref_id_reused``, nothing filed or sent (live mode, the sandbox's venue)."""

from __future__ import annotations

import uuid
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

from ordergate.gateway.mcp import MAX_OPEN_PROPOSALS

pytestmark = pytest.mark.anyio


async def test_an_option_order_sent_again_under_its_ref_id_answers_its_first_filing(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        arguments = order(
            gw, [leg(call["id"])], price=ask, direction="debit", ref_id=str(uuid.uuid4())
        )
        first = answer_data(await gw.call("place_option_order", arguments))
        again = answer_data(await gw.call("place_option_order", arguments))
        filings = gw.filings()
        sent = venue_orders(gw)
    assert first["status"] == "submitted", first
    assert again["filing_id"] == first["filing_id"]
    assert again["order_id"] == first["order_id"]
    assert len(filings) == 1
    assert [o["id"] for o in sent] == [first["order_id"]]


async def test_an_option_retry_is_answered_even_with_the_open_cap_reached(
    tmp_path: Path,
) -> None:
    # The policy's own caps leave room: only the gateway's per-identity cap is reached.
    config = option_policy(
        limits="max_orders_per_minute = 100\nmax_account_orders_per_minute = 100\n"
        "duplicate_window_s = 0\nmax_open_orders = 100",
    )
    async with option_gateway(tmp_path, config=config) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        # The clock stands still: nothing fills, so every order placed stays open.
        keyed = order(gw, [leg(call["id"])], price=ask, direction="debit", ref_id=str(uuid.uuid4()))
        first = answer_data(await gw.call("place_option_order", keyed))
        for _ in range(MAX_OPEN_PROPOSALS - 1):
            resting = order(gw, [leg(call["id"])], price=ask, direction="debit")
            rested = answer_data(await gw.call("place_option_order", resting))
            assert rested["status"] == "submitted", rested
        over = await gw.refusal(
            "place_option_order", order(gw, [leg(call["id"])], price=ask, direction="debit")
        )
        again = answer_data(await gw.call("place_option_order", keyed))
        sent = venue_orders(gw)
    assert over["code"] == "TOO_MANY_OPEN"
    assert again["filing_id"] == first["filing_id"]
    assert len(sent) == MAX_OPEN_PROPOSALS


async def test_another_option_order_under_a_used_ref_id_is_refused_ref_id_reused(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        key = str(uuid.uuid4())
        first = answer_data(
            await gw.call(
                "place_option_order",
                order(gw, [leg(call["id"])], price=ask, direction="debit", ref_id=key),
            )
        )
        other = answer_data(
            await gw.call(
                "place_option_order",
                order(gw, [leg(call["id"])], price=ask, direction="debit", ref_id=key, quantity=2),
            )
        )
        filings = gw.filings()
        sent = venue_orders(gw)
    assert first["status"] == "submitted"
    assert (other["status"], other["reasons"]) == ("refused", ["ref_id_reused"])
    assert other["filing_id"] == first["filing_id"]
    assert len(filings) == 1
    assert len(sent) == 1

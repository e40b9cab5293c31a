"""Option orders through the gateway against the sandbox in live mode (a margin account at
option level 3): each strategy shape filed with every leg, placed only as filed under the
filing's id, followed to its fill, and its reservation ending at the premium that filled."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway, gateway
from options_kit import (
    account_orders,
    answer_data,
    contracts,
    leg,
    natural,
    near_money,
    option_gateway,
    order,
    quote,
    venue_orders,
)

from ordergate.ledger import FilingStatus
from ordergate.venues.paper import PaperVenue

pytestmark = pytest.mark.anyio

HUNDRED = Decimal(100)
CENT = Decimal("0.01")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _fill(gw: Gateway) -> None:
    """Let the venue confirm and look at the order, then reconcile."""
    gw.clock.advance(timedelta(seconds=3))
    await gw.guard.reconcile()


async def test_a_long_call_is_filed_with_its_leg_placed_under_the_filing_id_and_filled(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        placed = await gw.call(
            "place_option_order", order(gw, [leg(call["id"])], price=ask, direction="debit")
        )
        data = answer_data(placed)
        assert placed["isError"] is False, placed
        assert data["status"] == "submitted"
        [record] = gw.filings()
        assert record.kind == "option_order"
        assert record.terms["legs"] == [
            {
                "option_id": call["id"],
                "underlying": "AAPL",
                "expiry": call["expiration_date"],
                "strike": record.terms["legs"][0]["strike"],
                "type": "call",
                "side": "buy",
                "position_effect": "open",
                "ratio": 1,
            }
        ]
        assert Decimal(record.terms["legs"][0]["strike"]) == Decimal(call["strike_price"])
        [sent] = venue_orders(gw)
        assert sent["id"] == data["order_id"]
        await _fill(gw)
        assert gw.ledger.filing(record.id).status is FilingStatus.FILLED
        [sent] = venue_orders(gw)
        paid = Decimal(sent["processed_premium"])
        assert gw.ledger.rolling_spend(gw.account).notional == paid


async def test_the_built_in_trader_may_not_place_option_orders(tmp_path: Path) -> None:
    async with gateway(tmp_path, live=True, account_type="margin", option_level=3) as gw:
        call = near_money(gw, "call")
        error = await gw.refusal(
            "place_option_order", order(gw, [leg(call["id"])], price=CENT, direction="debit")
        )
        filings = gw.filings()
    assert error["code"] == "PROFILE_REFUSED"
    assert "(options.place)" in error["message"]
    assert filings == []


async def test_on_paper_an_option_order_is_filed_placed_on_the_paper_book_and_never_sent(
    tmp_path: Path,
) -> None:
    # Paper is the venue's own engine, options desk included (issue 24): an option order is
    # filed and placed on the paper book like any other, and the venue itself sees nothing.
    async with option_gateway(tmp_path, live=False) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        placed = await gw.call(
            "place_option_order", order(gw, [leg(call["id"])], price=ask, direction="debit")
        )
        data = answer_data(placed)
        [record] = gw.filings()
        await gw.settle()
        status = gw.ledger.filing(record.id).status
        venue = gw.guard.venue
        assert isinstance(venue, PaperVenue)
        book = await venue.caller.call("get_option_orders", {"account_number": gw.account})
        sent = venue_orders(gw)
    assert placed["isError"] is False, placed
    assert data["status"] == "submitted" and data["paper"] is True
    assert record.kind == "option_order" and str(record.id) == data["filing_id"]
    assert status is FilingStatus.FILLED
    assert [o["id"] for o in book["orders"]] == [data["order_id"]]
    assert sent == []


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"strategy": "covered_call"}, "ARGUMENT_NOT_FILED"),
        ({"stop_price": "1.00"}, "ARGUMENT_NOT_FILED"),
        ({"market_hours": "regular_hours"}, "ARGUMENT_NOT_FILED"),
        ({"legs": "not a list"}, "INVALID_ORDER"),
        ({"quantity": "1.5"}, "INVALID_ORDER"),
        ({"direction": "sideways"}, "INVALID_ORDER"),
        ({"ref_id": "not-a-uuid"}, "INVALID_ARGUMENT"),
    ],
)
async def test_an_argument_the_filing_cannot_name_is_refused_before_anything_is_filed(
    tmp_path: Path, change: dict[str, Any], code: str
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        arguments = {**order(gw, [leg(call["id"])], price=CENT, direction="debit"), **change}
        error = await gw.refusal("place_option_order", arguments)
        filings = gw.filings()
        sent = venue_orders(gw)
    assert error["code"] == code
    assert filings == [] and sent == []


async def test_a_leg_naming_a_field_the_filing_cannot_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        covered = {**leg(call["id"], "sell"), "covered": True}
        error = await gw.refusal(
            "place_option_order", order(gw, [covered], price=CENT, direction="credit")
        )
        sent = venue_orders(gw)
    assert error["code"] == "ARGUMENT_NOT_FILED"
    assert "`covered` (in legs[0])" in error["message"]
    assert sent == []


async def test_an_option_id_not_in_the_chain_is_refused_and_nothing_is_filed_or_sent(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        error = await gw.refusal(
            "place_option_order",
            order(gw, [leg(str(uuid.uuid4()))], price=CENT, direction="debit"),
        )
        filings = gw.filings()
        sent = venue_orders(gw)
    assert error["code"] == "OPTION_NOT_IN_CHAIN"
    assert filings == [] and sent == []


async def test_legs_on_two_underlyings_are_refused_with_their_own_code(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        aapl = near_money(gw, "call")
        other = near_money(gw, "call", symbol="MSFT")
        error = await gw.refusal(
            "place_option_order",
            order(gw, [leg(aapl["id"]), leg(other["id"], "sell")], price=CENT, direction="debit"),
        )
        sent = venue_orders(gw)
    assert error["code"] == "OPTION_LEGS_MIXED_UNDERLYINGS"
    assert sent == []


async def test_a_fifth_leg_is_refused_with_its_own_code(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        calls = contracts(gw, "call")[:5]
        error = await gw.refusal(
            "place_option_order",
            order(gw, [leg(c["id"]) for c in calls], price=CENT, direction="debit"),
        )
        sent = venue_orders(gw)
    assert error["code"] == "OPTION_LEGS_TOO_MANY"
    assert sent == []


@pytest.mark.parametrize("live", [True, False], ids=["live", "paper"])
async def test_an_own_option_order_is_cancelled_through_the_guard_and_its_hold_released(
    tmp_path: Path, live: bool
) -> None:
    async with option_gateway(tmp_path, live=live) as gw:
        put = near_money(gw, "put")
        bid, _ = quote(gw, put["id"])
        resting = (bid * Decimal("0.8")).quantize(CENT)  # under the ask: it rests
        placed = await gw.call(
            "place_option_order", order(gw, [leg(put["id"])], price=resting, direction="debit")
        )
        order_id = answer_data(placed)["order_id"]
        held = gw.ledger.rolling_spend(gw.account).notional
        cancelled = await gw.call(
            "cancel_option_order", {"account_number": gw.account, "order_id": order_id}
        )
        [record] = gw.filings()
        released = gw.ledger.rolling_spend(gw.account).notional
        [sent] = await account_orders(gw)  # the venue's live, the paper book's on paper
    assert held == resting * HUNDRED
    assert cancelled["isError"] is False and answer_data(cancelled) == {"accepted": True}
    assert gw.ledger.filing(record.id).status is FilingStatus.CANCELLED
    assert sent["state"] in ("cancelled", "canceled")
    assert released == 0


async def test_a_review_the_filing_could_name_is_forwarded_and_places_nothing(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        arguments = order(gw, [leg(call["id"])], price=ask, direction="debit")
        reviewed = await gw.call("review_option_order", arguments)
        refused = await gw.refusal("review_option_order", {**arguments, "strategy": "covered"})
        sent = venue_orders(gw)
        filings = gw.filings()
    assert reviewed["isError"] is False, reviewed
    assert reviewed["structuredContent"]["data"]["order_checks"]["alertType"] == "none"
    assert refused["code"] == "ARGUMENT_NOT_FILED"
    assert sent == [] and filings == []


async def test_a_single_leg_market_order_is_priced_at_the_far_side_and_filed(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        arguments = order(gw, [leg(call["id"])], price=None, direction="debit")
        del arguments["direction"]  # a single leg's direction is its side's
        placed = await gw.call("place_option_order", arguments)
        [record] = gw.filings()
    assert answer_data(placed)["status"] == "submitted", answer_data(placed)
    assert record.terms["type"] == "market" and record.terms["direction"] == "debit"
    assert "limit_price" not in record.terms


@pytest.mark.parametrize(
    ("legs", "code"),
    [
        (["not an object"], "INVALID_ORDER"),
        ([{"side": "buy", "position_effect": "open"}], "INVALID_ORDER"),
        ([{"option_id": "x", "side": "sideways", "position_effect": "open"}], "INVALID_ORDER"),
    ],
)
async def test_a_leg_the_filing_cannot_read_is_refused_before_anything_is_filed(
    tmp_path: Path, legs: list[Any], code: str
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        if legs and isinstance(legs[0], dict) and legs[0].get("option_id") == "x":
            legs = [{**legs[0], "option_id": call["id"]}]
        arguments = order(gw, [leg(call["id"])], price=CENT, direction="debit")
        error = await gw.refusal("place_option_order", {**arguments, "legs": legs})
        filings = gw.filings()
    assert error["code"] == code
    assert filings == []


async def test_a_spread_at_level_2_is_refused_by_the_venue_at_review_and_nothing_placed(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path, level=2) as gw:
        legs = [leg(near_money(gw, "call")["id"]), leg(near_money(gw, "call", 2)["id"], "sell")]
        net = natural(gw, legs)
        placed = await gw.call(
            "place_option_order", order(gw, legs, price=net.quantize(CENT), direction="debit")
        )
        sent = venue_orders(gw)
        spent = gw.ledger.rolling_spend(gw.account, kind="option_order").notional
    data = answer_data(placed)
    assert data["status"] == "rejected", data
    assert data["reasons"] == ["broker_refused"]
    assert sent == [] and spent == 0

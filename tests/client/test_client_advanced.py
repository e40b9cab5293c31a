"""The typed advanced (OCO bracket) order tools: listed by the venue, answered "cannot be found"."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

import anyio
import pytest
from client_testkit import StubCaller, json_rpc_caller
from pydantic import ValidationError
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.advanced import AdvancedClient, AdvancedOrderRequest, AdvancedOrdersRequest
from ordergate.core import MarketHours, Side, TimeInForce

SINCE = datetime(2026, 11, 1, tzinfo=UTC)
REF = UUID("0b7e5b8e-6a43-4e0f-9d56-2f4a8f1c2d3e")


def _bracket(account: str, **changes: Any) -> AdvancedOrderRequest:
    fields: dict[str, Any] = {
        "account_number": account,
        "symbol": "AAPL",
        "side": Side.SELL,
        "quantity": Decimal(1),
        "take_profit_limit_price": Decimal("300.00"),
        "stop_loss_stop_price": Decimal("250.00"),
        "ref_id": REF,
    }
    fields.update(changes)
    return AdvancedOrderRequest.model_validate(fields)


# -- over the wire ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_every_advanced_tool_answers_not_found_as_a_business_error(
    sandbox: VenueClient,
) -> None:
    account = sandbox.agentic_account()["account_number"]
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            client = AdvancedClient(caller)
            calls: tuple[Callable[[], Awaitable[object]], ...] = (
                lambda: client.review_order(_bracket(account, time_in_force=TimeInForce.GTC)),
                lambda: client.place_order(
                    _bracket(account, market_hours=MarketHours.REGULAR_HOURS)
                ),
                lambda: client.cancel_order(account, str(REF)),
                lambda: client.orders(account, contingency_type="oco", created_at_gte=SINCE),
            )
            raised: list[BusinessError] = []
            for call in calls:
                with pytest.raises(BusinessError) as caught:
                    await call()
                raised.append(caught.value)
            with pytest.raises(BusinessError) as walked:
                async for _ in client.iter_orders(account):
                    pass
    assert [(error.code, error.tool) for error in [*raised, walked.value]] == [
        ("NOT_FOUND", "review_advanced_order"),
        ("NOT_FOUND", "place_advanced_order"),
        ("NOT_FOUND", "cancel_advanced_order"),
        ("NOT_FOUND", "get_advanced_orders"),
        ("NOT_FOUND", "get_advanced_orders"),
    ]


@pytest.mark.anyio
async def test_a_malformed_call_is_refused_before_the_tool_is_looked_up(
    sandbox: VenueClient,
) -> None:
    account = sandbox.agentic_account()["account_number"]
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await AdvancedClient(caller).cancel_order(account, "not-a-uuid")
    assert (raised.value.code, raised.value.field) == ("INVALID_ARGUMENT", "order_id")


# -- requests --------------------------------------------------------------------------------


def test_a_bracket_goes_out_with_decimal_strings_and_review_leaves_out_the_ref_id() -> None:
    request = _bracket("5QR", quantity="0.5", take_profit_limit_price=310, time_in_force="gtc")
    assert request.arguments() == {
        "account_number": "5QR",
        "symbol": "AAPL",
        "side": "sell",
        "quantity": "0.5",
        "take_profit_limit_price": "310",
        "stop_loss_stop_price": "250.00",
        "time_in_force": "gtc",
        "ref_id": str(REF),
    }
    assert "ref_id" not in request.review_arguments()
    fresh = AdvancedOrderRequest.model_validate(
        {k: v for k, v in request.model_dump().items() if k != "ref_id"}
    )
    assert fresh.ref_id != REF and fresh.ref_id.version == 4
    assert AdvancedOrdersRequest(
        account_number="5QR", created_at_gte=datetime(2026, 12, 1, tzinfo=UTC)
    ).arguments() == {"account_number": "5QR", "created_at_gte": "2026-12-01T00:00:00Z"}


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"quantity": 0}, ("quantity",)),
        ({"quantity": 1.5}, ("quantity",)),
        ({"stop_loss_stop_price": "-1"}, ("stop_loss_stop_price",)),
        ({"take_profit_limit_price": "240"}, ("take_profit_limit_price",)),
        ({"side": "buy"}, ("take_profit_limit_price",)),
        ({"side": "hold"}, ("side",)),
        ({"time_in_force": "ioc"}, ("time_in_force",)),
        ({"market_hours": "overnight"}, ("market_hours",)),
        ({"account_number": ""}, ("account_number",)),
        ({"ref_id": "not-a-uuid"}, ("ref_id",)),
        ({"type": "limit"}, ("type",)),
    ],
)
def test_bracket_requests_refuse_naming_the_field(
    changes: dict[str, Any], loc: tuple[str, ...]
) -> None:
    with pytest.raises(ValidationError) as raised:
        _bracket("5QR", **changes)
    assert tuple(raised.value.errors()[0]["loc"]) == loc


def test_a_buy_bracket_takes_profit_below_its_stop() -> None:
    request = _bracket("5QR", side="buy", take_profit_limit_price="200", stop_loss_stop_price="260")
    assert request.arguments()["side"] == "buy"


# -- responses -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_answers_keep_what_the_venue_sends_and_read_amounts_as_decimals() -> None:
    stub = StubCaller(
        {"checks": ["ok"]},
        {"order": {"id": "o1", "quantity": 2, "take_profit_limit_price": "310.5"}},
        {"id": "o1", "state": "cancelled"},
        {"orders": [{"id": "o1"}], "next": "p2"},
        {"orders": [{"id": "o2"}], "next": None},
    )
    client = AdvancedClient(stub)
    review = await client.review_order(_bracket("5QR"))
    placed = await client.place_order(_bracket("5QR"))
    cancelled = await client.cancel_order("5QR", "o1")
    ids = [order.id async for order in client.iter_orders("5QR")]
    assert review.model_extra == {"checks": ["ok"]}
    assert (placed.quantity, placed.take_profit_limit_price) == (Decimal(2), Decimal("310.5"))
    assert cancelled.state == "cancelled"
    assert ids == ["o1", "o2"]
    assert stub.calls[2] == ("cancel_advanced_order", {"account_number": "5QR", "order_id": "o1"})
    assert stub.calls[4] == ("get_advanced_orders", {"account_number": "5QR", "cursor": "p2"})


@pytest.mark.anyio
async def test_an_unparseable_order_amount_is_a_parse_error_naming_it() -> None:
    stub = StubCaller({"order": {"id": "o1", "stop_loss_stop_price": "soon"}})
    with pytest.raises(ResponseParseError) as raised:
        await AdvancedClient(stub).place_order(_bracket("5QR"))
    assert (raised.value.field, raised.value.tool) == (
        "stop_loss_stop_price",
        "place_advanced_order",
    )

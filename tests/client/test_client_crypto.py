"""The typed crypto tools: against the venue over loopback, and against scripted answers."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import anyio
import pytest
from client_testkit import ScriptedCaller, json_rpc_caller, refused_field, rhs_account_number, venue
from pydantic import ValidationError
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.crypto import CryptoClient, CryptoOrderRequest
from ordergate.core import CryptoOrderState, CryptoOrderType, CryptoTimeInForce, Side

RHS = "5PY7824100"


def _request(**terms: Any) -> CryptoOrderRequest:
    fields: dict[str, Any] = {
        "rhs_account_number": RHS,
        "symbol": "BTC-USD",
        "side": Side.BUY,
        "type": CryptoOrderType.MARKET,
        "quantity": Decimal("0.01"),
    }
    fields.update(terms)
    return CryptoOrderRequest(**fields)


# -- round trips through the venue -----------------------------------------------------------


@pytest.mark.anyio
async def test_pairs_are_listed_page_by_page_and_quoted(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            crypto = CryptoClient(caller)
            first = await crypto.pairs(limit=3)
            pairs = [pair async for pair in crypto.iter_pairs(limit=3)]
            quotes = await crypto.quotes(
                ["BTC-USD", "ETH", "NOPE-USD"], rhs_account_number=rhs_account_number(sandbox)
            )
    assert len(first.results) == 3 and first.next is not None
    assert len(pairs) == len({p.id for p in pairs}) == 10
    btc = next(p for p in pairs if p.symbol == "BTC-USD")
    assert (btc.asset_currency.code, btc.min_order_size) == ("BTC", Decimal("0.000001"))
    assert [q.symbol for q in quotes.results] == ["BTC-USD", "ETH-USD"]
    assert quotes.not_found == ["NOPE-USD"]
    assert all(q.ask_price >= q.bid_price > 0 for q in quotes.results)


@pytest.mark.anyio
async def test_a_market_buy_is_previewed_placed_filled_and_held(sandbox: VenueClient) -> None:
    rhs = rhs_account_number(sandbox)
    request = _request(rhs_account_number=rhs, symbol="ETH-USD", quantity=Decimal("0.5"))
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            crypto = CryptoClient(caller)
            preview = await crypto.preview_order(request)
            placed = await crypto.place_order(request)
            assert placed.order is not None
            sandbox.step(10)
            filled = await crypto.order(rhs, placed.order.id)
            positions = [p async for p in crypto.iter_positions(rhs)]
            closed = [o.id async for o in crypto.iter_orders(rhs, state_group="closed")]
    assert preview.order_checks is not None and preview.order_checks.passed is True
    assert preview.estimated_cost is not None and preview.estimated_cost > 0
    assert preview.quote is not None and preview.quote.currency_pair_id is not None
    assert (placed.ref_id, placed.order.state) == (str(request.ref_id), CryptoOrderState.QUEUED)
    assert filled.state is CryptoOrderState.FILLED and filled.is_terminal
    assert filled.cumulative_quantity == Decimal("0.5") and filled.executions
    eth = next(p for p in positions if p.currency_code == "ETH")
    assert eth.quantity == Decimal("0.5") and eth.market_value is not None
    assert filled.id in closed


@pytest.mark.anyio
async def test_a_resting_limit_is_canceled_with_crypto_spelling_and_once_only(
    sandbox: VenueClient,
) -> None:
    rhs = rhs_account_number(sandbox)
    request = _request(
        rhs_account_number=rhs,
        symbol="SOL-USD",
        type=CryptoOrderType.LIMIT,
        quantity=1,
        limit_price=Decimal("1.000"),
        time_in_force=CryptoTimeInForce.GTC,
    )
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            crypto = CryptoClient(caller)
            placed = await crypto.place_order(request)
            assert placed.order is not None
            sandbox.step(2)
            open_ids = [o.id async for o in crypto.iter_orders(rhs, state_group="open")]
            canceled = await crypto.cancel_order(rhs, placed.order.id)
            with pytest.raises(BusinessError) as raised:
                await crypto.cancel_order(rhs, placed.order.id)
    assert placed.order.id in open_ids
    assert (canceled.id, canceled.state) == (placed.order.id, CryptoOrderState.CANCELED)
    assert raised.value.tool == "cancel_crypto_order"


@pytest.mark.anyio
async def test_selling_more_than_is_held_is_a_business_error(sandbox: VenueClient) -> None:
    request = _request(
        rhs_account_number=rhs_account_number(sandbox), symbol="DOGE", side=Side.SELL, quantity=5
    )
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await CryptoClient(caller).place_order(request)
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_HOLDINGS", "quantity")


@pytest.mark.anyio
async def test_a_dollar_buy_is_sized_by_the_venue() -> None:
    with venue(approval_required=True) as sandbox, anyio.fail_after(30):
        rhs = rhs_account_number(sandbox)
        request = _request(rhs_account_number=rhs, quantity=None, dollar_amount="250.00")
        async with json_rpc_caller(sandbox) as caller:
            crypto = CryptoClient(caller)
            preview = await crypto.preview_order(request)
            placed = await crypto.place_order(request)
    assert preview.dollar_amount == Decimal("250.00") and preview.customer_approval_required
    assert preview.quantity is not None and 0 < preview.quantity < 1
    assert placed.order is None and placed.approval is not None
    assert placed.approval.proposed_order is not None
    assert placed.approval.proposed_order.dollar_amount is not None
    assert placed.approval.proposed_order.dollar_amount.amount == Decimal("250.00")


# -- the request model -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "field"),
    [
        ({"quantity": None}, "quantity"),
        ({"dollar_amount": 10}, "dollar_amount"),
        ({"type": "limit", "quantity": None, "dollar_amount": 10, "limit_price": 5},
         "dollar_amount"),
        ({"type": "limit"}, "limit_price"),
        ({"type": "stop_limit", "stop_price": 5}, "limit_price"),
        ({"limit_price": 5}, "limit_price"),
        ({"type": "stop_loss"}, "stop_price"),
        ({"type": "limit", "limit_price": 5, "stop_price": 4}, "stop_price"),
        ({"type": "stop_market", "stop_price": 4}, "type"),
        ({"time_in_force": "ioc"}, "time_in_force"),
        ({"quantity": "-0.1"}, "quantity"),
        ({"quantity": 0.1}, "quantity"),
        ({"tax_lots": []}, "tax_lots"),
        ({"account_number": "1"}, "account_number"),
    ],
)  # fmt: skip
@pytest.mark.req("client.requests.reject-inapplicable-fields")
def test_each_crypto_order_rule_refuses_naming_the_field_at_fault(
    terms: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        _request(**terms)
    assert refused_field(raised.value) == field


def test_crypto_orders_go_out_as_strings_with_unset_fields_omitted() -> None:
    stop = _request(
        type=CryptoOrderType.STOP_LIMIT,
        quantity=Decimal("0.00010000"),
        limit_price=Decimal("99000.00"),
        stop_price=Decimal("100000"),
        time_in_force=CryptoTimeInForce.GFW,
    )
    assert stop.arguments() == {
        "rhs_account_number": RHS,
        "symbol": "BTC-USD",
        "side": "buy",
        "type": "stop_limit",
        "quantity": "0.00010000",
        "limit_price": "99000.00",
        "stop_price": "100000",
        "time_in_force": "gfw",
        "ref_id": str(stop.ref_id),
    }
    assert "ref_id" not in stop.preview_arguments()
    assert _request(type=CryptoOrderType.STOP_LOSS, stop_price=1).arguments()["type"] == "stop_loss"


# -- reading answers -------------------------------------------------------------------------


def _order(**overrides: Any) -> dict[str, Any]:
    order: dict[str, Any] = {
        "id": "c-1",
        "ref_id": "0f4b8e7c-2d1a-4c3e-9b5f-6a7d8c9e0f1a",
        "rhs_account_number": RHS,
        "symbol": "BTC-USD",
        "side": "buy",
        "type": "market",
        "state": "confirmed",
        "quantity": "0.01",
        "cumulative_quantity": "0",
        "dollar_amount": None,
        "limit_price": None,
        "average_price": None,
        "fees": "0.00",
        "created_at": "2026-12-01T15:00:00.000000Z",
        "executions": [],
    }
    order.update(overrides)
    return order


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("wire", "read"),
    [("1.5", Decimal("1.5")), (Decimal("1.5"), Decimal("1.5")), (2, Decimal(2)), ("", None),
     (None, None)],
)  # fmt: skip
async def test_crypto_amounts_read_from_strings_numbers_or_blanks(
    wire: object, read: Decimal | None
) -> None:
    caller = ScriptedCaller({"get_crypto_orders": {"orders": [_order(average_price=wire)]}})
    (order,) = (await CryptoClient(caller).orders(RHS)).orders
    assert order.average_price == read


@pytest.mark.anyio
@pytest.mark.parametrize("wire", ["n/a", {"amount": "1"}, False])
async def test_an_unreadable_crypto_amount_is_a_parse_error_naming_the_field(wire: object) -> None:
    caller = ScriptedCaller({"get_crypto_orders": {"orders": [_order(limit_price=wire)]}})
    with pytest.raises(ResponseParseError) as raised:
        await CryptoClient(caller).orders(RHS)
    assert (raised.value.field, raised.value.tool) == ("orders[0].limit_price", "get_crypto_orders")


@pytest.mark.anyio
async def test_an_unknown_crypto_state_is_kept_and_counts_as_open() -> None:
    caller = ScriptedCaller({"get_crypto_orders": {"orders": [_order(state="cancelled")]}})
    (order,) = (await CryptoClient(caller).orders(RHS)).orders
    assert (order.state, order.is_terminal) == ("cancelled", False)


@pytest.mark.anyio
async def test_crypto_filters_go_out_as_the_wire_spells_them() -> None:
    caller = ScriptedCaller(
        {
            "get_crypto_orders": {"orders": [], "next": ""},
            "get_crypto_positions": {"positions": None},
            "get_currency_pairs": {"results": []},
            "get_crypto_quotes": {"results": [], "not_found": None},
        }
    )
    crypto = CryptoClient(caller)
    since = datetime(2026, 12, 1, 15, tzinfo=UTC)
    await crypto.orders(
        RHS,
        order_id="c-1",
        side=Side.SELL,
        state=CryptoOrderState.CANCELED,
        symbol="BTC-USD",
        created_at_gte=since,
        updated_at_gte=since,
        cursor="n",
    )
    positions = await crypto.positions(RHS, cursor="p")
    pairs = await crypto.pairs()
    quotes = await crypto.quotes(["BTC"], timezone="UTC")
    assert [args for _, args in caller.calls] == [
        {
            "rhs_account_number": RHS,
            "order_id": "c-1",
            "side": "sell",
            "state": "canceled",
            "symbol": "BTC-USD",
            "created_at_gte": "2026-12-01T15:00:00Z",
            "updated_at_gte": "2026-12-01T15:00:00Z",
            "cursor": "n",
        },
        {"rhs_account_number": RHS, "cursor": "p"},
        {},
        {"symbols": ["BTC"], "timezone": "UTC"},
    ]
    assert (positions.positions, pairs.results, quotes.not_found) == ([], [], [])


@pytest.mark.anyio
async def test_crypto_refusals_and_odd_answers_are_raised_not_returned() -> None:
    crypto = CryptoClient(
        ScriptedCaller(
            {
                "place_crypto_order": {"order": _order(state="rejected", reject_reason="No.")},
                "cancel_crypto_order": {"accepted": True},
                "get_crypto_orders": {"orders": []},
            }
        )
    )
    with pytest.raises(BusinessError) as rejected:
        await crypto.place_order(_request())
    with pytest.raises(ResponseParseError) as cancelled:
        await crypto.cancel_order(RHS, "c-1")
    with pytest.raises(ResponseParseError):
        await crypto.order(RHS, "c-1")
    assert rejected.value.code == "ORDER_REJECTED"
    assert (cancelled.value.field, cancelled.value.tool) == ("order", "cancel_crypto_order")

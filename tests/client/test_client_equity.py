"""The typed equity tools: against the venue over loopback, and against scripted answers."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

import anyio
import pytest
from client_testkit import ScriptedCaller, account_number, json_rpc_caller, refused_field, venue
from pydantic import ValidationError
from venue_testkit import VenueClient

from ordergate.client._errors import BusinessError, ResponseParseError, TransportError
from ordergate.client._pages import PaginationError
from ordergate.client.equity import (
    EquityClient,
    EquityOrder,
    EquityOrderRequest,
    PlaceResult,
    TaxLotPick,
)
from ordergate.core import MarketHours, OrderState, OrderType, PlacedAgent, Side, TimeInForce

ORDER_ID = "5a1d7a4e-0000-4000-8000-000000000001"


def _request(**terms: Any) -> EquityOrderRequest:
    fields: dict[str, Any] = {
        "account_number": "5PY78241",
        "symbol": "AAPL",
        "side": Side.BUY,
        "type": OrderType.MARKET,
    }
    fields.update(terms)
    return EquityOrderRequest(**fields)


# -- round trips through the venue -----------------------------------------------------------


@pytest.mark.anyio
async def test_a_limit_buy_is_reviewed_placed_confirmed_and_cancelled(
    sandbox: VenueClient,
) -> None:
    number = account_number(sandbox)
    request = _request(
        account_number=number,
        symbol="MSFT",
        type=OrderType.LIMIT,
        quantity=2,
        limit_price=Decimal("100.00"),
        time_in_force=TimeInForce.GTC,
    )
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            review = await equity.review_order(request)
            placed = await equity.place_order(request)
            sandbox.step(2)
            confirmed = await equity.order(number, placed.order.id if placed.order else "")
            await equity.cancel_order(number, confirmed.id)
            cancelled = await equity.order(number, confirmed.id)
            with pytest.raises(BusinessError) as raised:
                await equity.cancel_order(number, confirmed.id)
    assert review.order_checks.passed is True
    assert (review.symbol, review.side, review.limit_price) == ("MSFT", Side.BUY, Decimal("100"))
    assert review.quote_data is not None and review.quote_data.ask_price > 0
    assert placed.approval is None and placed.order is not None
    assert placed.ref_id == str(request.ref_id) == placed.order.ref_id
    assert (placed.order.state, placed.order.price) == (OrderState.QUEUED, Decimal("100.00"))
    assert confirmed.state is OrderState.CONFIRMED and not confirmed.is_terminal
    assert cancelled.state is OrderState.CANCELLED and cancelled.is_terminal
    assert (raised.value.code, raised.value.field) == ("ORDER_NOT_CANCELLABLE", "order_id")


@pytest.mark.anyio
async def test_a_market_buy_fills_and_a_sale_of_one_named_tax_lot_closes_part_of_it(
    sandbox: VenueClient,
) -> None:
    number = account_number(sandbox)
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            bought = await equity.place_order(
                _request(account_number=number, symbol="NVDA", quantity=3)
            )
            assert bought.order is not None
            sandbox.step(5)
            filled = await equity.order(number, bought.order.id)
            positions = [p async for p in equity.iter_positions(number)]
            lots = [lot async for lot in equity.iter_tax_lots(number, "NVDA")]
            pick = TaxLotPick(open_lot_id=lots[0].open_lot_id, quantity=1)
            sold = await equity.place_order(
                _request(
                    account_number=number,
                    symbol="NVDA",
                    side=Side.SELL,
                    quantity=1,
                    tax_lots=[pick],
                )
            )
            assert sold.order is not None
            sandbox.step(5)
            sale = await equity.order(number, sold.order.id)
            left = await equity.tax_lots(number, "NVDA")
    assert (filled.state, filled.cumulative_quantity) == (OrderState.FILLED, Decimal(3))
    assert sum(e.quantity for e in filled.executions) == 3
    assert filled.average_price is not None and filled.average_price > 0
    nvda = next(p for p in positions if p.symbol == "NVDA")
    assert (nvda.quantity, nvda.shares_available_for_sells) == (Decimal(3), Decimal(3))
    assert [lot.quantity for lot in lots] == [Decimal(3)]
    assert sale.state is OrderState.FILLED and sale.fees > 0
    assert (left.symbol, [lot.quantity for lot in left.tax_lots]) == ("NVDA", [Decimal(2)])


@pytest.mark.anyio
async def test_a_dollar_amount_buys_a_fraction_of_a_share(sandbox: VenueClient) -> None:
    number = account_number(sandbox)
    request = _request(account_number=number, symbol="AMZN", dollar_amount=Decimal("100.00"))
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            placed = await equity.place_order(request)
            assert placed.order is not None
            sandbox.step(5)
            filled = await equity.order(number, placed.order.id)
    assert placed.order.dollar_based_amount is not None
    assert placed.order.dollar_based_amount.amount == Decimal("100.00")
    assert filled.state is OrderState.FILLED
    assert filled.quantity is not None and 0 < filled.quantity < 1


@pytest.mark.anyio
async def test_tradability_answers_for_listed_symbols_and_names_the_unknown(
    sandbox: VenueClient,
) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            result = await EquityClient(caller).tradability(
                account_number(sandbox), ["AAPL", "ZZZZZ"]
            )
    assert [(r.symbol, r.tradeable) for r in result.results] == [("AAPL", True)]
    assert result.not_found == ["ZZZZZ"]


@pytest.mark.anyio
@pytest.mark.req("client.errors.business-failures-raise")
async def test_an_order_beyond_buying_power_raises_a_business_error_and_places_nothing(
    sandbox: VenueClient,
) -> None:
    number = account_number(sandbox)
    request = _request(
        account_number=number,
        symbol="META",
        type=OrderType.LIMIT,
        quantity=1000,
        limit_price=Decimal("500.00"),
    )
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            with pytest.raises(BusinessError) as raised:
                await equity.place_order(request)
            orders = [o async for o in equity.iter_orders(number, symbol="META")]
    assert (raised.value.code, raised.value.tool) == (
        "INSUFFICIENT_BUYING_POWER",
        "place_equity_order",
    )
    assert orders == []


@pytest.mark.anyio
async def test_selling_shares_the_account_does_not_hold_is_refused(sandbox: VenueClient) -> None:
    request = _request(
        account_number=account_number(sandbox), symbol="GOOG", side=Side.SELL, quantity=5
    )
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            with pytest.raises(BusinessError) as raised:
                await EquityClient(caller).review_order(request)
    assert (raised.value.code, raised.value.field) == ("INSUFFICIENT_SHARES", "quantity")


@pytest.mark.anyio
async def test_a_rejected_order_reads_back_rejected_with_its_reason() -> None:
    with venue() as sandbox, anyio.fail_after(30):
        number = account_number(sandbox)
        sandbox.faults(reject_orders=1, reject_reason="Halted for news.")
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            placed = await equity.place_order(_request(account_number=number, quantity=1))
            assert placed.order is not None
            sandbox.step(2)
            rejected = await equity.order(number, placed.order.id)
            states = [o.state async for o in equity.iter_orders(number, state=OrderState.REJECTED)]
    assert (rejected.state, rejected.reject_reason) == (OrderState.REJECTED, "Halted for news.")
    assert rejected.is_terminal and states == [OrderState.REJECTED]


@pytest.mark.anyio
async def test_a_place_whose_answer_was_lost_is_retried_with_its_ref_id_into_one_order() -> None:
    with venue() as sandbox, anyio.fail_after(30):
        number = account_number(sandbox)
        request = _request(
            account_number=number, type=OrderType.LIMIT, quantity=1, limit_price=Decimal("50.00")
        )
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            sandbox.faults(drop_after=1)
            with pytest.raises(TransportError):
                await equity.place_order(request)
            retried = await equity.place_order(request)
            orders = [o async for o in equity.iter_orders(number)]
    assert retried.order is not None and retried.order.ref_id == str(request.ref_id)
    assert [o.id for o in orders] == [retried.order.id]


@pytest.mark.anyio
async def test_with_trade_approval_on_place_returns_an_approval_and_no_order() -> None:
    with venue(approval_required=True) as sandbox, anyio.fail_after(30):
        number = account_number(sandbox)
        request = _request(account_number=number, symbol="MSFT", quantity=2)
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            review = await equity.review_order(request)
            placed = await equity.place_order(request)
            orders = await equity.orders(number)
    assert review.customer_approval_required is True
    assert placed.order is None and placed.needs_approval and placed.approval is not None
    proposed = placed.approval.proposed_order
    assert (placed.approval.account_number, placed.approval.asset_class) == (number, "equity")
    assert proposed is not None and (proposed.symbol, proposed.quantity) == ("MSFT", Decimal(2))
    assert proposed.estimated_cost is not None and proposed.estimated_cost.amount > 0
    assert orders.orders == [] and orders.next is None


@pytest.mark.anyio
async def test_iter_orders_drains_every_page_and_stops_at_its_page_bound() -> None:
    with venue() as sandbox, anyio.fail_after(60):
        number = account_number(sandbox)
        async with json_rpc_caller(sandbox) as caller:
            equity = EquityClient(caller)
            for _ in range(52):
                await equity.place_order(
                    _request(
                        account_number=number,
                        type=OrderType.LIMIT,
                        quantity=1,
                        limit_price=Decimal("1.00"),
                    )
                )
            first = await equity.orders(number)
            second = await equity.orders(number, cursor=first.next)
            every = [
                o.id async for o in equity.iter_orders(number, placed_agent=PlacedAgent.AGENTIC)
            ]
            with pytest.raises(PaginationError) as raised:
                _ = [o async for o in equity.iter_orders(number, max_pages=1)]
    assert (len(first.orders), len(second.orders), second.next) == (50, 2, None)
    assert first.next is not None
    assert len(set(every)) == len(every) == 52
    assert (raised.value.code, raised.value.tool) == ("page_limit", "get_equity_orders")


# -- the request model -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "field"),
    [
        ({}, "quantity"),
        ({"quantity": 1, "dollar_amount": 10}, "dollar_amount"),
        ({"type": "limit", "dollar_amount": 10, "limit_price": 5}, "dollar_amount"),
        ({"type": "limit", "quantity": 1}, "limit_price"),
        ({"type": "stop_limit", "quantity": 1, "stop_price": 5}, "limit_price"),
        ({"quantity": 1, "limit_price": 5}, "limit_price"),
        ({"type": "stop_market", "quantity": 1}, "stop_price"),
        ({"type": "limit", "quantity": 1, "limit_price": 5, "stop_price": 4}, "stop_price"),
        ({"quantity": 1, "market_hours": "extended_hours"}, "market_hours"),
        ({"type": "stop_market", "quantity": 1, "stop_price": 5, "market_hours": "all_day_hours"},
         "market_hours"),
        ({"type": "limit", "quantity": "0.5", "limit_price": 5}, "quantity"),
        ({"quantity": "0.5", "market_hours": "extended_hours"}, "market_hours"),
        ({"dollar_amount": "25", "market_hours": "all_day_hours"}, "market_hours"),
        ({"quantity": "0.0000001"}, "quantity"),
        ({"quantity": 0}, "quantity"),
        ({"quantity": "-3"}, "quantity"),
        ({"quantity": "n/a"}, "quantity"),
        ({"quantity": 1.5}, "quantity"),
        ({"quantity": True}, "quantity"),
        ({"quantity": ""}, "quantity"),
        ({"type": "limit", "quantity": 1, "limit_price": "0"}, "limit_price"),
        ({"quantity": 2, "tax_lots": [{"open_lot_id": "L1", "quantity": 2}]}, "tax_lots"),
        ({"side": "sell", "dollar_amount": 20, "tax_lots": [{"open_lot_id": "L1", "quantity": 2}]},
         "tax_lots"),
        ({"side": "sell", "quantity": 2, "tax_lots": []}, "tax_lots"),
        ({"side": "sell", "quantity": 31,
          "tax_lots": [{"open_lot_id": f"L{i}", "quantity": 1} for i in range(31)]}, "tax_lots"),
        ({"side": "sell", "quantity": 3, "tax_lots": [{"open_lot_id": "L1", "quantity": 2}]},
         "tax_lots"),
        ({"side": "sell", "quantity": 2,
          "tax_lots": [{"open_lot_id": "L1", "quantity": 1}, {"open_lot_id": "L1", "quantity": 1}]},
         "tax_lots[1].open_lot_id"),
        ({"side": "sell", "quantity": 2, "tax_lots": [{"open_lot_id": "L1", "quantity": 0}]},
         "tax_lots[0].quantity"),
        ({"side": "short", "quantity": 1}, "side"),
        ({"type": "trailing_stop", "quantity": 1}, "type"),
        ({"quantity": 1, "time_in_force": "ioc"}, "time_in_force"),
        ({"quantity": 1, "ref_id": "not-a-uuid"}, "ref_id"),
        ({"quantity": 1, "account_number": ""}, "account_number"),
        ({"quantity": 1, "notional": "5"}, "notional"),
    ],
)  # fmt: skip
@pytest.mark.req("client.requests.reject-inapplicable-fields")
def test_each_order_rule_refuses_naming_the_field_at_fault(
    terms: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        _request(**terms)
    assert refused_field(raised.value) == field


@pytest.mark.parametrize(
    "terms",
    [
        {"quantity": "0.5"},
        {"dollar_amount": "25.00", "market_hours": "regular_hours"},
        {"type": "limit", "quantity": 3, "limit_price": "1.5", "market_hours": "extended_hours"},
        {"type": "stop_limit", "quantity": 3, "limit_price": 9, "stop_price": 10},
        {"type": "stop_market", "quantity": 3, "stop_price": 10, "time_in_force": "gtc"},
        {"side": "sell", "quantity": "1.5",
         "tax_lots": [{"open_lot_id": "L1", "quantity": "1"},
                      {"open_lot_id": "L2", "quantity": "0.5"}]},
    ],
)  # fmt: skip
def test_orders_within_the_rules_are_accepted(terms: dict[str, Any]) -> None:
    assert _request(**terms).arguments()["symbol"] == "AAPL"


@pytest.mark.req("client.decimal-rules")
def test_decimals_go_out_as_canonical_strings_and_unset_fields_are_omitted() -> None:
    request = _request(
        type=OrderType.LIMIT, quantity=Decimal("1E+1"), limit_price=Decimal("187.50")
    )
    assert request.arguments() == {
        "account_number": "5PY78241",
        "symbol": "AAPL",
        "side": "buy",
        "type": "limit",
        "quantity": "10",
        "limit_price": "187.50",
        "ref_id": str(request.ref_id),
    }
    assert "ref_id" not in request.review_arguments()
    sell = _request(
        side=Side.SELL,
        quantity=3,
        market_hours=MarketHours.REGULAR_HOURS,
        time_in_force=TimeInForce.GFD,
        tax_lots=[TaxLotPick(open_lot_id="L1", quantity=Decimal("3.0"))],
    )
    arguments = sell.arguments()
    assert arguments["tax_lots"] == [{"open_lot_id": "L1", "quantity": "3.0"}]
    assert (arguments["market_hours"], arguments["time_in_force"]) == ("regular_hours", "gfd")


def test_every_request_carries_its_own_ref_id_unless_one_is_given() -> None:
    given = UUID("0f4b8e7c-2d1a-4c3e-9b5f-6a7d8c9e0f1a")
    assert _request(quantity=1).ref_id != _request(quantity=1).ref_id
    assert _request(quantity=1, ref_id=given).arguments()["ref_id"] == str(given)
    assert _request(dollar_amount=5).is_fractional and not _request(quantity=2).is_fractional


# -- reading answers -------------------------------------------------------------------------


def _order(**overrides: Any) -> dict[str, Any]:
    order: dict[str, Any] = {
        "id": ORDER_ID,
        "ref_id": "0f4b8e7c-2d1a-4c3e-9b5f-6a7d8c9e0f1a",
        "instrument_id": "i-1",
        "symbol": "AAPL",
        "side": "buy",
        "type": "limit",
        "state": "confirmed",
        "quantity": "2",
        "cumulative_quantity": "0",
        "price": "187.50",
        "stop_price": None,
        "average_price": None,
        "fees": "0.00",
        "dollar_based_amount": None,
        "time_in_force": "gfd",
        "market_hours": "regular_hours",
        "trigger": "immediate",
        "placed_agent": "agentic",
        "created_at": "2026-12-01T15:00:00.000000Z",
        "last_transaction_at": None,
        "executions": [],
    }
    order.update(overrides)
    return {key: value for key, value in order.items() if value != "<absent>"}


async def _read_orders(*orders: dict[str, Any], **page: Any) -> list[EquityOrder]:
    caller = ScriptedCaller({"get_equity_orders": {"orders": list(orders), **page}})
    return (await EquityClient(caller).orders("5PY78241")).orders


@pytest.mark.anyio
@pytest.mark.parametrize("wire", ["187.5", Decimal("187.5"), 187.5])
async def test_amounts_read_the_same_from_strings_and_numbers(wire: object) -> None:
    (order,) = await _read_orders(_order(price=wire, cumulative_quantity=1))
    assert (order.price, order.cumulative_quantity) == (Decimal("187.5"), Decimal(1))


@pytest.mark.anyio
@pytest.mark.parametrize("wire", [None, "", "<absent>"])
async def test_absent_null_or_empty_optional_amounts_read_as_none(wire: object) -> None:
    (order,) = await _read_orders(
        _order(price=wire, average_price=wire, cumulative_quantity=wire, executions=None)
    )
    assert (order.price, order.average_price) == (None, None)
    assert (order.cumulative_quantity, order.executions) == (Decimal(0), [])


@pytest.mark.anyio
@pytest.mark.parametrize("wire", ["n/a", {"amount": "1"}, True, [], "NaN"])
@pytest.mark.parametrize("field", ["price", "cumulative_quantity", "fees"])
@pytest.mark.req("client.decimal-rules")
async def test_an_unreadable_amount_is_a_parse_error_naming_the_field(
    wire: object, field: str
) -> None:
    with pytest.raises(ResponseParseError) as raised:
        await _read_orders(_order(), _order(**{field: wire}))
    assert (raised.value.field, raised.value.tool) == (f"orders[1].{field}", "get_equity_orders")


@pytest.mark.anyio
async def test_an_unknown_state_is_kept_as_text_and_counts_as_still_open() -> None:
    (order,) = await _read_orders(_order(state="held_for_review"))
    assert order.state == "held_for_review" and not isinstance(order.state, OrderState)
    assert order.is_terminal is False
    with pytest.raises(ResponseParseError) as raised:
        await _read_orders(_order(state=7))
    assert raised.value.field == "orders[0].state"


@pytest.mark.anyio
async def test_an_empty_next_cursor_means_the_last_page() -> None:
    caller = ScriptedCaller({"get_equity_orders": {"orders": None, "next": ""}})
    page = await EquityClient(caller).orders("5PY78241")
    assert (page.orders, page.next) == ([], None)


@pytest.mark.anyio
async def test_order_filters_go_out_on_the_wire_and_a_naive_time_is_refused() -> None:
    caller = ScriptedCaller({"get_equity_orders": {"orders": [_order()]}})
    equity = EquityClient(caller)
    since = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
    await equity.orders(
        "5PY78241",
        state=OrderState.FILLED,
        symbol="AAPL",
        created_at_gte=since,
        placed_agent=PlacedAgent.AGENTIC,
        cursor="abc",
    )
    assert caller.calls[-1] == (
        "get_equity_orders",
        {
            "account_number": "5PY78241",
            "state": "filled",
            "symbol": "AAPL",
            "created_at_gte": "2026-12-01T15:00:00Z",
            "placed_agent": "agentic",
            "cursor": "abc",
        },
    )
    with pytest.raises(ValueError, match="created_at_gte"):
        await equity.orders("5PY78241", created_at_gte=datetime(2026, 12, 1))


@pytest.mark.anyio
async def test_looking_up_an_order_that_is_not_listed_is_a_parse_error() -> None:
    caller = ScriptedCaller({"get_equity_orders": {"orders": []}})
    with pytest.raises(ResponseParseError) as raised:
        await EquityClient(caller).order("5PY78241", ORDER_ID)
    assert (raised.value.field, raised.value.tool) == ("orders", "get_equity_orders")


@pytest.mark.anyio
@pytest.mark.parametrize(
    "data", [{}, {"order": None, "approval": None}, "placed", {"order": {}, "approval": {}}]
)
async def test_a_place_answer_without_exactly_one_outcome_is_a_parse_error(data: object) -> None:
    caller = ScriptedCaller({"place_equity_order": data})
    with pytest.raises(ResponseParseError) as raised:
        await EquityClient(caller).place_order(_request(quantity=1))
    assert raised.value.tool == "place_equity_order"


@pytest.mark.anyio
async def test_a_place_answer_naming_a_bad_order_field_says_which() -> None:
    caller = ScriptedCaller({"place_equity_order": {"order": _order(fees="free")}})
    with pytest.raises(ResponseParseError) as raised:
        await EquityClient(caller).place_order(_request(quantity=1))
    assert raised.value.field == "order.fees"


@pytest.mark.anyio
@pytest.mark.parametrize("state", ["rejected", "failed"])
@pytest.mark.req("client.errors.business-failures-raise")
async def test_an_order_already_refused_at_placement_raises_instead_of_returning(
    state: str,
) -> None:
    refused = _order(state=state, reject_reason="Price outside the collar.")
    caller = ScriptedCaller({"place_equity_order": {"order": refused}})
    with pytest.raises(BusinessError) as raised:
        await EquityClient(caller).place_order(_request(quantity=1))
    assert (raised.value.code, raised.value.tool) == ("ORDER_REJECTED", "place_equity_order")


@pytest.mark.anyio
async def test_the_place_call_sends_the_request_and_its_ref_id() -> None:
    request = _request(quantity=1)
    caller = ScriptedCaller({"place_equity_order": {"order": _order(ref_id=str(request.ref_id))}})
    placed = await EquityClient(caller).place_order(request)
    assert caller.calls == [("place_equity_order", request.arguments())]
    assert isinstance(placed, PlaceResult) and placed.ref_id == str(request.ref_id)
    with pytest.raises(ValueError, match="exactly one"):
        PlaceResult[EquityOrder](ref_id="r")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("data", "error", "code"),
    [
        ({"accepted": False}, BusinessError, "CANCEL_REFUSED"),
        ({"accepted": "yes"}, ResponseParseError, "parse"),
        ({}, ResponseParseError, "parse"),
        (None, ResponseParseError, "parse"),
    ],
)
async def test_a_cancel_that_is_not_plainly_accepted_raises(
    data: object, error: type[Exception], code: str
) -> None:
    caller = ScriptedCaller({"cancel_equity_order": data})
    with pytest.raises(error) as raised:
        await EquityClient(caller).cancel_order("5PY78241", ORDER_ID)
    assert getattr(raised.value, "code", None) == code

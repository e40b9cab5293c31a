"""The typed option tools: against the venue over loopback, and against scripted answers."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_CEILING, Decimal
from typing import Any

import anyio
import pytest
from client_testkit import ScriptedCaller, account_number, json_rpc_caller, refused_field, venue
from pydantic import ValidationError
from venue_testkit import START, VenueClient

from ordergate.client._caller import Caller
from ordergate.client._errors import BusinessError, ResponseParseError
from ordergate.client.options import (
    OptionInstrument,
    OptionLegRequest,
    OptionOrderRequest,
    OptionsClient,
    OptionType,
    PositionType,
)
from ordergate.core import (
    OptionDirection,
    OptionPositionEffect,
    OrderState,
    OrderType,
    PlacedAgent,
    Side,
    TimeInForce,
)

ACCOUNT = "5PY78241"
OPTION_A = "6c3e3a1e-0000-4000-8000-00000000000a"
OPTION_B = "6c3e3a1e-0000-4000-8000-00000000000b"


def _leg(option_id: str = OPTION_A, side: Side = Side.BUY, **more: Any) -> OptionLegRequest:
    return OptionLegRequest(
        option_id=option_id, side=side, position_effect=OptionPositionEffect.OPEN, **more
    )


def _request(**terms: Any) -> OptionOrderRequest:
    fields: dict[str, Any] = {
        "account_number": ACCOUNT,
        "legs": [_leg()],
        "quantity": 1,
        "price": Decimal("2.35"),
    }
    fields.update(terms)
    return OptionOrderRequest(**fields)


def _above(price: Decimal, contract: OptionInstrument) -> Decimal:
    """A limit comfortably above ``price``, on the contract's tick."""
    assert contract.min_ticks is not None
    ticks = contract.min_ticks
    tick = ticks.below_tick if price < ticks.cutoff_price else ticks.above_tick
    return (price * Decimal("1.2") / tick).to_integral_value(ROUND_CEILING) * tick


async def _at_the_money_call(options: OptionsClient) -> tuple[OptionInstrument, Decimal]:
    """AAPL's first-expiration call with a delta nearest 0.5, and its ask."""
    (chain,) = await options.chains(underlying_symbol="AAPL")
    calls = [
        contract
        async for contract in options.iter_instruments(
            chain_symbol="AAPL", expiration_dates=[chain.expiration_dates[0]], type=OptionType.CALL
        )
    ]
    quotes = await options.quotes([contract.id for contract in calls[:20]])
    best = min(
        (r.quote for r in quotes.results if r.quote is not None and r.quote.delta is not None),
        key=lambda quote: abs((quote.delta or Decimal(0)) - Decimal("0.5")),
    )
    return next(c for c in calls if c.id == best.instrument_id), best.ask_price


# -- round trips through the venue -----------------------------------------------------------


@pytest.mark.anyio
async def test_research_reads_chains_contracts_quotes_and_bars(sandbox: VenueClient) -> None:
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            options = OptionsClient(caller)
            (chain,) = await options.chains(underlying_symbol="AAPL")
            by_id = await options.chains(ids=[chain.id])
            first = await options.instruments(chain_symbol="AAPL")
            every = [c async for c in options.iter_instruments(chain_id=chain.id)]
            ids = [contract.id for contract in first.instruments[:3]]
            quotes = await options.quotes(ids)
            bars = await options.historicals(
                ids[:2], START - timedelta(days=1), end_time=START, interval="hour"
            )
    assert [c.id for c in by_id] == [chain.id] and chain.symbol == "AAPL"
    assert chain.trade_value_multiplier == 100 and chain.expiration_dates
    assert first.next is not None and len(first.instruments) == 100
    assert len(every) > 100 and len({c.id for c in every}) == len(every)
    assert all(c.chain_symbol == "AAPL" for c in every)
    assert [r.quote.instrument_id for r in quotes.results if r.quote] == ids
    assert all(r.close is not None and r.close.price is not None for r in quotes.results)
    assert [series.instrument_id for series in bars.results] == ids[:2]
    assert bars.results[0].bars and bars.results[0].bars[0].close_price > 0


@pytest.mark.anyio
async def test_a_call_is_reviewed_bought_exercised_and_the_exercise_withdrawn(
    sandbox: VenueClient,
) -> None:
    number = account_number(sandbox)
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            options = OptionsClient(caller)
            contract, ask = await _at_the_money_call(options)
            request = _request(
                account_number=number,
                legs=[_leg(contract.id)],
                price=_above(ask, contract),
                time_in_force=TimeInForce.GFD,
            )
            review = await options.review_order(request)
            placed = await options.place_order(request)
            assert placed.order is not None
            sandbox.step(5)
            filled = await options.order(number, placed.order.id)
            positions = [p async for p in options.iter_positions(number)]
            exercise = await options.exercise(number, contract.id, 1, reason="test")
            withdrawn = await options.cancel_exercise(number, contract.id)
    assert review.order_checks.alert_type == "none"
    assert (review.direction, review.quantity) == (OptionDirection.DEBIT, Decimal(1))
    assert [q.instrument_id for q in review.option_quotes] == [contract.id]
    assert review.fees is not None and review.fees.total_fee == 0
    assert placed.ref_id == str(request.ref_id)
    assert (placed.order.state, placed.order.direction) == (OrderState.QUEUED, "debit")
    assert filled.state is OrderState.FILLED and filled.is_terminal
    assert filled.processed_quantity == 1 and filled.processed_premium > 0
    assert filled.legs[0].executions and filled.legs[0].option_id == contract.id
    position = next(p for p in positions if p.option_id == contract.id)
    assert (position.type, position.quantity) == ("long", Decimal(1))
    assert (exercise.option_id, exercise.quantity, exercise.state) == (contract.id, 1, "pending")
    assert exercise.ref_id is not None and exercise.equity_side == "buy"
    assert [(e.id, e.state) for e in withdrawn] == [(exercise.id, "cancelled")]


@pytest.mark.anyio
async def test_a_resting_order_is_cancelled_and_a_second_cancel_is_refused(
    sandbox: VenueClient,
) -> None:
    number = account_number(sandbox)
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            options = OptionsClient(caller)
            contract, _ = await _at_the_money_call(options)
            request = _request(account_number=number, legs=[_leg(contract.id)], price="0.01")
            placed = await options.place_order(request)
            assert placed.order is not None
            sandbox.step(2)
            await options.cancel_order(number, placed.order.id)
            listed = [o async for o in options.iter_orders(number, state=OrderState.CANCELLED)]
            with pytest.raises(BusinessError) as raised:
                await options.cancel_order(number, placed.order.id)
    assert placed.order.id in [o.id for o in listed]
    assert raised.value.code == "ORDER_NOT_CANCELLABLE"


@pytest.mark.anyio
async def test_selling_a_naked_call_is_refused_as_a_business_error(sandbox: VenueClient) -> None:
    number = account_number(sandbox)
    with anyio.fail_after(30):
        async with json_rpc_caller(sandbox) as caller:
            options = OptionsClient(caller)
            (chain,) = await options.chains(underlying_symbol="AAPL")
            later = await options.instruments(
                chain_symbol="AAPL",
                expiration_dates=chain.expiration_dates[-1:],
                type=OptionType.CALL,
            )
            request = _request(
                account_number=number, legs=[_leg(later.instruments[0].id, Side.SELL)], quantity=5
            )
            with pytest.raises(BusinessError) as raised:
                await options.place_order(request)
    assert (raised.value.code, raised.value.field) == ("OPTION_LEVEL_INSUFFICIENT", "legs[0].side")


@pytest.mark.anyio
async def test_with_trade_approval_on_an_option_order_waits_as_an_approval() -> None:
    with venue(approval_required=True) as sandbox, anyio.fail_after(30):
        number = account_number(sandbox)
        async with json_rpc_caller(sandbox) as caller:
            options = OptionsClient(caller)
            contract, ask = await _at_the_money_call(options)
            request = _request(
                account_number=number, legs=[_leg(contract.id)], price=_above(ask, contract)
            )
            placed = await options.place_order(request)
            orders = await options.orders(number)
    assert placed.order is None and placed.approval is not None
    assert placed.approval.asset_class == "option"
    assert placed.approval.proposed_order is not None
    assert placed.approval.proposed_order.option_type == "call"
    assert orders.orders == []


# -- the request model -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "field"),
    [
        ({"legs": []}, "legs"),
        ({"legs": [_leg(f"o{i}") for i in range(5)], "direction": "debit"}, "legs"),
        ({"legs": [_leg(), _leg(OPTION_A.upper(), Side.SELL)], "direction": "credit"},
         "legs[1].option_id"),
        ({"legs": [{"option_id": OPTION_A, "side": "buy", "position_effect": "roll"}]},
         "legs[0].position_effect"),
        ({"legs": [{"option_id": OPTION_A, "side": "buy", "position_effect": "open",
                    "ratio_quantity": 0}]}, "legs[0].ratio_quantity"),
        ({"legs": [_leg(), _leg(OPTION_B, Side.SELL)]}, "direction"),
        ({"direction": "credit"}, "direction"),
        ({"legs": [_leg(side=Side.SELL)], "direction": "debit"}, "direction"),
        ({"quantity": "1.5"}, "quantity"),
        ({"quantity": 0}, "quantity"),
        ({"quantity": True}, "quantity"),
        ({"price": None}, "price"),
        ({"type": "market"}, "price"),
        ({"type": "stop_limit", "price": "2"}, "stop_price"),
        ({"stop_price": "2"}, "stop_price"),
        ({"type": "stop_market", "price": None}, "stop_price"),
        ({"type": "market", "price": None, "legs": [_leg(), _leg(OPTION_B, Side.SELL)],
          "direction": "debit"}, "type"),
        ({"price": "-1"}, "price"),
        ({"price": "0"}, "price"),
        ({"time_in_force": "ioc"}, "time_in_force"),
        ({"chain_symbol": "AAPL"}, "chain_symbol"),
    ],
)  # fmt: skip
@pytest.mark.req("client.requests.reject-inapplicable-fields")
def test_each_option_order_rule_refuses_naming_the_field_at_fault(
    terms: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        _request(**terms)
    assert refused_field(raised.value) == field


def test_option_orders_go_out_with_string_quantities_and_unset_fields_omitted() -> None:
    spread = _request(
        legs=[_leg(), _leg(OPTION_B, Side.SELL, ratio_quantity=Decimal(2))],
        quantity=Decimal("3"),
        direction=OptionDirection.DEBIT,
        price=Decimal("1.10"),
    )
    assert spread.arguments() == {
        "account_number": ACCOUNT,
        "legs": [
            {"option_id": OPTION_A, "side": "buy", "position_effect": "open", "ratio_quantity": 1},
            {"option_id": OPTION_B, "side": "sell", "position_effect": "open", "ratio_quantity": 2},
        ],
        "quantity": "3",
        "direction": "debit",
        "price": "1.10",
        "ref_id": str(spread.ref_id),
    }
    assert "ref_id" not in spread.review_arguments()
    market = _request(type=OrderType.MARKET, price=None, direction=OptionDirection.DEBIT)
    assert (market.order_type, market.arguments()["type"]) == (OrderType.MARKET, "market")
    stop = _request(type=OrderType.STOP_LIMIT, stop_price="2.50")
    assert (stop.arguments()["stop_price"], _request().order_type) == ("2.50", OrderType.LIMIT)


# -- reading answers -------------------------------------------------------------------------


def _order(**overrides: Any) -> dict[str, Any]:
    order: dict[str, Any] = {
        "id": "o-1",
        "chain_id": "c-1",
        "chain_symbol": "AAPL",
        "state": "queued",
        "type": "limit",
        "trigger": "immediate",
        "direction": "debit",
        "quantity": "1",
        "processed_quantity": "0",
        "pending_quantity": "1",
        "canceled_quantity": "0",
        "price": "2.35",
        "stop_price": None,
        "premium": "235.00",
        "processed_premium": "0.00",
        "trade_value_multiplier": "100",
        "time_in_force": "gfd",
        "market_hours": "regular_hours",
        "opening_strategy": "long_call",
        "closing_strategy": None,
        "placed_agent": "agentic",
        "created_at": "2026-12-01T15:00:00.000000Z",
        "last_transaction_at": None,
        "is_replaceable": False,
        "legs": [
            {
                "id": "l-1",
                "option_id": OPTION_A,
                "side": "buy",
                "position_effect": "open",
                "ratio_quantity": 1,
                "expiration_date": "2026-12-04",
                "strike_price": "275.0000",
                "option_type": "call",
                "executions": None,
            }
        ],
    }
    order.update(overrides)
    return order


@pytest.mark.anyio
async def test_option_amounts_read_from_strings_or_numbers_and_blanks_as_none() -> None:
    caller = ScriptedCaller(
        {"get_option_orders": {"orders": [_order(price=Decimal("2.35"), premium="", state="x")]}}
    )
    (order,) = (await OptionsClient(caller).orders(ACCOUNT)).orders
    assert (order.price, order.premium, order.quantity) == (Decimal("2.35"), None, Decimal(1))
    assert (order.state, order.is_terminal, order.legs[0].executions) == ("x", False, [])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "data", "field"),
    [
        ("get_option_orders", {"orders": [_order(processed_premium="n/a")]},
         "orders[0].processed_premium"),
        ("get_option_orders", {"orders": [_order(legs=[{**_order()["legs"][0],
                                                       "strike_price": {}}])]},
         "orders[0].legs[0].strike_price"),
        ("get_option_chains", {"chains": [{"id": "c", "symbol": "A", "can_open_position": True,
                                           "expiration_dates": [], "trade_value_multiplier": "100",
                                           "min_ticks": {"above_tick": True}}]},
         "chains[0].min_ticks.above_tick"),
        ("get_option_quotes", {"results": [{"quote": {"instrument_id": "i", "ask_price": "1",
                                                      "ask_size": 1, "bid_price": "n/a",
                                                      "bid_size": 1, "mark_price": "1"}}]},
         "results[0].quote.bid_price"),
        ("get_option_positions", {"positions": [{"option_id": "o", "chain_id": "c",
                                                 "chain_symbol": "A", "type": "long",
                                                 "quantity": [], "average_price": "1",
                                                 "expiration_date": "2026-12-04",
                                                 "trade_value_multiplier": "100"}]},
         "positions[0].quantity"),
        ("exercise_option", {"exercise": {"id": "e", "option_id": "o", "quantity": "x",
                                          "state": "pending"}}, "exercise.quantity"),
        ("exercise_option", {}, "exercise"),
    ],
)  # fmt: skip
async def test_unreadable_option_answers_are_parse_errors_naming_the_field(
    tool: str, data: Any, field: str
) -> None:
    options = OptionsClient(ScriptedCaller({tool: data}))
    calls = {
        "get_option_orders": lambda: options.orders(ACCOUNT),
        "get_option_chains": lambda: options.chains(),
        "get_option_quotes": lambda: options.quotes([OPTION_A]),
        "get_option_positions": lambda: options.positions(ACCOUNT),
        "exercise_option": lambda: options.exercise(ACCOUNT, OPTION_A, 1),
    }
    with pytest.raises(ResponseParseError) as raised:
        await calls[tool]()
    assert (raised.value.field, raised.value.tool) == (field, tool)


@pytest.mark.anyio
async def test_filters_go_out_as_the_wire_spells_them() -> None:
    caller = ScriptedCaller(
        {
            "get_option_positions": {"positions": []},
            "get_option_orders": {"orders": []},
            "get_option_instruments": {"instruments": []},
            "get_option_historicals": {"results": [], "not_found": [OPTION_B]},
        }
    )
    options = OptionsClient(caller)
    await options.positions(
        ACCOUNT,
        nonzero=False,
        chain_ids=["c1", "c2"],
        option_ids=[OPTION_A],
        type=PositionType.SHORT,
        option_type=OptionType.PUT,
        expiration_date=date(2026, 12, 4),
        expiration_date_gte=date(2026, 12, 1),
        expiration_date_lte=date(2026, 12, 31),
        cursor="p2",
    )
    await options.orders(
        ACCOUNT,
        order_id="o-1",
        state=OrderState.FILLED,
        created_at_gte=datetime(2026, 12, 1, 10, 0, tzinfo=UTC),
        chain_ids=["c1"],
        underlying_type="equity",
        placed_agent=PlacedAgent.AGENTIC,
    )
    await options.instruments(
        ids=[OPTION_A, OPTION_B],
        expiration_dates=[date(2026, 12, 4), date(2026, 12, 11)],
        strike_price=Decimal("275.0"),
        state="active",
        tradability="tradable",
    )
    historicals = await options.historicals([OPTION_B], datetime(2026, 12, 1, tzinfo=UTC))
    assert [args for _, args in caller.calls] == [
        {
            "account_number": ACCOUNT,
            "nonzero": False,
            "chain_ids": "c1,c2",
            "option_ids": OPTION_A,
            "type": "short",
            "option_type": "put",
            "expiration_date": "2026-12-04",
            "expiration_date_gte": "2026-12-01",
            "expiration_date_lte": "2026-12-31",
            "cursor": "p2",
        },
        {
            "account_number": ACCOUNT,
            "order_id": "o-1",
            "state": "filled",
            "created_at_gte": "2026-12-01T10:00:00Z",
            "chain_ids": "c1",
            "underlying_type": "equity",
            "placed_agent": "agentic",
        },
        {
            "ids": f"{OPTION_A},{OPTION_B}",
            "expiration_dates": "2026-12-04,2026-12-11",
            "strike_price": "275.0",
            "state": "active",
            "tradability": "tradable",
        },
        {"instrument_ids": [OPTION_B], "start_time": "2026-12-01T00:00:00Z"},
    ]
    assert (historicals.results, historicals.not_found) == ([], [OPTION_B])


@pytest.mark.anyio
async def test_position_and_order_pages_are_walked_to_the_end() -> None:
    def paged(key: str, rows: list[Any]) -> Any:
        return lambda args: (
            {key: rows[:1], "next": "p2"} if "cursor" not in args else {key: rows[1:]}
        )

    position = {
        "option_id": OPTION_A, "chain_id": "c", "chain_symbol": "AAPL", "type": "long",
        "quantity": "1", "average_price": "240.00", "expiration_date": "2026-12-04",
        "trade_value_multiplier": "100",
    }  # fmt: skip
    caller: Caller = ScriptedCaller(
        {
            "get_option_positions": paged("positions", [position, {**position, "quantity": 2}]),
            "get_option_orders": paged("orders", [_order(), _order(id="o-2")]),
        }
    )
    options = OptionsClient(caller)
    positions = [p.quantity async for p in options.iter_positions(ACCOUNT, nonzero=True)]
    orders = [o.id async for o in options.iter_orders(ACCOUNT, placed_agent=PlacedAgent.USER)]
    assert (positions, orders) == ([Decimal(1), Decimal(2)], ["o-1", "o-2"])


@pytest.mark.anyio
async def test_exercise_sends_a_ref_id_and_refuses_a_count_below_one() -> None:
    exercise = {"id": "e", "option_id": OPTION_A, "quantity": "2", "state": "pending"}
    caller = ScriptedCaller({"exercise_option": {"exercise": exercise}})
    options = OptionsClient(caller)
    done = await options.exercise(ACCOUNT, OPTION_A, 2, allow_shorts=False)
    (_, arguments) = caller.calls[0]
    assert arguments["ref_id"] and arguments["allow_shorts"] is False
    assert done.quantity == 2
    for bad in (0, True):
        with pytest.raises(ValueError, match="quantity"):
            await options.exercise(ACCOUNT, OPTION_A, bad)


@pytest.mark.anyio
async def test_refusals_in_option_answers_are_raised_not_returned() -> None:
    options = OptionsClient(
        ScriptedCaller(
            {
                "place_option_order": {"order": _order(state="rejected")},
                "cancel_option_order": {"accepted": False},
                "cancel_option_exercise": {"accepted": False, "exercises": []},
                "get_option_orders": {"orders": [_order(id="other")]},
            }
        )
    )
    with pytest.raises(BusinessError) as rejected:
        await options.place_order(_request())
    with pytest.raises(BusinessError) as refused:
        await options.cancel_order(ACCOUNT, "o-1")
    with pytest.raises(BusinessError) as withdrawn:
        await options.cancel_exercise(ACCOUNT, OPTION_A)
    with pytest.raises(ResponseParseError):
        await options.order(ACCOUNT, "o-1")
    assert (rejected.value.code, refused.value.code) == ("ORDER_REJECTED", "CANCEL_REFUSED")
    assert withdrawn.value.tool == "cancel_option_exercise"

"""``LiveExecutor`` against the sandbox venue over loopback (and, for answers the venue never
gives, against scripted ones): review, place, lookup by ref_id, poll, cancel, and which
failures mean "refused" and which mean "the order may be live"."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

import anyio
import pytest
from client_testkit import ScriptedCaller
from venue_testkit import START, VenueClient

from ordergate.client import Robinhood
from ordergate.core import OrderState, OrderType, Side, TimeInForce
from ordergate.policy import Proposal
from ordergate.venues import BrokerOrder, BrokerRefusal, NoAnswer, OrderExecutor, Ticket
from ordergate.venues.robinhood import LiveExecutor

BOUND_S = 30
MAX_STEPS = 10
ORDERS_PAGE = 50


def ticket(account: str, **fields: Any) -> Ticket:
    """A ticket under a fresh ref_id: 2 AAPL at market unless ``fields`` say otherwise."""
    terms: dict[str, Any] = {"symbol": "AAPL", "side": Side.BUY, "quantity": Decimal(2)}
    terms.update(fields)
    return Ticket(ref_id=uuid4(), account=account, proposal=Proposal(**terms))


def open_limit(account: str) -> Ticket:
    """A good-till-cancelled limit buy far below the market: it rests, open."""
    return ticket(
        account,
        symbol="MSFT",
        order_type=OrderType.LIMIT,
        limit_price=Decimal("100.00"),
        time_in_force=TimeInForce.GTC,
    )


def venue_ask(sandbox: VenueClient, symbol: str) -> Decimal:
    quote = sandbox.data("get_equity_quotes", {"symbols": [symbol]})["results"][0]["quote"]
    return Decimal(quote["ask_price"])


async def follow(
    executor: LiveExecutor, sandbox: VenueClient, account: str, order: BrokerOrder
) -> list[BrokerOrder]:
    """Poll ``order`` one venue second at a time until it is terminal (bounded)."""
    seen = [order]
    for _ in range(MAX_STEPS):
        if seen[-1].terminal:
            break
        sandbox.step(1)
        seen.append(await executor.poll(account, order.order_id))
    return seen


# -- review ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_review_prices_a_market_buy_at_the_ask_and_places_nothing(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    order = ticket(account)
    with anyio.fail_after(BOUND_S):
        review = await executor.review(order)
        listed = await executor.lookup(order, since=START)
    ask = venue_ask(sandbox, "AAPL")
    assert review.quote is not None
    assert (review.quote.symbol, review.quote.ask, review.quote.as_of) == ("AAPL", ask, START)
    assert review.quote.bid is not None and review.quote.bid < ask
    assert review.quote.last is not None and review.quote.last > 0
    assert (review.terms.price, review.terms.quantity) == (ask, Decimal(2))
    assert review.terms.notional == 2 * ask
    assert review.checks_passed is True and review.broker_approval_required is False
    assert listed is None


@pytest.mark.anyio
async def test_review_prices_a_limit_order_at_its_limit(rh: Robinhood, account: str) -> None:
    with anyio.fail_after(BOUND_S):
        review = await LiveExecutor(rh).review(open_limit(account))
    assert review.quote is not None and review.quote.ask is not None
    assert review.quote.ask > Decimal("100.00")
    assert review.terms.price == Decimal("100.00")
    assert review.terms.notional == Decimal("200.00")
    assert review.checks_passed is True


@pytest.mark.anyio
async def test_review_of_a_dollar_amount_prices_the_shares_it_would_buy(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    order = ticket(account, quantity=None, notional=Decimal("100.00"))
    with anyio.fail_after(BOUND_S):
        review = await LiveExecutor(rh).review(order)
    ask = venue_ask(sandbox, "AAPL")
    assert (review.terms.price, review.terms.notional) == (ask, Decimal("100.00"))
    assert review.terms.quantity == Decimal("100.00") / ask


@pytest.mark.anyio
async def test_review_beyond_buying_power_reports_the_broker_checks_failed(
    rh: Robinhood, account: str
) -> None:
    with anyio.fail_after(BOUND_S):
        review = await LiveExecutor(rh).review(ticket(account, quantity=Decimal(100000)))
    assert review.checks_passed is False
    assert review.terms.notional is not None and review.terms.notional > Decimal(100000)


@pytest.mark.anyio
async def test_review_of_a_sale_of_shares_not_held_is_the_brokers_refusal(
    rh: Robinhood, account: str
) -> None:
    with pytest.raises(BrokerRefusal) as raised, anyio.fail_after(BOUND_S):
        await LiveExecutor(rh).review(ticket(account, side=Side.SELL))
    assert raised.value.code == "INSUFFICIENT_SHARES"


@pytest.mark.anyio
async def test_review_with_trade_approval_on_says_the_broker_will_ask_the_person(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    sandbox.admin("approval", {"human_must_approve_trades": True})
    with anyio.fail_after(BOUND_S):
        review = await LiveExecutor(rh).review(ticket(account))
    assert review.broker_approval_required is True


@pytest.mark.anyio
async def test_review_without_an_answer_is_no_answer_and_names_no_token(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    sandbox.faults(http_errors=1)
    with pytest.raises(NoAnswer) as raised, anyio.fail_after(BOUND_S):
        await LiveExecutor(rh).review(ticket(account))
    assert "http_status 503" in str(raised.value)
    assert sandbox.token is not None and sandbox.token not in str(raised.value)


@pytest.mark.anyio
@pytest.mark.parametrize("action", ["review", "place"])
async def test_an_order_the_client_refuses_locally_is_an_invalid_order_naming_the_field(
    action: str, rh: Robinhood, account: str
) -> None:
    # Fractional shares trade only at market: the client refuses before anything is sent.
    order = ticket(
        account, quantity=Decimal("1.5"), order_type=OrderType.LIMIT, limit_price=Decimal(1)
    )
    executor = LiveExecutor(rh)
    with pytest.raises(BrokerRefusal) as raised, anyio.fail_after(BOUND_S):
        await getattr(executor, action)(order)
    with anyio.fail_after(BOUND_S):
        listed = await executor.lookup(order, since=START)
    assert (raised.value.code, str(raised.value)) == ("invalid_order", "invalid_order: quantity")
    assert listed is None


# -- place -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_place_returns_the_broker_order_under_our_ref_id_and_nothing_filled(
    rh: Robinhood, account: str
) -> None:
    executor = LiveExecutor(rh)
    assert isinstance(executor, OrderExecutor) and executor.paper is False
    order = ticket(account)
    with anyio.fail_after(BOUND_S):
        placement = await executor.place(order)
    assert placement.awaiting_broker_approval is False and placement.order is not None
    placed = placement.order
    assert (placed.ref_id, placed.symbol, placed.side) == (order.ref_id, "AAPL", Side.BUY)
    assert (placed.state, placed.quantity) == (OrderState.QUEUED, Decimal(2))
    assert placed.fills == () and placed.cumulative_quantity == placed.filled_notional == 0
    assert placed.average_price is None and not placed.terminal


@pytest.mark.anyio
async def test_with_trade_approval_on_place_awaits_the_brokers_approval_and_no_order_exists(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    sandbox.admin("approval", {"human_must_approve_trades": True})
    executor = LiveExecutor(rh)
    order = ticket(account)
    with anyio.fail_after(BOUND_S):
        placement = await executor.place(order)
        listed = await executor.lookup(order, since=START)
    assert (placement.order, placement.awaiting_broker_approval) == (None, True)
    assert listed is None


@pytest.mark.anyio
async def test_an_order_beyond_buying_power_is_refused_with_the_venues_code_and_is_not_live(
    rh: Robinhood, account: str
) -> None:
    executor = LiveExecutor(rh)
    order = ticket(account, quantity=Decimal(100000))
    with pytest.raises(BrokerRefusal) as raised, anyio.fail_after(BOUND_S):
        await executor.place(order)
    with anyio.fail_after(BOUND_S):
        listed = await executor.lookup(order, since=START)
    assert raised.value.code == "INSUFFICIENT_BUYING_POWER"
    assert "buying power" in str(raised.value)
    assert listed is None


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("fault", "venue_settings"),
    [
        pytest.param({"drop_after": 1}, {}, id="answer-lost"),
        pytest.param({"malformed_sse": 1}, {"framing": "sse"}, id="answer-unreadable"),
    ],
)
async def test_a_place_whose_answer_is_lost_is_no_answer_and_lookup_finds_the_live_order(
    fault: dict[str, int], rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    order = ticket(account)
    sandbox.faults(**fault)
    with pytest.raises(NoAnswer), anyio.fail_after(BOUND_S):
        await executor.place(order)
    with anyio.fail_after(BOUND_S):
        found = await executor.lookup(order, since=START)
    assert found is not None
    assert (found.ref_id, found.symbol, found.quantity) == (order.ref_id, "AAPL", Decimal(2))
    assert found.state is OrderState.QUEUED and found.fills == ()


@pytest.mark.anyio
@pytest.mark.parametrize(
    "fault",
    [pytest.param({"drop_before": 1}, id="dropped"), pytest.param({"http_errors": 1}, id="503")],
)
async def test_a_place_the_venue_never_took_is_no_answer_and_lookup_finds_nothing(
    fault: dict[str, int], rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    order = ticket(account)
    sandbox.faults(**fault)
    with pytest.raises(NoAnswer), anyio.fail_after(BOUND_S):
        await executor.place(order)
    with anyio.fail_after(BOUND_S):
        found = await executor.lookup(order, since=START)
    assert found is None


# -- lookup ----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_lookup_finds_only_the_tickets_own_order_created_since_the_given_time(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    ours, other = ticket(account), ticket(account)
    with anyio.fail_after(BOUND_S):
        placed = await executor.place(ours)
        await executor.place(other)
        found = await executor.lookup(ours, since=START)
        stranger = await executor.lookup(ticket(account), since=START)
        sandbox.step(10)
        later = await executor.lookup(ours, since=START + timedelta(seconds=5))
    assert placed.order is not None and found is not None
    assert (found.order_id, found.ref_id) == (placed.order.order_id, ours.ref_id)
    assert stranger is None and later is None


@pytest.mark.anyio
async def test_lookup_that_cannot_reach_the_broker_is_no_answer_never_none(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    order = ticket(account)
    sandbox.faults(drop_before=1)
    with pytest.raises(NoAnswer), anyio.fail_after(BOUND_S):
        await executor.lookup(order, since=START)


@pytest.mark.anyio
async def test_lookup_that_cannot_walk_every_page_is_no_answer_never_none(
    rh: Robinhood, account: str
) -> None:
    executor = LiveExecutor(rh, lookup_pages=1)
    cheap: dict[str, Any] = {
        "quantity": Decimal(1),
        "order_type": OrderType.LIMIT,
        "limit_price": Decimal("1.00"),
    }
    # The venue lists 50 orders a page, newest first: the oldest of 51 is on the second page.
    placed = [ticket(account, **cheap) for _ in range(ORDERS_PAGE + 1)]
    with anyio.fail_after(BOUND_S):
        for order in placed:
            await executor.place(order)
        on_the_first_page = await executor.lookup(placed[-1], since=START)
        with pytest.raises(NoAnswer) as raised:
            await executor.lookup(placed[0], since=START)
    assert on_the_first_page is not None and on_the_first_page.ref_id == placed[-1].ref_id
    assert "page_limit" in str(raised.value)


def test_a_lookup_bound_below_one_page_is_refused() -> None:
    with pytest.raises(ValueError, match="lookup_pages"):
        LiveExecutor(Robinhood(ScriptedCaller({})), lookup_pages=0)


# -- poll and cancel -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_poll_follows_an_order_to_filled_as_the_venue_clock_advances(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    with anyio.fail_after(BOUND_S):
        placement = await executor.place(ticket(account))
        assert placement.order is not None
        seen = await follow(executor, sandbox, account, placement.order)
    states = [order.state for order in seen]
    assert states[0] is OrderState.QUEUED and states[-1] is OrderState.FILLED
    assert OrderState.CONFIRMED in states
    filled = seen[-1]
    assert filled.terminal and filled.cumulative_quantity == Decimal(2)
    assert sum(fill.quantity for fill in filled.fills) == Decimal(2)
    assert all(fill.price > 0 and fill.executed_at > START for fill in filled.fills)
    assert filled.average_price is not None
    assert filled.filled_notional == sum(f.quantity * f.price for f in filled.fills)
    assert filled.ref_id == placement.order.ref_id


@pytest.mark.anyio
async def test_poll_of_an_order_the_broker_does_not_list_is_no_answer(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    with anyio.fail_after(BOUND_S):
        with pytest.raises(NoAnswer):
            await executor.poll(account, str(uuid4()))
        placement = await executor.place(ticket(account))
        assert placement.order is not None
        sandbox.faults(http_errors=1)
        with pytest.raises(NoAnswer):
            await executor.poll(account, placement.order.order_id)


@pytest.mark.anyio
async def test_cancel_of_an_open_limit_order_leaves_it_cancelled(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    with anyio.fail_after(BOUND_S):
        placement = await executor.place(open_limit(account))
        assert placement.order is not None
        sandbox.step(2)
        resting = await executor.poll(account, placement.order.order_id)
        await executor.cancel(account, placement.order.order_id)
        cancelled = await executor.poll(account, placement.order.order_id)
    assert resting.state is OrderState.CONFIRMED and not resting.terminal
    assert cancelled.state is OrderState.CANCELLED and cancelled.terminal
    assert cancelled.fills == () and cancelled.cumulative_quantity == 0


@pytest.mark.anyio
async def test_cancelling_a_filled_order_is_the_brokers_refusal(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    with anyio.fail_after(BOUND_S):
        placement = await executor.place(ticket(account))
        assert placement.order is not None
        seen = await follow(executor, sandbox, account, placement.order)
        with pytest.raises(BrokerRefusal) as raised:
            await executor.cancel(account, placement.order.order_id)
    assert seen[-1].state is OrderState.FILLED
    assert raised.value.code == "ORDER_NOT_CANCELLABLE"


@pytest.mark.anyio
async def test_a_cancel_without_an_answer_is_no_answer(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    executor = LiveExecutor(rh)
    with anyio.fail_after(BOUND_S):
        placement = await executor.place(open_limit(account))
        assert placement.order is not None
        sandbox.faults(drop_after=1)
        with pytest.raises(NoAnswer):
            await executor.cancel(account, placement.order.order_id)


# -- answers the venue never gives (scripted) ------------------------------------------------

ACCOUNT = "5PY78241"


def wire_order(**fields: Any) -> dict[str, Any]:
    order: dict[str, Any] = {
        "id": "order-1",
        "ref_id": None,
        "symbol": "AAPL",
        "side": "buy",
        "type": "market",
        "state": "queued",
        "quantity": "2",
        "created_at": "2026-12-01T15:00:00Z",
    }
    order.update(fields)
    return order


def wire_review(**fields: Any) -> dict[str, Any]:
    review: dict[str, Any] = {
        "symbol": "AAPL",
        "side": "buy",
        "type": "market",
        "quantity": "2",
        "order_checks": {},
        "quote_data": {
            "symbol": "AAPL",
            "last_trade_price": "0",
            "bid_price": "-1",
            "ask_price": "10.00",
            "venue_bid_time": "2026-12-01T15:00:01Z",
            "venue_ask_time": None,
        },
    }
    review.update(fields)
    return review


def scripted(answers: dict[str, Any]) -> LiveExecutor:
    return LiveExecutor(Robinhood(ScriptedCaller(answers)))


@pytest.mark.anyio
async def test_a_reviewed_quote_drops_non_positive_prices_and_dates_from_the_venue_times() -> None:
    executor = scripted({"review_equity_order": wire_review()})
    review = await executor.review(ticket(ACCOUNT))
    assert review.quote is not None
    assert (review.quote.bid, review.quote.ask, review.quote.last) == (None, Decimal(10), None)
    assert review.quote.as_of == START + timedelta(seconds=1)
    assert review.checks_passed is None
    assert review.terms.notional == Decimal(20)


@pytest.mark.anyio
async def test_a_review_without_a_quote_leaves_a_market_orders_terms_unpriced() -> None:
    executor = scripted({"review_equity_order": wire_review(quote_data=None)})
    review = await executor.review(ticket(ACCOUNT))
    assert review.quote is None
    assert (review.terms.price, review.terms.notional) == (None, None)


@pytest.mark.anyio
async def test_a_reviewed_quote_for_another_symbol_is_no_quote() -> None:
    answer = wire_review()
    answer["quote_data"]["symbol"] = "MSFT"
    review = await scripted({"review_equity_order": answer}).review(ticket(ACCOUNT))
    assert review.quote is None and review.terms.price is None


@pytest.mark.anyio
async def test_a_review_answered_for_another_order_is_no_answer() -> None:
    executor = scripted({"review_equity_order": wire_review(side="sell")})
    with pytest.raises(NoAnswer, match="another order"):
        await executor.review(ticket(ACCOUNT))


@pytest.mark.anyio
async def test_a_place_answered_with_an_order_under_another_ref_id_is_no_answer() -> None:
    answer = {"order": wire_order(ref_id=str(uuid4()))}
    with pytest.raises(NoAnswer, match="another ref_id"):
        await scripted({"place_equity_order": answer}).place(ticket(ACCOUNT))


@pytest.mark.anyio
async def test_an_order_in_a_state_unknown_to_us_keeps_its_text_and_counts_as_open() -> None:
    answer = {"order": wire_order(state="held_for_review")}
    placement = await scripted({"place_equity_order": answer}).place(ticket(ACCOUNT))
    assert placement.order is not None
    assert (placement.order.state, placement.order.terminal) == ("held_for_review", False)
    assert placement.order.ref_id is None


@pytest.mark.anyio
async def test_an_order_whose_ref_id_is_not_a_uuid_reads_with_no_ref_id() -> None:
    order = ticket(ACCOUNT)
    listing = {"orders": [wire_order(ref_id="not-a-uuid")], "next": None}
    found = await scripted({"get_equity_orders": listing}).lookup(order, since=START)
    assert found is None


@pytest.mark.anyio
async def test_anything_unexpected_from_the_client_on_place_is_no_answer() -> None:
    def explode(arguments: dict[str, Any]) -> Any:
        raise RuntimeError("a bug somewhere below")

    with pytest.raises(NoAnswer, match="RuntimeError"):
        await scripted({"place_equity_order": explode}).place(ticket(ACCOUNT))

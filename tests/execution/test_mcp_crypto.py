"""``McpCrypto`` (the crypto lane over the MCP's crypto tools) against the sandbox venue over
loopback, and against scripted answers for what the venue never gives: pairs, quotes,
review, place, lookup by ref_id, poll, cancel, the account's side of a decision."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

import anyio
import pytest
from client_testkit import ScriptedCaller, rhs_account_number
from venue_testkit import START, VenueClient

from ordergate.client import Robinhood, TransportError
from ordergate.core import CryptoOrderType, OrderState, Side, SteppedClock
from ordergate.policy import CryptoProposal
from ordergate.venues import BrokerOrder, BrokerRefusal, CryptoLane, CryptoTicket, NoAnswer
from ordergate.venues.robinhood import McpCrypto, RobinhoodVenue

BOUND_S = 30
MAX_STEPS = 10


def ticket(account: str, **fields: Any) -> CryptoTicket:
    """0.01 BTC at market under a fresh ref_id unless ``fields`` say otherwise."""
    terms: dict[str, Any] = {"pair": "BTC-USD", "side": Side.BUY, "asset_quantity": Decimal("0.01")}
    terms.update(fields)
    return CryptoTicket(ref_id=uuid4(), account=account, proposal=CryptoProposal(**terms))


def resting(account: str) -> CryptoTicket:
    """A limit buy far below the market: it rests, open."""
    return ticket(account, order_type=CryptoOrderType.LIMIT, limit_price=Decimal("1000.00"))


async def follow(
    lane: McpCrypto, sandbox: VenueClient, rhs: str, order: BrokerOrder
) -> BrokerOrder:
    for _ in range(MAX_STEPS):
        if order.terminal:
            break
        sandbox.step(1)
        order = await lane.poll(rhs, order.order_id)
    return order


@pytest.fixture
def rhs(sandbox: VenueClient) -> str:
    return rhs_account_number(sandbox)


def test_the_robinhood_venue_through_the_client_has_the_mcp_crypto_lane() -> None:
    venue = RobinhoodVenue.through(Robinhood(ScriptedCaller({})), clock=SteppedClock(start=START))
    assert venue.crypto is not None and list(venue.crypto.lanes) == ["mcp"]
    assert isinstance(venue.crypto.named("mcp"), CryptoLane)


@pytest.mark.anyio
async def test_pairs_give_each_pairs_minimum_and_increments(rh: Robinhood) -> None:
    with anyio.fail_after(BOUND_S):
        pairs = await McpCrypto(rh).pairs()
    btc = pairs["BTC-USD"]
    assert btc.min_order_size == Decimal("0.000001") and btc.tradable
    assert btc.asset_increment is not None and btc.quote_increment is not None
    assert btc.max_order_size is not None and btc.max_order_size > btc.min_order_size


@pytest.mark.anyio
async def test_a_pairs_quote_is_its_best_bid_and_ask_and_an_unlisted_pair_has_none(
    rh: Robinhood,
) -> None:
    lane = McpCrypto(rh)
    with anyio.fail_after(BOUND_S):
        quote = await lane.quote("BTC-USD")
        missing = await lane.quote("NOPE-USD")
    assert quote is not None and quote.pair == "BTC-USD"
    assert quote.bid is not None and quote.ask is not None and 0 < quote.bid < quote.ask
    assert quote.at is not None and not quote.crossed
    assert missing is None


@pytest.mark.anyio
async def test_review_prices_a_quantity_at_the_previews_ask_and_places_nothing(
    rh: Robinhood, rhs: str
) -> None:
    lane = McpCrypto(rh)
    order = ticket(rhs)
    with anyio.fail_after(BOUND_S):
        review = await lane.review(order)
        found = await lane.lookup(order, since=START)
    assert review.quote is not None and review.quote.ask is not None
    assert (review.terms.price, review.terms.quantity) == (review.quote.ask, Decimal("0.01"))
    assert review.terms.notional == review.quote.ask * Decimal("0.01")
    assert review.checks_passed is True and not review.broker_approval_required
    assert found is None


@pytest.mark.anyio
async def test_review_of_a_dollar_amount_takes_the_units_the_venue_computed(
    rh: Robinhood, rhs: str
) -> None:
    order = ticket(rhs, asset_quantity=None, quote_amount=Decimal("500.00"))
    with anyio.fail_after(BOUND_S):
        review = await McpCrypto(rh).review(order)
    assert review.terms.notional == Decimal("500.00")
    assert review.terms.quantity is not None and 0 < review.terms.quantity < Decimal("0.01")


@pytest.mark.anyio
async def test_a_market_buy_is_placed_under_the_ref_id_filled_and_read_back_as_held(
    rh: Robinhood, sandbox: VenueClient, rhs: str
) -> None:
    lane = McpCrypto(rh)
    order = ticket(rhs, pair="ETH-USD", asset_quantity=Decimal("0.5"))
    with anyio.fail_after(BOUND_S):
        before = await lane.read(rhs, "ETH-USD")
        placement = await lane.place(order)
        assert placement.order is not None
        assert placement.order.ref_id == order.ref_id
        assert placement.order.state is OrderState.QUEUED
        filled = await follow(lane, sandbox, rhs, placement.order)
        found = await lane.lookup(order, since=START)
        after = await lane.read(rhs, "ETH-USD")
    assert filled.state is OrderState.FILLED and filled.cumulative_quantity == Decimal("0.5")
    assert filled.filled_notional > 0 and filled.average_price is not None
    assert found is not None and found.order_id == filled.order_id
    assert before.holding is not None and before.holding.quantity == 0
    assert after.holding is not None and after.holding.quantity == Decimal("0.5")
    assert after.crypto_equity is not None and after.crypto_equity >= after.holding.market_value > 0
    assert before.cash is not None and after.cash is not None and after.cash < before.cash
    assert after.equity is not None and after.buying_power is not None
    assert after.quote is not None and after.quote.pair == "ETH-USD"
    assert after.notes == () and after.open_orders == ()


@pytest.mark.anyio
async def test_a_resting_limit_is_listed_open_then_cancelled(
    rh: Robinhood, sandbox: VenueClient, rhs: str
) -> None:
    lane = McpCrypto(rh)
    with anyio.fail_after(BOUND_S):
        placement = await lane.place(resting(rhs))
        assert placement.order is not None
        sandbox.step(3)
        view = await lane.read(rhs, None)
        await lane.cancel(rhs, placement.order.order_id)
        ended = await lane.poll(rhs, placement.order.order_id)
        again = lane.cancel(rhs, placement.order.order_id)
        with pytest.raises(BrokerRefusal):
            await again
    assert view.open_orders is not None
    assert [o.order_id for o in view.open_orders] == [placement.order.order_id]
    assert view.holding is None and view.quote is None
    assert ended.state is OrderState.CANCELLED and ended.terminal


@pytest.mark.anyio
async def test_selling_what_is_not_held_is_refused_by_the_venue_and_nothing_is_live(
    rh: Robinhood, rhs: str
) -> None:
    lane = McpCrypto(rh)
    order = ticket(rhs, side=Side.SELL)
    with anyio.fail_after(BOUND_S):
        with pytest.raises(BrokerRefusal) as refused:
            await lane.place(order)
        with pytest.raises(BrokerRefusal):
            await lane.review(order)
        found = await lane.lookup(order, since=START)
    assert refused.value.code == "INSUFFICIENT_HOLDINGS"
    assert found is None


@pytest.mark.anyio
async def test_an_unknown_account_reads_as_unknown_with_notes(rh: Robinhood) -> None:
    with anyio.fail_after(BOUND_S):
        view = await McpCrypto(rh).read("0000000000", "BTC-USD")
    assert (view.equity, view.cash, view.holding, view.open_orders) == (None, None, None, None)
    assert view.crypto_equity is None and view.quote is not None
    assert {note.split(":")[0] for note in view.notes} == {"holdings", "open_orders", "portfolio"}


# -- scripted answers ------------------------------------------------------------------------


def failing(arguments: dict[str, Any]) -> Any:
    raise TransportError("reset", tool="x")


def scripted(answers: dict[str, Any]) -> McpCrypto:
    return McpCrypto(Robinhood(ScriptedCaller(answers)))


def wire_order(ref_id: str | None, **fields: Any) -> dict[str, Any]:
    order = {
        "id": "o-1",
        "ref_id": ref_id,
        "symbol": "BTC-USD",
        "side": "buy",
        "type": "market",
        "state": "confirmed",
        "created_at": "2026-12-01T15:00:00Z",
    }
    order.update(fields)
    return order


@pytest.mark.anyio
async def test_no_answer_from_the_venue_means_the_order_may_be_live() -> None:
    lane = scripted(
        dict.fromkeys(
            (
                "place_crypto_order",
                "preview_crypto_order",
                "get_crypto_orders",
                "cancel_crypto_order",
                "get_currency_pairs",
                "get_crypto_quotes",
            ),
            failing,
        )
    )
    order = ticket("R1")
    for attempt in (
        lane.place(order),
        lane.review(order),
        lane.lookup(order, since=START),
        lane.poll("R1", "o-1"),
        lane.cancel("R1", "o-1"),
        lane.pairs(),
    ):
        with pytest.raises(NoAnswer):
            await attempt
    assert await lane.quote("BTC-USD") is None


@pytest.mark.anyio
async def test_a_place_answered_under_another_ref_id_is_no_answer_about_ours() -> None:
    lane = scripted({"place_crypto_order": {"order": wire_order(str(uuid4()))}})
    with pytest.raises(NoAnswer):
        await lane.place(ticket("R1"))


@pytest.mark.anyio
async def test_an_order_held_for_the_persons_approval_is_placed_awaiting_it() -> None:
    order = ticket("R1")
    approval = {
        "approval": {
            "approval_id": "a-1",
            "account_number": "A1",
            "asset_class": "crypto",
            "state": "pending",
            "is_edited": False,
        }
    }
    placement = await scripted({"place_crypto_order": approval}).place(order)
    assert placement.order is None and placement.awaiting_broker_approval


@pytest.mark.anyio
async def test_a_lookup_walks_pages_and_an_unknown_state_is_kept_as_text() -> None:
    order = ticket("R1")
    pages = [
        {"orders": [wire_order(None, id="o-0")], "next": "c1"},
        {"orders": [wire_order(str(order.ref_id), state="thawing")], "next": None},
    ]
    lane = scripted({"get_crypto_orders": lambda arguments: pages.pop(0)})
    found = await lane.lookup(order, since=START - timedelta(days=1))
    assert found is not None and found.state == "thawing" and not found.terminal


@pytest.mark.anyio
async def test_a_lookup_that_runs_past_its_pages_cannot_tell() -> None:
    endless = {"orders": [], "next": "again"}
    lane = McpCrypto(
        Robinhood(
            ScriptedCaller(
                {"get_crypto_orders": lambda arguments: {**endless, "next": str(uuid4())}}
            )
        ),
        lookup_pages=2,
    )
    with pytest.raises(NoAnswer):
        await lane.lookup(ticket("R1"), since=START)
    with pytest.raises(ValueError, match="lookup_pages"):
        McpCrypto(Robinhood(ScriptedCaller({})), lookup_pages=0)


@pytest.mark.anyio
async def test_a_review_for_another_pair_is_no_answer() -> None:
    preview = {"symbol": "ETH-USD", "side": "buy", "type": "market"}
    with pytest.raises(NoAnswer):
        await scripted({"preview_crypto_order": preview}).review(ticket("R1"))


@pytest.mark.anyio
async def test_holdings_without_a_value_or_listed_twice_leave_the_holding_unknown() -> None:
    accounts: dict[str, Any] = {"accounts": []}
    twice = {"positions": [{"currency_code": "BTC", "quantity": "1", "market_value": "5"}] * 2}
    unvalued = {"positions": [{"currency_code": "BTC", "quantity": "1"}]}
    marked = {"positions": [{"currency_code": "BTC", "quantity": "2", "mark_price": "3"}]}
    seen = []
    for holdings in (twice, unvalued, marked):
        lane = scripted(
            {
                "get_accounts": accounts,
                "get_crypto_positions": holdings,
                "get_crypto_orders": {"orders": []},
            }
        )
        seen.append(await lane.read("R1", None))
    assert seen[0].crypto_equity is None and seen[1].crypto_equity is None
    assert seen[2].crypto_equity == Decimal(6)
    assert any("listed twice" in note for note in seen[0].notes)
    assert any("no market value" in note for note in seen[1].notes)

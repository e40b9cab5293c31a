"""``RestCrypto`` (the crypto lane over the Crypto Trading REST API) against the sandbox's REST
venue over loopback: quotes, pairs, review on ``estimated_price``, place under the
``client_order_id``, lookup, poll, cancel, the account's side of a decision; and the
venue's refusals of a stale timestamp and of a signature over another body, with nothing
placed."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any
from uuid import uuid4

import anyio
import httpx2
import owner_testkit
import pytest
from client_testkit import rhs_account_number
from venue_testkit import START, VenueClient

from ordergate.client.crypto_rest import ApiKey, CryptoRest
from ordergate.core import CryptoOrderType, CryptoTimeInForce, OrderState, Secret, Side
from ordergate.policy import CryptoProposal
from ordergate.venues import BrokerOrder, BrokerRefusal, CryptoLane, CryptoTicket, NoAnswer
from ordergate.venues.robinhood import RestCrypto

BOUND_S = 30
MAX_STEPS = 10


def ticket(account: str, **fields: Any) -> CryptoTicket:
    """0.01 BTC at market under a fresh id unless ``fields`` say otherwise."""
    terms: dict[str, Any] = {"pair": "BTC-USD", "side": Side.BUY, "asset_quantity": Decimal("0.01")}
    terms.update(fields)
    return CryptoTicket(ref_id=uuid4(), account=account, proposal=CryptoProposal(**terms))


def issued(sandbox: VenueClient) -> ApiKey:
    """A key the sandbox's REST venue knows (its private key in the suite's secret scan)."""
    answer = sandbox.admin("crypto_api_keys", {})
    owner_testkit.SECRETS.add(answer["private_key"])
    return ApiKey(Secret(answer["api_key"]), Secret(answer["private_key"]))


@asynccontextmanager
async def rest_lane(
    sandbox: VenueClient,
    *,
    now: Callable[[], float] = time.time,
    transport: httpx2.AsyncBaseTransport | None = None,
    account: str | None = None,
) -> AsyncIterator[RestCrypto]:
    async with CryptoRest(
        key=issued(sandbox), base_url=sandbox.base_url, now=now, transport=transport
    ) as rest:
        yield RestCrypto(rest, account=account)


def mcp_orders(sandbox: VenueClient, rhs: str) -> list[dict[str, Any]]:
    """Every crypto order of the account as the MCP lists it (the one account both lanes
    trade)."""
    result = sandbox.call("get_crypto_orders", {"rhs_account_number": rhs})
    orders: list[dict[str, Any]] = result["structuredContent"]["data"]["orders"]
    return orders


async def follow(
    lane: RestCrypto, sandbox: VenueClient, rhs: str, order: BrokerOrder
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


@pytest.mark.anyio
async def test_the_rest_lane_is_a_crypto_lane_named_rest(sandbox: VenueClient) -> None:
    async with rest_lane(sandbox) as lane:
        assert isinstance(lane, CryptoLane) and lane.name == "rest"


@pytest.mark.anyio
async def test_pairs_and_quote_come_from_the_trading_pairs_and_the_best_bid_ask(
    sandbox: VenueClient,
) -> None:
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            pairs = await lane.pairs()
            quote = await lane.quote("BTC-USD")
            missing = await lane.quote("NOPE-USD")
    btc = pairs["BTC-USD"]
    assert btc.min_order_size == Decimal("0.000001") and btc.tradable
    assert btc.asset_increment is not None and btc.quote_increment is not None
    assert quote is not None and quote.pair == "BTC-USD" and quote.at is not None
    assert quote.bid is not None and quote.ask is not None and 0 < quote.bid < quote.ask
    assert missing is None


@pytest.mark.anyio
async def test_review_prices_units_on_the_estimated_ask_and_places_nothing(
    sandbox: VenueClient, rhs: str
) -> None:
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            review = await lane.review(ticket(rhs))
    assert review.quote is not None and review.quote.ask is not None
    assert review.terms.price == review.quote.ask
    assert review.terms.quantity == Decimal("0.01")
    assert review.terms.notional == Decimal("0.01") * review.quote.ask
    assert review.terms.fees == 0 and review.checks_passed is None
    assert mcp_orders(sandbox, rhs) == []


@pytest.mark.anyio
async def test_review_of_dollars_sizes_units_at_the_far_side_and_keeps_the_dollars(
    sandbox: VenueClient, rhs: str
) -> None:
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            review = await lane.review(ticket(rhs, asset_quantity=None, quote_amount=Decimal("50")))
    assert review.terms.notional == Decimal("50")
    assert review.quote is not None and review.quote.ask is not None
    assert review.terms.quantity == Decimal("50") / review.quote.ask


@pytest.mark.anyio
async def test_a_market_buy_by_units_is_placed_under_the_client_order_id_filled_and_held(
    sandbox: VenueClient, rhs: str
) -> None:
    order = ticket(rhs, pair="ETH-USD", asset_quantity=Decimal("0.5"))
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            before = await lane.read(rhs, "ETH-USD")
            placement = await lane.place(order)
            assert placement.order is not None
            assert placement.order.ref_id == order.ref_id
            assert placement.order.quantity == Decimal("0.5")
            filled = await follow(lane, sandbox, rhs, placement.order)
            found = await lane.lookup(order, since=START)
            after = await lane.read(rhs, "ETH-USD")
    assert filled.state is OrderState.FILLED and filled.cumulative_quantity == Decimal("0.5")
    assert filled.filled_notional > 0 and filled.average_price is not None
    assert [fill.id for fill in filled.fills] == [f"{filled.order_id}:0"]
    assert found is not None and found.order_id == filled.order_id
    assert [o["id"] for o in mcp_orders(sandbox, rhs)] == [filled.order_id]
    assert before.holding is not None and before.holding.quantity == 0
    assert after.holding is not None and after.holding.quantity == Decimal("0.5")
    assert after.crypto_equity is not None and after.crypto_equity >= after.holding.market_value > 0
    assert before.cash is not None and after.cash is not None and after.cash < before.cash
    assert after.equity == after.cash + after.crypto_equity
    assert after.quote is not None and after.quote.pair == "ETH-USD"
    assert after.notes == () and after.open_orders == ()


@pytest.mark.anyio
async def test_a_market_buy_in_dollars_then_a_sell_in_dollars_fill(
    sandbox: VenueClient, rhs: str
) -> None:
    buy = ticket(rhs, asset_quantity=None, quote_amount=Decimal("100.00"))
    sell = ticket(rhs, side=Side.SELL, asset_quantity=None, quote_amount=Decimal("40.00"))
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            placed = await lane.place(buy)
            assert placed.order is not None and placed.order.quantity is None
            bought = await follow(lane, sandbox, rhs, placed.order)
            sold_placement = await lane.place(sell)
            assert sold_placement.order is not None
            sold = await follow(lane, sandbox, rhs, sold_placement.order)
    assert bought.state is OrderState.FILLED and bought.cumulative_quantity > 0
    assert sold.state is OrderState.FILLED and sold.side is Side.SELL
    assert 0 < sold.cumulative_quantity < bought.cumulative_quantity


@pytest.mark.anyio
async def test_a_resting_limit_sell_by_units_is_listed_open_then_cancelled(
    sandbox: VenueClient, rhs: str
) -> None:
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            bought = await lane.place(ticket(rhs, asset_quantity=Decimal("0.02")))
            assert bought.order is not None
            await follow(lane, sandbox, rhs, bought.order)
            resting = ticket(
                rhs,
                side=Side.SELL,
                order_type=CryptoOrderType.LIMIT,
                limit_price=Decimal("1000000.00"),
                time_in_force=CryptoTimeInForce.GTC,
            )
            placement = await lane.place(resting)
            assert placement.order is not None
            sandbox.step(3)
            view = await lane.read(rhs, None)
            await lane.cancel(rhs, placement.order.order_id)
            ended = await lane.poll(rhs, placement.order.order_id)
            with pytest.raises(BrokerRefusal):
                await lane.cancel(rhs, placement.order.order_id)
    assert view.open_orders is not None
    assert [o.order_id for o in view.open_orders] == [placement.order.order_id]
    assert view.holding is None and view.quote is None
    assert ended.state is OrderState.CANCELLED and ended.terminal


@pytest.mark.anyio
async def test_selling_what_is_not_held_is_refused_by_the_venue_and_nothing_is_live(
    sandbox: VenueClient, rhs: str
) -> None:
    order = ticket(rhs, side=Side.SELL)
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            with pytest.raises(BrokerRefusal) as refused:
                await lane.place(order)
            found = await lane.lookup(order, since=START)
    assert refused.value.code == "validation_error"
    assert found is None and mcp_orders(sandbox, rhs) == []


@pytest.mark.anyio
async def test_an_order_the_venue_rejects_reads_back_failed_as_the_api_names_it(
    sandbox: VenueClient, rhs: str
) -> None:
    sandbox.faults(reject_orders=1)
    async with rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            placement = await lane.place(ticket(rhs))
            assert placement.order is not None
            ended = await follow(lane, sandbox, rhs, placement.order)
    assert ended.state is OrderState.FAILED and ended.cumulative_quantity == 0


@pytest.mark.anyio
async def test_a_timestamp_31_s_old_is_refused_by_the_venue_and_nothing_is_placed(
    sandbox: VenueClient, rhs: str
) -> None:
    async with rest_lane(sandbox, now=lambda: time.time() - 31, account=rhs) as stale:
        with anyio.fail_after(BOUND_S), pytest.raises(BrokerRefusal) as refused:
            await stale.place(ticket(rhs))
    assert refused.value.code == "http_401"
    assert mcp_orders(sandbox, rhs) == []


class _Tampering(httpx2.AsyncBaseTransport):
    """Loopback HTTP that sends every order with one more dollar than was signed."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST" and request.content:
            body = json.loads(request.content)
            body["market_order_config"]["quote_amount"] = "26.00"
            content = json.dumps(body, separators=(",", ":")).encode()
            headers = {**request.headers, "content-length": str(len(content))}
            request = httpx2.Request(request.method, request.url, headers=headers, content=content)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.mark.anyio
async def test_a_signature_over_another_body_is_refused_by_the_venue_and_nothing_is_placed(
    sandbox: VenueClient, rhs: str
) -> None:
    order = ticket(rhs, asset_quantity=None, quote_amount=Decimal("25.00"))
    async with rest_lane(sandbox, transport=_Tampering()) as lane:
        with anyio.fail_after(BOUND_S), pytest.raises(BrokerRefusal) as refused:
            await lane.place(order)
    assert refused.value.code == "http_401"
    assert mcp_orders(sandbox, rhs) == []


@pytest.mark.anyio
async def test_a_read_or_a_ticket_for_another_account_is_refused_and_nothing_is_sent(
    sandbox: VenueClient, rhs: str
) -> None:
    async with rest_lane(sandbox) as first_read, rest_lane(sandbox) as lane:
        with anyio.fail_after(BOUND_S):
            with pytest.raises(BrokerRefusal) as unread:
                await first_read.read("0000000000", "BTC-USD")
            with pytest.raises(BrokerRefusal) as refused:
                await lane.place(ticket("0000000000"))
            with pytest.raises(BrokerRefusal) as read_after:
                await lane.read("0000000000", "BTC-USD")
            ours = await lane.read(rhs, "BTC-USD")
    codes = {unread.value.code, refused.value.code, read_after.value.code}
    assert codes == {"crypto_account_mismatch"}
    assert mcp_orders(sandbox, rhs) == []
    assert ours.cash is not None and ours.notes == ()


@pytest.mark.anyio
async def test_no_answer_from_the_rest_venue_means_the_order_may_be_live(
    sandbox: VenueClient, rhs: str
) -> None:
    async with CryptoRest(key=issued(sandbox), base_url="http://127.0.0.1:9") as rest:
        lane = RestCrypto(rest, account=rhs)
        with anyio.fail_after(BOUND_S):
            with pytest.raises(NoAnswer):
                await lane.place(ticket(rhs))
            with pytest.raises(NoAnswer):
                await lane.lookup(ticket(rhs), since=START)
            with pytest.raises(NoAnswer):
                await lane.poll(rhs, "0b0f6a52-0000-4000-8000-000000000000")
            with pytest.raises(NoAnswer):
                await lane.pairs()
            quote = await lane.quote("BTC-USD")
            view = await lane.read(rhs, "BTC-USD")
    assert quote is None
    assert (view.cash, view.holding, view.open_orders, view.equity) == (None, None, None, None)
    assert len(view.notes) == 3


@pytest.mark.anyio
async def test_the_rate_limit_the_client_keeps_refuses_before_anything_is_sent(
    sandbox: VenueClient, rhs: str
) -> None:
    async with CryptoRest(key=issued(sandbox), base_url=sandbox.base_url, max_wait_s=0) as rest:
        rest.bucket.drain()
        with anyio.fail_after(BOUND_S), pytest.raises(BrokerRefusal) as refused:
            await RestCrypto(rest, account=rhs).place(ticket(rhs))
    assert refused.value.code == "rate_limited"
    assert mcp_orders(sandbox, rhs) == []


@pytest.mark.anyio
async def test_a_review_the_venue_refuses_or_cannot_price_places_nothing(
    sandbox: VenueClient, rhs: str
) -> None:
    async with rest_lane(sandbox, account=rhs) as lane:
        with anyio.fail_after(BOUND_S):
            with pytest.raises(BrokerRefusal) as refused:
                await lane.review(ticket(rhs, pair="NOPE-USD"))
            with pytest.raises(NoAnswer, match="no best bid/ask"):
                await lane.review(ticket(rhs, pair="NOPE-USD", asset_quantity=None,
                                         quote_amount=Decimal("5")))  # fmt: skip
    assert refused.value.code == "validation_error"
    assert mcp_orders(sandbox, rhs) == []


@pytest.mark.anyio
async def test_an_unreadable_key_account_refuses_the_order_before_it_is_sent(rhs: str) -> None:
    key = ApiKey(Secret("rh-api-unreachable"), Secret("A" * 43 + "="))
    async with CryptoRest(key=key, base_url="http://127.0.0.1:9") as rest:
        with anyio.fail_after(BOUND_S), pytest.raises(BrokerRefusal) as refused:
            await RestCrypto(rest).place(ticket(rhs))
    assert refused.value.code == "account_unreadable"


# -- answers the sandbox never gives, scripted -------------------------------------------

QUOTE_ROW = {"symbol": "BTC-USD", "price": "100", "bid_inclusive_of_sell_spread": "99",
             "sell_spread": "0", "ask_inclusive_of_buy_spread": "101", "buy_spread": "0",
             "timestamp": "2026-12-01T15:00:00Z"}  # fmt: skip


def scripted(answers: dict[str, Any]) -> CryptoRest:
    """A REST client whose venue answers ``answers`` by path (a dict, or a function of the
    request); a path not in the script is a 500."""

    def handle(request: httpx2.Request) -> httpx2.Response:
        answer = answers.get(request.url.path)
        if callable(answer):
            answer = answer(request)
        if answer is None:
            return httpx2.Response(500)
        return httpx2.Response(200, json=answer)

    key = ApiKey(Secret("rh-api-scripted"), Secret("A" * 43 + "="))
    return CryptoRest(key=key, base_url="http://venue.test", transport=httpx2.MockTransport(handle))


def order_row(ticket_: CryptoTicket, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "0b0f6a52-0000-4000-8000-000000000001", "account_number": ticket_.account,
        "symbol": "BTC-USD", "client_order_id": str(ticket_.ref_id), "side": "buy",
        "type": "market", "state": "open", "average_price": None,
        "filled_asset_quantity": "0", "executions": [],
        "created_at": "2026-12-01T15:00:00Z", "updated_at": "2026-12-01T15:00:00Z",
        "market_order_config": {"asset_quantity": "0.01"},
    }  # fmt: skip
    row.update(fields)
    return row


@pytest.mark.anyio
async def test_a_place_answered_under_another_client_order_id_is_no_answer_about_ours() -> None:
    order = ticket("123")
    other = order_row(order, client_order_id=str(uuid4()))
    async with scripted({"/api/v1/crypto/trading/orders/": other}) as rest:
        with pytest.raises(NoAnswer, match="another client_order_id"):
            await RestCrypto(rest, account="123").place(order)


@pytest.mark.anyio
async def test_an_estimate_for_another_pair_is_no_answer_and_a_5xx_is_no_answer() -> None:
    wrong = {"results": [{**QUOTE_ROW, "symbol": "ETH-USD", "side": "ask", "quantity": "0.01"}]}
    async with scripted({"/api/v1/crypto/marketdata/estimated_price/": wrong}) as rest:
        lane = RestCrypto(rest, account="123")
        with pytest.raises(NoAnswer, match="another order"):
            await lane.review(ticket("123"))
    async with scripted({}) as rest:
        lane = RestCrypto(rest, account="123")
        with pytest.raises(NoAnswer):
            await lane.review(ticket("123"))
        with pytest.raises(NoAnswer):
            await lane.cancel("123", "0b0f6a52-0000-4000-8000-000000000001")


@pytest.mark.anyio
async def test_an_open_order_reads_confirmed_and_an_undocumented_state_is_kept_as_text() -> None:
    order = ticket("123")
    path = "/api/v1/crypto/trading/orders/0b0f6a52-0000-4000-8000-000000000001/"
    states = iter(["open", "held_for_review"])
    async with scripted({path: lambda _: order_row(order, state=next(states))}) as rest:
        lane = RestCrypto(rest)
        polled = await lane.poll("123", "0b0f6a52-0000-4000-8000-000000000001")
        unknown = await lane.poll("123", "0b0f6a52-0000-4000-8000-000000000001")
    assert polled.state is OrderState.CONFIRMED and not polled.terminal
    assert polled.quantity == Decimal("0.01") and polled.ref_id == order.ref_id
    assert unknown.state == "held_for_review" and not unknown.terminal


@pytest.mark.anyio
async def test_holdings_without_a_mark_or_listed_twice_leave_the_holding_unknown() -> None:
    account = {"account_number": "123", "status": "active", "buying_power": "1000",
               "buying_power_currency": "USD"}  # fmt: skip
    held = {"account_number": "123", "asset_code": "DOGE", "total_quantity": "5",
            "quantity_available_for_trading": "5"}  # fmt: skip
    listings = {"/api/v1/crypto/trading/accounts/": account,
                "/api/v1/crypto/trading/orders/": {"next": None, "results": []},
                "/api/v1/crypto/marketdata/best_bid_ask/": {"results": [QUOTE_ROW]}}  # fmt: skip
    for rows, why in (([held], "no mark for DOGE"), ([held, held], "an asset is listed twice")):
        answers = {**listings, "/api/v1/crypto/trading/holdings/": {"next": None, "results": rows}}
        async with scripted(answers) as rest:
            view = await RestCrypto(rest).read("123", "BTC-USD")
        assert view.holding is None and view.crypto_equity is None and view.equity is None
        assert view.cash == Decimal("1000") and view.open_orders == ()
        assert view.notes == (f"holdings: {why}",)

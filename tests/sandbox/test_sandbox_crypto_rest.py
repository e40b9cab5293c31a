"""The sandbox's Crypto Trading REST venue over loopback: the REST client against the crypto
desk the MCP tools trade on, every request's key, time and signature checked."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any
from uuid import uuid4

import httpx2
import owner_testkit
import pytest
from client_testkit import rhs_account_number
from crypto_rest_testkit import DOC_PRIVATE_KEY, DOC_PUBLIC_KEY
from venue_testkit import VenueClient, running_venue

from ordergate.client import BusinessError, HTTPStatusError
from ordergate.client.crypto_rest import ApiKey, CryptoRest, RestOrderRequest
from ordergate.core import CryptoOrderType, CryptoTimeInForce, Secret, Side, wire_time

ORDERS = "/api/v1/crypto/trading/orders/"


@pytest.fixture(scope="module")
def venue() -> Iterator[VenueClient]:
    with running_venue() as client:
        yield client


def _issued(venue: VenueClient) -> ApiKey:
    issued = venue.admin("crypto_api_keys", {})
    owner_testkit.SECRETS.add(issued["private_key"])  # the suite's secret scan looks for it
    return ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))


def _mcp_orders(venue: VenueClient) -> list[dict[str, Any]]:
    result = venue.call("get_crypto_orders", {"rhs_account_number": rhs_account_number(venue)})
    orders: list[dict[str, Any]] = result["structuredContent"]["data"]["orders"]
    return orders


def _market_buy(**terms: Any) -> RestOrderRequest:
    fields: dict[str, Any] = {"client_order_id": uuid4(), "symbol": "BTC-USD",
                              "side": Side.BUY, "type": CryptoOrderType.MARKET,
                              "quote_amount": Decimal("25.00")}  # fmt: skip
    fields.update(terms)
    return RestOrderRequest(**fields)


@pytest.mark.anyio
async def test_rest_reads_answer_for_the_agentic_crypto_account(venue: VenueClient) -> None:
    async with CryptoRest(key=_issued(venue), base_url=venue.base_url) as rest:
        account = await rest.account()
        pairs = await rest.trading_pairs()
        (btc,) = await rest.trading_pairs("BTC-USD")
        (quote,) = await rest.best_bid_ask("BTC-USD")
        estimates = await rest.estimated_price("BTC-USD", "both", [Decimal("0.01")])
        await rest.holdings("BTC")
    assert account.account_number == rhs_account_number(venue)
    assert account.buying_power > 0
    assert "BTC-USD" in {pair.symbol for pair in pairs}
    assert btc.min_order_size > 0
    assert quote.bid_inclusive_of_sell_spread < quote.ask_inclusive_of_buy_spread
    assert [e.side for e in estimates] == ["bid", "ask"]


@pytest.mark.anyio
async def test_an_order_placed_over_rest_is_the_order_the_mcp_lists(venue: VenueClient) -> None:
    request = _market_buy()
    async with CryptoRest(key=_issued(venue), base_url=venue.base_url) as rest:
        placed = await rest.place_order(request)
        again = await rest.order(placed.id)
        listed = await rest.orders(symbol="BTC-USD")
    assert placed.client_order_id == str(request.client_order_id)
    assert again.id == placed.id and placed.id in {order.id for order in listed}
    assert placed.market_order_config == {"quote_amount": "25.00"}
    assert placed.id in {order["id"] for order in _mcp_orders(venue)}


@pytest.mark.anyio
async def test_a_limit_order_cancelled_over_rest_is_canceled_on_the_desk(
    venue: VenueClient,
) -> None:
    async with CryptoRest(key=_issued(venue), base_url=venue.base_url) as rest:
        (quote,) = await rest.best_bid_ask("BTC-USD")
        low = (quote.bid_inclusive_of_sell_spread / 2).quantize(Decimal("0.01"))
        placed = await rest.place_order(
            _market_buy(
                type=CryptoOrderType.LIMIT,
                quote_amount=None,
                asset_quantity=Decimal("0.001"),
                limit_price=low,
                time_in_force=CryptoTimeInForce.GTC,
            )
        )
        await rest.cancel_order(placed.id)
        cancelled = await rest.order(placed.id)
        with pytest.raises(BusinessError) as missing:
            await rest.order("00000000-0000-4000-8000-000000000000")
    assert cancelled.state == "canceled"
    assert missing.value.code == "client_error"
    mcp = {order["id"]: order["state"] for order in _mcp_orders(venue)}
    assert mcp[placed.id] == "canceled"


@pytest.mark.anyio
async def test_an_order_the_desk_refuses_names_the_field(venue: VenueClient) -> None:
    async with CryptoRest(key=_issued(venue), base_url=venue.base_url) as rest:
        with pytest.raises(BusinessError) as unknown:
            await rest.place_order(_market_buy(symbol="NOPE-USD"))
        with pytest.raises(BusinessError) as small:
            await rest.place_order(_market_buy(quote_amount=None, asset_quantity=Decimal("1e-12")))
    assert (unknown.value.code, unknown.value.field) == ("validation_error", "symbol")
    assert small.value.field == "quantity"


@pytest.mark.anyio
@pytest.mark.req("sandbox.crypto-rest.verified")
async def test_a_timestamp_31_seconds_old_is_refused_401_and_nothing_is_placed(
    venue: VenueClient,
) -> None:
    before = len(_mcp_orders(venue))
    key = _issued(venue)
    async with CryptoRest(key=key, base_url=venue.base_url, now=lambda: time.time() - 31) as rest:
        with pytest.raises(HTTPStatusError) as refused:
            await rest.place_order(_market_buy())
    assert refused.value.status == 401
    assert len(_mcp_orders(venue)) == before


def _post(venue: VenueClient, key: ApiKey, signed_body: str, sent_body: str) -> httpx2.Response:
    timestamp = int(time.time())
    headers = key.headers(timestamp, ORDERS, "POST", signed_body)
    headers["content-type"] = "application/json"
    return httpx2.post(venue.base_url + ORDERS, content=sent_body.encode(), headers=headers)


def _body(**terms: Any) -> str:
    body = {"client_order_id": str(uuid4()), "side": "buy", "type": "market",
            "symbol": "BTC-USD", "market_order_config": {"quote_amount": "10.00"}}  # fmt: skip
    body.update(terms)
    return json.dumps(body)


@pytest.mark.req("sandbox.crypto-rest.verified")
def test_a_signature_over_a_different_body_is_refused_and_nothing_is_placed(
    venue: VenueClient,
) -> None:
    before = len(_mcp_orders(venue))
    key = _issued(venue)
    signed, sent = _body(), _body(market_order_config={"quote_amount": "900.00"})
    answer = _post(venue, key, signed, sent)
    assert answer.status_code == 401
    assert answer.json()["type"] == "client_error"
    assert len(_mcp_orders(venue)) == before
    assert _post(venue, key, sent, sent).status_code == 201


@pytest.mark.req("sandbox.crypto-rest.verified")
def test_an_unknown_api_key_is_refused_401(venue: VenueClient) -> None:
    stranger = ApiKey(Secret("rh-api-unknown"), Secret(DOC_PRIVATE_KEY))
    answer = _post(venue, stranger, _body(), _body())
    assert answer.status_code == 401
    assert answer.json()["errors"][0]["detail"] == "Invalid API key."


def test_a_registered_public_key_signs_for_its_api_key_and_bad_bodies_are_named(
    venue: VenueClient,
) -> None:
    issued = venue.admin("crypto_api_keys", {"public_key": DOC_PUBLIC_KEY})
    assert "private_key" not in issued
    key = ApiKey(Secret(issued["api_key"]), Secret(DOC_PRIVATE_KEY))
    for body, attr in (
        ("not json", "body"),
        ("[1]", "body"),
        (_body(market_order_config=None), "type"),
    ):
        answer = _post(venue, key, body, body)
        assert answer.status_code == 400
        assert answer.json()["errors"][0]["attr"] == attr
    refused = venue.http.post(f"{venue.base_url}/_sandbox/crypto_api_keys", json={"public_key": 1})
    assert refused.status_code == 400


@pytest.mark.anyio
async def test_estimated_price_refuses_a_bad_side_or_quantity(venue: VenueClient) -> None:
    async with CryptoRest(key=_issued(venue), base_url=venue.base_url) as rest:
        for side, quantities, attr in (
            ("sideways", [Decimal("1")], "side"),
            ("bid", [Decimal("-1")], "quantity"),
        ):
            with pytest.raises(BusinessError) as refused:
                await rest.estimated_price("BTC-USD", side, quantities)  # type: ignore[arg-type]
            assert refused.value.field == attr
        with pytest.raises(BusinessError) as unknown:
            await rest.best_bid_ask("NOPE-USD")
    assert unknown.value.field == "symbol"


@pytest.mark.anyio
async def test_listings_follow_the_venues_next_pages_and_a_stop_limit_keeps_both_prices() -> None:
    with running_venue(page_size=2) as small:
        async with CryptoRest(key=_issued(small), base_url=small.base_url) as rest:
            pairs = await rest.trading_pairs()
            (eth,) = await rest.trading_pairs("ETH-USD")
            (quote,) = await rest.best_bid_ask("ETH-USD")
            high = (quote.ask_inclusive_of_buy_spread * 2).quantize(eth.quote_increment)
            placed = await rest.place_order(
                _market_buy(
                    symbol="ETH-USD",
                    type=CryptoOrderType.STOP_LIMIT,
                    quote_amount=None,
                    asset_quantity=Decimal("0.01"),
                    limit_price=high,
                    stop_price=high,
                    time_in_force=CryptoTimeInForce.GTC,
                )
            )
            await rest.cancel_order(placed.id)
    assert len(pairs) > 2 and len({pair.symbol for pair in pairs}) == len(pairs)
    config = placed.stop_limit_order_config or {}
    assert Decimal(config["stop_price"]) == Decimal(config["limit_price"]) == high


@pytest.mark.anyio
async def test_a_filtered_listing_keeps_its_filters_on_every_page_and_bounds_by_creation() -> None:
    with running_venue(page_size=2) as small:
        async with CryptoRest(key=_issued(small), base_url=small.base_url) as rest:
            resting: dict[str, list[str]] = {"BTC-USD": [], "ETH-USD": []}
            for symbol, count in (("BTC-USD", 2), ("ETH-USD", 3)):
                (pair,) = await rest.trading_pairs(symbol)
                (quote,) = await rest.best_bid_ask(symbol)
                low = (quote.bid_inclusive_of_sell_spread / 2).quantize(pair.quote_increment)
                for _ in range(count):
                    placed = await rest.place_order(
                        _market_buy(symbol=symbol, type=CryptoOrderType.LIMIT, quote_amount=None,
                                    asset_quantity=Decimal("0.01"), limit_price=low,
                                    time_in_force=CryptoTimeInForce.GTC)
                    )  # fmt: skip
                    resting[symbol].append(placed.id)
            first = min(o.created_at for o in await rest.orders(symbol="BTC-USD"))
            later = max(o.created_at for o in await rest.orders()) + timedelta(seconds=1)
            eth = await rest.orders(symbol="ETH-USD", state="open")
            since = await rest.orders(symbol="BTC-USD", created_at_start=wire_time(first))
            none_yet = await rest.orders(created_at_start=wire_time(later))
            until = await rest.orders(created_at_end=wire_time(later))
            with pytest.raises(BusinessError) as unreadable:
                await rest.orders(created_at_start="yesterday")
            for ids in resting.values():
                for order_id in ids:
                    await rest.cancel_order(order_id)
    # Three ETH orders over two pages: the second page is ETH's too, not the book's rest.
    assert sorted(o.id for o in eth) == sorted(resting["ETH-USD"])
    assert sorted(o.id for o in since) == sorted(resting["BTC-USD"])
    assert none_yet == [] and len(until) == 5
    assert unreadable.value.field == "created_at_start"


def test_a_quantity_that_is_not_a_number_is_refused_naming_it(venue: VenueClient) -> None:
    key = _issued(venue)
    path = "/api/v1/crypto/marketdata/estimated_price/?symbol=BTC-USD&side=bid&quantity=abc"
    headers = key.headers(int(time.time()), path, "GET", "")
    answer = httpx2.get(venue.base_url + path, headers=headers)
    assert answer.status_code == 400
    assert answer.json()["errors"][0]["attr"] == "quantity"


@pytest.mark.anyio
async def test_an_account_whose_orders_wait_for_approval_is_refused_over_rest() -> None:
    with running_venue(approval_required=True) as waiting:
        async with CryptoRest(key=_issued(waiting), base_url=waiting.base_url) as rest:
            with pytest.raises(BusinessError) as refused:
                await rest.place_order(_market_buy())
    assert refused.value.code == "validation_error"

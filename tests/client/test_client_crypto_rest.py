"""The Crypto Trading REST client: signing, the rate limit, every endpoint over loopback."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from crypto_rest_testkit import (
    ACCOUNT,
    DOC_API_KEY,
    DOC_PRIVATE_KEY,
    DOC_PUBLIC_KEY,
    NOW_S,
    RestStandIn,
    rest_stand_in,
)
from pydantic import ValidationError

from ordergate.client import BusinessError, HTTPStatusError, ResponseParseError, TransportError
from ordergate.client._pages import PaginationError
from ordergate.client.crypto_rest import (
    VALID_S,
    ApiKey,
    CryptoKeyRequired,
    CryptoRest,
    KeyFormatError,
    RateLimitWait,
    RestOrderRequest,
    TokenBucket,
    default_key_file,
    read_key_file,
    signature_problem,
    write_key_file,
)
from ordergate.core import CryptoOrderState, CryptoOrderType, CryptoTimeInForce, Secret, Side

# The documentation's worked example ("Headers and Signature", docs.robinhood.com/crypto/trading):
# its Python sample signs Python's str() of the body dict, and publishes this signature.
DOC_TIMESTAMP = "1698708981"
DOC_PATH = "/api/v1/crypto/trading/orders/"
DOC_BODY = (
    "{'client_order_id': '131de903-5a9c-4260-abc1-28d562a5dcf0', 'side': 'buy', "
    "'symbol': 'BTC-USD', 'type': 'market', 'market_order_config': {'asset_quantity': '0.1'}}"
)
DOC_SIGNATURE = (
    "q/nEtxp/P2Or3hph3KejBqnw5o9qeuQ+hYRnB56FaHbjDsNUY9KhB1asMxohDnzdVFSD7StaTqjSd9U9HvaRAw=="
)


def _key() -> ApiKey:
    return ApiKey(Secret(DOC_API_KEY), Secret(DOC_PRIVATE_KEY))


class SteppedTime:
    """A monotonic clock that moves only when the client waits on it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


@asynccontextmanager
async def _client(stand_in: RestStandIn, **options: Any) -> AsyncIterator[CryptoRest]:
    time = options.pop("time", SteppedTime())
    async with CryptoRest(
        key=_key(),
        base_url=stand_in.url,
        now=lambda: stand_in.now_s[0],
        monotonic=time,
        sleep=time.sleep,
        **options,
    ) as rest:
        yield rest


# -- signing ---------------------------------------------------------------------------------


@pytest.mark.req("client.crypto-rest.signature")
def test_signing_reproduces_the_documentations_example_signature() -> None:
    key = _key()
    assert key.public_key == DOC_PUBLIC_KEY
    assert key.sign(DOC_TIMESTAMP, DOC_PATH, "POST", DOC_BODY) == DOC_SIGNATURE


@pytest.mark.req("client.crypto-rest.signature")
def test_the_documented_signature_verifies_with_the_public_key_alone() -> None:
    fields = {"api_key": DOC_API_KEY, "timestamp": DOC_TIMESTAMP, "path": DOC_PATH,
              "method": "POST"}  # fmt: skip
    now = float(DOC_TIMESTAMP)
    assert (
        signature_problem(DOC_PUBLIC_KEY, DOC_SIGNATURE, body=DOC_BODY, now_s=now, **fields) is None
    )
    other_body = DOC_BODY.replace("0.1", "1.0")
    assert signature_problem(DOC_PUBLIC_KEY, DOC_SIGNATURE, body=other_body, now_s=now, **fields)


def test_a_timestamp_older_than_thirty_seconds_is_refused() -> None:
    fields = {"api_key": DOC_API_KEY, "timestamp": DOC_TIMESTAMP, "path": DOC_PATH,
              "method": "POST", "body": DOC_BODY}  # fmt: skip
    now = float(DOC_TIMESTAMP)
    assert signature_problem(DOC_PUBLIC_KEY, DOC_SIGNATURE, now_s=now + VALID_S, **fields) is None
    late = signature_problem(DOC_PUBLIC_KEY, DOC_SIGNATURE, now_s=now + VALID_S + 1, **fields)
    assert late is not None and "30 seconds" in late
    assert signature_problem(DOC_PUBLIC_KEY, "not base64!", now_s=now, **fields)
    bad_time = dict(fields, timestamp="16987e3")
    assert signature_problem(DOC_PUBLIC_KEY, DOC_SIGNATURE, now_s=now, **bad_time)


def test_a_private_key_that_is_not_a_32_byte_seed_is_refused_without_showing_it() -> None:
    for bad in ("not base64 at all", "c2hvcnQ="):
        with pytest.raises(KeyFormatError) as refused:
            ApiKey(Secret(DOC_API_KEY), Secret(bad))
        assert bad not in str(refused.value)
    with pytest.raises(KeyFormatError):
        ApiKey(Secret("  "), Secret(DOC_PRIVATE_KEY))


@pytest.mark.req("client.crypto-rest.key-secret")
def test_the_key_never_shows_in_a_repr_or_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    key = _key()
    assert DOC_PRIVATE_KEY not in repr(key) and DOC_API_KEY not in repr(key)
    from ordergate.core import RedactingFilter

    logger = logging.getLogger("ordergate.test.crypto_rest")
    caplog.handler.addFilter(RedactingFilter())
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.info("key %s and %s", DOC_PRIVATE_KEY, DOC_API_KEY)
    assert DOC_PRIVATE_KEY not in caplog.text and DOC_API_KEY not in caplog.text


# -- the key file ----------------------------------------------------------------------------


@pytest.mark.req("client.crypto-rest.key-secret")
def test_the_key_file_is_private_and_reads_back_the_same_key(tmp_path: Path) -> None:
    path = tmp_path / "home" / "robinhood-crypto-api.json"
    write_key_file(path, _key())
    assert path.stat().st_mode & 0o777 == 0o600
    assert read_key_file(path).sign(DOC_TIMESTAMP, DOC_PATH, "POST", DOC_BODY) == DOC_SIGNATURE


def test_the_key_file_lives_in_the_ordergate_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    assert default_key_file() == tmp_path / "robinhood-crypto-api.json"


def test_a_missing_or_damaged_key_file_asks_for_login_naming_no_value(tmp_path: Path) -> None:
    path = tmp_path / "key.json"
    with pytest.raises(CryptoKeyRequired, match="login --crypto-api"):
        read_key_file(path)
    path.write_text("{")
    with pytest.raises(CryptoKeyRequired, match="not JSON"):
        read_key_file(path)
    path.write_text(json.dumps({"api_key": DOC_API_KEY}))
    with pytest.raises(CryptoKeyRequired, match="private_key"):
        read_key_file(path)
    path.write_text(json.dumps({"api_key": DOC_API_KEY, "private_key": "c2hvcnQ="}))
    with pytest.raises(CryptoKeyRequired, match="damaged") as refused:
        read_key_file(path)
    assert DOC_API_KEY not in str(refused.value)
    path.unlink()
    path.mkdir()
    with pytest.raises(CryptoKeyRequired, match="cannot be read"):
        read_key_file(path)


# -- the rate limit --------------------------------------------------------------------------


@pytest.mark.req("client.crypto-rest.rate-limit")
def test_the_bucket_allows_a_burst_of_300_then_100_a_minute() -> None:
    time = SteppedTime()
    bucket = TokenBucket(time)
    assert [bucket.take() for _ in range(300)] == [0.0] * 300
    assert bucket.take() == pytest.approx(0.6)
    time.now += 60
    assert sum(bucket.take() == 0.0 for _ in range(150)) == 100
    with pytest.raises(ValueError, match="at least 1"):
        TokenBucket(time, per_minute=0)


@pytest.mark.anyio
@pytest.mark.req("client.crypto-rest.rate-limit")
async def test_the_client_waits_its_turn_before_sending_rather_than_meeting_a_429() -> None:
    time = SteppedTime()
    with rest_stand_in() as stand_in:
        bucket = TokenBucket(time, per_minute=60, burst=2)
        async with _client(stand_in, time=time, bucket=bucket) as rest:
            for _ in range(4):
                await rest.account()
    assert len(stand_in.requests) == 4
    assert time.waits == [pytest.approx(1.0), pytest.approx(1.0)]


@pytest.mark.anyio
async def test_a_wait_longer_than_the_bound_is_refused_and_nothing_is_sent() -> None:
    time = SteppedTime()
    with rest_stand_in() as stand_in:
        bucket = TokenBucket(time, per_minute=1, burst=1)
        async with _client(stand_in, time=time, bucket=bucket, max_wait_s=5) as rest:
            await rest.account()
            with pytest.raises(RateLimitWait) as refused:
                await rest.account()
    assert refused.value.code == "rate_limited"
    assert len(stand_in.requests) == 1


@pytest.mark.anyio
async def test_a_429_is_an_error_and_empties_the_bucket() -> None:
    with rest_stand_in() as stand_in:
        stand_in.answers["/api/v1/crypto/trading/accounts/"] = (429, {"type": "throttled"})
        async with _client(stand_in) as rest:
            with pytest.raises(HTTPStatusError) as refused:
                await rest.account()
            assert rest.bucket.tokens < 1
    assert refused.value.status == 429


# -- the endpoints ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_account_reads_buying_power_as_decimal_and_every_request_is_signed() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            account = await rest.account()
    assert account.account_number == ACCOUNT
    assert account.buying_power == Decimal("1000.50")
    (arrived,) = stand_in.requests
    assert arrived.headers["x-api-key"] == DOC_API_KEY
    assert arrived.headers["x-timestamp"] == str(int(NOW_S))


@pytest.mark.anyio
async def test_holdings_follow_every_next_page() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            holdings = await rest.holdings()
            btc = await rest.holdings("BTC")
    assert [h.asset_code for h in holdings] == ["BTC", "ETH", "DOGE"]
    assert holdings[2].total_quantity == Decimal("1000")
    assert [h.asset_code for h in btc] == ["BTC"]
    assert [r.path for r in stand_in.requests][1].endswith("?cursor=2")


@pytest.mark.anyio
async def test_a_listing_longer_than_the_page_bound_is_refused() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in, max_pages=1) as rest:
            with pytest.raises(PaginationError) as refused:
                await rest.orders()
    assert refused.value.code == "page_limit"


@pytest.mark.anyio
async def test_a_next_page_on_another_origin_is_never_requested() -> None:
    with rest_stand_in() as stand_in:
        page = {"next": "http://elsewhere.example/api/v1/crypto/trading/holdings/?cursor=2",
                "results": []}  # fmt: skip
        stand_in.answers["/api/v1/crypto/trading/holdings/"] = (200, page)
        async with _client(stand_in) as rest:
            with pytest.raises(PaginationError) as refused:
                await rest.holdings()
    assert refused.value.code == "foreign_next"
    assert len(stand_in.requests) == 1


@pytest.mark.anyio
async def test_trading_pairs_carry_their_increments_and_size_bounds() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            (pair,) = await rest.trading_pairs("BTC-USD")
    assert pair.min_order_size == Decimal("0.000001")
    assert pair.asset_increment == Decimal("0.00000001")
    assert stand_in.requests[0].path.endswith("?symbol=BTC-USD")


@pytest.mark.anyio
async def test_best_bid_ask_reads_both_sides_of_each_symbol() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            quotes = await rest.best_bid_ask("BTC-USD", "ETH-USD")
    assert [q.symbol for q in quotes] == ["BTC-USD", "ETH-USD"]
    assert quotes[0].bid_inclusive_of_sell_spread == Decimal("59900.00")
    assert quotes[0].ask_inclusive_of_buy_spread == Decimal("60100.00")


@pytest.mark.anyio
async def test_estimated_price_sends_the_quantities_as_decimal_text() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            estimates = await rest.estimated_price(
                "BTC-USD", "ask", [Decimal("0.1"), Decimal("1.50")]
            )
            with pytest.raises(ValueError, match="quantities"):
                await rest.estimated_price("BTC-USD", "ask", [])
    assert [e.quantity for e in estimates] == [Decimal("0.1"), Decimal("1.50")]
    assert "quantity=0.1%2C1.50" in stand_in.requests[0].path


@pytest.mark.anyio
async def test_a_quote_without_its_price_is_refused_naming_the_field_never_zero() -> None:
    with rest_stand_in() as stand_in:
        quote = {
            "symbol": "BTC-USD",
            "price": "1",
            "bid_inclusive_of_sell_spread": "",
            "ask_inclusive_of_buy_spread": "2",
            "timestamp": "2026-12-02T14:00:00Z",
        }
        stand_in.answers["/api/v1/crypto/marketdata/best_bid_ask/"] = (200, {"results": [quote]})
        async with _client(stand_in) as rest:
            with pytest.raises(ResponseParseError) as refused:
                await rest.best_bid_ask("BTC-USD")
    assert refused.value.field == "bid_inclusive_of_sell_spread"


@pytest.mark.anyio
async def test_orders_list_every_page_and_one_order_reads_its_executions() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            orders = await rest.orders(symbol="BTC-USD")
            one = await rest.order("order-1")
            with pytest.raises(BusinessError) as missing:
                await rest.order("order-404")
            with pytest.raises(ValueError, match="order_id"):
                await rest.order("../accounts")
    assert [o.id for o in orders] == ["order-1", "order-2", "order-3"]
    assert one.state is CryptoOrderState.FILLED and one.ended
    assert one.executions[0].effective_price == Decimal("60000.10")
    assert missing.value.code == "client_error"


@pytest.mark.anyio
async def test_place_order_sends_the_signed_body_it_built_once() -> None:
    client_order_id = UUID("131de903-5a9c-4260-abc1-28d562a5dcf0")
    request = RestOrderRequest(
        client_order_id=client_order_id, symbol="BTC-USD", side=Side.BUY,
        type=CryptoOrderType.LIMIT, asset_quantity=Decimal("0.0010"),
        limit_price=Decimal("59000.5"), time_in_force=CryptoTimeInForce.GTC,
    )  # fmt: skip
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            order = await rest.place_order(request)
    assert order.client_order_id == str(client_order_id)
    assert order.state == "open" and not order.ended
    (arrived,) = stand_in.requests
    assert json.loads(arrived.body) == {
        "client_order_id": str(client_order_id), "side": "buy", "type": "limit",
        "symbol": "BTC-USD",
        "limit_order_config": {"asset_quantity": "0.0010", "limit_price": "59000.5",
                               "time_in_force": "gtc"},
    }  # fmt: skip


@pytest.mark.anyio
async def test_a_refused_order_raises_with_the_venues_code_and_field() -> None:
    request = RestOrderRequest(
        client_order_id=UUID(int=1), symbol="NOPE-USD", side=Side.SELL,
        type=CryptoOrderType.MARKET, quote_amount=Decimal("10"),
    )  # fmt: skip
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            with pytest.raises(BusinessError) as refused:
                await rest.place_order(request)
    assert (refused.value.code, refused.value.field) == ("validation_error", "symbol")


@pytest.mark.anyio
async def test_cancel_order_posts_to_the_orders_cancel_path() -> None:
    with rest_stand_in() as stand_in:
        async with _client(stand_in) as rest:
            await rest.cancel_order("order-2")
    (arrived,) = stand_in.requests
    assert (arrived.method, arrived.path) == (
        "POST",
        "/api/v1/crypto/trading/orders/order-2/cancel/",
    )


@pytest.mark.anyio
async def test_a_request_signed_with_another_key_is_refused_401_and_says_no_key() -> None:
    other_public = ApiKey(Secret("rh-api-other"), Secret("A" * 43 + "=")).public_key
    with rest_stand_in(public_key=other_public) as stand_in:
        async with _client(stand_in) as rest:
            with pytest.raises(HTTPStatusError) as refused:
                await rest.account()
    assert refused.value.status == 401
    assert DOC_PRIVATE_KEY not in str(refused.value) and DOC_API_KEY not in str(refused.value)


@pytest.mark.anyio
async def test_a_request_whose_clock_is_31_seconds_behind_is_refused() -> None:
    with rest_stand_in() as stand_in:
        async with CryptoRest(key=_key(), base_url=stand_in.url, now=lambda: NOW_S - 31) as rest:
            with pytest.raises(HTTPStatusError) as refused:
                await rest.account()
    assert refused.value.status == 401 and "30 seconds" in str(refused.value)


@pytest.mark.anyio
async def test_no_answer_is_a_transport_error_and_a_non_json_answer_a_parse_error() -> None:
    from capture_testkit import unused_port

    async with CryptoRest(key=_key(), base_url=f"http://127.0.0.1:{unused_port()}") as rest:
        with pytest.raises(TransportError):
            await rest.account()
    with rest_stand_in() as stand_in:
        stand_in.answers["/api/v1/crypto/trading/accounts/"] = (200, "not an object")
        stand_in.answers["/api/v1/crypto/trading/holdings/"] = (502, None)
        stand_in.answers["/api/v1/crypto/trading/trading_pairs/"] = (200, b"<html>")
        stand_in.answers["/api/v1/crypto/marketdata/best_bid_ask/"] = (503, b"down")
        async with _client(stand_in) as rest:
            with pytest.raises(ResponseParseError):
                await rest.account()
            with pytest.raises(HTTPStatusError) as bad_gateway:
                await rest.holdings()
            with pytest.raises(ResponseParseError, match="not JSON"):
                await rest.trading_pairs()
            with pytest.raises(HTTPStatusError) as down:
                await rest.best_bid_ask()
    assert bad_gateway.value.status == 502 and down.value.status == 503
    assert repr(rest) == f"CryptoRest(origin={stand_in.url!r})"


def test_a_base_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(ValueError, match="base_url"):
        CryptoRest(key=_key(), base_url="ftp://example")


# -- the order request -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "problem"),
    [
        ({"asset_quantity": "1", "quote_amount": "1"}, "exactly one"),
        ({}, "exactly one"),
        ({"asset_quantity": "1", "limit_price": "5"}, "does not apply"),
        ({"asset_quantity": "1", "time_in_force": "gtc"}, "does not apply"),
        ({"asset_quantity": "1", "type": "limit", "time_in_force": "gtc"}, "needs limit_price"),
        ({"asset_quantity": "1", "type": "stop_loss", "stop_price": "5"}, "needs time_in_force"),
        ({"asset_quantity": "0"}, "greater than zero"),
        ({"asset_quantity": 0.1}, "expected a Decimal"),
        ({"asset_quantity": "1", "symbol": "btc usd"}, "pattern"),
    ],
)
def test_an_order_request_that_does_not_fit_its_type_is_refused(
    terms: dict[str, Any], problem: str
) -> None:
    fields: dict[str, Any] = {"client_order_id": UUID(int=7), "symbol": "BTC-USD",
                              "side": "buy", "type": "market"}  # fmt: skip
    fields.update(terms)
    with pytest.raises(ValidationError, match=problem):
        RestOrderRequest(**fields)


def test_a_stop_limit_order_writes_both_prices_in_its_config() -> None:
    request = RestOrderRequest(
        client_order_id=UUID(int=7), symbol="ETH-USD", side=Side.SELL,
        type=CryptoOrderType.STOP_LIMIT, quote_amount=Decimal("25.00"),
        limit_price=Decimal("2900"), stop_price=Decimal("2950"),
        time_in_force=CryptoTimeInForce.GFD,
    )  # fmt: skip
    assert request.body()["stop_limit_order_config"] == {
        "quote_amount": "25.00", "limit_price": "2900", "stop_price": "2950",
        "time_in_force": "gfd",
    }  # fmt: skip

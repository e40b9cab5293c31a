"""The guard's crypto orders on the REST rail and the route, against the sandbox venue as the
broker (its MCP and its Crypto Trading REST API on loopback, one crypto account): filed
naming the lane the route chose once, placed under the filing's id as ``client_order_id``,
followed on that lane to its end; readiness off takes the REST rail, on takes the MCP, and a
change between filing and placement never places one order twice; a stale timestamp or a
signature over another body is refused at the venue with nothing placed."""

from __future__ import annotations

import json
import time
from decimal import ROUND_DOWN, Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from client_testkit import rhs_account_number
from guard_kit import Desk, desk, policy

from ordergate.core import CryptoOrderType, Side
from ordergate.ledger import FilingStatus
from ordergate.policy import CryptoProposal

pytestmark = pytest.mark.anyio

CRYPTO = """
[crypto]
pairs = ["BTC-USD", "ETH-USD"]
max_order_usd = "40000"
max_position_pct = "100"
price_collar_bps = 500
"""
REST = CRYPTO + 'route = "rest"\n'
CRYPTO_ORDER_TOOLS = ["preview_crypto_order", "place_crypto_order", "cancel_crypto_order"]
D = Decimal


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def crypto(d: Desk, **fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {"pair": "BTC-USD", "side": Side.BUY, "asset_quantity": D("0.01"),
                             "account": rhs_account_number(d.venue)}  # fmt: skip
    terms.update(fields)
    return CryptoProposal(**terms)


def venue_orders(d: Desk) -> list[dict[str, Any]]:
    """The account's crypto orders as the venue lists them (either lane's)."""
    listed: list[dict[str, Any]] = d.venue.data(
        "get_crypto_orders", {"rhs_account_number": rhs_account_number(d.venue)}
    )["orders"]
    return listed


async def follow(d: Desk, filing_id: object, steps: int = 10) -> FilingStatus:
    for _ in range(steps):
        status = d.ledger.filing(filing_id).status
        if status.terminal:
            return status
        d.step(1)
        await d.guard.reconcile()
    return d.ledger.filing(filing_id).status


def filled(d: Desk, filing_id: object) -> tuple[Decimal, Decimal]:
    """The units and the dollars the ledger booked for the filing."""
    executions = d.ledger.orders.executions(filing_id)
    return (
        sum((e.quantity for e in executions), D(0)),
        sum((e.notional for e in executions), D(0)),
    )


def lane(d: Desk, filing_id: object) -> str:
    named: str = d.ledger.filing(filing_id).terms["lane"]
    return named


@pytest.mark.req("wall.crypto.rest-rail")
async def test_a_market_buy_by_quantity_on_the_rest_rail_is_placed_under_its_id_and_filled(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(REST), rest={}) as d:
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
        assert lane(d, outcome.filing_id) == "rest"
        [order] = venue_orders(d)
        assert (order["id"], order["ref_id"]) == (outcome.order_id, str(outcome.filing_id))
        assert await follow(d, outcome.filing_id) is FilingStatus.FILLED
        units, dollars = filled(d, outcome.filing_id)
        assert units == D("0.01") and dollars > 0
        assert d.ledger.rolling_spend(d.account).notional == dollars


async def test_on_the_rest_rail_a_buy_by_dollars_then_limit_and_market_sells_end_at_their_fills(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(REST), rest={}) as d:
        bought = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", asset_quantity=None, quote_amount=D("500.00")),
            identity="a",
        )
        assert await follow(d, bought.filing_id) is FilingStatus.FILLED
        units, spent = filled(d, bought.filing_id)
        assert units > 0 and abs(spent - D("500.00")) < D("1.00")
        bid = D(
            d.venue.data("get_crypto_quotes", {"symbols": ["ETH-USD"]})["results"][0]["bid_price"]
        )
        half = (units / 2).quantize(D("0.000001"), rounding=ROUND_DOWN)
        below = (bid * D("0.999")).quantize(D("0.01"))
        limit_sell = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", side=Side.SELL, asset_quantity=half,
                   order_type=CryptoOrderType.LIMIT, limit_price=below),
            identity="a",
        )  # fmt: skip
        assert limit_sell.status is FilingStatus.SUBMITTED, limit_sell.reasons
        assert await follow(d, limit_sell.filing_id) is FilingStatus.FILLED
        market_sell = await d.guard.submit_crypto(
            crypto(d, pair="ETH-USD", side=Side.SELL, asset_quantity=half), identity="a"
        )
        assert market_sell.status is FilingStatus.SUBMITTED, market_sell.reasons
        assert await follow(d, market_sell.filing_id) is FilingStatus.FILLED
        assert {lane(d, f.filing_id) for f in (bought, limit_sell, market_sell)} == {"rest"}
        assert len(venue_orders(d)) == 3
        assert d.ledger.rolling_spend(d.account).notional == spent


async def test_a_big_buy_on_the_rest_rail_fills_over_several_executions_partially_in_between(
    tmp_path: Path,
) -> None:
    wide = policy('[limits]\nmax_daily_usd = "100000"\n' + REST)
    async with desk(tmp_path, live=True, config=wide, rest={}) as d:
        # The venue's desk executes at most $25000 a look: 0.3 BTC takes two looks or more.
        outcome = await d.guard.submit_crypto(crypto(d, asset_quantity=D("0.3")), identity="a")
        seen = set()
        for _ in range(10):
            d.step(1)
            await d.guard.reconcile()
            seen.add(d.ledger.filing(outcome.filing_id).status)
        assert lane(d, outcome.filing_id) == "rest"
        assert FilingStatus.PARTIALLY_FILLED in seen
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        units, dollars = filled(d, outcome.filing_id)
        assert units == D("0.3") and len(d.ledger.orders.executions(outcome.filing_id)) >= 2
        assert d.ledger.rolling_spend(d.account).notional == dollars


async def test_a_resting_limit_on_the_rest_rail_is_cancelled_through_the_guard(
    tmp_path: Path,
) -> None:
    loose = policy(REST + "price_collar_bps = 10000\n")
    async with desk(tmp_path, live=True, config=loose, rest={}) as d:
        outcome = await d.guard.submit_crypto(
            crypto(d, order_type=CryptoOrderType.LIMIT, limit_price=D("50000.00")), identity="a"
        )
        assert outcome.status is FilingStatus.SUBMITTED and lane(d, outcome.filing_id) == "rest"
        assert d.ledger.rolling_spend(d.account).notional == D("500.00")
        d.step(2)
        cancelled = await d.guard.cancel(outcome.filing_id, identity="a")
        assert cancelled.status is FilingStatus.CANCELLED
        assert d.ledger.rolling_spend(d.account).notional == 0
        assert venue_orders(d)[0]["state"] == "canceled"


async def test_an_order_the_venue_rejects_on_the_rest_rail_releases_its_hold(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(REST), rest={}) as d:
        d.venue.faults(reject_orders=1)
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert await follow(d, outcome.filing_id) in (FilingStatus.REJECTED, FilingStatus.FAILED)
        assert d.ledger.rolling_spend(d.account).notional == 0


async def test_route_rest_without_a_key_is_refused_on_the_record_and_nothing_is_sent(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(REST)) as d:
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.REFUSED
        assert outcome.reasons == ("crypto_lane_unavailable",)
        assert venue_orders(d) == []


# -- the route: readiness read from the MCP's own tools/list -----------------------------


@pytest.mark.req("wall.crypto.route-once")
async def test_auto_takes_the_rest_rail_when_readiness_is_off_and_the_mcp_when_it_is_on(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(CRYPTO), rest={}) as d:
        d.venue.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
        off = await d.guard.submit_crypto(crypto(d), identity="a")
        d.venue.faults(unlisted_tools=[])
        on = await d.guard.submit_crypto(crypto(d), identity="a")
        assert (lane(d, off.filing_id), lane(d, on.filing_id)) == ("rest", "mcp")
        assert off.status is on.status is FilingStatus.SUBMITTED
        assert sorted(o["ref_id"] for o in venue_orders(d)) == sorted(
            [str(off.filing_id), str(on.filing_id)]
        )
        assert await follow(d, off.filing_id) is FilingStatus.FILLED
        assert await follow(d, on.filing_id) is FilingStatus.FILLED


@pytest.mark.req("wall.crypto.route-once")
async def test_readiness_lost_between_filing_and_placement_never_places_on_the_rest_rail(
    tmp_path: Path,
) -> None:
    held = policy('approval = "always"\n' + CRYPTO)
    async with desk(tmp_path, live=True, config=held, rest={}) as d:
        waiting = await d.guard.submit_crypto(crypto(d), identity="a")
        assert waiting.status is FilingStatus.PENDING_APPROVAL and waiting.approval_id
        assert lane(d, waiting.filing_id) == "mcp"
        d.venue.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
        approved = await d.guard.approve(waiting.approval_id, by="owner")
        assert approved.status is not FilingStatus.SUBMITTED
        await follow(d, waiting.filing_id)
        assert lane(d, waiting.filing_id) == "mcp"
        assert venue_orders(d) == []


@pytest.mark.req("wall.crypto.route-once")
async def test_readiness_gained_between_filing_and_placement_places_once_on_the_rest_rail(
    tmp_path: Path,
) -> None:
    held = policy('approval = "always"\n' + CRYPTO)
    async with desk(tmp_path, live=True, config=held, rest={}) as d:
        d.venue.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
        waiting = await d.guard.submit_crypto(crypto(d), identity="a")
        assert waiting.approval_id and lane(d, waiting.filing_id) == "rest"
        d.venue.faults(unlisted_tools=[])
        approved = await d.guard.approve(waiting.approval_id, by="owner")
        assert approved.status is FilingStatus.SUBMITTED
        assert await follow(d, waiting.filing_id) is FilingStatus.FILLED
        assert [o["ref_id"] for o in venue_orders(d)] == [str(waiting.filing_id)]


# -- the venue's own refusals of a bad request, through the guard ------------------------


@pytest.mark.req("wall.crypto.rest-rail")
async def test_a_timestamp_31_s_old_is_refused_at_the_venue_and_nothing_is_placed(
    tmp_path: Path,
) -> None:
    stale = {"now": lambda: time.time() - 31}
    async with desk(tmp_path, live=True, config=policy(REST), rest=stale) as d:
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.REFUSED, outcome
        assert venue_orders(d) == []
        assert d.ledger.rolling_spend(d.account).notional == 0


class _Tampering(httpx2.AsyncBaseTransport):
    """Loopback HTTP that sends every order body with twice the units that were signed."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST" and request.content:
            body = json.loads(request.content)
            body["market_order_config"]["asset_quantity"] = "0.02"
            content = json.dumps(body, separators=(",", ":")).encode()
            headers = {**request.headers, "content-length": str(len(content))}
            request = httpx2.Request(request.method, request.url, headers=headers, content=content)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.mark.req("wall.crypto.rest-rail")
async def test_a_signature_over_another_body_is_refused_at_the_venue_and_nothing_is_placed(
    tmp_path: Path,
) -> None:
    tampered = {"transport": _Tampering()}
    async with desk(tmp_path, live=True, config=policy(REST), rest=tampered) as d:
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is not FilingStatus.SUBMITTED
        await follow(d, outcome.filing_id)
        assert venue_orders(d) == []
        assert d.ledger.rolling_spend(d.account).notional == 0

"""Issue 29's acceptance run on both crypto lanes through the guard, against the sandbox as the
broker (its MCP's crypto tools and its Crypto Trading REST venue on loopback): every order
shape the lanes take (market and limit, buys and sells, by units and market ones by dollars)
fills on the lane the route names, with the caps' reservations ending at what the buys filled;
the guard's adversarial refusals (one cent over the cap, a pair not allowed, a stale or
crossed quote) hold on either lane with nothing sent; a readiness change while the guard
reviews an order places it once, on the lane it was filed on; and both lanes place into one
account, a REST key that trades another account placing nothing."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_UP, Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from client_testkit import rhs_account_number
from guard_kit import Desk, desk, policy

from ordergate.core import CryptoOrderType, Side
from ordergate.execution import Guard
from ordergate.ledger import FilingStatus
from ordergate.policy import CryptoPairRules, CryptoProposal, CryptoQuote
from ordergate.venues import (
    BrokerOrder,
    CryptoLane,
    CryptoLanes,
    CryptoReview,
    CryptoTicket,
    CryptoView,
    Placement,
)
from ordergate.venues.robinhood import McpCryptoOffered, RobinhoodVenue

pytestmark = pytest.mark.anyio

CRYPTO = """
[crypto]
pairs = ["BTC-USD", "ETH-USD"]
max_order_usd = "40000"
max_position_pct = "100"
price_collar_bps = 500
"""
LANES = ("mcp", "rest")
CRYPTO_ORDER_TOOLS = ["preview_crypto_order", "place_crypto_order", "cancel_crypto_order"]
D = Decimal
CENT = D("0.01")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def routed(route: str, extra: str = "") -> str:
    return CRYPTO + f'route = "{route}"\n' + extra


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


def lane_of(d: Desk, name: str) -> CryptoLane:
    assert isinstance(d.port, RobinhoodVenue) and d.port.crypto is not None
    lane = d.port.crypto.named(name)
    assert lane is not None
    return lane


async def quoted(d: Desk, route: str, pair: str = "BTC-USD") -> CryptoQuote:
    """The pair's best bid and ask as the lane quotes them (the quote stage A prices on)."""
    quote = await lane_of(d, route).quote(pair)
    assert quote is not None and quote.bid is not None and quote.ask is not None
    return quote


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


# -- every order shape on each lane ------------------------------------------------------


@pytest.mark.req("wall.crypto.rest-rail")
@pytest.mark.parametrize("route", LANES)
async def test_every_order_shape_fills_on_the_lane_routed_and_the_holds_end_at_the_buys_fills(
    tmp_path: Path, route: str
) -> None:
    six = policy("[limits]\nmax_orders_per_minute = 6\n" + routed(route))
    async with desk(tmp_path, live=True, config=six, rest={}) as d:
        quote = await quoted(d, route)
        assert quote.bid is not None and quote.ask is not None
        over_ask = (quote.ask * D("1.001")).quantize(CENT, rounding=ROUND_UP)
        under_bid = (quote.bid * D("0.999")).quantize(CENT, rounding=ROUND_DOWN)
        limit = CryptoOrderType.LIMIT
        shapes: list[tuple[str, dict[str, Any]]] = [
            ("market buy by units", {}),
            ("limit buy by units", {"order_type": limit, "limit_price": over_ask}),
            ("market buy by dollars", {"asset_quantity": None, "quote_amount": D("500.00")}),
            ("limit sell by units", {"side": Side.SELL, "order_type": limit,
                                     "limit_price": under_bid}),
            ("market sell by dollars", {"side": Side.SELL, "asset_quantity": None,
                                        "quote_amount": D("200.00")}),
            ("market sell by units", {"side": Side.SELL, "asset_quantity": D("0.005")}),
        ]  # fmt: skip
        bought = D(0)
        sold_units = D(0)
        bought_units = D(0)
        filings = []
        for shape, fields in shapes:
            outcome = await d.guard.submit_crypto(crypto(d, **fields), identity="a")
            assert outcome.status is FilingStatus.SUBMITTED, (shape, outcome.reasons)
            assert await follow(d, outcome.filing_id) is FilingStatus.FILLED, shape
            assert lane(d, outcome.filing_id) == route, shape
            units, dollars = filled(d, outcome.filing_id)
            asked = fields.get("asset_quantity", D("0.01"))
            if asked is not None:
                assert units == asked, shape
            else:
                assert abs(dollars - fields["quote_amount"]) < D("1.00"), shape
            if fields.get("side", Side.BUY) is Side.BUY:
                # A reservation is kept in 10⁻⁸ USD, rounded up: it ends at what filled.
                bought += dollars.quantize(D("1E-8"), rounding=ROUND_CEILING)
                bought_units += units
            else:
                sold_units += units
            filings.append(str(outcome.filing_id))
            # The sells reserve nothing; each buy's hold ends at what it filled.
            assert d.ledger.rolling_spend(d.account).notional == bought, shape
        assert sorted(o["ref_id"] for o in venue_orders(d)) == sorted(filings)
        assert {o["state"] for o in venue_orders(d)} == {"filled"}
        view = await lane_of(d, route).read(rhs_account_number(d.venue), "BTC-USD")
        assert view.holding is not None
        assert view.holding.quantity == bought_units - sold_units


@pytest.mark.parametrize("route", LANES)
async def test_a_limit_buy_cancelled_after_a_partial_fill_holds_what_filled_on_either_lane(
    tmp_path: Path, route: str
) -> None:
    wide = policy('[limits]\nmax_daily_usd = "100000"\n' + routed(route))
    async with desk(tmp_path, live=True, config=wide, rest={}) as d:
        quote = await quoted(d, route)
        assert quote.ask is not None
        over_ask = (quote.ask * D("1.001")).quantize(CENT, rounding=ROUND_UP)
        # The venue's desk executes at most $25000 a look: 0.3 BTC takes two looks or more.
        outcome = await d.guard.submit_crypto(
            crypto(d, asset_quantity=D("0.3"), order_type=CryptoOrderType.LIMIT,
                   limit_price=over_ask),
            identity="a",
        )  # fmt: skip
        assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
        for _ in range(10):
            if d.ledger.filing(outcome.filing_id).status is FilingStatus.PARTIALLY_FILLED:
                break
            d.step(1)
            await d.guard.reconcile()
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.PARTIALLY_FILLED
        cancelled = await d.guard.cancel(outcome.filing_id, identity="a")
        assert cancelled.status.terminal, cancelled
        await follow(d, outcome.filing_id)
        units, dollars = filled(d, outcome.filing_id)
        assert 0 < units < D("0.3") and lane(d, outcome.filing_id) == route
        [order] = venue_orders(d)
        assert order["state"] == "canceled"
        held = d.ledger.rolling_spend(d.account).notional
        assert held == dollars.quantize(D("1E-8"), rounding=ROUND_CEILING)


# -- the guard's refusals, on either lane ------------------------------------------------


@pytest.mark.parametrize("route", LANES)
@pytest.mark.parametrize("sized", ["units", "dollars"])
async def test_one_cent_over_the_cap_is_refused_on_either_lane_and_nothing_is_sent(
    tmp_path: Path, route: str, sized: str
) -> None:
    async with desk(tmp_path, live=True, config=policy(routed(route)), rest={}) as d:
        quote = await quoted(d, route)
        assert quote.ask is not None
        units = D("0.01")
        worth = quote.ask * units  # a quantity is converted at the far side before any cap
        cap = worth.quantize(CENT, rounding=ROUND_UP) - CENT
        d.guard.use_policy(policy(routed(route, f'max_order_usd = "{cap}"\n')))
        fields: dict[str, Any] = {"asset_quantity": units}
        if sized == "dollars":
            fields = {"asset_quantity": None, "quote_amount": cap + CENT}
        outcome = await d.guard.submit_crypto(crypto(d, **fields), identity="a")
        assert outcome.status is FilingStatus.REFUSED
        assert outcome.reasons == ("max_order_usd",)
        assert lane(d, outcome.filing_id) == route
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0


@pytest.mark.parametrize("route", LANES)
async def test_a_pair_not_allowed_is_refused_on_either_lane_and_nothing_is_sent(
    tmp_path: Path, route: str
) -> None:
    async with desk(tmp_path, live=True, config=policy(routed(route)), rest={}) as d:
        outcome = await d.guard.submit_crypto(
            crypto(d, pair="DOGE-USD", asset_quantity=D(100)), identity="a"
        )
        assert outcome.status is FilingStatus.REFUSED
        assert "crypto_pair_not_allowed" in outcome.reasons
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0


class Watched:
    """A real lane passed through, one thing altered by the test: its quotes made stale
    (``quote_shift``) or crossed, or ``during_review`` run while the lane reviews."""

    def __init__(self, real: CryptoLane) -> None:
        self.real = real
        self.quote_shift: timedelta | None = None
        self.crossed = False
        self.during_review: list[dict[str, Any]] = []
        self.venue: Any = None
        self.placed = 0

    @property
    def name(self) -> str:
        return self.real.name

    def _alter(self, quote: CryptoQuote | None) -> CryptoQuote | None:
        if quote is None:
            return None
        if self.crossed:
            assert quote.ask is not None
            quote = dataclasses.replace(quote, bid=quote.ask + 1)
        if self.quote_shift is not None and quote.at is not None:
            quote = dataclasses.replace(quote, at=quote.at - self.quote_shift)
        return quote

    async def quote(self, pair: str) -> CryptoQuote | None:
        return self._alter(await self.real.quote(pair))

    async def pairs(self) -> Mapping[str, CryptoPairRules]:
        return await self.real.pairs()

    async def review(self, ticket: CryptoTicket) -> CryptoReview:
        for faults in self.during_review:
            self.venue.faults(**faults)
        return await self.real.review(ticket)

    async def place(self, ticket: CryptoTicket) -> Placement:
        self.placed += 1
        return await self.real.place(ticket)

    async def lookup(self, ticket: CryptoTicket, *, since: datetime) -> BrokerOrder | None:
        return await self.real.lookup(ticket, since=since)

    async def poll(self, account: str, order_id: str) -> BrokerOrder:
        return await self.real.poll(account, order_id)

    async def cancel(self, account: str, order_id: str) -> None:
        await self.real.cancel(account, order_id)

    async def read(self, account: str, pair: str | None) -> CryptoView:
        view = await self.real.read(account, pair)
        return dataclasses.replace(view, quote=self._alter(view.quote))


class Asked:
    """The MCP's readiness probe, counted."""

    def __init__(self, probe: McpCryptoOffered) -> None:
        self.probe = probe
        self.times = 0

    async def __call__(self) -> bool:
        self.times += 1
        return await self.probe()


def watched(d: Desk, route: str) -> tuple[Guard, dict[str, Watched], Asked]:
    """A guard on ``d``'s ledger whose venue's two crypto lanes are watched."""
    lanes = {name: Watched(lane_of(d, name)) for name in LANES}
    for each in lanes.values():
        each.venue = d.venue
    asked = Asked(McpCryptoOffered(d.rh))
    assert isinstance(d.port, RobinhoodVenue)
    venue = RobinhoodVenue(d.port.equity, CryptoLanes(*lanes.values(), mcp_offered=asked))
    guard = Guard(
        policy=policy(routed(route)), ledger=d.ledger, venue=venue, account=d.account,
        clock=d.clock,
    )  # fmt: skip
    return guard, lanes, asked


@pytest.mark.parametrize("route", LANES)
@pytest.mark.parametrize(
    ("alter", "code"),
    [({"crossed": True}, "crossed_quote"), ({"quote_shift": timedelta(seconds=60)}, "stale_quote")],
)
async def test_a_crossed_or_stale_quote_is_refused_on_either_lane_and_nothing_is_sent(
    tmp_path: Path, route: str, alter: dict[str, Any], code: str
) -> None:
    async with desk(tmp_path, live=True, rest={}) as d:
        guard, lanes, _ = watched(d, route)
        for name, value in alter.items():
            setattr(lanes[route], name, value)
        outcome = await guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.REFUSED and code in outcome.reasons
        assert lanes[route].placed == 0
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0


# -- the route: readiness changing while the guard reviews the order ---------------------


@pytest.mark.req("wall.crypto.route-once")
async def test_readiness_gained_during_the_review_places_once_on_the_rest_rail_it_was_filed_on(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, rest={}) as d:
        guard, lanes, asked = watched(d, "auto")
        d.venue.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
        lanes["rest"].during_review = [{"unlisted_tools": []}]
        outcome = await guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
        assert lane(d, outcome.filing_id) == "rest"
        assert (asked.times, lanes["rest"].placed, lanes["mcp"].placed) == (1, 1, 0)
        assert [o["ref_id"] for o in venue_orders(d)] == [str(outcome.filing_id)]


@pytest.mark.req("wall.crypto.route-once")
async def test_readiness_lost_during_the_review_never_places_the_order_on_the_rest_rail(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, rest={}) as d:
        guard, lanes, asked = watched(d, "auto")
        lanes["mcp"].during_review = [{"unlisted_tools": CRYPTO_ORDER_TOOLS}]
        outcome = await guard.submit_crypto(crypto(d), identity="a")
        assert outcome.status is not FilingStatus.SUBMITTED
        assert lane(d, outcome.filing_id) == "mcp"
        for _ in range(3):
            d.step(1)
            await guard.reconcile()
        assert lane(d, outcome.filing_id) == "mcp"
        assert (asked.times, lanes["rest"].placed) == (1, 0)
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).notional == 0


# -- one account: what the REST key trades is what the MCP trades ------------------------


@pytest.mark.req("wall.crypto.one-account")
async def test_units_bought_on_the_rest_rail_are_held_and_sold_on_the_mcp_lane(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True, config=policy(routed("rest")), rest={}) as d:
        account = rhs_account_number(d.venue)
        bought = await d.guard.submit_crypto(crypto(d), identity="a")
        assert await follow(d, bought.filing_id) is FilingStatus.FILLED
        rest_view = await lane_of(d, "rest").read(account, "BTC-USD")
        mcp_view = await lane_of(d, "mcp").read(account, "BTC-USD")
        assert rest_view.holding is not None and mcp_view.holding is not None
        assert rest_view.holding.quantity == mcp_view.holding.quantity == D("0.01")
        d.guard.use_policy(policy(routed("mcp")))
        sold = await d.guard.submit_crypto(crypto(d, side=Side.SELL), identity="a")
        assert sold.status is FilingStatus.SUBMITTED, sold.reasons
        assert await follow(d, sold.filing_id) is FilingStatus.FILLED
        assert [lane(d, f.filing_id) for f in (bought, sold)] == ["rest", "mcp"]
        after = await lane_of(d, "rest").read(account, "BTC-USD")
        assert after.holding is not None and after.holding.quantity == 0


class _KeyOfAnotherAccount(httpx2.AsyncBaseTransport):
    """Loopback HTTP on which the REST venue's accounts answer names another account (a key
    made for the person's own crypto account rather than the agentic one)."""

    def __init__(self) -> None:
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if not request.url.path.endswith("/crypto/trading/accounts/"):
            return response
        body = json.loads(await response.aread())
        body["account_number"] = "ANOTHER-CRYPTO-ACCOUNT"
        return httpx2.Response(response.status_code, json=body)

    async def aclose(self) -> None:
        await self._inner.aclose()


@pytest.mark.req("wall.crypto.one-account")
@pytest.mark.parametrize("route", ["rest", "auto"])
async def test_a_rest_key_trading_another_account_places_nothing_on_either(
    tmp_path: Path, route: str
) -> None:
    other = {"transport": _KeyOfAnotherAccount()}
    async with desk(tmp_path, live=True, config=policy(routed(route)), rest=other) as d:
        d.venue.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)  # auto: the REST rail
        outcome = await d.guard.submit_crypto(crypto(d), identity="a")
        assert lane(d, outcome.filing_id) == "rest"
        assert outcome.status is FilingStatus.REFUSED, outcome
        assert outcome.reasons == ("crypto_account_mismatch",)
        assert d.ledger.filing(outcome.filing_id).reasons == ("crypto_account_mismatch",)
        assert venue_orders(d) == [] and d.ledger.rolling_spend(d.account).orders == 0

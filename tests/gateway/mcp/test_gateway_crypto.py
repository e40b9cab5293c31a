"""Crypto orders through the gateway, live against the sandbox and on paper (the venue's own
engine over it), on either lane (the MCP's crypto tools or the Crypto Trading REST rail, as
``crypto.route`` says): ``place_crypto_order`` filed and placed through the guard,
``preview_crypto_order`` checked then forwarded, ``cancel_crypto_order`` through the cancel
rules; market and limit, buys and sells, by quantity and by dollars, a partial fill, a cancel
and a venue's rejection, the hold ending at what filled; arguments the filing cannot name,
and orders the policy refuses, never reach the venue; the profile must grant crypto.place;
on paper a crypto order fills on the engine's crypto desk whichever lane it takes, never at
the venue, and nothing is sent to a Crypto Trading API."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from client_testkit import rhs_account_number
from mcp_gateway_kit import OPEN_POLICY, Gateway, gateway
from typer.testing import CliRunner

from ordergate.cli import app
from ordergate.ledger import FilingStatus
from ordergate.policy import PolicyConfig, parse_policy
from ordergate.venues.paper import PaperVenue

pytestmark = pytest.mark.anyio

D = Decimal
LANES = ["live-mcp", "live-rest", "paper-mcp", "paper-rest"]
"""Where a scenario runs: the rail (the venue itself, or paper on its engine) and the
``crypto.route`` its policy names."""


def crypto_table(
    pairs: str = '["BTC-USD", "ETH-USD"]', max_order_usd: str = "2000", collar: int = 500
) -> str:
    return (
        f'\n[crypto]\npairs = {pairs}\nmax_order_usd = "{max_order_usd}"\n'
        f'max_position_pct = "100"\nprice_collar_bps = {collar}\n'
    )


CRYPTO = crypto_table()
CRYPTO_TRADER = """
name: crypto_trader
description: Reads, and places and cancels crypto orders.
permissions: [account.read, market.read, orders.read, orders.review, crypto.place, crypto.cancel]
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def home(tmp_path: Path) -> Path:
    where = tmp_path / "home"
    (where / "profiles").mkdir(parents=True)
    (where / "profiles" / "crypto_trader.yaml").write_text(CRYPTO_TRADER)
    return where


def rules(extra: str = CRYPTO, *, daily: str = "20000") -> PolicyConfig:
    base = OPEN_POLICY.replace('max_daily_usd = "20000"', f'max_daily_usd = "{daily}"')
    return parse_policy(base + extra)


def order(gw: Gateway, **fields: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "rhs_account_number": rhs_account_number(gw.venue),
        "symbol": "BTC-USD",
        "side": "buy",
        "type": "market",
        "quantity": "0.01",
    }
    arguments.update(fields)
    return {name: value for name, value in arguments.items() if value is not None}


def venue_orders(gw: Gateway) -> list[dict[str, Any]]:
    """The sandbox venue's own crypto orders (on paper: what reached a market, never any)."""
    listed: list[dict[str, Any]] = gw.venue.data(
        "get_crypto_orders", {"rhs_account_number": rhs_account_number(gw.venue)}
    )["orders"]
    return listed


def paper(gw: Gateway) -> PaperVenue | None:
    venue = gw.guard.venue
    return venue if isinstance(venue, PaperVenue) else None


async def book_orders(gw: Gateway) -> list[dict[str, Any]]:
    """The crypto orders of the book the gateway trades: on paper the engine's, else the
    venue's."""
    book = paper(gw)
    if book is None:
        return venue_orders(gw)
    rhs = {"rhs_account_number": rhs_account_number(gw.venue)}
    listed: list[dict[str, Any]] = (await book.caller.call("get_crypto_orders", rhs))["orders"]
    return listed


async def reject_next_order(gw: Gateway) -> None:
    """The venue that answers the gateway's orders (on paper the engine's) rejects the next
    one it is given, after accepting it."""
    book = paper(gw)
    if book is None:
        gw.venue.faults(reject_orders=1)
    else:
        (await book.caller.engine()).venue.faults.update({"reject_orders": 1})


def data_of(result: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = result["structuredContent"]["data"]
    return data


async def settle(gw: Gateway, filing_id: str, steps: int = 10) -> FilingStatus:
    for _ in range(steps):
        status = gw.ledger.filing(filing_id).status
        if status.terminal:
            return status
        _step(gw)
        await gw.guard.reconcile()
    return gw.ledger.filing(filing_id).status


def _step(gw: Gateway) -> None:
    gw.clock.advance(timedelta(seconds=1))


def filled(gw: Gateway, filing_id: str) -> Decimal:
    return sum((f.notional for f in gw.ledger.orders.executions(filing_id)), D(0))


def on(tmp_path: Path, lane: str, extra: str = CRYPTO, *, daily: str = "20000") -> Any:
    """The gateway on ``lane`` (``rail`` or ``rail-route``: ``live`` is the sandbox venue,
    ``paper`` its engine's book over it; the route, when named, the crypto table's). Live, a
    route that may lead to REST takes the venue's REST rail on a key it issued; paper needs
    none."""
    rail, _, route = lane.partition("-")
    routed = f'route = "{route}"\n' if route else ""
    return gateway(
        tmp_path,
        live=rail == "live",
        config=rules(extra + routed, daily=daily),
        profile="crypto_trader",
        profiles_home=home(tmp_path),
        crypto_rest=rail == "live" and route in ("rest", "auto"),
    )


def live(tmp_path: Path, extra: str = CRYPTO) -> Any:
    return on(tmp_path, "live", extra)


@pytest.mark.parametrize("lane", LANES)
async def test_market_buys_and_sells_by_quantity_and_dollars_end_at_what_filled(
    tmp_path: Path, lane: str
) -> None:
    route = lane.partition("-")[2]
    async with on(tmp_path, lane) as gw:
        by_units = data_of(await gw.call("place_crypto_order", order(gw)))
        by_dollars = data_of(
            await gw.call(
                "place_crypto_order",
                order(gw, symbol="ETH-USD", quantity=None, dollar_amount="300.00"),
            )
        )
        assert by_units["status"] == by_dollars["status"] == "submitted", (by_units, by_dollars)
        assert await settle(gw, by_units["filing_id"]) is FilingStatus.FILLED
        assert await settle(gw, by_dollars["filing_id"]) is FilingStatus.FILLED
        sold = data_of(
            await gw.call("place_crypto_order", order(gw, side="sell", quantity="0.005"))
        )
        sold_dollars = data_of(
            await gw.call(
                "place_crypto_order",
                order(gw, symbol="ETH-USD", side="sell", quantity=None, dollar_amount="100.00"),
            )
        )
        assert sold["status"] == sold_dollars["status"] == "submitted", (sold, sold_dollars)
        assert await settle(gw, sold["filing_id"]) is FilingStatus.FILLED
        assert await settle(gw, sold_dollars["filing_id"]) is FilingStatus.FILLED
        spent = gw.ledger.rolling_spend(gw.account).notional
        assert spent == filled(gw, by_units["filing_id"]) + filled(gw, by_dollars["filing_id"])
        filings = (by_units, by_dollars, sold, sold_dollars)
        assert {o["ref_id"] for o in await book_orders(gw)} == {f["filing_id"] for f in filings}
        assert {gw.ledger.filing(f["filing_id"]).terms["lane"] for f in filings} == {route}
        record = gw.ledger.filing(by_units["filing_id"])
        assert record.kind == "crypto_order"
        if paper(gw) is not None:
            assert venue_orders(gw) == []  # the engine's book holds them, not the venue
        shown = data_of(await gw.call("gate_record"))
    # What the agent and the owner see of a crypto filing: its kind, pair, size and lane.
    [entry] = [f for f in shown["filings"] if f["filing_id"] == by_units["filing_id"]]
    assert (entry["kind"], entry["pair"], entry["asset_quantity"], entry["lane"]) == (
        "crypto_order",
        "BTC-USD",
        "0.01",
        route,
    )
    assert entry["status"] == "filled" and "rhs_account_number" not in entry
    why = CliRunner().invoke(
        app,
        ["why", by_units["filing_id"], "--db", f"sqlite:///{tmp_path / 'gateway-ledger.db'}"],
    )
    assert why.exit_code == 0, why.output
    said = f"order      crypto_order  asset_quantity=0.01 lane={route} pair=BTC-USD side=buy"
    assert said in why.stdout
    assert "placement  " in why.stdout and "fill       " in why.stdout


@pytest.mark.parametrize("lane", LANES)
async def test_a_limit_buy_rests_and_is_cancelled_and_a_limit_sell_under_the_bid_fills(
    tmp_path: Path, lane: str
) -> None:
    async with on(tmp_path, lane, crypto_table(collar=10000)) as gw:
        bought = data_of(await gw.call("place_crypto_order", order(gw)))
        assert await settle(gw, bought["filing_id"]) is FilingStatus.FILLED
        resting = data_of(
            await gw.call(
                "place_crypto_order",
                order(gw, type="limit", limit_price="50000.00", time_in_force="gtc"),
            )
        )
        assert resting["status"] == "submitted", resting
        held = gw.ledger.rolling_spend(gw.account).notional
        assert held == filled(gw, bought["filing_id"]) + D("500.00")
        _step(gw)
        _step(gw)
        cancelled = await gw.call(
            "cancel_crypto_order",
            {"rhs_account_number": rhs_account_number(gw.venue), "order_id": resting["order_id"]},
        )
        assert data_of(cancelled) == {"accepted": True}
        assert gw.ledger.filing(resting["filing_id"]).status is FilingStatus.CANCELLED
        quote = gw.venue.data("get_crypto_quotes", {"symbols": ["BTC-USD"]})["results"][0]
        under = (D(quote["bid_price"]) * D("0.98")).quantize(D("0.01"))
        sold = data_of(
            await gw.call(
                "place_crypto_order",
                order(gw, side="sell", type="limit", quantity="0.005", limit_price=str(under)),
            )
        )
        assert sold["status"] == "submitted", sold
        assert await settle(gw, sold["filing_id"]) is FilingStatus.FILLED
        assert gw.ledger.rolling_spend(gw.account).notional == filled(gw, bought["filing_id"])
        states = {o["ref_id"]: o["state"] for o in await book_orders(gw)}
        assert states[resting["filing_id"]] in ("canceled", "cancelled"), states
        if paper(gw) is not None:
            assert venue_orders(gw) == []


@pytest.mark.parametrize("lane", LANES)
async def test_a_big_order_fills_partially_then_wholly(tmp_path: Path, lane: str) -> None:
    async with on(tmp_path, lane, crypto_table(max_order_usd="40000"), daily="90000") as gw:
        placed = data_of(await gw.call("place_crypto_order", order(gw, quantity="0.3")))
        seen = set()
        for _ in range(10):
            _step(gw)
            await gw.guard.reconcile()
            seen.add(gw.ledger.filing(placed["filing_id"]).status)
        assert FilingStatus.PARTIALLY_FILLED in seen, seen
        assert gw.ledger.filing(placed["filing_id"]).status is FilingStatus.FILLED
        assert gw.ledger.rolling_spend(gw.account).notional == filled(gw, placed["filing_id"])


@pytest.mark.parametrize("lane", LANES)
async def test_an_order_the_venue_rejects_holds_nothing(tmp_path: Path, lane: str) -> None:
    async with on(tmp_path, lane) as gw:
        await reject_next_order(gw)
        placed = data_of(await gw.call("place_crypto_order", order(gw)))
        assert placed["status"] == "submitted", placed
        await settle(gw, placed["filing_id"])
        assert gw.ledger.filing(placed["filing_id"]).status in (
            FilingStatus.REJECTED,
            FilingStatus.FAILED,
        )
        assert gw.ledger.rolling_spend(gw.account).notional == 0
        [rejected] = await book_orders(gw)
        assert rejected["ref_id"] == placed["filing_id"]


@pytest.mark.parametrize("rail", ["live", "paper"])
async def test_auto_routes_to_the_rest_rail_when_the_mcp_does_not_offer_crypto_orders(
    tmp_path: Path, rail: str
) -> None:
    async with on(tmp_path, f"{rail}-auto") as gw:
        # The gateway keeps the tool list it read; the route asks the MCP afresh per filing.
        assert "place_crypto_order" in {tool["name"] for tool in await gw.tools()}
        gw.venue.faults(unlisted_tools=["place_crypto_order", "cancel_crypto_order"])
        placed = data_of(await gw.call("place_crypto_order", order(gw)))
        assert placed["status"] == "submitted", placed
        assert gw.ledger.filing(placed["filing_id"]).terms["lane"] == "rest"
        assert await settle(gw, placed["filing_id"]) is FilingStatus.FILLED
        assert [o["ref_id"] for o in await book_orders(gw)] == [placed["filing_id"]]


async def test_a_paper_order_on_the_rest_lane_reaches_no_network_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    network = httpx2.AsyncHTTPTransport.handle_async_request

    async def watched(self: httpx2.AsyncHTTPTransport, request: httpx2.Request) -> Any:
        if "/api/v1/crypto/" in request.url.path:
            sent.append(str(request.url))
        return await network(self, request)

    monkeypatch.setattr(httpx2.AsyncHTTPTransport, "handle_async_request", watched)
    async with on(tmp_path, "paper-rest") as gw:
        placed = data_of(await gw.call("place_crypto_order", order(gw)))
        assert await settle(gw, placed["filing_id"]) is FilingStatus.FILLED
        assert gw.ledger.filing(placed["filing_id"]).terms["lane"] == "rest"
        assert [o["ref_id"] for o in await book_orders(gw)] == [placed["filing_id"]]
        assert venue_orders(gw) == []
    assert sent == []


async def test_a_quantity_one_cent_over_the_cap_at_the_ask_is_refused_and_nothing_sent(
    tmp_path: Path,
) -> None:
    async with live(tmp_path) as gw:
        quote = gw.venue.data("get_crypto_quotes", {"symbols": ["BTC-USD"]})["results"][0]
        cap = D(quote["ask_price"]) * D("0.01") - D("0.01")
        gw.guard.use_policy(rules(crypto_table(max_order_usd=str(cap))))
        refused = await gw.call("place_crypto_order", order(gw))
        data = data_of(refused)
        assert refused["isError"] is True and data["reasons"] == ["max_order_usd"]
        assert f"(crypto.max_order_usd = ${cap.quantize(D('0.01'))})" in data["message"]
        assert venue_orders(gw) == []


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"quantity": "1e-3"}, "INVALID_ORDER"),
        ({"quantity": "0.0000000000000000001"}, "INVALID_ORDER"),
        ({"quantity": "abc"}, "INVALID_ORDER"),
        ({"type": "trailing"}, "INVALID_ORDER"),
        ({"tax_lots": [{"open_lot_id": "x", "quantity": "1"}]}, "ARGUMENT_NOT_FILED"),
        ({"symbol": " BTC-USD"}, "INVALID_ORDER"),
        ({"rhs_account_number": None}, "MISSING_ARGUMENT"),
        ({"ref_id": "not-a-uuid"}, "INVALID_ARGUMENT"),
    ],
)
async def test_arguments_the_filing_cannot_name_are_refused_before_anything_is_filed(
    tmp_path: Path, fields: dict[str, Any], code: str
) -> None:
    async with live(tmp_path) as gw:
        error = await gw.refusal("place_crypto_order", order(gw, **fields))
        preview = await gw.refusal("preview_crypto_order", order(gw, **fields))
        assert error["code"] == code
        if code != "INVALID_ARGUMENT":  # a preview carries no ref_id to check
            assert preview["code"] == code
        assert gw.filings() == [] and venue_orders(gw) == []


async def test_a_pair_not_allowed_is_refused_on_the_record_and_nothing_sent(
    tmp_path: Path,
) -> None:
    async with live(tmp_path, crypto_table(pairs='["ETH-USD"]')) as gw:
        refused = data_of(await gw.call("place_crypto_order", order(gw)))
        assert refused["status"] == "refused"
        assert "crypto_pair_not_allowed" in refused["reasons"]
        assert venue_orders(gw) == []


async def test_a_preview_the_filing_can_name_is_forwarded(tmp_path: Path) -> None:
    async with live(tmp_path) as gw:
        preview = await gw.call("preview_crypto_order", order(gw))
        assert data_of(preview)["symbol"] == "BTC-USD"
        assert venue_orders(gw) == [] and gw.filings() == []


async def test_the_trader_profile_may_not_place_crypto(tmp_path: Path) -> None:
    async with gateway(tmp_path, live=True, config=rules()) as gw:
        names = {tool["name"] for tool in await gw.tools()}
        assert "place_crypto_order" not in names and "cancel_crypto_order" not in names
        error = await gw.refusal("place_crypto_order", order(gw))
        assert error["code"] == "PROFILE_REFUSED"
        assert "crypto.place" in error["message"]
        assert venue_orders(gw) == []


async def test_a_paper_crypto_market_buy_fills_on_the_engine_after_a_clock_step(
    tmp_path: Path,
) -> None:
    async with gateway(
        tmp_path, config=rules(), profile="crypto_trader", profiles_home=home(tmp_path)
    ) as gw:
        preview = await gw.call("preview_crypto_order", order(gw))
        placed = await gw.call("place_crypto_order", order(gw))
        assert preview["isError"] is False and placed["isError"] is False, placed
        assert data_of(placed)["paper"] is True
        filing_id = data_of(placed)["filing_id"]
        assert await settle(gw, filing_id) is FilingStatus.FILLED
        assert filled(gw, filing_id) > 0
        rhs = {"rhs_account_number": rhs_account_number(gw.venue)}
        held = await gw.call("get_crypto_positions", rhs)
        assert held["structuredContent"]["guide"].startswith("Paper:")
        # The engine's book holds it; nothing reached the venue's own account.
        assert venue_orders(gw) == []


async def test_a_retry_under_its_ref_id_answers_the_first_filing_even_at_the_open_cap(
    tmp_path: Path,
) -> None:
    async with gateway(
        tmp_path,
        live=True,
        config=rules(crypto_table(collar=10000)),
        profile="crypto_trader",
        profiles_home=home(tmp_path),
        max_open=1,
    ) as gw:
        key = "0f0e0d0c-0b0a-4908-8706-050403020100"
        resting = order(gw, type="limit", limit_price="50000.00", time_in_force="gtc", ref_id=key)
        first = data_of(await gw.call("place_crypto_order", resting))
        again = data_of(await gw.call("place_crypto_order", resting))
        other = await gw.refusal("place_crypto_order", order(gw, type="limit",
                                 limit_price="50000.00", time_in_force="gtc"))  # fmt: skip
        assert first["status"] == "submitted" and again["filing_id"] == first["filing_id"]
        assert other["code"] == "TOO_MANY_OPEN"
        assert len(venue_orders(gw)) == 1

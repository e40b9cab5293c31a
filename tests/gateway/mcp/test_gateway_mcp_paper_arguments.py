"""Paper answers arguments as the venue does (issue 25 §4): a required argument missing or
``null`` is refused naming it, the paper book's own order ids are order ids, and a review's
buying power is the paper account's, the one ``get_portfolio`` reports. Over real loopback
HTTP in front of a real sandbox venue.

Since paper is the venue's own engine (issue 24), a read's refusal is the venue's own: the
venue's code (``INVALID_ARGUMENT``) and the argument it names (``field``), under the
gateway's ``UPSTREAM_REFUSED``, as live mode answers it."""

from __future__ import annotations

import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import gateway

from ordergate.ledger import FilingStatus
from ordergate.venues.paper import PaperVenue

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _buy(account: str | None, **change: Any) -> dict[str, Any]:
    order = {
        "account_number": account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "quantity": "2",
    }
    return {**order, **change}


@pytest.mark.parametrize("given", ["absent", "null"])
@pytest.mark.req("gateway.paper.venue-arguments")
async def test_a_paper_order_without_its_account_number_is_refused_naming_it(
    tmp_path: Path, given: str
) -> None:
    async with gateway(tmp_path) as gw:
        arguments = _buy(None)
        if given == "absent":
            del arguments["account_number"]
        error = await gw.refusal("place_equity_order", arguments)
        filings = gw.filings()
    assert error["code"] == "MISSING_ARGUMENT"
    assert "`account_number`" in error["message"]
    assert filings == []


@pytest.mark.parametrize("tool", ["get_equity_orders", "get_equity_positions", "get_portfolio"])
@pytest.mark.req("gateway.paper.venue-arguments")
async def test_a_paper_read_without_its_account_number_names_the_missing_argument(
    tmp_path: Path, tool: str
) -> None:
    async with gateway(tmp_path) as gw:
        absent = await gw.refusal(tool, {})
        null = await gw.refusal(tool, {"account_number": None})
        wrong_type = await gw.refusal(tool, {"account_number": gw.account, "cursor": 7})
    for refused in (absent, null, wrong_type):
        assert refused["code"] == "UPSTREAM_REFUSED"
        assert refused["upstream_code"] == "INVALID_ARGUMENT"
    assert absent["field"] == null["field"] == "account_number"
    assert wrong_type["field"] == "cursor"
    assert gw.backend.forwarded == []


@pytest.mark.req("gateway.paper.venue-arguments")
async def test_a_paper_order_is_cancelled_by_the_paper_books_own_order_id(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        quote = gw.venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
        below = (Decimal(quote["ask_price"]) * Decimal("0.9")).quantize(Decimal("0.01"))
        resting = _buy(gw.account, type="limit", limit_price=str(below), time_in_force="gtc")
        placed = (await gw.call("place_equity_order", resting))["structuredContent"]["data"]
        result = await gw.call(
            "cancel_equity_order", {"account_number": gw.account, "order_id": placed["order_id"]}
        )
        status = gw.ledger.filing(placed["filing_id"]).status
        paper_venue = gw.guard.venue
        assert isinstance(paper_venue, PaperVenue)
        book = await paper_venue.caller.call("get_equity_orders", {"account_number": gw.account})
        at_venue = gw.venue.data("get_equity_orders", {"account_number": gw.account})
    # The paper book's own id, an order id as the venue's are; an order the venue never saw.
    assert str(uuid.UUID(placed["order_id"])) == placed["order_id"]
    assert placed["order_id"] in [order["id"] for order in book["orders"]]
    assert at_venue["orders"] == []
    assert result["isError"] is False, result
    assert result["structuredContent"]["data"] == {"accepted": True}
    assert status is FilingStatus.CANCELLED


@pytest.mark.req("gateway.paper.one-buying-power")
async def test_a_paper_review_reports_the_paper_accounts_buying_power(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        placed = await gw.call("place_equity_order", _buy(gw.account))
        await gw.settle()
        filled = gw.ledger.filing(placed["structuredContent"]["data"]["filing_id"]).status
        account = {"account_number": gw.account}
        portfolio = (await gw.call("get_portfolio", account))["structuredContent"]["data"]
        review = await gw.call("review_equity_order", _buy(gw.account, quantity="1"))
        too_big = await gw.call("review_equity_order", _buy(gw.account, quantity="400"))
        venue = gw.venue.data("get_portfolio", account)
    assert placed["structuredContent"]["data"]["status"] == "submitted"
    assert filled is FilingStatus.FILLED
    paper_power = portfolio["buying_power"]["buying_power"]
    checks = review["structuredContent"]["data"]["order_checks"]
    assert Decimal(checks["buying_power"]["available"]) == Decimal(paper_power)
    assert Decimal(paper_power) != Decimal(venue["buying_power"]["buying_power"])
    assert checks["passed"] is True
    refused = too_big["structuredContent"]["data"]["order_checks"]
    assert refused["passed"] is False
    assert refused["buying_power"]["code"] == "INSUFFICIENT_BUYING_POWER"

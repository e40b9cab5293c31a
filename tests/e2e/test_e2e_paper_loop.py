"""Issue 15 §1's acceptance: an agent places a paper order through ``ordergate serve
--sandbox`` over MCP (the official MCP Python SDK, through consent, over real loopback
sockets) and reads it back through ``get_equity_orders``, positions, portfolio and
``gate_record`` — answered from the paper book, valid against the venue's output schemas,
marked paper."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from gateway_testkit import OPEN, sandbox_gateway, settled
from jsonschema import Draft202012Validator
from oauth_testkit import ConsentBrowser, sdk_session
from owner_testkit import enrol

from ordergate.core import SteppedClock
from ordergate.inventory import load_inventory

pytestmark = pytest.mark.anyio

REDIRECT = "http://127.0.0.1:51237/callback"
BOUND_S = 30


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _content(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result.structured_content
    content: dict[str, Any] = result.structured_content
    return content


def _valid(tool: str, content: dict[str, Any]) -> dict[str, Any]:
    schema = load_inventory()[tool].output_schema
    assert schema is not None
    Draft202012Validator(schema).validate(content)
    assert content["guide"].startswith("Paper:")
    data: dict[str, Any] = content["data"]
    return data


async def _agent_reads_back_its_paper_order(
    url: str, browser: ConsentBrowser, settle: Callable[[str], Awaitable[None]]
) -> dict[str, Any]:
    with anyio.fail_after(BOUND_S):
        async with sdk_session(
            url, browser, client_name="paper-agent", redirect=REDIRECT, bound_s=BOUND_S
        ) as session:
            await session.initialize()
            accounts = _content(await session.call_tool("get_accounts", {}))["data"]["accounts"]
            number = next(a for a in accounts if a["agentic_allowed"])["account_number"]
            account = {"account_number": number}
            order = {"symbol": "SPY", "side": "buy", "type": "market", "quantity": "0.1"}
            placed = await session.call_tool("place_equity_order", {**account, **order})
            # The venue's clock runs past the fill, and the ledger books it.
            await settle(_content(placed)["data"]["filing_id"])
            return {
                "placed": _content(placed)["data"],
                "orders": _content(await session.call_tool("get_equity_orders", account)),
                "positions": _content(await session.call_tool("get_equity_positions", account)),
                "portfolio": _content(await session.call_tool("get_portfolio", account)),
                "record": _content(await session.call_tool("gate_record", {}))["data"],
            }


@pytest.mark.req("gateway.paper.reads-from-book")
async def test_an_agent_reads_its_paper_order_back_from_the_paper_book_through_serve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = SteppedClock(start=OPEN)
    server = sandbox_gateway(tmp_path, monkeypatch, clock=clock)
    codes = enrol(tmp_path / "home")
    browser = ConsentBrowser(profile="trader", owner_code=codes.next)

    async def settle(filing_id: str) -> None:
        await anyio.to_thread.run_sync(lambda: settled(server, filing_id, market=clock))

    with server as url:
        seen = await _agent_reads_back_its_paper_order(url, browser, settle)
    placed = seen["placed"]
    # The venue answers the place ``submitted``; the reads after it has filled see the fill.
    assert placed["status"] == "submitted" and placed["paper"] is True
    [order] = _valid("get_equity_orders", seen["orders"])["orders"]
    assert (order["id"], order["ref_id"]) == (placed["order_id"], placed["filing_id"])
    assert order["state"] == "filled" and order["cumulative_quantity"] == "0.1"
    [execution] = order["executions"]
    portfolio = _valid("get_portfolio", seen["portfolio"])
    starting = Decimal(10000)  # the default policy's paper cash
    spent = (Decimal("0.1") * Decimal(execution["price"])).quantize(Decimal("0.01"))
    assert Decimal(portfolio["cash"]) == starting - spent
    assert seen["positions"]["guide"].startswith("Paper:")
    [position] = seen["positions"]["data"]["positions"]
    assert (position["symbol"], position["quantity"]) == ("SPY", "0.1")
    [filing] = seen["record"]["filings"]
    [fill] = filing["fills"]
    assert (fill["price"], fill["quantity"], fill["fees"]) == (execution["price"], "0.1", "0.00")
    assert filing["grade"] is None

"""An agent that follows the venue's instructions — a fresh UUID as ``ref_id`` on every order,
the same one on a retry — trades through the gateway, over real sockets: ten retries at once
are one filing and one order at the venue (placed under the filing's id, not the agent's
key), a different order under the key is refused ``ref_id_reused``, a key that is not a UUID
is refused naming ``ref_id``. On SQLite and on Postgres."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import anyio
import pytest
from mcp_gateway_kit import BOUND_S, Gateway, gateway
from pg_testkit import database

pytestmark = [pytest.mark.anyio, pytest.mark.req("wall.agent-key.once")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


def _buy(account: str, ref_id: str, quantity: str = "1") -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "quantity": quantity,
        "ref_id": ref_id,
    }


def _venue_orders(gw: Gateway) -> list[dict[str, Any]]:
    orders: list[dict[str, Any]] = gw.venue.data(
        "get_equity_orders", {"account_number": gw.account}
    )["orders"]
    return orders


async def test_ten_concurrent_retries_under_one_ref_id_are_one_filing_and_one_venue_order(
    tmp_path: Path, ledger_url: str
) -> None:
    async with gateway(tmp_path, live=True, ledger_url=ledger_url, max_open=1) as gw:
        key = str(uuid4())
        answers: list[dict[str, Any]] = []

        async def send() -> None:
            result = await gw.call("place_equity_order", _buy(gw.account, key))
            answers.append(result["structuredContent"]["data"])

        with anyio.fail_after(BOUND_S * 4):
            async with anyio.create_task_group() as group:
                for _ in range(10):
                    group.start_soon(send)
        [filing] = gw.filings()
        [order] = _venue_orders(gw)
    # Every answer is the first filing's, none refused (not even TOO_MANY_OPEN at max_open 1).
    assert {answer["filing_id"] for answer in answers} == {str(filing.id)}
    assert {answer["status"] for answer in answers} == {"submitted"}
    assert {answer["order_id"] for answer in answers} == {order["id"]}
    # The venue's ref_id is the filing's id; the agent's key is never sent.
    assert order["ref_id"] == str(filing.id) != key
    assert [call for call in gw.backend.forwarded if call[0] == "place_equity_order"] == []


async def test_another_order_under_a_used_ref_id_is_refused_ref_id_reused(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, live=True) as gw:
        key = str(uuid4())
        first = await gw.call("place_equity_order", _buy(gw.account, key))
        other = await gw.call("place_equity_order", _buy(gw.account, key, quantity="2"))
        upper = await gw.call("place_equity_order", _buy(gw.account, key.upper()))
        assert len(gw.filings()) == 1 and len(_venue_orders(gw)) == 1
    data = other["structuredContent"]["data"]
    assert other["isError"] is True
    assert (data["status"], data["reasons"]) == ("refused", ["ref_id_reused"])
    assert "ref_id_reused" in data["message"]
    # The key's case does not make it another key (as at the venue).
    assert (
        upper["structuredContent"]["data"]["filing_id"]
        == (first["structuredContent"]["data"]["filing_id"])
    )


@pytest.mark.parametrize("ref_id", ["retry-1", "", "7d3c1f0e9a4b4c2d8e6f1a2b3c4d5e6f", 7])
async def test_a_ref_id_that_is_not_a_uuid_is_refused_naming_it_and_nothing_is_filed(
    tmp_path: Path, ref_id: object
) -> None:
    async with gateway(tmp_path) as gw:
        error = await gw.refusal("place_equity_order", {**_buy(gw.account, ""), "ref_id": ref_id})
        assert gw.filings() == []
    assert error["code"] == "INVALID_ARGUMENT"
    assert "`ref_id`" in error["message"]


async def test_the_served_order_tool_describes_ref_id_as_the_agents_own_key(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        [order] = [tool for tool in await gw.tools() if tool["name"] == "place_equity_order"]
    ref_id = order["inputSchema"]["properties"]["ref_id"]
    assert ref_id["type"] == "string" and "ref_id_reused" in ref_id["description"]
    assert "ref_id" not in order["inputSchema"].get("required", [])

"""``CryptoLanes``: the one choice of a crypto lane per filing by the policy's route, read
from the MCP's own ``tools/list`` (the sandbox's, over loopback) — readiness off takes the
REST rail, on takes the MCP; a change after the choice never places one order on both."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from decimal import Decimal
from typing import Any
from uuid import uuid4

import anyio
import owner_testkit
import pytest
from client_testkit import ScriptedCaller, rhs_account_number
from venue_testkit import START, VenueClient

from ordergate.client import Robinhood
from ordergate.client.crypto_rest import ApiKey, CryptoRest
from ordergate.core import Secret, Side, SteppedClock
from ordergate.policy import CryptoProposal
from ordergate.venues import (
    LANE_UNAVAILABLE,
    BrokerRefusal,
    CryptoLane,
    CryptoLanes,
    CryptoTicket,
    NoAnswer,
)
from ordergate.venues.robinhood import McpCrypto, McpCryptoOffered, RestCrypto, RobinhoodVenue

BOUND_S = 30
CRYPTO_ORDER_TOOLS = ["preview_crypto_order", "place_crypto_order", "cancel_crypto_order"]


def ticket(account: str) -> CryptoTicket:
    proposal = CryptoProposal(pair="BTC-USD", side=Side.BUY, asset_quantity=Decimal("0.01"))
    return CryptoTicket(ref_id=uuid4(), account=account, proposal=proposal)


def offline_lanes() -> tuple[McpCrypto, RestCrypto]:
    """An MCP and a REST lane that are never called (the route only names them)."""
    key = ApiKey(Secret("rh-api-route"), Secret("A" * 43 + "="))
    rest = CryptoRest(key=key, base_url="http://127.0.0.1:9")
    return McpCrypto(Robinhood(ScriptedCaller({}))), RestCrypto(rest)


def answering(*answers: bool | Exception) -> tuple[Callable[[], Awaitable[bool]], list[int]]:
    asked: list[int] = []

    async def offered() -> bool:
        asked.append(1)
        answer = answers[len(asked) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return offered, asked


@pytest.mark.anyio
async def test_auto_takes_the_mcp_when_it_offers_crypto_orders_and_asks_once_per_choice() -> None:
    mcp, rest = offline_lanes()
    offered, asked = answering(True, False)
    lanes = CryptoLanes(mcp, rest, mcp_offered=offered)
    assert await lanes.choose("auto") is mcp
    assert await lanes.choose("auto") is rest
    assert len(asked) == 2


@pytest.mark.anyio
async def test_auto_takes_the_rest_rail_when_readiness_cannot_be_read() -> None:
    mcp, rest = offline_lanes()
    offered, _ = answering(RuntimeError("tools/list failed"))
    assert await CryptoLanes(mcp, rest, mcp_offered=offered).choose("auto") is rest
    assert await CryptoLanes(mcp, rest).choose("auto") is rest


@pytest.mark.anyio
async def test_auto_without_a_key_and_without_the_mcp_offering_crypto_is_refused() -> None:
    mcp, _ = offline_lanes()
    offered, _ = answering(False)
    with pytest.raises(BrokerRefusal) as refused:
        await CryptoLanes(mcp, mcp_offered=offered).choose("auto")
    assert refused.value.code == LANE_UNAVAILABLE


@pytest.mark.anyio
async def test_a_named_route_takes_that_lane_whatever_readiness_says_or_is_refused() -> None:
    mcp, rest = offline_lanes()
    offered, asked = answering()
    both = CryptoLanes(mcp, rest, mcp_offered=offered)
    assert await both.choose("mcp") is mcp and await both.choose("rest") is rest
    assert asked == []
    for route, lanes in (("rest", CryptoLanes(mcp)), ("mcp", CryptoLanes(rest)), ("x", both)):
        with pytest.raises(BrokerRefusal) as refused:
            await lanes.choose(route)
        assert refused.value.code == LANE_UNAVAILABLE


def test_lanes_are_named_once_each_and_found_by_the_name_a_filing_recorded() -> None:
    mcp, rest = offline_lanes()
    lanes = CryptoLanes(mcp, rest)
    assert lanes.named("mcp") is mcp and lanes.named("rest") is rest
    assert lanes.named("paper") is None and list(lanes.lanes) == ["mcp", "rest"]
    with pytest.raises(ValueError, match="share a name"):
        CryptoLanes(mcp, mcp)
    with pytest.raises(ValueError, match="at least one"):
        CryptoLanes()


# -- through the sandbox: readiness from its tools/list, orders on its one crypto account ----


@asynccontextmanager
async def robinhood(rh: Robinhood, sandbox: VenueClient) -> AsyncIterator[CryptoLanes]:
    issued = sandbox.admin("crypto_api_keys", {})
    owner_testkit.SECRETS.add(issued["private_key"])
    key = ApiKey(Secret(issued["api_key"]), Secret(issued["private_key"]))
    async with CryptoRest(key=key, base_url=sandbox.base_url, now=time.time) as rest:
        venue = RobinhoodVenue.through(rh, clock=SteppedClock(start=START), crypto_rest=rest)
        assert venue.crypto is not None
        yield venue.crypto


def orders(sandbox: VenueClient, rhs: str) -> list[dict[str, Any]]:
    result = sandbox.call("get_crypto_orders", {"rhs_account_number": rhs})
    listed: list[dict[str, Any]] = result["structuredContent"]["data"]["orders"]
    return listed


@pytest.mark.anyio
async def test_readiness_is_the_mcps_own_tools_list(rh: Robinhood, sandbox: VenueClient) -> None:
    with anyio.fail_after(BOUND_S):
        on = await McpCryptoOffered(rh)()
        sandbox.faults(unlisted_tools=["place_crypto_order"])
        off = await McpCryptoOffered(rh)()
    assert (on, off) == (True, False)


@pytest.mark.anyio
async def test_readiness_off_takes_the_rest_rail_and_on_takes_the_mcp(
    rh: Robinhood, sandbox: VenueClient
) -> None:
    async with robinhood(rh, sandbox) as lanes:
        with anyio.fail_after(BOUND_S):
            on = await lanes.choose("auto")
            sandbox.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
            off = await lanes.choose("auto")
    assert isinstance(on, CryptoLane) and on.name == "mcp"
    assert off.name == "rest"


@pytest.mark.anyio
async def test_readiness_lost_after_the_mcp_was_chosen_places_nothing_on_the_rest_rail(
    rh: Robinhood, sandbox: VenueClient
) -> None:
    rhs = rhs_account_number(sandbox)
    order = ticket(rhs)
    async with robinhood(rh, sandbox) as lanes:
        with anyio.fail_after(BOUND_S):
            chosen = await lanes.choose("auto")
            sandbox.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
            with pytest.raises((BrokerRefusal, NoAnswer)):
                await chosen.place(order)
            rest = lanes.named("rest")
            assert rest is not None
            found = await rest.lookup(order, since=START)
    assert chosen.name == "mcp"
    assert found is None and orders(sandbox, rhs) == []


@pytest.mark.anyio
async def test_readiness_gained_after_the_rest_rail_was_chosen_places_once_on_it(
    rh: Robinhood, sandbox: VenueClient
) -> None:
    rhs = rhs_account_number(sandbox)
    order = ticket(rhs)
    sandbox.faults(unlisted_tools=CRYPTO_ORDER_TOOLS)
    async with robinhood(rh, sandbox) as lanes:
        with anyio.fail_after(BOUND_S):
            chosen = await lanes.choose("auto")
            sandbox.faults(unlisted_tools=[])
            placement = await chosen.place(order)
            mcp = lanes.named("mcp")
            assert mcp is not None
            seen_by_mcp = await mcp.lookup(order, since=START)
    assert chosen.name == "rest" and placement.order is not None
    assert seen_by_mcp is not None and seen_by_mcp.order_id == placement.order.order_id
    assert [o["id"] for o in orders(sandbox, rhs)] == [placement.order.order_id]

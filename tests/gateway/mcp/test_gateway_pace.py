"""A looping agent through the gateway, over real sockets: the same order sent again and
again is refused ``duplicate_order`` after the first, orders past the rate are refused
``order_rate``, each refusal names its code, and nothing reaches the venue twice."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import OPEN_POLICY, Gateway, gateway

from ordergate.ledger import FilingStatus
from ordergate.policy import parse_policy
from ordergate.venues.paper import PaperVenue

pytestmark = pytest.mark.anyio

TICK = timedelta(milliseconds=100)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _buy(account: str, quantity: str = "1") -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": "SPY",
        "side": "buy",
        "type": "market",
        "quantity": quantity,
    }


async def _send(gw: Gateway, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await gw.call("place_equity_order", arguments)
    assert "data" in result["structuredContent"], result
    data: dict[str, Any] = result["structuredContent"]["data"]
    assert result["isError"] is (data["status"] == "refused")
    if data["status"] == "refused":
        # Every refusal names its code, in its reasons and its sentence.
        assert data["reasons"], data
        assert all(code in data["message"] for code in data["reasons"]), data
    return data


async def _at_the_venue(gw: Gateway) -> list[str]:
    """The ``ref_id`` of every order the venue holds for the account: the venue itself
    (live), the venue's engine on the paper book (paper)."""
    arguments = {"account_number": gw.account}
    venue = gw.guard.venue
    if isinstance(venue, PaperVenue):
        orders = (await venue.caller.call("get_equity_orders", arguments))["orders"]
    else:
        orders = gw.venue.data("get_equity_orders", arguments)["orders"]
    return [str(order["ref_id"]) for order in orders]


async def _loop(gw: Gateway) -> tuple[list[dict[str, Any]], list[str]]:
    """The same order every 100 ms for 60 s on the stepped clock: the answers, and the
    filings placed (reconciled, so each has ended)."""
    answers = []
    for _ in range(int(timedelta(seconds=60) / TICK)):
        answers.append(await _send(gw, _buy(gw.account)))
        gw.clock.advance(TICK)
    placed = [a["filing_id"] for a in answers if a["status"] != "refused"]
    await gw.guard.reconcile()
    return answers, placed


@pytest.mark.req("policy.duplicate-order")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_the_same_order_every_100_ms_for_a_minute_is_placed_once_a_window(
    tmp_path: Path, live: bool
) -> None:
    async with gateway(tmp_path, live=live) as gw:
        answers, placed = await _loop(gw)
        refusals = Counter(tuple(a["reasons"]) for a in answers if a["status"] == "refused")
        ended = {gw.ledger.filing(key).status for key in placed}
        at_venue = await _at_the_venue(gw)
    # At 0 s and 30 s (the window is 30 s from the order accepted, not from the refusals).
    assert [answers.index(a) for a in answers if a["status"] != "refused"] == [0, 300]
    assert refusals == Counter({("duplicate_order",): 598})
    assert ended == {FilingStatus.FILLED}
    assert "limits.duplicate_window_s = 30" in answers[1]["message"]
    # Each placed filing reached the venue once, and nothing else did.
    assert sorted(at_venue) == sorted(placed)


@pytest.mark.req("policy.order-rate")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_the_same_order_every_100_ms_without_a_duplicate_window_reaches_the_rate_and_no_more(
    tmp_path: Path, live: bool
) -> None:
    config = parse_policy(OPEN_POLICY.replace("[limits]", "[limits]\nduplicate_window_s = 0"))
    # Live, the orders stay open until reconciled: the gateway's own cap on an identity's
    # open orders is raised so that the wall's rate is what stops the loop.
    async with gateway(tmp_path, live=live, config=config, max_open=100) as gw:
        answers, placed = await _loop(gw)
        refusals = Counter(tuple(a["reasons"]) for a in answers if a["status"] == "refused")
        at_venue = await _at_the_venue(gw)
    # The first five in the minute pass stage A (max_orders_per_minute = 5); the rest are
    # refused order_rate until the first leaves the minute, at 60 s.
    assert [answers.index(a) for a in answers if a["status"] != "refused"] == [0, 1, 2, 3, 4]
    assert refusals == Counter({("order_rate",): 595})
    assert "limits.max_orders_per_minute = 5" in answers[5]["message"]
    assert sorted(at_venue) == sorted(placed)


@pytest.mark.req("policy.order-rate")
async def test_a_looping_agent_past_the_rate_is_refused_order_rate_by_the_wall(
    tmp_path: Path,
) -> None:
    # The orders are open until the venue fills them (its 1 s delay): the gateway's own cap
    # on an identity's open orders is raised so that the wall's rate is what stops the loop.
    async with gateway(tmp_path, max_open=100) as gw:
        answers = []
        for step in range(20):  # a different order every 100 ms: 2 s
            answers.append(await _send(gw, _buy(gw.account, f"0.{step + 1:02d}")))
            gw.clock.advance(TICK)
        await gw.settle()
        statuses = [gw.ledger.filing(a["filing_id"]).status for a in answers[:5]]
    assert all(a["status"] == "submitted" for a in answers[:5])
    assert statuses == [FilingStatus.FILLED] * 5
    assert all(a["reasons"] == ["order_rate"] for a in answers[5:])
    assert "limits.max_orders_per_minute = 5" in answers[5]["message"]

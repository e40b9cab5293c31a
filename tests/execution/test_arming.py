"""Live arming: real orders only with the upstream read, compatible, and real money consented."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ordergate.client import Robinhood
from ordergate.execution import arm
from ordergate.policy import Mode, parse_policy

pytestmark = pytest.mark.req("wall.live-arming")

LIVE = parse_policy('mode = "live"\nreal_money = true')


@pytest.fixture
async def venue_tools(rh: Robinhood) -> list[dict[str, Any]]:
    return await rh.list_tools()


@pytest.mark.anyio
async def test_live_arms_on_the_venues_own_tools_list_with_real_money_set(
    venue_tools: list[dict[str, Any]],
) -> None:
    arming = arm(LIVE, tools=venue_tools)
    assert arming.live and arming.mode is Mode.LIVE and arming.breaking == ()


@pytest.mark.anyio
async def test_live_without_the_real_money_setting_runs_in_paper_and_says_why(
    venue_tools: list[dict[str, Any]],
) -> None:
    arming = arm(parse_policy('mode = "live"'), tools=venue_tools)
    assert not arming.live and arming.mode is Mode.PAPER
    assert "real_money = true" in arming.reason


def test_live_without_a_tools_list_read_runs_in_paper() -> None:
    arming = arm(LIVE, tools=None)
    assert not arming.live and "tools/list was not read" in arming.reason


def test_a_paper_policy_is_paper_whatever_the_upstream() -> None:
    assert arm(parse_policy(""), tools=None).mode is Mode.PAPER


@pytest.mark.anyio
async def test_a_removed_order_tool_keeps_ordergate_in_paper_naming_the_tool(
    venue_tools: list[dict[str, Any]],
) -> None:
    tools = [tool for tool in venue_tools if tool["name"] != "review_equity_order"]
    arming = arm(LIVE, tools=tools)
    assert not arming.live and "review_equity_order" in arming.reason
    assert [change.tool for change in arming.breaking] == ["review_equity_order"]


@pytest.mark.anyio
async def test_a_new_required_input_on_the_place_tool_is_breaking(
    venue_tools: list[dict[str, Any]],
) -> None:
    tools = copy.deepcopy(venue_tools)
    place = next(tool for tool in tools if tool["name"] == "place_equity_order")
    place["inputSchema"]["properties"]["confirmation_code"] = {"type": "string"}
    place["inputSchema"].setdefault("required", []).append("confirmation_code")
    arming = arm(LIVE, tools=tools)
    assert not arming.live and "place_equity_order" in arming.reason


@pytest.mark.anyio
async def test_changes_outside_the_order_path_and_additive_changes_still_arm(
    venue_tools: list[dict[str, Any]],
) -> None:
    tools = [t for t in copy.deepcopy(venue_tools) if t["name"] not in ("get_watchlists",)]
    quotes = next(tool for tool in tools if tool["name"] == "get_equity_quotes")
    quotes["inputSchema"]["properties"]["include_closes"] = {"type": "boolean"}
    quotes["description"] = "Quotes, now described differently."
    assert arm(LIVE, tools=tools).live

"""A person's own option cap holds their option orders through the guard on a hosted rail in
live mode over the sandbox: a long call whose premium is under the rail's ceiling but over the
person's own ``options.max_premium_usd`` is refused, and filled once they loosen it."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from custody_kit import LIVE, Custodian, live_rail
from mcp_http_testkit import McpSession, agentic_account, nearest_calls

LIVE_OPTIONS = LIVE + (
    '[options]\nunderlyings = ["AAPL"]\nstrategies = ["long_call", "closing"]\n'
    'max_premium_usd = "5000"\nmax_loss_usd = "5000"\nmax_daily_premium_usd = "20000"\n'
    "min_days_to_expiry = 0\nmax_days_to_expiry = 400\nno_open_last_minutes = 0\n"
    "price_collar_bps = 5000\n"
)


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with live_rail(tmp_path, monkeypatch, policy=LIVE_OPTIONS) as served:
        yield served


def _long_call(rail: Custodian, token: str) -> tuple[dict[str, Any], Decimal]:
    """A one-contract AAPL call bought at its ask through the gateway: the answer's data and
    the order's premium."""
    session = McpSession(rail.url, token)
    try:
        account = agentic_account(session)
        ids = [row["id"] for row in nearest_calls(session)]
        quotes = session.tool("get_option_quotes", {"instrument_ids": ids})["data"]["results"]
        priced = [
            (Decimal(row["quote"]["ask_price"]), row["quote"]["instrument_id"])
            for row in quotes
            if Decimal(row["quote"]["bid_price"]) > 0
        ]
        ask, option_id = min(priced)
        legs = [{"option_id": option_id, "side": "buy", "position_effect": "open",
                 "ratio_quantity": 1}]  # fmt: skip
        asked = {
            "account_number": account, "legs": legs, "quantity": "1", "type": "limit",
            "direction": "debit", "time_in_force": "gfd", "price": str(ask),
        }  # fmt: skip
        data: dict[str, Any] = session.tool("place_option_order", asked)["data"]
    finally:
        session.close()
    return data, ask * 100


@pytest.mark.req("rail.person.limits")
def test_a_persons_own_option_premium_cap_holds_their_option_orders_through_the_guard(
    live: Custodian,
) -> None:
    token = live.connect(profile="optiontrader")
    own = live.person_post("/person/limits", 0, {"limits": {"options.max_premium_usd": "1"}})
    assert own.status_code == 200, own.text
    refused, premium = _long_call(live, token)
    assert refused["status"] == "refused", refused
    assert refused["reasons"] == ["option_premium_over_cap"], refused
    loosened = live.person_post(
        "/person/limits", 0, {"limits": {"options.max_premium_usd": str(premium + 1)}}
    )
    assert loosened.status_code == 200, loosened.text
    placed, _ = _long_call(live, token)
    assert placed["status"] != "refused", placed

"""A caller token bound to a connection speaks for that connection only (issue 12 §4.2): two
people who each mint a token for a caller named ``nightly`` never see each other's filings
or cancel each other's orders."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from custody_kit import MASTER, Custodian
from mcp_http_testkit import McpSession as Mcp

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret

# Room for one resting limit order of SPY, 5% under the ask.
POLICY = """
approval = "never"
[limits]
max_order_usd = "5000"
max_daily_usd = "20000"
price_collar_bps = 1000
max_spread_bps = 500
[symbols]
allow = ["SPY"]
"""


@pytest.fixture
def policy() -> str:
    return POLICY


def _token(gateway: Custodian, connection: str) -> str:
    key = CallerKey.derive(Secret(MASTER))
    return mint(
        key, caller="nightly", profile="trader", ttl=timedelta(minutes=15),
        now=gateway.clock.now(), connection=connection,
    ).reveal()  # fmt: skip


@pytest.mark.req("gateway.bypass.caller-identity")
def test_two_callers_of_one_name_on_two_connections_are_two_identities(
    gateway: Custodian,
) -> None:
    gateway.connect()
    gateway.connect()
    first, second = (row["id"] for row in gateway.rows())
    alice, bob = Mcp(gateway.url, _token(gateway, first)), Mcp(gateway.url, _token(gateway, second))
    try:
        quote = alice.tool("get_equity_quotes", {"symbols": ["SPY"]})["data"]["results"][0]
        below = (Decimal(quote["quote"]["ask_price"]) * Decimal("0.95")).quantize(Decimal("0.01"))
        (account,) = [
            a["account_number"]
            for a in alice.tool("get_accounts", {})["data"]["accounts"]
            if a["agentic_allowed"]
        ]
        placed = alice.tool(
            "place_equity_order",
            {"account_number": account, "symbol": "SPY", "side": "buy", "type": "limit",
             "quantity": "1", "limit_price": str(below), "time_in_force": "gtc"},
        )["data"]  # fmt: skip
        bobs_record = bob.tool("gate_record", {})["data"]["filings"]
        bobs_cancel = bob.call(
            "cancel_equity_order", {"account_number": account, "order_id": placed["order_id"]}
        )
        alices_record = alice.tool("gate_record", {})["data"]["filings"]
    finally:
        alice.close()
        bob.close()
    assert placed["status"] == "submitted", placed
    assert bobs_record == []
    assert bobs_cancel["isError"] is True
    assert bobs_cancel["structuredContent"]["error"]["code"] == "NOT_YOUR_ORDER"
    assert [f["filing_id"] for f in alices_record] == [placed["filing_id"]]
    assert alices_record[0]["status"] == "submitted"


@pytest.mark.req("gateway.bypass.caller-identity")
def test_a_bound_callers_identity_names_the_caller_and_a_hash_of_its_connection() -> None:
    from ordergate.callers import CallerClaims
    from ordergate.gateway._callers import caller_identity

    claims = CallerClaims("nightly", "trader", "m" * 16, datetime(2026, 12, 1, tzinfo=UTC))
    digest = hashlib.sha256(b"conn-1").hexdigest()[:32]
    assert caller_identity(claims, "conn-1") == f"caller:nightly/trader#{'m' * 16}@{digest}"
    assert caller_identity(claims, None) == f"caller:nightly/trader#{'m' * 16}"
    assert caller_identity(claims, "conn-1") != caller_identity(claims, "conn-2")

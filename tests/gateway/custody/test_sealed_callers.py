"""Caller tokens where each connection keeps its own sealed session: a token names the
connection it acts on, and only a live one."""

from __future__ import annotations

from datetime import timedelta

from custody_kit import MASTER, Custodian
from mcp_http_testkit import McpSession as Mcp

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret


def _token(gateway: Custodian, connection: str | None) -> str:
    key = CallerKey.derive(Secret(MASTER))
    now = gateway.clock.now()
    return mint(
        key, caller="nightly", profile="trader", ttl=timedelta(minutes=15), now=now,
        connection=connection,
    ).reveal()  # fmt: skip


def test_a_caller_token_naming_a_connection_acts_on_that_sealed_session(
    gateway: Custodian,
) -> None:
    gateway.connect()
    (row,) = gateway.rows()
    mcp = Mcp(gateway.url, _token(gateway, row["id"]))
    try:
        quotes = mcp.tool("get_equity_quotes", {"symbols": ["SPY"]})
        how = mcp.tool("gate_how", {})
    finally:
        mcp.close()
    assert quotes["data"]["results"][0]["quote"]["symbol"] == "SPY"
    assert how["data"]["profile"]["name"] == "trader"


def test_a_caller_token_naming_no_connection_or_an_ended_one_is_refused(
    gateway: Custodian,
) -> None:
    import httpx2

    access = gateway.connect()
    (row,) = gateway.rows()
    mcp = Mcp(gateway.url, access)
    try:
        mcp.tool("gate_disconnect", {})
    finally:
        mcp.close()
    with httpx2.Client(timeout=30) as http:
        answers = [
            http.post(
                gateway.url + "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"authorization": f"Bearer {token}"},
            ).status_code
            for token in (_token(gateway, None), _token(gateway, row["id"]))
        ]
    assert answers == [401, 401]

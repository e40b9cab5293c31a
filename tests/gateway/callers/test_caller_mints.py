"""A caller token's identity is its name, its profile and its mint (issue 23 §7): a token
minted under another caller's name is another caller, and sees nothing of the first's."""

from __future__ import annotations

import pytest
from callers_kit import BUY, Host


@pytest.mark.req("callers.identity-per-mint")
def test_a_read_only_token_named_like_a_trader_sees_none_of_its_filings_or_fills(
    host: Host,
) -> None:
    trader_token = host.token("nightly-bot", "trader")
    trader = host.mcp(trader_token)
    try:
        placed = trader.tool("place_equity_order", BUY)["data"]
        assert placed["status"] == "submitted", placed
        # The order filled before anyone looks: the other token sees no fill of it either.
        assert host.settled(placed["filing_id"]) == "filled"
        (filing,) = host.filings(host.identity(trader_token))
        account = {"account_number": filing.account}
        traders_orders = trader.tool("get_equity_orders", account)["data"]["orders"]
    finally:
        trader.close()
    assert [order["ref_id"] for order in traders_orders] == [placed["filing_id"]]

    spy_token = host.token("nightly-bot", "monitor")
    spy = host.mcp(spy_token)
    try:
        record = spy.tool("gate_record")["data"]
        orders = spy.tool("get_equity_orders", account)["data"]["orders"]
        one = spy.tool("get_equity_orders", {**account, "order_id": placed["order_id"]})
    finally:
        spy.close()
    over_broker = host.broker(
        spy_token, "orders/read", {"tool": "get_equity_orders", "arguments": account}
    )
    assert host.identity(spy_token) != host.identity(trader_token)
    assert record["filings"] == []
    # Orders are the account's at the venue (on paper its own engine answers, as the broker
    # does live): a token reading the account reads its orders, the first caller's among them.
    # What is a caller's own is its filings and their fills, on the record (above).
    assert orders == traders_orders
    assert one["data"]["orders"] == traders_orders
    assert over_broker.status_code == 200, over_broker.text
    assert over_broker.json()["data"]["orders"] == traders_orders

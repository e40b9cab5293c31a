"""Caller-bound tokens at the gateway (issue 7 §2): over MCP and the capability broker, with
the profile they name, the identity they carry and nothing else."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from callers_kit import BUY, MASTER, Host

from ordergate.callers import CallerKey
from ordergate.core import Secret

SPY = {"symbols": ["SPY"]}


def test_a_trader_token_places_over_mcp_under_its_callers_identity(host: Host) -> None:
    token = host.token("bot-1", "trader")
    mcp = host.mcp(token)
    try:
        assert mcp.handshake.status_code == 200
        assert "profile is 'trader'" in mcp.handshake.json()["result"]["instructions"]
        assert "place_equity_order" in mcp.tools()
        placed = mcp.call("place_equity_order", BUY)
    finally:
        mcp.close()
    assert placed["isError"] is False, placed
    (filing,) = host.filings(host.identity(token))
    assert filing.terms["symbol"] == "SPY"


@pytest.mark.req("callers.monitor-cannot-place")
def test_a_monitor_token_cannot_place_over_mcp_or_the_broker(host: Host) -> None:
    token = host.token("watcher", "monitor")
    mcp = host.mcp(token)
    try:
        names = mcp.tools()
        over_mcp = mcp.call("place_equity_order", BUY)
    finally:
        mcp.close()
    over_broker = host.broker(
        token, "orders/place", {"tool": "place_equity_order", "arguments": BUY}
    )
    assert "place_equity_order" not in names
    assert over_mcp["isError"] is True
    assert over_mcp["structuredContent"]["error"]["code"] == "PROFILE_REFUSED"
    assert over_broker.status_code == 403
    assert over_broker.json() == over_mcp["structuredContent"]
    assert host.filings(host.identity(token)) == []


@pytest.mark.parametrize(
    ("profile", "capability", "tool", "arguments"),
    [
        ("trader", "market/read", "get_equity_quotes", SPY),
        ("monitor", "orders/cancel", "cancel_equity_order", {"order_id": "nope"}),
        ("researcher", "account/read", "get_portfolio", {}),
        ("trader", "orders/place", "place_equity_order", {**BUY, "symbol": "AAPL"}),
    ],
    ids=["read", "cancel-refused", "account-refused", "policy-refused"],
)
@pytest.mark.req("callers.broker-parity")
def test_the_broker_and_mcp_answer_a_call_identically(
    host: Host, profile: str, capability: str, tool: str, arguments: dict[str, Any]
) -> None:
    token = host.token(f"twin-{profile}", profile)
    mcp = host.mcp(token)
    try:
        over_mcp = mcp.call(tool, arguments)
    finally:
        mcp.close()
    over_broker = host.broker(token, capability, {"tool": tool, "arguments": arguments})
    assert _comparable(over_broker.json()) == _comparable(over_mcp["structuredContent"])
    assert (over_broker.status_code == 200) is (over_mcp["isError"] is False)


def _comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """What two calls of the same tool must share: quotes move between them and each filing
    has its own id, so a read is compared by the symbols it answers and a filing without its
    id; a refusal is compared whole."""
    data = answer.get("data")
    if not isinstance(data, dict):
        return answer
    shown = {key: value for key, value in data.items() if key != "filing_id"}
    if "results" in shown:
        shown["results"] = [row["quote"]["symbol"] for row in shown["results"]]
    return {**answer, "data": shown}


@pytest.mark.parametrize(
    "kind", ["tampered", "expired", "wrong-key", "unknown-profile-still-refuses"]
)
@pytest.mark.req("callers.bad-tokens-refused")
def test_tampered_expired_and_wrong_key_tokens_are_refused_on_both_paths(
    host: Host, kind: str
) -> None:
    if kind == "tampered":
        payload, signature = host.token().split(".")
        token = payload[:-2] + ("AA" if payload[-2:] != "AA" else "BB") + "." + signature
    elif kind == "expired":
        token = host.token(issued_ago=timedelta(hours=1), ttl=timedelta(minutes=15))
    elif kind == "wrong-key":
        token = host.token(key=CallerKey.derive(Secret("another-master-secret-" + "z" * 20)))
    else:
        token = host.token(profile="nosuch")
    mcp = host.mcp(token)
    mcp.close()
    broker = host.broker(token, "market/read", {"tool": "get_equity_quotes", "arguments": SPY})
    if kind == "unknown-profile-still-refuses":
        # A well-signed token for a profile this gateway does not define: it may use nothing.
        assert mcp.handshake.status_code == 200
        assert broker.status_code == 403
        return
    assert mcp.handshake.status_code == 401
    assert "resource_metadata=" in mcp.handshake.headers["www-authenticate"]
    assert broker.status_code == 401


@pytest.mark.req("callers.identity-from-token")
def test_an_identity_header_is_ignored_when_a_caller_token_is_present(host: Host) -> None:
    spoof = {"x-ordergate-caller": "owner", "x-forwarded-user": "owner", "x-identity": "owner"}
    token = host.token("bot-2", "trader")
    mcp = host.mcp(token, **spoof)
    try:
        assert mcp.call("place_equity_order", BUY)["isError"] is False
    finally:
        mcp.close()
    # Another order (the same one again would be a duplicate of the first).
    again = {**BUY, "dollar_amount": "6"}
    answer = host.broker(
        token,
        "orders/place",
        {"tool": "place_equity_order", "arguments": again},
        **spoof,
    )
    assert answer.status_code == 200, answer.text
    assert len(host.filings(host.identity(token))) == 2
    assert host.filings("caller:owner") == []
    assert host.filings("owner") == []


def test_a_caller_token_cannot_end_the_connection_it_acts_on(host: Host) -> None:
    mcp = host.mcp(host.token("bot-3", "trader"))
    try:
        refused = mcp.call("gate_disconnect")
        still = mcp.call("get_equity_quotes", SPY)
    finally:
        mcp.close()
    assert refused["structuredContent"]["error"]["code"] == "NOT_YOURS_TO_END"
    assert still["isError"] is False


@pytest.mark.parametrize(
    ("capability", "body", "status", "code"),
    [
        ("wallet/empty", {"tool": "get_equity_quotes"}, 404, "UNKNOWN_CAPABILITY"),
        ("orders/place", {"tool": "get_equity_quotes", "arguments": SPY}, 400, "INVALID_ARGUMENT"),
        ("market/read", {"tool": "no_such_tool"}, 404, "UNKNOWN_TOOL"),
        ("market/read", {"tool": "get_equity_quotes", "extra": 1}, 400, "INVALID_ARGUMENT"),
        ("market/read", ["not", "an", "object"], 400, "INVALID_ARGUMENT"),
        ("market/read", {"tool": "gate_disconnect"}, 400, "INVALID_ARGUMENT"),
    ],
    ids=["unknown-capability", "tool-of-another-permission", "unknown-tool", "extra-key",
         "not-an-object", "gateway-tool"],
)  # fmt: skip
def test_the_broker_refuses_what_it_cannot_authorize_by_name(
    host: Host, capability: str, body: Any, status: int, code: str
) -> None:
    answer = host.broker(host.token(), capability, body)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code


def test_the_broker_checks_host_and_origin_as_mcp_does(host: Host) -> None:
    body = {"tool": "get_equity_quotes", "arguments": SPY}
    foreign_origin = host.broker(host.token(), "market/read", body, origin="https://evil.example")
    foreign_host = host.broker(host.token(), "market/read", body, host="evil.example")
    assert foreign_origin.status_code == 403
    assert foreign_host.status_code == 421


@pytest.mark.req("callers.key-never-shown")
def test_the_host_key_and_master_secret_never_reach_any_output(
    host: Host, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    token = host.token("bot-4", "trader")
    mcp = host.mcp(token)
    try:
        answers = [mcp.call("gate_how"), mcp.call("place_equity_order", BUY)]
    finally:
        mcp.close()
    answers.append(host.broker(token, "market/read", {"tool": "get_equity_quotes"}).json())
    seen = caplog.text + "".join(capfd.readouterr()) + repr(answers) + repr(host)
    assert MASTER not in seen
    assert token not in seen

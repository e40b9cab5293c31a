"""MCP 2026-07-28 on the gateway's ``/mcp``, beside the handshake era, chosen per request.

The same gateway answers a stateless request (no session; ``_meta`` with the version and the
client's capabilities; ``Mcp-Method`` and ``Mcp-Name`` headers) and a request on a
handshake-era session; the differential tests send the same calls both ways and compare the
answers, the stateless era's own fields (``resultType``, ``ttlMs``, ``cacheScope``) aside,
and the same refusals at the edge (host, token, limits, budget) both ways.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgi_testkit import (
    LIVE_POLICY,
    QUOTE,
    Answer,
    Gate,
    Headers,
    asgi_gate,
    rpc,
    with_header,
)

from ordergate.mcpserve import MCP_PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSIONS

STATELESS = "2026-07-28"
CAPABILITIES: dict[str, Any] = {}
_NAMED = {"tools/call": "name"}
_ERA_FIELDS = ("resultType", "ttlMs", "cacheScope")


def stateless(
    method: str, params: dict[str, Any] | None = None, *, version: str = STATELESS, rid: Any = 7
) -> bytes:
    """A stateless request: ``params`` with the ``_meta`` envelope."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
    }
    return rpc(method, {**(params or {}), "_meta": meta}, request_id=rid)


def stateless_headers(
    gate: Gate, token: str | None, method: str, name: str | None = None, version: str = STATELESS
) -> Headers:
    headers = [*gate.headers(token), (b"mcp-protocol-version", version.encode())]
    headers.append((b"mcp-method", method.encode()))
    if name is not None:
        headers.append((b"mcp-name", name.encode()))
    return headers


def ask_stateless(gate: Gate, token: str, method: str, params: dict[str, Any]) -> Answer:
    name = params.get(_NAMED.get(method, ""))
    headers = stateless_headers(gate, token, method, name if isinstance(name, str) else None)
    return gate.exchange(gate.fast, headers, stateless(method, params))


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from asgi_gate(tmp_path, monkeypatch, mcp=1000, burst=1000)


@pytest.mark.req("mcp.stateless.discover")
def test_server_discover_names_every_version_of_both_eras_and_opens_no_session(
    gate: Gate,
) -> None:
    answer = ask_stateless(gate, gate.token(), "server/discover", {})
    assert answer.status == 200, answer
    assert b"mcp-session-id" not in dict(answer.headers)
    result = answer.json()["result"]
    assert result["supportedVersions"] == [*STATELESS_PROTOCOL_VERSIONS, *MCP_PROTOCOL_VERSIONS]
    assert result["resultType"] == "complete"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["cacheScope"] == "private"
    assert "trader" in result["instructions"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "ordergate-gateway"


@pytest.mark.req("mcp.stateless.envelope")
def test_the_envelope_is_checked_rung_by_rung_with_the_specified_codes(gate: Gate) -> None:
    token = gate.token()
    listing = stateless("tools/list", {})
    ok = stateless_headers(gate, token, "tools/list")
    quote = stateless("tools/call", QUOTE)
    quoting = stateless_headers(gate, token, "tools/call", "get_equity_quotes")
    cases: dict[str, tuple[Headers, bytes, int, int]] = {
        "no _meta": (ok, rpc("tools/list", {}), 400, -32602),
        "no capabilities": (
            ok,
            rpc("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": STATELESS}}),
            400,
            -32602,
        ),
        "method header differs": (
            with_header(ok, b"mcp-method", b"tools/call"),
            listing,
            400,
            -32020,
        ),
        "no method header": (with_header(ok, b"mcp-method", None), listing, 400, -32020),
        "version header differs": (
            with_header(ok, b"mcp-protocol-version", b"2025-11-25"),
            listing,
            400,
            -32020,
        ),
        "version header twice": (
            [*ok, (b"mcp-protocol-version", STATELESS.encode())],
            listing,
            400,
            -32020,
        ),
        "name header differs": (
            with_header(quoting, b"mcp-name", b"get_accounts"),
            quote,
            400,
            -32020,
        ),
        "no name header": (with_header(quoting, b"mcp-name", None), quote, 400, -32020),
        "ping, which the era removed": (
            stateless_headers(gate, token, "ping"),
            stateless("ping", {}),
            404,
            -32601,
        ),
        "unknown method": (
            stateless_headers(gate, token, "resources/list"),
            stateless("resources/list", {}),
            404,
            -32601,
        ),
    }
    for name, (headers, body, status, code) in cases.items():
        answer = gate.exchange(gate.fast, headers, body)
        assert (answer.status, answer.json()["error"]["code"]) == (status, code), (name, answer)
    future = gate.exchange(
        gate.fast,
        stateless_headers(gate, token, "tools/list", version="2099-01-01"),
        stateless("tools/list", {}, version="2099-01-01"),
    )
    assert future.status == 400
    error = future.json()["error"]
    assert error["code"] == -32022
    assert error["data"] == {
        "supported": [*STATELESS_PROTOCOL_VERSIONS, *MCP_PROTOCOL_VERSIONS],
        "requested": "2099-01-01",
    }


@pytest.mark.req("mcp.stateless.envelope")
def test_a_name_header_in_base64_form_is_read_as_its_value(gate: Gate) -> None:
    token = gate.token()
    headers = stateless_headers(gate, token, "tools/call", "=?base64?Z2V0X2VxdWl0eV9xdW90ZXM=?=")
    answer = gate.exchange(gate.fast, headers, stateless("tools/call", QUOTE))
    assert answer.status == 200, answer
    malformed = with_header(headers, b"mcp-name", b"=?base64?Z2V0X2VxdWl0eV9xdW90ZXM?=")
    assert gate.exchange(gate.fast, malformed, stateless("tools/call", QUOTE)).status == 400


def _handshake(gate: Gate, token: str, session: str, method: str, params: Any) -> Answer:
    return gate.exchange(gate.fast, gate.headers(token, session), rpc(method, params))


def _comparable(message: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC answer without what only the stateless era adds, and without a filing's id
    (each order files anew)."""
    if "error" in message:
        return {"error": message["error"]}
    result = {k: v for k, v in message["result"].items() if k not in _ERA_FIELDS}
    structured = result.get("structuredContent")
    if isinstance(structured, dict) and isinstance(structured.get("data"), dict):
        data = dict(structured["data"])
        data.pop("filing_id", None)
        result["structuredContent"] = {**structured, "data": data}
        result.pop("content", None)
    return {"result": result}


@pytest.mark.req("mcp.stateless.same-answers")
def test_both_eras_give_the_same_answers_to_the_same_calls(gate: Gate) -> None:
    trader, researcher = gate.token(), gate.token("researcher")
    sessions = {token: gate.session(token) for token in (trader, researcher)}
    accounts = _handshake(gate, trader, sessions[trader], "tools/call", {"name": "get_accounts"})
    listed = accounts.json()["result"]["structuredContent"]["data"]["accounts"]
    number = str(next(a["account_number"] for a in listed if a["agentic_allowed"]))
    order = {"account_number": number, "symbol": "AAPL", "side": "buy", "type": "market"}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("trader", "tools/list", {}),
        ("trader", "tools/call", QUOTE),
        ("trader", "tools/call", {"name": "get_accounts", "arguments": {}}),
        ("trader", "tools/call", {"name": "gate_how", "arguments": {}}),
        ("trader", "tools/call", {"name": "get_nothing", "arguments": {}}),
        ("trader", "tools/call", {"name": "create_transfer", "arguments": {}}),
        ("trader", "tools/call", {"name": "get_equity_quotes", "arguments": []}),
        ("trader", "tools/call", {"name": "place_equity_order", "arguments": order}),
        ("trader", "tools/call", {"name": "place_crypto_order", "arguments": {}}),
        ("researcher", "tools/list", {}),
        ("researcher", "tools/call", {"name": "get_accounts", "arguments": {}}),
        ("trader", "tools/nothing", {}),
    ]
    tokens = {"trader": trader, "researcher": researcher}
    for who, method, params in calls:
        token = tokens[who]
        before = _handshake(gate, token, sessions[token], method, params)
        after = ask_stateless(gate, token, method, params)
        assert _comparable(after.json()) == _comparable(before.json()), (who, method, params)
        assert "error" in before.json() or after.json()["result"]["resultType"] == "complete"
    listing = ask_stateless(gate, trader, "tools/list", {}).json()["result"]
    assert (listing["ttlMs"], listing["cacheScope"]) == (60_000, "private")


@pytest.mark.req("mcp.stateless.same-answers")
def test_every_refusal_at_the_edge_is_the_same_in_both_eras(gate: Gate) -> None:
    token = gate.token()
    session = gate.session(token)
    body = {"old": rpc("tools/call", QUOTE), "new": stateless("tools/call", QUOTE)}
    ok = {
        "old": gate.headers(token, session),
        "new": stateless_headers(gate, token, "tools/call", "get_equity_quotes"),
    }
    for era in ("old", "new"):
        assert gate.exchange(gate.fast, ok[era], body[era]).status == 200
    cases: dict[str, tuple[Any, Any, int]] = {
        "foreign host": (lambda h: with_header(h, b"host", b"evil.example"), None, 421),
        "foreign origin": (lambda h: [*h, (b"origin", b"https://evil.example")], None, 403),
        "no token": (lambda h: with_header(h, b"authorization", None), None, 401),
        "unknown token": (lambda h: with_header(h, b"authorization", b"Bearer nope"), None, 401),
        "no accept": (lambda h: with_header(h, b"accept", b"text/html"), None, 406),
        "plain text": (lambda h: with_header(h, b"content-type", b"text/plain"), None, 415),
        "body too long": (None, lambda b: [b, b" " * 9000], 413),
        "too deep": (None, lambda b: b"[" * 100 + b"]" * 100, 400),
    }
    for name, (headers_of, body_of, status) in cases.items():
        for era in ("old", "new"):
            headers = ok[era] if headers_of is None else headers_of(ok[era])
            sent = body[era] if body_of is None else body_of(body[era])
            answer = gate.both(headers, sent)
            assert answer.status == status, (name, era, answer)


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """The gate in live mode, where a quote is a forwarded read (on paper the venue's engine
    answers it, never on the fast path)."""
    yield from asgi_gate(tmp_path, monkeypatch, LIVE_POLICY, mcp=1000, burst=1000)


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_a_stateless_read_is_served_by_the_fast_path_with_the_general_paths_exact_answer(
    live: Gate,
) -> None:
    gate = live
    token = gate.token()
    headers = stateless_headers(gate, token, "tools/call", "get_equity_quotes")
    first = gate.exchange(gate.fast, headers, stateless("tools/call", QUOTE))  # decides the route
    assert first.status == 200, first
    served = gate.fast.served
    fast = gate.exchange(gate.fast, headers, stateless("tools/call", QUOTE))
    general = gate.exchange(gate.fast.general, headers, stateless("tools/call", QUOTE))
    assert gate.fast.served == served + 1
    assert fast == general
    result = fast.json()["result"]
    assert result["resultType"] == "complete"
    assert result["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "AAPL"
    mismatched = with_header(headers, b"mcp-name", b"get_accounts")
    assert gate.both(mismatched, stateless("tools/call", QUOTE)).status == 400


@pytest.fixture
def tight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from asgi_gate(tmp_path, monkeypatch, mcp=1, burst=4)


@pytest.mark.req("mcp.stateless.same-answers")
def test_stateless_reads_spend_the_same_budget_and_get_the_same_429(tight: Gate) -> None:
    token = tight.token()
    headers = stateless_headers(tight, token, "tools/call", "get_equity_quotes")
    for _ in range(4):  # the burst of 4, the clock standing still
        assert tight.exchange(tight.fast, headers, stateless("tools/call", QUOTE)).status == 200
    fast = tight.exchange(tight.fast, headers, stateless("tools/call", QUOTE))
    general = tight.exchange(tight.fast.general, headers, stateless("tools/call", QUOTE))
    assert fast == general
    assert fast.status == 429
    assert fast.json()["error"]["data"]["code"] == "RATE_LIMITED"


@pytest.mark.req("mcp.stateless.listen")
def test_subscriptions_listen_acknowledges_nothing_and_ends_at_once(gate: Gate) -> None:
    token = gate.token()
    params = {"notifications": {"toolsListChanged": True}}
    headers = stateless_headers(gate, token, "subscriptions/listen")
    answer = gate.exchange(gate.fast, headers, stateless("subscriptions/listen", params))
    assert answer.status == 200
    assert dict(answer.headers)[b"content-type"] == b"text/event-stream"
    events = [
        json.loads(line.removeprefix(b"data: "))
        for line in answer.body.split(b"\n")
        if line.startswith(b"data: ")
    ]
    assert events[0]["method"] == "notifications/subscriptions/acknowledged"
    assert events[0]["params"]["notifications"] == {}
    assert events[1]["id"] == 7
    assert events[1]["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7
    json_only = with_header(headers, b"accept", b"application/json")
    refused = gate.exchange(gate.fast, json_only, stateless("subscriptions/listen", params))
    assert refused.status == 406


@pytest.mark.req("mcp.stateless.envelope")
def test_a_stateless_notification_is_accepted_and_one_at_an_unknown_version_is_not(
    gate: Gate,
) -> None:
    token = gate.token()
    headers = stateless_headers(gate, token, "notifications/cancelled")
    note = stateless("notifications/cancelled", {"requestId": 3}, rid=None)
    assert gate.exchange(gate.fast, headers, note).status == 202
    unknown = stateless("notifications/cancelled", {"requestId": 3}, version="2099-01-01", rid=None)
    refused = gate.exchange(
        gate.fast, with_header(headers, b"mcp-protocol-version", b"2099-01-01"), unknown
    )
    assert refused.status == 400


@pytest.mark.req("mcp.held.request-state-sealed")
def test_a_request_state_this_gateway_did_not_issue_is_refused_on_an_order(gate: Gate) -> None:
    token = gate.token()
    order = {"name": "place_equity_order", "arguments": {}, "requestState": "r1.e30.forged"}
    answer = ask_stateless(gate, token, "tools/call", order)
    assert (answer.status, answer.json()["error"]["code"]) == (400, -32602)

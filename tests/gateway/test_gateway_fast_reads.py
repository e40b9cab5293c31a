"""The forwarded read's fast path (``ForwardedReads``) against the general path it stands in
front of: every request it does not answer itself is the general path's, and every refusal
is the general path's own, status, headers and body.

Each case goes to both, in the gateway's own event loop, as ASGI messages: the whole app (the
fast path first) and ``app.general`` (the app as it is without it), one after the other, on
one gateway with a stepped clock (the venue's quotes stand still, the rate limits' windows
too). What each sends back is compared whole. The fast path's counters say which answered:
``served`` (the fast path committed to the request) or ``passed`` (handed to the general
path).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgi_testkit import (
    LIVE_POLICY,
    QUOTE,
    QUOTE_CALL,
    SLIPPED_POLICY,
    Gate,
    Headers,
    asgi_gate,
    initialize,
    rpc,
    with_header,
)
from gateway_testkit import OPEN

from ordergate.callers import mint
from ordergate.ledger import FilingStatus


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from asgi_gate(tmp_path, monkeypatch, mcp=1000, burst=1000)


def _warmed(gate: Gate) -> tuple[Gate, str, str]:
    """``gate`` with a trader's session whose listing and routes are read (the general
    path's first call decides them), and its token."""
    token = gate.token()
    session = gate.session(token)
    first = gate.exchange(gate.fast, gate.headers(token, session), QUOTE_CALL)
    assert first.status == 200, first
    return gate, token, session


@pytest.fixture
def warm(gate: Gate) -> tuple[Gate, str, str]:
    """The paper gate, warmed (``_warmed``)."""
    return _warmed(gate)


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from asgi_gate(tmp_path, monkeypatch, LIVE_POLICY, mcp=1000, burst=1000)


@pytest.fixture
def live_warm(live: Gate) -> tuple[Gate, str, str]:
    """The live gate, warmed (``_warmed``): in live mode a quote is a forwarded read (on
    paper too, unless the paper market adds slippage)."""
    return _warmed(live)


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_a_plain_read_is_served_by_the_fast_path_with_the_general_paths_exact_answer(
    live_warm: tuple[Gate, str, str],
) -> None:
    gate, token, session = live_warm
    headers = gate.headers(token, session)
    served = gate.fast.served
    fast = gate.exchange(gate.fast, headers, QUOTE_CALL)
    general = gate.exchange(gate.fast.general, headers, QUOTE_CALL)
    assert gate.fast.served == served + 1
    assert fast == general
    assert fast.status == 200
    result = fast.json()["result"]
    assert result["isError"] is False
    assert result["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "AAPL"
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_on_paper_without_slippage_a_quote_and_the_account_list_are_fast_path_reads(
    warm: tuple[Gate, str, str],
) -> None:
    # The paper market adds no slippage: its quotes are the upstream's, market data that
    # paper forwards as live, on the fast path, as it does the account list.
    gate, token, session = warm
    headers = gate.headers(token, session)
    accounts = rpc("tools/call", {"name": "get_accounts", "arguments": {}})
    gate.exchange(gate.fast, headers, accounts)  # decides the route
    for body in (QUOTE_CALL, accounts):
        served = gate.fast.served
        fast = gate.exchange(gate.fast, headers, body)
        assert gate.fast.served == served + 1
        assert fast == gate.exchange(gate.fast.general, headers, body)
        result = fast.json()["result"]
        assert result["isError"] is False
        assert not result["structuredContent"]["guide"].startswith("Paper: ")


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_on_paper_with_slippage_a_quote_is_the_engines_on_the_general_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Paper is the venue's own engine (issue 24): with slippage its quotes are the paper
    # market's, read by the paper venue, so a quote is never a forwarded read.
    for gate in asgi_gate(tmp_path, monkeypatch, SLIPPED_POLICY, mcp=1000, burst=1000):
        gate, token, session = _warmed(gate)
        headers = gate.headers(token, session)
        passed = gate.fast.passed
        quote = gate.exchange(gate.fast, headers, QUOTE_CALL)
        assert gate.fast.passed == passed + 1
        assert quote.status == 200
        result = quote.json()["result"]
        assert result["isError"] is False
        assert result["structuredContent"]["guide"].startswith("Paper: ")
        assert result["structuredContent"]["data"]["results"][0]["quote"]["symbol"] == "AAPL"


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_a_read_in_several_body_chunks_and_sse_framing_are_served_alike(
    live_warm: tuple[Gate, str, str],
) -> None:
    gate, token, session = live_warm
    sse = [
        (n, b"text/event-stream" if n == b"accept" else v) for n, v in gate.headers(token, session)
    ]
    chunks = [QUOTE_CALL[:10], QUOTE_CALL[10:]]
    for headers, body in ((gate.headers(token, session), chunks), (sse, QUOTE_CALL)):
        served = gate.fast.served
        fast = gate.exchange(gate.fast, headers, body)
        assert gate.fast.served == served + 1
        assert fast == gate.exchange(gate.fast.general, headers, body)
        assert fast.status == 200


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_every_refusal_at_the_edge_is_the_general_paths_own(warm: tuple[Gate, str, str]) -> None:
    gate, token, session = warm
    ok = gate.headers(token, session)
    cases: dict[str, tuple[Headers, bytes | list[bytes], int]] = {
        "foreign host": (with_header(ok, b"host", b"evil.example"), QUOTE_CALL, 421),
        "foreign origin": ([*ok, (b"origin", b"https://evil.example")], QUOTE_CALL, 403),
        "host twice": ([*ok, (b"host", gate.host)], QUOTE_CALL, 421),
        "no token": (with_header(ok, b"authorization", None), QUOTE_CALL, 401),
        "unknown token": (with_header(ok, b"authorization", b"Bearer nope"), QUOTE_CALL, 401),
        "basic scheme": (
            with_header(ok, b"authorization", b"Basic " + token.encode()),
            QUOTE_CALL,
            401,
        ),
        "empty bearer": (with_header(ok, b"authorization", b"Bearer   "), QUOTE_CALL, 401),
        "no accept": (with_header(ok, b"accept", b"text/html"), QUOTE_CALL, 406),
        "plain text": (with_header(ok, b"content-type", b"text/plain"), QUOTE_CALL, 415),
        "declared too long": (with_header(ok, b"content-length", b"100000"), QUOTE_CALL, 413),
        "body too long": (ok, [QUOTE_CALL, b" " * 9000], 413),
        "not json": (ok, b"{not json", 400),
        "too deep": (ok, b"[" * 100 + b"]" * 100, 400),
        "a batch": (ok, b"[" + QUOTE_CALL + b"]", 400),
        "not json-rpc 2.0": (ok, QUOTE_CALL.replace(b'"2.0"', b'"1.0"'), 400),
        "unknown session": (with_header(ok, b"mcp-session-id", b"f" * 32), QUOTE_CALL, 404),
        "unknown version": (
            with_header(ok, b"mcp-protocol-version", b"2099-01-01"),
            QUOTE_CALL,
            400,
        ),
    }
    for name, (headers, body, status) in cases.items():
        answer = gate.both(headers, body)
        assert answer.status == status, (name, answer)


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_a_session_is_honoured_only_for_its_own_principal_and_version(gate: Gate) -> None:
    trader, monitor = gate.token(), gate.token("monitor")
    mine = gate.session(trader)
    older = gate.session(trader, "2025-06-18")
    gate.exchange(gate.fast, gate.headers(trader, mine), QUOTE_CALL)  # decide the route
    assert gate.both(gate.headers(monitor, mine), QUOTE_CALL).status == 404
    newer = gate.headers(trader, older, version=b"2025-11-25")
    assert gate.both(newer, QUOTE_CALL).status == 400


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_every_refused_call_is_the_general_paths_own(warm: tuple[Gate, str, str]) -> None:
    gate, token, session = warm
    ok = gate.headers(token, session)
    researcher = gate.token("researcher")
    researching = gate.session(researcher)
    gate.exchange(gate.fast, gate.headers(researcher, researching), QUOTE_CALL)
    cancel = {"account_number": _account(gate, token, session), "order_id": str(uuid.UUID(int=7))}
    alert = {"alert_id": str(uuid.UUID(int=8))}
    calls = {
        "unknown tool": rpc("tools/call", {"name": "get_nothing", "arguments": {}}),
        "no name": rpc("tools/call", {"arguments": {}}),
        "empty name": rpc("tools/call", {"name": "", "arguments": {}}),
        "arguments a list": rpc("tools/call", {"name": "get_equity_quotes", "arguments": []}),
        "params a list": rpc("tools/call", [1]),
        "no params": rpc("tools/call"),
        "moves money": rpc("tools/call", {"name": "create_transfer", "arguments": {}}),
        "crypto order": rpc("tools/call", {"name": "place_crypto_order", "arguments": {}}),
        "tax lots on paper": rpc("tools/call", {"name": "get_equity_tax_lots", "arguments": {}}),
        "another's cancel": rpc("tools/call", {"name": "cancel_equity_order", "arguments": cancel}),
        "an alert's delete": rpc("tools/call", {"name": "delete_alert", "arguments": alert}),
        "unknown method": rpc("tools/nothing", {}),
        "method not a string": rpc("tools/call", QUOTE).replace(b'"tools/call"', b"3"),
    }
    for name, body in calls.items():
        gate.exchange(gate.fast, ok, body)  # the first decides what the listing says of it
        answer = gate.both(ok, body)
        assert answer.status == 200, (name, answer)
        message = answer.json()
        refused = "error" in message or message["result"]["isError"] is True
        assert refused, (name, message)
    accounts = rpc("tools/call", {"name": "get_accounts", "arguments": {}})
    gate.exchange(gate.fast, gate.headers(researcher, researching), accounts)
    refused = gate.both(gate.headers(researcher, researching), accounts).json()
    assert refused["result"]["structuredContent"]["error"]["code"] == "PROFILE_REFUSED"


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_a_paper_read_the_paper_book_answers_is_never_forwarded_by_the_fast_path(
    warm: tuple[Gate, str, str],
) -> None:
    gate, token, session = warm
    number = _account(gate, token, session)
    positions = rpc(
        "tools/call", {"name": "get_equity_positions", "arguments": {"account_number": number}}
    )
    gate.exchange(gate.fast, gate.headers(token, session), positions)  # decide its entry
    answer = gate.both(gate.headers(token, session), positions)
    assert answer.status == 200
    assert "paper book" in answer.json()["result"]["structuredContent"]["guide"]


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_what_is_not_a_plain_read_falls_back_to_the_general_path(
    warm: tuple[Gate, str, str],
) -> None:
    gate, token, session = warm
    ok = gate.headers(token, session)
    caller = mint(gate.key, caller="bot", profile="trader", ttl=_minutes(15), now=OPEN).reveal()
    caller_session = gate.session(caller)
    same = {
        "a notification": (ok, rpc("notifications/initialized", {}, request_id=None)),
        "a read as a notification": (ok, rpc("tools/call", QUOTE, request_id=None)),
        "a response from the client": (ok, b'{"jsonrpc":"2.0","id":3,"result":{}}'),
        "ping": (ok, rpc("ping")),
        "tools/list": (ok, rpc("tools/list", {})),
        "no session": (
            with_header(with_header(ok, b"mcp-session-id", None), b"mcp-protocol-version", None),
            QUOTE_CALL,
        ),
        "the gateway's own tool": (ok, rpc("tools/call", {"name": "gate_how", "arguments": {}})),
        "a caller token": (gate.headers(caller, caller_session), QUOTE_CALL),
    }
    for name, (headers, body) in same.items():
        answer = gate.both(headers, body)
        assert answer.status in (200, 202), (name, answer)
    passed = gate.fast.passed
    initialized = gate.exchange(gate.fast, gate.headers(token), initialize("2025-11-25"))
    assert initialized.status == 200
    assert gate.exchange(gate.fast, ok, b"", method="DELETE").status == 200
    assert gate.exchange(gate.fast, ok, b"", method="GET").status == 405
    assert gate.exchange(gate.fast, ok, b"", method="GET", path="/healthz").status == 200
    assert gate.fast.passed == passed + 4


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_an_order_goes_the_general_way_and_is_filed(warm: tuple[Gate, str, str]) -> None:
    gate, token, session = warm
    number = _account(gate, token, session)
    order = {"account_number": number, "symbol": "SPY", "side": "buy", "type": "market"}
    for symbol in ("AAPL", "SPY"):  # the first (refused: not allowed) decides the route
        arguments = {**order, "symbol": symbol, "dollar_amount": "1"}
        body = rpc("tools/call", {"name": "place_equity_order", "arguments": arguments})
        served, passed = gate.fast.served, gate.fast.passed
        answer = gate.exchange(gate.fast, gate.headers(token, session), body)
        assert (gate.fast.served, gate.fast.passed) == (served, passed + 1)
        filing = answer.json()["result"]["structuredContent"]["data"]
        assert filing["status"] == ("refused" if symbol == "AAPL" else "submitted"), filing
    # Placed on the paper book, filled once the venue's delay has passed.
    assert gate.settle().filing(filing["filing_id"]).status is FilingStatus.FILLED


def _account(gate: Gate, token: str, session: str) -> str:
    """The agentic account's number, read through the gateway (a plain read)."""
    listed = gate.exchange(
        gate.fast, gate.headers(token, session), rpc("tools/call", {"name": "get_accounts"})
    )
    accounts = listed.json()["result"]["structuredContent"]["data"]["accounts"]
    return str(next(a["account_number"] for a in accounts if a["agentic_allowed"]))


def _minutes(n: int) -> Any:
    from datetime import timedelta

    return timedelta(minutes=n)


@pytest.fixture
def tight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    yield from asgi_gate(tmp_path, monkeypatch, mcp=1, burst=4, unauthenticated=2)


@pytest.fixture
def live_tight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    """``tight`` in live mode, where a quote is a forwarded read."""
    yield from asgi_gate(tmp_path, monkeypatch, LIVE_POLICY, mcp=1, burst=4, unauthenticated=2)


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_over_budget_the_fast_path_answers_the_endpoints_own_429(live_tight: Gate) -> None:
    tight = live_tight
    token = tight.token()
    session = tight.session(token)  # the handshake spends the local budget, not this one
    headers = tight.headers(token, session)
    assert tight.exchange(tight.fast, headers, QUOTE_CALL).status == 200  # decides the route
    for _ in range(3):  # the rest of the burst of 4, the clock standing still
        assert tight.exchange(tight.fast, headers, QUOTE_CALL).status == 200
    served = tight.fast.served
    fast = tight.exchange(tight.fast, headers, QUOTE_CALL)
    general = tight.exchange(tight.fast.general, headers, QUOTE_CALL)
    assert tight.fast.served == served + 1
    assert fast == general
    assert fast.status == 429
    assert fast.json()["error"]["data"]["code"] == "RATE_LIMITED"


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_refused_tokens_past_their_allowance_get_the_same_429(tight: Gate) -> None:
    token = tight.token()
    session = tight.session(token)
    bad = with_header(tight.headers(token, session), b"authorization", b"Bearer nope")
    answers = [tight.both(bad, QUOTE_CALL) for _ in range(2)]
    assert [a.status for a in answers] == [401, 429]


@pytest.mark.req("gateway.read.fast-path-same-answers")
def test_in_live_mode_orders_and_cancels_go_the_general_way(live: Gate) -> None:
    assert live.server.running is not None and live.server.running.arming.live
    token = live.token()
    session = live.session(token)
    ok = live.headers(token, session)
    number = _account(live, token, session)
    cancel = {"account_number": number, "order_id": str(uuid.UUID(int=7))}
    cancelling = rpc("tools/call", {"name": "cancel_equity_order", "arguments": cancel})
    live.exchange(live.fast, ok, cancelling)  # the first decides the route
    refused = live.both(ok, cancelling).json()["result"]
    assert refused["isError"] is True
    order = {"account_number": number, "side": "buy", "type": "market", "dollar_amount": "1"}
    placing = rpc(
        "tools/call", {"name": "place_equity_order", "arguments": {**order, "symbol": "AAPL"}}
    )
    for _ in range(2):  # the first decides the route
        served, passed = live.fast.served, live.fast.passed
        filing = live.exchange(live.fast, ok, placing).json()["result"]["structuredContent"]["data"]
        assert (live.fast.served, live.fast.passed) == (served, passed + 1)
        assert filing["status"] == "refused" and filing["paper"] is False, filing
    assert live.exchange(live.fast, ok, QUOTE_CALL).status == 200
    served = live.fast.served
    assert live.exchange(live.fast, ok, QUOTE_CALL).status == 200
    assert live.fast.served == served + 1

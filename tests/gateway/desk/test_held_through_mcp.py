"""An order held for the owner, through MCP itself: a stateless (2026-07-28) client that takes
URL elicitations gets an ``InputRequiredResult`` whose URL is the approval's console page, and
its retries with the ``requestState`` get the same answer until the owner decides, then the
outcome (placed as filed, or denied), or after the expiry, expired. A state altered by one
byte, replayed by another connection, or carried by another call is refused. The test plays
the owner on the owner channel, as ``ordergate approve`` and ``ordergate deny`` do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from desk_kit import BUY, HELD_POLICY, Desk, owner_desk
from gateway_testkit import OPEN

from ordergate.callers import mint
from ordergate.core import SteppedClock

STATELESS = "2026-07-28"
URL_ELICITATION: dict[str, Any] = {"elicitation": {"url": {}}}


class Agent:
    """A stateless MCP client of the desk's gateway, with a caller token of its own."""

    def __init__(self, desk: Desk, caller: str, capabilities: dict[str, Any]) -> None:
        now = desk.clock.now() if desk.clock is not None else OPEN
        self.token = mint(
            desk.key, caller=caller, profile="trader", ttl=timedelta(hours=2), now=now
        ).reveal()
        self.url = desk.url + "/mcp"
        self.capabilities = capabilities
        self.http = httpx2.Client(timeout=30)
        self.sent = 0
        OPENED.append(self.http)

    def call(self, name: str, arguments: dict[str, Any], state: object = None) -> dict[str, Any]:
        """The JSON-RPC answer to a ``tools/call`` (with ``state`` as its ``requestState``)."""
        self.sent += 1
        params: dict[str, Any] = {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            },
        }
        if state is not None:
            params["requestState"] = state
            params["inputResponses"] = {"owner_approval": {"action": "accept"}}
        headers = {
            "authorization": f"Bearer {self.token}",
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": STATELESS,
            "mcp-method": "tools/call",
            "mcp-name": name,
        }
        body = {"jsonrpc": "2.0", "id": self.sent, "method": "tools/call", "params": params}
        response = self.http.post(self.url, content=json.dumps(body), headers=headers)
        answer: dict[str, Any] = response.json()
        return answer


def _order(n: int) -> dict[str, Any]:
    return {**BUY, "dollar_amount": str(Decimal(5) + Decimal(n) / 100)}


GATEWAY_CLOCK: dict[str, SteppedClock] = {}
OPENED: list[httpx2.Client] = []


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    clock = SteppedClock(start=OPEN)
    with owner_desk(tmp_path, monkeypatch, gateway_clock=clock) as desk:
        GATEWAY_CLOCK[desk.url] = clock
        try:
            yield desk
        finally:
            while OPENED:
                OPENED.pop().close()


def _held(agent: Agent, arguments: dict[str, Any]) -> dict[str, Any]:
    result = agent.call("place_equity_order", arguments)["result"]
    assert result["resultType"] == "input_required", result
    return result


@pytest.mark.req("mcp.held.input-required")
def test_a_held_order_answers_the_consoles_page_then_the_same_until_approved_then_placed(
    desk: Desk,
) -> None:
    agent = Agent(desk, "agent", URL_ELICITATION)
    held = _held(agent, _order(1))
    [request] = held["inputRequests"].values()
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "url"
    url = request["params"]["url"]
    assert url.startswith(desk.url + "/console/approvals/")
    approval_id = url.rsplit("/", 1)[1]
    state = held["requestState"]
    assert "approve" not in json.dumps(held).replace("approves", "")  # no way to approve
    again = agent.call("place_equity_order", _order(1), state)["result"]
    assert again == held
    approved = desk.act("approve", {"approval_id": approval_id}, desk.codes.next())
    assert approved.status_code == 200, approved.text
    placed = agent.call("place_equity_order", _order(1), state)["result"]
    assert placed["resultType"] == "complete"
    data = placed["structuredContent"]["data"]
    assert data["status"] in ("filled", "submitted"), data
    assert data["approval_id"] == approval_id
    once_more = agent.call("place_equity_order", _order(1), state)["result"]
    assert once_more["structuredContent"]["data"]["filing_id"] == data["filing_id"]
    filings = desk.ledger.filings_of(desk.ledger.filing(data["filing_id"]).identity, limit=10)
    assert len(filings) == 1  # retries file nothing and place nothing again


@pytest.mark.req("mcp.held.input-required")
def test_a_denied_held_order_answers_denied_on_the_retry(desk: Desk) -> None:
    agent = Agent(desk, "agent", URL_ELICITATION)
    held = _held(agent, _order(2))
    approval_id = held["inputRequests"]["owner_approval"]["params"]["url"].rsplit("/", 1)[1]
    assert desk.post(f"/approvals/{approval_id}/deny").status_code == 200
    denied = agent.call("place_equity_order", _order(2), held["requestState"])["result"]
    data = denied["structuredContent"]["data"]
    assert (data["status"], data["reasons"]) == ("denied", ["approval_denied"])
    assert denied["isError"] is True


@pytest.mark.req("mcp.held.request-state-sealed")
def test_a_request_state_altered_replayed_or_carried_by_another_call_is_refused(
    desk: Desk,
) -> None:
    agent = Agent(desk, "agent", URL_ELICITATION)
    other = Agent(desk, "other-agent", URL_ELICITATION)
    held = _held(agent, _order(3))
    state: str = held["requestState"]
    flipped = state[:-5] + ("A" if state[-5] != "A" else "B") + state[-4:]
    payload_flipped = state[:10] + ("A" if state[10] != "A" else "B") + state[11:]
    refusals = {
        "altered mac": agent.call("place_equity_order", _order(3), flipped),
        "altered payload": agent.call("place_equity_order", _order(3), payload_flipped),
        "another connection": other.call("place_equity_order", _order(3), state),
        "other arguments": agent.call("place_equity_order", _order(4), state),
        "another tool": agent.call("get_equity_quotes", {"symbols": ["SPY"]}, state),
        "the gateway's own tool": agent.call("gate_how", {}, state),
        "not a string": agent.call("place_equity_order", _order(3), 7),
    }
    for name, answer in refusals.items():
        assert answer.get("error", {}).get("code") == -32602, (name, answer)
    still = agent.call("place_equity_order", _order(3), state)["result"]
    assert still == held


@pytest.mark.req("mcp.held.input-required")
def test_after_the_approvals_expiry_the_retry_answers_expired(desk: Desk) -> None:
    agent = Agent(desk, "agent", URL_ELICITATION)
    held = _held(agent, _order(5))
    # An approval's time to live is security time: the market moving expires nothing.
    GATEWAY_CLOCK[desk.url].advance(timedelta(hours=1))
    still = agent.call("place_equity_order", _order(5), held["requestState"])["result"]
    assert still["resultType"] == "input_required", still
    assert desk.clock is not None
    desk.clock.advance(timedelta(seconds=901))  # the policy's approval_ttl_s, and a second
    expired = agent.call("place_equity_order", _order(5), held["requestState"])["result"]
    assert "structuredContent" in expired, expired
    data = expired["structuredContent"]["data"]
    assert (data["status"], data["reasons"]) == ("expired", ["approval_expired"])


@pytest.mark.req("mcp.held.input-required")
def test_a_client_that_takes_no_url_elicitation_gets_the_pending_answer(desk: Desk) -> None:
    agent = Agent(desk, "agent", {"elicitation": {"form": {}}})
    result = agent.call("place_equity_order", _order(6))["result"]
    assert result["resultType"] == "complete"
    assert result["structuredContent"]["data"]["status"] == "pending_approval"


@pytest.mark.req("mcp.held.request-state-sealed")
def test_a_request_state_is_refused_once_the_policy_it_was_held_under_changed(
    desk: Desk,
) -> None:
    agent = Agent(desk, "agent", URL_ELICITATION)
    held = _held(agent, _order(7))
    tighter = HELD_POLICY + '[limits]\nmax_order_usd = "2"\n'
    assert desk.act("policy_apply", {"text": tighter}).status_code == 200
    refused = agent.call("place_equity_order", _order(7), held["requestState"])
    assert refused["error"]["code"] == -32602
    assert "gate_record" in refused["error"]["message"]


def _handshake(desk: Desk, capabilities: dict[str, Any], accept: str) -> tuple[Agent, Any]:
    """A 2025-11-25 session declaring ``capabilities``, and a poster of tools/call on it."""
    agent = Agent(desk, "agent", {})
    headers = {
        "authorization": f"Bearer {agent.token}",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    opened = agent.http.post(agent.url, json=init, headers=headers)
    session = {
        **headers,
        "accept": accept,
        "mcp-session-id": opened.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-11-25",
    }

    def place(n: int) -> httpx2.Response:
        call = {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": "place_equity_order", "arguments": _order(n)},
        }
        return agent.http.post(agent.url, json=call, headers=session)

    return agent, place


def _events(response: httpx2.Response) -> list[dict[str, Any]]:
    return [
        json.loads(line.removeprefix("data: "))
        for line in response.text.splitlines()
        if line.startswith("data: ")
    ]


@pytest.mark.req("mcp.held.input-required")
def test_a_2025_11_25_client_declaring_url_elicitation_is_asked_elicitation_create_first(
    desk: Desk,
) -> None:
    _, place = _handshake(desk, URL_ELICITATION, "application/json, text/event-stream")
    answer = place(8)
    assert answer.headers["content-type"] == "text/event-stream"
    asked, result = _events(answer)
    assert asked["method"] == "elicitation/create"
    params = asked["params"]
    data = result["result"]["structuredContent"]["data"]
    assert data["status"] == "pending_approval"
    assert params["mode"] == "url" and params["elicitationId"] == data["approval_id"]
    assert params["url"] == f"{desk.url}/console/approvals/{data['approval_id']}"
    assert result["id"] == 8 and asked["id"] != 8


@pytest.mark.req("mcp.held.input-required")
def test_without_url_elicitation_or_sse_a_2025_11_25_client_gets_the_pending_answer_alone(
    desk: Desk,
) -> None:
    _, form_only = _handshake(desk, {"elicitation": {}}, "application/json, text/event-stream")
    _, json_only = _handshake(desk, URL_ELICITATION, "application/json")
    for place, n in ((form_only, 9), (json_only, 10)):
        answer = place(n)
        assert answer.headers["content-type"] == "application/json"
        assert answer.json()["result"]["structuredContent"]["data"]["status"] == "pending_approval"

"""Failures inside the gateway's methods end in fixed sentences, never in a guess or a leak.

These drive ``GatewayMethods`` directly with a backend that fails on purpose (the HTTP tests
use a real venue, which fails only in the ways its fault knobs allow), and the shared
transport with a server whose methods break.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx2
import pytest
from mcp_gateway_kit import principal
from starlette.applications import Starlette
from starlette.routing import Route
from venue_testkit import START

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.client import (
    BusinessError,
    HTTPStatusError,
    LoginRequired,
    ResponseParseError,
    RpcError,
    TransportError,
)
from ordergate.core import SteppedClock
from ordergate.execution import BROKER_REFUSED, Outcome
from ordergate.gateway.mcp import GatewayMethods
from ordergate.gateway.mcp._failures import failure_payload
from ordergate.ledger import FilingStatus, Ledger, open_ledger
from ordergate.mcpserve import (
    EncodedResult,
    Framing,
    McpEndpoint,
    Session,
    SessionStore,
    async_verifier,
)
from ordergate.mcpserve import RpcError as ProtocolError
from ordergate.policy import PolicyConfig
from ordergate.profiles import Permission, Profile, load_profiles

pytestmark = pytest.mark.anyio

SECRET = "upstream-said-token-abc123"
ORDER_TOOL = {
    "name": "place_equity_order",
    "inputSchema": {
        "type": "object",
        "properties": {"symbol": {}, "side": {}, "type": {}, "quantity": {}},
    },
}
ORDER = "place_equity_order"
BUY = {"symbol": "SPY", "side": "buy", "type": "market", "quantity": "1"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with open_ledger(f"sqlite:///{tmp_path / 'l.db'}", clock=SteppedClock(start=START)) as opened:
        yield opened


@dataclass
class StubGuard:
    ledger: Any
    outcome: Outcome | Exception | None = None
    account: str = "A1"
    paper: bool = True

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        yield

    async def submit(self, proposal: Any, *, identity: str, agent_key: Any = None) -> Outcome:
        if isinstance(self.outcome, Exception):
            raise self.outcome
        assert self.outcome is not None
        return self.outcome


@dataclass
class BrokenBackend:
    """Every part can be made to fail."""

    the_guard: Any
    tools: list[dict[str, Any]] = field(default_factory=lambda: [ORDER_TOOL])
    forward_error: Exception | None = None
    guard_error: Exception | None = None
    disconnect_error: Exception | None = None
    list_error: Exception | None = None

    async def upstream_tools(self, connection_id: str) -> list[dict[str, Any]]:
        if self.list_error is not None:
            raise self.list_error
        return self.tools

    async def forward(self, connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
        if self.forward_error is not None:
            raise self.forward_error
        return {"ok": True}

    async def guard(self, connection_id: str) -> Any:
        if self.guard_error is not None:
            raise self.guard_error
        return self.the_guard

    def open_guard(self, connection_id: str) -> Any:
        return None if self.guard_error is not None else self.the_guard

    def identity(self, connection_id: str) -> str:
        return "id-" + connection_id

    async def disconnect(self, connection_id: str) -> None:
        if self.disconnect_error is not None:
            raise self.disconnect_error


CUSTODIAN = Profile(
    "custodian",
    "cancels any order",
    frozenset({Permission.ORDERS_CANCEL, Permission.ORDERS_CANCEL_ANY}),
)
PROFILES = {**load_profiles(None, PolicyConfig()), "custodian": CUSTODIAN}


def _methods(backend: BrokenBackend) -> GatewayMethods:
    return GatewayMethods(backend, clock=SteppedClock(start=START), profiles=PROFILES)


async def _call(
    methods: GatewayMethods, name: str, arguments: Any = None, *, profile: str = "trader"
) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments or {}}
    result = await methods.call("tools/call", params, principal("c1", profile))
    return result.decoded() if isinstance(result, EncodedResult) else result


def _error(result: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is True
    assert SECRET not in json.dumps(result)
    error: dict[str, Any] = result["structuredContent"]["error"]
    return error


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (BusinessError(SECRET, code="NOT_FOUND", field="order_id"), "UPSTREAM_REFUSED",
         "The broker refused the call (NOT_FOUND)."),
        (BusinessError(SECRET, code=SECRET, field=SECRET), "UPSTREAM_REFUSED",
         "The broker refused the call."),
        (TransportError(SECRET), "UPSTREAM_UNANSWERED",
         "The broker did not answer; try again shortly."),
        (LoginRequired(SECRET), "UPSTREAM_SIGNED_OUT",
         "The gateway's session with the broker has ended; connect again."),
        (HTTPStatusError(SECRET, status=401), "UPSTREAM_SIGNED_OUT",
         "The broker no longer accepts this connection's session; connect again."),
        (HTTPStatusError(SECRET, status=502), "UPSTREAM_ERROR",
         "The broker answered with an error (HTTP 502)."),
        (RpcError(SECRET, rpc_code=-32602), "UPSTREAM_ERROR",
         "The broker did not accept the request."),
        (ResponseParseError(SECRET), "UPSTREAM_UNREADABLE",
         "The broker's answer could not be read."),
        (RuntimeError(SECRET), "GATEWAY_ERROR", "The gateway could not forward the call."),
    ],
)  # fmt: skip
def test_an_upstream_failure_becomes_a_fixed_sentence_without_the_upstreams_text(
    error: Exception, code: str, message: str
) -> None:
    payload = failure_payload(error)
    assert payload["error"]["code"] == code
    assert payload["error"]["message"] == message
    assert SECRET not in json.dumps(payload)
    if code == "UPSTREAM_REFUSED" and "NOT_FOUND" in message:
        assert payload["error"]["field"] == "order_id"


async def test_a_failed_forward_is_a_refusal_with_a_fixed_sentence(ledger: Ledger) -> None:
    backend = BrokenBackend(StubGuard(ledger), forward_error=RuntimeError(SECRET))
    backend.tools.append({"name": "get_accounts"})
    error = _error(await _call(_methods(backend), "get_accounts"))
    assert error["code"] == "GATEWAY_ERROR"


@dataclass
class UnwritableJournal:
    def append(self, **entry: Any) -> None:
        raise RuntimeError(SECRET)


@dataclass
class UnwritableLedger:
    """Reads as the real ledger does; its journal cannot be written."""

    real: Ledger
    journal: UnwritableJournal = field(default_factory=UnwritableJournal)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


async def test_a_cancel_is_answered_even_when_recording_it_fails(ledger: Ledger) -> None:
    backend = BrokenBackend(StubGuard(UnwritableLedger(ledger)))
    backend.tools.append({"name": "cancel_equity_order"})
    result = await _call(
        _methods(backend), "cancel_equity_order", {"order_id": str(uuid4())}, profile="custodian"
    )
    assert result["isError"] is False
    assert result["structuredContent"]["data"] == {"ok": True}


async def test_a_cancel_the_record_cannot_check_is_refused_and_not_sent(ledger: Ledger) -> None:
    backend = BrokenBackend(StubGuard(ledger), guard_error=RuntimeError(SECRET))
    backend.tools.append({"name": "cancel_equity_order"})
    error = _error(
        await _call(_methods(backend), "cancel_equity_order", {"order_id": str(uuid4())})
    )
    assert error == {
        "code": "GATEWAY_ERROR",
        "message": "The gateway could not read its record, so nothing was sent.",
    }


@pytest.mark.parametrize("tool", ["gate_how", "gate_record", "place_equity_order"])
async def test_a_guard_that_cannot_be_reached_refuses_in_a_fixed_sentence(
    ledger: Ledger, tool: str
) -> None:
    backend = BrokenBackend(StubGuard(ledger), guard_error=RuntimeError(SECRET))
    error = _error(await _call(_methods(backend), tool, BUY if tool.startswith("place") else {}))
    assert error["code"] == "GATEWAY_ERROR"


async def test_an_unreadable_record_files_nothing(ledger: Ledger) -> None:
    broken = StubGuard(ledger=object())  # has no open_filings
    error = _error(await _call(_methods(BrokenBackend(broken)), "place_equity_order", BUY))
    assert error == {
        "code": "GATEWAY_ERROR",
        "message": "The gateway could not read its record, so nothing was filed.",
    }


async def test_an_order_path_that_breaks_tells_the_agent_to_look_before_resending(
    ledger: Ledger,
) -> None:
    backend = BrokenBackend(StubGuard(ledger, outcome=RuntimeError(SECRET)))
    error = _error(await _call(_methods(backend), "place_equity_order", BUY))
    assert error["code"] == "ORDER_PATH_FAILED"
    assert "Read gate_record and your open orders before sending it again." in error["message"]


async def test_a_broker_refusal_carries_only_a_plain_broker_code(ledger: Ledger) -> None:
    plain = Outcome(uuid4(), FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code="NO_FUNDS")
    odd = Outcome(uuid4(), FilingStatus.REJECTED, (BROKER_REFUSED,), broker_code=SECRET)
    first = await _call(_methods(BrokenBackend(StubGuard(ledger, plain))), ORDER, BUY)
    second = await _call(_methods(BrokenBackend(StubGuard(ledger, odd))), ORDER, BUY)
    assert first["isError"] is True
    assert first["structuredContent"]["data"]["broker_code"] == "NO_FUNDS"
    assert "broker_code" not in second["structuredContent"]["data"]
    assert SECRET not in json.dumps(second)


async def test_a_failed_disconnect_says_so_and_keeps_nothing_secret(ledger: Ledger) -> None:
    backend = BrokenBackend(StubGuard(ledger), disconnect_error=RuntimeError(SECRET))
    error = _error(await _call(_methods(backend), "gate_disconnect"))
    assert error["message"].startswith("The gateway could not erase this connection")


def test_at_least_one_open_proposal_must_be_allowed(ledger: Ledger) -> None:
    with pytest.raises(ValueError, match="max_open"):
        backend = BrokenBackend(StubGuard(ledger))
        GatewayMethods(backend, clock=SteppedClock(start=START), profiles=PROFILES, max_open=0)


async def test_a_list_without_a_resolvable_order_tool_wraps_nothing(ledger: Ledger) -> None:
    backend = BrokenBackend(StubGuard(ledger), tools=[{"name": 7}, {"name": "place_equity_order"}])
    methods = _methods(backend)
    listed = await methods.call("tools/list", {}, principal("c1"))
    assert isinstance(listed, dict)
    error = _error(await _call(methods, "place_equity_order", BUY))
    assert listed["tools"][0]["name"] == "place_equity_order"
    assert "outputSchema" not in listed["tools"][0]
    assert error["code"] == "NOT_FILED"


class _Exploding:
    """A server whose methods break with something other than a protocol error."""

    sessions = SessionStore()

    async def initialize(
        self, params: dict[str, Any], principal: object
    ) -> tuple[dict[str, Any], Session]:
        raise AssertionError("not used")

    async def call(
        self, method: str, params: dict[str, Any], principal: object, peer: object
    ) -> dict[str, Any]:
        if method == "ping":
            raise ProtocolError(-32000, "fine")
        raise RuntimeError(SECRET)


def test_a_server_bug_is_answered_as_an_internal_error_without_its_text() -> None:
    endpoint: McpEndpoint[str] = McpEndpoint(
        methods=_Exploding(),
        verify=async_verifier(lambda token: token if token == "t" else None),
        challenge=lambda *, error=None: "Bearer",
        framing=Framing.JSON,
    )
    sock = bind_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    headers = {"authorization": "Bearer t", "content-type": "application/json"}
    with (
        BackgroundServer(Starlette(routes=[Route("/mcp", endpoint)]), sock),
        httpx2.Client(timeout=30) as http,
    ):
        broken = http.post(url, headers=headers, json={"jsonrpc": "2.0", "id": 1, "method": "x"})
        refused = http.post(
            url, headers=headers, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}
        )
    assert broken.status_code == 200
    assert broken.json() == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32603, "message": "Internal error"},
    }
    assert SECRET not in broken.text
    assert refused.json()["error"] == {"code": -32000, "message": "fine"}


def test_a_transport_needs_room_for_at_least_one_byte() -> None:
    with pytest.raises(ValueError, match="max_body"):
        McpEndpoint(
            methods=_Exploding(),
            verify=async_verifier(lambda token: None),
            challenge=lambda *, error=None: "Bearer",
            framing=Framing.JSON,
            max_body=0,
        )


async def test_the_broker_answers_502_when_the_broker_list_cannot_be_read(ledger: Ledger) -> None:
    backend = BrokenBackend(StubGuard(ledger), list_error=RuntimeError(SECRET))
    status, answer = await _methods(backend).capability(
        principal("c1"), "market.read", {"tool": "get_equity_quotes", "arguments": {}}
    )
    assert status == 502
    assert answer["error"]["code"] == "UPSTREAM_UNAVAILABLE"
    assert SECRET not in json.dumps(answer)


async def test_the_broker_refuses_arguments_that_are_not_an_object(ledger: Ledger) -> None:
    status, answer = await _methods(BrokenBackend(StubGuard(ledger))).capability(
        principal("c1"), "market.read", {"tool": "get_equity_quotes", "arguments": [1]}
    )
    assert (status, answer["error"]["code"]) == (400, "INVALID_ARGUMENT")

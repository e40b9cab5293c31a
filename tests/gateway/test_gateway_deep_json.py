"""Deeply nested JSON is a 400, never a 500 with a traceback (issue 12 §4.6): on the
gateway's ``/mcp``, its capability broker and its registration endpoint, and on the sandbox
venue's MCP endpoint, registration and admin knobs — nested at the top of the body, just
under the body cap, or inside a tool's ``arguments``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from attack_kit import Attacked, attacked_gateway

from ordergate.sandbox import SandboxConfig, SandboxServer

PARSE_ERROR = -32700
GATEWAY_CAP = 8192
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def rpc_around(inner: str, *, method: str = "tools/call") -> bytes:
    """A JSON-RPC call whose ``arguments`` hold ``inner``."""
    return (
        '{"jsonrpc":"2.0","id":1,"method":"' + method + '","params":'
        '{"name":"get_equity_quotes","arguments":{"symbols":' + inner + "}}}"
    ).encode()


def under(cap: int) -> int:
    """The nesting depth of the deepest ``rpc_around`` body that fits in ``cap`` bytes."""
    return (cap - len(rpc_around(""))) // 2


@pytest.fixture
def gw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Attacked]:
    with attacked_gateway(tmp_path, monkeypatch) as served:
        yield served


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.parametrize(
    "body",
    [nested(4000).encode(), rpc_around(nested(under(GATEWAY_CAP))), rpc_around(nested(500)),
     rpc_around(nested(65))],
    ids=["top-level-under-cap", "arguments-under-cap", "arguments-500", "arguments-65"],
)  # fmt: skip
@pytest.mark.req("gateway.bypass.deep-json")
def test_deeply_nested_json_on_mcp_is_a_parse_error(
    gw: Attacked, body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    assert len(body) <= GATEWAY_CAP
    headers = {**HEADERS, "authorization": f"Bearer {gw.access_token()}"}
    answer = gw.post("/mcp", content=body, headers=headers)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == PARSE_ERROR
    _no_traceback(caplog)


def test_a_body_over_the_cap_is_refused_before_it_is_parsed(gw: Attacked) -> None:
    headers = {**HEADERS, "authorization": f"Bearer {gw.access_token()}"}
    answer = gw.post("/mcp", content=nested(100_000).encode(), headers=headers)
    assert answer.status_code == 413


def test_nesting_a_real_call_needs_is_served(gw: Attacked) -> None:
    headers = {**HEADERS, "authorization": f"Bearer {gw.access_token()}"}
    answer = gw.post("/mcp", content=rpc_around('["SPY"]'), headers=headers)
    assert answer.status_code == 200
    assert answer.json()["result"]["isError"] is False


@pytest.mark.parametrize(
    "body",
    [nested(4000), '{"tool":"get_equity_quotes","arguments":{"symbols":' + nested(3000) + "}}",
     '{"tool":"get_equity_quotes","arguments":{"symbols":' + nested(500) + "}}"],
    ids=["top-level", "arguments-under-cap", "arguments-500"],
)  # fmt: skip
@pytest.mark.req("gateway.bypass.deep-json")
def test_deeply_nested_json_at_the_broker_is_a_400(
    gw: Attacked, body: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer = gw.post(
        "/api/capability/market/read",
        content=body.encode(),
        headers={
            "authorization": f"Bearer {gw.caller_token()}",
            "content-type": "application/json",
        },
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "INVALID_ARGUMENT"
    _no_traceback(caplog)


@pytest.mark.parametrize(
    "body", [nested(4000), '{"redirect_uris":' + nested(3000) + "}"], ids=["top", "inner"]
)
@pytest.mark.req("gateway.bypass.deep-json")
def test_deeply_nested_json_at_registration_is_a_400(
    gw: Attacked, body: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer = gw.post(
        "/oauth/register", content=body.encode(), headers={"content-type": "application/json"}
    )
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_client_metadata"
    _no_traceback(caplog)


@pytest.fixture
def venue() -> Iterator[httpx2.Client]:
    with (
        SandboxServer(SandboxConfig(port=0, seed=7)) as sandbox,
        httpx2.Client(base_url=sandbox.base_url, timeout=30) as http,
    ):
        http.headers["authorization"] = (
            "Bearer " + sandbox.oauth.mint_tokens().access_token.reveal()
        )
        yield http


@pytest.mark.parametrize(
    "body",
    [nested(100_000).encode(), rpc_around(nested(400_000)), rpc_around(nested(500)),
     rpc_around(nested(65))],
    ids=["top-level-100k", "arguments-under-cap", "arguments-500", "arguments-65"],
)  # fmt: skip
@pytest.mark.req("gateway.bypass.deep-json")
def test_deeply_nested_json_on_the_venues_mcp_is_a_parse_error(
    venue: httpx2.Client, body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    answer = venue.post("/mcp/trading", content=body, headers=HEADERS)
    assert answer.status_code == 400, answer.text
    assert json.loads(answer.text)["error"]["code"] == PARSE_ERROR
    _no_traceback(caplog)


@pytest.mark.parametrize(
    ("path", "body"),
    [("/_sandbox/faults", nested(100_000)),
     ("/_sandbox/faults", '{"latency_ms":' + nested(900) + "}"),
     ("/_sandbox/clock", nested(100_000)), ("/oauth/trading/register", nested(100_000))],
    ids=["faults-top", "faults-inner", "clock-top", "register-top"],
)  # fmt: skip
@pytest.mark.req("gateway.bypass.deep-json")
def test_deeply_nested_json_on_the_venues_admin_and_registration_is_never_a_500(
    venue: httpx2.Client, path: str, body: str, caplog: pytest.LogCaptureFixture
) -> None:
    answer = venue.post(path, content=body.encode(), headers={"content-type": "application/json"})
    assert answer.status_code in (400, 413, 201), answer.text
    _no_traceback(caplog)

"""Host and Origin are checked on every route of the gateway and of the sandbox venue, not
only on the MCP endpoints (issue 12 §4.4): a page on another site that rebinds its name to
loopback reaches no OAuth endpoint, consent page, metadata, metrics, broker or admin knob."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from attack_kit import Attacked, attacked_gateway

from ordergate.sandbox import SandboxConfig, SandboxServer

EVIL_HOST = {"host": "evil.example"}
EVIL_ORIGIN = {"origin": "https://evil.example"}

GATEWAY_ROUTES: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/.well-known/oauth-protected-resource/mcp", {}),
    ("GET", "/.well-known/oauth-authorization-server", {}),
    ("POST", "/oauth/register", {"json": {"redirect_uris": ["http://127.0.0.1:9/cb"]}}),
    ("GET", "/oauth/authorize", {"params": {"client_id": "x"}}),
    ("POST", "/oauth/consent", {"data": {"decision": "approve", "profile": "trader"}}),
    ("POST", "/oauth/token", {"data": {"grant_type": "authorization_code"}}),
    ("POST", "/oauth/revoke", {"data": {"token": "x"}}),
    ("GET", "/metrics", {}),
    ("POST", "/api/capability/market/read", {"json": {"tool": "get_equity_quotes"}}),
    ("POST", "/mcp", {"json": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}),
    ("GET", "/no/such/route", {}),
]


@pytest.fixture
def gw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Attacked]:
    with attacked_gateway(tmp_path, monkeypatch) as served:
        yield served


def _request(
    http: httpx2.Client, base: str, method: str, path: str, kwargs: dict[str, Any], **headers: str
) -> httpx2.Response:
    return http.request(method, base + path, headers=headers, **kwargs)


@pytest.mark.parametrize(
    ("method", "path", "kwargs"), GATEWAY_ROUTES, ids=[r[1] for r in GATEWAY_ROUTES]
)
@pytest.mark.req("gateway.bypass.host-origin-every-route")
def test_every_gateway_route_refuses_a_foreign_host_and_a_foreign_origin(
    gw: Attacked, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    foreign_host = _request(gw.http, gw.url, method, path, kwargs, **EVIL_HOST)
    foreign_origin = _request(gw.http, gw.url, method, path, kwargs, **EVIL_ORIGIN)
    own = _request(gw.http, gw.url, method, path, kwargs, origin=gw.url)
    assert foreign_host.status_code == 421, foreign_host.text
    assert foreign_origin.status_code == 403, foreign_origin.text
    assert own.status_code not in (421, 403), own.text


@pytest.mark.req("gateway.bypass.host-origin-every-route")
def test_the_metrics_do_not_reach_a_rebound_page(gw: Attacked) -> None:
    refused = gw.get("/metrics", headers=EVIL_HOST)
    served = gw.get("/metrics")
    assert refused.status_code == 421
    assert "ordergate" not in refused.text
    assert served.status_code == 200 and "ordergate" in served.text


@pytest.fixture
def venue() -> Iterator[str]:
    with SandboxServer(SandboxConfig(port=0, seed=7)) as sandbox:
        yield sandbox.base_url


VENUE_ROUTES: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/_sandbox/state", {}),
    ("POST", "/_sandbox/faults", {"json": {}}),
    ("POST", "/_sandbox/tokens", {"json": {}}),
    ("POST", "/_sandbox/clock", {"json": {"advance_seconds": 1}}),
    ("GET", "/.well-known/oauth-authorization-server", {}),
    ("POST", "/oauth/trading/register", {"json": {}}),
    ("POST", "/mcp/trading", {"json": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}),
]


@pytest.mark.parametrize(
    ("method", "path", "kwargs"), VENUE_ROUTES, ids=[r[1] for r in VENUE_ROUTES]
)
@pytest.mark.req("gateway.bypass.host-origin-every-route")
def test_every_sandbox_route_and_admin_knob_refuses_a_foreign_host_and_origin(
    venue: str, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    with httpx2.Client(timeout=30) as http:
        foreign_host = _request(http, venue, method, path, kwargs, **EVIL_HOST)
        foreign_origin = _request(http, venue, method, path, kwargs, **EVIL_ORIGIN)
        own = _request(http, venue, method, path, kwargs, origin=venue)
    assert foreign_host.status_code == 421, foreign_host.text
    assert foreign_origin.status_code == 403, foreign_origin.text
    assert own.status_code not in (421, 403), own.text

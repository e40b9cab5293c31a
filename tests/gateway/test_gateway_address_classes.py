"""The per-IP limits count address classes: every loopback address is one client (a local
process can bind any of 127.0.0.0/8), others count by their /24 or /64; over real sockets
bound to several loopback addresses against the gateway as ``ordergate serve`` runs it."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from attack_kit import BOUND_S, attacked_gateway

from ordergate.gateway._config import RateLimits
from ordergate.gateway._limits import request_class
from ordergate.gateway._proxies import LOOPBACK, address_class

_REGISTRATION = {"client_name": "rotating", "redirect_uris": ["http://127.0.0.1:9/cb"]}


def _from(address: str, url: str, path: str, **kwargs: object) -> int:
    transport = httpx2.HTTPTransport(local_address=address)
    with httpx2.Client(transport=transport, timeout=BOUND_S) as http:
        peer = http.post(url + path, **kwargs)  # type: ignore[arg-type]
    return peer.status_code


@pytest.mark.req("gateway.threat.loopback-rotation")
def test_rotating_the_peer_address_across_127_0_0_0_8_gets_429_on_registration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(tmp_path, monkeypatch) as gw:
        codes = [
            _from(f"127.{n}.{n}.{n + 1}", gw.url, "/oauth/register", json=_REGISTRATION)
            for n in range(RateLimits().register + 1)
        ]
        from_ipv4_loopback = _from("127.0.0.1", gw.url, "/oauth/register", json=_REGISTRATION)
    assert codes[:-1] == [201] * RateLimits().register
    assert codes[-1] == 429
    assert from_ipv4_loopback == 429


@pytest.mark.req("gateway.threat.loopback-rotation")
def test_rotating_loopback_addresses_on_the_console_gets_429(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = RateLimits(console=2)
    with attacked_gateway(tmp_path, monkeypatch, limits=limits) as gw:
        codes = [_from(f"127.0.{n}.9", gw.url, "/console/sign-in", data={}) for n in range(3)]
    assert codes[-1] == 429
    assert 429 not in codes[:-1]


@pytest.mark.req("gateway.threat.loopback-rotation")
@pytest.mark.parametrize(
    ("host", "counted"),
    [
        ("127.0.0.1", LOOPBACK),
        ("127.200.3.4", LOOPBACK),
        ("::1", LOOPBACK),
        ("::ffff:127.0.0.9", LOOPBACK),
        ("203.0.113.7", "203.0.113.0/24"),
        ("203.0.113.250", "203.0.113.0/24"),
        ("::ffff:203.0.113.7", "203.0.113.0/24"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),
        ("unknown", "unknown"),
    ],
)
def test_an_address_counts_under_its_class(host: str, counted: str) -> None:
    assert address_class(host) == counted


@pytest.mark.req("gateway.threat.rate-limits")
def test_the_console_and_the_owner_routes_have_rate_classes_but_static_files_do_not() -> None:
    assert request_class("/console/sign-in") == "console"
    assert request_class("/console") == "console"
    assert request_class("/console/approvals/x/approve") == "console"
    assert request_class("/owner/status") == "owner"
    assert request_class("/console/static/console.css") is None

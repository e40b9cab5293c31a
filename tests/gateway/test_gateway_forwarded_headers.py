"""Forwarded headers are trusted only from a proxy the operator names (issue 12 §4.3).

By default the per-IP limits count the socket's peer, whatever ``X-Forwarded-For`` says (an
agent on the owner's machine reaches the gateway from 127.0.0.1, which uvicorn would
otherwise trust). With ``--trusted-proxy ADDR`` a request from that proxy is counted under
the right-most address in ``X-Forwarded-For`` that is not itself a trusted proxy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_kit import attacked_gateway

from ordergate.core import ConfigError
from ordergate.gateway._config import GatewayConfig, RateLimits

# Three refused tokens a minute per client IP (the per-IP class of /mcp).
LIMITED = RateLimits(unauthenticated=3)


@pytest.mark.req("gateway.bypass.forwarded-for")
def test_a_forwarded_for_header_from_loopback_does_not_dodge_the_per_ip_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(tmp_path, monkeypatch, limits=LIMITED) as gw:
        statuses = [
            gw.post("/mcp", json={}, headers={"x-forwarded-for": f"203.0.113.{n}"}).status_code
            for n in range(5)
        ]
    assert statuses == [401, 401, 401, 429, 429]


@pytest.mark.req("gateway.bypass.forwarded-for")
def test_a_named_proxy_is_believed_and_its_right_most_untrusted_hop_is_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with attacked_gateway(
        tmp_path, monkeypatch, limits=LIMITED, trusted_proxies=("127.0.0.1", "10.0.0.0/8")
    ) as gw:

        def status(forwarded: str) -> int:
            headers = {"x-forwarded-for": forwarded}
            return gw.post("/mcp", json={}, headers=headers).status_code

        # Three from one client, each spoofing a different first hop: the proxy's own
        # append (the right-most entry) is what counts, so the fourth is limited.
        spoofed = [status(f"198.51.100.{n}, 203.0.113.7") for n in range(4)]
        # Another client (another /24) behind the same proxy has its own count; a trusted
        # inner hop (10.1.2.3) is skipped over.
        other = status("192.0.2.8, 10.1.2.3")
    assert spoofed == [401, 401, 401, 429]
    assert other == 401


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("127.0.0.1", None, "127.0.0.1"),
        ("127.0.0.1", "203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", "1.1.1.1, 203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", "203.0.113.7, 10.0.0.2, 127.0.0.1", "203.0.113.7"),
        ("127.0.0.1", "10.0.0.2, 127.0.0.1", "10.0.0.2"),  # all trusted: the left-most
        ("127.0.0.1", "", "127.0.0.1"),
        ("127.0.0.1", " , ", "127.0.0.1"),
        ("127.0.0.1", "not-an-ip", "127.0.0.1"),  # garbage: the proxy itself is counted
        ("127.0.0.1", "[2001:db8::1]:4711", "2001:db8::1"),
        ("127.0.0.1", "203.0.113.7:4711", "203.0.113.7"),
        ("192.0.2.9", "203.0.113.7", "192.0.2.9"),  # not a trusted proxy: never believed
    ],
)
@pytest.mark.req("gateway.bypass.forwarded-for")
def test_the_client_address_is_the_right_most_hop_that_is_not_a_trusted_proxy(
    peer: str, forwarded: str | None, client: str
) -> None:
    from ordergate.gateway._proxies import TrustedProxies

    proxies = TrustedProxies.parse(["127.0.0.1", "10.0.0.0/8"])
    headers = [] if forwarded is None else [(b"x-forwarded-for", forwarded.encode())]
    assert proxies.client({"client": (peer, 5555), "headers": headers}) == client


def test_a_trusted_proxy_must_be_an_address_or_a_network() -> None:
    with pytest.raises(ConfigError) as caught:
        GatewayConfig(trusted_proxies=("proxy.example",))
    assert caught.value.key == "trusted-proxy"

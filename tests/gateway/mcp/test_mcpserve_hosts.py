"""The ``Host`` and ``Origin`` parser behind every DNS-rebinding check (issue 12 §4.4): an
authority is a reg-name or IPv4 address, or one IPv6 address in brackets, and an optional
port of 1-65535 — anything else is refused, never trimmed into something loopback."""

from __future__ import annotations

import pytest

from ordergate.mcpserve import HostPolicy

LOOPBACK = HostPolicy()
PUBLIC = HostPolicy.for_url("https://gw.example.com")


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost", True),
        ("localhost:8787", True),
        ("LOCALHOST:8787", True),
        ("127.0.0.1", True),
        ("127.0.0.1:8787", True),
        ("[::1]", True),
        ("[::1]:8787", True),
        ("[0:0:0:0:0:0:0:1]:8787", True),
        ("localhost:65535", True),
        ("[::1", False),
        ("::1]", False),
        ("::1", False),
        ("[::1]x", False),
        ("[::1]:", False),
        ("[::1]:99999", False),
        ("[::1]:0", False),
        ("[::1]:+80", False),
        ("[::1]]:80", False),
        ("[[::1]]", False),
        ("[fe80::1%eth0]", False),
        ("[fe80::1%25eth0]:80", False),
        ("[v1.fe]", False),
        ("[127.0.0.1]", False),
        ("[::ffff:127.0.0.1]", False),
        ("[evil.example]", False),
        ("user@localhost", False),
        ("user:pass@localhost:8787", False),
        ("evil.example@localhost", False),
        ("localhost:", False),
        ("localhost:abc", False),
        ("localhost:8787:1", False),
        ("localhost:-1", False),
        ("localhost:1e3", False),
        ("localhost:\uff18\uff17\uff18\uff17", False),  # fullwidth digits
        ("localhost/path", False),
        ("localhost:8787/", False),
        ("localhost\x00.evil.example", False),
        ("local host", False),
        ("localhost.evil.example", False),
        ("127.0.0.1.nip.io", False),
        ("evil.example", False),
        ("evil.example:8787", False),
        ("", False),
        (":8787", False),
    ],
)
@pytest.mark.req("gateway.bypass.host-parsing")
def test_a_host_header_is_parsed_strictly_before_it_is_compared(host: str, allowed: bool) -> None:
    assert LOOPBACK.host_allowed(host.encode("utf-8")) is allowed


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("gw.example.com", True),
        ("GW.Example.COM", True),
        ("gw.example.com:443", True),
        ("gw.example.com:0443", True),
        ("gw.example.com:444", False),
        ("gw.example.com:443x", False),
        ("gw.example.com.", False),
        ("x@gw.example.com", False),
        ("[::1]:443", True),
    ],
)
@pytest.mark.req("gateway.bypass.host-parsing")
def test_a_public_gateway_answers_its_own_authority_parsed_the_same_way(
    host: str, allowed: bool
) -> None:
    assert PUBLIC.host_allowed(host.encode()) is allowed


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://localhost:6274", True),
        ("http://localhost:6274/", True),
        ("http://[::1]:6274", True),
        ("https://127.0.0.1", True),
        ("https://gw.example.com", True),
        ("https://gw.example.com:443", True),
        ("http://gw.example.com", False),
        ("http://[::1", False),
        ("http://[::1]x:6274", False),
        ("http://user@localhost:6274", False),
        ("http://localhost:99999", False),
        ("http://localhost:6274/path", False),
        ("http://localhost:6274?x=1", False),
        ("http://localhost:6274#x", False),
        ("ftp://localhost", False),
        ("http:/localhost", False),
        ("localhost:6274", False),
        ("null", False),
        ("", False),
    ],
)
@pytest.mark.req("gateway.bypass.host-parsing")
def test_an_origin_is_a_scheme_and_an_authority_parsed_the_same_way(
    origin: str | None, allowed: bool
) -> None:
    assert PUBLIC.origin_allowed(None if origin is None else origin.encode()) is allowed

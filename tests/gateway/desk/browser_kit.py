"""The owner's console in real Chromium: Debian's ``chromium`` driven by Playwright (its own
browser downloads are never used), a virtual WebAuthn authenticator through the DevTools
protocol, and a real gateway on loopback whose public URL is ``http://localhost:PORT`` (a
passkey's relying-party id must be a domain: ``localhost``, not an address).

``shoot(name)`` screenshots the page at a phone width (390x844) and a desktop width
(1280x800) into ``tmp_path/screens`` and, when ``ORDERGATE_SCREENSHOTS=DIR`` is set, into
``DIR`` too. Chromium and its virtual authenticator come from ``chromium_testkit``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from chromium_testkit import (
    DESKTOP,
    PHONE,
    WAIT_MS,
    chromium_page,
    sync_playwright,
)
from chromium_testkit import _missing as _missing  # the kit's own test reaches it here
from chromium_testkit import expect as expect
from desk_kit import HELD_POLICY, MASTER, Desk
from gateway_testkit import OPEN
from owner_testkit import PASSPHRASE, apply_home_policy, enrol

from ordergate._serving import bind_socket
from ordergate.callers import CallerKey, mint
from ordergate.core import Secret, SecurityClock, SteppedClock
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._serve import GatewayServer
from ordergate.runtime import Settings


@dataclass
class Browser:
    desk: Desk
    page: Any
    screens: Path

    def go(self, path: str) -> Any:
        return self.page.goto(f"{self.desk.url}/console{path}", wait_until="load")

    def shoot(self, name: str) -> None:
        """The page as it is now, at a phone width and a desktop width."""
        extra = os.environ.get("ORDERGATE_SCREENSHOTS")
        targets = [self.screens] + ([Path(extra)] if extra else [])
        for width, size in (("phone", PHONE), ("desktop", DESKTOP)):
            self.page.set_viewport_size(size)
            image = self.page.screenshot(full_page=True, animations="disabled")
            for target in targets:
                target.mkdir(parents=True, exist_ok=True)
                (target / f"{name}-{width}.png").write_bytes(image)
        self.page.set_viewport_size(DESKTOP)

    def sign_in_with_code(self, code: str = PASSPHRASE) -> None:
        self.go("/sign-in")
        self.page.fill("#owner_code", code)
        self.page.click("form[action$='/sign-in'] button[type=submit]")
        self.page.wait_for_url("**/console/approvals", timeout=WAIT_MS)


def _gateway(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    policy: str,
    security: SteppedClock,
    market: SteppedClock,
) -> GatewayServer:
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.toml").write_text(policy)
    apply_home_policy(home)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    monkeypatch.setenv("ORDERGATE_SANDBOX_START", OPEN.isoformat())
    for name in ("ORDERGATE_DB_URL", "ORDERGATE_UPSTREAM_URL", "ORDERGATE_APPROVAL_WEBHOOK"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.resolve(sandbox=True)
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = GatewayConfig(
        port=0, caller_key=CallerKey.derive(Secret(MASTER)), public_url=f"http://localhost:{port}"
    )
    return GatewayServer(
        settings,
        config,
        sock,
        clock=market,
        security_clock=SecurityClock(security),
    )


@contextmanager
def browser_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, policy: str = HELD_POLICY
) -> Iterator[Browser]:
    """A gateway with an enrolled owner and a Chromium page with a virtual authenticator."""
    playwright = sync_playwright()
    security = SteppedClock(start=OPEN)  # stepped past the owner's delay by tests
    market = SteppedClock(start=OPEN)  # stepped by a settle
    server = _gateway(tmp_path, monkeypatch, policy, security, market)
    home = tmp_path / "home"
    codes = enrol(home, passphrase=PASSPHRASE)
    key = CallerKey.derive(Secret(MASTER))
    with (
        server as url,
        playwright as p,
        chromium_page(p, tmp_path / "chromium-profile") as page,
    ):
        desk = Desk(
            url=url, server=server, codes=codes, key=key, home=home, market=market, clock=security
        )
        yield Browser(desk, page, tmp_path / "screens")


TOKEN_TTL = timedelta(minutes=15)


def connection_token(desk: Desk, connection_id: str) -> str:
    """A trader caller token bound to the connection ``connection_id`` (as its client holds)."""
    return mint(
        desk.key,
        caller="agent",
        profile="trader",
        ttl=TOKEN_TTL,
        now=OPEN,
        connection=connection_id,
    ).reveal()

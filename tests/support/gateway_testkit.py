"""The gateway as ``ordergate serve --sandbox`` runs it, in a fresh ``ORDERGATE_HOME``, for
tests that talk to it over loopback like any MCP client."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from owner_testkit import apply_home_policy

from ordergate._serving import bind_socket
from ordergate.core import Clock, SecurityClock, SteppedClock
from ordergate.gateway._config import GatewayConfig
from ordergate.gateway._serve import GatewayServer
from ordergate.ledger import FilingStatus
from ordergate.runtime import EMBEDDED_ACCOUNT, Settings

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
SPY_POLICY = """
approval = "never"
[symbols]
allow = ["SPY"]
"""
# Every order waits for the owner: what the tests of approval through MCP place, and how.
HELD_POLICY = """
approval = "always"
[symbols]
allow = ["SPY"]
"""
HELD_ORDER = {
    "account_number": EMBEDDED_ACCOUNT,
    "symbol": "SPY",
    "side": "buy",
    "type": "market",
    "dollar_amount": "5",
}
BOUND_S = 30.0
"""How long one reconciler pass may take."""
PLACED = ("filled", "submitted")
"""The statuses of an order the guard placed with the sandbox."""


def sandbox_gateway(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    policy: str = SPY_POLICY,
    config: GatewayConfig | None = None,
    clock: Clock | None = None,
    grade_every: float | None = None,
    security_clock: SecurityClock | None = None,
    equity_every: float | None = None,
    webhook_url: str | None = None,
) -> GatewayServer:
    """A gateway on a free loopback port over the embedded sandbox, its clock at ``OPEN``
    (``clock``, when given, instead: a ``SteppedClock`` for tests that step time; and
    ``security_clock`` for tests that step security time alone); enter it
    (``with ... as url``) to serve."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.toml").write_text(policy)
    apply_home_policy(home)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    monkeypatch.setenv("ORDERGATE_SANDBOX_START", OPEN.isoformat())
    for name in ("ORDERGATE_DB_URL", "ORDERGATE_UPSTREAM_URL", "ORDERGATE_APPROVAL_WEBHOOK"):
        monkeypatch.delenv(name, raising=False)
    if webhook_url is not None:
        monkeypatch.setenv("ORDERGATE_APPROVAL_WEBHOOK", webhook_url)
    settings = Settings.resolve(sandbox=True)
    return GatewayServer(
        settings,
        config or GatewayConfig(port=0),
        bind_socket("127.0.0.1", 0),
        clock=clock or settings.clock(),
        grade_every=grade_every,
        security_clock=security_clock,
        equity_every=equity_every,
    )


def settled(server: GatewayServer, filing_id: str, *, market: SteppedClock) -> FilingStatus:
    """The filing's status once the venue has had its time and the gateway's reconciler has
    booked what it did: a paper market order is answered ``submitted``, confirmed after the
    venue's 1 s and filled at the engine's first look after that. ``market``, the gateway's
    market clock, is run 2 s, then the reconciler passes once."""
    running = server.running
    assert running is not None, "an owner-mode gateway, serving"
    market.advance(timedelta(seconds=2))
    server.run_in_loop(running.guard.reconcile(), BOUND_S)
    return running.guard.ledger.filing(filing_id).status

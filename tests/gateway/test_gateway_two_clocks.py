"""Two clocks, kept apart: a sandbox's market may be anywhere in time, while tokens, approvals
and rate limits keep security time (the wall clock in a run)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import httpx2
import pytest
from gateway_testkit import OPEN
from owner_testkit import apply_home_policy
from typer.testing import CliRunner, Result

from ordergate._serving import bind_socket
from ordergate.callers import CallerKey
from ordergate.cli import app
from ordergate.core import Clock, Secret, SecurityClock, SteppedClock
from ordergate.gateway._config import GatewayConfig, RateLimits
from ordergate.gateway._serve import GatewayServer
from ordergate.ledger import Filing, RollingCaps, open_ledger
from ordergate.runtime import Settings

MASTER = "host-master-secret-" + "c" * 24
POLICY = """
approval = "never"
[symbols]
allow = ["SPY"]
"""
FAR_PAST = "2021-03-02T15:00:00+00:00"  # a Tuesday's regular session, years ago
FAR_FUTURE = "2029-03-06T15:00:00+00:00"  # and one years ahead
BOUND_S = 30


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str) -> Settings:
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.toml").write_text(POLICY)
    apply_home_policy(home)
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    for name in (
        "ORDERGATE_DB_URL",
        "ORDERGATE_UPSTREAM_URL",
        "ORDERGATE_APPROVAL_WEBHOOK",
        "ORDERGATE_SANDBOX_START",
        "ORDERGATE_CALLER_TOKEN_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    return Settings.resolve(sandbox=True, sandbox_start=start)


@contextmanager
def _served(
    settings: Settings,
    *,
    security_clock: SecurityClock | None,
    clock: Clock | None = None,
    limits: RateLimits | None = None,
) -> Iterator[str]:
    config = GatewayConfig(
        port=0, caller_key=CallerKey.derive(Secret(MASTER)), limits=limits or RateLimits()
    )
    server = GatewayServer(
        settings,
        config,
        bind_socket("127.0.0.1", 0),
        clock=clock or settings.clocks().market,
        security_clock=security_clock,
    )
    with server as url:
        yield url


def _mint_with_the_cli(no_gateway: Path) -> str:
    # No gateway at --owner-socket: the command mints with the key derived from the master
    # secret, on its own (wall) clock, exactly as on a host where the gateway is elsewhere.
    result = CliRunner().invoke(
        app,
        [
            "token",
            "mint",
            "--caller",
            "nightly",
            "--profile",
            "monitor",
            "--owner-socket",
            str(no_gateway),
        ],
        env={"ORDERGATE_MASTER_SECRET": MASTER},
    )
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def _call_quotes(url: str, token: str) -> Result:
    env = {"ORDERGATE_GATEWAY_URL": url, "ORDERGATE_CALLER_TOKEN": token}
    args = ["call", "get_equity_quotes", "--args", '{"symbols": ["SPY"]}']
    return CliRunner().invoke(app, args, env=env)


@pytest.mark.req("clocks.security-is-wall-time")
@pytest.mark.parametrize("start", [FAR_PAST, FAR_FUTURE], ids=["far-past", "far-future"])
def test_a_caller_token_minted_by_the_cli_works_against_a_gateway_whose_market_is_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    settings = _home(tmp_path, monkeypatch, start)
    clocks = settings.clocks()
    assert abs(clocks.market.now() - datetime.fromisoformat(start)) < timedelta(minutes=5)
    with _served(settings, security_clock=clocks.security) as url:
        token = _mint_with_the_cli(tmp_path / "elsewhere" / "owner.sock")
        result = _call_quotes(url, token)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["data"]["results"][0]["quote"]["symbol"] == "SPY"
    assert token not in result.output


def test_with_security_time_on_the_market_clock_the_same_token_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bug this split fixes: a gateway that read token expiry from a market years ago.
    settings = _home(tmp_path, monkeypatch, FAR_FUTURE)
    market = settings.clocks().market
    with _served(settings, security_clock=SecurityClock(market)) as url:
        result = _call_quotes(url, _mint_with_the_cli(tmp_path / "elsewhere" / "owner.sock"))
    assert result.exit_code == 1, result.output
    assert "refused the caller token" in result.output


@pytest.mark.req("clocks.security-is-wall-time")
def test_rate_limit_windows_follow_security_time_while_the_market_is_stepped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = _home(tmp_path, monkeypatch, OPEN.isoformat())
    market = SteppedClock(start=OPEN)
    security = SteppedClock(start=datetime(2026, 12, 1, 12, 0, 30, tzinfo=UTC))
    limits = RateLimits(register=1)
    with (
        _served(
            settings, clock=market, security_clock=SecurityClock(security), limits=limits
        ) as url,
        httpx2.Client(timeout=BOUND_S) as http,
    ):

        def register() -> int:
            body = {"client_name": "c", "redirect_uris": ["http://127.0.0.1:1/cb"]}
            return http.post(f"{url}/oauth/register", json=body).status_code

        assert register() != 429
        assert register() == 429
        market.advance(timedelta(hours=3))  # the market moving opens no new window
        assert register() == 429
        security.advance(timedelta(minutes=1))
        assert register() != 429


@pytest.mark.req("clocks.security-is-wall-time")
def test_an_approvals_time_to_live_follows_security_time_not_the_market(tmp_path: Path) -> None:
    market = SteppedClock(start=OPEN)
    security = SteppedClock(start=datetime(2026, 12, 1, 12, 0, tzinfo=UTC))
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with open_ledger(url, clock=market, security_clock=SecurityClock(security)) as ledger:
        filed = ledger.file_and_reserve(
            Filing("agent", {"s": "SPY"}), notional=Decimal(5), caps=RollingCaps(Decimal(100), 5)
        )
        approval = ledger.approvals.create(filed.record.id, "ab" * 32, ttl=timedelta(minutes=15))
        assert approval.expires_at == security.now() + timedelta(minutes=15)
        market.advance(timedelta(days=2))
        assert ledger.approvals.pending() == [approval]
        assert ledger.approvals.overdue() == []
        security.advance(timedelta(minutes=16))
        assert ledger.approvals.pending() == []
        assert [a.id for a in ledger.approvals.overdue()] == [approval.id]

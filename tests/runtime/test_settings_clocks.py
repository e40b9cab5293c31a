"""``Settings.clocks``: the market may start elsewhere (embedded sandbox only); security time
is the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ordergate.core import AcceleratedClock, ConfigError, MarketClock, RealtimeClock, SecurityClock
from ordergate.runtime import Settings


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    for name in (
        "ORDERGATE_DB_URL",
        "ORDERGATE_UPSTREAM_URL",
        "ORDERGATE_SANDBOX_START",
        "ORDERGATE_SANDBOX_SPEED",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.req("clocks.security-is-wall-time")
def test_a_sandbox_start_moves_the_market_clock_only() -> None:
    settings = Settings.resolve(sandbox=True, sandbox_start="2021-03-02T15:00:00Z")
    clocks = settings.clocks()
    assert isinstance(clocks.market, MarketClock) and isinstance(clocks.security, SecurityClock)
    start = datetime(2021, 3, 2, 15, tzinfo=UTC)
    assert start <= clocks.market.now() < start + timedelta(minutes=5)
    assert abs(clocks.security.now() - datetime.now(UTC)) < timedelta(minutes=1)
    assert isinstance(clocks.security.source, RealtimeClock)
    assert repr(clocks.security) == "SecurityClock(RealtimeClock)"
    assert repr(clocks.market) == "MarketClock(AcceleratedClock)"


def test_the_flag_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDERGATE_SANDBOX_START", "2026-12-01T15:00:00Z")
    settings = Settings.resolve(sandbox=True, sandbox_start="2029-03-06T15:00:00+00:00")
    assert settings.sandbox_start == datetime(2029, 3, 6, 15, tzinfo=UTC)


@pytest.mark.parametrize(
    ("kwargs", "key", "reason"),
    [
        ({"upstream": "https://example.test/mcp"}, "sandbox_start", "only the embedded sandbox"),
        ({"sandbox": True}, "sandbox_start", "not an ISO-8601 instant"),
    ],
)
def test_a_sandbox_start_that_cannot_be_used_is_refused_naming_it(
    kwargs: dict[str, object], key: str, reason: str
) -> None:
    start = "2026-12-01T15:00:00Z" if "upstream" in kwargs else "tuesday"
    with pytest.raises(ConfigError) as raised:
        Settings.resolve(sandbox_start=start, **kwargs)  # type: ignore[arg-type]
    assert raised.value.key == key and reason in str(raised.value)


def test_a_sandbox_speed_runs_the_embedded_market_clock_that_many_times_faster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORDERGATE_SANDBOX_SPEED", "60")
    clocks = Settings.resolve(sandbox=True, sandbox_start="2026-12-01T15:00:00Z").clocks()
    assert isinstance(clocks.market.source, AcceleratedClock)
    assert clocks.market.source.speed == 60
    assert isinstance(clocks.security.source, RealtimeClock)


@pytest.mark.parametrize(
    ("speed", "upstream"),
    [("0", None), ("fast", None), ("nan", None), ("60", "https://example.test/mcp")],
)
def test_a_sandbox_speed_that_cannot_be_used_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, speed: str, upstream: str | None
) -> None:
    monkeypatch.setenv("ORDERGATE_SANDBOX_SPEED", speed)
    with pytest.raises(ConfigError) as raised:
        Settings.resolve(sandbox=upstream is None, upstream=upstream)
    assert raised.value.key == "ORDERGATE_SANDBOX_SPEED"

"""``ORDERGATE_SANDBOX_ACCOUNT_TYPE`` / ``ORDERGATE_SANDBOX_OPTION_LEVEL``: the embedded
sandbox's agentic account, set up within what the venue offers, refused naming the variable."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from ordergate.core import ConfigError, SteppedClock
from ordergate.runtime import Settings, open_upstream

OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
TYPE_ENV = "ORDERGATE_SANDBOX_ACCOUNT_TYPE"
LEVEL_ENV = "ORDERGATE_SANDBOX_OPTION_LEVEL"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    for name in ("ORDERGATE_UPSTREAM_URL", "ORDERGATE_SANDBOX_START", "ORDERGATE_SANDBOX_SPEED"):
        monkeypatch.delenv(name, raising=False)
    for name in (TYPE_ENV, LEVEL_ENV):
        monkeypatch.delenv(name, raising=False)


def test_unset_the_embedded_sandbox_keeps_the_venues_own_account() -> None:
    settings = Settings.resolve(sandbox=True)
    assert (settings.sandbox_account_type, settings.sandbox_option_level) == (None, None)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({TYPE_ENV: "margin", LEVEL_ENV: "3"}, ("margin", "option_level_3")),
        ({LEVEL_ENV: " 1 "}, ("cash", "option_level_1")),
        ({TYPE_ENV: "margin"}, ("margin", "option_level_2")),
        ({}, ("cash", "option_level_2")),
    ],
)
async def test_the_embedded_venue_serves_the_account_the_environment_sets_up(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: tuple[str, str]
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings.resolve(sandbox=True)
    async with open_upstream(settings, clock=SteppedClock(start=OPEN)) as upstream:
        agentic = await upstream.rh.accounts.agentic()
    assert (agentic.type, agentic.option_level) == expected


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        (TYPE_ENV, "joint", "must be one of cash, margin"),
        (TYPE_ENV, "Margin", "must be one of cash, margin"),
        (LEVEL_ENV, "4", "must be one of 1, 2, 3"),
        (LEVEL_ENV, "0", "must be one of 1, 2, 3"),
        (LEVEL_ENV, "-1", "must be one of 1, 2, 3"),
        (LEVEL_ENV, "three", "must be one of 1, 2, 3"),
    ],
)
def test_a_value_the_venue_does_not_offer_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        Settings.resolve(sandbox=True)
    assert raised.value.key == name
    assert reason in str(raised.value)


@pytest.mark.parametrize(("name", "value"), [(TYPE_ENV, "margin"), (LEVEL_ENV, "3")])
def test_setting_up_the_account_of_a_real_upstream_is_refused(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        Settings.resolve(upstream="https://example.test/mcp")
    assert raised.value.key == name
    assert "only the embedded sandbox" in str(raised.value)

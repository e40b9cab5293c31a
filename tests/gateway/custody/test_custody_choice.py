"""Which custody ``ordergate serve`` runs, and the master secret it needs for sealed custody."""

from __future__ import annotations

from pathlib import Path

import pytest

from ordergate.core import ConfigError, Secret
from ordergate.gateway._config import Custody, GatewayConfig
from ordergate.gateway._serve import sealed_custody
from ordergate.runtime import Settings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path))
    for name in ("ORDERGATE_UPSTREAM_URL", "ORDERGATE_SANDBOX_START", "ORDERGATE_DB_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_auto_custody_seals_an_upstream_nobody_has_logged_in_to(home: Path) -> None:
    settings = Settings.resolve(upstream="https://venue.example/mcp")
    assert sealed_custody(settings, GatewayConfig())


def test_auto_custody_acts_on_the_owner_session_once_ordergate_login_has_run(home: Path) -> None:
    settings = Settings.resolve(upstream="https://venue.example/mcp")
    settings.token_file.parent.mkdir(parents=True, exist_ok=True)
    settings.token_file.write_text("{}")
    assert not sealed_custody(settings, GatewayConfig())


def test_auto_custody_on_the_embedded_sandbox_is_owner_and_sealed_can_be_asked_for(
    home: Path,
) -> None:
    settings = Settings.resolve(sandbox=True)
    assert not sealed_custody(settings, GatewayConfig())
    assert sealed_custody(settings, GatewayConfig(custody=Custody.SEALED))
    upstream = Settings.resolve(upstream="https://venue.example/mcp")
    assert not sealed_custody(upstream, GatewayConfig(custody=Custody.OWNER))


def test_a_master_secret_shorter_than_32_characters_is_refused_by_name() -> None:
    with pytest.raises(ConfigError) as raised:
        GatewayConfig(master_secret=Secret("short"))
    assert "ORDERGATE_MASTER_SECRET" in str(raised.value)
    assert "short" not in str(raised.value)

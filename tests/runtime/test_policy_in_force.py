"""The policy a run enforces is the one the owner last applied; a file may only tighten it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from ordergate.core import ConfigError, SteppedClock
from ordergate.ledger import Ledger, open_ledger, policy_sha256
from ordergate.policy import DEFAULT_POLICY_TOML
from ordergate.runtime import PolicyNotApplied, Settings, policy_in_force

START = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ORDERGATE_HOME", str(home))
    for name in ("ORDERGATE_DB_URL", "ORDERGATE_UPSTREAM_URL", "ORDERGATE_SANDBOX_START"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def ledger(home: Path) -> Ledger:
    home.mkdir(parents=True, exist_ok=True)
    return open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=SteppedClock(start=START))


def _settings() -> Settings:
    return Settings.resolve(sandbox=True)


@pytest.mark.req("owner.policy.applied-in-force")
def test_a_fresh_install_records_the_default_policy_as_applied(home: Path, ledger: Ledger) -> None:
    policy, note = policy_in_force(_settings(), ledger)
    assert note is not None and "wrote the default policy" in note and "(the defaults)" in note
    applied = ledger.controls.applied_policy()
    assert applied is not None and applied.sha256 == policy_sha256(DEFAULT_POLICY_TOML)
    assert applied.credential == "none" and policy.max_order_usd == 100


@pytest.mark.req("owner.policy.applied-in-force")
@pytest.mark.req("owner.threat.policy-file-edit")
def test_a_file_that_loosens_the_applied_policy_stops_the_run_naming_keys_and_command(
    home: Path, ledger: Ledger
) -> None:
    policy_in_force(_settings(), ledger)
    path = home / "policy.toml"
    path.write_text(
        DEFAULT_POLICY_TOML.replace('max_order_usd = "100"', 'max_order_usd = "5000"').replace(
            'approval = "always"', 'approval = "never"'
        )
    )
    with pytest.raises(PolicyNotApplied) as refused:
        policy_in_force(_settings(), ledger)
    assert refused.value.loosened == ("approval", "limits.max_order_usd")
    assert refused.value.changed == ("approval", "limits.max_order_usd")
    assert isinstance(refused.value, ConfigError) and refused.value.key == "policy"
    assert f"ordergate policy apply {path}" in str(refused.value)
    applied = ledger.controls.applied_policy()
    assert applied is not None and applied.sha256 == policy_sha256(DEFAULT_POLICY_TOML)


@pytest.mark.req("owner.policy.applied-in-force")
def test_a_file_that_only_tightens_is_recorded_as_applied_with_the_keys_it_changed(
    home: Path, ledger: Ledger
) -> None:
    policy_in_force(_settings(), ledger)
    tighter = DEFAULT_POLICY_TOML.replace('max_order_usd = "100"', 'max_order_usd = "40"')
    (home / "policy.toml").write_text(tighter)
    policy, note = policy_in_force(_settings(), ledger)
    assert policy.max_order_usd == 40 and note is not None and "only tightens" in note
    applied = ledger.controls.applied_policy()
    assert applied is not None and applied.sha256 == policy_sha256(tighter)
    [entry] = [e for e in ledger.journal.entries() if e.detail.get("sha256") == applied.sha256]
    assert entry.kind == "policy_applied" and entry.detail["changed"] == ["limits.max_order_usd"]
    # Loosening back to the old cap is loosening the applied one now.
    (home / "policy.toml").write_text(DEFAULT_POLICY_TOML)
    with pytest.raises(PolicyNotApplied):
        policy_in_force(_settings(), ledger)


def test_the_file_the_owner_applied_starts_as_it_is(home: Path, ledger: Ledger) -> None:
    looser = DEFAULT_POLICY_TOML.replace('approval = "always"', 'approval = "never"')
    (home / "policy.toml").parent.mkdir(parents=True, exist_ok=True)
    (home / "policy.toml").write_text(looser)
    ledger.controls.apply_policy(looser, credential="totp", loosened=["approval"], changed=[])
    policy, note = policy_in_force(_settings(), ledger)
    assert policy.approval.kind.value == "never" and note is None

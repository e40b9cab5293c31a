"""A fresh install's policy file: commented, conservative, and never written over."""

from __future__ import annotations

import stat
from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.policy import (
    DEFAULT_POLICY_TOML,
    DEFAULTS,
    Approval,
    ApprovalKind,
    Mode,
    load_policy,
    write_default_policy,
)


@pytest.mark.req("policy.defaults-conservative")
def test_the_default_policy_is_paper_approval_always_and_small_caps(tmp_path: Path) -> None:
    path = write_default_policy(tmp_path / "home" / "policy.toml")
    policy = load_policy(path)
    assert policy.mode is Mode.PAPER
    assert policy.approval == Approval(ApprovalKind.ALWAYS)
    assert policy.max_order_usd == Decimal(100) and policy.max_daily_usd == Decimal(500)
    assert not policy.short and not policy.margin
    assert policy.allow == frozenset({"SPY", "VTI"})
    # Apart from the starter allowlist, the file says exactly what omitting every key says.
    assert policy == type(DEFAULTS)(allow=policy.allow)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_every_setting_in_the_default_file_is_commented() -> None:
    settings = [
        line
        for line in DEFAULT_POLICY_TOML.splitlines()
        if "=" in line and not line.startswith("#") and not line.startswith(("allow", "deny"))
    ]
    assert settings
    assert all("#" in line for line in settings)


def test_an_existing_policy_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('mode = "live"\n', encoding="utf-8")
    with pytest.raises(FileExistsError):
        write_default_policy(path)
    assert path.read_text(encoding="utf-8") == 'mode = "live"\n'

"""An ``ORDERGATE_HOME`` holding one of every file the gateway keeps, for the checks that
refuse a home another OS user could read (issue 12 §3)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from owner_testkit import apply_home_policy, enrol

from ordergate.client import TokenSet, write_token_file
from ordergate.core import Secret, SteppedClock, create_private, ensure_private_dir
from ordergate.ledger import open_ledger

PROFILE = "name: cautious\npermissions: [account.read]\n"
SECRET_FILES = (
    "robinhood-tokens.json",
    "ledger.db",
    "ledger.db-wal",
    "ledger.db-shm",
    "owner.json",
)


def full_home(root: Path) -> Path:
    """``root/home`` with every file, each as ordergate writes it, and the policy and a
    profile as a person would (``write_text``, so 0644 by the umask)."""
    home = ensure_private_dir(root / "home")
    write_token_file(home / "robinhood-tokens.json", TokenSet(access_token=Secret("t" * 20)))
    clock = SteppedClock(start=datetime(2026, 12, 1, 15, tzinfo=UTC))
    with open_ledger(f"sqlite:///{home / 'ledger.db'}", clock=clock):
        pass
    (home / "policy.toml").write_text('approval = "never"\n')
    apply_home_policy(home)  # before the companions: closing the ledger removes them
    for companion in ("ledger.db-wal", "ledger.db-shm"):  # as while a gateway runs
        create_private(home / companion)
    enrol(home)
    (home / "profiles").mkdir()
    (home / "profiles" / "cautious.yaml").write_text(PROFILE)
    return home

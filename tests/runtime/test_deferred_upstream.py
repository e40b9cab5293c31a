"""A read that prices nothing starts no embedded venue: ``ordergate status`` over an empty paper
book answers from the ledger alone, and the venue starts at the first call that needs it —
on the same account a venue started at once would have answered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from owner_testkit import apply_home_policy

from ordergate.core import Side, SteppedClock
from ordergate.policy import Proposal
from ordergate.runtime import (
    EMBEDDED_ACCOUNT,
    EMBEDDED_RHS_ACCOUNT,
    Settings,
    open_guard,
    open_upstream,
)

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("ORDERGATE_HOME", str(tmp_path / "home"))
    for name in ("ORDERGATE_DB_URL", "ORDERGATE_UPSTREAM_URL", "ORDERGATE_APPROVAL_WEBHOOK"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.toml").write_text('approval = "never"\n[symbols]\nallow = ["SPY"]\n')
    apply_home_policy(home)
    return Settings.resolve(sandbox=True)


@pytest.mark.anyio
async def test_an_empty_paper_book_is_read_without_starting_the_venue(
    settings: Settings,
) -> None:
    clock = SteppedClock(start=OPEN)
    async with open_guard(settings, clock=clock, deferred=True) as running:
        view = await running.guard.reader.read(running.guard.account, None)
        assert running.upstream.deferred is not None
        assert not running.upstream.deferred.opened
        assert (
            running.upstream.url is None and "started if a call needs it" in running.upstream.note
        )
    assert view.cash == view.equity == Decimal("10000")
    assert running.guard.account == EMBEDDED_ACCOUNT


@pytest.mark.anyio
async def test_the_venue_starts_at_the_first_price_and_the_book_is_the_same_account(
    settings: Settings,
) -> None:
    clock = SteppedClock(start=OPEN)
    async with open_guard(settings, clock=clock) as running:
        outcome = await running.guard.submit(
            Proposal(symbol="SPY", side=Side.BUY, quantity=Decimal("0.1")),
            identity="owner:test",
        )
        clock.advance(timedelta(seconds=2))  # the engine fills it as the venue would
        await running.guard.reconcile()
        assert running.guard.ledger.filing(outcome.filing_id).status.value == "filled"
    async with open_guard(settings, clock=clock, deferred=True) as running:
        assert running.upstream.deferred is not None
        view = await running.guard.reader.read(running.guard.account, None)
        assert running.upstream.deferred.opened  # the position needed a price
    assert view.positions is not None and view.positions["SPY"].quantity == Decimal("0.1")


@pytest.mark.anyio
async def test_the_embedded_venues_agentic_numbers_are_the_ones_a_deferred_run_assumes(
    settings: Settings,
) -> None:
    async with open_upstream(settings, clock=SteppedClock(start=OPEN)) as upstream:
        agentic = await upstream.rh.accounts.agentic()
    assert agentic.account_number == EMBEDDED_ACCOUNT
    assert agentic.rhs_account_number == EMBEDDED_RHS_ACCOUNT

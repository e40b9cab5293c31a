"""The drawdown and daily-loss breakers per account: two accounts (two venues' agentic
accounts) on one ledger each keep their own high-water mark and session-start equity, so one
account's drawdown or loss halts that account and not the other, on paper and live."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from guard_kit import buy, desk, policy

from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.req("wall.breakers.per-account")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_drawdown_on_one_account_halts_that_account_and_not_another_on_the_ledger(
    tmp_path: Path, live: bool
) -> None:
    config = policy("[limits]\nduplicate_window_s = 0")
    url = f"sqlite:///{tmp_path / 'one-ledger.db'}"
    (tmp_path / "b").mkdir()
    async with (
        desk(tmp_path, live=live, config=config, ledger_url=url) as a,
        desk(tmp_path / "b", live=live, config=config, ledger_url=url, venue={"seed": 8}) as b,
    ):
        assert a.account != b.account
        for each in (a, b):
            first = await each.guard.submit(buy("SPY"), identity="agent")
            assert first.status is not FilingStatus.REFUSED, first.reasons
        controls = a.ledger.controls
        a_mark, b_mark = controls.high_water_mark(a.account), controls.high_water_mark(b.account)
        assert a_mark is not None and b_mark is not None
        # A peak a quarter above a's equity: a is 20 % down from it, b is not.
        controls.set_high_water_mark(a_mark * Decimal("1.25"), account=a.account)
        drawn = await a.guard.submit(buy("SPY"), identity="agent")
        elsewhere = await b.guard.submit(buy("SPY"), identity="agent")
        assert drawn.status is FilingStatus.REFUSED and drawn.reasons == ("drawdown_halt",)
        assert elsewhere.status is not FilingStatus.REFUSED, elsewhere.reasons
        assert controls.high_water_mark(b.account) == b_mark


@pytest.mark.req("wall.breakers.per-account")
@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_daily_loss_on_one_account_halts_that_account_and_not_another_on_the_ledger(
    tmp_path: Path, live: bool
) -> None:
    config = policy("[limits]\nduplicate_window_s = 0")
    url = f"sqlite:///{tmp_path / 'one-ledger.db'}"
    (tmp_path / "b").mkdir()
    async with (
        desk(tmp_path, live=live, config=config, ledger_url=url) as a,
        desk(tmp_path / "b", live=live, config=config, ledger_url=url, venue={"seed": 8}) as b,
    ):
        for each in (a, b):
            first = await each.guard.submit(buy("SPY"), identity="agent")
            assert first.status is not FilingStatus.REFUSED, first.reasons
        controls = a.ledger.controls
        a_start, b_start = (
            controls.session_start_equity(a.account),
            controls.session_start_equity(b.account),
        )
        assert a_start is not None and b_start is not None
        # a's session began $1,000 above where it stands: a lost it today, b did not.
        controls.set_session_start_equity(a_start.session, a_start.equity + 1000, account=a.account)
        lost = await a.guard.submit(buy("SPY"), identity="agent")
        elsewhere = await b.guard.submit(buy("SPY"), identity="agent")
        assert lost.status is FilingStatus.REFUSED and lost.reasons == ("daily_loss_halt",)
        assert elsewhere.status is not FilingStatus.REFUSED, elsewhere.reasons
        assert controls.session_start_equity(b.account) == b_start

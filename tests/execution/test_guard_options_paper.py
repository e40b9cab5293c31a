"""Paper options end to end through the guard: the live option lane (``RobinhoodOptions``)
over the paper caller, the venue's own options desk in the engine filling on the upstream's
option quotes (a real sandbox venue on loopback). Each strategy shape fills after a clock
step with its reservation at the premium that filled; a position left open settles at its
expiration; the caps refuse with nothing at the engine; the book takes the upstream
account's type and option level unless the policy's ``[paper]`` names them."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from guard_kit import Desk, buy
from option_market_testkit import OPTIONS, leg, near_money
from paper_options_kit import (
    CENT,
    caller,
    engine_orders,
    engine_positions,
    filled,
    held,
    option_policy,
    paper_options,
    proposal,
)

from ordergate.core import Side
from ordergate.ledger import FilingStatus
from ordergate.policy import Proposal

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_long_call_fills_on_paper_and_holds_the_premium_that_filled(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path) as d:
        call = near_money(d, "call")
        await filled(d, [leg(call["id"])])
        assert await engine_positions(d) == {call["id"]: 1}
        upstream = d.venue.data("get_option_orders", {"account_number": d.account})
        assert upstream["orders"] == []  # nothing reached the upstream's desk


async def test_a_covered_call_over_paper_shares_fills(tmp_path: Path) -> None:
    async with paper_options(tmp_path) as d:
        shares = await d.guard.submit(buy("AAPL", quantity=Decimal(100)), identity="a")
        assert await d.settled(shares, seconds=3) is FilingStatus.FILLED
        call = near_money(d, "call", 2)
        await filled(d, [leg(call["id"], "sell")])
        assert await engine_positions(d) == {call["id"]: -1}


async def test_a_cash_secured_put_fills_on_paper(tmp_path: Path) -> None:
    async with paper_options(tmp_path) as d:
        put = near_money(d, "put", -2)
        await filled(d, [leg(put["id"], "sell")])
        assert await engine_positions(d) == {put["id"]: -1}


async def test_a_debit_vertical_fills_on_paper(tmp_path: Path) -> None:
    async with paper_options(tmp_path) as d:
        low, high = near_money(d, "call"), near_money(d, "call", 2)
        await filled(d, [leg(low["id"]), leg(high["id"], "sell")], quantity=2)
        assert await engine_positions(d) == {low["id"]: 2, high["id"]: -2}


async def test_a_credit_vertical_fills_on_paper(tmp_path: Path) -> None:
    async with paper_options(tmp_path) as d:
        high, low = near_money(d, "put"), near_money(d, "put", -2)
        order = await filled(d, [leg(high["id"], "sell"), leg(low["id"])])
        assert order["direction"] == "credit"
        assert await engine_positions(d) == {high["id"]: -1, low["id"]: 1}


async def test_an_iron_condor_fills_on_paper_at_level_3_on_margin(tmp_path: Path) -> None:
    async with paper_options(tmp_path) as d:
        legs = [
            leg(near_money(d, "put", -2)["id"]),
            leg(near_money(d, "put", -1)["id"], "sell"),
            leg(near_money(d, "call", 1)["id"], "sell"),
            leg(near_money(d, "call", 2)["id"]),
        ]
        await filled(d, legs)
        assert len(await engine_positions(d)) == 4


async def test_a_long_call_left_open_settles_at_its_expiration_on_paper(tmp_path: Path) -> None:
    async with paper_options(tmp_path) as d:
        call = near_money(d, "call", -2)  # in the money
        await filled(d, [leg(call["id"])])
        close = datetime.combine(date.fromisoformat(call["expiration_date"]), time(21), UTC)
        d.clock.set(close - timedelta(seconds=30))
        assert await engine_positions(d) == {call["id"]: 1}  # the close's price observed
        d.clock.set(close + timedelta(minutes=1))
        assert await engine_positions(d) == {}
        premium = held(d)
        await d.guard.reconcile()
        assert held(d) == premium  # what filled stays reserved; the settlement is cash


async def test_a_long_call_nobody_priced_at_its_close_settles_on_the_close_read_after_it(
    tmp_path: Path,
) -> None:
    """No read in the minute before the close: the first read after it reports the
    regular close (``get_equity_quotes``' ``close``), which settles the expired call."""
    async with paper_options(tmp_path) as d:
        call = near_money(d, "call", -2)  # in the money
        await filled(d, [leg(call["id"])])
        close = datetime.combine(date.fromisoformat(call["expiration_date"]), time(21), UTC)
        d.clock.set(close + timedelta(hours=2))
        assert await engine_positions(d) == {}


async def test_an_order_over_the_premium_cap_is_refused_with_nothing_at_the_engine(
    tmp_path: Path,
) -> None:
    tight = OPTIONS.replace('max_premium_usd = "5000"', 'max_premium_usd = "1"')
    async with paper_options(tmp_path, config=option_policy(options=tight)) as d:
        outcome = await d.guard.submit_option(
            proposal(d, [leg(near_money(d, "call")["id"])]), identity="a"
        )
        assert outcome.status is FilingStatus.REFUSED
        assert "option_premium_over_cap" in outcome.reasons, outcome.reasons
        assert await engine_orders(d) == []
        assert held(d) == 0


async def test_the_daily_premium_cap_refuses_the_order_that_would_pass_it_on_paper(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path) as d:
        call = near_money(d, "call")
        first = proposal(d, [leg(call["id"])])
        assert first.limit_price is not None
        cap = (first.limit_price * 100 * Decimal("1.5")).quantize(CENT)
        daily = OPTIONS.replace(
            'max_daily_premium_usd = "20000"', f'max_daily_premium_usd = "{cap}"'
        )
        guard = d.guard_with(option_policy(options=daily))
        assert (await guard.submit_option(first, identity="a")).status is FilingStatus.SUBMITTED
        second = await guard.submit_option(first, identity="b")
        assert second.status is FilingStatus.REFUSED
        assert len(await engine_orders(d)) == 1


async def test_a_vertical_on_a_cash_account_at_level_2_is_refused_by_the_engine(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path, account_type="cash", option_level=2) as d:
        low, high = near_money(d, "call"), near_money(d, "call", 2)
        outcome = await d.guard.submit_option(
            proposal(d, [leg(low["id"]), leg(high["id"], "sell")]), identity="a"
        )
        assert outcome.status is FilingStatus.REJECTED
        assert outcome.reasons == ("broker_refused",)
        assert await engine_orders(d) == [] and held(d) == 0


async def test_the_policys_paper_level_lets_the_paper_book_trade_a_vertical(
    tmp_path: Path,
) -> None:
    config = option_policy(paper='account_type = "margin"\noption_level = 3\n')
    async with paper_options(tmp_path, config=config, account_type="cash", option_level=2) as d:
        low, high = near_money(d, "call"), near_money(d, "call", 2)
        await filled(d, [leg(low["id"]), leg(high["id"], "sell")])


async def test_an_exercise_on_paper_is_filed_refused_and_never_reaches_the_real_account(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path) as d:
        call = near_money(d, "call", -2)
        await filled(d, [leg(call["id"])])
        outcome = await d.guard.request_exercise(
            act="exercise", option_id=call["id"], quantity=1, identity="a"
        )
        assert outcome.status is FilingStatus.REFUSED
        assert outcome.reasons == ("options_not_on_paper",)


BIG = 400  # more contracts than the upstream's option quotes display (at most 150 a side)
ROOMY = (
    OPTIONS.replace("max_contracts = 10", "max_contracts = 1000")
    .replace('max_premium_usd = "5000"', 'max_premium_usd = "500000"')
    .replace('max_daily_premium_usd = "20000"', 'max_daily_premium_usd = "900000"')
    .replace('max_loss_usd = "100000"', 'max_loss_usd = "900000"')
)


async def test_a_partial_fill_on_paper_is_followed_and_the_hold_ends_at_what_filled(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path, config=option_policy(options=ROOMY)) as d:
        call = near_money(d, "call", 2)
        outcome = await d.guard.submit_option(
            proposal(d, [leg(call["id"])], quantity=BIG), identity="a"
        )
        assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
        estimate = held(d)
        assert await d.settled(outcome, seconds=2) is FilingStatus.PARTIALLY_FILLED
        (order,) = await engine_orders(d)
        assert order["state"] == "partially_filled"
        assert 0 < int(order["processed_quantity"]) < BIG
        assert held(d) <= estimate  # what filled, and the rest at its limit
        for _ in range(20):
            if d.ledger.filing(outcome.filing_id).status.terminal:
                break
            await d.settled(outcome, seconds=1)
        assert d.ledger.filing(outcome.filing_id).status is FilingStatus.FILLED
        (order,) = await engine_orders(d)
        assert order["processed_quantity"] == str(BIG)
        assert held(d) == Decimal(order["processed_premium"])
        assert await engine_positions(d) == {call["id"]: BIG}


async def test_a_partly_filled_order_cancelled_on_paper_holds_only_the_premium_that_filled(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path, config=option_policy(options=ROOMY)) as d:
        call = near_money(d, "call", 2)
        outcome = await d.guard.submit_option(
            proposal(d, [leg(call["id"])], quantity=BIG), identity="a"
        )
        assert await d.settled(outcome, seconds=2) is FilingStatus.PARTIALLY_FILLED
        cancelled = await d.guard.cancel(outcome.filing_id, identity="a")
        (order,) = await engine_orders(d)
        assert order["state"] == "partially_filled_rest_cancelled"
        assert cancelled.status is FilingStatus.CANCELLED  # ended, with what filled kept
        processed = int(order["processed_quantity"])
        assert held(d) == Decimal(order["processed_premium"]) > 0
        assert await engine_positions(d) == {call["id"]: processed}


async def expire(d: Desk, option: dict[str, Any], shock_pct: str) -> None:
    """Move the underlying ``shock_pct`` and the clock past ``option``'s expiration, with the
    underlying's price at the close observed on the way (a look half a minute before)."""
    d.venue.admin("shock", {"symbol": "AAPL", "pct": shock_pct})
    close = datetime.combine(date.fromisoformat(option["expiration_date"]), time(21), UTC)
    d.clock.set(close - timedelta(seconds=30))
    await engine_positions(d)
    d.clock.set(close + timedelta(minutes=1))
    await d.guard.reconcile()


async def shares(d: Desk) -> Decimal:
    """The paper book's AAPL shares, as the guard reads the account."""
    view = await d.port.equity.account.read(d.account, "AAPL")
    assert view.positions is not None
    held_shares = view.positions.get("AAPL")
    return Decimal(0) if held_shares is None else held_shares.quantity


async def test_a_covered_call_assigned_at_expiration_on_paper_delivers_the_shares(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path) as d:
        bought = await d.guard.submit(buy("AAPL", quantity=Decimal(100)), identity="a")
        assert await d.settled(bought, seconds=3) is FilingStatus.FILLED
        call = near_money(d, "call", 1)
        await filled(d, [leg(call["id"], "sell")])
        premium, filled_at = held(d), d.clock.now()
        assert await shares(d) == 100
        await expire(d, call, "10")  # well in the money
        assert await engine_positions(d) == {}
        assert await shares(d) == 0  # delivered at the strike
        assert held(d, filled_at) == premium  # the reservation stays at what filled
        again = await d.guard.submit_option(proposal(d, [leg(call["id"], "sell")]), identity="a")
        assert again.status is not FilingStatus.SUBMITTED  # no shares cover a call now


async def test_a_cash_secured_put_assigned_at_expiration_on_paper_buys_the_shares(
    tmp_path: Path,
) -> None:
    async with paper_options(tmp_path) as d:
        put = near_money(d, "put", -1)
        await filled(d, [leg(put["id"], "sell")])
        premium, filled_at = held(d), d.clock.now()
        await expire(d, put, "-10")
        assert await engine_positions(d) == {}
        assert await shares(d) == 100  # bought at the strike
        assert held(d, filled_at) == premium
        d.clock.set(datetime(2026, 12, 7, 14, 31, tzinfo=UTC))  # Monday's session
        sold = await d.guard.submit(
            Proposal(symbol="AAPL", side=Side.SELL, quantity=Decimal(100)), identity="a"
        )
        assert sold.status is FilingStatus.SUBMITTED, sold.reasons  # the guard sees them


async def test_an_option_order_reads_the_account_once_a_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The holdings' shares and cash come from the decision's own view of the account, so
    # stage A and stage B read it once each; only the option positions are read beside it.
    async with paper_options(tmp_path) as d:
        order = proposal(d, [leg(near_money(d, "call")["id"])])
        paper = caller(d)
        answer = paper.call
        asked: list[str] = []

        async def counted(name: str, arguments: Any) -> Any:
            asked.append(name)
            return await answer(name, arguments)

        read_together = paper._reads_if_priced

        def counted_together(engine: Any, calls: Any) -> Any:
            # The sight's portfolio and positions, read in one engine call (``book_parts``).
            asked.extend(name for name, _ in calls)
            return read_together(engine, calls)

        monkeypatch.setattr(paper, "call", counted)
        monkeypatch.setattr(paper, "_reads_if_priced", counted_together)
        outcome = await d.guard.submit_option(order, identity="a")
    assert outcome.status is FilingStatus.SUBMITTED, outcome.reasons
    assert asked.count("get_portfolio") == 2
    assert asked.count("get_equity_positions") == 2
    assert asked.count("get_option_positions") == 1

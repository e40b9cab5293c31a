"""The agent's own key for an order (its ``ref_id``) at the guard: filed once per identity,
a retry under it answers the first filing and files or places nothing, another order under
it is refused ``ref_id_reused``; the venue's ``ref_id`` stays the filing's id. Against the
sandbox venue, live, on SQLite and on Postgres."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import uuid4

import anyio
import pytest
from guard_kit import BOUND_S, Desk, buy, desk, policy
from pg_testkit import database
from venue_testkit import START

from ordergate.core import SteppedClock
from ordergate.execution import REF_ID_REUSED, Guard, Outcome, end_filing
from ordergate.execution._keyed import standing
from ordergate.ledger import Filing, FilingStatus, RollingCaps, open_ledger
from ordergate.policy import Stage

pytestmark = [pytest.mark.anyio, pytest.mark.req("wall.agent-key.once")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["sqlite", "postgres"])
def ledger_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


def _venue_orders(d: Desk) -> list[dict[str, Any]]:
    orders: list[dict[str, Any]] = d.venue.data("get_equity_orders", {"account_number": d.account})[
        "orders"
    ]
    return orders


async def test_a_retry_under_the_same_key_answers_the_first_filing_and_places_nothing(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        key = uuid4()
        first = await d.guard.submit(buy(), identity="agent", agent_key=key)
        assert first.status is FilingStatus.SUBMITTED and first.order_id
        again = await d.guard.submit(buy(), identity="agent", agent_key=key)
        assert (again.filing_id, again.status, again.order_id) == (
            first.filing_id, FilingStatus.SUBMITTED, first.order_id
        )  # fmt: skip
        [order] = _venue_orders(d)
        # The venue's ref_id is the filing's id, never the agent's key.
        assert order["ref_id"] == str(first.filing_id) != str(key)
        assert len(d.ledger.filings_of("agent", limit=10)) == 1
        [entry] = [
            e for e in d.ledger.journal.for_filing(first.filing_id) if e.kind.startswith("policy_e")
        ]
        assert entry.detail["agent_key"] == str(key)


async def test_another_order_under_a_used_key_is_refused_ref_id_reused_and_nothing_is_filed(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        key = uuid4()
        first = await d.guard.submit(buy(), identity="agent", agent_key=key)
        other = await d.guard.submit(buy(quantity=Decimal(2)), identity="agent", agent_key=key)
        assert other.refused and other.reasons == (REF_ID_REUSED,)
        assert other.filing_id == first.filing_id and other.order_id is None
        assert REF_ID_REUSED in other.message
        assert len(d.ledger.filings_of("agent", limit=10)) == 1 and len(_venue_orders(d)) == 1
        # The key is the identity's own: another identity files under it as usual.
        elsewhere = await d.guard.submit(buy(quantity=Decimal(2)), identity="b", agent_key=key)
        assert elsewhere.status is FilingStatus.SUBMITTED
        assert len(_venue_orders(d)) == 2


async def test_a_retry_of_a_held_order_answers_it_pending_with_its_approval(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=policy('approval = "always"'), live=True) as d:
        key = uuid4()
        held = await d.guard.submit(buy(), identity="agent", agent_key=key)
        again = await d.guard.submit(buy(), identity="agent", agent_key=key)
        assert again.status is FilingStatus.PENDING_APPROVAL
        assert again.approval_id == held.approval_id is not None
        assert held.approval_id is not None
        placed = await d.guard.approve(held.approval_id, by="owner")
        after = await d.guard.submit(buy(), identity="agent", agent_key=key)
        assert (after.status, after.order_id) == (FilingStatus.SUBMITTED, placed.order_id)
        assert len(_venue_orders(d)) == 1


async def test_a_retry_of_a_refused_order_answers_its_refusal_without_filing_again(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, live=True) as d:
        key = uuid4()
        huge = buy(quantity=Decimal(10_000))
        first = await d.guard.submit(huge, identity="agent", agent_key=key)
        assert first.refused and first.stage is Stage.ESTIMATE
        again = await d.guard.submit(huge, identity="agent", agent_key=key)
        assert (again.filing_id, again.reasons, again.stage) == (
            first.filing_id, first.reasons, Stage.ESTIMATE
        )  # fmt: skip
        assert len(d.ledger.filings_of("agent", limit=10)) == 1 and _venue_orders(d) == []


async def test_ten_concurrent_retries_from_two_processes_ledgers_file_once_and_place_once(
    tmp_path: Path, ledger_url: str
) -> None:
    async with desk(tmp_path, live=True, ledger_url=ledger_url) as d:
        # A second ledger on the same database: what another process or replica holds.
        with open_ledger(ledger_url, clock=d.clock) as other_ledger:
            other = Guard(
                policy=d.guard.policy,
                ledger=other_ledger,
                venue=d.port,
                account=d.account,
                clock=d.clock,
            )
            key = uuid4()
            outcomes: list[Outcome] = []

            async def retry(guard: Guard) -> None:
                outcomes.append(await guard.submit(buy(), identity="agent", agent_key=key))

            with anyio.fail_after(BOUND_S * 4):
                async with anyio.create_task_group() as group:
                    for index in range(10):
                        group.start_soon(retry, (d.guard, other)[index % 2])
        assert len({outcome.filing_id for outcome in outcomes}) == 1
        assert not any(outcome.refused for outcome in outcomes)
        assert len(d.ledger.filings_of("agent", limit=20)) == 1
        [order] = _venue_orders(d)
        assert order["ref_id"] == str(outcomes[0].filing_id)


def test_where_a_filing_stands_names_the_stage_and_broker_code_of_its_ending(
    tmp_path: Path,
) -> None:
    with open_ledger(
        f"sqlite:///{tmp_path / 'ledger.db'}", clock=SteppedClock(start=START)
    ) as ledger:
        caps = RollingCaps(Decimal(1000), 10)
        filed = ledger.file_and_reserve(
            Filing("agent", {"symbol": "SPY"}, account="A1", agent_key=uuid4()),
            notional=Decimal(10),
            caps=caps,
        ).record
        end_filing(
            ledger, filed, FilingStatus.REJECTED, ("broker_refused",),
            stage=Stage.REVIEW, broker_code="NOT_TRADABLE",
        )  # fmt: skip
        now = standing(ledger, ledger.filing(filed.id))
    assert (now.status, now.reasons, now.stage, now.broker_code) == (
        FilingStatus.REJECTED, ("broker_refused",), Stage.REVIEW, "NOT_TRADABLE"
    )  # fmt: skip

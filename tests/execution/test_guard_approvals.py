"""Approvals: bound to the exact terms, with a time to live; approving re-runs stage B."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from guard_kit import buy, desk, policy
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ordergate._serving import BackgroundServer, bind_socket
from ordergate.execution import deny_approval
from ordergate.ledger import ApprovalState, FilingStatus
from ordergate.policy import Stage
from ordergate.runtime import WebhookNotifier

pytestmark = pytest.mark.anyio

ALWAYS = policy('approval = "always"')


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_order_needing_approval_waits_holding_its_budget_and_sends_nothing(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        outcome = await d.guard.submit(buy("SPY"), identity="agent")
        assert outcome.status is FilingStatus.PENDING_APPROVAL and not outcome.refused
        assert outcome.approval_id is not None
        assert d.ledger.rolling_spend(d.account).orders == 1
        [pending] = d.ledger.approvals.pending()
        assert pending.id == outcome.approval_id
        assert pending.expires_at - pending.created_at == timedelta(seconds=900)
        assert d.ledger.orders.executions(outcome.filing_id) == []


@pytest.mark.req("wall.approvals-bound")
async def test_approving_reviews_checks_again_and_places_the_order(tmp_path: Path) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        d.step(60)
        approved = await d.guard.approve(pending.approval_id, by="owner")
        assert await d.settled(approved, seconds=2) is FilingStatus.FILLED
        assert approved.approval_id == pending.approval_id
        statuses = [e.status for e in d.ledger.events(pending.filing_id) if e.kind == "status"]
        assert statuses == ["pending_approval", "approved", "submitted", "filled"]
        approval = d.ledger.approvals.get(pending.approval_id)
        assert (approval.state, approval.decided_by) == (ApprovalState.APPROVED, "owner")


async def test_an_approval_decided_once_cannot_be_acted_on_again(tmp_path: Path) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        assert pending.approval_id is not None
        placed = await d.guard.approve(pending.approval_id, by="owner")
        again = await d.guard.approve(pending.approval_id, by="owner")
        assert again.reasons == ("approval_already_decided",)
        assert await d.settled(placed, seconds=2) is FilingStatus.FILLED
        assert len(d.ledger.orders.executions(pending.filing_id)) == 1


@pytest.mark.req("wall.approvals-bound")
async def test_an_expired_approval_is_refused_and_its_budget_released(tmp_path: Path) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        assert pending.approval_id is not None
        d.step(15 * 60)
        outcome = await d.guard.approve(pending.approval_id, by="owner")
        assert outcome.refused and outcome.status is FilingStatus.EXPIRED
        assert outcome.reasons == ("approval_expired",)
        assert d.ledger.rolling_spend(d.account).orders == 0


async def test_the_reconciler_expires_overdue_approvals(tmp_path: Path) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        d.step(15 * 60 + 1)
        report = await d.guard.reconcile()
        assert report.expired == 1
        assert d.ledger.filing(pending.filing_id).status is FilingStatus.EXPIRED
        assert d.ledger.rolling_spend(d.account).orders == 0


@pytest.mark.req("wall.approvals-bound")
async def test_an_approval_whose_terms_were_altered_on_the_record_is_refused(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        assert pending.approval_id is not None
        with d.ledger.engine.begin() as connection:
            terms = json.loads(
                connection.execute(
                    text("SELECT terms FROM filings WHERE id = :id"), {"id": str(pending.filing_id)}
                ).scalar_one()
            )
            terms["quantity"] = "100"
            connection.execute(
                text("UPDATE filings SET terms = :terms WHERE id = :id"),
                {"terms": json.dumps(terms, sort_keys=True), "id": str(pending.filing_id)},
            )
        outcome = await d.guard.approve(pending.approval_id, by="owner")
        assert outcome.refused and outcome.reasons == ("approval_terms_altered",)
        assert d.ledger.orders.executions(pending.filing_id) == []
        assert not d.ledger.verify().ok  # and the record shows the edit


async def test_a_pause_after_filing_stops_an_approved_order_at_stage_b(tmp_path: Path) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        assert pending.approval_id is not None
        d.ledger.controls.pause("stop everything")
        outcome = await d.guard.approve(pending.approval_id, by="owner")
        assert outcome.refused and outcome.stage is Stage.REVIEW
        assert "paused" in outcome.reasons
        assert d.ledger.rolling_spend(d.account).orders == 0


async def test_denying_ends_the_filing_and_needs_only_the_ledger(tmp_path: Path) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY"), identity="agent")
        assert pending.approval_id is not None
        outcome = deny_approval(d.ledger, pending.approval_id, by="owner")
        assert outcome.refused and outcome.status is FilingStatus.DENIED
        assert outcome.reasons == ("approval_denied",)
        assert d.ledger.rolling_spend(d.account).orders == 0
        late = await d.guard.approve(pending.approval_id, by="owner")
        assert late.reasons == ("approval_already_decided",)


async def test_orders_above_the_threshold_need_approval_and_smaller_ones_do_not(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        guard = d.guard_with(policy('approval = "above:100"'))
        small = await guard.submit(buy("SPY", notional=Decimal(50)), identity="a")
        assert small.status is FilingStatus.SUBMITTED
        big = await guard.submit(buy("SPY"), identity="a")
        assert big.status is FilingStatus.PENDING_APPROVAL


@pytest.mark.req("console.notify-link")
async def test_a_webhook_is_told_of_each_new_approval_without_secrets_with_its_console_link(
    tmp_path: Path,
) -> None:
    received: list[dict[str, Any]] = []

    async def hook(request: Request) -> JSONResponse:
        received.append(await request.json())
        return JSONResponse({})

    sock = bind_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/hook"
    with BackgroundServer(Starlette(routes=[Route("/hook", hook, methods=["POST"])]), sock):
        async with desk(tmp_path, config=ALWAYS) as d:
            notifier = WebhookNotifier(url, console_url="https://gw.example/console/")
            guard = d.guard_with(ALWAYS, notifier=notifier)
            pending = await guard.submit(buy("SPY"), identity="agent")
    [body] = received
    assert body["event"] == "approval_pending"
    assert body["approval_id"] == str(pending.approval_id)
    assert (body["symbol"], body["side"], body["quantity"]) == ("SPY", "buy", "1")
    assert "account_number" not in json.dumps(body)
    link = f"https://gw.example/console/approvals/{pending.approval_id}"
    assert body["console_url"] == link  # the approval's console page


@pytest.mark.req("console.notify-link")
async def test_a_waiting_orders_console_link_is_logged_at_warning_where_serve_shows_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with desk(tmp_path, config=ALWAYS) as d:
        notifier = WebhookNotifier(None, console_url="https://gw.example/console")
        guard = d.guard_with(ALWAYS, notifier=notifier)
        pending = await guard.submit(buy("SPY"), identity="agent")
    link = f"https://gw.example/console/approvals/{pending.approval_id}"
    [record] = [r for r in caplog.records if link in r.getMessage()]
    # serve configures no logging: Python shows WARNING and above, as the README says.
    assert record.levelno == logging.WARNING


async def test_a_failing_webhook_never_stops_the_order_path(tmp_path: Path) -> None:
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there
    async with desk(tmp_path, config=ALWAYS) as d:
        guard = d.guard_with(ALWAYS, notifier=WebhookNotifier(f"http://127.0.0.1:{port}/hook"))
        outcome = await guard.submit(buy("SPY"), identity="agent")
        assert outcome.status is FilingStatus.PENDING_APPROVAL


@pytest.mark.req("wall.approval-binds-money")
async def test_an_approval_after_a_thirty_percent_move_is_held_again_not_filled(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, config=ALWAYS) as d:
        pending = await d.guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent")
        assert pending.approval_id is not None
        shown = d.ledger.filing(pending.filing_id).notional
        d.venue.admin("shock", {"symbol": "SPY", "pct": "30"})  # between approval and review
        d.step(2)  # the paper market reads the moved price (its quotes last a second)
        again = await d.guard.approve(pending.approval_id, by="owner")
        assert again.status is FilingStatus.PENDING_APPROVAL and not again.refused
        assert again.reasons == ("approval_exceeded",)
        assert again.approval_id is not None and again.approval_id != pending.approval_id
        assert d.ledger.orders.executions(pending.filing_id) == []
        [second] = d.ledger.approvals.pending()
        assert second.id == again.approval_id
        assert second.notional is not None and second.notional > shown * Decimal("1.25")
        # The owner is asked again, at the reviewed notional; approved, it fills.
        filled = await d.guard.approve(second.id, by="owner")
        assert await d.settled(filled, seconds=2) is FilingStatus.FILLED


@pytest.mark.req("wall.approval-binds-money")
async def test_an_approval_within_the_slippage_allowed_fills(tmp_path: Path) -> None:
    async with desk(
        tmp_path, config=policy('approval = "always"\napproval_slippage_pct = "40"')
    ) as d:
        pending = await d.guard.submit(buy("SPY", quantity=Decimal(2)), identity="agent")
        assert pending.approval_id is not None
        d.venue.admin("shock", {"symbol": "SPY", "pct": "30"})
        d.step(2)  # the paper market reads the moved price (its quotes last a second)
        outcome = await d.guard.approve(pending.approval_id, by="owner")
        assert await d.settled(outcome, seconds=2) is FilingStatus.FILLED

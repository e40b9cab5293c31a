"""On a hosted rail a person's held order reaches that person only (their push, their console):
the operator's approval webhook, on a receiver on loopback, gets nothing of it, and the rail's
log, read at DEBUG, names neither the order's ids nor its symbol. The operator's own alerts
still reach the webhook."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from capture_testkit import CaptureServer, capture_server
from custody_kit import BOUND_S, Custodian, custodian
from push_testkit import PushService, eventually, push_service

from ordergate.owner import SOURCE_FAILURES

BUY = {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5"}
# The venue (a stand-in for Robinhood, in this process for the test) logs what it is sent;
# the rail's own log is everything else.
VENUE_LOGGERS = ("ordergate.sandbox",)


@pytest.fixture
def hook() -> Iterator[CaptureServer]:
    with capture_server() as served:
        yield served


@pytest.fixture
def rail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hook: CaptureServer
) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, push=True, webhook_url=hook.url) as served:
        yield served


@pytest.fixture
def service(rail: Custodian) -> Iterator[PushService]:
    with push_service(rail.clock.now) as served:
        yield served


def _rails_log(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(
        f"{record.name} {record.getMessage()} {record.exc_text or ''}"
        for record in caplog.records
        if not record.name.startswith(VENUE_LOGGERS)
    )


@pytest.mark.req("rail.operator.no-person-orders")
def test_a_persons_held_order_reaches_their_phone_and_neither_the_operators_webhook_nor_log(
    rail: Custodian,
    service: PushService,
    hook: CaptureServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    token = rail.connect(approval_mode=True)
    subscribed = rail.person_post(
        "/person/push/subscriptions", 0, {"subscription": service.subscribe(rail.push_key())}
    )
    assert subscribed.status_code == 201, subscribed.text
    caplog.set_level(logging.DEBUG)
    held = rail.place(token, BUY)
    assert held["status"] == "pending_approval", held
    # The person is told (the push is sent after any webhook the guard was given).
    eventually(lambda: len(service.received) == 1)
    [pushed] = service.received
    assert pushed["approval_id"] == held["approval_id"]
    assert pushed["url"] == f"{rail.url}/console/mine/approvals/{held['approval_id']}"
    # The operator is not: nothing posted, no console link, nothing naming the order logged.
    assert hook.requests == []
    # The log is read once the push's own request is in it (by its endpoint, nothing of the
    # order): its client logs it as the answer comes back, after the service has the push.
    eventually(lambda: "/push/" in _rails_log(caplog))
    log = _rails_log(caplog)
    for named in (held["filing_id"], held["approval_id"], "SPY", "/approvals/"):
        assert named not in log, named
    assert "waits for the owner" not in log


@pytest.mark.req("rail.operator.no-person-orders")
def test_the_operators_own_alert_still_reaches_the_webhook_of_a_hosted_rail(
    rail: Custodian, hook: CaptureServer
) -> None:
    # Wrong owner codes on the operator's console lock it: an alert of the operator's own.
    with httpx2.Client(base_url=rail.url, timeout=BOUND_S) as browser:
        page = browser.get("/console/sign-in")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found is not None
        form = {"csrf": found.group(1), "owner_code": "not the passphrase at all"}
        answers = [
            browser.post("/console/sign-in", data=form, headers={"origin": rail.url}).status_code
            for _ in range(SOURCE_FAILURES + 1)
        ]
    assert answers[-1] == 423, answers
    events = [json.loads(request.body) for request in hook.requests if request.method == "POST"]
    assert [event["event"] for event in events] == ["owner_locked"], events

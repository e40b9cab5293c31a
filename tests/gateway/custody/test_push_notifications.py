"""Web Push on a hosted rail: an order held for a person reaches their phone through a push
service on loopback that checks the rail's VAPID token and decrypts the RFC 8291 payload —
ids and a link, nothing of the order; a subscription the service says is gone is dropped; a
push the service refuses leaves the order held as it was; the rail's VAPID private key is
never in its database in the clear."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from custody_kit import MASTER, Custodian, custodian
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE
from push_testkit import PushService, eventually, push_service
from sqlalchemy import select, text

from ordergate.gateway._schema import push_keys, push_subscriptions

BUY = {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5"}


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, push=True) as served:
        yield served


@pytest.fixture
def service(rail: Custodian) -> Iterator[PushService]:
    with push_service(rail.clock.now) as served:
        yield served


def _subscribe(
    rail: Custodian, subscription: object, *, person: int = 0, code: str | None = None
) -> httpx2.Response:
    body = {"subscription": subscription}
    return rail.person_post("/person/push/subscriptions", person, body, code=code)


def _place(rail: Custodian, token: str) -> dict[str, Any]:
    data: dict[str, Any] = rail.place(token, BUY)
    assert data["status"] == "pending_approval", data
    return data


def _pushes(rail: Custodian) -> list[dict[str, Any]]:
    with rail.engine.connect() as db:
        rows = db.execute(text("SELECT why, detail FROM decisions WHERE kind = 'push'"))
        return [{"why": row.why, **json.loads(row.detail)} for row in rows]


@pytest.mark.req("gateway.push.delivered")
def test_a_held_order_reaches_the_persons_phone_signed_by_the_rail_and_encrypted_for_it(
    rail: Custodian, service: PushService
) -> None:
    token = rail.connect(approval_mode=True)
    subscribed = _subscribe(rail, service.subscribe(rail.push_key()))
    assert subscribed.status_code == 201, subscribed.text
    held = _place(rail, token)
    eventually(lambda: len(service.received) == 1)
    assert service.refused == []
    [payload] = service.received
    assert payload == {
        "event": "approval_pending",
        "title": "An order waits for your approval",
        "filing_id": held["filing_id"],
        "approval_id": held["approval_id"],
        "expires_at": payload["expires_at"],
        "url": f"{rail.url}/console/mine/approvals/{held['approval_id']}",
    }
    eventually(lambda: len(_pushes(rail)) == 1)
    [journalled] = _pushes(rail)
    assert journalled["why"] == "push delivered" and journalled["status"] == 201
    assert journalled["filing_id"] == held["filing_id"]
    assert "endpoint" not in json.dumps(journalled)


@pytest.mark.req("gateway.push.vapid")
def test_a_push_service_refuses_a_subscription_made_with_another_key_and_the_order_stays_held(
    rail: Custodian, service: PushService
) -> None:
    token = rail.connect(approval_mode=True)
    other = service.subscribe(rail.push_key())
    # The browser subscribed against some other server's key: the rail's token is refused.
    service.browsers[other["endpoint"].rsplit("/", 1)[1]].server_key = "B" + "A" * 86
    assert _subscribe(rail, other).status_code == 201
    held = _place(rail, token)
    eventually(lambda: len(_pushes(rail)) == 1)
    assert service.refused == ["vapid key is not the subscription's"]
    assert service.received == []
    [journalled] = _pushes(rail)
    assert journalled["why"] == "push failed" and journalled["status"] == 403
    with rail.engine.connect() as db:
        assert db.execute(select(push_subscriptions.c.id)).all() != []  # kept: not gone
    standing = McpSession(rail.url, token)
    try:
        record = standing.tool("gate_record", {})["data"]
    finally:
        standing.close()
    [filing] = [row for row in record["filings"] if row["filing_id"] == held["filing_id"]]
    assert filing["status"] == "pending_approval"


@pytest.mark.req("gateway.push.gone")
def test_a_subscription_the_push_service_says_is_gone_is_dropped(
    rail: Custodian, service: PushService
) -> None:
    token = rail.connect(approval_mode=True)
    subscription = service.subscribe(rail.push_key())
    service.browsers[subscription["endpoint"].rsplit("/", 1)[1]].answer = 410
    assert _subscribe(rail, subscription).status_code == 201
    _place(rail, token)
    eventually(lambda: len(_pushes(rail)) == 1)
    assert _pushes(rail)[0]["why"] == "push gone"
    with rail.engine.connect() as db:
        assert db.execute(select(push_subscriptions.c.id)).all() == []


@pytest.mark.req("gateway.push.subscribe")
def test_only_the_persons_own_code_registers_a_subscription_for_their_connection(
    rail: Custodian, service: PushService
) -> None:
    rail.connect(approval_mode=True)
    rail.connect(approval_mode=True)
    key = rail.push_key()
    for code in (PASSPHRASE, rail.person_code(rail.secrets[1])):
        refused = _subscribe(rail, service.subscribe(key), code=code)
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["field"] == "person_code"
    again = service.subscribe(key)
    assert _subscribe(rail, again).status_code == 201
    assert _subscribe(rail, again).status_code == 200  # the same subscription, kept once
    with rail.engine.connect() as db:
        rows = db.execute(select(push_subscriptions)).all()
    assert len(rows) == 1
    sealed = rows[0].sealed
    assert again["endpoint"] not in sealed and again["keys"]["auth"] not in sealed


def test_a_subscription_that_is_not_one_is_refused_naming_the_field_before_any_code_is_spent(
    rail: Custodian, service: PushService
) -> None:
    rail.connect(approval_mode=True)
    good = service.subscribe(rail.push_key())
    cases = {
        "subscription": "not an object",
        "subscription.endpoint": {**good, "endpoint": "ftp://example.com/push"},
        "subscription.keys.p256dh": {**good, "keys": {**good["keys"], "p256dh": "AAAA"}},
        "subscription.keys.auth": {**good, "keys": {**good["keys"], "auth": "x" * 40}},
    }
    for named, subscription in cases.items():
        refused = _subscribe(rail, subscription, code="000000")
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["field"] == named
    with rail.engine.connect() as db:
        acts = db.execute(text("SELECT why FROM decisions WHERE kind = 'person_act'")).all()
    assert not any("push_subscribe" in row.why for row in acts)


def test_the_rails_vapid_private_key_is_stored_only_sealed(rail: Custodian) -> None:
    public = rail.push_key()
    with rail.engine.connect() as db:
        [row] = db.execute(select(push_keys)).all()
    assert row.public_key == public
    assert row.private_sealed.startswith("v2.") and row.kek_id
    assert MASTER not in row.private_sealed

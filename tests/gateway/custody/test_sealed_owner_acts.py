"""The owner's desk in sealed custody (a hosted rail): a held order is carried on by the guard
of the connection that filed it, whichever identity it filed under, and only with the code the
person who owns that connection enrolled on the consent flow — never the operator's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import anyio
import httpx2
import pytest
from custody_kit import MASTER, Custodian, custodian
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE, channel_act
from sqlalchemy import text

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret
from ordergate.gateway.desk import DeskError, owner_desk, policy_baseline
from ordergate.gateway.oauth import GatewayStore
from ordergate.ledger import open_ledger
from ordergate.owner import ENROLMENT_FILE, OwnerAuthority
from ordergate.profiles import load_profiles
from ordergate.runtime import Settings

HELD = 'approval = "always"\n[symbols]\nallow = ["SPY"]\n'
BUY = {
    "symbol": "SPY",
    "side": "buy",
    "type": "market",
    "dollar_amount": "5",
}


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD) as served:
        yield served


def _place(url: str, token: str) -> dict[str, object]:
    session = McpSession(url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        order = {**BUY, "account_number": account}
        data: dict[str, object] = session.tool("place_equity_order", order)["data"]
    finally:
        session.close()
    assert data["status"] == "pending_approval", data
    return data


def _approve(home: Path, approval_id: object, code: str | None) -> httpx2.Response:
    return channel_act(home, "approve", {"approval_id": str(approval_id)}, code)


def _person_acts(served: Custodian) -> list[dict[str, object]]:
    with served.engine.connect() as db:
        rows = db.execute(
            text("SELECT identity, why, detail FROM decisions WHERE kind = 'person_act'")
        )
        return [
            {"identity": row.identity, "why": row.why, "detail": json.loads(row.detail)}
            for row in rows
        ]


@pytest.mark.req("owner.act.approve")
@pytest.mark.req("rail.person.operator-refused")
def test_a_held_order_of_a_sealed_connection_is_placed_on_its_own_session_with_the_persons_code(
    held: Custodian,
) -> None:
    data = _place(held.url, held.connect())
    [secret] = held.secrets
    assert _approve(held.home, data["approval_id"], None).status_code == 401
    operator = _approve(held.home, data["approval_id"], PASSPHRASE)
    assert operator.status_code == 403, operator.text
    assert operator.json()["error"]["code"] == "person_code_wrong"
    approved = _approve(held.home, data["approval_id"], held.person_code(secret))
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "submitted" and approved.json()["mode"] == "paper"
    assert held.settled(data["filing_id"]) == "filled"
    outcomes = [entry["why"] for entry in _person_acts(held)]
    assert outcomes[-3:] == [
        "person act approve refused (person_code_required)",
        "person act approve refused (person_code_wrong)",
        "person act approve authorised",
    ]


def test_the_persons_code_is_spent_once(held: Custodian) -> None:
    token = held.connect()
    [secret] = held.secrets
    first = _place(held.url, token)
    held.clock.advance(timedelta(seconds=31))  # not a duplicate of the first
    second = _place(held.url, token)
    code = held.person_code(secret)
    assert _approve(held.home, first["approval_id"], code).status_code == 200
    replayed = _approve(held.home, second["approval_id"], code)
    assert replayed.status_code == 403, replayed.text
    assert replayed.json()["error"]["code"] == "person_code_replayed"


def test_two_people_on_one_rail_each_approve_only_their_own_held_orders_with_their_own_code(
    held: Custodian,
) -> None:
    alice_token, bob_token = held.connect(), held.connect()
    alice_secret, bob_secret = held.secrets
    alice = _place(held.url, alice_token)
    held.clock.advance(timedelta(seconds=31))
    bob = _place(held.url, bob_token)
    for approval, other_secret in (
        (alice["approval_id"], bob_secret),
        (bob["approval_id"], alice_secret),
    ):
        crossed = _approve(held.home, approval, held.person_code(other_secret))
        assert crossed.status_code == 403, crossed.text
        assert crossed.json()["error"]["code"] == "person_code_wrong"
        operator = _approve(held.home, approval, PASSPHRASE)
        assert operator.status_code == 403, operator.text
    for approval, secret in (
        (alice["approval_id"], alice_secret),
        (bob["approval_id"], bob_secret),
    ):
        approved = _approve(held.home, approval, held.person_code(secret))
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "submitted"
    held.settle()
    for filed in (alice, bob):
        assert held.status(filed["filing_id"]) == "filled"
    refused = [entry for entry in _person_acts(held) if "refused" in str(entry["why"])]
    assert len(refused) == 4
    assert len({entry["identity"] for entry in refused}) == 2


def test_a_held_order_of_a_caller_bound_to_a_sealed_connection_is_placed_on_that_session(
    held: Custodian,
) -> None:
    held.connect()
    [secret] = held.secrets
    [row] = held.rows()
    token = mint(
        CallerKey.derive(Secret(MASTER)),
        caller="nightly",
        profile="trader",
        ttl=timedelta(minutes=15),
        now=held.clock.now(),
        connection=row["id"],
    ).reveal()
    data = _place(held.url, token)
    assert _approve(held.home, data["approval_id"], PASSPHRASE).status_code == 403
    approved = _approve(held.home, data["approval_id"], held.person_code(secret))
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "submitted"
    assert held.settled(data["filing_id"]) == "filled"


def test_a_desk_on_the_ledger_without_the_rail_refuses_a_persons_approval_journalled(
    held: Custodian,
) -> None:
    data = _place(held.url, held.connect())
    hour = timedelta(hours=1)
    settings = Settings.resolve()
    with open_ledger(str(held.engine.url), clock=held.clock) as ledger:
        store = GatewayStore(
            ledger.engine, clock=held.clock, access_ttl=hour, refresh_ttl=hour, code_ttl=hour,
            consent_ttl=hour,
        )  # fmt: skip
        desk = owner_desk(
            settings,
            authority=OwnerAuthority(enrolment_path=held.home / ENROLMENT_FILE, ledger=ledger),
            ledger=ledger,
            store=store,
            guard_for=None,  # type: ignore[arg-type]  # never reached: refused before
            mode="ledger",
            profiles=load_profiles(held.home, policy_baseline(ledger)[0]),
            caller_key=None,
            clock=held.clock,
        )
        with pytest.raises(DeskError) as refused:
            anyio.run(desk.approve, str(data["approval_id"]), PASSPHRASE)
    assert refused.value.status == 403 and refused.value.code == "person_codes_unavailable"
    assert _person_acts(held)[-1]["why"] == "person act approve refused (person_codes_unavailable)"

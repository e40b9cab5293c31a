"""Approval mode on a hosted rail: a new connection holds every order for the person who owns
it, whatever the rail's policy says, until that person — and only that person, with their own
code — turns it off; the operator's code turns nothing off."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest
from custody_kit import BOUND_S, Custodian, custodian
from owner_testkit import PASSPHRASE, channel_act, owner_channel
from person_console_kit import PersonConsole
from sqlalchemy import text

BUY = {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5"}


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    # The rail's policy approves nothing by itself (approval = "never").
    with custodian(tmp_path, monkeypatch) as served:
        yield served


def _place(served: Custodian, token: str) -> dict[str, object]:
    return served.place(token, BUY)


def _person_acts(served: Custodian) -> list[str]:
    with served.engine.connect() as db:
        rows = db.execute(text("SELECT why, detail FROM decisions WHERE kind = 'person_act'"))
        return [row.why for row in rows if "approval_mode" in json.loads(row.detail)["act"]]


@pytest.mark.req("gateway.rail.approval-default")
def test_a_new_hosted_connection_holds_every_order_for_its_person_whatever_the_rails_policy(
    rail: Custodian,
) -> None:
    token = rail.connect(approval_mode=True)
    [row] = rail.rows()
    assert row["approval_mode"] in (True, 1)
    held = _place(rail, token)
    assert held["status"] == "pending_approval", held
    approved = channel_act(
        rail.home,
        "approve",
        {"approval_id": str(held["approval_id"])},
        rail.person_code(rail.secrets[0]),
    )
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "submitted"
    assert rail.settled(held["filing_id"]) == "filled"


@pytest.mark.req("gateway.rail.approval-mode-person")
def test_the_person_turns_approval_mode_off_with_their_own_code_and_orders_then_go_through(
    rail: Custodian,
) -> None:
    token = rail.connect(approval_mode=True)
    turned = rail.set_approval_mode(0, on=False)
    assert turned.status_code == 200, turned.text
    assert turned.json() == {"approval_mode": False, "changed": True}
    placed = _place(rail, token)
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    back_on = rail.set_approval_mode(0, on=True)
    assert back_on.json() == {"approval_mode": True, "changed": True}
    assert _place(rail, token)["status"] == "pending_approval"
    assert _person_acts(rail) == [
        "person act approval_mode_off authorised",
        "person act approval_mode_on authorised",
    ]


@pytest.mark.req("gateway.rail.approval-mode-person")
def test_the_operators_code_or_another_persons_does_not_turn_approval_mode_off(
    rail: Custodian,
) -> None:
    alice = rail.connect(approval_mode=True)
    rail.connect(approval_mode=True)
    bob_code = rail.person_code(rail.secrets[1])
    for code in (PASSPHRASE, bob_code):
        refused = rail.set_approval_mode(0, on=False, code=code)
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "person_code_wrong"
        assert refused.json()["error"]["field"] == "person_code"
    missing = rail.set_approval_mode(0, on=False, code="")
    assert missing.status_code == 401
    assert _place(rail, alice)["status"] == "pending_approval"
    assert _person_acts(rail) == [
        "person act approval_mode_off refused (person_code_wrong)",
        "person act approval_mode_off refused (person_code_wrong)",
        "person act approval_mode_off refused (person_code_required)",
    ]


def test_a_person_request_not_json_or_naming_no_connection_is_refused_naming_the_field(
    rail: Custodian,
) -> None:
    rail.connect(approval_mode=True)
    route = rail.url + "/person/approval-mode"
    with httpx2.Client(timeout=BOUND_S) as http:
        form = http.post(route, data={"connection": "x", "approval_mode": "false"})
        assert form.status_code == 415
        bad = http.post(route, json={"connection": "../etc", "approval_mode": False})
        assert bad.status_code == 400
        assert bad.json()["error"]["field"] == "connection"
        unknown = http.post(route, json={"connection": "0" * 32, "approval_mode": False})
        assert unknown.status_code == 404
        assert unknown.json()["error"]["field"] == "connection"
    not_bool = rail.set_approval_mode(0, on="no")
    assert not_bool.status_code == 400
    assert not_bool.json()["error"]["field"] == "approval_mode"
    [row] = rail.rows()
    assert row["approval_mode"] in (True, 1)


def _later(rail: Custodian, token: str) -> dict[str, object]:
    """The buy placed past the duplicate window of the one before."""
    rail.clock.advance(timedelta(seconds=31))
    return _place(rail, token)


def _operator_sets(rail: Custodian, connection_id: str, on: object) -> httpx2.Response:
    with owner_channel(rail.home) as http:
        return http.post(
            f"/owner/connections/{connection_id}/approval-mode", json={"approval_mode": on}
        )


@pytest.mark.req("rail.operator.approval-mode-on")
def test_the_operator_turns_a_connections_approval_mode_on_without_consent_but_never_off(
    rail: Custodian,
) -> None:
    token = rail.connect()  # its person turned approval mode off
    [connection_id] = rail.connection_ids
    placed = _later(rail, token)
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    turned = _operator_sets(rail, connection_id, True)
    assert turned.status_code == 200, turned.text
    assert turned.json() == {
        "connection_id": connection_id, "approval_mode": True, "changed": True
    }  # fmt: skip
    assert _later(rail, token)["status"] == "pending_approval"
    off = _operator_sets(rail, connection_id, False)
    assert off.status_code == 403, off.text
    assert off.json()["error"]["code"] == "approval_mode_off_person_only"
    assert _later(rail, token)["status"] == "pending_approval"
    assert _operator_sets(rail, "no-such-connection", True).status_code == 404
    assert _operator_sets(rail, connection_id, "yes").status_code == 400
    assert rail.set_approval_mode(0, on=False).status_code == 200
    placed = _later(rail, token)
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    assert _person_acts(rail) == [
        "person act approval_mode_off authorised",
        "person act approval_mode_off refused (person_act_operator_refused)",
        "person act approval_mode_off authorised",
    ]
    with rail.engine.connect() as db:
        operator = db.execute(text("SELECT why FROM decisions WHERE kind = 'approval_mode'"))
        assert list(operator.scalars()) == ["the operator turned a connection's approval mode on"]


@pytest.mark.req("rail.operator.approval-mode-on")
def test_the_operator_holds_a_persons_orders_from_the_command_line_and_cannot_release_them(
    rail: Custodian,
) -> None:
    token = rail.connect()
    [connection_id] = rail.connection_ids
    held = rail.command("connections", "approval-mode", connection_id, "on")
    assert held.exit_code == 0, held.output
    assert "is now in approval mode" in held.stdout
    again = rail.command("connections", "approval-mode", connection_id, "on")
    assert again.exit_code == 0 and "was already in approval mode" in again.stdout
    off = rail.command("connections", "approval-mode", connection_id, "off")
    assert off.exit_code == 2 and "approval_mode_off_person_only" in off.stderr
    assert _later(rail, token)["status"] == "pending_approval"


@pytest.mark.req("rail.operator.approval-mode-on")
def test_the_operator_holds_a_persons_orders_from_the_consoles_connections_page(
    rail: Custodian,
) -> None:
    token = rail.connect()
    [connection_id] = rail.connection_ids
    operator = PersonConsole(rail)
    try:
        operator.sign_in_operator(PASSPHRASE)
        page = operator.get("/connections")
        action = f"/console/connections/{connection_id}/approval-mode"
        assert page.status_code == 200 and action in page.text
        csrf = operator.csrf("/connections")
        held = operator.http.post(action, data={"csrf": csrf}, headers={"origin": operator.base})
        assert held.status_code == 303, held.text
    finally:
        operator.close()
    [row] = rail.rows()
    assert row["approval_mode"] in (True, 1)
    assert _later(rail, token)["status"] == "pending_approval"

"""An option exercise on a person's connection (a hosted rail in live mode over the sandbox):
filed and held like every exercise, and authorized only by the person's own code — the
operator's code is refused, journalled."""

from __future__ import annotations

import json
from typing import Any

import pytest
from custody_kit import Custodian
from mcp_http_testkit import ask_exercise
from owner_testkit import PASSPHRASE, channel_act, owner_channel
from sqlalchemy import text


def _approve(served: Custodian, approval_id: object, code: str | None) -> Any:
    return channel_act(served.home, "approve", {"approval_id": str(approval_id)}, code)


def _person_acts(served: Custodian) -> list[str]:
    with served.engine.connect() as db:
        rows = db.execute(
            text("SELECT why, detail FROM decisions WHERE kind = 'person_act' ORDER BY seq")
        )
        return [f"{row.why} {json.loads(row.detail).get('credential', '')}".strip() for row in rows]


@pytest.mark.req("rail.person.operator-refused")
def test_the_operators_code_is_refused_on_a_persons_exercise_journalled(live: Custodian) -> None:
    token = live.connect(profile="optiontrader")
    [secret] = live.secrets
    held, _ = ask_exercise(live.url, token)
    assert held["status"] == "pending_approval", held
    operator = _approve(live, held["approval_id"], PASSPHRASE)
    assert operator.status_code == 403, operator.text
    assert operator.json()["error"]["code"] == "person_code_wrong"
    assert _person_acts(live)[-1] == "person act approve refused (person_code_wrong) person_totp"
    with owner_channel(live.home) as http:
        waiting = http.get("/owner/approvals").json()["approvals"]
    assert [row["approval_id"] for row in waiting] == [held["approval_id"]]  # nothing sent
    approved = _approve(live, held["approval_id"], live.person_code(secret))
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] in {"filled", "rejected"}  # sent: the venue answered
    assert _person_acts(live)[-1] == "person act approve authorised person_totp"


def _pause(served: Custodian) -> None:
    [row] = served.rows()
    with owner_channel(served.home) as http:
        paused = http.post("/owner/pause", json={"reason": "check", "connection_id": row["id"]})
    assert paused.status_code == 200, paused.text


def test_an_exercise_asked_on_a_paused_connection_is_filed_refused_paused(
    live: Custodian,
) -> None:
    token = live.connect(profile="optiontrader")
    _pause(live)
    refused, _ = ask_exercise(live.url, token)
    assert refused["status"] == "refused" and refused["reasons"] == ["paused"], refused


def test_an_exercise_approved_after_its_connection_was_paused_is_not_sent(
    live: Custodian,
) -> None:
    token = live.connect(profile="optiontrader")
    [secret] = live.secrets
    held, _ = ask_exercise(live.url, token)
    _pause(live)
    approved = _approve(live, held["approval_id"], live.person_code(secret))
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "refused" and approved.json()["reasons"] == ["paused"]


def test_an_exercise_held_for_the_person_does_not_stop_the_accounts_orders(
    live: Custodian,
) -> None:
    token = live.connect(profile="optiontrader")
    held, _ = ask_exercise(live.url, token)
    assert held["status"] == "pending_approval", held
    data = live.place(
        token, {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5"}
    )
    assert data["status"] in {"submitted", "filled"}, data

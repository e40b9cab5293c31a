"""A pause of one connection on a hosted rail: the operator tightens any connection without
anyone's consent, the guard refuses that connection's orders alone, and only the person's own
code resumes it — the operator's code is refused, journalled."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from custody_kit import Custodian, custodian
from mcp_http_testkit import McpSession
from owner_testkit import PASSPHRASE, channel_act, owner_channel
from sqlalchemy import text

HELD = 'approval = "always"\n[symbols]\nallow = ["SPY"]\n'
BUY = {"symbol": "SPY", "side": "buy", "type": "market", "dollar_amount": "5"}


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch) as served:
        yield served


@pytest.fixture
def held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD) as served:
        yield served


def _place(served: Custodian, token: str) -> dict[str, Any]:
    session = McpSession(served.url, token)
    try:
        accounts = session.tool("get_accounts", {})["data"]["accounts"]
        account = next(row for row in accounts if row["agentic_allowed"])["account_number"]
        answer = session.call("place_equity_order", {**BUY, "account_number": account})
    finally:
        session.close()
    served.clock.advance(timedelta(seconds=31))  # the next order is no duplicate of this one
    return dict(answer["structuredContent"])


def _pause(served: Custodian, connection_id: str) -> httpx2.Response:
    with owner_channel(served.home) as http:
        return http.post(
            "/owner/pause", json={"reason": "operator check", "connection_id": connection_id}
        )


def _resume(served: Custodian, connection_id: str, code: str | None) -> httpx2.Response:
    return channel_act(served.home, "resume", {"connection_id": connection_id}, code)


def _ids(served: Custodian) -> list[str]:
    """The connections' ids, in the order they were connected."""
    rows = sorted(served.rows(), key=lambda row: str(row["created_at"]))
    return [str(row["id"]) for row in rows if row["state"] == "live"]


def _journal(served: Custodian, kind: str) -> list[dict[str, Any]]:
    with served.engine.connect() as db:
        rows = db.execute(
            text("SELECT identity, why, detail FROM decisions WHERE kind = :kind ORDER BY seq"),
            {"kind": kind},
        )
        return [
            {"identity": row.identity, "why": row.why, "detail": json.loads(row.detail)}
            for row in rows
        ]


@pytest.mark.req("rail.connection.pause")
def test_the_operator_pauses_one_connection_without_consent_and_only_its_orders_are_refused(
    rail: Custodian,
) -> None:
    alice_token, bob_token = rail.connect(), rail.connect()
    alice, _ = _ids(rail)
    paused = _pause(rail, alice)
    assert paused.status_code == 200, paused.text
    assert paused.json()["paused"] is True and paused.json()["changed"] is True
    assert _pause(rail, alice).json()["changed"] is False
    refused = _place(rail, alice_token)["data"]
    assert refused["status"] == "refused" and "paused" in refused["reasons"], refused
    placed = _place(rail, bob_token)["data"]
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    [entry] = _journal(rail, "connection_pause")
    assert entry["identity"] == "unverified" and entry["why"] == "operator check"
    assert entry["detail"] == {"connection": hashlib.sha256(alice.encode()).hexdigest()[:32]}


def test_pausing_a_connection_that_does_not_exist_is_refused_unknown_connection(
    rail: Custodian,
) -> None:
    answer = _pause(rail, "f" * 32)
    assert answer.status_code == 404, answer.text
    assert answer.json()["error"]["code"] == "unknown_connection"


@pytest.mark.req("rail.person.operator-refused")
def test_the_operators_code_is_refused_on_a_persons_resume_journalled(rail: Custodian) -> None:
    token = rail.connect()
    [secret] = rail.secrets
    [connection] = _ids(rail)
    assert _pause(rail, connection).status_code == 200
    operator = _resume(rail, connection, PASSPHRASE)
    assert operator.status_code == 403, operator.text
    assert operator.json()["error"]["code"] == "person_code_wrong"
    missing = _resume(rail, connection, None)
    assert missing.status_code == 401, missing.text
    assert _place(rail, token)["data"]["status"] == "refused"
    resumed = _resume(rail, connection, rail.person_code(secret))
    assert resumed.status_code == 200, resumed.text
    assert resumed.json()["changed"] is True and resumed.json()["paused"] is False
    placed = _place(rail, token)["data"]
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"
    acts = [entry["why"] for entry in _journal(rail, "person_act")]
    assert acts[-3:] == [
        "person act resume refused (person_code_wrong)",
        "person act resume refused (person_code_required)",
        "person act resume authorised",
    ]
    [resume] = _journal(rail, "connection_resume")
    assert resume["identity"].startswith("conn:")


def test_one_persons_code_does_not_resume_anothers_connection(rail: Custodian) -> None:
    rail.connect(), rail.connect()
    alice_secret, _ = rail.secrets
    _, bob = _ids(rail)
    assert _pause(rail, bob).status_code == 200
    crossed = _resume(rail, bob, rail.person_code(alice_secret))
    assert crossed.status_code == 403, crossed.text
    assert crossed.json()["error"]["code"] == "person_code_wrong"


def test_the_rail_wide_resume_does_not_lift_a_connections_pause(rail: Custodian) -> None:
    token = rail.connect()
    [connection] = _ids(rail)
    assert _pause(rail, connection).status_code == 200
    with owner_channel(rail.home) as http:
        assert http.post("/owner/pause", json={"reason": "rail"}).status_code == 200
    assert rail.codes is not None
    assert channel_act(rail.home, "resume", {}, PASSPHRASE).status_code == 200
    assert _place(rail, token)["data"]["status"] == "refused"


def test_a_held_order_of_a_paused_connection_is_refused_at_its_review_after_approval(
    held: Custodian,
) -> None:
    token = held.connect()
    [secret] = held.secrets
    [connection] = _ids(held)
    data = _place(held, token)["data"]
    assert data["status"] == "pending_approval", data
    assert _pause(held, connection).status_code == 200
    approved = channel_act(
        held.home, "approve", {"approval_id": data["approval_id"]}, held.person_code(secret)
    )
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "refused" and "paused" in approved.json()["reasons"]


def test_a_connection_is_paused_and_resumed_with_its_persons_code_from_the_command_line(
    rail: Custodian,
) -> None:
    token = rail.connect()
    [secret] = rail.secrets
    [connection] = _ids(rail)
    paused = rail.command("pause", "--connection", connection, "--reason", "check")
    assert paused.exit_code == 0, paused.output
    assert _place(rail, token)["data"]["status"] == "refused"
    operator = rail.command("resume", "--connection", connection, code=PASSPHRASE)
    assert operator.exit_code == 5 and "person_code_wrong" in operator.stderr
    resumed = rail.command("resume", "--connection", connection, code=rail.person_code(secret))
    assert resumed.exit_code == 0, resumed.output
    placed = _place(rail, token)["data"]
    assert placed["status"] == "submitted", placed
    assert rail.settled(placed["filing_id"]) == "filled"

"""What a person does on their console, and every passkey refused there, is on the journal:
a person's deny under their connection's identity (the approval keeps who denied it), a
passkey registered nowhere under no connection, another connection's passkey and a forged
assertion under the connection they were tried on — never the assertion itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from custody_kit import Custodian, custodian
from passkey_testkit import SoftPasskey
from person_console_kit import HELD, PersonConsole, connect_with_passkey, localhost, place_held
from sqlalchemy import text

from ordergate.gateway._owner import identity_of


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD) as served:
        yield served


def _person_acts(rail: Custodian) -> list[dict[str, Any]]:
    with rail.engine.connect() as db:
        rows = db.execute(
            text(
                "SELECT identity, why, detail FROM decisions WHERE kind = 'person_act' ORDER BY seq"
            )
        )
        return [
            {"identity": row.identity, "why": row.why, **json.loads(row.detail)} for row in rows
        ]


@pytest.mark.req("rail.person.journal")
def test_a_persons_deny_on_their_console_is_journalled_under_their_connection(
    rail: Custodian, browser: PersonConsole
) -> None:
    passkey, connection_id, token = connect_with_passkey(rail)
    approval_id = str(place_held(rail.url, token)["approval_id"])
    assert browser.sign_in(passkey).status_code == 200
    denied = browser.http.post(
        f"/console/mine/approvals/{approval_id}/deny",
        data={"csrf": browser.csrf("/mine")},
        headers={"origin": browser.base},
    )
    assert denied.status_code == 200, denied.text
    [deny] = [act for act in _person_acts(rail) if act["act"] == "deny"]
    assert deny["identity"] == identity_of(connection_id)
    assert deny["why"] == "person act deny authorised"
    assert deny["credential"] == "person_console"
    assert deny["detail"] == {"approval_id": approval_id, "status": "denied"}
    with rail.engine.connect() as db:
        by = db.execute(
            text("SELECT decided_by FROM approvals WHERE id = :id"), {"id": approval_id}
        ).scalar()
    assert by == identity_of(connection_id)


@pytest.mark.req("rail.person.journal")
def test_a_passkey_registered_nowhere_is_refused_journalled_under_no_connection(
    rail: Custodian, browser: PersonConsole
) -> None:
    connect_with_passkey(rail)
    stranger = SoftPasskey(localhost(rail))
    refused = browser.sign_in(stranger)
    assert refused.status_code == 403, refused.text
    [entry] = [act for act in _person_acts(rail) if act["outcome"] == "refused"]
    assert entry["identity"] == "unverified"
    assert entry["why"] == "person act console_sign_in refused (person_passkey_unknown)"
    assert entry["credential"] == "person_passkey"
    assert len(entry["detail"]["credential_sha256"]) == 64
    assert "signature" not in json.dumps(entry)


@pytest.mark.req("rail.person.journal")
def test_another_connections_passkey_or_a_forged_assertion_is_refused_journalled_on_the_connection(
    rail: Custodian, browser: PersonConsole
) -> None:
    alice_key, alice_id, alice_token = connect_with_passkey(rail)
    bob_key, _, _ = connect_with_passkey(rail)
    approval_id = str(place_held(rail.url, alice_token)["approval_id"])
    assert browser.sign_in(alice_key).status_code == 200
    csrf = browser.csrf("/mine")
    asked = {"purpose": "approve", "approval_id": approval_id}
    for assertion in (
        lambda options: bob_key.get(options),
        lambda options: alice_key.get(options, key=ec.generate_private_key(ec.SECP256R1())),
    ):
        options = browser.post_json("/mine/passkey/options", asked, csrf)
        assert options.status_code == 200, options.text
        approved = browser.post_json(
            f"/mine/approvals/{approval_id}/approve", assertion(options.json()), csrf
        )
        assert approved.status_code == 403, approved.text
    refused = [act for act in _person_acts(rail) if act["outcome"] == "refused"]
    assert [(act["identity"], act["why"]) for act in refused] == [
        (identity_of(alice_id), "person act approve refused (person_passkey_other_connection)"),
        (identity_of(alice_id), "person act approve refused (person_passkey_refused)"),
    ]
    assert all(act["detail"]["approval_id"] == approval_id for act in refused)
    assert browser.approve_with_passkey(alice_key, approval_id)[0] == 200

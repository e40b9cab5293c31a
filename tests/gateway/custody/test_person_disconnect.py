"""A person disconnects their own connection on a hosted rail with their own code: its tokens
stop, its sealed session, code and data key are erased, and the answer names where to revoke
the grant at Robinhood too. The operator's code disconnects nothing; the operator's revoke,
which only takes access away, needs no one's code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from custody_kit import Custodian, custodian
from owner_testkit import PASSPHRASE, channel_act, owner_channel
from sqlalchemy import text


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch) as served:
        yield served


def _disconnect(served: Custodian, connection_id: str, code: str | None) -> httpx2.Response:
    return channel_act(served.home, "disconnect", {"connection_id": connection_id}, code)


def _reads(served: Custodian, token: str) -> int:
    """The HTTP status of a read through the gateway with ``token``."""
    with httpx2.Client(timeout=30) as http:
        answer = http.post(
            served.url + "/mcp",
            headers={
                "authorization": f"Bearer {token}",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-06-18",
            },
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        )
    return answer.status_code


@pytest.mark.req("rail.person.disconnect")
def test_a_person_disconnects_their_connection_with_their_code_and_its_data_key_is_erased(
    rail: Custodian,
) -> None:
    token = rail.connect()
    [secret] = rail.secrets
    [row] = rail.rows()
    assert _reads(rail, token) == 200
    answer = _disconnect(rail, row["id"], rail.person_code(secret))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["disconnected"] is True
    assert body["revoke_at_upstream"].startswith("https://robinhood.com/")
    [erased] = rail.rows()
    assert erased["state"] == "erased"
    assert erased["data_key_wrapped"] is None and erased["upstream_sealed"] is None
    assert erased["person_totp_sealed"] is None
    assert _reads(rail, token) == 401


@pytest.mark.req("rail.person.operator-refused")
def test_the_operators_code_is_refused_on_a_persons_disconnect_journalled(
    rail: Custodian,
) -> None:
    rail.connect()
    [row] = rail.rows()
    operator = _disconnect(rail, row["id"], PASSPHRASE)
    assert operator.status_code == 403, operator.text
    assert operator.json()["error"]["code"] == "person_code_wrong"
    assert [live["state"] for live in rail.rows()] == ["live"]
    with rail.engine.connect() as db:
        why = db.execute(
            text("SELECT why, detail FROM decisions WHERE kind = 'person_act' ORDER BY seq")
        ).all()[-1]
    assert why.why == "person act disconnect refused (person_code_wrong)"
    assert json.loads(why.detail)["detail"]["connection"]


def test_the_operator_revokes_a_persons_connection_without_any_code(rail: Custodian) -> None:
    token = rail.connect()
    [row] = rail.rows()
    with owner_channel(rail.home) as http:
        revoked = http.post(f"/owner/connections/{row['id']}/revoke", json={})
    assert revoked.status_code == 200, revoked.text
    assert revoked.json()["revoked"] is True
    [erased] = rail.rows()
    assert erased["state"] == "erased" and erased["data_key_wrapped"] is None
    assert _reads(rail, token) == 401


def test_disconnecting_a_connection_that_does_not_exist_is_refused_unknown_connection(
    rail: Custodian,
) -> None:
    answer = _disconnect(rail, "f" * 32, "123456")
    assert answer.status_code == 404, answer.text
    assert answer.json()["error"]["code"] == "unknown_connection"

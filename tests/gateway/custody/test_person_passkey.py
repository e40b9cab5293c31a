"""A hosted rail's person registers a passkey for their own connection on the page the upstream
sign-in ends on (a software authenticator; ``py_webauthn`` verifies it), then signs in with it
to the console of that connection only; the passkey is sealed under the connection's data key
and shredded with it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from custody_kit import Custodian, custodian
from oauth_testkit import challenge_of, new_verifier, person_enrolment
from owner_testkit import PASSPHRASE
from passkey_testkit import SoftPasskey
from person_console_kit import KEY, PersonConsole, connect_with_passkey, localhost

from ordergate.gateway.console import COOKIE


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch) as served:
        yield served


def _enrolment_page(rail: Custodian, person: httpx2.Client) -> httpx2.Response:
    to_upstream = rail.approve(person, rail.register(), challenge_of(new_verifier()))
    assert to_upstream.status_code == 302, to_upstream.text
    callback = rail.sign_in_upstream(person, to_upstream.headers["location"])
    page = person.get(callback)
    assert page.status_code == 200, page.text
    return page


def _step(person: httpx2.Client, rail: Custodian, body: dict[str, Any]) -> httpx2.Response:
    return person.post(rail.url + "/oauth/callback", json=body)


@pytest.mark.req("rail.person.passkey")
def test_a_passkey_registered_on_the_consent_flow_signs_its_person_in_to_their_connection_only(
    rail: Custodian, browser: PersonConsole
) -> None:
    passkey, connection_id, _ = connect_with_passkey(rail)
    [row] = rail.rows()
    assert row["person_passkey_sealed"].startswith("v2.")
    assert passkey.credential_id.hex() not in str(row)
    assert browser.get("/sign-in").text.count('data-passkey="person_sign_in"') == 1
    signed = browser.sign_in(passkey)
    assert signed.status_code == 200, signed.text
    assert signed.json()["next"] == "/console/mine"
    mine = browser.get("/mine")
    assert mine.status_code == 200, mine.text
    assert f'data-connection="{connection_id}"' in mine.text
    for operators in ("/approvals", "/connections", "/filings", "/budget", "/passkeys"):
        assert browser.get(operators).status_code == 403, operators
    index = browser.get("")
    assert index.status_code == 303 and index.headers["location"] == "/console/mine"


@pytest.mark.req("rail.person.passkey")
def test_the_operators_session_opens_no_persons_console(
    rail: Custodian, browser: PersonConsole
) -> None:
    connect_with_passkey(rail)
    csrf = browser.csrf()
    signed = browser.http.post(
        "/console/sign-in",
        data={"csrf": csrf, "owner_code": PASSPHRASE},
        headers={"origin": browser.base},
    )
    found = KEY.search(signed.text)
    assert signed.status_code == 200 and found is not None, signed.text
    browser.http.headers["x-console-key"] = found.group(1)
    assert browser.get("/approvals").status_code == 200
    assert browser.get("/mine").status_code == 403


@pytest.mark.req("rail.person.passkey")
def test_a_passkey_step_from_another_browser_altered_or_twice_is_refused(
    rail: Custodian,
) -> None:
    passkey = SoftPasskey(localhost(rail))
    with rail.browser() as person:
        page = _enrolment_page(rail, person)
        assert 'id="passkey-enrol"' in page.text and 'id="connection-id"' in page.text
        assert "script-src 'nonce-" in page.headers["content-security-policy"]
        form, _ = person_enrolment(page.text, rail.clock.now())
        with rail.browser() as other:
            elsewhere = _step(other, rail, {"step": "options", "enrolment": form["enrolment"]})
        assert elsewhere.status_code == 403, elsewhere.text
        altered = _step(person, rail, {"step": "options", "enrolment": form["enrolment"][:-4]})
        assert altered.status_code == 403, altered.text
        begun = _step(person, rail, {"step": "options", "enrolment": form["enrolment"]}).json()
        forged = passkey.create(begun["options"], origin="https://evil.example")
        refused = _step(
            person, rail, {"step": "register", "ceremony": begun["ceremony"], "credential": forged}
        )
        assert refused.status_code == 400, refused.text
        made = passkey.create(begun["options"])
        body = {"step": "register", "ceremony": begun["ceremony"], "credential": made}
        assert _step(person, rail, body).status_code == 200
        again = _step(person, rail, body)
        assert again.status_code == 400, again.text  # one passkey per connection
        unknown = _step(person, rail, {"step": "elsewhere"})
        assert unknown.status_code == 400


@pytest.mark.req("rail.person.passkey")
def test_an_erased_connection_shreds_its_passkey_and_ends_its_persons_session(
    rail: Custodian, browser: PersonConsole
) -> None:
    passkey, connection_id, _ = connect_with_passkey(rail)
    assert browser.sign_in(passkey).status_code == 200
    assert browser.get("/mine").status_code == 200
    from ordergate.gateway.oauth._connections import erase_connection
    from ordergate.store import write_transaction

    with write_transaction(rail.engine) as tx:
        assert erase_connection(tx, connection_id)
    [row] = rail.rows()
    assert row["person_passkey_sealed"] is None and row["person_passkey_sha256"] is None
    assert browser.get("/mine").status_code == 401
    browser.http.headers.pop("x-console-key")
    browser.http.cookies.clear()
    rail.clock.advance(timedelta(seconds=1))
    again = browser.sign_in(passkey)
    assert again.status_code == 403, again.text
    assert COOKIE in browser.http.cookies


@pytest.mark.req("rail.person.console")
def test_a_person_signs_in_to_their_console_with_their_connections_id_and_code(
    rail: Custodian, browser: PersonConsole
) -> None:
    _, alice_id, _ = connect_with_passkey(rail)
    _, bob_id, _ = connect_with_passkey(rail)
    alice_secret, _ = rail.secrets

    def code_sign_in(connection_id: str, code: str) -> int:
        browser.http.cookies.clear()
        form = {"csrf": browser.csrf(), "connection_id": connection_id, "person_code": code}
        signed = browser.http.post(
            "/console/person/code-sign-in", data=form, headers={"origin": browser.base}
        )
        found = KEY.search(signed.text)
        if signed.status_code == 200 and found is not None:
            browser.http.headers["x-console-key"] = found.group(1)
        return signed.status_code

    assert code_sign_in(bob_id, rail.person_code(alice_secret)) == 403
    assert code_sign_in(alice_id, PASSPHRASE) == 403
    assert code_sign_in("no-such-connection", rail.person_code(alice_secret)) == 403
    assert code_sign_in(alice_id, rail.person_code(alice_secret)) == 200
    mine = browser.get("/mine")
    assert mine.status_code == 200 and f'data-connection="{alice_id}"' in mine.text
    assert bob_id not in mine.text

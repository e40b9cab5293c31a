"""The console's passkeys: registered once with the owner code (a WebAuthn ceremony answered
by a software authenticator, verified by ``py_webauthn``), then a sign-in and a re-auth to
approve; a forged signature, a foreign origin and a replayed challenge are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_kit import Console, console
from cryptography.hazmat.primitives.asymmetric import ec
from passkey_testkit import SoftPasskey

from ordergate.gateway.console import COOKIE


def _register(c: Console, passkey: SoftPasskey) -> None:
    assert c.sign_in().status_code == 303
    csrf = c.csrf("/approvals")
    refused = c.post_json("/passkey/register/options", {}, csrf)
    assert refused.status_code == 401  # no owner code: registering is an owner act
    options = c.post_json("/passkey/register/options", {"owner_code": c.desk.codes.next()}, csrf)
    assert options.status_code == 200, options.text
    registered = c.post_json("/passkey/register", passkey.create(options.json()), csrf)
    assert registered.status_code == 200, registered.text


def _fresh_session_csrf(c: Console) -> str:
    c.http.cookies.clear()
    return c.csrf("/sign-in")


@pytest.mark.req("console.passkey")
def test_a_registered_passkey_signs_in_and_approves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        passkey = SoftPasskey(c.desk.url)
        _register(c, passkey)
        assert "passkey" in c.get("/passkeys").text
        csrf = _fresh_session_csrf(c)
        assert c.get("/approvals").status_code == 303
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        signed = c.post_json("/passkey/sign-in", passkey.get(options), csrf)
        assert signed.status_code == 200, signed.text
        assert signed.json()["next"] == "/console/approvals"
        assert c.get("/approvals").status_code == 200
        held = c.desk.held_order()
        csrf = c.csrf("/approvals")
        approve = f"/approvals/{held['approval_id']}/approve"
        unasked = c.post_json(approve, passkey.get(options), csrf)
        assert unasked.status_code == 403  # no challenge in flight: a replayed assertion
        other = c.desk.held_order()
        asked = {"purpose": "approve", "approval_id": other["approval_id"]}
        options = c.post_json("/passkey/options", asked, csrf).json()
        elsewhere = c.post_json(approve, passkey.get(options), csrf)
        assert elsewhere.status_code == 403  # the challenge was bound to another approval
        asked = {"purpose": "approve", "approval_id": held["approval_id"]}
        assert c.post_json("/passkey/options", {"purpose": "approve"}, csrf).status_code == 400
        options = c.post_json("/passkey/options", asked, csrf).json()
        approved = c.post_json(approve, passkey.get(options), csrf)
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "filled"
        acts = [
            e.detail for e in c.desk.ledger.journal.entries(limit=1000) if e.kind == "owner_act"
        ]
        approvals = [a for a in acts if a["act"] == "approve" and a["outcome"] == "authorised"]
        assert [a["credential"] for a in approvals] == ["passkey"]


@pytest.mark.req("console.passkey")
def test_a_forged_or_foreign_assertion_signs_nobody_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        passkey = SoftPasskey(c.desk.url)
        _register(c, passkey)
        csrf = _fresh_session_csrf(c)
        stranger = ec.generate_private_key(ec.SECP256R1())
        for kwargs in ({"key": stranger}, {"origin": "https://evil.example"}):
            options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
            refused = c.post_json("/passkey/sign-in", passkey.get(options, **kwargs), csrf)
            assert refused.status_code == 403, kwargs
        approve_first = c.post_json("/passkey/options", {"purpose": "approve"}, csrf)
        assert approve_first.status_code == 401
        unknown = SoftPasskey(c.desk.url)
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        assert c.post_json("/passkey/sign-in", unknown.get(options), csrf).status_code == 403
        assert c.get("/approvals").status_code == 303
        assert COOKIE in c.http.cookies

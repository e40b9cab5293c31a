"""The console's passkeys: registered once with the owner code (a WebAuthn ceremony answered
by a software authenticator, verified by ``py_webauthn``), then a sign-in and a re-auth to
approve; a forged signature, a foreign origin and a replayed challenge are refused."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from console_kit import Console, console
from cryptography.hazmat.primitives.asymmetric import ec
from passkey_testkit import SoftPasskey, b64url

from ordergate.gateway.console import COOKIE
from ordergate.gateway.console._passkeys import RelyingParty
from ordergate.owner import DEFAULT_LOOSEN_DELAY, Delays, DelaySettings


def _register(c: Console, passkey: SoftPasskey, *, wait: bool = True) -> dict[str, Any]:
    """Register ``passkey`` with the owner code; ``wait``: then let the owner's delay pass
    (and sign in again: the session idled out meanwhile)."""
    assert c.sign_in().status_code == 200
    csrf = c.csrf("/approvals")
    refused = c.post_json("/passkey/register/options", {}, csrf)
    assert refused.status_code == 401  # no owner code: registering is an owner act
    options = c.post_json("/passkey/register/options", {"owner_code": c.desk.codes.next()}, csrf)
    assert options.status_code == 200, options.text
    registered = c.post_json("/passkey/register", passkey.create(options.json()), csrf)
    assert registered.status_code == 200, registered.text
    answer: dict[str, Any] = registered.json()
    assert answer["registered"] is False and answer["delayed"]["act"] == "passkey_register"
    if wait:
        c.desk.pass_delay()
        c.forget()
        assert c.sign_in().status_code == 200
    return answer


def _fresh_session_csrf(c: Console) -> str:
    c.forget()
    return c.csrf("/sign-in")


@pytest.mark.req("console.passkey")
def test_a_registered_passkey_signs_in_and_approves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        passkey = SoftPasskey(c.base)
        _register(c, passkey)
        assert "passkey" in c.get("/passkeys").text
        csrf = _fresh_session_csrf(c)
        assert c.get("/approvals").status_code == 303
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        signed = c.post_json("/passkey/sign-in", passkey.get(options), csrf)
        assert signed.status_code == 200, signed.text
        assert signed.json()["next"] == "/console/approvals"
        assert c.get("/approvals").status_code == 401  # the cookie alone: not yet
        c.keep_key(signed)
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
        assert approved.json()["status"] == "submitted"
        assert c.desk.settled(held["filing_id"]) == "filled"
        acts = [
            e.detail for e in c.desk.ledger.journal.entries(limit=1000) if e.kind == "owner_act"
        ]
        approvals = [a for a in acts if a["act"] == "approve" and a["outcome"] == "authorised"]
        assert [a["credential"] for a in approvals] == ["passkey"]


@pytest.mark.req("console.passkey")
def test_a_forged_or_foreign_assertion_signs_nobody_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        passkey = SoftPasskey(c.base)
        _register(c, passkey)
        csrf = _fresh_session_csrf(c)
        stranger = ec.generate_private_key(ec.SECP256R1())
        for kwargs in ({"key": stranger}, {"origin": "https://evil.example"}):
            options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
            refused = c.post_json("/passkey/sign-in", passkey.get(options, **kwargs), csrf)
            assert refused.status_code == 403, kwargs
        approve_first = c.post_json("/passkey/options", {"purpose": "approve"}, csrf)
        assert approve_first.status_code == 401
        unknown = SoftPasskey(c.base)
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        assert c.post_json("/passkey/sign-in", unknown.get(options), csrf).status_code == 403
        assert c.get("/approvals").status_code == 303
        assert COOKIE in c.http.cookies


@pytest.mark.req("owner.passkey.delayed")
def test_a_software_passkey_signs_nobody_in_before_the_delay_and_is_announced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        passkey = SoftPasskey(c.base)
        registered = _register(c, passkey, wait=False)
        kinds = [e.kind for e in c.desk.ledger.journal.entries(limit=1000)]
        assert "owner_act_delayed" in kinds
        assert registered["delayed"]["id"] in c.get("/delayed").text
        csrf = _fresh_session_csrf(c)
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        early = c.post_json("/passkey/sign-in", passkey.get(options), csrf)
        assert early.status_code == 403
        c.desk.pass_delay()
        csrf = _fresh_session_csrf(c)
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        assert c.post_json("/passkey/sign-in", passkey.get(options), csrf).status_code == 200


@pytest.mark.req("owner.passkey.rp-not-ip")
def test_the_relying_party_is_never_an_ip_and_an_ip_origin_cannot_register(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert RelyingParty.for_url("http://127.0.0.1:8787") == RelyingParty(
        "localhost", "http://localhost:8787"
    )
    assert RelyingParty.for_url("http://[::1]:8787") is not None
    assert RelyingParty.for_url("http://192.168.1.5:8787") is None
    named = RelyingParty.for_url("https://gate.example.com")
    assert named is not None and named.rp_id == "gate.example.com"
    with console(tmp_path, monkeypatch) as c:  # opened at 127.0.0.1
        assert c.sign_in().status_code == 200
        page = c.get("/passkeys").text
        assert "http://localhost:" in page
        csrf = c.csrf("/passkeys")
        code = c.desk.codes.next()
        refused = c.post_json("/passkey/register/options", {"owner_code": code}, csrf)
        assert refused.status_code == 400
        acts = [e.detail for e in c.desk.ledger.journal.entries(limit=1000)]
        assert not [a for a in acts if a.get("act") == "passkey_register"]  # no code spent


@pytest.mark.req("owner.passkey.revocable")
def test_a_revoked_passkey_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        passkey = SoftPasskey(c.base)
        _register(c, passkey)
        page = c.get("/passkeys").text
        assert "last used" in page and "Revoke" in page
        csrf = c.csrf("/passkeys")
        credential_id = b64url(passkey.credential_id)
        revoked = c.post("/passkeys/revoke", {"csrf": csrf, "credential_id": credential_id})
        assert revoked.status_code == 303
        csrf = _fresh_session_csrf(c)
        options = c.post_json("/passkey/options", {"purpose": "sign_in"}, csrf).json()
        assert c.post_json("/passkey/sign-in", passkey.get(options), csrf).status_code == 403


@pytest.mark.req("owner.passkey.threshold-needs-code")
def test_a_passkey_approval_above_the_threshold_asks_for_the_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        passkey = SoftPasskey(c.base)
        _register(c, passkey)
        Delays(c.desk.ledger).ask(DelaySettings(DEFAULT_LOOSEN_DELAY, Decimal("1")))
        held = c.desk.held_order()  # $5, above $1
        csrf = c.csrf("/approvals")
        asked = {"purpose": "approve", "approval_id": held["approval_id"]}
        options = c.post_json("/passkey/options", asked, csrf).json()
        approve = f"/approvals/{held['approval_id']}/approve"
        refused = c.post_json(approve, passkey.get(options), csrf)
        assert refused.status_code == 401
        assert c.desk.ledger.approvals.get(held["approval_id"]).state.value == "pending"

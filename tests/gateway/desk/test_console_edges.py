"""The console's refusals at its edges: the wrong kind of body, no session, a ceremony out of
turn, a bad registration; and what it shows where no one guard trades (sealed custody)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from console_kit import console
from passkey_testkit import SoftPasskey

from ordergate.core import RealtimeClock
from ordergate.gateway.console._budget import account_reader, budget_reader
from ordergate.gateway.console._sessions import ConsoleSessions


@pytest.mark.req("console.csrf")
def test_bodies_of_the_wrong_kind_and_posts_without_a_session_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.post("/pause", {"csrf": "x"}).status_code == 401  # no session at all
        assert c.post_json("/passkey/options", {"purpose": "sign_in"}, "x").status_code == 403
        assert c.post_json("/passkey/sign-in", {}, "x").status_code == 403
        assert c.post("/sign-in", {"csrf": "x"}).status_code == 403
        csrf = c.csrf()
        json_sign_in = c.post_json("/sign-in", {"csrf": csrf}, csrf)
        assert json_sign_in.status_code == 415
        form_options = c.post("/passkey/options", {"purpose": "sign_in"}, **{"x-csrf-token": csrf})
        assert form_options.status_code == 415
        raw = {**c.origin, "x-csrf-token": csrf, "content-type": "application/json"}
        broken = c.http.post("/console/passkey/options", content=b"{", headers=raw)
        assert broken.status_code == 400 and broken.json()["error"]
        listed = c.http.post("/console/passkey/options", content=b"[]", headers=raw)
        assert listed.status_code == 400
        purpose = c.post_json("/passkey/options", {"purpose": "anything"}, csrf)
        assert purpose.status_code == 400
        assert c.sign_in().status_code == 200
        assert c.get("/sign-in").headers["location"] == "/console/approvals"
        assert c.get("").headers["location"] == "/console/approvals"


@pytest.mark.req("console.passkey")
def test_a_registration_out_of_turn_or_that_does_not_verify_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        passkey = SoftPasskey(c.base)
        assert c.sign_in().status_code == 200
        csrf = c.csrf("/passkeys")
        assert "No passkey yet" in c.get("/passkeys").text
        assert c.post_json("/passkey/register", {}, csrf).status_code == 403  # none in flight
        odd = c.post_json("/passkey/register/options", {"owner_code": 123456}, csrf)
        assert odd.status_code == 400
        options = c.post_json(
            "/passkey/register/options", {"owner_code": c.desk.codes.next()}, csrf
        ).json()
        foreign = passkey.create(options, origin="https://evil.example")
        refused = c.post_json("/passkey/register", foreign, csrf)
        assert refused.status_code == 400 and "not registered" in refused.json()["error"]
        assert "No passkey yet" in c.get("/passkeys").text
        asked = {"purpose": "approve", "approval_id": "an-approval"}
        options = c.post_json("/passkey/options", asked, csrf).json()
        assert options["challenge"]  # signed in: an approval may ask for a passkey
        nothing = c.post_json("/passkey/sign-in", {"rawId": 1}, csrf)
        assert nothing.status_code == 403


def test_where_no_one_guard_trades_the_budget_and_account_say_so() -> None:
    assert anyio.run(budget_reader(None)) is None
    assert anyio.run(account_reader(None)) is None


def test_a_console_session_shows_no_token_and_an_overlong_id_finds_nothing(
    tmp_path: Path,
) -> None:
    from ordergate.store import engine_for, migrate, normalise_url

    engine = engine_for(normalise_url(f"sqlite:///{tmp_path / 'console.db'}"))
    migrate(engine)
    sessions = ConsoleSessions(engine, clock=RealtimeClock())
    raw, key, session = sessions.sign_in(None)
    assert session.csrf not in repr(session) and raw not in repr(session)
    assert key not in repr(session)
    assert sessions.find("x" * 200, key) is None
    assert sessions.find(raw, key) == session
    assert sessions.find(raw, "x" * 200) == replace(session, bound=False)
    engine.dispose()


def test_an_oversized_or_malformed_credential_and_odd_redirects_are_handled(
    tmp_path: Path,
) -> None:
    from ordergate.gateway.console._passkeys import PasskeyError, Passkeys, RelyingParty
    from ordergate.gateway.desk._connections import _hosts
    from ordergate.store import engine_for, migrate, normalise_url

    engine = engine_for(normalise_url(f"sqlite:///{tmp_path / 'console.db'}"))
    migrate(engine)
    passkeys = Passkeys(
        engine, RelyingParty("localhost", "http://localhost"), clock=RealtimeClock()
    )
    with pytest.raises(PasskeyError, match="too large"):
        passkeys.authenticate("x" * 20_000, "challenge")
    with pytest.raises(PasskeyError, match="not a WebAuthn credential"):
        passkeys.authenticate("{}", "challenge")
    with pytest.raises(PasskeyError, match="not a WebAuthn credential"):
        passkeys.authenticate("[", "challenge")
    engine.dispose()
    assert _hosts("not json") == []
    assert _hosts('["https://a.example/cb", "http://127.0.0.1:9/cb", 7]') == [
        "127.0.0.1:9",
        "a.example",
    ]


@pytest.mark.req("console.sign-in")
def test_on_https_the_session_cookie_is_secure_too(tmp_path: Path) -> None:
    from starlette.responses import Response

    from ordergate.gateway.console._web import Web

    web = Web(ConsoleSessions(None, clock=RealtimeClock()), "https://gw.example")  # type: ignore[arg-type]
    cookie = web.with_cookie(Response(), "id").headers["set-cookie"].lower()
    assert "secure" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert web.origin == "https://gw.example"

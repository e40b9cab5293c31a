"""The owner's console: only the owner signs in (the owner code, counted by the lockout),
sessions are short HttpOnly SameSite=Strict cookies, every post needs its CSRF token and the
console's own origin, and an agent's bearer token opens nothing."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest
from capture_testkit import capture_server
from console_kit import BOUND_S, IDLE_PAST, Console, console
from desk_kit import owner_desk
from gateway_testkit import OPEN
from sqlalchemy import func, select

from ordergate.callers import mint
from ordergate.gateway.console import COOKIE
from ordergate.gateway.console._tables import console_sessions
from ordergate.owner import SOURCE_FAILURES


@pytest.mark.req("console.sign-in")
def test_without_a_session_every_page_redirects_to_the_sign_in_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        for path in ("", "/approvals", "/approvals/list", "/passkeys", "/approvals/x"):
            answer = c.get(path)
            assert answer.status_code == 303, path
            assert answer.headers["location"] == "/console/sign-in"
        page = c.get("/sign-in")
        assert page.status_code == 200 and "Owner code" in page.text
        cookie = page.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/console" in cookie
        assert "secure" not in cookie  # plain http on loopback; https sets it


@pytest.mark.req("console.sign-in")
def test_the_owner_code_signs_in_on_a_new_session_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        c.get("/sign-in")
        assert COOKIE not in c.http.cookies  # the sign-in page opens no session
        signed = c.sign_in(c.desk.codes.next())
        assert signed.status_code == 200, signed.text
        assert 'data-next="/console/approvals"' in signed.text
        assert COOKIE in c.http.cookies
        assert c.get("/approvals").status_code == 200
        acts = [
            e.detail for e in c.desk.ledger.journal.entries(limit=1000) if e.kind == "owner_act"
        ]
        assert {"console_sign_in"} == {a["act"] for a in acts if a["outcome"] == "authorised"}


@pytest.mark.req("console.sign-in")
def test_a_wrong_code_is_refused_and_counted_toward_the_lockout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        refused = c.sign_in(c.desk.codes.wrong())
        assert refused.status_code == 403
        assert c.get("/approvals").status_code == 303
        status = c.desk.get("/status").json()
        assert status["owner"]["recent_failures"] == 1


@pytest.mark.req("console.csrf")
def test_a_post_without_its_csrf_token_or_with_a_wrong_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        c.get("/sign-in")
        code = c.desk.codes.passphrase or ""
        assert c.post("/sign-in", {"owner_code": code}).status_code == 403
        assert c.post("/sign-in", {"owner_code": code, "csrf": "x" * 43}).status_code == 403
        assert c.get("/approvals").status_code == 303
        assert c.sign_in().status_code == 200
        held = c.desk.held_order()
        path = f"/approvals/{held['approval_id']}/deny"
        assert c.post(path, {"reason": "no token"}).status_code == 403
        assert c.post(path, {"csrf": "y" * 43}).status_code == 403
        assert c.desk.ledger.approvals.get(held["approval_id"]).state.value == "pending"
        assert c.post(path, {"csrf": c.csrf("/approvals")}).status_code == 200
        assert c.desk.ledger.approvals.get(held["approval_id"]).state.value == "denied"


@pytest.mark.req("console.origin")
def test_a_post_from_a_foreign_origin_or_without_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        token = c.csrf()
        form = {"csrf": token, "owner_code": c.desk.codes.passphrase or ""}
        foreign = c.http.post(
            "/console/sign-in", data=form, headers={"origin": "https://evil.example"}
        )
        assert foreign.status_code == 403
        bare = c.http.post("/console/sign-in", data=form)
        assert bare.status_code == 403
        assert c.get("/approvals").status_code == 303


@pytest.mark.req("console.no-bearer")
def test_an_agents_bearer_token_opens_nothing_of_the_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        token = mint(
            c.desk.key, caller="agent", profile="trader", ttl=timedelta(minutes=5), now=OPEN
        ).reveal()
        bearer = {"authorization": f"Bearer {token}"}
        for path in ("", "/sign-in", "/approvals", "/passkeys"):
            assert c.get(path, **bearer).status_code == 403, path
        csrf = c.csrf()
        form = {"csrf": csrf, "owner_code": token}
        assert c.post("/sign-in", form, **bearer).status_code == 403
        assert c.post("/sign-in", form).status_code == 403  # the token is no owner code
        assert c.get("/approvals").status_code == 303


@pytest.mark.req("console.session-expiry")
def test_an_idle_session_ends_by_the_security_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        c.clock.advance(timedelta(minutes=14))
        assert c.get("/approvals").status_code == 200
        c.clock.advance(timedelta(minutes=14))
        assert c.get("/approvals").status_code == 200  # seen 14 minutes ago: still live
        c.clock.advance(IDLE_PAST)
        assert c.get("/approvals").status_code == 303


@pytest.mark.req("console.sign-in")
def test_signing_out_ends_the_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        token = c.csrf("/approvals")
        assert c.post("/sign-out", {"csrf": token}).status_code == 303
        assert c.get("/approvals").status_code == 303


@pytest.mark.req("console.csp")
def test_the_console_needs_no_inline_style_for_htmx_and_has_a_favicon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        page = c.get("/sign-in")
        css = c.get("/static/console.css")
        icon = c.http.get("/favicon.ico")
        linked = c.get("/static/favicon.svg")
    # htmx adds its indicator style inline unless told not to; the CSP allows no inline style.
    assert "style-src 'self'" in page.headers["content-security-policy"]
    assert """<meta name="htmx-config" content='{"includeIndicatorStyles": false}'>""" in page.text
    assert ".htmx-request .htmx-indicator" in css.text
    assert '<link rel="icon" href="/console/static/favicon.svg"' in page.text
    assert icon.status_code == linked.status_code == 200
    assert icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.content == linked.content and icon.content.startswith(b"<svg")


def _sessions_stored(c: Console) -> int:
    with c.desk.ledger.engine.connect() as db:
        return int(db.execute(select(func.count()).select_from(console_sessions)).scalar_one())


@pytest.mark.req("console.origin-bound")
def test_the_console_refuses_its_own_cookie_replayed_from_another_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        held = c.desk.held_order()
        assert c.sign_in().status_code == 200
        csrf = c.csrf("/approvals")
        assert held["approval_id"] in c.get("/approvals").text
        # What a page on another port of this host collects: the cookie (never the key, which
        # only the console's own origin's sessionStorage holds), replayed with a forged Origin.
        stolen = {COOKIE: c.http.cookies[COOKIE]}
        with httpx2.Client(base_url=c.desk.url, cookies=stolen, timeout=BOUND_S) as agent:
            forged = {"origin": c.desk.url}
            for path in ("/approvals", "/approvals/list", "/filings", "/budget", "/policy"):
                page = agent.get(f"/console{path}", headers=forged)
                assert page.status_code == 401, path
                assert held["approval_id"] not in page.text and "SPY" not in page.text, path
            pause = agent.post("/console/pause", data={"csrf": csrf}, headers=forged)
            assert pause.status_code == 401
            wrong = agent.get("/console/approvals", headers={"x-console-key": "k" * 43})
            assert wrong.status_code == 401 and held["approval_id"] not in wrong.text
        assert not c.desk.get("/status").json()["paused"]
        assert c.get("/approvals").status_code == 200  # the owner's tab still works


@pytest.mark.req("console.origin-bound")
def test_a_replayed_cookie_does_not_keep_the_session_alive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        stolen = {COOKIE: c.http.cookies[COOKIE]}
        with httpx2.Client(base_url=c.desk.url, cookies=stolen, timeout=BOUND_S) as agent:
            c.clock.advance(timedelta(minutes=10))
            assert agent.get("/console/approvals").status_code == 401
            c.clock.advance(timedelta(minutes=6))
            assert agent.get("/console/approvals").status_code == 303  # ended, not kept alive
        assert c.get("/approvals").status_code == 303


@pytest.mark.req("gateway.threat.anonymous-rows")
def test_anonymous_sign_in_page_loads_store_no_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        for _ in range(40):
            with httpx2.Client(base_url=c.desk.url, timeout=BOUND_S) as stranger:
                assert stranger.get("/console/sign-in").status_code == 200
        assert _sessions_stored(c) == 0


@pytest.mark.req("gateway.threat.anonymous-rows")
def test_a_session_not_signed_in_is_swept_after_five_minutes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch, localhost=True) as c:
        token = c.csrf()
        started = c.post_json("/passkey/options", {"purpose": "sign_in"}, token)
        assert started.status_code == 200, started.text
        assert _sessions_stored(c) == 1
        c.clock.advance(timedelta(minutes=6))
        assert c.sign_in().status_code == 200
        assert _sessions_stored(c) == 1  # the signed-in one; the anonymous one swept


@pytest.mark.req("owner.code.lock-alert")
def test_wrong_codes_on_the_console_lock_loopback_and_the_lock_is_posted_to_the_webhook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        capture_server() as hook,
        owner_desk(tmp_path, monkeypatch, webhook_url=hook.url) as desk,
        httpx2.Client(base_url=desk.url, timeout=BOUND_S) as browser,
    ):
        page = browser.get("/console/sign-in")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found is not None
        form = {"csrf": found.group(1), "owner_code": "not the passphrase at all"}
        answers = [
            browser.post("/console/sign-in", data=form, headers={"origin": desk.url}).status_code
            for _ in range(SOURCE_FAILURES + 1)
        ]
    assert answers == [403] * SOURCE_FAILURES + [423]
    events = [json.loads(r.body) for r in hook.requests if r.method == "POST"]
    locks = [e for e in events if e.get("event") == "owner_locked"]
    assert [lock["source"] for lock in locks] == ["loopback"]
    kinds = [e.kind for e in desk.ledger.journal.entries(limit=1000)]
    assert kinds.count("owner_locked") == 1

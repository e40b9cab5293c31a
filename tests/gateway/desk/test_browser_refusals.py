"""What the console refuses, asked from the signed-in owner's own Chromium: a form post with a
wrong CSRF token, a post from a foreign Origin, and any page asked with an agent's bearer
token (the session cookie riding along does not help it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_kit import TOKEN_TTL, browser_console, expect
from desk_kit import MASTER
from gateway_testkit import OPEN

from ordergate.callers import CallerKey, mint
from ordergate.core import Secret

PAGES = (
    "",
    "/sign-in",
    "/approvals",
    "/approvals/list",
    "/connections",
    "/budget",
    "/positions",
    "/filings",
    "/policy",
    "/passkeys",
)


@pytest.mark.req("console.csrf")
@pytest.mark.req("console.origin")
def test_a_wrong_csrf_token_and_a_foreign_origin_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        b.sign_in_with_code()
        b.go("/budget")
        expect(b.page.get_by_text("Trading is not paused.")).to_be_visible()
        csrf = b.page.locator("main").get_attribute("data-csrf")
        key = b.page.evaluate("sessionStorage.getItem('ordergate-console-key')")
        assert csrf and key
        forged = b.page.evaluate(
            """async ([prefix, key]) => (await fetch(prefix + "/pause", {method: "POST",
                 headers: {"Content-Type": "application/x-www-form-urlencoded",
                           "X-Console-Key": key},
                 body: "csrf=forged&reason=x"})).status""",
            ["/console", key],
        )
        assert forged == 403
        pause = f"{b.desk.url}/console/pause"
        foreign = b.page.request.post(
            pause,
            form={"csrf": csrf},
            headers={"origin": "https://evil.example", "x-console-key": key},
        )
        assert foreign.status == 403
        b.go("/budget")
        expect(b.page.get_by_text("Trading is not paused.")).to_be_visible()
        own = b.page.request.post(
            pause, form={"csrf": csrf}, headers={"origin": b.desk.url, "x-console-key": key}
        )
        assert own.ok  # the same post from the console's own origin pauses
        b.go("/budget")
        expect(b.page.get_by_text("Paused:")).to_be_visible()


@pytest.mark.req("console.no-bearer")
def test_an_agents_bearer_token_opens_no_console_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        b.sign_in_with_code()
        held = b.desk.held_order()
        token = mint(
            CallerKey.derive(Secret(MASTER)),
            caller="agent",
            profile="trader",
            ttl=TOKEN_TTL,
            now=OPEN,
        ).reveal()
        bearer = {"authorization": f"Bearer {token}"}
        for path in (*PAGES, f"/approvals/{held['approval_id']}"):
            answer = b.page.request.get(
                f"{b.desk.url}/console{path}", headers=bearer, max_redirects=0
            )
            assert answer.status == 403, path
            assert "SPY" not in answer.text() and held["approval_id"] not in answer.text(), path
        b.go("/approvals")  # the same browser, without the token, still sees its pages
        expect(b.page.locator("#approvals li.card")).to_have_count(1)

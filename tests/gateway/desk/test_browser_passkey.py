"""The console's passkey in real Chromium: signed in with the owner code, the owner enrols a
passkey on a virtual authenticator (the owner code again), signs out, and signs in with it."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_kit import WAIT_MS, browser_console, expect


@pytest.mark.req("console.browser")
@pytest.mark.req("console.passkey")
def test_a_passkey_enrolled_with_the_owner_code_signs_the_owner_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        b.go("/sign-in")
        expect(b.page.locator("h1")).to_have_text("Sign in")
        b.shoot("sign-in")
        b.sign_in_with_code()
        b.go("/passkeys")
        expect(b.page.get_by_text("No passkey yet")).to_be_visible()
        b.page.fill("#register_code", b.desk.codes.next())
        b.page.click("button[data-passkey=register]")
        expect(b.page.get_by_text("Waiting for the delay")).to_be_visible(timeout=WAIT_MS)
        b.desk.pass_delay()  # registering a passkey loosens: it waits the owner's delay
        b.sign_in_with_code()  # the session idled out meanwhile
        b.go("/passkeys")
        expect(b.page.locator("ul.cards li")).to_have_count(1, timeout=WAIT_MS)
        b.shoot("passkeys")
        b.page.click("button:has-text('Sign out')")
        b.page.wait_for_url("**/console/sign-in")
        b.page.click("#passkey-sign-in")
        b.page.wait_for_url("**/console/approvals", timeout=WAIT_MS)
        expect(b.page.locator("h1")).to_have_text("Waiting orders")
        acts = [
            e.detail for e in b.desk.ledger.journal.entries(limit=1000) if e.kind == "owner_act"
        ]
        signed = [a for a in acts if a["act"] == "console_sign_in" and a["outcome"] == "authorised"]
        assert [a["credential"] for a in signed][-1] == "passkey"

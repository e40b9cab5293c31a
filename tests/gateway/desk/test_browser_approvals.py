"""Waiting orders in real Chromium: an order an agent places over MCP appears on the open
approvals page by itself (htmx), the owner approves one with the owner code and denies the
other, and both show up among the filings."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_kit import WAIT_MS, browser_console, expect

_REFRESH_MS = 10_000
"""The approvals list's refresh period (``hx-trigger="every 10s"``)."""


@pytest.mark.req("console.browser")
def test_the_owner_approves_one_waiting_order_and_denies_another_in_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        # The page's timers on a clock the test steps: the list's refresh (every 10 s) comes
        # when the test moves the clock, not after ten real seconds.
        b.page.clock.install()
        b.sign_in_with_code()
        expect(b.page.get_by_text("No order waits for you.")).to_be_visible()
        b.shoot("approvals-empty")
        first = b.desk.held_order()
        cards = b.page.locator("#approvals li.card")
        b.page.clock.fast_forward(_REFRESH_MS)
        expect(cards).to_have_count(1)  # no reload: htmx's refresh brought it
        second = b.desk.held_order()
        b.go("/approvals")
        expect(cards).to_have_count(2)
        b.shoot("approvals")
        b.page.click(f"a[href$='/approvals/{first['approval_id']}']")
        expect(b.page.locator("h1")).to_have_text("buy SPY")
        expect(b.page.locator("dl.terms")).to_contain_text('approval = "always"')
        b.shoot("approval")
        b.page.fill("#owner_code", b.desk.codes.next())
        b.page.click("button:has-text('Approve with the code')")
        expect(b.page.locator("h1")).to_have_text("submitted", timeout=WAIT_MS)
        b.shoot("approved")
        assert b.desk.settled(first["filing_id"]) == "filled"
        b.page.click("a:has-text('Back to the waiting orders')")
        expect(cards).to_have_count(1)
        b.page.click(f"a[href$='/approvals/{second['approval_id']}']")
        b.page.click("button:has-text('Deny')")
        expect(b.page.locator("h1")).to_have_text("denied")
        assert b.desk.ledger.approvals.get(first["approval_id"]).decided_by == "owner"
        assert b.desk.ledger.approvals.get(second["approval_id"]).state.value == "denied"
        b.go("/approvals")
        expect(b.page.get_by_text("No order waits for you.")).to_be_visible()
        b.go("/filings")
        filings = b.page.locator("li.filing")
        expect(filings).to_have_count(2)
        expect(filings.filter(has_text="now filled")).to_have_count(1)
        b.shoot("filings")

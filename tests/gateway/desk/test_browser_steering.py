"""The owner steering in real Chromium: revoking a connection ends its client's MCP calls,
pausing refuses new orders until the owner resumes with the owner code, and the positions and
policy pages render."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_kit import browser_console, connection_token, expect
from mcp_http_testkit import McpSession


@pytest.mark.req("console.browser")
def test_a_connection_revoked_in_the_browser_makes_no_further_mcp_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        b.desk.connected_client("Claude Desktop", profile="trader")
        (connection,) = b.desk.get("/connections").json()["connections"]
        session = McpSession(b.desk.url, connection_token(b.desk, connection["connection_id"]))
        try:
            assert "place_equity_order" in session.tools()
            b.sign_in_with_code()
            b.go("/connections")
            card = b.page.locator("li.card", has_text="Claude Desktop")
            expect(card).to_contain_text("trader")
            b.shoot("connections")
            card.locator("button:has-text('Revoke')").click()
            expect(b.page.get_by_text("No client is connected.")).to_be_visible()
            after = session.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            assert after.status_code == 401, after.text
        finally:
            session.close()


@pytest.mark.req("console.browser")
def test_pausing_in_the_browser_refuses_new_orders_until_the_owner_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with browser_console(tmp_path, monkeypatch) as b:
        b.sign_in_with_code()
        b.desk.held_order()
        b.go("/budget")
        expect(b.page.locator("dl.terms")).to_contain_text("1 of")
        expect(b.page.get_by_text("Trading is not paused.")).to_be_visible()
        b.shoot("budget")
        b.page.fill("#reason", "lunch")
        b.page.click("button:has-text('Pause all new orders')")
        expect(b.page.get_by_text("Paused: lunch.")).to_be_visible()
        b.shoot("budget-paused")
        assert b.desk.place()["reasons"] == ["paused"]
        assert b.desk.ledger.controls.pause_state().paused
        b.page.fill("#owner_code", b.desk.codes.next())
        b.page.click("button:has-text('Resume')")
        expect(b.page.get_by_text("Trading is not paused.")).to_be_visible()
        assert b.desk.place()["status"] == "pending_approval"
        b.go("/positions")
        expect(b.page.locator("h1")).to_be_visible()
        b.shoot("positions")
        b.go("/policy")
        expect(b.page.locator("main")).to_contain_text('approval = "always"')
        b.shoot("policy")

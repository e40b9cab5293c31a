"""The console's connections and budget: each connection with its client's name, redirect
host, profile and times, revocable; the 24 h spend and orders against their caps, open orders
against max_open_orders, and the pause (no code) and resume (the owner code)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from console_kit import console


@pytest.mark.req("console.connections")
def test_the_owner_sees_each_connection_and_revokes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        c.desk.connected_client("Claude Desktop")
        assert c.sign_in().status_code == 200
        page = c.get("/connections")
        assert "Claude Desktop" in page.text and "127.0.0.1" in page.text
        assert "monitor" in page.text
        (connection,) = c.desk.get("/connections").json()["connections"]
        csrf = c.csrf("/connections")
        revoke = f"/connections/{connection['connection_id']}/revoke"
        assert c.post(revoke, {"reason": "no csrf"}).status_code == 403
        assert c.post(revoke, {"csrf": csrf}).status_code == 303
        assert c.desk.get("/connections").json()["connections"] == []
        assert "No client is connected" in c.get("/connections").text


@pytest.mark.req("console.budget")
def test_the_budget_shows_spend_against_caps_and_pauses_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        c.desk.held_order()
        page = c.get("/budget")
        assert page.status_code == 200
        assert "Spent (24 h)" in page.text and "of $500" in page.text
        assert "Open orders</dt><dd>1 of 5" in page.text
        csrf = c.csrf("/budget")
        assert c.post("/pause", {"csrf": csrf, "reason": "lunch"}).status_code == 303
        assert c.desk.ledger.controls.pause_state().paused
        assert "Paused: lunch" in c.get("/budget").text
        assert c.post("/resume", {"csrf": csrf}).status_code == 401
        assert c.desk.ledger.controls.pause_state().paused
        resumed = c.post("/resume", {"csrf": csrf, "owner_code": c.desk.codes.next()})
        assert resumed.status_code == 303
        assert not c.desk.ledger.controls.pause_state().paused
        bad = c.post("/pause", {"csrf": csrf, "reason": "x" * 201})
        assert bad.status_code == 400


@pytest.mark.req("console.budget")
def test_the_budget_shows_the_trading_state_the_guard_judges_orders_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        # The paper account's equity, no breaker tripped: what `ordergate status` says.
        assert "<dt>Trading</dt><dd>active</dd>" in c.get("/budget").text
        c.desk.ledger.controls.set_high_water_mark(
            Decimal(10) ** 9, account=c.desk.server.running.guard.account
        )
        assert "<dt>Trading</dt><dd>halted (drawdown_halt)</dd>" in c.get("/budget").text


@pytest.mark.req("controls.pause-cancels-working-orders")
def test_the_consoles_pause_with_cancel_open_cancels_working_orders_and_shows_each_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        held = c.desk.held_order()
        csrf = c.csrf("/budget")
        assert "Also cancel every working order" in c.get("/budget").text
        page = c.post("/pause", {"csrf": csrf, "reason": "", "cancel_open": "on"})
        assert page.status_code == 200
        assert "Working orders cancelled" in page.text and held["filing_id"] in page.text
        assert "<td>denied</td>" in page.text
        assert c.desk.ledger.controls.pause_state().paused
        assert c.desk.ledger.open_filings() == []
        # Paused already: the button cancels what still works (nothing now).
        again = c.post("/pause", {"csrf": csrf, "cancel_open": "on"})
        assert "No order was working." in again.text

"""The console's approvals: each waiting order with its terms, estimate and expiry; approving
re-authenticates with the owner code even on a signed-in session, denying does not, and both
go through the owner's desk (the command line's one path)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from console_kit import console
from desk_kit import BUY
from gateway_testkit import OPEN
from mcp_http_testkit import McpSession

from ordergate.callers import mint


@pytest.mark.req("console.approve-reauth")
def test_approving_needs_the_code_again_and_denying_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        first, second = c.desk.held_order(), c.desk.held_order()
        listed = c.get("/approvals")
        assert first["approval_id"] in listed.text and "SPY" in listed.text
        page = c.get(f"/approvals/{first['approval_id']}")
        assert page.status_code == 200
        assert "Estimate" in page.text and "Expires" in page.text
        assert "approval = &#34;always&#34;" in page.text  # why it was held
        csrf = c.csrf(f"/approvals/{first['approval_id']}")
        approve = f"/approvals/{first['approval_id']}/approve"
        bare = c.post(approve, {"csrf": csrf})
        assert bare.status_code == 401
        assert c.desk.ledger.approvals.get(first["approval_id"]).state.value == "pending"
        wrong = c.post(approve, {"csrf": csrf, "owner_code": c.desk.codes.wrong()})
        assert wrong.status_code == 403
        approved = c.post(approve, {"csrf": csrf, "owner_code": c.desk.codes.next()})
        assert approved.status_code == 200, approved.text
        assert "submitted" in approved.text
        assert c.desk.settled(first["filing_id"]) == "filled"
        decided = c.desk.ledger.approvals.get(first["approval_id"])
        assert decided.decided_by == "owner"
        denied = c.post(f"/approvals/{second['approval_id']}/deny", {"csrf": csrf})
        assert denied.status_code == 200 and "denied" in denied.text
        assert c.get(f"/approvals/{second['approval_id']}").status_code == 404
        assert "No order waits" in c.get("/approvals/list").text


@pytest.mark.req("console.notify-link")
def test_the_banner_names_the_console_and_a_waiting_orders_link_approves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        serving = c.desk.server.serving
        assert serving is not None
        assert f"console: {c.desk.url}/console " in " ".join(serving.notes) + " "
        held = c.desk.held_order()
        link = f"/approvals/{held['approval_id']}"
        assert c.get(link).headers["location"] == "/console/sign-in"
        assert c.sign_in().status_code == 200
        assert c.get(link).status_code == 200
        assert c.desk.ledger.approvals.get(held["approval_id"]).state.value == "pending"


@pytest.mark.req("console.approve-reauth")
def test_a_waiting_order_names_the_registered_client_whose_connection_filed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        c.desk.connected_client("Claude Desktop", profile="trader")
        (connection,) = c.desk.get("/connections").json()["connections"]
        token = mint(
            c.desk.key,
            caller="agent",
            profile="trader",
            ttl=timedelta(minutes=5),
            now=OPEN,
            connection=connection["connection_id"],
        ).reveal()
        session = McpSession(c.desk.url, token)
        try:
            held = session.tool("place_equity_order", BUY)["data"]
        finally:
            session.close()
        assert held["status"] == "pending_approval", held
        (waiting,) = c.desk.get("/approvals").json()["approvals"]
        assert waiting["client_name"] == "Claude Desktop"
        assert c.sign_in().status_code == 200
        assert "Claude Desktop" in c.get(f"/approvals/{held['approval_id']}").text

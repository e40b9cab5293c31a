"""The owner can read their record (issue 25 §6): wherever an identity shows — the command
line's approvals, the console's Filings, the connections list — the client's registered name
is beside its hash, the connections list gives the identity its filings carry, and a refused
order shows the amount it asked for, not $0.00."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from console_kit import console
from desk_kit import BUY
from gateway_testkit import OPEN
from mcp_http_testkit import McpSession
from typer.testing import CliRunner, Result

from ordergate.callers import mint
from ordergate.cli import app


def command(socket: Path, home: Path, *args: str) -> Result:
    """``ordergate ARGS --owner-socket PATH`` as the owner runs it, from a home of their own."""
    env = {"ORDERGATE_HOME": str(home), "ORDERGATE_DB_URL": ""}
    return CliRunner().invoke(app, [*args, "--owner-socket", str(socket)], env=env)


@pytest.mark.req("owner.record.readable")
def test_every_identity_shows_its_clients_name_and_a_refusal_its_requested_amount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        c.desk.connected_client("Claude Desktop", profile="trader")
        (connection,) = c.desk.get("/connections").json()["connections"]
        token = mint(
            c.desk.key, caller="agent", profile="trader", ttl=timedelta(minutes=5), now=OPEN,
            connection=connection["connection_id"],
        ).reveal()  # fmt: skip
        session = McpSession(c.desk.url, token)
        try:
            held = session.tool("place_equity_order", BUY)["data"]
            refused = session.call(
                "place_equity_order", {**BUY, "symbol": "AAPL", "dollar_amount": "7"}
            )
        finally:
            session.close()
        assert held["status"] == "pending_approval", held
        assert refused["isError"] is True  # AAPL is not on the policy's list
        listed = command(c.desk.socket, tmp_path / "owner", "connections", "list")
        approvals = command(c.desk.socket, tmp_path / "owner", "approvals")
        ledger = f"sqlite:///{tmp_path / 'home' / 'ledger.db'}"
        why = CliRunner().invoke(app, ["why", held["filing_id"], "--db", ledger])
        assert c.sign_in().status_code == 200
        filings = c.get("/filings").text
    identity = connection["identity"]
    assert identity.startswith("conn:")
    # The connections list joins the name to the identity its filings carry.
    assert "  Claude Desktop  trader  live" in listed.stdout and "'" not in listed.stdout
    assert "filed by   Claude Desktop (caller:agent/" in why.stdout, (
        why.output and f"files as {identity}" in listed.stdout
    )
    assert "by Claude Desktop (caller:agent/" in approvals.stdout
    assert all(len(line) <= 100 for line in approvals.stdout.splitlines())
    assert identity.removeprefix("conn:") in approvals.stdout
    assert "Claude Desktop (caller:agent/" in filings
    assert "$7.00 requested" in filings
    assert "$0.00" not in filings

"""Caller tokens on the owner's desk (issue 23 §7): a name belongs to one profile, and every
token, trading ones too, is revoked before it expires, refused from that moment on."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx2
import pytest
from desk_kit import BOUND_S, Desk, owner_desk
from mcp_http_testkit import McpSession

SPY = {"symbols": ["SPY"]}


def _mint(desk: Desk, caller: str, profile: str, *, code: bool) -> httpx2.Response:
    """A token minted on the owner channel; with ``code``, a trading one: authorised with the
    code, then collected once the owner's delay has passed (what the owner does)."""
    ask = {"caller": caller, "profile": profile, "ttl_s": 3600}
    if code:
        waiting = desk.act("token_mint", ask, desk.codes.next())
        if waiting.status_code != 200 or "delayed" not in waiting.json():
            return waiting
        desk.pass_delay()
    response: httpx2.Response = desk.act("token_mint", ask)
    return response


def _quotes(desk: Desk, token: str) -> tuple[int, int]:
    """The status of a quote read over MCP (its handshake) and over the broker."""
    mcp = McpSession(desk.url, token)
    mcp.close()
    with httpx2.Client(timeout=BOUND_S) as http:
        broker = http.post(
            f"{desk.url}/api/capability/market/read",
            json={"tool": "get_equity_quotes", "arguments": SPY},
            headers={"authorization": f"Bearer {token}"},
        )
    return mcp.handshake.status_code, broker.status_code


@pytest.mark.req("callers.name-one-profile")
def test_a_read_only_token_cannot_be_minted_under_a_name_a_trader_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        trader = _mint(desk, "nightly-bot", "trader", code=True)
        spy = _mint(desk, "nightly-bot", "monitor", code=False)
        watcher = _mint(desk, "watcher", "monitor", code=False)
        # Refused before any code is asked for: none is spent on a mint that cannot happen.
        promoted = _mint(desk, "watcher", "trader", code=False)
        again = _mint(desk, "nightly-bot", "trader", code=True)
    assert trader.status_code == 200, trader.text
    assert (spy.status_code, spy.json()["error"]["code"]) == (409, "caller_name_taken")
    assert watcher.status_code == 200, watcher.text
    assert (promoted.status_code, promoted.json()["error"]["code"]) == (409, "caller_name_taken")
    assert again.status_code == 200, again.text
    assert again.json()["mint_id"] != trader.json()["mint_id"]


@pytest.mark.req("callers.revocable")
def test_connections_revoke_caller_name_answers_revoked_and_its_trading_token_is_refused_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with owner_desk(tmp_path, monkeypatch) as desk:
        minted = _mint(desk, "nightly", "trader", code=True).json()
        kept = _mint(desk, "keeper", "monitor", code=False).json()
        before = _quotes(desk, minted["token"])
        revoked = desk.post("/connections/caller:nightly/revoke").json()
        after = _quotes(desk, minted["token"])
        listed = {
            row["connection_id"]: row for row in desk.get("/connections").json()["connections"]
        }
        twice = desk.post("/connections/caller:nightly/revoke").json()
        one = desk.post(f"/connections/{quote('caller:keeper#' + kept['mint_id'])}/revoke").json()
        kept_after = _quotes(desk, kept["token"])
        kinds = [entry.kind for entry in desk.ledger.journal.entries()]
    assert before == (200, 200)
    assert revoked == {
        "connection_id": "caller:nightly", "revoked": True, "mints": [minted["mint_id"]]
    }  # fmt: skip
    assert after == (401, 401)
    row = listed[f"caller:nightly#{minted['mint_id']}"]
    assert (row["client_name"], row["kind"], row["profile"], row["state"]) == (
        "nightly", "caller", "trader", "revoked"
    )  # fmt: skip
    assert twice["revoked"] is False
    assert one["revoked"] is True and kept_after == (401, 401)
    assert kinds.count("caller_revoked") == 2

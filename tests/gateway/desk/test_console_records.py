"""The console's filings and refusals (filtered by identity, symbol, outcome and reason code)
and its policy page (the policy in force; a pending file's diff and the keys it loosens)."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_kit import console
from desk_kit import BUY, HELD_POLICY


@pytest.mark.req("console.filings")
def test_filings_and_refusals_filter_by_identity_symbol_outcome_and_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        c.desk.held_order()
        refused = c.desk.place({**_buy(), "symbol": "AAPL"})
        assert refused["status"] == "refused", refused
        reason = refused["reasons"][0]
        assert c.sign_in().status_code == 200
        every = c.get("/filings").text
        assert every.count('class="card filing"') == 2
        only = c.get("/filings", params={"outcome": "refused"}).text
        assert only.count('class="card filing"') == 1 and "AAPL" in only
        spy = c.get("/filings", params={"symbol": "spy"}).text
        assert spy.count('class="card filing"') == 1 and "SPY" in spy
        by_reason = c.get("/filings", params={"reason": reason}).text
        assert by_reason.count('class="card filing"') == 1 and "AAPL" in by_reason
        nobody = c.get("/filings", params={"identity": "caller:someone-else"}).text
        assert "No filing matches" in nobody
        identity = c.desk.ledger.recent_filings(limit=1)[0].identity
        mine = c.get("/filings", params={"identity": identity}).text
        assert mine.count('class="card filing"') == 2
        with pytest.raises(ValueError, match="limit"):
            c.desk.ledger.recent_filings(limit=0)


@pytest.mark.req("console.policy")
def test_the_policy_page_shows_a_pending_files_diff_and_what_it_loosens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with console(tmp_path, monkeypatch) as c:
        assert c.sign_in().status_code == 200
        page = c.get("/policy").text
        assert "No policy file differs from the policy in force" in page
        looser = HELD_POLICY + '[limits]\nmax_order_usd = "1000"\n'
        (c.desk.home / "policy.toml").write_text(looser)
        page = c.get("/policy").text
        assert "Loosens:" in page and "max_order_usd" in page
        assert 'class="add"' in page
        (c.desk.home / "policy.toml").write_text('approval = "sometimes"\n')
        assert "not a valid policy" in c.get("/policy").text
        (c.desk.home / "policy.toml").unlink()
        assert "No policy file differs from the policy in force" in c.get("/policy").text


def _buy() -> dict[str, str]:
    return {**BUY, "symbol": "SPY"}

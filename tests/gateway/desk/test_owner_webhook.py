"""With owner custody the gateway's owner is the one who approves: each held order is posted to
the owner's approval webhook (a receiver on loopback) with its terms and its console page, and
the page is logged at warning, where ``serve`` shows it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from capture_testkit import capture_server
from desk_kit import owner_desk


@pytest.mark.req("console.notify-link")
def test_an_owners_held_order_is_posted_to_the_webhook_with_its_console_page_and_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with capture_server() as hook, owner_desk(tmp_path, monkeypatch, webhook_url=hook.url) as desk:
        held = desk.held_order()
        events = [json.loads(r.body) for r in hook.requests if r.method == "POST"]
    [posted] = [event for event in events if event["event"] == "approval_pending"]
    page = f"{desk.url}/console/approvals/{held['approval_id']}"
    assert posted["approval_id"] == held["approval_id"]
    assert posted["filing_id"] == held["filing_id"]
    assert posted["symbol"] == "SPY"
    assert posted["console_url"] == page
    [logged] = [r for r in caplog.records if page in r.getMessage()]
    assert logged.levelno == logging.WARNING

"""A hosted rail's person in real Chromium sets their own limit on their console with their
passkey (the page's own script runs the ceremony, its challenge bound to that one change), and
a value above the operator's ceiling is refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium_testkit import chromium_page, expect, sync_playwright
from custody_kit import Custodian, custodian
from person_browser_kit import connect_in, console_sign_in

POLICY = 'approval = "never"\n[limits]\nmax_order_usd = "100"\n[symbols]\nallow = ["SPY"]\n'


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(
        tmp_path, monkeypatch, policy=POLICY, localhost=True, venue_users=("alice",)
    ) as served:
        yield served


@pytest.mark.req("rail.person.limits")
@pytest.mark.req("console.browser")
def test_a_person_sets_their_own_limit_with_their_passkey_in_chromium(
    rail: Custodian, tmp_path: Path
) -> None:
    with sync_playwright() as p, chromium_page(p, tmp_path / "alice") as page:
        connect_in(rail, page, "alice")
        console_sign_in(rail, page)
        row = page.locator("tr[data-limit=max_order_usd]")
        expect(row.locator("td.ceiling")).to_have_text("100")
        page.select_option("#limit_name", "max_order_usd")
        page.fill("#limit_value", "400")
        page.click("button[data-passkey=limits]")
        expect(page.locator("#passkey-status")).to_contain_text("limits.max_order_usd")
        expect(row.locator("td.own")).to_have_text("—")
        page.fill("#limit_value", "40")
        page.click("button[data-passkey=limits]")
        expect(row.locator("td.own")).to_have_text("40")
        expect(row.locator("td.in-force")).to_have_text("40")

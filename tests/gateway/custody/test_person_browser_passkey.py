"""A hosted rail's person in real Chromium (a virtual authenticator of their own): the consent
page, the venue's sign-in as its own user (their name and password, their own account), then on
the page it ends on a passkey registered for their own connection and their code confirmed; the
passkey then signs them in to that connection's console."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from chromium_testkit import chromium_page, expect, sync_playwright
from custody_kit import Custodian, custodian
from person_browser_kit import accounts_of, connect_in, console_sign_in
from person_console_kit import HELD, place_held


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(
        tmp_path, monkeypatch, policy=HELD, localhost=True, venue_users=("alice", "bob")
    ) as served:
        yield served


@pytest.mark.req("rail.person.passkey")
@pytest.mark.req("rail.person.console")
@pytest.mark.req("console.browser")
def test_two_people_each_register_a_passkey_and_see_only_their_own_connection_in_chromium(
    rail: Custodian, tmp_path: Path
) -> None:
    assert rail.url.startswith("http://localhost:")
    with (
        sync_playwright() as p,
        chromium_page(p, tmp_path / "alice") as alice,
        chromium_page(p, tmp_path / "bob") as bob,
    ):
        alice_token, bob_token = (
            connect_in(rail, alice, "alice")[0],
            connect_in(rail, bob, "bob")[0],
        )
        alice_held = place_held(rail.url, alice_token)
        alice_order = str(alice_held["approval_id"])
        rail.clock.advance(timedelta(seconds=31))
        bob_order = str(place_held(rail.url, bob_token)["approval_id"])
        # Each held order was filed on its person's own venue account.
        for token, user in ((alice_token, "alice"), (bob_token, "bob")):
            own = rail.venue.user(user).venue.accounts.agentic.account_number
            assert accounts_of(rail, token) == {own}
        alice_id, bob_id = console_sign_in(rail, alice), console_sign_in(rail, bob)
        assert alice_id != bob_id
        assert {row["id"] for row in rail.rows()} == {alice_id, bob_id}
        for page, mine, theirs in ((alice, alice_order, bob_order), (bob, bob_order, alice_order)):
            page.goto(f"{rail.url}/console/mine", wait_until="load")
            expect(page.locator(f"[data-approval='{mine}']")).to_have_count(1)
            expect(page.locator(f"[data-approval='{theirs}']")).to_have_count(0)
            page.goto(f"{rail.url}/console/mine/approvals/{theirs}", wait_until="load")
            expect(page.locator("h1")).to_have_text("Refused")
        alice.goto(f"{rail.url}/console/mine/approvals/{alice_order}", wait_until="load")
        alice.click("button[data-passkey=approve]")
        expect(alice.locator("#passkey-status")).to_contain_text("The order is submitted")
        assert rail.settled(alice_held["filing_id"]) == "filled"

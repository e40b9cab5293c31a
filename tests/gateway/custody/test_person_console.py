"""Two people on one hosted rail, each signed in to ``/console/mine`` with the passkey of their
own connection: each sees and decides only their own waiting orders and filings, the other's
ids are refused as if none existed, the operator's code approves neither's, and a person
disconnects their own connection with the link to revoke the grant at Robinhood."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from custody_kit import Custodian, custodian
from owner_testkit import PASSPHRASE
from person_console_kit import HELD, KEY, PersonConsole, connect_with_passkey, place_held


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    with custodian(tmp_path, monkeypatch, policy=HELD) as served:
        yield served


@pytest.fixture
def two(rail: Custodian) -> Iterator[tuple[PersonConsole, PersonConsole]]:
    alice, bob = PersonConsole(rail), PersonConsole(rail)
    try:
        yield alice, bob
    finally:
        alice.close()
        bob.close()


@pytest.mark.req("rail.person.console")
def test_two_people_each_see_and_approve_only_their_own_orders_on_their_console(
    rail: Custodian, two: tuple[PersonConsole, PersonConsole]
) -> None:
    alice, bob = two
    alice_key, alice_id, alice_token = connect_with_passkey(rail)
    bob_key, bob_id, bob_token = connect_with_passkey(rail)
    alice_order = str(place_held(rail.url, alice_token)["approval_id"])
    rail.clock.advance(timedelta(seconds=31))
    bob_order = str(place_held(rail.url, bob_token)["approval_id"])
    assert alice.sign_in(alice_key).status_code == 200
    assert bob.sign_in(bob_key).status_code == 200
    alice_page, bob_page = alice.get("/mine").text, bob.get("/mine").text
    assert alice_order in alice_page and bob_order not in alice_page and bob_id not in alice_page
    assert bob_order in bob_page and alice_order not in bob_page and alice_id not in bob_page
    for browser, theirs in ((alice, bob_order), (bob, alice_order)):
        assert browser.get(f"/mine/approvals/{theirs}").status_code == 404
        csrf = browser.csrf("/mine")
        form = {"csrf": csrf, "owner_code": PASSPHRASE}
        headers = {"origin": browser.base}
        denied = browser.http.post(
            f"/console/mine/approvals/{theirs}/deny", data=form, headers=headers
        )
        assert denied.status_code == 404
        asked = {"purpose": "approve", "approval_id": theirs}
        assert browser.post_json("/mine/passkey/options", asked, csrf).status_code == 404
    # Another's passkey, even on a challenge for one's own order, approves nothing.
    status, _ = alice.approve_with_passkey(bob_key, alice_order)
    assert status == 403
    # The operator's code on the person's own page is not the person's code.
    csrf = alice.csrf("/mine")
    operator = alice.http.post(
        f"/console/mine/approvals/{alice_order}/approve",
        data={"csrf": csrf, "owner_code": PASSPHRASE},
        headers={"origin": alice.base},
    )
    assert operator.status_code == 403, operator.text
    status, outcome = alice.approve_with_passkey(alice_key, alice_order)
    assert status == 200 and outcome["status"] == "submitted", outcome
    [_, bob_secret] = rail.secrets
    csrf = bob.csrf("/mine")
    by_code = bob.http.post(
        f"/console/mine/approvals/{bob_order}/approve",
        data={"csrf": csrf, "owner_code": rail.person_code(bob_secret)},
        headers={"origin": bob.base},
    )
    assert by_code.status_code == 200, by_code.text
    rail.settle()  # both orders fill: each person's positions then hold their SPY
    assert rail.status(outcome["filing_id"]) == "filled"
    alice_filings, bob_filings = alice.get("/mine/filings").text, bob.get("/mine/filings").text
    assert alice_filings.count('data-filing="') == 1 and bob_filings.count('data-filing="') == 1
    assert alice_filings != bob_filings
    assert alice.get("/filings?identity=").status_code == 403  # the operator's page
    positions = alice.get("/mine/positions")
    assert positions.status_code == 200, positions.text
    assert "Positions and equity" in positions.text and "SPY" in positions.text
    assert "sealed custody" not in positions.text  # read on the person's own session
    assert alice.get("/positions").status_code == 403  # the operator's page
    operator = PersonConsole(rail)
    try:
        csrf = operator.csrf()
        signed = operator.http.post(
            "/console/sign-in",
            data={"csrf": csrf, "owner_code": PASSPHRASE},
            headers={"origin": operator.base},
        )
        found = KEY.search(signed.text)
        assert found is not None, signed.text
        operator.http.headers["x-console-key"] = found.group(1)
        rail.clock.advance(timedelta(seconds=31))
        alice_later = str(place_held(rail.url, alice_token)["approval_id"])
        waiting, filings = operator.get("/approvals"), operator.get("/filings")
        assert waiting.status_code == 200 and alice_later not in waiting.text
        assert filings.status_code == 200 and "SPY" not in filings.text
        assert operator.get(f"/approvals/{alice_later}").status_code == 404
        assert alice_later in alice.get("/mine").text
    finally:
        operator.close()


@pytest.mark.req("rail.person.console")
def test_a_person_disconnects_their_own_connection_with_their_passkey(
    rail: Custodian, two: tuple[PersonConsole, PersonConsole]
) -> None:
    alice, bob = two
    alice_key, alice_id, _ = connect_with_passkey(rail)
    bob_key, bob_id, _ = connect_with_passkey(rail)
    assert alice.sign_in(alice_key).status_code == 200
    assert bob.sign_in(bob_key).status_code == 200
    csrf = alice.csrf("/mine")
    options = alice.post_json("/mine/passkey/options", {"purpose": "disconnect"}, csrf)
    assert options.status_code == 200, options.text
    gone = alice.post_json("/mine/disconnect", alice_key.get(options.json()), csrf)
    assert gone.status_code == 200, gone.text
    assert gone.json()["disconnected"] is True
    assert gone.json()["revoke_at_upstream"].startswith("https://robinhood.com/")
    states = {row["id"]: row["state"] for row in rail.rows()}
    assert states == {alice_id: "erased", bob_id: "live"}
    assert alice.get("/mine").status_code in (303, 401)
    assert bob.get("/mine").status_code == 200

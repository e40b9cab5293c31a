"""A person on a hosted rail (live mode over the sandbox) sees their own exercise request on
their console's approval page by its act, contract and contracts, as the operator's
console shows one."""

from __future__ import annotations

from custody_kit import Custodian
from mcp_http_testkit import ask_exercise
from person_console_kit import PersonConsole, connect_with_passkey


def test_a_persons_exercise_request_shows_its_contract_on_their_approval_page(
    live: Custodian,
) -> None:
    passkey, _, token = connect_with_passkey(live, profile="optiontrader")
    held, contract = ask_exercise(live.url, token, quantity=2)
    assert held["status"] == "pending_approval", held
    browser = PersonConsole(live)
    try:
        assert browser.sign_in(passkey).status_code == 200
        page = browser.get(f"/mine/approvals/{held['approval_id']}")
        overview = browser.get("/mine")
    finally:
        browser.close()
    assert page.status_code == 200, page.text
    assert f"<h1>Exercise AAPL {contract['expiration_date']} " in page.text
    assert contract["id"] in page.text and "Contracts</dt><dd>2</dd>" in page.text
    assert f">Exercise AAPL {contract['expiration_date']} " in overview.text  # the waiting list

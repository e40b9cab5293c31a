"""Two people on one hosted rail (sealed custody, live mode on the sandbox venue): each connects
through the consent flow with their own passkey and code, signs in at the venue as its own user
with their own account, trades, is held, and approves their own from their own console; each
sees their own fill, cash and orders there. Then each of the rail's surfaces is handed the other
person's ids — the MCP tools, the capability broker, the console, the owner channel's acts and
the public record — and none of them gives or changes anything of the other's (their venue
account included); the operator's code approves neither person's held order."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx2
import pytest
from custody_kit import BOUND_S, Custodian, custodian
from mcp_http_testkit import McpSession, agentic_account, ask_exercise
from option_market_testkit import OPTION_TRADER
from owner_testkit import PASSPHRASE, channel_act, owner_channel
from passkey_testkit import SoftPasskey
from person_console_kit import PersonConsole, connect_with_passkey
from push_testkit import PushService, eventually, push_service
from sqlalchemy import text

from ordergate.core import usd

LIVE_HELD = """
mode = "live"
real_money = true
approval = "always"
approval_ttl_s = 86400
[limits]
max_order_usd = 2000
max_daily_usd = 10000
[symbols]
allow = ["SPY"]
"""


NOT_FILED_HERE = "not filed by this connection"
CASH = Decimal("100000.00")  # each venue account's to start with
USERS = ("alice", "bob")
POSITION_ROW = re.compile(r"<tr><td>([A-Z]+)</td><td>([0-9.]+)</td>")
SHARES = {"alice": "1", "bob": "2"}  # each one's first buy, approved: told apart by its size
REFUSED = {(403, "person_code_wrong"), (429, "person_code_locked")}


@dataclass
class Person:
    """One person on the rail: their venue user and its agentic account, their passkey,
    connection, client token, code secret and console, the order they approved (its filing and
    venue order) and the one still held."""

    user: str
    account: str
    passkey: SoftPasskey
    connection: str
    token: str
    secret: str
    console: PersonConsole
    placed_filing: str = ""
    venue_order: str = ""
    held_approval: str = ""
    held_filing: str = ""
    exercise_approval: str = ""
    exercise_filing: str = ""

    def ids(self) -> list[str]:
        return [
            self.account, self.connection, self.placed_filing, self.venue_order, self.held_approval,
            self.held_filing, self.exercise_approval, self.exercise_filing,
        ]  # fmt: skip


@pytest.fixture
def rail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Custodian]:
    profiles = {"optiontrader": OPTION_TRADER}
    with custodian(
        tmp_path,
        monkeypatch,
        policy=LIVE_HELD,
        profiles=profiles,
        public_record=True,
        push=True,
        venue_users=USERS,
    ) as served:
        yield served


@pytest.fixture
def phones(rail: Custodian) -> Iterator[tuple[PushService, PushService]]:
    """Each person's phone behind a push service of its own, on loopback."""
    with push_service(rail.clock.now) as alices, push_service(rail.clock.now) as bobs:
        yield alices, bobs


def _arrive(rail: Custodian, phone: PushService, user: str) -> Person:
    """A person connects (signing in at the venue as ``user``), subscribes their phone to the
    rail's pushes, places an order that is held, approves it from their console with their
    passkey (it is sent to the venue), places a second one left held and asks to exercise an
    option, held too."""
    passkey, connection, token = connect_with_passkey(rail, profile="optiontrader", user=user)
    session = McpSession(rail.url, token)
    try:
        account = agentic_account(session)
    finally:
        session.close()
    person = Person(
        user, account, passkey, connection, token, rail.secrets[-1], PersonConsole(rail)
    )
    subscribed = rail.person_post(
        "/person/push/subscriptions",
        len(rail.connection_ids) - 1,
        {"subscription": phone.subscribe(rail.push_key())},
    )
    assert subscribed.status_code == 201, subscribed.text
    try:
        _trade(rail, person)
    except BaseException:
        person.console.close()
        raise
    return person


def _pushed(rail: Custodian, filing_id: str) -> None:
    """Wait until the rail journalled its push of ``filing_id`` (the push is sent beside the
    order's answer, and a console act is not raced against its journal write)."""

    def journalled() -> bool:
        with rail.engine.connect() as db:
            rows = db.execute(text("SELECT detail FROM decisions WHERE kind = 'push'")).all()
        return any(json.loads(row.detail).get("filing_id") == filing_id for row in rows)

    eventually(journalled)


def _trade(rail: Custodian, person: Person) -> None:
    passkey, token = person.passkey, person.token
    assert person.console.sign_in(passkey).status_code == 200
    first = _place_held(rail, token, SHARES[person.user])
    _pushed(rail, str(first["filing_id"]))
    status, approved = person.console.approve_with_passkey(passkey, str(first["approval_id"]))
    assert status == 200 and approved["status"] == "submitted", approved
    person.placed_filing = str(first["filing_id"])
    person.venue_order = str(approved["order_id"])
    rail.clock.advance(timedelta(seconds=31))  # the next order is no duplicate of the first
    second = _place_held(rail, token)
    _pushed(rail, str(second["filing_id"]))
    person.held_approval, person.held_filing = str(second["approval_id"]), str(second["filing_id"])
    exercise, _ = ask_exercise(rail.url, token)
    assert exercise["status"] == "pending_approval", exercise
    _pushed(rail, str(exercise["filing_id"]))
    person.exercise_approval = str(exercise["approval_id"])
    person.exercise_filing = str(exercise["filing_id"])
    rail.clock.advance(timedelta(seconds=31))


def _place_held(rail: Custodian, token: str, shares: str = "1") -> dict[str, Any]:
    """A market buy of ``shares`` SPY shares through ``/mcp``: its held answer."""
    session = McpSession(rail.url, token)
    try:
        account = agentic_account(session)
        order = {
            "symbol": "SPY", "side": "buy", "type": "market", "quantity": shares,
            "account_number": account,
        }  # fmt: skip
        data: dict[str, Any] = session.tool("place_equity_order", order)["data"]
    finally:
        session.close()
    assert data["status"] == "pending_approval", data
    return data


@pytest.fixture
def two(
    rail: Custodian, phones: tuple[PushService, PushService]
) -> Iterator[tuple[Person, Person]]:
    alice = _arrive(rail, phones[0], USERS[0])
    try:
        bob = _arrive(rail, phones[1], USERS[1])
        try:
            yield alice, bob
        finally:
            bob.console.close()
    finally:
        alice.console.close()


def _record(rail: Custodian, token: str) -> dict[str, Any]:
    session = McpSession(rail.url, token)
    try:
        data: dict[str, Any] = session.tool("gate_record", {})["data"]
    finally:
        session.close()
    return data


def _state(rail: Custodian, person: Person) -> dict[str, Any]:
    """What the rail holds of ``person``: their connection's row, their filings and approvals
    on the ledger, their record as their own client reads it and their venue order."""
    [row] = [
        {key: value for key, value in row.items() if key != "last_used_at"}
        for row in rail.rows()
        if str(row["id"]) == person.connection
    ]
    with rail.engine.connect() as db:
        filings = db.execute(
            text("SELECT id, status, reasons FROM filings WHERE id IN (:a, :b, :c) ORDER BY id"),
            {"a": person.placed_filing, "b": person.held_filing, "c": person.exercise_filing},
        ).all()
        approvals = db.execute(
            text("SELECT id, state FROM approvals WHERE id IN (:a, :b) ORDER BY id"),
            {"a": person.held_approval, "b": person.exercise_approval},
        ).all()
        phones = db.execute(
            text("SELECT id, endpoint_sha256 FROM push_subscriptions WHERE connection_id = :c"),
            {"c": person.connection},
        ).all()
    session = McpSession(rail.url, person.token)
    try:
        asked = {"account_number": agentic_account(session), "order_id": person.venue_order}
        orders = session.tool("get_equity_orders", asked)["data"]
    finally:
        session.close()
    return {
        "row": row,
        "filings": [tuple(f) for f in filings],
        "approvals": [tuple(a) for a in approvals],
        "phones": [tuple(p) for p in phones],
        "record": _record(rail, person.token),
        "venue": orders,
    }


def _account(rail: Custodian, token: str, account: str) -> dict[str, Any]:
    """The venue account ``account`` as ``token``'s client reads it through ``/mcp``: its
    positions (symbol, quantity), its orders' ids and its cash."""
    session = McpSession(rail.url, token)
    try:
        mine = {"account_number": account}
        positions = session.tool("get_equity_positions", mine)["data"]["positions"]
        orders = session.tool("get_equity_orders", mine)["data"]["orders"]
        cash = session.tool("get_portfolio", mine)["data"]["cash"]
    finally:
        session.close()
    return {
        "positions": [(row["symbol"], row["quantity"]) for row in positions],
        "orders": {row["id"] for row in orders},
        "cash": Decimal(str(cash)),
    }


def _held_shares(page: str) -> list[tuple[str, str]]:
    """The (symbol, quantity) rows of a console positions page's table."""
    return [(symbol, quantity) for symbol, quantity in POSITION_ROW.findall(page)]


def _person_acts(rail: Custodian) -> list[tuple[str, str]]:
    with rail.engine.connect() as db:
        rows = db.execute(
            text("SELECT identity, why FROM decisions WHERE kind = 'person_act' ORDER BY seq")
        )
        return [(row.identity, row.why) for row in rows]


def _bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


@pytest.mark.req("rail.isolation")
def test_one_person_on_a_hosted_rail_gets_nothing_of_anothers_through_any_surface(
    rail: Custodian, two: tuple[Person, Person], phones: tuple[PushService, PushService]
) -> None:
    alice, bob = two
    # Each person trades their own venue account, signed in there as its own user: the shares
    # they approved filled in it, their cash paid for them, and its orders are theirs alone;
    # their console's positions page reads that account, and shows nothing of the other's.
    assert alice.account != bob.account
    for person, other in ((alice, bob), (bob, alice)):
        own = rail.venue.user(person.user).venue.accounts.agentic
        assert person.account == own.account_number
        read = _account(rail, person.token, person.account)
        assert read == {
            "positions": [("SPY", SHARES[person.user])],
            "orders": {person.venue_order},
            "cash": own.cash,
        }
        assert own.cash < CASH
        page = person.console.get("/mine/positions")
        assert page.status_code == 200, page.text
        assert _held_shares(page.text) == [("SPY", SHARES[person.user])]
        theirs = rail.venue.user(other.user).venue.accounts.agentic
        assert own.cash != theirs.cash and usd(theirs.cash) not in page.text
    # Each held order and exercise reached its own person's phone (each push journalled as
    # the rail sent it), and no other.
    for person, phone in zip(two, phones, strict=True):
        mine = {person.placed_filing, person.held_filing, person.exercise_filing}
        assert {payload["filing_id"] for payload in phone.received} == mine
        assert phone.refused == []
    with owner_channel(rail.home) as http:  # tightening needs no one's consent
        paused = http.post(
            "/owner/pause", json={"reason": "operator check", "connection_id": bob.connection}
        )
    assert paused.status_code == 200, paused.text
    before = _state(rail, bob)
    assert len(before["filings"]) == 3 and len(before["approvals"]) == 2
    assert len(before["phones"]) == 1

    # /mcp: gate_record shows only the caller's own filings; cancelling the other's order
    # (by its venue id or its filing id) is refused and nothing is sent.
    mine = {row["filing_id"] for row in _record(rail, alice.token)["filings"]}
    assert mine == {alice.placed_filing, alice.held_filing, alice.exercise_filing}
    session = McpSession(rail.url, alice.token)
    try:
        for order_id in (bob.venue_order, bob.held_filing):
            asked = {"account_number": agentic_account(session), "order_id": order_id}
            answer = session.call("cancel_equity_order", asked)
            assert answer.get("isError") is True, answer
            assert NOT_FILED_HERE in answer["content"][0]["text"], answer
    finally:
        session.close()

    # /mcp: the other's venue account (its positions, cash and orders) is not found at the
    # venue, nor is the other's venue order among one's own.
    reads = (
        ("get_equity_positions", "account/read", {"account_number": bob.account}),
        ("get_portfolio", "account/read", {"account_number": bob.account}),
        ("get_equity_orders", "orders/read", {"account_number": bob.account}),
    )
    session = McpSession(rail.url, alice.token)
    try:
        for name, _, arguments in reads:
            answer = session.call(name, arguments)
            assert answer.get("isError") is True, answer
            assert answer["structuredContent"]["error"]["upstream_code"] == "NOT_FOUND", answer
        asked = {"account_number": alice.account, "order_id": bob.venue_order}
        assert session.tool("get_equity_orders", asked)["data"]["orders"] == []
    finally:
        session.close()

    # The capability broker: the same refusals.
    with httpx2.Client(base_url=rail.url, timeout=BOUND_S) as http:
        for name, permission, arguments in reads:
            body = {"tool": name, "arguments": arguments}
            refused = http.post(
                f"/api/capability/{permission}", json=body, headers=_bearer(alice.token)
            )
            assert refused.status_code == 422, refused.text
            assert refused.json()["error"]["upstream_code"] == "NOT_FOUND", refused.text
        for order_id in (bob.venue_order, bob.held_filing):
            body = {"tool": "cancel_equity_order", "arguments": {"order_id": order_id}}
            refused = http.post(
                "/api/capability/orders/cancel", json=body, headers=_bearer(alice.token)
            )
            assert refused.status_code == 422, refused.text
            assert NOT_FILED_HERE in refused.text
        # The owner's routes are not on the rail's public port, token or none.
        for path in ("/owner/pause", "/owner/prepare", f"/owner/connections/{bob.connection}"):
            assert http.post(path, json={}, headers=_bearer(alice.token)).status_code == 404

    # The console: the other's approvals answer 404, and nothing of theirs is on one's pages.
    console = alice.console
    for approval in (bob.held_approval, bob.exercise_approval):
        assert console.get(f"/mine/approvals/{approval}").status_code == 404
        csrf = console.csrf("/mine")
        asked = {"purpose": "approve", "approval_id": approval}
        assert console.post_json("/mine/passkey/options", asked, csrf).status_code == 404
        form = {"csrf": csrf, "owner_code": rail.person_code(alice.secret)}
        headers = {"origin": console.base}
        for act in ("approve", "deny"):
            path = f"/console/mine/approvals/{approval}/{act}"
            assert console.http.post(path, data=form, headers=headers).status_code == 404
    pages = "".join(
        console.get(path).text for path in ("/mine", "/mine/filings", "/mine/positions")
    )
    assert not [value for value in bob.ids() if value in pages]
    assert alice.held_approval in pages

    # The person's own routes (approval mode, push subscriptions) for the other's connection,
    # with one's own code: refused.
    own_routes: tuple[tuple[str, dict[str, Any]], ...] = (
        ("/person/approval-mode", {"approval_mode": False}),
        ("/person/push/subscriptions", {"subscription": phones[0].subscribe(rail.push_key())}),
    )
    for path, body in own_routes:
        crossed = rail.person_post(path, 1, body, code=rail.person_code(alice.secret))
        assert crossed.status_code in (403, 429), crossed.text

    # The owner channel's acts on the other's approvals and connection, with one's own code:
    # refused, as wrong or (three wrong ones later) as locked.
    for act, params in (
        ("approve", {"approval_id": bob.held_approval}),
        ("approve", {"approval_id": bob.exercise_approval}),
        ("resume", {"connection_id": bob.connection}),
        ("disconnect", {"connection_id": bob.connection}),
    ):
        crossed = channel_act(rail.home, act, params, rail.person_code(alice.secret))
        assert (crossed.status_code, crossed.json()["error"]["code"]) in REFUSED, crossed.text

    # The operator's code approves neither person's held order nor exercise, journalled.
    seen = len(_person_acts(rail))
    for approval in (
        alice.held_approval, alice.exercise_approval, bob.held_approval, bob.exercise_approval,
    ):  # fmt: skip
        operator = channel_act(rail.home, "approve", {"approval_id": approval}, PASSPHRASE)
        assert (operator.status_code, operator.json()["error"]["code"]) in REFUSED, operator.text
    journalled = _person_acts(rail)[seen:]
    assert [why.partition(" (")[0] for _, why in journalled] == ["person act approve refused"] * 4
    assert len({who for who, _ in journalled}) == 2

    # The public record: hashed rows only, none of either person's ids.
    with httpx2.Client(base_url=rail.url, timeout=BOUND_S) as http:
        shown = http.get("/record.json")
        page = http.get("/record")
    assert shown.status_code == 200 and page.status_code == 200
    for row in shown.json()["records"]:
        assert set(row) == {
            "id", "graded", "mean_excess_bps", "median_excess_bps", "hit_rate", "rank",
            "ranked_after",
        }  # fmt: skip
    for person in (alice, bob):
        for value in (*person.ids(), person.token):
            assert value not in shown.text and value not in page.text

    assert _state(rail, bob) == before
    bobs = rail.venue.user(bob.user).venue.accounts.agentic
    assert _account(rail, bob.token, bob.account) == {
        "positions": [("SPY", SHARES[bob.user])], "orders": {bob.venue_order}, "cash": bobs.cash
    }  # fmt: skip
    # Bob's connection is still his to resume and his held order his to approve, once the
    # lock the wrong codes set has passed.
    rail.clock.advance(timedelta(hours=1))
    resumed = channel_act(
        rail.home, "resume", {"connection_id": bob.connection}, rail.person_code(bob.secret)
    )
    assert resumed.status_code == 200, resumed.text
    assert bob.console.sign_in(bob.passkey).status_code == 200  # the hour ended his session
    status, approved = bob.console.approve_with_passkey(bob.passkey, bob.held_approval)
    assert status == 200 and approved["status"] == "submitted", approved

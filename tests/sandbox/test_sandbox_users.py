"""The sandbox's named users (``SandboxConfig.users``): each signs in on the venue's own page
with their name and password and trades their own accounts; a token of one reads, trades and
cancels nothing of another's. Without named users the venue is its one unnamed user, signing
in with a click, as before."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from oauth_testkit import REDIRECT_URI, challenge_of, new_verifier, parse_form
from venue_testkit import START, VenueClient

from ordergate.core import ConfigError, SteppedClock
from ordergate.sandbox import Sandbox, SandboxConfig, SandboxServer
from ordergate.sandbox.oauth import SANDBOX_SUBJECT, SHARED_CLIENT_ID, WRONG_CREDENTIALS
from ordergate.sandbox.venue import IdFactory

BOUND_S = 30


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    config = SandboxConfig(port=0, seed=7, users=("alice", "bob"))
    with SandboxServer(config, clock=SteppedClock(start=START)) as served:
        yield served


def _consent(http: httpx2.Client, sandbox: Sandbox, verifier: str) -> httpx2.Response:
    params = {
        "response_type": "code",
        "client_id": SHARED_CLIENT_ID,
        "redirect_uri": REDIRECT_URI,
        "code_challenge": challenge_of(verifier),
        "code_challenge_method": "S256",
        "state": "s",
        "scope": "internal",
        "resource": sandbox.mcp_url,
    }
    return http.get(sandbox.base_url + "/oauth", params=params)


def _signed_in(sandbox: Sandbox, **credentials: str) -> httpx2.Response:
    """The venue's sign-in page approved with ``credentials`` (none: as the page is)."""
    verifier = new_verifier()
    with httpx2.Client(timeout=BOUND_S) as http:
        page = _consent(http, sandbox, verifier)
        assert page.status_code == 200, page.text
        form = {**parse_form(page.text).hidden, "decision": "approve", **credentials}
        answer = http.post(sandbox.base_url + "/oauth", data=form)
        if answer.status_code != 302:
            return answer
        code = parse_qs(urlsplit(answer.headers["location"]).query)["code"][0]
        return http.post(
            sandbox.base_url + "/oauth2/token/",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT_URI,
                "client_id": SHARED_CLIENT_ID,
                "code_verifier": verifier,
                "resource": sandbox.mcp_url,
            },
        )


def _token(sandbox: Sandbox, name: str) -> dict[str, Any]:
    password = sandbox.user(name).password
    assert password is not None
    tokens = _signed_in(sandbox, username=name, password=password.reveal())
    assert tokens.status_code == 200, tokens.text
    body: dict[str, Any] = tokens.json()
    return body


def _client(sandbox: Sandbox, token: str) -> VenueClient:
    client = VenueClient(sandbox.base_url)
    client.token = token
    client.initialize()
    return client


def test_each_named_user_signs_in_on_the_venues_page_with_their_own_password(
    sandbox: Sandbox,
) -> None:
    with httpx2.Client(timeout=BOUND_S) as http:
        page = _consent(http, sandbox, new_verifier())
    assert page.status_code == 200
    assert 'name="username"' in page.text and 'type="password"' in page.text
    assert "your sandbox accounts" in page.text
    alice, bob = _token(sandbox, "alice"), _token(sandbox, "bob")
    for user, token in (("alice", alice), ("bob", bob)):
        verified = sandbox.oauth.verify_access_token(token["access_token"])
        assert verified is not None and verified.subject == user
    alices = sandbox.user("alice").venue.accounts.agentic.account_number
    bobs = sandbox.user("bob").venue.accounts.agentic.account_number
    assert alices != bobs
    with _client(sandbox, alice["access_token"]) as client:
        assert client.agentic_account()["account_number"] == alices
    with _client(sandbox, bob["access_token"]) as client:
        assert client.agentic_account()["account_number"] == bobs


@pytest.mark.parametrize(
    "credentials",
    [
        {"username": "alice", "password": "not-the-password"},
        {"username": "mallory", "password": "whatever"},
        {"username": "alice"},
        {},
    ],
    ids=["wrong-password", "unknown-user", "no-password", "nothing"],
)
def test_a_wrong_name_or_password_shows_the_page_again_and_issues_no_code(
    sandbox: Sandbox, credentials: dict[str, str]
) -> None:
    answer = _signed_in(sandbox, **credentials)
    assert answer.status_code == 401, answer.text
    assert "location" not in answer.headers
    assert WRONG_CREDENTIALS.capitalize() in answer.text
    assert 'name="password"' in answer.text  # the page again, on a fresh ticket


def test_another_users_password_does_not_sign_in_as_them(sandbox: Sandbox) -> None:
    bobs = sandbox.user("bob").password
    assert bobs is not None
    assert _signed_in(sandbox, username="alice", password=bobs.reveal()).status_code == 401


@pytest.mark.req("sandbox.users")
def test_a_users_token_reads_trades_and_cancels_only_their_own_accounts(
    sandbox: Sandbox,
) -> None:
    alice_token, bob_token = _token(sandbox, "alice"), _token(sandbox, "bob")
    with (
        _client(sandbox, alice_token["access_token"]) as alice,
        _client(sandbox, bob_token["access_token"]) as bob,
    ):
        mine, theirs = alice.agentic_account(), bob.agentic_account()
        # Alice buys a share that fills, and leaves a limit buy far below the market open.
        filled = alice.data(
            "place_equity_order",
            {"account_number": mine["account_number"], "symbol": "SPY", "side": "buy",
             "type": "market", "quantity": "1"},
        )["order"]  # fmt: skip
        alice.step(5)
        resting = alice.data(
            "place_equity_order",
            {"account_number": mine["account_number"], "symbol": "SPY", "side": "buy",
             "type": "limit", "limit_price": "1.00", "quantity": "1"},
        )["order"]  # fmt: skip
        alices_orders = {
            row["id"]
            for row in alice.data("get_equity_orders", {"account_number": mine["account_number"]})[
                "orders"
            ]
        }
        assert alices_orders == {filled["id"], resting["id"]}
        positions = alice.data("get_equity_positions", {"account_number": mine["account_number"]})
        assert [row["symbol"] for row in positions["positions"]] == ["SPY"]

        # Bob's own account: none of Alice's orders, positions or spending.
        own = {"account_number": theirs["account_number"]}
        assert bob.data("get_equity_orders", own)["orders"] == []
        assert bob.data("get_equity_positions", own)["positions"] == []
        assert bob.data("get_portfolio", own)["cash"] == "100000.00"
        assert {row["account_number"] for row in bob.data("get_accounts")["accounts"]}.isdisjoint(
            {row["account_number"] for row in alice.data("get_accounts")["accounts"]}
        )
        # Alice's account and Alice's orders, named outright: not found for Bob.
        for name, arguments in (
            ("get_equity_orders", {"account_number": mine["account_number"]}),
            ("get_equity_positions", {"account_number": mine["account_number"]}),
            ("get_portfolio", {"account_number": mine["account_number"]}),
            ("cancel_equity_order", {**own, "order_id": resting["id"]}),
            ("cancel_equity_order", {"account_number": mine["account_number"],
                                     "order_id": resting["id"]}),
            ("place_equity_order", {"account_number": mine["account_number"], "symbol": "SPY",
                                    "side": "buy", "type": "market", "quantity": "1"}),
        ):  # fmt: skip
            assert bob.error(name, arguments)["code"] == "NOT_FOUND", (name, arguments)
        assert bob.data("get_equity_orders", {**own, "order_id": resting["id"]})["orders"] == []

        # Alice's resting order is still open, and still hers to cancel.
        [still] = alice.data(
            "get_equity_orders",
            {"account_number": mine["account_number"], "order_id": resting["id"]},
        )["orders"]
        assert still["state"] not in ("cancelled", "filled")
        alice.data(
            "cancel_equity_order",
            {"account_number": mine["account_number"], "order_id": resting["id"]},
        )


def test_a_refreshed_token_is_still_its_users(sandbox: Sandbox) -> None:
    bob = _token(sandbox, "bob")
    with httpx2.Client(timeout=BOUND_S) as http:
        rotated = http.post(
            sandbox.base_url + "/oauth2/token/",
            data={
                "grant_type": "refresh_token",
                "refresh_token": bob["refresh_token"],
                "client_id": SHARED_CLIENT_ID,
            },
        )
    assert rotated.status_code == 200, rotated.text
    with _client(sandbox, rotated.json()["access_token"]) as client:
        number = client.agentic_account()["account_number"]
    assert number == sandbox.user("bob").venue.accounts.agentic.account_number


def test_the_admin_lists_the_users_and_mints_a_token_for_one(sandbox: Sandbox) -> None:
    with VenueClient(sandbox.base_url) as admin:
        listed = admin.admin("users")["users"]
        minted = admin.admin("tokens", {"user": "bob"})["access_token"]
        state = admin.admin("state?user=bob")
        unknown = admin.http.post(sandbox.base_url + "/_sandbox/tokens", json={"user": "eve"})
    assert [(row["name"], row["password"]) for row in listed] == [
        (user.name, user.password.reveal() if user.password else None) for user in sandbox.users
    ]
    bobs = sandbox.user("bob").venue.accounts.agentic.account_number
    assert listed[1]["agentic_account"] == bobs
    assert state["user"] == "bob" and bobs in {row["account_number"] for row in state["accounts"]}
    assert unknown.status_code == 400 and unknown.json()["error"]["field"] == "user"
    with _client(sandbox, minted) as client:
        assert client.agentic_account()["account_number"] == bobs


def test_the_same_seed_gives_the_same_users_passwords_and_accounts() -> None:
    def users(seed: int) -> list[tuple[str, str, str]]:
        with SandboxServer(
            SandboxConfig(port=0, seed=seed, users=("alice", "bob")),
            clock=SteppedClock(start=START),
        ) as sandbox:
            return [
                (
                    u.name,
                    u.password.reveal() if u.password else "",
                    u.venue.accounts.agentic.account_number,
                )
                for u in sandbox.users
            ]

    assert users(7) == users(7)
    assert {row[1] for row in users(7)}.isdisjoint({row[1] for row in users(8)})


def test_without_named_users_the_venue_is_its_one_user_signing_in_with_a_click() -> None:
    with SandboxServer(SandboxConfig(port=0, seed=7), clock=SteppedClock(start=START)) as sandbox:
        [user] = sandbox.users
        assert (user.name, user.password, user.venue) == (SANDBOX_SUBJECT, None, sandbox.venue)
        with httpx2.Client(timeout=BOUND_S) as http:
            page = _consent(http, sandbox, new_verifier())
        assert 'type="password"' not in page.text and "this sandbox account" in page.text
        tokens = _signed_in(sandbox)
        assert tokens.status_code == 200, tokens.text
        with _client(sandbox, tokens.json()["access_token"]) as client:
            number = client.agentic_account()["account_number"]
    # The account numbers the one user always had.
    assert number == IdFactory(7).account_number("individual")


@pytest.mark.parametrize("users", [("Alice",), ("alice", "alice"), ("",), ("a" * 33,), ("1st",)])
def test_a_user_name_is_a_lowercase_word_given_once(users: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as refused:
        SandboxConfig(users=users)
    assert refused.value.key == "users"

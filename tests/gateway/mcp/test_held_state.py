"""A held order's ``requestState``: sealed by the gateway's key, opened only unaltered."""

from __future__ import annotations

from uuid import UUID

import pytest

from ordergate.core import Secret
from ordergate.gateway.mcp import HeldAnswers, RequestState, state_key

STATE = RequestState(
    owner="oauth|c1",
    tool="place_equity_order",
    arguments="a" * 64,
    terms="b" * 64,
    policy="c" * 64,
    filing="00000000-0000-0000-0000-000000000001",
    approval="00000000-0000-0000-0000-000000000002",
    expires=1_796_138_100,
)


@pytest.mark.req("mcp.held.request-state-sealed")
def test_a_sealed_state_opens_only_unaltered_and_only_under_its_key() -> None:
    held = HeldAnswers(key=state_key(Secret("m" * 40)), console="https://gw.example/console/")
    token = held.seal(STATE)
    assert held.open(token) == STATE
    version, payload, mac = token.split(".")
    forged = HeldAnswers(key=state_key(None), console="https://gw.example/console")
    assert forged.open(token) is None
    unreadable = "r1.%%%." + held._mac("%%%")
    not_fields = "r1.e30." + held._mac("e30")  # {}: not a state's fields
    for refused in (
        f"r2.{payload}.{mac}",
        f"{version}.{payload}x.{mac}",
        token + "=",
        "r1",
        unreadable,
        not_fields,
        "x" * 5000,
        None,
        7,
    ):
        assert held.open(refused) is None, refused


def test_the_same_master_secret_gives_every_replica_the_same_key_and_none_a_random_one() -> None:
    assert state_key(Secret("m" * 40)) == state_key(Secret("m" * 40))
    assert state_key(None) != state_key(None)
    with pytest.raises(ValueError, match="32 bytes"):
        HeldAnswers(key=b"short", console="https://gw.example/console")


def test_a_held_order_on_a_hosted_rail_sends_the_client_to_its_persons_own_approval_page() -> None:
    key = state_key(Secret("m" * 40))
    approval = UUID(STATE.approval)
    rail = HeldAnswers(key=key, console="https://rail.example/console/", person=True)
    owner = HeldAnswers(key=key, console="https://gw.example/console/")
    (asked,) = rail.asking({"status": "pending_approval"}, approval).requests
    (owners,) = owner.asking({"status": "pending_approval"}, approval).requests
    assert asked["params"]["url"] == f"https://rail.example/console/mine/approvals/{approval}"
    assert "your approval" in asked["params"]["message"]
    assert owners["params"]["url"] == f"https://gw.example/console/approvals/{approval}"
    assert "owner's approval" in owners["params"]["message"]

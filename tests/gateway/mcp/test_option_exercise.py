"""An option exercise, and its withdrawal, are the owner's acts: the guard files the request
with the contract the venue lists, holds it for the owner whatever the policy says, and sends
it once, only when the owner approves (the sandbox in live mode)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway, gateway
from options_kit import leg, near_money, option_gateway, order, quote

from ordergate.execution import APPROVAL_DECIDED
from ordergate.ledger import FilingStatus
from ordergate.policy import ProposalError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _long_call(gw: Gateway) -> str:
    """Buy one call near the money through the gateway; its option_id."""
    call = near_money(gw, "call")
    _, ask = quote(gw, call["id"])
    placed = await gw.call(
        "place_option_order", order(gw, [leg(call["id"])], price=ask, direction="debit")
    )
    assert placed["isError"] is False, placed
    gw.clock.advance(timedelta(seconds=3))  # the venue fills it
    await gw.guard.reconcile()
    option_id: str = call["id"]
    return option_id


def _position(gw: Gateway, option_id: str) -> dict[str, Any]:
    positions = gw.venue.data("get_option_positions", {"account_number": gw.account})
    (held,) = [p for p in positions["positions"] if p["option_id"] == option_id]
    found: dict[str, Any] = held
    return found


def _pending(gw: Gateway, option_id: str) -> Decimal:
    return Decimal(_position(gw, option_id)["pending_exercise_quantity"])


async def test_an_exercise_is_filed_with_its_contract_and_held_with_nothing_sent(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:  # the policy asks no approval of orders
        option_id = await _long_call(gw)
        held = await gw.guard.request_exercise(
            act="exercise", option_id=option_id, quantity=1, identity="agent"
        )
        record = gw.ledger.filing(held.filing_id)
        pending = _pending(gw, option_id)
    assert held.status is FilingStatus.PENDING_APPROVAL and held.approval_id is not None
    assert record.kind == "option_exercise"
    assert record.terms["act"] == "exercise" and record.terms["quantity"] == 1
    assert record.terms["option_id"] == option_id
    assert record.terms["contract"]["underlying"] == "AAPL"
    assert record.terms["contract"]["type"] == "call"
    assert pending == 0


async def test_the_owners_approval_sends_exactly_one_exercise_under_the_filing_id(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        held = await gw.guard.request_exercise(
            act="exercise", option_id=option_id, quantity=1, identity="agent"
        )
        assert held.approval_id is not None
        approved = await gw.guard.approve(held.approval_id, by="owner")
        again = await gw.guard.approve(held.approval_id, by="owner")
        await gw.guard.reconcile()
        pending = _pending(gw, option_id)
        status = gw.ledger.filing(held.filing_id).status
    assert approved.status is FilingStatus.FILLED
    assert again.reasons == (APPROVAL_DECIDED,)
    assert pending == 1
    assert status is FilingStatus.FILLED


async def test_a_denied_exercise_sends_nothing(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        held = await gw.guard.request_exercise(
            act="exercise", option_id=option_id, quantity=1, identity="agent"
        )
        assert held.approval_id is not None
        denied = await gw.guard.deny(held.approval_id, by="owner")
        pending = _pending(gw, option_id)
    assert denied.status is FilingStatus.DENIED
    assert pending == 0


async def test_withdrawing_an_exercise_is_held_too_and_sent_only_on_approval(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        first = await gw.guard.request_exercise(
            act="exercise", option_id=option_id, quantity=1, identity="agent"
        )
        assert first.approval_id is not None
        await gw.guard.approve(first.approval_id, by="owner")
        withdraw = await gw.guard.request_exercise(
            act="cancel_exercise", option_id=option_id, quantity=None, identity="agent"
        )
        assert withdraw.status is FilingStatus.PENDING_APPROVAL
        assert withdraw.approval_id is not None
        still = _pending(gw, option_id)
        withdrawn = await gw.guard.approve(withdraw.approval_id, by="owner")
        after = _pending(gw, option_id)
    assert still == 1
    assert withdrawn.status is FilingStatus.FILLED
    assert after == 0


async def test_an_exercise_the_venue_refuses_on_approval_ends_rejected(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        held = await gw.guard.request_exercise(
            act="exercise", option_id=option_id, quantity=5, identity="agent"
        )
        assert held.approval_id is not None
        approved = await gw.guard.approve(held.approval_id, by="owner")
        status = gw.ledger.filing(held.filing_id).status
    assert approved.status is FilingStatus.REJECTED
    assert approved.reasons == ("broker_refused",)
    assert status is FilingStatus.REJECTED


async def test_an_exercise_of_an_option_the_venue_does_not_list_is_refused_and_filed(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        refused = await gw.guard.request_exercise(
            act="exercise",
            option_id="00000000-0000-4000-8000-000000000000",
            quantity=1,
            identity="agent",
        )
        record = gw.ledger.filing(refused.filing_id)
    assert refused.status is FilingStatus.REFUSED
    assert record.reasons == ("option_not_in_chain",)


async def test_on_paper_an_exercise_is_refused_and_filed(tmp_path: Path) -> None:
    async with option_gateway(tmp_path, live=False) as gw:
        refused = await gw.guard.request_exercise(
            act="exercise", option_id="x", quantity=1, identity="agent"
        )
    assert refused.reasons == ("options_not_on_paper",)


@pytest.mark.parametrize(
    ("act", "option_id", "quantity", "field"),
    [
        ("assign", "x", 1, "act"),
        ("exercise", "", 1, "option_id"),
        ("exercise", "x", 0, "quantity"),
        ("exercise", "x", True, "quantity"),
    ],
)
async def test_a_request_that_cannot_be_filed_names_its_field_and_files_nothing(
    tmp_path: Path, act: str, option_id: str, quantity: Any, field: str
) -> None:
    async with option_gateway(tmp_path) as gw:
        with pytest.raises(ProposalError) as raised:
            await gw.guard.request_exercise(
                act=act, option_id=option_id, quantity=quantity, identity="agent"
            )
        filings = gw.filings()
    assert raised.value.field == field
    assert filings == []


async def test_an_agents_exercise_through_the_gateway_is_held_until_the_owner_approves_it(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        key = "5b0c7c5e-3f0e-4f39-9a55-6f1f2d7c9e10"
        arguments = {
            "account_number": gw.account,
            "option_id": option_id,
            "quantity": "1",
            "ref_id": key,
        }
        answer = await gw.call("exercise_option", arguments)
        retried = await gw.call("exercise_option", arguments)
        data = answer["structuredContent"]["data"]
        before = _pending(gw, option_id)
        approved = await gw.guard.approve(data["approval_id"], by="owner")
        after = _pending(gw, option_id)
        exercises = [f for f in gw.filings() if f.kind == "option_exercise"]
    assert data["status"] == "pending_approval"
    assert retried["structuredContent"]["data"]["filing_id"] == data["filing_id"]
    assert len(exercises) == 1
    assert before == 0
    assert approved.status is FilingStatus.FILLED
    assert after == 1


async def test_withdrawing_an_exercise_through_the_gateway_is_held_too(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        answer = await gw.call(
            "cancel_option_exercise", {"account_number": gw.account, "option_id": option_id}
        )
        forwarded = gw.backend.forwarded
    assert answer["structuredContent"]["data"]["status"] == "pending_approval"
    assert forwarded == []


async def test_the_built_in_trader_may_not_even_ask_for_an_exercise(tmp_path: Path) -> None:
    async with gateway(tmp_path, live=True, account_type="margin", option_level=3) as gw:
        call = near_money(gw, "call")
        error = await gw.refusal(
            "exercise_option",
            {"account_number": gw.account, "option_id": call["id"], "quantity": 1},
        )
        filings = gw.filings()
    assert error["code"] == "PROFILE_REFUSED"
    assert filings == []


@pytest.mark.parametrize(
    ("arguments", "code", "named"),
    [
        ({"allow_shorts": True}, "ARGUMENT_NOT_FILED", "allow_shorts"),
        ({"quantity": "0"}, "INVALID_ORDER", "quantity"),
        ({"account_number": "ANOTHER"}, "INVALID_ORDER", "account_number"),
    ],
)
async def test_an_exercise_request_the_gateway_cannot_file_is_refused_naming_its_field(
    tmp_path: Path, arguments: dict[str, Any], code: str, named: str
) -> None:
    async with option_gateway(tmp_path) as gw:
        call = near_money(gw, "call")
        base = {"account_number": gw.account, "option_id": call["id"], "quantity": 1}
        error = await gw.refusal("exercise_option", {**base, **arguments})
        filings = gw.filings()
    assert error["code"] == code
    assert named in error["message"]
    assert filings == []


async def test_an_approved_exercise_whose_answer_is_lost_is_unanswered_and_never_sent_again(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        option_id = await _long_call(gw)
        held = await gw.guard.request_exercise(
            act="exercise", option_id=option_id, quantity=1, identity="agent"
        )
        assert held.approval_id is not None
        gw.venue.admin("faults", {"drop_after": 1})  # the venue takes it; its answer is lost
        approved = await gw.guard.approve(held.approval_id, by="owner")
        await gw.guard.reconcile()
        status = gw.ledger.filing(held.filing_id).status
        pending = _pending(gw, option_id)
    assert approved.status is FilingStatus.UNANSWERED
    assert status is FilingStatus.UNANSWERED
    assert pending == 1


async def test_an_exercise_naming_no_option_id_as_text_is_refused_and_nothing_filed(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        answer = await gw.call(
            "exercise_option",
            {"account_number": gw.account, "option_id": 7, "quantity": "1"},
        )
        exercises = [f for f in gw.filings() if f.kind == "option_exercise"]
    assert answer["isError"] is True
    assert "INVALID_ORDER" in str(answer) and "option_id" in str(answer)
    assert exercises == []

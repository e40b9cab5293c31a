"""Cancels through the gateway (issue 12 §4.1): a connection cancels only orders it filed.

An order the gateway did not file (placed in the Robinhood app, or by another connection)
is refused and nothing is sent, unless the connection's profile grants
``orders.cancel_any``. Order ids are compared, and forwarded, in their canonical form, so an
id spelled another way (upper case, braces, ``urn:uuid:``, no dashes) is the same order; a
value that is not an order id at all is refused.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp_gateway_kit import (
    CONNECTION,
    OTHER_TOKEN,
    Gateway,
    custodian_home,
    gateway,
    identity_of,
)

from ordergate.inventory import load_inventory
from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _below_ask(gw: Gateway) -> str:
    quote = gw.venue.data("get_equity_quotes", {"symbols": ["SPY"]})["results"][0]["quote"]
    return str((Decimal(quote["ask_price"]) * Decimal("0.95")).quantize(Decimal("0.01")))


def _resting_buy(gw: Gateway) -> dict[str, Any]:
    return {
        "account_number": gw.account,
        "symbol": "SPY",
        "side": "buy",
        "type": "limit",
        "quantity": "1",
        "limit_price": _below_ask(gw),
        "time_in_force": "gtc",
    }


def _placed_in_the_app(gw: Gateway) -> str:
    """An order the owner placed at the broker directly: the gateway never filed it."""
    order_id: str = gw.venue.data("place_equity_order", _resting_buy(gw))["order"]["id"]
    return order_id


def _venue_state(gw: Gateway, order_id: str) -> str:
    orders = gw.venue.data("get_equity_orders", {"account_number": gw.account})["orders"]
    (order,) = [o for o in orders if o["id"] == order_id]
    state: str = order["state"]
    return state


def _spellings(order_id: str) -> dict[str, str]:
    parsed = uuid.UUID(order_id)
    return {
        "upper-case": order_id.upper(),
        "braced": "{" + order_id + "}",
        "urn": parsed.urn,
        "dashless": parsed.hex,
        "dashless-upper": parsed.hex.upper(),
    }


@pytest.mark.req("gateway.bypass.cancel-foreign-order")
async def test_a_cancel_of_an_order_the_gateway_did_not_file_is_refused_and_nothing_is_sent(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        order_id = _placed_in_the_app(gw)
        refused = await gw.refusal(
            "cancel_equity_order", {"account_number": gw.account, "order_id": order_id}
        )
        state = _venue_state(gw, order_id)
        entries = [e for e in gw.ledger.journal.entries() if e.kind == "cancel"]
    assert refused["code"] == "NOT_YOUR_ORDER"
    assert "Nothing was sent" in refused["message"]
    assert gw.backend.forwarded == []
    assert state not in ("cancelled", "canceled")
    (entry,) = entries  # the refusal is on the record, under the connection that asked
    assert entry.identity == identity_of(CONNECTION)
    assert entry.detail["outcome"] == "refused"
    assert entry.detail["order_id"] == order_id


@pytest.mark.parametrize("spelling", list(_spellings(str(uuid.uuid4()))))
@pytest.mark.req("gateway.bypass.cancel-id-spelling")
async def test_an_order_id_spelled_another_way_cannot_skip_the_ownership_check(
    tmp_path: Path, spelling: str
) -> None:
    async with gateway(tmp_path, live=True) as gw:
        theirs = await gw.call("place_equity_order", _resting_buy(gw), token=OTHER_TOKEN)
        order_id = theirs["structuredContent"]["data"]["order_id"]
        refused = await gw.refusal(
            "cancel_equity_order",
            {"account_number": gw.account, "order_id": _spellings(order_id)[spelling]},
        )
        filing = gw.ledger.filing(theirs["structuredContent"]["data"]["filing_id"])
        state = _venue_state(gw, order_id)
    assert refused["code"] == "NOT_YOUR_ORDER"
    assert all(name != "cancel_equity_order" for name, _ in gw.backend.forwarded)
    assert filing.status is FilingStatus.SUBMITTED
    assert state not in ("cancelled", "canceled")


@pytest.mark.req("gateway.bypass.cancel-id-spelling")
async def test_a_connection_cancels_its_own_order_by_any_spelling_of_its_id_through_the_guard(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, live=True) as gw:
        mine = await gw.call("place_equity_order", _resting_buy(gw))
        data = mine["structuredContent"]["data"]
        result = await gw.call(
            "cancel_equity_order",
            {"account_number": gw.account, "order_id": "{" + data["order_id"].upper() + "}"},
        )
        status = gw.ledger.filing(data["filing_id"]).status
        state = _venue_state(gw, data["order_id"])
    assert result["isError"] is False, result
    assert result["structuredContent"]["data"] == {"accepted": True}
    assert status is FilingStatus.CANCELLED
    assert state in ("cancelled", "canceled")


@pytest.mark.parametrize(
    "order_id",
    ["o-1", "", " 9c5b94b1-35ad-49bb-b118-8e8fc24abf80", "9c5b94b1-35ad-49bb-b118-8e8fc24abf80\n",
     "9c5b94b1-35ad-49bb-b118-8e8fc24abf8", "paper-nothex", 7, None, ["x"]],
    ids=["word", "empty", "space-padded", "newline", "short", "paper-not-hex", "number",
         "null", "list"],
)  # fmt: skip
@pytest.mark.req("gateway.bypass.cancel-id-spelling")
async def test_a_cancel_naming_something_that_is_not_an_order_id_is_refused_and_not_sent(
    tmp_path: Path, order_id: object
) -> None:
    home = custodian_home(tmp_path)
    async with gateway(tmp_path, profile="custodian", profiles_home=home) as gw:
        refused = await gw.refusal(
            "cancel_equity_order", {"account_number": gw.account, "order_id": order_id}
        )
    assert refused["code"] == "INVALID_ORDER_ID"
    assert gw.backend.forwarded == []


@pytest.mark.req("gateway.bypass.cancel-foreign-order")
async def test_a_profile_granting_cancel_any_forwards_the_canonical_id_and_records_it(
    tmp_path: Path,
) -> None:
    home = custodian_home(tmp_path)
    async with gateway(tmp_path, profile="custodian", profiles_home=home) as gw:
        order_id = _placed_in_the_app(gw)
        arguments = {"account_number": gw.account, "order_id": uuid.UUID(order_id).urn}
        result = await gw.call("cancel_equity_order", arguments)
        state = _venue_state(gw, order_id)
        (entry,) = [e for e in gw.ledger.journal.entries() if e.kind == "cancel"]
    assert result["isError"] is False, result
    assert gw.backend.forwarded == [
        ("cancel_equity_order", {"account_number": gw.account, "order_id": order_id})
    ]
    assert state in ("cancelled", "canceled")
    assert entry.detail == {
        "tool": "cancel_equity_order",
        "outcome": "forwarded",
        "order_id": order_id,
    }


@pytest.mark.req("gateway.bypass.cancel-foreign-order")
async def test_withdrawing_an_exercise_is_the_owners_act_refused_whatever_the_profile(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path, profile="custodian", profiles_home=custodian_home(tmp_path)) as gw:
        refused = await gw.refusal(
            "cancel_option_exercise",
            {"account_number": gw.account, "option_id": str(uuid.uuid4())},
        )
    assert refused["code"] == "PROFILE_REFUSED"
    assert gw.backend.forwarded == []


@pytest.mark.req("gateway.bypass.cancel-foreign-order")
async def test_a_cancel_of_every_order_is_refused_without_cancel_any(tmp_path: Path) -> None:
    extra = [
        {
            "name": "cancel_all_orders",
            "inputSchema": {"type": "object"},
            "annotations": {"destructiveHint": True},
        }
    ]
    async with gateway(tmp_path, extra_tools=extra) as gw:
        refused = await gw.refusal("cancel_all_orders")
    assert refused["code"] == "NOT_YOUR_ORDER"
    assert gw.backend.forwarded == []


async def test_deleting_an_alert_is_not_an_order_cancel_and_is_forwarded(tmp_path: Path) -> None:
    extra = [
        {
            "name": "delete_alert",
            "inputSchema": {"type": "object", "properties": {"alert_id": {"type": "string"}}},
        }
    ]
    home = tmp_path / "home"
    (home / "profiles").mkdir(parents=True)
    (home / "profiles" / "alerts.yaml").write_text(
        "name: alerts\ndescription: Manages alerts.\npermissions: [alerts.write]\n"
    )
    async with gateway(tmp_path, extra_tools=extra, profile="alerts", profiles_home=home) as gw:
        await gw.call("delete_alert", {"alert_id": "a-1"})
        (entry,) = [e for e in gw.ledger.journal.entries() if e.kind == "cancel"]
    assert gw.backend.forwarded == [("delete_alert", {"alert_id": "a-1"})]
    assert entry.detail["outcome"] != "refused"


@pytest.mark.parametrize("live", [False, True], ids=["paper", "live"])
async def test_a_cancel_through_the_guard_answers_the_cancel_tools_own_output_schema(
    tmp_path: Path, live: bool
) -> None:
    """An official SDK validates structured content against the advertised output schema
    (``data`` is ``{accepted}`` and nothing else): the filing and its status go in the guide."""
    schema = load_inventory()["cancel_equity_order"].output_schema
    assert schema is not None
    async with gateway(tmp_path, live=live) as gw:
        data = (await gw.call("place_equity_order", _resting_buy(gw)))["structuredContent"]["data"]
        arguments = {"account_number": gw.account, "order_id": data["order_id"]}
        first = await gw.call("cancel_equity_order", arguments)
        again = await gw.call("cancel_equity_order", arguments)
    for result in (first, again):
        assert result["isError"] is False, result
        Draft202012Validator(schema).validate(result["structuredContent"])
    assert first["structuredContent"]["data"] == {"accepted": True}
    assert f"filing {data['filing_id']} is cancelled" in first["structuredContent"]["guide"]
    # Once cancelled, cancelling again changes nothing, and says so.
    assert again["structuredContent"]["data"] == {"accepted": True}


async def test_a_cancel_of_an_order_that_already_filled_answers_not_accepted(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        buy = {**_resting_buy(gw), "type": "market", "time_in_force": "gfd"}
        del buy["limit_price"]
        data = (await gw.call("place_equity_order", buy))["structuredContent"]["data"]
        assert data["status"] == "submitted", data
        await gw.settle()
        result = await gw.call(
            "cancel_equity_order", {"account_number": gw.account, "order_id": data["order_id"]}
        )
        status = gw.ledger.filing(data["filing_id"]).status
    assert status is FilingStatus.FILLED
    assert result["isError"] is False, result
    assert result["structuredContent"]["data"] == {"accepted": False}
    assert "is filled" in result["structuredContent"]["guide"]

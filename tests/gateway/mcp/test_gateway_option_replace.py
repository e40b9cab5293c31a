"""``replace_option_order`` through the gateway against the sandbox in live mode and, but for
a fill and a fault at the venue itself, on paper too (the venue's engine on the sandbox's
prices, ``BOTH``): a new filing checked in full while the replaced order still holds its
reservation; refused with its reason and nothing sent (the replaced order still working at
the venue), or the replaced order cancelled and the replacement placed under its own
filing's id. Never forwarded: the venue does not serve the tool (an upstream that lists it
is stood in by ``extra_tools``)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import OTHER_TOKEN, Gateway
from options_kit import (
    account_orders,
    answer_data,
    leg,
    near_money,
    option_gateway,
    option_policy,
    order,
    quote,
    venue_orders,
)

from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio

HUNDRED = Decimal(100)
TICK = Decimal("0.05")
REPLACE = {
    "name": "replace_option_order",
    "inputSchema": {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "price": {"type": "string"}},
    },
}


BOTH = pytest.mark.parametrize("live", [True, False], ids=["live", "paper"])


def _resting(bid: Decimal) -> Decimal:
    """A debit under the bid (it rests), in the contract's tick."""
    return (bid * Decimal("0.8") / TICK).quantize(Decimal(1)) * TICK


async def _rest(gw: Gateway) -> tuple[str, Decimal, Decimal]:
    """A long put resting at the venue: its order id, its resting price and its ask."""
    put = near_money(gw, "put")
    bid, ask = quote(gw, put["id"])
    price = _resting(bid)
    placed = await gw.call(
        "place_option_order", order(gw, [leg(put["id"])], price=price, direction="debit")
    )
    data = answer_data(placed)
    assert data["status"] == "submitted", data
    gw.clock.advance(timedelta(seconds=1))
    await gw.guard.reconcile()
    (sent,) = await account_orders(gw)
    assert sent["state"] not in ("filled", "cancelled", "canceled"), sent
    return data["order_id"], price, ask


def _held(gw: Gateway) -> Decimal:
    return gw.ledger.rolling_spend(gw.account, kind="option_order").notional


async def _states(gw: Gateway) -> dict[str, str]:
    """Each order's state at the venue live, in the paper book on paper."""
    return {o["id"]: o["state"] for o in await account_orders(gw)}


def _replace(gw: Gateway, order_id: str, **fields: Any) -> dict[str, Any]:
    return {"account_number": gw.account, "order_id": order_id, **fields}


@BOTH
async def test_a_replace_that_raises_the_premium_past_the_cap_is_refused_and_nothing_sent(
    tmp_path: Path,
    live: bool,
) -> None:
    async with option_gateway(tmp_path, live=live, extra_tools=[REPLACE]) as gw:
        order_id, price, _ = await _rest(gw)
        cap = price * HUNDRED + TICK * 10
        gw.guard.use_policy(option_policy(max_premium_usd=f'"{cap}"'))
        before = await _states(gw)
        raised = price + TICK * 2  # one contract: 100 × the rise is $10, past the cap
        result = await gw.call("replace_option_order", _replace(gw, order_id, price=str(raised)))
        data = answer_data(result)
        after, held = await _states(gw), _held(gw)
        forwarded = [name for name, _ in gw.backend.forwarded]
        (original, replacement) = sorted(gw.filings(), key=lambda r: r.created_at)
    assert result["isError"] is True and data["status"] == "refused", data
    assert data["reasons"] == ["option_premium_over_cap"]
    assert after == before  # the replaced order still works; nothing else reached the venue
    assert "replace_option_order" not in forwarded and "cancel_option_order" not in forwarded
    assert held == price * HUNDRED  # the replaced order's reservation only
    assert original.status is not FilingStatus.CANCELLED
    assert replacement.status is FilingStatus.REFUSED
    assert Decimal(str(replacement.terms["limit_price"])) == raised


@BOTH
async def test_a_replace_past_the_daily_cap_counting_the_replaced_orders_hold_is_refused(
    tmp_path: Path,
    live: bool,
) -> None:
    async with option_gateway(tmp_path, live=live, extra_tools=[REPLACE]) as gw:
        order_id, price, _ = await _rest(gw)
        # Room for the replaced order's hold and less than one more of the same.
        daily = price * HUNDRED * Decimal("1.5")
        gw.guard.use_policy(option_policy(max_daily_premium_usd=f'"{daily}"'))
        before = await _states(gw)
        lower = price - TICK  # less premium, yet both holds count until the cancel
        result = await gw.call("replace_option_order", _replace(gw, order_id, price=str(lower)))
        data = answer_data(result)
        after = await _states(gw)
    assert data["status"] == "refused", data
    assert data["reasons"] == ["option_daily_premium_over_cap"]
    assert after == before


@BOTH
async def test_a_replace_within_the_caps_cancels_the_order_then_places_its_replacement(
    tmp_path: Path,
    live: bool,
) -> None:
    async with option_gateway(tmp_path, live=live, extra_tools=[REPLACE]) as gw:
        order_id, price, _ = await _rest(gw)
        lower = price - TICK
        result = await gw.call("replace_option_order", _replace(gw, order_id, price=str(lower)))
        data = answer_data(result)
        states, held = await _states(gw), _held(gw)
        (original, replacement) = sorted(gw.filings(), key=lambda r: r.created_at)
        forwarded = [name for name, _ in gw.backend.forwarded]
        entries = [e for e in gw.ledger.journal.entries() if e.kind == "replace"]
    assert result["isError"] is False and data["status"] == "submitted", data
    assert states[order_id] in ("cancelled", "canceled")
    assert states[data["order_id"]] not in ("cancelled", "canceled", "filled")
    assert len(states) == 2
    assert original.status is FilingStatus.CANCELLED
    assert replacement.id != original.id and str(replacement.id) == data["filing_id"]
    assert replacement.terms["legs"] == original.terms["legs"]  # unnamed fields kept
    assert held == lower * HUNDRED  # the replaced order's hold released on the cancel
    assert "replace_option_order" not in forwarded
    assert [e.detail["replaces"] for e in entries] == [str(original.id)]


@BOTH
async def test_another_connections_order_is_not_replaced(tmp_path: Path, live: bool) -> None:
    async with option_gateway(tmp_path, live=live, extra_tools=[REPLACE]) as gw:
        order_id, price, _ = await _rest(gw)
        error = await gw.refusal(
            "replace_option_order", _replace(gw, order_id, price=str(price)), token=OTHER_TOKEN
        )
        states = await _states(gw)
    assert error["code"] == "NOT_YOUR_ORDER"
    assert list(states.values()) != ["cancelled"] and len(states) == 1


@BOTH
async def test_a_replace_naming_a_field_the_filing_cannot_is_refused_before_anything(
    tmp_path: Path,
    live: bool,
) -> None:
    async with option_gateway(tmp_path, live=live, extra_tools=[REPLACE]) as gw:
        order_id, price, _ = await _rest(gw)
        error = await gw.refusal(
            "replace_option_order", _replace(gw, order_id, price=str(price), strategy="covered")
        )
        filings = gw.filings()
    assert error["code"] == "ARGUMENT_NOT_FILED"
    assert len(filings) == 1


async def test_a_replace_of_a_filled_order_is_refused_and_nothing_filed_or_sent(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path, extra_tools=[REPLACE]) as gw:
        call = near_money(gw, "call")
        _, ask = quote(gw, call["id"])
        placed = await gw.call(
            "place_option_order", order(gw, [leg(call["id"])], price=ask, direction="debit")
        )
        order_id = answer_data(placed)["order_id"]
        gw.clock.advance(timedelta(seconds=3))
        await gw.guard.reconcile()
        error = await gw.refusal("replace_option_order", _replace(gw, order_id, price=str(ask)))
        sent, filings = venue_orders(gw), gw.filings()
    assert error["code"] == "ORDER_NOT_OPEN"
    assert len(sent) == 1 and len(filings) == 1


async def test_a_cancel_the_venue_never_confirms_ends_the_replacement_with_nothing_placed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with option_gateway(tmp_path, extra_tools=[REPLACE]) as gw:
        order_id, price, _ = await _rest(gw)
        lane = gw.guard.venue.options
        assert lane is not None
        cancel = lane.cancel

        async def lost(account: str, venue_order_id: str) -> None:
            gw.venue.admin("faults", {"drop_before": 1})  # the cancel never reaches the venue
            await cancel(account, venue_order_id)

        monkeypatch.setattr(lane, "cancel", lost)  # the lane's own method, wrapped
        lower = price - TICK
        result = await gw.call("replace_option_order", _replace(gw, order_id, price=str(lower)))
        data = answer_data(result)
        states, held = await _states(gw), _held(gw)
        (original, replacement) = sorted(gw.filings(), key=lambda r: r.created_at)
    assert data["status"] == "refused", data
    assert data["reasons"] == ["option_replace_not_cancelled"]
    assert list(states) == [order_id]  # still working; nothing of the replacement placed
    assert states[order_id] not in ("cancelled", "canceled", "filled")
    assert original.status is not FilingStatus.CANCELLED
    assert replacement.status is FilingStatus.REFUSED
    assert held == price * HUNDRED  # the replacement's hold released, the original's kept

"""Realised P&L on paper (issue 15 §1): ``get_realized_pnl`` and ``get_pnl_trade_history``
answer from the paper book's fills, first in first out as the sandbox venue books them, in
the venue's own shapes, marked paper; they take the rhs account number, read from the
upstream's ``get_accounts``, and fail closed when it cannot be read. Over real loopback HTTP
in front of a real sandbox venue."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp_gateway_kit import gateway

from ordergate.core import Side
from ordergate.gateway.mcp._paper_reads import PAPER_GUIDE
from ordergate.venues.paper import PaperFill, closed_trades

pytestmark = pytest.mark.anyio

# The shapes the sandbox venue answers (no output schema of these tools was captured; the
# test below checks the venue's own answers against them too).
_MONEY = {"type": "string", "pattern": r"^-?\d+\.\d{2}$"}
_TEXT = {"type": "string"}
_ROW = {
    "type": "object",
    "additionalProperties": False,
    "required": ["asset_class", "realized_pnl", "proceeds", "cost_basis", "fees", "trade_count"],
    "properties": {
        "asset_class": {"enum": ["equity", "option", "crypto"]},
        "realized_pnl": _MONEY, "proceeds": _MONEY, "cost_basis": _MONEY, "fees": _MONEY,
        "trade_count": {"type": "integer", "minimum": 0},
    },
}  # fmt: skip
REALIZED_PNL = {
    "type": "object",
    "additionalProperties": False,
    "required": ["account_number", "span", "start_date", "end_date", "timezone",
                 "display_currency", "total_realized_pnl", "by_asset_class"],
    "properties": {
        "account_number": _TEXT, "span": _TEXT, "start_date": {"type": ["string", "null"]},
        "end_date": _TEXT, "timezone": _TEXT, "display_currency": {"const": "USD"},
        "total_realized_pnl": _MONEY, "by_asset_class": {"type": "array", "items": _ROW},
    },
}  # fmt: skip
_TRADE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "asset_class", "symbol", "instrument_id", "quantity", "open_lot_id",
                 "opened_at", "closed_at", "open_price", "close_price", "cost_basis",
                 "proceeds", "fees", "realized_pnl", "holding_period", "order_id",
                 "execution_id"],
    "properties": {
        "id": _TEXT, "asset_class": {"const": "equity"}, "symbol": _TEXT,
        "instrument_id": _TEXT, "quantity": _TEXT, "open_lot_id": _TEXT, "opened_at": _TEXT,
        "closed_at": _TEXT, "open_price": _TEXT, "close_price": _TEXT, "cost_basis": _MONEY,
        "proceeds": _MONEY, "fees": _MONEY, "realized_pnl": _MONEY,
        "holding_period": {"enum": ["short_term", "long_term"]}, "order_id": _TEXT,
        "execution_id": _TEXT,
    },
}  # fmt: skip
TRADE_HISTORY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["span", "realized_pnl", "trades"],
    "properties": {
        "span": _TEXT, "realized_pnl": _MONEY, "trades": {"type": "array", "items": _TRADE},
        "next": _TEXT,
    },
}  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _order(account: str, side: str, quantity: str) -> dict[str, Any]:
    return {
        "account_number": account,
        "symbol": "SPY",
        "side": side,
        "type": "market",
        "quantity": quantity,
    }


def _paper(result: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    assert result["isError"] is False, result
    assert result["structuredContent"]["guide"] == PAPER_GUIDE
    data: dict[str, Any] = result["structuredContent"]["data"]
    Draft202012Validator(schema).validate(data)
    return data


def _rhs(gw: Any) -> str:
    accounts = gw.venue.data("get_accounts", {})["accounts"]
    rhs: str = next(a for a in accounts if a["account_number"] == gw.account)["rhs_account_number"]
    return rhs


@pytest.mark.req("gateway.paper.realized-pnl")
async def test_paper_realised_pnl_closes_the_oldest_fills_first_in_the_venues_shapes(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        rhs = _rhs(gw)
        first = await gw.call("place_equity_order", _order(gw.account, "buy", "2"))
        gw.clock.advance(timedelta(minutes=5))
        second = await gw.call("place_equity_order", _order(gw.account, "buy", "2"))
        gw.clock.advance(timedelta(minutes=5))
        sold = await gw.call("place_equity_order", _order(gw.account, "sell", "3"))
        pnl = await gw.call("get_realized_pnl", {"account_number": rhs})
        history = await gw.call("get_pnl_trade_history", {"account_number": rhs})
        only_spy = await gw.call("get_pnl_trade_history", {"account_number": rhs, "symbol": "spy"})
        other = await gw.call("get_pnl_trade_history", {"account_number": rhs, "symbol": "AAPL"})
        fills = gw.guard.reader.book.fills(gw.account)
    assert {o["structuredContent"]["data"]["status"] for o in (first, second, sold)} == {"filled"}
    buy_1, buy_2, sale = fills
    trades = _paper(history, TRADE_HISTORY)["trades"]
    # Newest first; one sale closing two lots keeps them in the order it closed them.
    assert [(t["open_lot_id"], t["quantity"]) for t in trades] == [
        (buy_1.fill_id, "2"),
        (buy_2.fill_id, "1"),
    ]
    expected = (
        (sale.price * 3).quantize(Decimal("0.01"))
        - (buy_1.price * 2).quantize(Decimal("0.01"))
        - buy_2.price.quantize(Decimal("0.01"))
    )
    assert Decimal(_paper(history, TRADE_HISTORY)["realized_pnl"]) == expected
    assert all(t["fees"] == "0.00" and t["execution_id"] == sale.fill_id for t in trades)
    data = _paper(pnl, REALIZED_PNL)
    assert data["account_number"] == rhs and data["span"] == "all"
    assert Decimal(data["total_realized_pnl"]) == expected
    rows = {row["asset_class"]: row for row in data["by_asset_class"]}
    assert (
        rows["equity"]["trade_count"] == 2 and Decimal(rows["equity"]["realized_pnl"]) == expected
    )
    assert rows["option"]["trade_count"] == rows["crypto"]["trade_count"] == 0
    assert _paper(only_spy, TRADE_HISTORY)["trades"] == trades
    assert _paper(other, TRADE_HISTORY)["trades"] == []
    # Only the account list was read upstream (for the rhs number); no P&L read was sent.
    assert {name for name, _ in gw.backend.forwarded} == {"get_accounts"}


async def test_the_venue_answers_its_own_pnl_reads_in_the_shapes_paper_answers_in(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        rhs = _rhs(gw)
        for side in ("buy", "sell"):
            args = {**_order(gw.account, side, "1"), "ref_id": str(uuid.uuid4())}
            gw.venue.data("place_equity_order", args)
            gw.clock.advance(timedelta(minutes=1))  # the venue fills on its own clock
        venue_pnl = gw.venue.data("get_realized_pnl", {"account_number": rhs})
        venue_history = gw.venue.data("get_pnl_trade_history", {"account_number": rhs})
    Draft202012Validator(REALIZED_PNL).validate(venue_pnl)
    Draft202012Validator(TRADE_HISTORY).validate(venue_history)
    assert len(venue_history["trades"]) == 1


async def test_paper_pnl_reads_are_refused_for_any_number_but_the_traded_accounts_rhs(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        agentic = await gw.refusal("get_realized_pnl", {"account_number": gw.account})
        stranger = await gw.refusal("get_pnl_trade_history", {"account_number": "999"})
        rhs = _rhs(gw)
        cursor = await gw.refusal("get_pnl_trade_history", {"account_number": rhs, "cursor": "x"})
        span = await gw.refusal("get_realized_pnl", {"account_number": rhs, "span": "decade"})
        zone = await gw.refusal("get_realized_pnl", {"account_number": rhs, "timezone": "Mars/X"})
        klass = await gw.refusal(
            "get_realized_pnl", {"account_number": rhs, "asset_classes": ["x"]}
        )
        usd = await gw.refusal(
            "get_realized_pnl", {"account_number": rhs, "display_currency": "EUR"}
        )
        day = await gw.refusal("get_realized_pnl", {"account_number": rhs, "end_date": "soon"})
        order = await gw.refusal(
            "get_realized_pnl",
            {"account_number": rhs, "start_date": "2026-02-02", "end_date": "2026-01-01"},
        )
    assert agentic["code"] == "INVALID_ARGUMENT" and "rhs_account_number" in agentic["message"]
    assert stranger["code"] == "NOT_THE_PAPER_ACCOUNT"
    for refused, field in (
        (cursor, "cursor"), (span, "span"), (zone, "timezone"), (klass, "asset_classes[0]"),
        (usd, "display_currency"), (day, "end_date"), (order, "start_date"),
    ):  # fmt: skip
        assert refused["code"] == "INVALID_ARGUMENT" and field in refused["message"], refused


@pytest.mark.req("gateway.paper.fail-closed")
async def test_paper_pnl_is_refused_when_the_rhs_number_cannot_be_read(tmp_path: Path) -> None:
    async with gateway(tmp_path) as gw:
        rhs = _rhs(gw)

        async def no_accounts(connection_id: str, name: str, arguments: dict[str, Any]) -> Any:
            return {"accounts": [{"account_number": gw.account}]}  # no rhs number given

        gw.backend.forward = no_accounts
        unnamed = await gw.refusal("get_realized_pnl", {"account_number": rhs})
    assert unnamed["code"] == "PAPER_ACCOUNT_UNKNOWN"


def test_first_in_first_out_spans_lots_and_rounds_to_the_cent_half_even() -> None:
    at = datetime(2026, 3, 2, 15, tzinfo=UTC)

    def fill(n: int, side: Side, quantity: str, price: str) -> PaperFill:
        return PaperFill(
            f"f{n}", f"o{n}", "SPY", side, Decimal(quantity), Decimal(price),
            at + timedelta(minutes=n),
        )  # fmt: skip

    fills = (
        fill(1, Side.BUY, "0.5", "100.005"),
        fill(2, Side.BUY, "1", "101"),
        fill(3, Side.SELL, "1", "102.01"),
        fill(4, Side.SELL, "5", "103"),  # beyond what is open: closes what there is
    )
    trades = closed_trades(fills)
    assert [(t.execution_id, t.open_lot_id, t.quantity) for t in trades] == [
        ("f4", "f2", Decimal("0.5")),
        ("f3", "f1", Decimal("0.5")),
        ("f3", "f2", Decimal("0.5")),
    ]
    assert trades[1].cost_basis == Decimal("50.00")  # 50.0025 to the even cent
    assert trades[1].realized_pnl == Decimal("51.00") - Decimal("50.00")


async def test_a_paper_desk_without_an_account_list_refuses_pnl_reads() -> None:
    from types import SimpleNamespace

    from ordergate.gateway.mcp._paper_pnl import realized_pnl
    from ordergate.gateway.mcp._refusing import Refused

    desk: Any = SimpleNamespace(account="5QR00000", upstream=None)
    with pytest.raises(Refused) as refused:
        await realized_pnl(desk, {"account_number": "851234567"})
    assert refused.value.code == "PAPER_ACCOUNT_UNKNOWN"

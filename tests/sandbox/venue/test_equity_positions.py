"""Positions, tax lots and realised P&L follow the executions exactly."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from equity_testkit import Harness, build_harness


def _buy(h: Harness, shares: str, ask: str) -> None:
    bid = str(Decimal(ask) - Decimal("0.02"))
    h.market.set("AAPL", bid, ask, last=str(Decimal(ask) - Decimal("0.01")))
    h.place(symbol="AAPL", side="buy", type="market", quantity=shares)
    h.advance(2)


def _lots(h: Harness) -> list[dict[str, Any]]:
    lots: list[dict[str, Any]] = h.call(
        "get_equity_tax_lots", account_number=h.agentic.account_number, symbol="AAPL"
    )["tax_lots"]
    return lots


def test_each_buy_execution_opens_one_tax_lot_at_its_price() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    _buy(h, "5", "110.00")
    lots = _lots(h)
    assert [(lot["quantity"], lot["cost_basis_per_share"]) for lot in lots] == [
        ("10", "100.00"),
        ("5", "110.00"),
    ]
    assert lots[0]["holding_period"] == "short_term"
    assert lots[0]["acquired_at"] == "2026-12-01T15:00:02.000000Z"
    [position] = h.call("get_equity_positions", account_number=h.agentic.account_number)[
        "positions"
    ]
    assert position["quantity"] == "15"
    assert position["cost_basis"] == "1550.00"
    assert position["average_buy_price"] == "103.3333"
    assert position["shares_available_for_sells"] == "15"


def test_a_sell_closes_the_oldest_lots_first_and_books_realised_pnl() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    _buy(h, "5", "110.00")
    h.market.set("AAPL", "120.00", "120.02", last="120.01")
    sell = h.place(symbol="AAPL", side="sell", type="market", quantity="12")
    h.advance(2)
    filled = h.order(sell["id"])
    assert filled["state"] == "filled"
    fees = Decimal(filled["fees"])
    assert [lot["quantity"] for lot in _lots(h)] == ["3"]
    rhs = h.agentic.rhs_account_number
    history = h.call("get_pnl_trade_history", account_number=rhs)
    trades = history["trades"]
    assert [(t["quantity"], t["cost_basis"], t["proceeds"]) for t in trades] == [
        ("10", "1000.00", "1200.00"),
        ("2", "220.00", "240.00"),
    ]
    assert sum(Decimal(t["fees"]) for t in trades) == fees
    expected = Decimal("1440.00") - Decimal("1220.00") - fees
    assert Decimal(history["realized_pnl"]) == expected
    pnl = h.call("get_realized_pnl", account_number=rhs)
    assert Decimal(pnl["total_realized_pnl"]) == expected
    equity = next(row for row in pnl["by_asset_class"] if row["asset_class"] == "equity")
    assert equity["trade_count"] == 2
    assert Decimal(equity["realized_pnl"]) == expected


def test_a_sell_naming_its_lots_closes_exactly_those_lots() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    _buy(h, "5", "110.00")
    newest = _lots(h)[1]["open_lot_id"]
    h.market.set("AAPL", "120.00", "120.02", last="120.01")
    h.place(
        symbol="AAPL",
        side="sell",
        type="market",
        quantity="4",
        tax_lots=[{"open_lot_id": newest, "quantity": "4"}],
    )
    h.advance(2)
    assert [lot["quantity"] for lot in _lots(h)] == ["10", "1"]
    [trade] = h.call("get_pnl_trade_history", account_number=h.agentic.rhs_account_number)["trades"]
    assert trade["open_lot_id"] == newest
    assert trade["cost_basis"] == "440.00"


def test_a_lot_named_by_an_open_sell_is_not_sold_by_a_first_in_first_out_sell() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    _buy(h, "5", "110.00")
    oldest = _lots(h)[0]["open_lot_id"]
    h.place(
        symbol="AAPL",
        side="sell",
        type="limit",
        quantity="10",
        limit_price="500.00",
        time_in_force="gtc",
        tax_lots=[{"open_lot_id": oldest, "quantity": "10"}],
    )
    h.place(symbol="AAPL", side="sell", type="market", quantity="5")
    h.advance(2)
    assert [lot["quantity"] for lot in _lots(h)] == ["10"]
    [position] = h.call("get_equity_positions", account_number=h.agentic.account_number)[
        "positions"
    ]
    assert position["shares_held_for_sells"] == "10"
    assert position["shares_available_for_sells"] == "0"


def test_a_named_lot_sold_in_several_executions_is_tracked_to_the_end() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    oldest = _lots(h)[0]["open_lot_id"]
    h.market.set("AAPL", "120.00", "120.02", last="120.01", size=4)
    sell = h.place(
        symbol="AAPL",
        side="sell",
        type="market",
        quantity="10",
        tax_lots=[{"open_lot_id": oldest, "quantity": "10"}],
    )
    h.advance(4)
    assert [e["quantity"] for e in h.order(sell["id"])["executions"]] == ["4", "4", "2"]
    assert _lots(h) == []
    assert h.call("get_equity_positions", account_number=h.agentic.account_number) == {
        "positions": []
    }


def test_portfolio_values_positions_at_the_current_last_price() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    h.market.set("AAPL", "149.99", "150.01", last="150.00")
    h.place(symbol="AAPL", side="buy", type="limit", quantity="2", limit_price="140.00")
    portfolio = h.call("get_portfolio", account_number=h.agentic.account_number)
    assert portfolio["equity_value"] == "1500.00"
    assert portfolio["cash"] == "99000.00"
    assert portfolio["total_value"] == "100500.00"
    assert portfolio["buying_power"]["buying_power"] == "98720.00"


def test_realised_pnl_spans_and_dates_select_the_trades_closed_in_them() -> None:
    h = build_harness()
    _buy(h, "10", "100.00")
    h.market.set("AAPL", "120.00", "120.02", last="120.01")
    h.place(symbol="AAPL", side="sell", type="market", quantity="10")
    h.advance(2)
    h.set_time(datetime(2026, 12, 3, 15, 0, tzinfo=UTC))
    rhs = h.agentic.rhs_account_number

    def total(**args: Any) -> str:
        value: str = h.call("get_realized_pnl", account_number=rhs, **args)["total_realized_pnl"]
        return value

    closed = total()
    assert closed != "0.00"
    assert total(span="day") == "0.00"
    for span in ("week", "month", "3month", "ytd", "year", "5year", "all"):
        assert total(span=span) == closed
    assert total(start_date="2026-12-02") == "0.00"
    assert total(start_date="2026-12-01", end_date="2026-12-01") == closed
    assert total(asset_classes=["crypto"]) == "0.00"
    assert total(timezone="Asia/Tokyo", span="all") == closed
    assert h.call("get_pnl_trade_history", account_number=rhs, symbol="MSFT")["trades"] == []
    assert len(h.call("get_pnl_trade_history", account_number=rhs, symbol="aapl")["trades"]) == 1

"""Each strategy shape through the gateway against the sandbox in live mode (a margin account
at option level 3): recognised from its legs and the account's holdings, filed with every
leg, placed under the filing's id, filled, and its reservation ending at the premium that
filled (the venue's ``processed_premium``)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from mcp_gateway_kit import Gateway
from options_kit import (
    at_natural,
    leg,
    near_money,
    option_gateway,
    option_journal,
    option_policy,
    venue_orders,
)
from typer.testing import CliRunner

from ordergate.cli import app
from ordergate.ledger import FilingStatus

pytestmark = pytest.mark.anyio


async def _filled(gw: Gateway, legs: list[dict[str, Any]], strategy: str) -> None:
    """Place ``legs`` at their natural net (with a little slack), let the venue fill it,
    reconcile; the order is recognised as ``strategy``, filled, and the account's rolling
    option premium is what the venue says filled."""
    placed = await gw.call("place_option_order", at_natural(gw, legs))
    data = placed["structuredContent"]["data"]
    assert data["status"] == "submitted", (data["reasons"], data["message"])
    record = gw.ledger.filing(data["filing_id"])
    assert [item["option_id"] for item in record.terms["legs"]] == [
        item["option_id"] for item in legs
    ]
    assert option_journal(gw, record.id)["strategy"] == strategy
    gw.clock.advance(timedelta(seconds=3))
    await gw.guard.reconcile()
    assert gw.ledger.filing(record.id).status is FilingStatus.FILLED
    (sent,) = [o for o in venue_orders(gw) if o["id"] == data["order_id"]]
    assert sent["state"] == "filled"
    spent = gw.ledger.rolling_spend(gw.account, kind="option_order").notional
    assert spent == Decimal(sent["processed_premium"])


async def test_a_long_call_fills_and_holds_its_premium(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        await _filled(gw, [leg(near_money(gw, "call")["id"])], "long_call")


async def test_a_cash_secured_put_fills_and_holds_its_premium(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        put = near_money(gw, "put", -2)
        await _filled(gw, [leg(put["id"], "sell")], "cash_secured_put")


async def test_a_covered_call_over_shares_bought_through_the_gateway_fills(
    tmp_path: Path,
) -> None:
    config = option_policy(limits='max_order_usd = "100000"\nmax_daily_usd = "200000"')
    async with option_gateway(tmp_path, config=config) as gw:
        bought = await gw.call(
            "place_equity_order",
            {
                "account_number": gw.account,
                "symbol": "AAPL",
                "side": "buy",
                "type": "market",
                "quantity": "100",
                "time_in_force": "gfd",
            },
        )
        assert bought["isError"] is False, bought
        gw.clock.advance(timedelta(seconds=3))
        await gw.guard.reconcile()
        call = near_money(gw, "call", 2)
        await _filled(gw, [leg(call["id"], "sell")], "covered_call")


async def test_a_debit_vertical_fills_and_holds_its_debit(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        low, high = near_money(gw, "call"), near_money(gw, "call", 2)
        await _filled(gw, [leg(low["id"]), leg(high["id"], "sell")], "debit_vertical")


async def test_a_credit_vertical_fills_and_holds_its_credit(tmp_path: Path) -> None:
    async with option_gateway(tmp_path) as gw:
        high, low = near_money(gw, "put"), near_money(gw, "put", -2)
        await _filled(gw, [leg(high["id"], "sell"), leg(low["id"])], "credit_vertical")


async def test_an_iron_condor_at_level_3_on_margin_fills_and_holds_its_credit(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        legs = [
            leg(near_money(gw, "put", -2)["id"]),
            leg(near_money(gw, "put", -1)["id"], "sell"),
            leg(near_money(gw, "call", 1)["id"], "sell"),
            leg(near_money(gw, "call", 2)["id"]),
        ]
        await _filled(gw, legs, "iron_condor")


async def test_an_option_filing_shows_each_leg_its_strategy_max_loss_and_premium(
    tmp_path: Path,
) -> None:
    async with option_gateway(tmp_path) as gw:
        low, high = near_money(gw, "call"), near_money(gw, "call", 2)
        await _filled(gw, [leg(low["id"]), leg(high["id"], "sell")], "debit_vertical")
        shown = await gw.call("gate_record")
        (filing,) = shown["structuredContent"]["data"]["filings"]
    assert filing["kind"] == "option_order" and filing["direction"] == "debit"
    assert [item["option_id"] for item in filing["legs"]] == [low["id"], high["id"]]
    assert [item["side"] for item in filing["legs"]] == ["buy", "sell"]
    db = f"sqlite:///{tmp_path / 'gateway-ledger.db'}"
    result = CliRunner().invoke(app, ["why", filing["filing_id"], "--db", db])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    legs = [line for line in lines if line.startswith("leg ")]
    assert len(legs) == 2
    assert legs[0].startswith("leg        buy to open 1x AAPL ") and low["id"] in legs[0]
    assert legs[1].startswith("leg        sell to open 1x AAPL ") and high["id"] in legs[1]
    checks = [line for line in lines if line.startswith("check ")]
    assert len(checks) == 2
    for line in checks:
        assert "strategy debit_vertical" in line
        assert "max loss $" in line and "premium $" in line

"""Option orders through the gateway: a profile that may trade options, the venue's contracts
and quotes read through its own tools, and the arguments of ``place_option_order``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from mcp_gateway_kit import OPEN_POLICY, Gateway, gateway

from ordergate.policy import PolicyConfig, parse_policy

OPTION_TRADER = """
name: optiontrader
description: Trades equities and options within the account policy.
permissions: [account.read, market.read, orders.read, orders.review, orders.place,
  orders.cancel, options.review, options.place, options.cancel]
"""


OPTIONS = """
[options]
underlyings = ["AAPL"]
strategies = ["long_call", "long_put", "covered_call", "cash_secured_put", "debit_vertical",
  "credit_vertical", "iron_condor", "closing"]
max_contracts = 10
max_premium_usd = "5000"
max_daily_premium_usd = "20000"
max_loss_usd = "100000"
min_days_to_expiry = 0
max_days_to_expiry = 400
no_open_last_minutes = 0
price_collar_bps = 5000
"""


def option_policy(
    options: str = OPTIONS, limits: str = "", approval: str = "never", **keys: str
) -> PolicyConfig:
    """The gateway's open test policy with option orders enabled (``[options]``), margin on,
    approval ``approval``;
    ``limits``' lines (``max_daily_usd = "..."``) replace or join its ``[limits]``, and each
    of ``keys`` replaces that ``[options]`` key (its TOML value)."""
    text = OPEN_POLICY.replace("[orders]\n", "[orders]\nmargin = true\n")
    text = text.replace('approval = "never"', f'approval = "{approval}"')
    for line in limits.splitlines():
        key = line.split("=")[0].strip()
        rows = text.splitlines()
        if any(row.split("=")[0].strip() == key for row in rows):
            text = "\n".join(line if row.split("=")[0].strip() == key else row for row in rows)
        else:
            text = text.replace("[limits]\n", f"[limits]\n{line}\n")
    for key, value in keys.items():
        rows = options.splitlines()
        assert any(row.split("=")[0].strip() == key for row in rows), key
        options = "\n".join(
            f"{key} = {value}" if row.split("=")[0].strip() == key else row for row in rows
        )
    return parse_policy(text + "\n" + options)


def option_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "profiles").mkdir(parents=True)
    (home / "profiles" / "optiontrader.yaml").write_text(OPTION_TRADER)
    return home


@asynccontextmanager
async def option_gateway(
    tmp_path: Path,
    *,
    live: bool = True,
    level: int = 3,
    config: PolicyConfig | None = None,
    extra_tools: Sequence[dict[str, Any]] = (),
) -> AsyncIterator[Gateway]:
    """The gateway (live: the venue itself) on a margin account at option ``level``, its
    connections under the ``optiontrader`` profile."""
    async with gateway(
        tmp_path,
        live=live,
        config=config or option_policy(),
        profile="optiontrader",
        profiles_home=option_home(tmp_path),
        account_type="margin",
        option_level=level,
        extra_tools=extra_tools,
    ) as gw:
        yield gw


def contracts(gw: Gateway, kind: str, symbol: str = "AAPL") -> list[dict[str, Any]]:
    """The nearest expiry's contracts of ``kind``, by strike."""
    chain = gw.venue.data("get_option_chains", {"underlying_symbol": symbol})["chains"][0]
    day = chain["expiration_dates"][0]
    listed = gw.venue.data(
        "get_option_instruments",
        {"chain_symbol": symbol, "expiration_dates": day, "type": kind},
    )["instruments"]
    return sorted(listed, key=lambda item: Decimal(item["strike_price"]))


def near_money(gw: Gateway, kind: str, offset: int = 0, symbol: str = "AAPL") -> dict[str, Any]:
    """The contract ``offset`` strikes from the one nearest the underlying's price."""
    listed = contracts(gw, kind, symbol)
    quote = gw.venue.data("get_equity_quotes", {"symbols": [symbol]})["results"][0]["quote"]
    spot = Decimal(quote["last_trade_price"])
    nearest = min(range(len(listed)), key=lambda i: abs(Decimal(listed[i]["strike_price"]) - spot))
    return listed[nearest + offset]


def quote(gw: Gateway, option_id: str) -> tuple[Decimal, Decimal]:
    """The contract's (bid, ask) per share."""
    result = gw.venue.data("get_option_quotes", {"instrument_ids": [option_id]})["results"][0]
    return Decimal(result["quote"]["bid_price"]), Decimal(result["quote"]["ask_price"])


def leg(option_id: str, side: str = "buy", effect: str = "open", ratio: int = 1) -> dict[str, Any]:
    return {
        "option_id": option_id,
        "side": side,
        "position_effect": effect,
        "ratio_quantity": ratio,
    }


def order(
    gw: Gateway,
    legs: list[dict[str, Any]],
    *,
    price: Decimal | None,
    direction: str,
    quantity: int = 1,
    **extra: Any,
) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "account_number": gw.account,
        "legs": legs,
        "quantity": str(quantity),
        "type": "limit" if price is not None else "market",
        "direction": direction,
        "time_in_force": "gfd",
        **extra,
    }
    if price is not None:
        arguments["price"] = str(price)
    return arguments


def venue_orders(gw: Gateway) -> list[dict[str, Any]]:
    """Every option order the venue holds for the account."""
    orders: list[dict[str, Any]] = gw.venue.data(
        "get_option_orders", {"account_number": gw.account}
    )["orders"]
    return orders


def natural(gw: Gateway, legs: list[dict[str, Any]]) -> Decimal:
    """The legs' net at their natural prices (a buy at the ask, a sell at the bid), per
    share of one unit: positive for a debit, negative for a credit."""
    net = Decimal(0)
    for item in legs:
        bid, ask = quote(gw, item["option_id"])
        price = ask if item["side"] == "buy" else bid
        sign = 1 if item["side"] == "buy" else -1
        net += sign * item.get("ratio_quantity", 1) * price
    return net


def option_journal(gw: Gateway, filing_id: object, stage: str = "estimate") -> dict[str, Any]:
    """The detail of a filing's journal entry at ``stage``."""
    (entry,) = [
        e
        for e in gw.ledger.journal.entries()
        if e.kind == f"policy_{stage}" and str(e.filing_id) == str(filing_id)
    ]
    detail: dict[str, Any] = entry.detail
    return detail

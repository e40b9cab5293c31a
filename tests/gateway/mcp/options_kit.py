"""Option orders through the gateway: a profile that may trade options, the venue's contracts
and quotes read through its own tools, and the arguments of ``place_option_order``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

from mcp_gateway_kit import OPEN_POLICY, Gateway, gateway
from option_market_testkit import OPTION_TRADER, OPTIONS, contracts, leg, natural, near_money, quote

from ordergate.policy import PolicyConfig, parse_policy
from ordergate.venues.paper import PaperVenue

__all__ = [
    "OPTIONS",
    "account_data",
    "account_orders",
    "answer_data",
    "at_natural",
    "contracts",
    "leg",
    "natural",
    "near_money",
    "option_gateway",
    "option_home",
    "option_journal",
    "option_policy",
    "order",
    "quote",
    "venue_orders",
]

CENT = Decimal("0.01")
SLACK = Decimal("0.05")
"""How far past the legs' natural net ``at_natural`` prices an order, so it fills."""


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
    profiles_home: Path | None = None,
    venue_cash: Decimal | None = None,
    max_open: int = 5,
) -> AsyncIterator[Gateway]:
    """The gateway (live: the venue itself) on a margin account at option ``level``, its
    connections under the ``optiontrader`` profile (``profiles_home``'s, else the kit's), each
    identity with at most ``max_open`` unfinished filings."""
    async with gateway(
        tmp_path,
        live=live,
        config=config or option_policy(),
        profile="optiontrader",
        profiles_home=profiles_home or option_home(tmp_path),
        account_type="margin",
        option_level=level,
        extra_tools=extra_tools,
        venue_cash=venue_cash,
        max_open=max_open,
    ) as gw:
        yield gw


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


def at_natural(gw: Gateway, legs: list[dict[str, Any]], *, quantity: int = 1) -> dict[str, Any]:
    """``place_option_order``'s arguments for ``legs`` at their natural net with a little
    slack, so the venue fills them: a debit paid ``SLACK`` over the net, or a credit taken
    ``SLACK`` under it."""
    net = natural(gw, legs)
    direction = "debit" if net > 0 else "credit"
    price = (abs(net) + SLACK) if direction == "debit" else (abs(net) - SLACK)
    return order(gw, legs, price=price.quantize(CENT), direction=direction, quantity=quantity)


def answer_data(result: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` of a tool call's structured answer."""
    data: dict[str, Any] = result["structuredContent"]["data"]
    return data


def venue_orders(gw: Gateway) -> list[dict[str, Any]]:
    """Every option order the venue holds for the account."""
    orders: list[dict[str, Any]] = gw.venue.data(
        "get_option_orders", {"account_number": gw.account}
    )["orders"]
    return orders


async def account_data(gw: Gateway, tool: str, arguments: dict[str, Any]) -> Any:
    """``tool``'s answer for the account the guard trades: the venue's live, the paper
    book's on paper."""
    venue = gw.guard.venue
    if isinstance(venue, PaperVenue):
        return await venue.caller.call(tool, arguments)
    return gw.venue.data(tool, arguments)


async def account_orders(gw: Gateway) -> list[dict[str, Any]]:
    """Every option order of the account the guard trades (``account_data``)."""
    data = await account_data(gw, "get_option_orders", {"account_number": gw.account})
    orders: list[dict[str, Any]] = data["orders"]
    return orders


def option_journal(gw: Gateway, filing_id: object, stage: str = "estimate") -> dict[str, Any]:
    """The detail of a filing's journal entry at ``stage``."""
    (entry,) = [
        e
        for e in gw.ledger.journal.entries()
        if e.kind == f"policy_{stage}" and str(e.filing_id) == str(filing_id)
    ]
    detail: dict[str, Any] = entry.detail
    return detail

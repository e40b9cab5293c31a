"""The option orders ``ordergate bench gateway`` places: contracts picked from the venue's own
option chain, read through the gateway's read tools as an agent would, and the
``place_option_order`` arguments of two orders that rest on the standing clock.

- a single leg (``long_call``): buy to open one SPY call, the one at the strike nearest the
  underlying's last trade in the chain's first expiry, at a limit ``under`` its bid (rounded
  down to the cent: a debit under the bid never crosses the ask);
- an iron condor: the puts one and two strikes under that strike (the nearer sold, the
  farther bought) and the calls one and two strikes over it (the nearer sold, the farther
  bought), one unit, for a credit of the legs' net mid rounded up to the cent (more than
  their natural credit, a sell at the bid and a buy at the ask, so it rests too).

Both are within the bench policy's ``[options]`` (its collar is measured from the net mid)
and the paper book's account (margin at option level 3, which a multi-leg order needs).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any

__all__ = ["UNDERLYING", "OptionOrders", "Read", "option_orders"]

UNDERLYING = "SPY"
_CENT = Decimal("0.01")
_PAGES = 50  # a chain's expiry lists a few hundred contracts a kind, 100 a page

Read = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""A read tool's answer (its ``data``), through the gateway: ``read(tool, arguments)``."""


@dataclass(frozen=True, slots=True)
class OptionOrders:
    """``place_option_order`` arguments for each shape the bench measures."""

    single: dict[str, Any]
    condor: dict[str, Any]


async def option_orders(read: Read, account: str, under: Decimal) -> OptionOrders:
    """The two resting orders for ``account``, on the chain's first expiry."""
    chains = (await read("get_option_chains", {"underlying_symbol": UNDERLYING}))["chains"]
    expiry = chains[0]["expiration_dates"][0]
    quotes = await read("get_equity_quotes", {"symbols": [UNDERLYING]})
    spot = Decimal(quotes["results"][0]["quote"]["last_trade_price"])
    calls = await _contracts(read, expiry, "call")
    puts = await _contracts(read, expiry, "put")
    at = _nearest(calls, spot)
    strike = Decimal(calls[at]["strike_price"])
    below = [c for c in puts if Decimal(c["strike_price"]) < strike][-2:]
    above = calls[at + 1 : at + 3]
    if len(below) < 2 or len(above) < 2:
        raise RuntimeError(f"{UNDERLYING} {expiry}: no two strikes each side of {strike}")
    condor = [
        _leg(below[0]["id"], "buy"),
        _leg(below[1]["id"], "sell"),
        _leg(above[0]["id"], "sell"),
        _leg(above[1]["id"], "buy"),
    ]
    ids = [calls[at]["id"]] + [leg["option_id"] for leg in condor]
    bids, asks = await _quotes(read, ids)
    call = calls[at]["id"]
    limit = (bids[call] * under).quantize(_CENT, ROUND_FLOOR)
    credit = sum(
        ((bids[leg["option_id"]] + asks[leg["option_id"]]) / 2 * _sign(leg) for leg in condor),
        Decimal(0),
    )
    if limit <= 0 or credit <= 0:
        raise RuntimeError(f"{UNDERLYING} {expiry}: no resting prices (bid {bids[call]})")
    return OptionOrders(
        single=_order(account, [_leg(call, "buy")], limit, "debit"),
        condor=_order(account, condor, credit.quantize(_CENT, ROUND_CEILING), "credit"),
    )


async def _contracts(read: Read, expiry: str, kind: str) -> list[dict[str, Any]]:
    """Every contract of ``kind`` expiring on ``expiry``, by strike (every page)."""
    arguments = {"chain_symbol": UNDERLYING, "expiration_dates": expiry, "type": kind}
    listed: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(_PAGES):
        page = await read(
            "get_option_instruments",
            arguments if cursor is None else {**arguments, "cursor": cursor},
        )
        listed += page["instruments"]
        cursor = page.get("next")
        if cursor is None:
            return sorted(listed, key=lambda item: Decimal(item["strike_price"]))
    raise RuntimeError(f"{UNDERLYING} {expiry} {kind}s: more than {_PAGES} pages")


def _nearest(contracts: list[dict[str, Any]], spot: Decimal) -> int:
    if not contracts:
        raise RuntimeError(f"{UNDERLYING}: no contracts in the chain's first expiry")
    return min(
        range(len(contracts)), key=lambda i: abs(Decimal(contracts[i]["strike_price"]) - spot)
    )


async def _quotes(read: Read, ids: list[str]) -> tuple[dict[str, Decimal], dict[str, Decimal]]:
    """Each contract's bid and ask per share."""
    results = (await read("get_option_quotes", {"instrument_ids": ids}))["results"]
    quotes = [result["quote"] for result in results]
    bids = {q["instrument_id"]: Decimal(q["bid_price"]) for q in quotes}
    asks = {q["instrument_id"]: Decimal(q["ask_price"]) for q in quotes}
    return bids, asks


def _leg(option_id: str, side: str) -> dict[str, Any]:
    return {"option_id": option_id, "side": side, "position_effect": "open", "ratio_quantity": 1}


def _sign(leg: dict[str, Any]) -> int:
    """A sell's mid is credited, a buy's debited."""
    return 1 if leg["side"] == "sell" else -1


def _order(
    account: str, legs: list[dict[str, Any]], price: Decimal, direction: str
) -> dict[str, Any]:
    return {
        "account_number": account,
        "legs": legs,
        "quantity": "1",
        "type": "limit",
        "price": str(price),
        "direction": direction,
        "time_in_force": "gfd",
    }

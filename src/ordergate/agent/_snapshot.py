"""``Snapshot``: what the agent saw at one tick, and its digest.

Read the way an MCP agent reads its account (``snapshot_reader``): in live mode the guard's
own reader, the broker through the typed client — equity, cash and buying power straight
from ``get_portfolio``; in paper mode the same reader over the paper venue's caller (the
venue's engine answers ``get_portfolio``, ``get_equity_positions`` and ``get_equity_orders``
as the gateway serves them, parsed by the same client models). Settled cash
and buying power are kept apart; an unknown figure stays ``None`` and the strategy holds.
``digest`` is the SHA-256 of the snapshot's canonical JSON: the journal records it with
every decision, and stores the snapshot itself once under it (``Journal.snapshot``), so the
record says what each decision was made on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ordergate.agent._session import SessionSignal
from ordergate.core import to_wire
from ordergate.execution import Guard
from ordergate.policy import Position, Quote
from ordergate.venues import AccountReader

__all__ = ["Snapshot", "snapshot_reader", "take_snapshot"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    signal: SessionSignal
    equity: Decimal | None
    cash: Decimal | None
    buying_power: Decimal | None
    positions: Mapping[str, Position] | None
    quotes: Mapping[str, Quote | None]
    open_orders: int | None
    notes: tuple[str, ...] = field(default=())

    def price(self, symbol: str) -> Decimal | None:
        """A mid price for valuing a trade (the last trade when one side is missing)."""
        quote = self.quotes.get(symbol)
        if quote is None:
            return None
        if quote.bid is not None and quote.ask is not None and quote.bid > 0 < quote.ask:
            return (quote.bid + quote.ask) / 2
        return quote.last if quote.last is not None and quote.last > 0 else None

    def as_json(self) -> dict[str, Any]:
        return {
            "signal": self.signal.as_json(),
            "equity": _money(self.equity),
            "cash": _money(self.cash),
            "buying_power": _money(self.buying_power),
            "positions": None
            if self.positions is None
            else {
                symbol: {
                    "quantity": to_wire(held.quantity),
                    "market_value": to_wire(held.market_value),
                }
                for symbol, held in sorted(self.positions.items())
            },
            "quotes": {
                symbol: None
                if quote is None
                else {
                    "bid": _money(quote.bid),
                    "ask": _money(quote.ask),
                    "last": _money(quote.last),
                    "as_of": None if quote.as_of is None else quote.as_of.isoformat(),
                }
                for symbol, quote in sorted(self.quotes.items())
            },
            "open_orders": self.open_orders,
            "notes": list(self.notes),
        }

    @property
    def digest(self) -> str:
        text = json.dumps(self.as_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def _money(value: Decimal | None) -> str | None:
    return None if value is None else to_wire(value)


def snapshot_reader(guard: Guard, identity: str) -> AccountReader:
    """What ``identity``'s snapshots read: the account as the gateway answers ``identity``'s
    reads of it (``EquityLane.answers_for``: on paper the engine's answers, live the
    broker's own)."""
    return guard.venue.equity.answers_for(guard.ledger, identity)


async def take_snapshot(
    reader: AccountReader,
    *,
    account: str,
    symbols: Iterable[str],
    signal: SessionSignal,
) -> Snapshot:
    """The account and the quotes of ``symbols`` (and of every symbol held) as ``reader``
    reads them now. Never raises for a failed read: the missing part is ``None``."""
    whole = await reader.read(account, None)
    wanted = set(symbols) | set(whole.positions or {})
    quotes: dict[str, Quote | None] = {}
    notes = list(whole.notes)
    for symbol in sorted(wanted):
        view = await reader.read(account, symbol)
        quotes[symbol] = view.quote
        notes.extend(view.notes)
    return Snapshot(
        signal=signal,
        equity=whole.equity,
        cash=whole.cash,
        buying_power=whole.buying_power,
        positions=whole.positions,
        quotes=quotes,
        open_orders=None if whole.open_orders is None else len(whole.open_orders),
        notes=tuple(dict.fromkeys(notes)),
    )

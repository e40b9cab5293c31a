"""``Rebalancer``: hold target weights within drift bands.

For every target symbol and every symbol held, the weight is its market value over equity.
A symbol whose weight is outside ``target ± band`` is traded back to its target: sells first
(a symbol held but not targeted is sold whole, by quantity), then buys, in dollar amounts
(fractional shares), each at least ``min_trade_usd`` (never below the $1 fractional
minimum) and at most the policy's ``max_order_usd`` (a larger gap closes over several
ticks). Buys never spend more than the settled cash and the buying power both allow. With
``sells_only`` (the agent is reducing) no buy is planned. Missing data is a hold: it never
trades on a figure it does not have.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from ordergate.agent._config import MINIMUM_ORDER_USD, RebalanceConfig
from ordergate.agent._intent import Intent, Plan
from ordergate.agent._snapshot import Snapshot
from ordergate.core import ZERO, Side

__all__ = ["Rebalancer"]

_CENT = Decimal("0.01")
_HUNDRED = Decimal(100)


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_DOWN)


class Rebalancer:
    name = "rebalance"

    def __init__(self, config: RebalanceConfig, *, max_order_usd: Decimal) -> None:
        self._config = config
        self._max_order = max_order_usd

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(sorted(self._config.targets))

    async def decide(self, snapshot: Snapshot, *, sells_only: bool = False) -> Plan:
        return self.plan(snapshot, sells_only=sells_only)

    def plan(self, snapshot: Snapshot, *, sells_only: bool = False) -> Plan:
        equity, positions = snapshot.equity, snapshot.positions
        if equity is None or positions is None or equity <= 0:
            return Plan("hold: equity or positions unknown, nothing is traded on a guess")
        targets = self._config.targets
        band = self._config.band_pct
        sells: list[Intent] = []
        buys: list[tuple[str, Decimal, str]] = []
        in_band: list[str] = []
        for symbol in sorted(set(targets) | set(positions)):
            held = positions.get(symbol)
            value = held.market_value if held is not None else ZERO
            weight = value / equity * _HUNDRED
            target = targets.get(symbol, ZERO)
            drift = weight - target
            if abs(drift) <= band:
                in_band.append(symbol)
                continue
            why = f"{symbol} at {weight:.2f} % against a target of {target} % ± {band} %"
            gap = target / _HUNDRED * equity - value
            if gap < 0 and held is not None and symbol not in targets:
                sells.append(
                    Intent(
                        Side.SELL,
                        symbol,
                        f"{why}: not a target, sold whole",
                        quantity=held.quantity,
                    )
                )
                continue
            if snapshot.price(symbol) is None:
                in_band.append(symbol)  # no price: nothing to act on
                continue
            amount = _cents(min(abs(gap), self._max_order))
            if amount < max(self._config.min_trade_usd, MINIMUM_ORDER_USD):
                in_band.append(symbol)
                continue
            if gap < 0:
                sells.append(Intent(Side.SELL, symbol, f"{why}: sell ${amount}", notional=amount))
            else:
                buys.append((symbol, amount, why))
        planned = list(sells)
        if buys and sells_only:
            dropped = tuple(f"{symbol}: buying is stopped (reducing)" for symbol, _, _ in buys)
            return _plan(planned, dropped)
        spendable = min(
            snapshot.cash if snapshot.cash is not None else ZERO,
            snapshot.buying_power if snapshot.buying_power is not None else ZERO,
        )
        dropped_buys: list[str] = []
        for symbol, amount, why in buys:
            affordable = _cents(min(amount, spendable))
            if affordable < max(self._config.min_trade_usd, MINIMUM_ORDER_USD):
                dropped_buys.append(f"{symbol}: not enough settled cash and buying power")
                continue
            spendable -= affordable
            planned.append(
                Intent(Side.BUY, symbol, f"{why}: buy ${affordable}", notional=affordable)
            )
        return _plan(planned, tuple(dropped_buys))


def _plan(intents: list[Intent], dropped: tuple[str, ...]) -> Plan:
    if not intents:
        reason = "; ".join(dropped) if dropped else "every weight is within its band"
        return Plan(f"hold: {reason}", (), dropped)
    sides = ", ".join(f"{i.side.value} {i.symbol}" for i in intents)
    return Plan(f"rebalance: {sides}", tuple(intents), dropped)

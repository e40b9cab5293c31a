"""The console's budget page: the rolling 24 h spend and orders against each cap, open orders
against ``max_open_orders``, the breakers' state at the account's equity now and the pause
(what ``ordergate status`` shows), read from the guard the gateway trades through."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ordergate.execution import Guard, read_status
from ordergate.gateway.console._options import option_positions
from ordergate.store import blocking

__all__ = ["AccountRead", "BudgetRead", "account_reader", "budget_reader"]

BudgetRead = Callable[[], Awaitable[dict[str, Any] | None]]
"""The budget now, or ``None`` where no one guard trades (sealed custody: one per connection)."""


def budget_reader(guard: Callable[[], Awaitable[Guard]] | None) -> BudgetRead:
    async def read() -> dict[str, Any] | None:
        if guard is None:
            return None
        current = await guard()
        # The equity the breakers are judged at, read as ``ordergate status`` reads it.
        view = await current.reader.read(current.account, None)
        status = await blocking(
            read_status,
            current.ledger,
            current.policy,
            account=current.account,
            mode="paper" if current.paper else "live",
            mode_note="",
            now=current.clock.now(),
            equity=view.equity,
        )
        body = status.as_json()
        body["open_count"] = len(body["open_orders"])
        body["max_open_orders"] = current.policy.max_open_orders
        return body

    return read


AccountRead = Callable[[], Awaitable[dict[str, Any] | None]]
"""The account now (positions, cash, equity, the ledger's high-water mark, the open option
positions: ``console._options``) and its equity curve's stored marks (``curve``: the last 90
days, at most 500) and the record's time now (``at``), or ``None``."""


def account_reader(guard: Callable[[], Awaitable[Guard]] | None) -> AccountRead:
    async def read() -> dict[str, Any] | None:
        if guard is None:
            return None
        current = await guard()
        view = await current.reader.read(current.account, None)
        mark = await blocking(current.ledger.controls.high_water_mark, current.account)
        curve = await blocking(current.ledger.equity.window, current.account)
        # The newest point on the clock the marks are stamped on (the record's).
        at = current.ledger.now()
        # The equity stays a Decimal here: the equity curve is drawn from it.
        return {
            **view.account_wire(paper=current.paper),
            "equity": view.equity,
            "high_water_mark": mark,
            "option_positions": await option_positions(current),
            "curve": curve,
            "at": at,
        }

    return read

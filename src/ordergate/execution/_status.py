"""``read_status``: where the wall stands, for ``ordergate status`` and the gateway.

Mode (and why: live needs arming), the pause flag, the trading state (``halted`` when a
breaker trips on the equity given, ``unknown`` when no equity was read), the rolling 24 h
spend and order count against their caps, ordergate's open orders and the pending
approvals. The breakers are the policy engine's own checks, run on the high-water mark and
session-start equity a decision at that equity would see (``trading_read``), so the status
can never disagree with a decision.

Every read is bounded by what is open: the rolling window (``ix_reservations_window``), the
open filings (``open_filings``), the pending approvals (``ix_approvals_state``) and each one's
filing by its id.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from ordergate.core import to_wire
from ordergate.execution._breakers import trading_read
from ordergate.ledger import Ledger, PauseState
from ordergate.policy import PolicyConfig

__all__ = ["GuardStatus", "read_status"]


@dataclass(frozen=True, slots=True)
class GuardStatus:
    mode: str
    mode_note: str
    account: str
    pause: PauseState
    trading_state: str
    halt_reasons: tuple[str, ...]
    spent_24h: Decimal
    max_daily_usd: Decimal
    orders_24h: int
    max_orders_per_day: int
    open_orders: tuple[dict[str, Any], ...]
    pending_approvals: tuple[dict[str, Any], ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "mode_note": self.mode_note,
            "account": self.account,
            "paused": self.pause.paused,
            "pause_reason": self.pause.reason if self.pause.paused else None,
            "paused_since": (
                self.pause.since.isoformat() if self.pause.paused and self.pause.since else None
            ),
            "trading_state": self.trading_state,
            "halt_reasons": list(self.halt_reasons),
            "spent_24h": to_wire(self.spent_24h),
            "max_daily_usd": to_wire(self.max_daily_usd),
            "orders_24h": self.orders_24h,
            "max_orders_per_day": self.max_orders_per_day,
            "open_orders": list(self.open_orders),
            "pending_approvals": list(self.pending_approvals),
        }


def read_status(
    ledger: Ledger,
    policy: PolicyConfig,
    *,
    account: str,
    mode: str,
    mode_note: str,
    now: datetime,
    equity: Decimal | None = None,
) -> GuardStatus:
    """Where the wall stands: ``now`` is the market's (it names the market day the daily-loss
    breaker counts from); the rolling 24 h is counted in the record's time."""
    spend = ledger.rolling_spend(account)
    pause = ledger.controls.pause_state()
    trading = trading_read(ledger, policy, equity, now=now, account=account)
    open_orders = tuple(
        {
            "filing_id": str(record.id),
            "status": record.status.value,
            "symbol": record.terms.get("symbol"),
            "side": record.terms.get("side"),
            "quantity": record.terms.get("quantity"),
            "dollar_amount": record.terms.get("dollar_amount"),
            "type": record.terms.get("type"),
            "identity": record.identity,
            "filed_at": record.created_at.isoformat(),
        }
        for record in ledger.open_filings(account)
    )
    approvals = []
    for approval in ledger.approvals.pending():
        record = ledger.filing(approval.filing_id)
        if record.account != account:
            continue
        approvals.append(
            {
                "approval_id": str(approval.id),
                "filing_id": str(record.id),
                "symbol": record.terms.get("symbol"),
                "side": record.terms.get("side"),
                "quantity": record.terms.get("quantity"),
                "dollar_amount": record.terms.get("dollar_amount"),
                "type": record.terms.get("type"),
                "limit_price": record.terms.get("limit_price"),
                "notional": to_wire(record.notional),
                "identity": record.identity,
                "expires_at": approval.expires_at.isoformat(),
            }
        )
    return GuardStatus(
        mode=mode,
        mode_note=mode_note,
        account=account,
        pause=pause,
        trading_state="paused" if pause.paused else trading.state,
        halt_reasons=tuple(reason.value for reason in trading.reasons),
        spent_24h=spend.notional,
        max_daily_usd=policy.max_daily_usd,
        orders_24h=spend.orders,
        max_orders_per_day=policy.max_orders_per_day,
        open_orders=open_orders,
        pending_approvals=tuple(approvals),
    )

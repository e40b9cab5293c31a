"""``trading_read``: whether the breakers let the account trade, as a decision now would find
them — for ``ordergate status``, the console's Budget page and an agent planning its tick.

Deciding an order at equity ``E``, the guard first raises the high-water mark to ``E`` when
``E`` passed it and starts the market day's session at ``E`` when the stored start is another
day's (``World``); the breakers then run on those marks. ``breaker_marks`` is that step
without the writes, so a read at ``E`` sees the marks a decision at ``E`` would, and
``trading_read`` runs the policy's own breakers (``tripped_breakers``) on them: one
implementation of when a breaker trips, whoever asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ordergate.calendar import NEW_YORK
from ordergate.ledger import Ledger, SessionEquity
from ordergate.policy import AccountState, PolicyConfig, ReasonCode, tripped_breakers

BREAKER_CODES = frozenset({ReasonCode.DRAWDOWN_HALT.value, ReasonCode.DAILY_LOSS_HALT.value})
"""The refusals that mean a breaker has tripped."""

__all__ = [
    "BREAKER_CODES",
    "TradingRead",
    "breaker_marks",
    "note_trip",
    "session_day",
    "trading_read",
]


@dataclass(frozen=True, slots=True)
class TradingRead:
    """``state``: ``active`` (every breaker clear), ``halted`` (one tripped) or ``unknown``
    (no equity to judge by); ``reasons`` the policy's codes for it."""

    state: str
    reasons: tuple[ReasonCode, ...]


def session_day(now: datetime) -> str:
    """The market day ``now`` belongs to, as the session-start equity is keyed (New York)."""
    return now.astimezone(NEW_YORK).date().isoformat()


def breaker_marks(
    equity: Decimal, mark: Decimal | None, start: SessionEquity | None, *, now: datetime
) -> tuple[Decimal, Decimal]:
    """The high-water mark and session-start equity a decision at ``equity`` and ``now``
    judges by: the stored ones, moved as the guard moves them before it checks."""
    high = equity if mark is None or equity > mark else mark
    opened = equity if start is None or start.session != session_day(now) else start.equity
    return high, opened


def trading_read(
    ledger: Ledger, policy: PolicyConfig, equity: Decimal | None, *, now: datetime, account: str
) -> TradingRead:
    """The breakers on ``account`` at ``equity`` (``None``: not read, so ``unknown``) and
    ``now``, on that account's high-water mark and session-start equity."""
    if equity is None:
        return TradingRead("unknown", ())
    mark, start = breaker_marks(
        equity,
        ledger.controls.high_water_mark(account),
        ledger.controls.session_start_equity(account),
        now=now,
    )
    state = AccountState(equity=equity, high_water_mark=mark, session_start_equity=start)
    reasons = tripped_breakers(state, policy)
    return TradingRead("halted" if reasons else "active", reasons)


def note_trip(
    ledger: Ledger,
    policy: PolicyConfig,
    reasons: Sequence[str],
    *,
    at: datetime,
    account: str,
) -> None:
    """Blocking: a breaker was found tripped on ``account`` at ``at`` (the deciding clock's
    instant) — by the guard refusing an order, or by an agent planning its tick — so that
    account's cooldown of ``[cooldown] minutes`` counts from it (another account's does
    not). Nothing is written when no cooldown is set or none of ``reasons`` is a
    breaker's."""
    tripped = [reason for reason in reasons if reason in BREAKER_CODES]
    if tripped and policy.cooldown_minutes:
        ledger.controls.breaker_tripped(at, tripped, account=account)

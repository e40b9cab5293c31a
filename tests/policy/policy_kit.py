"""Builders for policy tests: a healthy account, a permissive-but-realistic policy, orders.

The baseline (``state()``, ``config()``, a $50 AAPL buy) is accepted; each test changes one
thing and asserts the reason codes that appear.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from ordergate.core import OrderType, Side
from ordergate.policy import (
    AccountState,
    Approval,
    ApprovalKind,
    Decision,
    MarketSession,
    PolicyConfig,
    Position,
    Proposal,
    Quote,
    ReasonCode,
    RecentOrders,
    Stage,
    Terms,
    TradingState,
    estimate_terms,
    evaluate,
)

D = Decimal
NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def quote(
    symbol: str = "AAPL",
    bid: str | None = "100.00",
    ask: str | None = "100.02",
    last: str | None = "100.01",
    age_s: int = 1,
) -> Quote:
    return Quote(
        symbol,
        None if bid is None else D(bid),
        None if ask is None else D(ask),
        None if last is None else D(last),
        NOW - timedelta(seconds=age_s),
    )


def state(**changes: Any) -> AccountState:
    base = AccountState(
        now=NOW,
        equity=D(10000),
        high_water_mark=D(10000),
        session_start_equity=D(10000),
        cash=D(5000),
        buying_power=D(5000),
        positions={"MSFT": Position(D(2), D(840))},
        open_orders=(),
        unknown_broker_orders=0,
        spent_24h=D(0),
        orders_24h=0,
        trading_state=TradingState.ACTIVE,
        paused=False,
        session=MarketSession.REGULAR,
        quote=quote(),
        tradable=True,
        recent=RecentOrders(identity_minute=0, account_minute=0, duplicates=0),
    )
    return replace(base, **changes)


def config(**changes: Any) -> PolicyConfig:
    base = PolicyConfig(
        approval=Approval(ApprovalKind.NEVER),
        allow=frozenset({"AAPL", "MSFT", "SPY"}),
    )
    return replace(base, **changes)


def buy(
    notional: str | None = None, quantity: str | None = None, symbol: str = "AAPL", **kw: Any
) -> Proposal:
    if notional is None and quantity is None:
        notional = "50"
    return Proposal(
        symbol,
        Side.BUY,
        quantity=None if quantity is None else D(quantity),
        notional=None if notional is None else D(notional),
        **kw,
    )


def sell(quantity: str = "1", symbol: str = "MSFT", **kw: Any) -> Proposal:
    return Proposal(symbol, Side.SELL, quantity=D(quantity), **kw)


def limit_buy(quantity: str, price: str, symbol: str = "AAPL") -> Proposal:
    return Proposal(
        symbol, Side.BUY, quantity=D(quantity), order_type=OrderType.LIMIT, limit_price=D(price)
    )


def msft_state(**changes: Any) -> AccountState:
    """The baseline account with a quote for MSFT (held: 2 shares worth $840)."""
    changes.setdefault("quote", quote("MSFT", "420.00", "420.10", "420.05"))
    return state(**changes)


def decide(
    proposal: Proposal,
    account: AccountState | None = None,
    policy: PolicyConfig | None = None,
    terms: Terms | None = None,
    stage: Stage = Stage.ESTIMATE,
) -> Decision:
    account = state() if account is None else account
    if terms is None:
        terms = estimate_terms(proposal, account.quote)
    return evaluate(proposal, terms, account, config() if policy is None else policy, stage)


def reasons(
    proposal: Proposal,
    account: AccountState | None = None,
    policy: PolicyConfig | None = None,
    terms: Terms | None = None,
) -> set[ReasonCode]:
    return set(decide(proposal, account, policy, terms).reasons)

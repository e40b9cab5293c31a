"""Option orders for the policy tests: contracts on one expiry, legs by a short spelling."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, OrderType, Side
from ordergate.policy import (
    AccountState,
    Approval,
    ApprovalKind,
    MarketSession,
    PolicyConfig,
    RecentOrders,
    Stage,
    TradingState,
)
from ordergate.policy.options import (
    OptionContract,
    OptionDecision,
    OptionHoldings,
    OptionLeg,
    OptionProposal,
    OptionQuote,
    OptionsPolicy,
    OptionState,
    OptionTerms,
    Strategy,
    estimate_option_terms,
    evaluate_options,
)

D = Decimal
EXPIRY = date(2026, 12, 18)
CALL = OptionType.CALL
PUT = OptionType.PUT
BUY = Side.BUY
SELL = Side.SELL
OPEN = OptionPositionEffect.OPEN
CLOSE = OptionPositionEffect.CLOSE
DEBIT = OptionDirection.DEBIT
CREDIT = OptionDirection.CREDIT


def contract(
    strike: int | str, kind: OptionType = CALL, *, underlying: str = "SPY", expiry: date = EXPIRY
) -> OptionContract:
    return OptionContract(underlying, expiry, D(strike), kind)


def leg(
    side: Side,
    strike: int | str,
    kind: OptionType = CALL,
    *,
    effect: OptionPositionEffect = OPEN,
    ratio: int = 1,
    underlying: str = "SPY",
    expiry: date = EXPIRY,
) -> OptionLeg:
    option_id = f"{underlying}-{expiry.isoformat()}-{kind.value[0]}{strike}"
    return OptionLeg(
        option_id, contract(strike, kind, underlying=underlying, expiry=expiry), side, effect, ratio
    )


def order(
    *legs: OptionLeg,
    quantity: int = 1,
    price: str | None = "1.00",
    direction: OptionDirection | None = None,
) -> OptionProposal:
    if direction is None:
        direction = DEBIT if legs[0].side is BUY else CREDIT
    return OptionProposal(
        legs=legs,
        quantity=quantity,
        direction=direction,
        order_type=OrderType.LIMIT if price is not None else OrderType.MARKET,
        limit_price=None if price is None else D(price),
    )


# -- a healthy account and a permissive-but-realistic [options] policy -------------------------
# The baseline: an iron condor on SPY for a net credit of 1.80 (the legs' net mid), premium
# $180, max loss $820, on 2026-12-01 at 10:00 in New York, 17 days before expiry. Accepted.

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)

CONDOR = (
    leg(BUY, 430, PUT),
    leg(SELL, 440, PUT),
    leg(SELL, 460, CALL),
    leg(BUY, 470, CALL),
)
BOOK = {
    CONDOR[0].option_id: ("0.90", "1.00"),
    CONDOR[1].option_id: ("1.90", "2.00"),
    CONDOR[2].option_id: ("1.40", "1.50"),
    CONDOR[3].option_id: ("0.60", "0.70"),
}


def quotes(
    *legs: OptionLeg, book: dict[str, tuple[str, str]] | None = None, age_s: int = 1
) -> dict[str, OptionQuote]:
    prices = BOOK if book is None else book
    made = {
        option_id: OptionQuote(option_id, D(bid), D(ask), NOW - timedelta(seconds=age_s))
        for option_id, (bid, ask) in prices.items()
    }
    for one in legs:
        made.setdefault(
            one.option_id,
            OptionQuote(one.option_id, D("2.00"), D("2.10"), NOW - timedelta(seconds=age_s)),
        )
    return made


def account(**changes: Any) -> AccountState:
    base = AccountState(
        now=NOW,
        equity=D(10000),
        high_water_mark=D(10000),
        session_start_equity=D(10000),
        cash=D(5000),
        buying_power=D(5000),
        positions={},
        open_orders=(),
        unknown_broker_orders=0,
        spent_24h=D(0),
        orders_24h=0,
        trading_state=TradingState.ACTIVE,
        paused=False,
        session=MarketSession.REGULAR,
        recent=RecentOrders(identity_minute=0, account_minute=0, duplicates=0),
    )
    return replace(base, **changes)


def option_state(**changes: Any) -> OptionState:
    base = OptionState(
        account=account(),
        quotes=quotes(),
        holdings=OptionHoldings(shares=D(0), options={}, cash=D(5000)),
        premium_24h=D(0),
    )
    return replace(base, **changes)


def options(**changes: Any) -> OptionsPolicy:
    base = OptionsPolicy(
        underlyings=frozenset({"SPY"}),
        strategies=frozenset(Strategy) - {Strategy.UNRECOGNISED},
        max_contracts=4,
        max_premium_usd=D(500),
        max_daily_premium_usd=D(1000),
        max_loss_usd=D(1000),
        price_collar_bps=1000,
    )
    return replace(base, **changes)


def policy(**changes: Any) -> PolicyConfig:
    changes.setdefault("options", options())
    changes.setdefault("approval", Approval(ApprovalKind.NEVER))
    changes.setdefault("max_daily_usd", D(2000))
    return PolicyConfig(**changes)


def condor(quantity: int = 1, price: str = "1.80") -> OptionProposal:
    return order(*CONDOR, quantity=quantity, price=price, direction=CREDIT)


def decide(
    proposal: OptionProposal | None = None,
    state: OptionState | None = None,
    config: PolicyConfig | None = None,
    terms: OptionTerms | None = None,
    stage: Stage = Stage.ESTIMATE,
) -> OptionDecision:
    proposal = condor() if proposal is None else proposal
    state = option_state() if state is None else state
    if terms is None:
        terms = estimate_option_terms(proposal, state.quotes or {})
    return evaluate_options(proposal, terms, state, policy() if config is None else config, stage)


def codes(*args: Any, **kwargs: Any) -> set[str]:
    return set(decide(*args, **kwargs).codes)

"""The checks. Each is a small pure function ``(proposal, terms, state, config)`` returning
the ``ReasonCode`` it refuses with, or ``None`` when the order passes it.

A check that needs data it does not have refuses with ``missing_data:<field>`` (fail closed).
Arithmetic is Decimal, and ratios are compared by cross-multiplying (no division, so no
rounding and no division by zero): ``spread/mid > bps/10000`` is
``(ask-bid)*20000 > bps*(ask+bid)``.

``RULES`` is the fixed order the engine runs them in, which is the order reasons appear in a
decision. ``duplicate_order`` and ``order_rate`` run at stage A only (``estimate_only``):
they judge the filing, which stage B does not repeat. Each rule carries its ``Exemption``
for orders that only reduce a position:

- ``NONE``: applies to every order (pause, symbols, order shape, market quality, size
  against the average daily volume, duplicates and order rate, rate limits, buying power,
  the cooldown after a breaker — which refuses buys only);
- ``REDUCING``: never applies to a reducing order (the trading state — REDUCING/HALTED
  exist to let reducing orders out — and unknown broker orders, which halt *opening* orders);
- ``POLICY``: skipped for a reducing order when ``reducing_exempt`` is true (the default):
  the spend caps, concentration, cash, position count and the two breakers.

The checks that judge the account and the act of filing, not the order's terms (the pause,
the trading state, duplicates and the order rate, the op counts, the breakers, unknown
broker orders) take any order (``p``/``t``: ``object``): the options engine
(``ordergate.policy.options``) calls the same functions on an option order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum

from ordergate.core import ZERO, Side
from ordergate.policy._config import SESSION_COVERAGE, PolicyConfig
from ordergate.policy._proposal import Proposal, Terms
from ordergate.policy._reasons import ReasonCode
from ordergate.policy._state import AccountState, OpenOrder, TradingState
from ordergate.policy._symbols import is_plain_ticker

__all__ = ["RULES", "Check", "Exemption", "Rule", "reduces_position"]

Check = Callable[[Proposal, Terms, AccountState, PolicyConfig], ReasonCode | None]

_ONE = Decimal(1)
_BUY = Side.BUY
_SELL = Side.SELL
_ACTIVE = TradingState.ACTIVE
_HALTED = TradingState.HALTED
R = ReasonCode


class Exemption(Enum):
    NONE = "none"
    REDUCING = "reducing"
    POLICY = "policy"


@dataclass(frozen=True, slots=True)
class Rule:
    """``estimate_only``: the rule runs at stage A only (it judges the act of filing, which
    stage B, reviewing a filing already made, does not repeat)."""

    name: str
    check: Check
    exemption: Exemption
    estimate_only: bool = False


# -- shared helpers --------------------------------------------------------------------------


def _pending(open_orders: tuple[OpenOrder, ...], symbol: str, side: Side) -> Decimal:
    total = ZERO
    for order in open_orders:
        if order.side is side and order.symbol == symbol:
            total += order.quantity
    return total


def reduces_position(proposal: Proposal, terms: Terms, state: AccountState) -> bool:
    """True when the order only reduces or closes a position: a sell of at most what is held
    less pending sells, or a buy of at most the short less pending buys. Unknown quantity,
    positions or open orders → ``False`` (the order is then treated as opening)."""
    quantity = proposal.quantity if proposal.quantity is not None else terms.quantity
    positions = state.positions
    open_orders = state.open_orders
    if quantity is None or positions is None or open_orders is None:
        return False
    position = positions.get(proposal.symbol)
    if position is None:
        return False
    held = position.quantity
    if proposal.side is _SELL:
        return held > 0 and quantity <= held - _pending(open_orders, proposal.symbol, _SELL)
    return held < 0 and quantity <= -held - _pending(open_orders, proposal.symbol, _BUY)


# -- operator and trading state --------------------------------------------------------------


def check_paused(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    paused = s.paused
    if paused is None:
        return R.MISSING_PAUSED
    return R.PAUSED if paused else None


def check_trading_state(
    p: object, t: object, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    state = s.trading_state
    if state is None:
        return R.MISSING_TRADING_STATE
    if state is _ACTIVE:
        return None
    return R.HALTED if state is _HALTED else R.REDUCING_ONLY


# -- the instrument and the order's shape ----------------------------------------------------


def check_symbol_malformed(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    return None if is_plain_ticker(p.symbol) else R.SYMBOL_MALFORMED


def check_symbol_denied(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    return R.SYMBOL_DENIED if p.symbol in c.deny else None


def check_symbol_allowed(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    if c.allow_all and is_plain_ticker(p.symbol):
        return None
    return None if p.symbol in c.allow else R.SYMBOL_NOT_ALLOWED


def check_order_type(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    return None if p.order_type in c.order_types else R.ORDER_TYPE_NOT_ALLOWED


def check_session_allowed(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    return None if p.market_hours in c.sessions else R.SESSION_NOT_ALLOWED


def check_market_session(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    session = s.session
    if session is None:
        return R.MISSING_SESSION
    return None if session in SESSION_COVERAGE[p.market_hours] else R.OUTSIDE_SESSION


def check_tradable(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    tradable = s.tradable
    if tradable is None:
        return R.MISSING_TRADABLE
    return None if tradable else R.NOT_TRADABLE


def check_fractional(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    return R.FRACTIONAL_NOT_ALLOWED if p.is_fractional and not c.fractional else None


def check_fractional_minimum(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    if not p.is_fractional:
        return None
    notional = t.notional
    if notional is None:
        return R.MISSING_NOTIONAL
    return R.FRACTIONAL_MINIMUM if notional < _ONE else None


def check_short(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    if p.side is _BUY or c.short:
        return None
    quantity = p.quantity if p.quantity is not None else t.quantity
    if quantity is None:
        return R.MISSING_QUANTITY
    positions = s.positions
    if positions is None:
        return R.MISSING_POSITIONS
    open_orders = s.open_orders
    if open_orders is None:
        return R.MISSING_OPEN_ORDERS
    position = positions.get(p.symbol)
    held = ZERO if position is None else position.quantity
    available = held - _pending(open_orders, p.symbol, _SELL)
    return R.SHORT_SELL if quantity > available else None


# -- market quality --------------------------------------------------------------------------


def check_quote_fresh(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    quote = s.quote
    if quote is None:
        return R.NO_QUOTE
    if quote.symbol != p.symbol:
        return R.QUOTE_SYMBOL_MISMATCH
    as_of = quote.as_of
    if as_of is None:
        return R.MISSING_QUOTE_TIME
    now = s.now
    if now is None:
        return R.MISSING_NOW
    # A quote stamped in the future is as suspect as an old one.
    return R.STALE_QUOTE if abs(now - as_of) > c.max_quote_age else None


def check_spread(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    quote = s.quote
    if quote is None:
        return R.NO_QUOTE
    bid = quote.bid
    ask = quote.ask
    if bid is None or ask is None or bid <= 0 or ask <= 0:
        return R.MISSING_BID_ASK
    if ask < bid:
        return R.CROSSED_QUOTE
    return R.SPREAD_TOO_WIDE if (ask - bid) * 20000 > c.max_spread_bps * (ask + bid) else None


def check_price_collar(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    quote = s.quote
    if quote is None:
        return R.NO_QUOTE
    bid = quote.bid
    ask = quote.ask
    if bid is not None and ask is not None and bid > 0 and ask > 0:
        # The mid, kept doubled so the comparison stays exact.
        reference2 = bid + ask
    elif quote.last is not None and quote.last > 0:
        reference2 = quote.last * 2
    else:
        return R.MISSING_QUOTE_PRICE
    price = p.limit_price if p.limit_price is not None else t.price
    if price is None:
        return R.MISSING_PRICE
    if abs(price * 2 - reference2) * 10000 > c.price_collar_bps * reference2:
        return R.PRICE_COLLAR
    return None


def check_size_vs_adv(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    pct = c.max_adv_pct
    if pct is None:
        return None
    quantity = p.quantity if p.quantity is not None else t.quantity
    if quantity is None:
        return R.MISSING_QUANTITY
    volume = s.average_daily_volume
    if volume is None:
        return R.MISSING_ADV
    # quantity / volume > pct / 100, cross-multiplied (a zero volume refuses any size).
    return R.SIZE_VS_ADV if quantity * 100 > pct * volume else None


# -- rate limits and buying power ------------------------------------------------------------


def check_duplicate(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    if c.duplicate_window_s == 0:
        return None
    recent = s.recent
    if recent is None:
        return R.MISSING_RECENT_ORDERS
    return R.DUPLICATE_ORDER if recent.duplicates > 0 else None


def check_order_rate(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    recent = s.recent
    if recent is None:
        return R.MISSING_RECENT_ORDERS
    if recent.identity_minute >= c.max_orders_per_minute:
        return R.ORDER_RATE
    return R.ORDER_RATE if recent.account_minute >= c.max_account_orders_per_minute else None


def check_orders_per_day(
    p: object, t: object, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    count = s.orders_24h
    if count is None:
        return R.MISSING_ORDERS_24H
    return R.MAX_ORDERS_PER_DAY if count >= c.max_orders_per_day else None


def check_open_orders(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    open_orders = s.open_orders
    if open_orders is None:
        return R.MISSING_OPEN_ORDERS
    unknown = s.unknown_broker_orders
    if unknown is None:
        return R.MISSING_UNKNOWN_BROKER_ORDERS
    return R.MAX_OPEN_ORDERS if len(open_orders) + unknown >= c.max_open_orders else None


def check_buying_power(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    if p.side is _SELL:
        return None
    notional = t.notional
    if notional is None:
        return R.MISSING_NOTIONAL
    buying_power = s.buying_power
    if buying_power is None:
        return R.MISSING_BUYING_POWER
    cost = notional + t.fees
    if cost > buying_power:
        return R.INSUFFICIENT_BUYING_POWER
    if c.margin:
        return None
    # Without margin the buy must also fit in cash (the broker's figure may include margin).
    cash = s.cash
    if cash is None:
        return R.MISSING_CASH
    return R.INSUFFICIENT_BUYING_POWER if cost > cash else None


# -- spend caps, concentration, cash ---------------------------------------------------------


def check_max_order(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    notional = t.notional
    if notional is None:
        return R.MISSING_NOTIONAL
    return R.MAX_ORDER_USD if notional > c.max_order_usd else None


def check_max_daily(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    notional = t.notional
    if notional is None:
        return R.MISSING_NOTIONAL
    spent = s.spent_24h
    if spent is None:
        return R.MISSING_SPENT_24H
    return R.MAX_DAILY_USD if spent + notional > c.max_daily_usd else None


def check_position_pct(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    notional = t.notional
    if notional is None:
        return R.MISSING_NOTIONAL
    equity = s.equity
    if equity is None:
        return R.MISSING_EQUITY
    positions = s.positions
    if positions is None:
        return R.MISSING_POSITIONS
    position = positions.get(p.symbol)
    value = ZERO if position is None else position.market_value
    exposure = abs(value + notional if p.side is _BUY else value - notional)
    equity_after = equity - t.fees
    if equity_after <= 0 or exposure * 100 > c.max_position_pct * equity_after:
        return R.MAX_POSITION_PCT
    return None


def check_min_cash(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    if p.side is _SELL:
        return None
    notional = t.notional
    if notional is None:
        return R.MISSING_NOTIONAL
    cash = s.cash
    if cash is None:
        return R.MISSING_CASH
    return R.MIN_CASH if cash - notional - t.fees < c.min_cash_usd else None


def check_max_positions(
    p: Proposal, t: Terms, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    positions = s.positions
    if positions is None:
        return R.MISSING_POSITIONS
    position = positions.get(p.symbol)
    if position is not None and position.quantity:
        return None  # adds to (or trims) a position already held
    held = 0
    for other in positions.values():
        if other.quantity:
            held += 1
    return R.MAX_POSITIONS if held >= c.max_positions else None


# -- breakers and reconciliation -------------------------------------------------------------


def check_drawdown(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    equity = s.equity
    if equity is None:
        return R.MISSING_EQUITY
    mark = s.high_water_mark
    if mark is None:
        return R.MISSING_HIGH_WATER_MARK
    # Trips at the limit; a non-positive mark means no drawdown can be measured.
    if mark <= 0 or (mark - equity) * 10000 >= c.drawdown_halt_bps * mark:
        return R.DRAWDOWN_HALT
    return None


def check_daily_loss(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    equity = s.equity
    if equity is None:
        return R.MISSING_EQUITY
    start = s.session_start_equity
    if start is None:
        return R.MISSING_SESSION_START_EQUITY
    return R.DAILY_LOSS_HALT if start - equity >= c.daily_loss_halt_usd else None


def check_cooldown(p: Proposal, t: Terms, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    if p.side is _SELL:
        return None
    return check_cooling(p, t, s, c)


def check_cooling(p: object, t: object, s: AccountState, c: PolicyConfig) -> ReasonCode | None:
    """The cooldown on any order that takes on risk (an equity buy, an opening option order):
    the account's side of ``check_cooldown``."""
    if c.cooldown_minutes == 0:
        return None
    cooldown = s.cooldown
    if cooldown is None:
        return R.MISSING_COOLDOWN
    now = s.now
    if now is None:
        return R.MISSING_NOW
    span = c.cooldown
    # Refused while less than the cooldown has passed since a breaker was last found tripped, or
    # since a loss made ``loss_streak`` losses within ``loss_window``.
    tripped = cooldown.breaker_tripped_at
    if tripped is not None and now - tripped < span:
        return R.COOLDOWN
    streak = c.loss_streak
    if streak:
        losses = cooldown.losses
        window = c.loss_window
        for last in range(streak - 1, len(losses)):
            closed = losses[last]
            if now - closed < span and closed - losses[last - streak + 1] <= window:
                return R.COOLDOWN
    return None


def check_unknown_broker_orders(
    p: object, t: object, s: AccountState, c: PolicyConfig
) -> ReasonCode | None:
    unknown = s.unknown_broker_orders
    if unknown is None:
        return R.MISSING_UNKNOWN_BROKER_ORDERS
    return R.UNKNOWN_BROKER_ORDERS if unknown > 0 else None


_N = Exemption.NONE
_X = Exemption.REDUCING
_P = Exemption.POLICY

RULES: tuple[Rule, ...] = (
    Rule("paused", check_paused, _N),
    Rule("trading_state", check_trading_state, _X),
    Rule("symbol_malformed", check_symbol_malformed, _N),
    Rule("symbol_denied", check_symbol_denied, _N),
    Rule("symbol_allowed", check_symbol_allowed, _N),
    Rule("order_type", check_order_type, _N),
    Rule("session_allowed", check_session_allowed, _N),
    Rule("market_session", check_market_session, _N),
    Rule("tradable", check_tradable, _N),
    Rule("fractional", check_fractional, _N),
    Rule("fractional_minimum", check_fractional_minimum, _N),
    Rule("short", check_short, _N),
    Rule("quote_fresh", check_quote_fresh, _N),
    Rule("spread", check_spread, _N),
    Rule("price_collar", check_price_collar, _N),
    Rule("size_vs_adv", check_size_vs_adv, _N),
    Rule("duplicate_order", check_duplicate, _N, estimate_only=True),
    Rule("order_rate", check_order_rate, _N, estimate_only=True),
    Rule("orders_per_day", check_orders_per_day, _N),
    Rule("open_orders", check_open_orders, _N),
    Rule("buying_power", check_buying_power, _N),
    Rule("max_order", check_max_order, _P),
    Rule("max_daily", check_max_daily, _P),
    Rule("position_pct", check_position_pct, _P),
    Rule("min_cash", check_min_cash, _P),
    Rule("max_positions", check_max_positions, _P),
    Rule("drawdown", check_drawdown, _P),
    Rule("daily_loss", check_daily_loss, _P),
    Rule("cooldown", check_cooldown, _N),
    Rule("unknown_broker_orders", check_unknown_broker_orders, _X),
)

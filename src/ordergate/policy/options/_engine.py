"""``evaluate_options``: the policy engine for option orders.

Pure like ``ordergate.policy.evaluate``: no I/O, no randomness; ``now`` comes in the account
state and the session close from ``ordergate.calendar``'s table. A policy without
``[options]`` refuses every option order with ``options_not_enabled`` and nothing else.
Otherwise every check runs and every failing code is reported once, in this order:

1. the account (the equity engine's own checks, run as they are): ``paused``, the trading
   state (a ``closing`` order passes REDUCING and HALTED, as a reducing equity order does);
2. the order: ``option_underlying_not_allowed``, ``option_strategy_not_allowed`` (the shape
   ``recognise`` finds, never the agent's word), ``option_undefined_risk`` (an unbounded
   max loss while ``undefined_risk`` is false), ``option_contracts_over_cap``,
   ``option_expiry_outside_window`` and ``option_open_too_late`` (opening legs only: a
   position is always let out), ``outside_session`` (options trade in regular hours);
3. the market: each leg's quote (``no_quote``, ``missing_data:quote.bid_ask``,
   ``crossed_quote``, ``stale_quote``) and ``option_price_collar`` (the net limit, or a
   market order's estimate, against the legs' net mid; an order whose direction nets the
   mid the wrong way is always outside);
4. the filing and its pace, as for equities: ``duplicate_order`` and ``order_rate`` (stage
   A only), ``max_orders_per_day``, ``max_open_orders``;
5. money: ``insufficient_buying_power`` (a debit's premium and fees against buying power,
   and cash unless ``margin``), ``option_premium_over_cap``,
   ``option_daily_premium_over_cap`` (the rolling 24 h premium plus this order's),
   ``max_daily_usd`` (the same premium against the daily dollar budget shared with
   equities, unless ``split_daily_budget``), ``option_max_loss_over_cap``;
6. the breakers (``drawdown_halt``, ``daily_loss_halt``), ``cooldown`` (an order with an
   opening leg, as an equity buy) and ``unknown_broker_orders``.

A ``closing`` order skips the trading state and unknown broker orders always, and the money
caps and breakers when ``reducing_exempt`` (the default), as a reducing equity order does.
An allowed order needs approval per ``approval`` on its max loss (its premium when closing;
an unbounded loss always needs it).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from ordergate.calendar import NEW_YORK, CalendarError, NyseCalendar
from ordergate.core import OptionDirection, Side
from ordergate.policy._config import MarketSession, PolicyConfig
from ordergate.policy._decision import Decision, Stage
from ordergate.policy._options_config import OptionsPolicy, Strategy
from ordergate.policy._reasons import ReasonCode
from ordergate.policy._rules import (
    check_cooling,
    check_daily_loss,
    check_drawdown,
    check_duplicate,
    check_open_orders,
    check_order_rate,
    check_orders_per_day,
    check_paused,
    check_trading_state,
    check_unknown_broker_orders,
)
from ordergate.policy._state import AccountState
from ordergate.policy.options._proposal import OptionProposal, OptionQuote, OptionTerms
from ordergate.policy.options._strategy import OptionHoldings, max_loss, recognise

__all__ = ["OptionDecision", "OptionState", "evaluate_options"]

R = ReasonCode
_BUY = Side.BUY
_REGULAR = MarketSession.REGULAR


@dataclass(frozen=True, slots=True)
class OptionState:
    """Everything besides the order: the ``account`` the equity engine reads (``now``, the
    pause and trading state, the pace, the op counts, buying power and cash, the spend, the
    breakers' equity marks, the session), each leg's ``quotes`` by ``option_id``, the
    ``holdings`` recognition weighs, and ``premium_24h``: the option premium reserved and
    filled in the rolling 24 h, as the ledger reads it. Missing data refuses."""

    account: AccountState
    quotes: Mapping[str, OptionQuote] | None = None
    holdings: OptionHoldings | None = None
    premium_24h: Decimal | None = None


@dataclass(frozen=True, slots=True)
class OptionDecision(Decision):
    """A ``Decision`` with what it was decided on: the recognised ``strategy``, the order's
    ``max_loss`` (USD; ``None``: unbounded or unpriced), ``premium_usd`` (``None``:
    unpriced) and the legs' ``net_mid`` the collar weighed (per share, in the order's
    direction; ``None``: the quotes did not give one), for the record, the refusal's figures
    and the owner's approvals."""

    strategy: Strategy
    max_loss: Decimal | None
    premium_usd: Decimal | None
    net_mid: Decimal | None = None


@functools.cache
def _calendar() -> NyseCalendar:
    return NyseCalendar()


_EDT = timedelta(hours=4)
_EST = timedelta(hours=5)


def _market_date(now: datetime) -> date:
    """New York's calendar date at ``now``. New York is 4 or 5 hours behind UTC, so outside
    the hour where the two disagree the date needs no time-zone lookup (a hot-path saving
    of about 3 µs of the four-leg bench's 16)."""
    if now.tzinfo is UTC:
        early, late = (now - _EST).date(), (now - _EDT).date()
        if early == late:
            return early
    return now.astimezone(NEW_YORK).date()


def _session_close(day: date) -> datetime | None:
    try:
        return _calendar().regular_close(day)
    except CalendarError:
        return None


def evaluate_options(
    proposal: OptionProposal,
    terms: OptionTerms,
    state: OptionState,
    config: PolicyConfig,
    stage: Stage,
) -> OptionDecision:
    """Decide on one option order (see the module's docstring). Never raises for missing
    data: it refuses with a reason."""
    holdings = state.holdings
    strategy = recognise(proposal, holdings)
    premium = terms.premium
    premium_usd = terms.premium_usd(proposal)
    loss = None if premium is None else max_loss(proposal, strategy, premium)
    options = config.options
    if options is None:
        return OptionDecision(
            False, (R.OPTIONS_NOT_ENABLED,), stage, False, False, strategy, loss, premium_usd
        )
    closing = strategy is Strategy.CLOSING
    account = state.account
    review = stage is Stage.REVIEW
    found: list[ReasonCode | None] = [check_paused(proposal, terms, account, config)]
    if not closing:
        found.append(check_trading_state(proposal, terms, account, config))
    found.extend(_order_checks(proposal, strategy, loss, premium, holdings, account, options))
    market, mid = _market_checks(proposal, terms, state, config, options)
    if market is not None:
        found.append(market)
    if not review:
        found.append(check_duplicate(proposal, terms, account, config))
        found.append(check_order_rate(proposal, terms, account, config))
    found.append(check_orders_per_day(proposal, terms, account, config))
    found.append(check_open_orders(proposal, terms, account, config))
    found.append(_buying_power(proposal, terms, premium_usd, account, config))
    exempt = closing and config.reducing_exempt
    if not exempt:
        found.extend(_money_checks(premium_usd, loss, state, config, options))
        found.append(check_drawdown(proposal, terms, account, config))
        found.append(check_daily_loss(proposal, terms, account, config))
    if proposal.opens:
        found.append(check_cooling(proposal, terms, account, config))
    if not closing:
        found.append(check_unknown_broker_orders(proposal, terms, account, config))
    reasons: list[ReasonCode] = []
    for code in found:
        if code is not None and code not in reasons:
            reasons.append(code)
    if reasons:
        return OptionDecision(
            False, tuple(reasons), stage, False, closing, strategy, loss, premium_usd, mid
        )
    at_risk = premium_usd if closing else loss
    approval = config.approval.requires(at_risk)
    return OptionDecision(True, (), stage, approval, closing, strategy, loss, premium_usd, mid)


def _order_checks(
    proposal: OptionProposal,
    strategy: Strategy,
    loss: Decimal | None,
    premium: Decimal | None,
    holdings: OptionHoldings | None,
    account: AccountState,
    options: OptionsPolicy,
) -> list[ReasonCode | None]:
    found: list[ReasonCode | None] = []
    if proposal.underlying not in options.underlyings:
        found.append(R.OPTION_UNDERLYING_NOT_ALLOWED)
    # Short and closing legs are judged against holdings: without them they cannot be.
    if holdings is None and any(leg.side is not _BUY or not leg.opens for leg in proposal.legs):
        found.append(R.MISSING_HOLDINGS)
    if strategy not in options.strategies:
        found.append(R.OPTION_STRATEGY_NOT_ALLOWED)
    if premium is None:
        found.append(R.MISSING_PREMIUM)
    elif loss is None and not options.undefined_risk:
        found.append(R.OPTION_UNDEFINED_RISK)
    if proposal.contracts > options.max_contracts:
        found.append(R.OPTION_CONTRACTS_OVER_CAP)
    found.extend(_expiry_checks(proposal, account.now, options))
    session = account.session
    if session is None:
        found.append(R.MISSING_SESSION)
    elif session is not _REGULAR:
        found.append(R.OUTSIDE_SESSION)
    return found


def _expiry_checks(
    proposal: OptionProposal, now: datetime | None, options: OptionsPolicy
) -> list[ReasonCode | None]:
    if not proposal.opens:
        return []
    if now is None:
        return [R.MISSING_NOW]
    found: list[ReasonCode | None] = []
    today = _market_date(now)
    expiries = {leg.contract.expiry for leg in proposal.legs if leg.opens}
    low, high = options.min_days_to_expiry, options.max_days_to_expiry
    if any(not low <= (expiry - today).days <= high for expiry in expiries):
        found.append(R.OPTION_EXPIRY_OUTSIDE_WINDOW)
    if today in expiries:
        # The last minutes of an expiration day (and any time once it closed, or on a day
        # with no session): no new position in a contract that is about to expire.
        close = _session_close(today)
        cutoff = None if close is None else close - timedelta(minutes=options.no_open_last_minutes)
        if cutoff is None or now >= cutoff:
            found.append(R.OPTION_OPEN_TOO_LATE)
    return found


def _market_checks(
    proposal: OptionProposal,
    terms: OptionTerms,
    state: OptionState,
    config: PolicyConfig,
    options: OptionsPolicy,
) -> tuple[ReasonCode | None, Decimal | None]:
    """The legs' quotes and the collar: the first failing code, and the legs' net mid."""
    quotes = state.quotes
    if quotes is None:
        return R.NO_QUOTE, None
    now = state.account.now
    # The legs' net mid, doubled to stay exact: what one unit of the order is worth.
    mid2 = Decimal(0)
    for leg in proposal.legs:
        quote = quotes.get(leg.option_id)
        if quote is None:
            return R.NO_QUOTE, None
        bid, ask = quote.bid, quote.ask
        if bid is None or ask is None or bid <= 0 or ask <= 0:
            return R.MISSING_BID_ASK, None
        if ask < bid:
            return R.CROSSED_QUOTE, None
        if quote.at is None:
            return R.MISSING_QUOTE_TIME, None
        if now is None:
            return R.MISSING_NOW, None
        if abs(now - quote.at) > config.max_quote_age:
            return R.STALE_QUOTE, None
        mid2 += leg.sign * leg.ratio * (bid + ask)
    if proposal.direction is not OptionDirection.DEBIT:
        mid2 = -mid2
    mid = mid2 / 2
    price = proposal.limit_price if proposal.limit_price is not None else terms.premium
    if price is None:
        return R.MISSING_PREMIUM, mid
    if mid2 <= 0 or abs(price * 2 - mid2) * 10000 > options.price_collar_bps * mid2:
        return R.OPTION_PRICE_COLLAR, mid
    return None, mid


def _buying_power(
    proposal: OptionProposal,
    terms: OptionTerms,
    premium_usd: Decimal | None,
    account: AccountState,
    config: PolicyConfig,
) -> ReasonCode | None:
    if proposal.direction is not OptionDirection.DEBIT:
        return None
    if premium_usd is None:
        return R.MISSING_PREMIUM
    buying_power = account.buying_power
    if buying_power is None:
        return R.MISSING_BUYING_POWER
    cost = premium_usd + terms.fees
    if cost > buying_power:
        return R.INSUFFICIENT_BUYING_POWER
    if config.margin:
        return None
    cash = account.cash
    if cash is None:
        return R.MISSING_CASH
    return R.INSUFFICIENT_BUYING_POWER if cost > cash else None


def _money_checks(
    premium_usd: Decimal | None,
    loss: Decimal | None,
    state: OptionState,
    config: PolicyConfig,
    options: OptionsPolicy,
) -> list[ReasonCode | None]:
    if premium_usd is None:
        return [R.MISSING_PREMIUM]
    found: list[ReasonCode | None] = []
    if premium_usd > options.max_premium_usd:
        found.append(R.OPTION_PREMIUM_OVER_CAP)
    spent = state.premium_24h
    if spent is None:
        found.append(R.MISSING_PREMIUM_24H)
    elif spent + premium_usd > options.max_daily_premium_usd:
        found.append(R.OPTION_DAILY_PREMIUM_OVER_CAP)
    if not options.split_daily_budget:
        shared = state.account.spent_24h
        if shared is None:
            found.append(R.MISSING_SPENT_24H)
        elif shared + premium_usd > config.max_daily_usd:
            found.append(R.MAX_DAILY_USD)
    if loss is not None and loss > options.max_loss_usd:
        found.append(R.OPTION_MAX_LOSS_OVER_CAP)
    return found

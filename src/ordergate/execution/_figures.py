"""``refusal_figures``: the numbers behind a policy refusal, one fixed sentence per code.

Each sentence names its code, what the check counted or weighed (the order's notional, the
open orders, the equity and its marks, the quote's age or spread …) and the policy's key with
its value, and nothing else: no terms beyond the order's own price and size, no upstream text,
no secrets (the gateway shows them to agents, the command line prints them). Both stages build
them from the state they decided on, so stage A and stage B say the same thing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import ROUND_DOWN, ROUND_UP, Decimal

from ordergate.calendar import NEW_YORK
from ordergate.core import to_wire
from ordergate.policy import (
    AccountState,
    PolicyConfig,
    ReasonCode,
    RecentOrders,
    Terms,
)
from ordergate.policy.options import OptionDecision, OptionProposal, OptionState, OptionTerms
from ordergate.venues import ADV_SESSIONS

__all__ = [
    "account_figures",
    "collar_figures",
    "cooldown_figures",
    "money_figures",
    "option_figures",
    "pace_figures",
    "quote_figures",
    "refusal_figures",
    "size_figures",
]

R = ReasonCode


def refusal_figures(
    reasons: tuple[str, ...],
    state: AccountState,
    quantity: Decimal | None,
    policy: PolicyConfig,
    terms: Terms | None = None,
    limit_price: Decimal | None = None,
) -> tuple[str, ...]:
    """The numbers behind a policy refusal at either stage, one fixed sentence per code that
    has them (``money_figures``, ``collar_figures``, ``quote_figures``, ``pace_figures``,
    ``account_figures``, ``cooldown_figures``, ``size_figures``): what was counted or asked
    and the policy's limit. ``state`` is what the stage decided on; ``quantity`` the shares
    it weighed (the order's, else its terms'); ``terms`` the stage's priced terms (the
    estimate, or the review); ``limit_price`` the order's own limit."""
    return (
        *quote_figures(reasons, state, policy),
        *money_figures(reasons, terms, state, policy),
        *collar_figures(reasons, terms, limit_price, state, policy),
        *pace_figures(reasons, state.recent, policy),
        *account_figures(reasons, state, policy),
        *cooldown_figures(reasons, state, policy),
        *size_figures(reasons, quantity, state.average_daily_volume, policy),
    )


_CENT = Decimal("0.01")
_MICROSECOND = timedelta(microseconds=1)


def _usd(amount: Decimal) -> str:
    return f"${to_wire(amount.quantize(_CENT))}"


def _iso(instant: datetime) -> str:
    return instant.isoformat().replace("+00:00", "Z")


def _seconds(span: timedelta) -> str:
    """``span`` in seconds, exactly (to the microsecond), without trailing zeros."""
    micros = Decimal(span // _MICROSECOND)
    return to_wire((micros / 1_000_000).normalize())


def quote_figures(
    reasons: tuple[str, ...], state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a ``stale_quote`` refusal (the quote's age, or how far ahead of now
    it is stamped, against ``max_quote_age_s``) and a ``spread_too_wide`` one (the bid, the
    ask and their spread in basis points of the mid, against ``max_spread_bps``)."""
    quote, now = state.quote, state.now
    if quote is None:
        return ()
    figures: list[str] = []
    if R.STALE_QUOTE in reasons and quote.as_of is not None and now is not None:
        age = now - quote.as_of
        said = (
            f"is {_seconds(age)} s old"
            if age >= timedelta(0)
            else f"is stamped {_seconds(-age)} s ahead of now"
        )
        figures.append(
            f"stale_quote: the quote {said} "
            f"(limits.max_quote_age_s = {policy.max_quote_age_s}); try again for a fresh one."
        )
    bid, ask = quote.bid, quote.ask
    if R.SPREAD_TOO_WIDE in reasons and bid is not None and ask is not None and bid + ask > 0:
        # Rounded up: a refused spread never reads as at or under the cap.
        bps = ((ask - bid) * 20000 / (ask + bid)).quantize(_CENT, rounding=ROUND_UP)
        figures.append(
            f"spread_too_wide: bid ${to_wire(bid)}, ask ${to_wire(ask)}, a spread of "
            f"{to_wire(bps)} "
            f"bps of the mid (limits.max_spread_bps = {policy.max_spread_bps}); try again "
            "when the market is orderly."
        )
    return tuple(figures)


def account_figures(
    reasons: tuple[str, ...], state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind the refusals that count the account: ``max_orders_per_day`` (the
    rolling 24 h's orders), ``max_open_orders`` (open orders, those filed here and those at
    the broker that were not), ``max_positions`` (positions held; the order opens another)
    and the breakers, ``drawdown_halt`` (equity, its high-water mark and the drawdown) and
    ``daily_loss_halt`` (the session's start equity, equity and the loss)."""
    figures: list[str] = []
    if R.MAX_ORDERS_PER_DAY in reasons and state.orders_24h is not None:
        figures.append(
            f"max_orders_per_day: {state.orders_24h} orders filed in the last 24 h "
            f"(limits.max_orders_per_day = {policy.max_orders_per_day}); each leaves the "
            "count 24 h after it was filed."
        )
    open_orders, unknown = state.open_orders, state.unknown_broker_orders
    if R.MAX_OPEN_ORDERS in reasons and open_orders is not None and unknown is not None:
        figures.append(
            f"max_open_orders: {len(open_orders) + unknown} open orders ({len(open_orders)} "
            f"filed here, {unknown} at the broker not filed here) "
            f"(limits.max_open_orders = {policy.max_open_orders}); cancel one or wait for "
            "one to fill."
        )
    if R.MAX_POSITIONS in reasons and state.positions is not None:
        held = sum(1 for position in state.positions.values() if position.quantity)
        figures.append(
            f"max_positions: {held} positions held, and this order opens another "
            f"(limits.max_positions = {policy.max_positions}); add to a held position or "
            "close one first."
        )
    figures.extend(_breaker_figures(reasons, state, policy))
    return tuple(figures)


def _breaker_figures(
    reasons: tuple[str, ...], state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    equity = state.equity
    if equity is None:
        return ()
    figures: list[str] = []
    mark = state.high_water_mark
    if R.DRAWDOWN_HALT in reasons and mark is not None:
        bps = policy.drawdown_halt_bps
        cap = f"(limits.drawdown_halt_bps = {bps}, {to_wire(Decimal(bps) / 100)} %)"
        if mark <= 0:
            figures.append(
                f"drawdown_halt: the high-water mark is {_usd(mark)}, so no drawdown can be "
                f"measured {cap}; only orders that reduce a position are taken."
            )
        else:
            # Rounded down: a refused drawdown never reads as under the cap.
            pct = ((mark - equity) * 100 / mark).quantize(_CENT, rounding=ROUND_DOWN)
            figures.append(
                f"drawdown_halt: equity {_usd(equity)} is {_usd(mark - equity)} "
                f"({to_wire(pct)} %) below its high-water mark of {_usd(mark)} {cap}; only "
                "orders that reduce a position are taken."
            )
    start = state.session_start_equity
    if R.DAILY_LOSS_HALT in reasons and start is not None:
        figures.append(
            f"daily_loss_halt: equity {_usd(equity)} is {_usd(start - equity)} below the "
            f"session's start of {_usd(start)} (limits.daily_loss_halt_usd = "
            f"{_usd(policy.daily_loss_halt_usd)}); only orders that reduce a position are "
            "taken."
        )
    return tuple(figures)


def collar_figures(
    reasons: tuple[str, ...],
    terms: Terms | None,
    limit_price: Decimal | None,
    state: AccountState,
    policy: PolicyConfig,
) -> tuple[str, ...]:
    """The numbers behind a ``price_collar`` refusal: the price weighed (the order's limit,
    else its terms' price), the quote it was weighed against and the collar."""
    quote = state.quote
    if ReasonCode.PRICE_COLLAR not in reasons or quote is None:
        return ()
    price = limit_price if limit_price is not None else None if terms is None else terms.price
    if price is None:
        return ()
    sides = ", ".join(
        f"{name} {_usd(value)}"
        for name, value in (("bid", quote.bid), ("ask", quote.ask), ("last", quote.last))
        if value is not None
    )
    return (
        f"price_collar: the order's price {_usd(price)} against the quote ({sides}) "
        f"(limits.price_collar_bps = {policy.price_collar_bps}).",
    )


def money_figures(
    reasons: tuple[str, ...], terms: Terms | None, state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a refusal by a money cap: the order's notional (``terms``, the
    stage's estimate or review) and what the cap weighed it against, each with the policy's
    key. A figure the stage did not have is left out (its code still names the refusal)."""
    if terms is None or terms.notional is None:
        return ()
    notional = terms.notional
    order = _usd(notional)
    figures: list[str] = []
    if ReasonCode.MAX_ORDER_USD in reasons:
        figures.append(
            f"max_order_usd: this order is {order} "
            f"(limits.max_order_usd = {_usd(policy.max_order_usd)})."
        )
    if ReasonCode.MAX_DAILY_USD in reasons and state.spent_24h is not None:
        figures.append(
            f"max_daily_usd: {_usd(state.spent_24h)} spent in the last 24 h, and this order is "
            f"{order} (limits.max_daily_usd = {_usd(policy.max_daily_usd)})."
        )
    if ReasonCode.INSUFFICIENT_BUYING_POWER in reasons and state.buying_power is not None:
        figures.append(
            f"insufficient_buying_power: this order is {order} with {_usd(terms.fees)} fees, "
            f"against {_usd(state.buying_power)} buying power"
            + ("." if state.cash is None else f" and {_usd(state.cash)} cash.")
        )
    if ReasonCode.MIN_CASH in reasons and state.cash is not None:
        figures.append(
            f"min_cash: {_usd(state.cash)} cash, and this order is {order} "
            f"(limits.min_cash_usd = {_usd(policy.min_cash_usd)})."
        )
    if ReasonCode.MAX_POSITION_PCT in reasons and state.equity is not None:
        figures.append(
            f"max_position_pct: this order is {order} on equity of {_usd(state.equity)} "
            f"(limits.max_position_pct = {to_wire(policy.max_position_pct)})."
        )
    return tuple(figures)


def pace_figures(
    reasons: tuple[str, ...], recent: RecentOrders | None, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a ``duplicate_order`` or ``order_rate`` refusal: for each, a fixed
    sentence naming the code, what was counted and the policy's limit (nothing else)."""
    if recent is None:
        return ()
    figures: list[str] = []
    if ReasonCode.DUPLICATE_ORDER in reasons:
        window = policy.duplicate_window_s
        figures.append(
            f"duplicate_order: {recent.duplicates} order(s) with the same terms accepted from "
            f"you in the last {window} s (limits.duplicate_window_s = {window}); read "
            "gate_record for its outcome before sending it again."
        )
    if ReasonCode.ORDER_RATE in reasons:
        mine, cap = recent.identity_minute, policy.max_orders_per_minute
        if mine >= cap:
            figures.append(
                f"order_rate: {mine} orders accepted from you in the last minute "
                f"(limits.max_orders_per_minute = {cap}); wait before filing again."
            )
        account, cap = recent.account_minute, policy.max_account_orders_per_minute
        if account >= cap:
            figures.append(
                f"order_rate: {account} orders accepted for this account in the last minute "
                f"(limits.max_account_orders_per_minute = {cap}); wait before filing again."
            )
    return tuple(figures)


def size_figures(
    reasons: tuple[str, ...],
    quantity: Decimal | None,
    volume: Decimal | None,
    policy: PolicyConfig,
) -> tuple[str, ...]:
    """The numbers behind a ``size_vs_adv`` refusal: the cap in shares, the average daily
    volume it is a percent of, and the order's quantity when it named one."""
    pct = policy.max_adv_pct
    if ReasonCode.SIZE_VS_ADV not in reasons or volume is None or pct is None:
        return ()
    cap = volume * pct / 100
    asked = f"{to_wire(quantity)} shares" if quantity is not None else "the estimated quantity"
    return (
        f"size_vs_adv: {asked} is above {to_wire(cap)} shares, {to_wire(pct)} % of the "
        f"symbol's average daily volume of {to_wire(volume)} shares over its last "
        f"{ADV_SESSIONS} closed sessions (limits.max_adv_pct = {to_wire(pct)}); send less.",
    )


def cooldown_figures(
    reasons: tuple[str, ...], state: AccountState, policy: PolicyConfig
) -> tuple[str, ...]:
    """The numbers behind a ``cooldown`` refusal: when a breaker was last found tripped and
    until when buys are refused, or how many of the filer's closed trades lost lately."""
    cooldown, now = state.cooldown, state.now
    if ReasonCode.COOLDOWN not in reasons or cooldown is None or now is None:
        return ()
    minutes = policy.cooldown_minutes
    tripped = cooldown.breaker_tripped_at
    if tripped is not None and now - tripped < policy.cooldown:
        return (
            f"cooldown: a breaker was last found tripped at {_iso(tripped)}; buys are refused "
            f"until {_iso(tripped + policy.cooldown)} (cooldown.minutes = {minutes}).",
        )
    since = now - policy.cooldown - policy.loss_window
    lost = sum(1 for closed in cooldown.losses if closed > since)
    return (
        f"cooldown: {lost} of your closed trades lost in the last "
        f"{minutes + policy.loss_window_minutes} minutes (cooldown.loss_streak = "
        f"{policy.loss_streak} within cooldown.loss_window_minutes = "
        f"{policy.loss_window_minutes}); buys are refused for cooldown.minutes = {minutes} "
        "after the loss that completed the streak.",
    )


def option_figures(
    decision: OptionDecision,
    proposal: OptionProposal,
    terms: OptionTerms,
    state: OptionState,
    policy: PolicyConfig,
) -> tuple[str, ...]:
    """The numbers behind an option order's refusal at either stage, one fixed sentence per
    code that has them, as ``refusal_figures`` gives an equity order's: the premium, the
    rolling 24 h premium and the shared daily budget, the max loss (and the strategy it was
    recognised as), the contracts, the expiries outside the window, the net price against the
    legs' net mid, buying power; then the shared checks' own (``pace_figures``,
    ``account_figures``). ``decision`` is what ``evaluate_options`` answered on ``terms``
    (the stage's estimate or review) and ``state``."""
    reasons = decision.codes
    options = policy.options
    if options is None:
        return ()
    figures: list[str] = []
    premium = decision.premium_usd
    account = state.account
    named = f"this {decision.strategy.value}"
    if R.OPTION_CONTRACTS_OVER_CAP in reasons:
        figures.append(
            f"option_contracts_over_cap: {proposal.contracts} contracts "
            f"(options.max_contracts = {options.max_contracts}); trade fewer."
        )
    if R.OPTION_EXPIRY_OUTSIDE_WINDOW in reasons and account.now is not None:
        today = account.now.astimezone(NEW_YORK).date()
        days = sorted({(leg.contract.expiry - today).days for leg in proposal.legs if leg.opens})
        figures.append(
            f"option_expiry_outside_window: opening legs expire in "
            f"{', '.join(str(day) for day in days)} day(s) (options.min_days_to_expiry = "
            f"{options.min_days_to_expiry}, options.max_days_to_expiry = "
            f"{options.max_days_to_expiry})."
        )
    if R.OPTION_OPEN_TOO_LATE in reasons:
        figures.append(
            "option_open_too_late: a leg opening today expires today, within the session's "
            f"last {options.no_open_last_minutes} minutes (options.no_open_last_minutes = "
            f"{options.no_open_last_minutes}); closing is still taken."
        )
    if R.OPTION_UNDEFINED_RISK in reasons:
        figures.append(
            f"option_undefined_risk: {named}'s loss is unbounded "
            "(options.undefined_risk = false); cover it (hold the shares, buy the wing)."
        )
    price = proposal.limit_price if proposal.limit_price is not None else terms.premium
    if R.OPTION_PRICE_COLLAR in reasons and decision.net_mid is not None and price is not None:
        figures.append(
            f"option_price_collar: the order's net {proposal.direction.value} {_usd(price)} "
            f"against the legs' net mid {_usd(decision.net_mid)} "
            f"(options.price_collar_bps = {options.price_collar_bps})."
        )
    if premium is not None:
        order = _usd(premium)
        if R.OPTION_PREMIUM_OVER_CAP in reasons:
            figures.append(
                f"option_premium_over_cap: this order's premium is {order} "
                f"(options.max_premium_usd = {_usd(options.max_premium_usd)})."
            )
        if R.OPTION_DAILY_PREMIUM_OVER_CAP in reasons and state.premium_24h is not None:
            figures.append(
                f"option_daily_premium_over_cap: {_usd(state.premium_24h)} of option premium "
                f"in the last 24 h, and this order's is {order} "
                f"(options.max_daily_premium_usd = {_usd(options.max_daily_premium_usd)})."
            )
        if R.MAX_DAILY_USD in reasons and account.spent_24h is not None:
            figures.append(
                f"max_daily_usd: {_usd(account.spent_24h)} spent in the last 24 h, and this "
                f"order's premium is {order} (limits.max_daily_usd = "
                f"{_usd(policy.max_daily_usd)}; options.split_daily_budget = false)."
            )
        if R.INSUFFICIENT_BUYING_POWER in reasons and account.buying_power is not None:
            figures.append(
                f"insufficient_buying_power: this debit is {order} with {_usd(terms.fees)} "
                f"fees, against {_usd(account.buying_power)} buying power"
                + ("." if account.cash is None else f" and {_usd(account.cash)} cash.")
            )
    if R.OPTION_MAX_LOSS_OVER_CAP in reasons and decision.max_loss is not None:
        figures.append(
            f"option_max_loss_over_cap: {named} can lose {_usd(decision.max_loss)} at expiry "
            f"(options.max_loss_usd = {_usd(options.max_loss_usd)})."
        )
    return (
        *figures,
        *pace_figures(reasons, account.recent, policy),
        *account_figures(reasons, account, policy),
    )

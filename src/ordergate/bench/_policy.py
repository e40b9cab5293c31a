"""``ordergate bench policy``: one ``evaluate`` call on a ten-rule policy, in process.

The policy is realistic with every limit set (caps, rolling caps, op and open-order caps,
concentration, cash floor, both breakers, quote age, spread, collar, size against the
average daily volume, position count, an allowlist and a denylist); the account is healthy
with a few positions and open orders, so every rule runs to the end. Cases, in alternating
rounds, each call timed with ``time.perf_counter_ns``:

- ``attribute_access_baseline`` (baseline): a plain function reading as many attributes
  of the same objects as the engine's checks do, with a few Decimal comparisons — the
  floor of any pure-Python evaluation over these inputs;
- ``evaluate_allowed``: a $50 AAPL buy that passes every rule;
- ``evaluate_refused``: a $400 buy over the order and rolling caps (both reported);
- ``evaluate_reducing``: a sell that closes a held position (the exempt rule set);
- ``evaluate_options_four_leg``: ``evaluate_options`` on an iron condor (four legs, each with
  a fresh quote) that passes every option check and the shared account checks, under the
  same policy's ``[options]``.

Goals (issue 5): p50 ≤ 15 µs, p99 ≤ 50 µs; the four-leg option case (issue 28): p50 ≤ 30 µs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from ordergate.bench._stats import Summary, summarise, timed_ns
from ordergate.core import OptionDirection, OptionPositionEffect, OptionType, Side
from ordergate.policy import (
    AccountState,
    Cooldown,
    MarketSession,
    OpenOrder,
    PolicyConfig,
    Position,
    Proposal,
    Quote,
    RecentOrders,
    Stage,
    Terms,
    TradingState,
    estimate_terms,
    evaluate,
    parse_policy,
)
from ordergate.policy.options import (
    HeldOption,
    OptionContract,
    OptionHoldings,
    OptionLeg,
    OptionProposal,
    OptionQuote,
    OptionState,
    OptionTerms,
    estimate_option_terms,
    evaluate_options,
)

__all__ = ["POLICY_TOML", "SIZES", "run_policy_bench", "scenario"]

# (rounds, calls per case per round, warm-up calls per case)
SIZES = {"quick": (3, 20_000, 2_000), "full": (5, 100_000, 10_000)}

POLICY_TOML = """
mode = "paper"
approval = "above:250"
[limits]
max_order_usd = "300"
max_daily_usd = "1500"
max_orders_per_day = 40
max_open_orders = 8
max_position_pct = "25"
min_cash_usd = "500"
drawdown_halt_bps = 1500
max_quote_age_s = 10
max_spread_bps = 40
price_collar_bps = 250
daily_loss_halt_usd = "400"
max_positions = 12
max_adv_pct = "1"
halt_cancels_open = true
[cooldown]
minutes = 30
loss_streak = 3
loss_window_minutes = 60
[symbols]
allow = ["AAPL", "MSFT", "SPY", "NVDA", "AMZN", "GOOGL", "META", "BRK.B", "VTI", "QQQ"]
deny = ["GME", "AMC"]
[orders]
types = ["market", "limit"]
sessions = ["regular_hours"]
fractional = true
short = false
[options]
underlyings = ["SPY", "QQQ", "AAPL"]
strategies = ["long_call", "long_put", "debit_vertical", "credit_vertical", "iron_condor",
              "covered_call", "cash_secured_put", "closing"]
max_contracts = 4
max_premium_usd = "400"
max_daily_premium_usd = "1200"
max_loss_usd = "1000"
min_days_to_expiry = 7
max_days_to_expiry = 45
no_open_last_minutes = 30
price_collar_bps = 800
"""

_NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)

Case = tuple[Proposal, Terms, AccountState, PolicyConfig]
OptionCase = tuple[OptionProposal, OptionTerms, OptionState, PolicyConfig]


def scenario() -> dict[str, Case]:
    """The measured cases: name → (proposal, terms, state, config)."""
    policy = parse_policy(POLICY_TOML)
    d = Decimal
    positions = {
        "MSFT": Position(d(4), d("1680.40")),
        "SPY": Position(d(3), d("1801.50")),
        "VTI": Position(d(6), d("1710.00")),
        "QQQ": Position(d(2), d("1040.00")),
    }
    open_orders = (
        OpenOrder("SPY", Side.BUY, d(1)),
        OpenOrder("MSFT", Side.SELL, d(1)),
    )
    account = AccountState(
        now=_NOW,
        equity=d("25000.00"),
        high_water_mark=d("26000.00"),
        session_start_equity=d("25100.00"),
        cash=d("8000.00"),
        buying_power=d("8000.00"),
        positions=positions,
        open_orders=open_orders,
        unknown_broker_orders=0,
        spent_24h=d("420.00"),
        orders_24h=6,
        trading_state=TradingState.ACTIVE,
        paused=False,
        session=MarketSession.REGULAR,
        quote=Quote("AAPL", d("231.44"), d("231.46"), d("231.45"), _NOW - timedelta(seconds=2)),
        tradable=True,
        recent=RecentOrders(identity_minute=2, account_minute=4, duplicates=0),
        average_daily_volume=d("48211350.5"),
        cooldown=Cooldown(
            _NOW - timedelta(hours=2),
            tuple(_NOW - timedelta(minutes=minutes) for minutes in (200, 150, 95, 40)),
        ),
    )
    allowed = Proposal("AAPL", Side.BUY, notional=d(50))
    refused = Proposal("AAPL", Side.BUY, notional=d(400))
    spent = replace(account, spent_24h=d("1200.00"))
    spy = replace(account, quote=Quote("SPY", d("600.48"), d("600.52"), d("600.50"), _NOW))
    reducing = Proposal("SPY", Side.SELL, quantity=d(3))
    return {
        "evaluate_allowed": (allowed, estimate_terms(allowed, account.quote), account, policy),
        "evaluate_refused": (refused, estimate_terms(refused, account.quote), spent, policy),
        "evaluate_reducing": (reducing, estimate_terms(reducing, spy.quote), spy, policy),
    }


def option_scenario() -> dict[str, OptionCase]:
    """The measured option case: an iron condor on SPY, allowed, on the equity cases' account."""
    policy = parse_policy(POLICY_TOML)
    d = Decimal
    expiry = _NOW.date() + timedelta(days=17)
    put, call = OptionType.PUT, OptionType.CALL
    buy, sell, opening = Side.BUY, Side.SELL, OptionPositionEffect.OPEN
    book = (
        ("a1", buy, put, 430, "0.90", "1.00"),
        ("a2", sell, put, 440, "1.90", "2.00"),
        ("a3", sell, call, 460, "1.40", "1.50"),
        ("a4", buy, call, 470, "0.60", "0.70"),
    )
    legs = tuple(
        OptionLeg(f"opt-{key}", OptionContract("SPY", expiry, d(strike), kind), side, opening)
        for key, side, kind, strike, _, _ in book
    )
    quotes = {
        f"opt-{key}": OptionQuote(f"opt-{key}", d(bid), d(ask), _NOW - timedelta(seconds=2))
        for key, _, _, _, bid, ask in book
    }
    condor = OptionProposal(
        legs=legs, quantity=1, direction=OptionDirection.CREDIT, limit_price=d("1.80")
    )
    account = scenario()["evaluate_allowed"][2]
    held = OptionContract("SPY", expiry, d(450), call)
    state = OptionState(
        account=account,
        quotes=quotes,
        holdings=OptionHoldings(
            shares=d(3), options={"opt-held": HeldOption(held, 1)}, cash=account.cash
        ),
        premium_24h=d("180.00"),
    )
    terms = estimate_option_terms(condor, quotes)
    return {"evaluate_options_four_leg": (condor, terms, state, policy)}


def _baseline(proposal: Proposal, terms: Terms, state: AccountState, config: PolicyConfig) -> bool:
    """About as many attribute reads and Decimal comparisons as the engine, no logic."""
    notional = terms.notional
    assert notional is not None and state.spent_24h is not None and state.equity is not None
    quote = state.quote
    assert quote is not None and quote.bid is not None and quote.ask is not None
    return (
        state.paused is False
        and state.trading_state is TradingState.ACTIVE
        and proposal.symbol in config.allow
        and proposal.symbol not in config.deny
        and proposal.order_type in config.order_types
        and proposal.market_hours in config.sessions
        and state.session is MarketSession.REGULAR
        and state.tradable is True
        and config.fractional
        and quote.symbol == proposal.symbol
        and quote.as_of is not None
        and quote.bid <= quote.ask
        and terms.price is not None
        and state.orders_24h is not None
        and state.open_orders is not None
        and state.unknown_broker_orders == 0
        and state.buying_power is not None
        and notional <= config.max_order_usd
        and state.spent_24h + notional <= config.max_daily_usd
        and state.positions is not None
        and state.cash is not None
        and state.high_water_mark is not None
        and state.session_start_equity is not None
        and state.equity > 0
    )


def run_policy_bench(*, quick: bool, emit: Callable[[Summary], None]) -> None:
    rounds, per_round, warmup = SIZES["quick" if quick else "full"]
    cases = scenario()
    calls: dict[str, Callable[[], object]] = {
        "attribute_access_baseline": _bind(_baseline, cases["evaluate_allowed"]),
    }
    for name, case in cases.items():
        calls[name] = _bind_evaluate(case)
    for name, option_case in option_scenario().items():
        calls[name] = _bind_options(option_case)
    if not calls["attribute_access_baseline"]():
        raise RuntimeError("policy bench: the baseline scenario is not healthy")
    for call in calls.values():
        timed_ns(call, warmup)
    samples: dict[str, list[int]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            samples[name] += timed_ns(call, per_round)
    baseline = summarise(
        "policy", "attribute_access_baseline", samples.pop("attribute_access_baseline")
    )
    emit(baseline)
    for name, timings in samples.items():
        emit(summarise("policy", name, timings).compared_with(baseline))


def _bind(function: Callable[..., bool], case: Case) -> Callable[[], object]:
    proposal, terms, state, config = case

    def call() -> object:
        return function(proposal, terms, state, config)

    return call


def _bind_evaluate(case: Case) -> Callable[[], object]:
    proposal, terms, state, config = case

    def call() -> object:
        return evaluate(proposal, terms, state, config, Stage.ESTIMATE)

    return call


def _bind_options(case: OptionCase) -> Callable[[], object]:
    proposal, terms, state, config = case

    def call() -> object:
        return evaluate_options(proposal, terms, state, config, Stage.ESTIMATE)

    return call

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
- ``evaluate_reducing``: a sell that closes a held position (the exempt rule set).

Goals (issue 5): p50 ≤ 15 µs, p99 ≤ 50 µs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from ordergate.bench._stats import Summary, summarise, timed_ns
from ordergate.core import Side
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
"""

_NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)

Case = tuple[Proposal, Terms, AccountState, PolicyConfig]


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

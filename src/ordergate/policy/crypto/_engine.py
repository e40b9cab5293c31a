"""``evaluate_crypto``: the policy on one crypto order, pure and deterministic.

Without ``[crypto]`` every crypto order is refused ``crypto_not_enabled`` and nothing else
is weighed. With it, the rules run in ``CRYPTO_RULES``' fixed order and every failing code is
reported once, as ``evaluate`` does for equities. The shared checks are the equity engine's
own functions (``ordergate.policy._rules``: the pause, the trading state, the quote's age,
the collar, duplicates and the order rate, the op counts, buying power, the money caps, the
breakers, the cooldown, unknown broker orders); they read of an order only its side, its
instrument (``CryptoProposal.symbol`` is the pair) and its limit, and of its terms the price,
notional, quantity and fees, which crypto names alike. They run on ``crypto_limits(config)``:
the policy with ``[crypto]``'s caps in place of ``[limits]``' (``max_order_usd``,
``max_position_pct``, ``price_collar_bps``; ``max_daily_usd`` the lower of the two, on the
one 24 h spend crypto shares with equities; with ``split_daily_budget``, crypto's own, on the
crypto orders' spend alone). Sessions do not apply: crypto trades 24/7.

The crypto rules of their own: the pair allowed (``crypto_pair_not_allowed``), listed and
tradable at the venue (``not_tradable``; the venue's pairs unknown: ``missing_data:pair_rules``),
at least the venue's minimum order size (``crypto_min_order_size``), in the pair's size step
and price tick (``crypto_increment``), no sale of more than is held net of pending sells
(``short_sell``), and a quote whose bid is not above its ask (``crossed_quote``).

A sell of no more than is held (net of pending sells) reduces the holding: the trading state
and unknown broker orders never stop it, and with ``reducing_exempt`` the money caps,
concentration, cash and breakers skip it, as for equities.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from ordergate.core import ZERO, Side
from ordergate.policy import _rules as shared
from ordergate.policy._config import PolicyConfig
from ordergate.policy._decision import Decision, Stage
from ordergate.policy._proposal import Proposal, Terms
from ordergate.policy._reasons import ReasonCode
from ordergate.policy._rules import Check, Exemption
from ordergate.policy._state import AccountState
from ordergate.policy.crypto._proposal import CryptoProposal, CryptoTerms
from ordergate.policy.crypto._quote import CryptoPairRules

__all__ = ["CRYPTO_RULES", "CryptoRule", "crypto_limits", "evaluate_crypto", "reduces_holding"]

R = ReasonCode
CryptoCheck = Callable[
    [CryptoProposal, CryptoTerms, AccountState, PolicyConfig, CryptoPairRules | None],
    ReasonCode | None,
]


@dataclass(frozen=True, slots=True)
class CryptoRule:
    name: str
    check: CryptoCheck
    exemption: Exemption
    estimate_only: bool = False


def _shared(check: Check) -> CryptoCheck:
    """One of the equity engine's checks, run on a crypto order (see the module docstring
    for what it reads, which a crypto order and its terms name alike)."""

    def run(
        p: CryptoProposal,
        t: CryptoTerms,
        s: AccountState,
        c: PolicyConfig,
        rules: CryptoPairRules | None,
    ) -> ReasonCode | None:
        return check(cast(Proposal, p), cast(Terms, t), s, c)

    return run


@functools.lru_cache(maxsize=16)
def crypto_limits(config: PolicyConfig) -> PolicyConfig:
    """``config`` with ``[crypto]``'s caps in place of ``[limits]``' (what the shared checks
    and the ledger's rolling cap weigh a crypto order on). ``config`` itself without
    ``[crypto]``."""
    crypto = config.crypto
    if crypto is None:
        return config
    daily = config.max_daily_usd
    if crypto.split_daily_budget and crypto.max_daily_usd is not None:
        daily = crypto.max_daily_usd  # its own budget (``split_daily_budget``)
    elif crypto.max_daily_usd is not None:
        daily = min(daily, crypto.max_daily_usd)
    return dataclasses.replace(
        config,
        max_order_usd=crypto.max_order_usd,
        max_daily_usd=daily,
        max_position_pct=crypto.max_position_pct,
        price_collar_bps=crypto.price_collar_bps,
    )


def _held(state: AccountState, pair: str) -> Decimal | None:
    """What is held of the pair's asset net of our pending sells; ``None`` when unknown."""
    positions, pending = state.positions, state.open_orders
    if positions is None or pending is None:
        return None
    holding = positions.get(pair)
    held = ZERO if holding is None else holding.quantity
    selling = sum((o.quantity for o in pending if o.symbol == pair and o.side is Side.SELL), ZERO)
    return held - selling


def reduces_holding(proposal: CryptoProposal, terms: CryptoTerms, state: AccountState) -> bool:
    """A sell of no more than is held net of pending sells (known quantities only)."""
    if proposal.side is not Side.SELL:
        return False
    quantity = proposal.asset_quantity if proposal.asset_quantity is not None else terms.quantity
    held = _held(state, proposal.pair)
    return quantity is not None and held is not None and 0 < quantity <= held


def check_enabled_pair(
    p: CryptoProposal, t: CryptoTerms, s: AccountState, c: PolicyConfig, r: CryptoPairRules | None
) -> ReasonCode | None:
    crypto = c.crypto
    if crypto is None:
        return R.CRYPTO_NOT_ENABLED
    return None if p.pair in crypto.pairs else R.CRYPTO_PAIR_NOT_ALLOWED


def check_listed(
    p: CryptoProposal, t: CryptoTerms, s: AccountState, c: PolicyConfig, r: CryptoPairRules | None
) -> ReasonCode | None:
    if r is None:
        return R.MISSING_PAIR_RULES
    return None if r.tradable else R.NOT_TRADABLE


def check_min_size(
    p: CryptoProposal, t: CryptoTerms, s: AccountState, c: PolicyConfig, r: CryptoPairRules | None
) -> ReasonCode | None:
    if r is None:
        return R.MISSING_PAIR_RULES
    quantity = p.asset_quantity if p.asset_quantity is not None else t.quantity
    if quantity is None:
        return R.MISSING_QUANTITY
    return R.CRYPTO_MIN_ORDER_SIZE if quantity < r.min_order_size else None


def check_increment(
    p: CryptoProposal, t: CryptoTerms, s: AccountState, c: PolicyConfig, r: CryptoPairRules | None
) -> ReasonCode | None:
    if r is None:
        return R.MISSING_PAIR_RULES
    steps = [(p.asset_quantity, r.asset_increment)]
    steps += [(price, r.quote_increment) for price in (p.limit_price, p.stop_price)]
    for value, step in steps:
        if value is None:
            continue
        if step is None or step <= 0:
            return R.MISSING_PAIR_RULES
        if value % step != 0:
            return R.CRYPTO_INCREMENT
    return None


def check_holding(
    p: CryptoProposal, t: CryptoTerms, s: AccountState, c: PolicyConfig, r: CryptoPairRules | None
) -> ReasonCode | None:
    if p.side is Side.BUY:
        return None
    quantity = p.asset_quantity if p.asset_quantity is not None else t.quantity
    if quantity is None:
        return R.MISSING_QUANTITY
    held = _held(s, p.pair)
    if held is None:
        return R.MISSING_POSITIONS
    return R.SHORT_SELL if quantity > held else None


def check_crossed(
    p: CryptoProposal, t: CryptoTerms, s: AccountState, c: PolicyConfig, r: CryptoPairRules | None
) -> ReasonCode | None:
    quote = s.quote
    if quote is None:
        return R.NO_QUOTE
    if quote.bid is None or quote.ask is None:
        return R.MISSING_BID_ASK
    return R.CROSSED_QUOTE if quote.bid > quote.ask else None


_N, _X, _P = Exemption.NONE, Exemption.REDUCING, Exemption.POLICY

CRYPTO_RULES: tuple[CryptoRule, ...] = (
    CryptoRule("paused", _shared(shared.check_paused), _N),
    CryptoRule("trading_state", _shared(shared.check_trading_state), _X),
    CryptoRule("pair_allowed", check_enabled_pair, _N),
    CryptoRule("listed", check_listed, _N),
    CryptoRule("min_order_size", check_min_size, _N),
    CryptoRule("increment", check_increment, _N),
    CryptoRule("holding", check_holding, _N),
    CryptoRule("quote_fresh", _shared(shared.check_quote_fresh), _N),
    CryptoRule("crossed", check_crossed, _N),
    CryptoRule("price_collar", _shared(shared.check_price_collar), _N),
    CryptoRule("duplicate_order", _shared(shared.check_duplicate), _N, estimate_only=True),
    CryptoRule("order_rate", _shared(shared.check_order_rate), _N, estimate_only=True),
    CryptoRule("orders_per_day", _shared(shared.check_orders_per_day), _N),
    CryptoRule("open_orders", _shared(shared.check_open_orders), _N),
    CryptoRule("buying_power", _shared(shared.check_buying_power), _N),
    CryptoRule("max_order", _shared(shared.check_max_order), _P),
    CryptoRule("max_daily", _shared(shared.check_max_daily), _P),
    CryptoRule("position_pct", _shared(shared.check_position_pct), _P),
    CryptoRule("min_cash", _shared(shared.check_min_cash), _P),
    CryptoRule("drawdown", _shared(shared.check_drawdown), _P),
    CryptoRule("daily_loss", _shared(shared.check_daily_loss), _P),
    CryptoRule("cooldown", _shared(shared.check_cooldown), _N),
    CryptoRule("unknown_broker_orders", _shared(shared.check_unknown_broker_orders), _X),
)


def evaluate_crypto(
    proposal: CryptoProposal,
    terms: CryptoTerms,
    state: AccountState,
    config: PolicyConfig,
    stage: Stage,
    pair_rules: CryptoPairRules | None,
) -> Decision:
    """Decide on one crypto order (``pair_rules``: what the venue takes for its pair, from
    its trading pairs). Never raises for missing data: it refuses with a reason."""
    if config.crypto is None:
        return Decision(False, (R.CRYPTO_NOT_ENABLED,), stage, False, False)
    limits = crypto_limits(config)
    reduces = reduces_holding(proposal, terms, state)
    exempt = reduces and config.reducing_exempt
    reasons: list[ReasonCode] = []
    for rule in CRYPTO_RULES:
        if stage is Stage.REVIEW and rule.estimate_only:
            continue
        if reduces and rule.exemption is Exemption.REDUCING:
            continue
        if exempt and rule.exemption is Exemption.POLICY:
            continue
        code = rule.check(proposal, terms, state, limits, pair_rules)
        if code is not None and code not in reasons:
            reasons.append(code)
    if reasons:
        return Decision(False, tuple(reasons), stage, False, reduces)
    return Decision(True, (), stage, config.approval.requires(terms.notional), reduces)

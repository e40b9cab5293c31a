"""``[crypto]`` and ``evaluate_crypto``: crypto refused without the table; the pair, the
venue's minimum and increments, holdings, the quote, the collar and the caps (a size in
units weighed at the far side), with the equity engine's shared checks."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from policy_kit import NOW, config, state

from ordergate.core import ConfigError, CryptoOrderType, Side
from ordergate.policy import (
    AccountState,
    Approval,
    ApprovalKind,
    CryptoPairRules,
    CryptoPolicy,
    CryptoProposal,
    CryptoRoute,
    OpenOrder,
    PolicyConfig,
    Position,
    Quote,
    ReasonCode,
    RecentOrders,
    Stage,
    TradingState,
    changed_keys,
    crypto_limits,
    estimate_crypto_terms,
    evaluate_crypto,
    loosened_keys,
    parse_policy,
)
from ordergate.policy import CryptoQuote as PairQuote

D = Decimal
R = ReasonCode
BTC = CryptoPairRules("BTC-USD", D("0.000001"), D(100), D("0.00000001"), D("0.01"), True)
CRYPTO = CryptoPolicy(pairs=frozenset({"BTC-USD"}), max_order_usd=D(1000))


def btc_quote(bid: str = "100000.00", ask: str = "100010.00", age_s: int = 1) -> Quote:
    return Quote("BTC-USD", D(bid), D(ask), None, NOW - timedelta(seconds=age_s))


def crypto_state(**changes: Any) -> AccountState:
    changes.setdefault("quote", btc_quote())
    changes.setdefault("positions", {"BTC-USD": Position(D("0.02"), D(2000))})
    changes.setdefault("equity", D(20000))
    return state(**changes)


def policy(**changes: Any) -> PolicyConfig:
    return config(max_daily_usd=D(5000), crypto=replace(CRYPTO, **changes))


def order(**fields: Any) -> CryptoProposal:
    terms: dict[str, Any] = {"pair": "BTC-USD", "side": Side.BUY, "asset_quantity": D("0.001")}
    terms.update(fields)
    return CryptoProposal(**terms)


def codes(
    proposal: CryptoProposal,
    account: AccountState | None = None,
    rules: CryptoPairRules | None = BTC,
    limits: PolicyConfig | None = None,
    stage: Stage = Stage.ESTIMATE,
) -> tuple[ReasonCode, ...]:
    account = crypto_state() if account is None else account
    quote = account.quote
    pair_quote = None if quote is None else PairQuote(quote.symbol, quote.bid, quote.ask, None)
    terms = estimate_crypto_terms(proposal, pair_quote)
    limits = policy() if limits is None else limits
    return evaluate_crypto(proposal, terms, account, limits, stage, rules).reasons


def test_a_small_buy_of_an_allowed_pair_is_allowed() -> None:
    assert codes(order()) == ()


def test_without_a_crypto_table_every_crypto_order_is_refused_crypto_not_enabled() -> None:
    assert codes(order(), limits=config()) == (R.CRYPTO_NOT_ENABLED,)


def test_a_pair_not_allowed_is_refused() -> None:
    eth = crypto_state(quote=Quote("ETH-USD", D(3000), D("3000.50"), None, NOW))
    assert codes(order(pair="ETH-USD"), eth, rules=replace(BTC, pair="ETH-USD")) == (
        R.CRYPTO_PAIR_NOT_ALLOWED,
    )


def test_a_quantity_one_cent_over_the_cap_at_the_ask_is_refused_and_at_the_cap_allowed() -> None:
    # 0.01 BTC at the ask of 100010.00 is $1000.10.
    assert codes(order(asset_quantity=D("0.01")), limits=policy(max_order_usd=D("1000.10"))) == ()
    assert codes(order(asset_quantity=D("0.01")), limits=policy(max_order_usd=D("1000.09"))) == (
        R.MAX_ORDER_USD,
    )


def test_the_daily_cap_is_the_lower_of_the_shared_budget_and_cryptos_own() -> None:
    spent = crypto_state(spent_24h=D(4800))
    assert codes(order(), spent) == ()  # $100.01 + $4800 within the shared $5000
    assert codes(order(), crypto_state(spent_24h=D(4900))) == (R.MAX_DAILY_USD,)
    assert codes(order(), spent, limits=policy(max_daily_usd=D(6000))) == ()
    assert codes(order(), spent, limits=policy(max_daily_usd=D(4900))) == (R.MAX_DAILY_USD,)
    assert crypto_limits(policy(max_daily_usd=D(4900))).max_daily_usd == D(4900)
    assert crypto_limits(config()) == config()


def test_a_split_crypto_budget_is_cryptos_own_cap_whatever_the_shared_one() -> None:
    split = replace(CRYPTO, max_daily_usd=D(9000), split_daily_budget=True)
    assert crypto_limits(config(crypto=split)).max_daily_usd == D(9000)
    read = parse_policy('[crypto]\nmax_daily_usd = "9000"\nsplit_daily_budget = true\n')
    assert read.crypto is not None and read.crypto.split_daily_budget is True
    joined = config(crypto=replace(split, split_daily_budget=False))
    assert loosened_keys(joined, config(crypto=split)) == ("crypto.split_daily_budget",)


def test_a_holding_over_max_position_pct_of_equity_is_refused() -> None:
    # $2000 of BTC held on $20000 of equity: 11 % leaves room for $200 more.
    capped = policy(max_position_pct=D(11))
    assert codes(order(), limits=capped) == ()
    assert codes(order(asset_quantity=D("0.003")), limits=capped) == (R.MAX_POSITION_PCT,)


def test_a_limit_outside_the_collar_is_refused() -> None:
    limit = CryptoOrderType.LIMIT
    assert codes(order(order_type=limit, limit_price=D("99000.00"))) == ()
    assert codes(order(order_type=limit, limit_price=D("90000.00"))) == (R.PRICE_COLLAR,)


@pytest.mark.parametrize(
    ("account", "expected"),
    [
        (crypto_state(quote=btc_quote(age_s=60)), (R.STALE_QUOTE,)),
        (crypto_state(quote=btc_quote(bid="100020.00")), (R.CROSSED_QUOTE,)),
        (crypto_state(quote=None), (R.NO_QUOTE,)),
    ],
)
def test_a_stale_crossed_or_missing_quote_is_refused(
    account: AccountState, expected: tuple[ReasonCode, ...]
) -> None:
    assert set(expected) <= set(codes(order(), account))


def test_the_venues_minimum_size_and_increments_are_kept() -> None:
    assert codes(order(asset_quantity=D("0.0000001"))) == (R.CRYPTO_MIN_ORDER_SIZE,)
    assert codes(order(asset_quantity=D("0.000001001"))) == (R.CRYPTO_INCREMENT,)
    limit = order(order_type=CryptoOrderType.LIMIT, limit_price=D("99999.995"))
    assert codes(limit) == (R.CRYPTO_INCREMENT,)
    assert codes(order(), rules=None) == (R.MISSING_PAIR_RULES,)
    assert codes(order(), rules=replace(BTC, tradable=False)) == (R.NOT_TRADABLE,)
    assert codes(order(), rules=replace(BTC, asset_increment=None)) == (R.MISSING_PAIR_RULES,)


def test_selling_more_than_is_held_net_of_pending_sells_is_refused() -> None:
    pending = crypto_state(open_orders=(OpenOrder("BTC-USD", Side.SELL, D("0.015")),))
    assert codes(order(side=Side.SELL, asset_quantity=D("0.02"))) == ()
    assert R.SHORT_SELL in codes(order(side=Side.SELL, asset_quantity=D("0.021")))
    assert R.SHORT_SELL in codes(order(side=Side.SELL, asset_quantity=D("0.01")), pending)
    assert R.MISSING_POSITIONS in codes(order(side=Side.SELL), crypto_state(positions=None))


def test_a_sell_of_what_is_held_reduces_and_skips_the_caps_and_trading_state() -> None:
    halted = crypto_state(trading_state=TradingState.HALTED, spent_24h=D(10_000))
    sell = order(side=Side.SELL, asset_quantity=D("0.02"))
    assert codes(sell, halted) == ()
    assert set(codes(order(), halted)) == {R.HALTED, R.MAX_DAILY_USD}


def test_a_dollar_amount_is_sized_at_the_ask_for_the_minimum() -> None:
    tiny = order(asset_quantity=None, quote_amount=D("0.01"))
    assert codes(tiny) == (R.CRYPTO_MIN_ORDER_SIZE,)
    assert codes(order(asset_quantity=None, quote_amount=D(50))) == ()
    assert R.MISSING_QUANTITY in codes(tiny, crypto_state(quote=None))


def test_the_shared_checks_pause_and_pace_crypto_orders_too() -> None:
    paused = crypto_state(paused=True)
    assert codes(order(), paused) == (R.PAUSED,)
    busy = crypto_state(recent=RecentOrders(identity_minute=0, account_minute=0, duplicates=1))
    assert codes(order(), busy) == (R.DUPLICATE_ORDER,)
    assert codes(order(), busy, stage=Stage.REVIEW) == ()


def test_approval_is_asked_on_the_notional_as_the_policy_says() -> None:
    always = replace(policy(), approval=Approval(ApprovalKind.ALWAYS))
    proposal = order()
    terms = estimate_crypto_terms(proposal, PairQuote("BTC-USD", D(100000), D(100010), NOW))
    decided = evaluate_crypto(proposal, terms, crypto_state(), always, Stage.ESTIMATE, BTC)
    assert decided.allowed and decided.requires_approval and not decided.reduces_position
    refused = evaluate_crypto(
        proposal, terms, crypto_state(paused=True), always, Stage.ESTIMATE, BTC
    )
    assert not refused.allowed and not refused.requires_approval


# -- the [crypto] table --------------------------------------------------------------------


def test_the_crypto_table_is_read_with_its_keys() -> None:
    read = parse_policy(
        """
[crypto]
pairs = ["btc-usd", "ETH-USD"]
max_order_usd = "250.50"
max_daily_usd = 400
max_position_pct = "15"
price_collar_bps = 150
route = "rest"
"""
    ).crypto
    assert read == CryptoPolicy(
        pairs=frozenset({"BTC-USD", "ETH-USD"}),
        max_order_usd=D("250.50"),
        max_daily_usd=D(400),
        max_position_pct=D(15),
        price_collar_bps=150,
        route=CryptoRoute.REST,
    )
    assert parse_policy("[crypto]\n").crypto == CryptoPolicy()
    assert parse_policy("").crypto is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[crypto]\nmax_order = 1", "crypto.max_order"),
        ("[crypto]\npairs = ['BTC']", "crypto.pairs"),
        ("[crypto]\npairs = 'BTC-USD'", "crypto.pairs"),
        ("[crypto]\npairs = [1]", "crypto.pairs[0]"),
        ("[crypto]\nmax_order_usd = 1.5", "crypto.max_order_usd"),
        ("[crypto]\nmax_order_usd = '0'", "crypto.max_order_usd"),
        ("[crypto]\nmax_daily_usd = '-1'", "crypto.max_daily_usd"),
        ("[crypto]\nmax_position_pct = '101'", "crypto.max_position_pct"),
        ("[crypto]\nprice_collar_bps = 0", "crypto.price_collar_bps"),
        ("[crypto]\nroute = 'fax'", "crypto.route"),
        ("[crypto]\nsplit_daily_budget = 'yes'", "crypto.split_daily_budget"),
        ("[crypto]\nsplit_daily_budget = true", "crypto.max_daily_usd"),
        ("crypto = 1", "crypto"),
    ],
)
def test_a_bad_crypto_key_is_refused_by_name(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_policy(text)
    assert caught.value.key == key


def test_enabling_crypto_or_widening_it_loosens_and_the_route_only_changes() -> None:
    base = config(crypto=CRYPTO)
    assert loosened_keys(config(), base) == ("crypto",)
    assert loosened_keys(base, config()) == ()
    wider = config(
        crypto=replace(
            CRYPTO,
            pairs=frozenset({"BTC-USD", "ETH-USD"}),
            max_order_usd=D(2000),
            price_collar_bps=400,
            max_daily_usd=None,
        )
    )
    assert loosened_keys(base, wider) == (
        "crypto.pairs",
        "crypto.max_order_usd",
        "crypto.price_collar_bps",
    )
    capped = config(crypto=replace(CRYPTO, max_daily_usd=D(100)))
    assert loosened_keys(capped, base) == ("crypto.max_daily_usd",)
    assert loosened_keys(base, capped) == ()
    rerouted = config(crypto=replace(CRYPTO, route=CryptoRoute.MCP))
    assert loosened_keys(base, rerouted) == ()
    assert changed_keys(base, rerouted) == ("crypto.route",)
    assert changed_keys(config(), base) == ("crypto",)
    assert changed_keys(base, base) == ()

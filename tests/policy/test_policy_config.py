"""The policy file: defaults for every omitted key, every bad value refused naming its key,
unknown keys refused, floats refused, look-alike symbols refused."""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ordergate.core import ConfigError, MarketHours, OrderType
from ordergate.policy import (
    DEFAULTS,
    Approval,
    ApprovalKind,
    Mode,
    PolicyConfig,
    load_policy,
    parse_policy,
    policy_from_mapping,
)

D = Decimal

ISSUE_SHAPE = """
mode = "paper"                 # or "live"
approval = "always"            # "always" | "never" | "above:250"
[limits]
max_order_usd = "100"
max_daily_usd = "500"          # rolling 24 h
max_orders_per_day = 20        # rolling 24 h
max_open_orders = 5
max_position_pct = "20"
min_cash_usd = "0"
drawdown_halt_bps = 1000
max_quote_age_s = 15
max_spread_bps = 50
price_collar_bps = 300
daily_loss_halt_usd = "250"
max_positions = 10
[symbols]
allow = ["AAPL", "MSFT", "SPY"]
deny = []
[orders]
types = ["market", "limit"]
sessions = ["regular_hours"]
fractional = true
short = false
"""

EXPECTED_DEFAULTS: dict[str, Any] = {
    "mode": Mode.PAPER,
    "approval": Approval(ApprovalKind.ALWAYS),
    "max_order_usd": D(100),
    "max_daily_usd": D(500),
    "max_orders_per_day": 20,
    "max_open_orders": 5,
    "max_position_pct": D(20),
    "min_cash_usd": D(0),
    "drawdown_halt_bps": 1000,
    "max_quote_age_s": 15,
    "max_spread_bps": 50,
    "price_collar_bps": 300,
    "daily_loss_halt_usd": D(250),
    "max_positions": 10,
    "duplicate_window_s": 30,
    "max_orders_per_minute": 5,
    "max_account_orders_per_minute": 10,
    "halt_cancels_open": False,
    "max_adv_pct": None,
    "cooldown_minutes": 0,
    "loss_streak": 0,
    "loss_window_minutes": 60,
    "allow": frozenset(),
    "allow_all": False,
    "deny": frozenset(),
    "order_types": frozenset({OrderType.MARKET, OrderType.LIMIT}),
    "sessions": frozenset({MarketHours.REGULAR_HOURS}),
    "fractional": True,
    "short": False,
    "margin": False,
    "reducing_exempt": True,
    "real_money": False,
    "approval_ttl_s": 900,
    "approval_slippage_pct": D(2),
    "paper_cash_usd": Decimal(10_000),
    "paper_slippage_bps": 0,
    "paper_account_type": None,
    "paper_option_level": None,
    "crypto": None,
    "options": None,
}


def refused(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_policy(text)
    return caught.value


@pytest.mark.req("policy.defaults-conservative")
@pytest.mark.parametrize("key", sorted(EXPECTED_DEFAULTS))
def test_an_omitted_key_takes_its_conservative_default(key: str) -> None:
    assert getattr(parse_policy(""), key) == EXPECTED_DEFAULTS[key]


def test_every_config_field_has_a_stated_default() -> None:
    names = {f.name for f in fields(PolicyConfig) if f.init}
    assert names == set(EXPECTED_DEFAULTS)
    assert parse_policy("") == DEFAULTS


def test_the_issue_shape_parses_with_its_values() -> None:
    policy = parse_policy(ISSUE_SHAPE)
    assert policy.allow == frozenset({"AAPL", "MSFT", "SPY"})
    assert policy.max_order_usd == D(100) and policy.max_position_pct == D(20)
    assert policy == PolicyConfig(allow=frozenset({"AAPL", "MSFT", "SPY"}))


def test_every_key_set_to_a_non_default_is_read() -> None:
    policy = parse_policy(
        """
        mode = "live"
        approval = "above:250.50"
        [limits]
        max_order_usd = 1000
        max_daily_usd = "5000.25"
        max_orders_per_day = 3
        max_open_orders = 2
        max_position_pct = "12.5"
        min_cash_usd = "100"
        drawdown_halt_bps = 500
        max_quote_age_s = 5
        max_spread_bps = 20
        price_collar_bps = 150
        daily_loss_halt_usd = "75"
        max_positions = 4
        duplicate_window_s = 0
        max_orders_per_minute = 2
        max_account_orders_per_minute = 3
        halt_cancels_open = true
        max_adv_pct = "0.5"
        [symbols]
        allow = [" aapl\t", "brk.b", " * "]
        deny = ["tsla"]
        [orders]
        types = ["stop_limit"]
        sessions = ["extended_hours", "all_day_hours"]
        fractional = false
        short = true
        margin = true
        reducing_exempt = false
        """
    )
    assert policy.mode is Mode.LIVE
    assert policy.approval == Approval(ApprovalKind.ABOVE, D("250.50"))
    assert (policy.max_order_usd, policy.max_daily_usd) == (D(1000), D("5000.25"))
    assert (policy.max_orders_per_day, policy.max_open_orders, policy.max_positions) == (3, 2, 4)
    assert (policy.max_position_pct, policy.min_cash_usd) == (D("12.5"), D(100))
    assert policy.daily_loss_halt_usd == D(75)
    pace = (
        policy.duplicate_window_s,
        policy.max_orders_per_minute,
        policy.max_account_orders_per_minute,
    )
    assert pace == (0, 2, 3)
    assert policy.halt_cancels_open is True
    assert policy.max_adv_pct == D("0.5")
    bps = (policy.drawdown_halt_bps, policy.max_spread_bps, policy.price_collar_bps)
    assert bps == (500, 20, 150)
    assert policy.max_quote_age_s == 5 and policy.max_quote_age.total_seconds() == 5
    assert policy.allow == frozenset({"AAPL", "BRK.B"}) and policy.allow_all
    assert policy.deny == frozenset({"TSLA"})
    assert policy.order_types == frozenset({OrderType.STOP_LIMIT})
    assert policy.sessions == frozenset({MarketHours.EXTENDED_HOURS, MarketHours.ALL_DAY_HOURS})
    assert (policy.fractional, policy.short, policy.margin, policy.reducing_exempt) == (
        False,
        True,
        True,
        False,
    )


@pytest.mark.req("policy.unknown-keys-refused")
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[limits]\nmax_ordr_usd = "100"', "limits.max_ordr_usd"),
        ("modee = 'paper'", "modee"),
        ("[limit]\nmax_order_usd = '1'", "limit"),
        ('[symbols]\nallowlist = ["AAPL"]', "symbols.allowlist"),
        ('[orders]\ntype = ["market"]', "orders.type"),
    ],
)
def test_an_unknown_key_is_refused_by_name(text: str, key: str) -> None:
    error = refused(text)
    assert error.key == key
    assert error.reason == "unknown key"


@pytest.mark.req("policy.float-money-refused")
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[limits]\nmax_order_usd = 100.5", "limits.max_order_usd"),
        ("[limits]\nmin_cash_usd = 0.0", "limits.min_cash_usd"),
        ("[limits]\nmax_position_pct = 1e1", "limits.max_position_pct"),
        ("[limits]\nmax_orders_per_day = 20.0", "limits.max_orders_per_day"),
        ("approval = 2.5", "approval"),
        ("mode = 1.0", "mode"),
        ("[symbols]\nallow = [1.5]", "symbols.allow[0]"),
        ("[orders]\ntypes = [1.0]", "orders.types[0]"),
    ],
)
def test_a_toml_float_is_refused_naming_the_key(text: str, key: str) -> None:
    assert refused(text).key == key


@pytest.mark.req("policy.bad-value-names-key")
@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('mode = "real"', "mode"),
        ("mode = 1", "mode"),
        ('approval = "sometimes"', "approval"),
        ('approval = "above"', "approval"),
        ('approval = "above:"', "approval"),
        ('approval = "above:abc"', "approval"),
        ('approval = "above:0"', "approval"),
        ('approval = "above:-5"', "approval"),
        ('approval = "below:5"', "approval"),
        ("approval = 250", "approval"),
        ('[limits]\nmax_order_usd = "0"', "limits.max_order_usd"),
        ('[limits]\nmax_order_usd = "-1"', "limits.max_order_usd"),
        ('[limits]\nmax_order_usd = "lots"', "limits.max_order_usd"),
        ('[limits]\nmax_order_usd = "NaN"', "limits.max_order_usd"),
        ('[limits]\nmax_order_usd = "Infinity"', "limits.max_order_usd"),
        ("[limits]\nmax_order_usd = true", "limits.max_order_usd"),
        ("[limits]\nmax_order_usd = [1]", "limits.max_order_usd"),
        ('[limits]\nmax_daily_usd = "0"', "limits.max_daily_usd"),
        ('[limits]\nmin_cash_usd = "-0.01"', "limits.min_cash_usd"),
        ('[limits]\nmax_position_pct = "100.01"', "limits.max_position_pct"),
        ('[limits]\nmax_position_pct = "0"', "limits.max_position_pct"),
        ('[limits]\ndaily_loss_halt_usd = "0"', "limits.daily_loss_halt_usd"),
        ("[limits]\nmax_orders_per_day = 0", "limits.max_orders_per_day"),
        ('[limits]\nmax_orders_per_day = "20"', "limits.max_orders_per_day"),
        ("[limits]\nmax_open_orders = -1", "limits.max_open_orders"),
        ("[limits]\nmax_open_orders = true", "limits.max_open_orders"),
        ("[limits]\ndrawdown_halt_bps = 10001", "limits.drawdown_halt_bps"),
        ("[limits]\nmax_quote_age_s = 0", "limits.max_quote_age_s"),
        ("[limits]\nmax_spread_bps = 0", "limits.max_spread_bps"),
        ("[limits]\nprice_collar_bps = 0", "limits.price_collar_bps"),
        ("[limits]\nmax_positions = 0", "limits.max_positions"),
        ("limits = 5", "limits"),
        ('[symbols]\nallow = "AAPL"', "symbols.allow"),
        ("[symbols]\nallow = [1]", "symbols.allow[0]"),
        ('[symbols]\ndeny = ["*"]', "symbols.deny[0]"),
        ('[orders]\ntypes = ["market", "iceberg"]', "orders.types[1]"),
        ("[orders]\ntypes = []", "orders.types"),
        ('[orders]\ntypes = "market"', "orders.types"),
        ('[orders]\nsessions = ["24_7"]', "orders.sessions[0]"),
        ("[orders]\nsessions = []", "orders.sessions"),
        ('[orders]\nfractional = "yes"', "orders.fractional"),
        ("[orders]\nshort = 0", "orders.short"),
        ("[orders]\nmargin = 1", "orders.margin"),
        ('[orders]\nreducing_exempt = "true"', "orders.reducing_exempt"),
        ("this is = not toml =", "policy"),
    ],
)
def test_a_bad_value_is_refused_naming_the_key(text: str, key: str) -> None:
    error = refused(text)
    assert error.key == key
    assert error.reason


@pytest.mark.req("policy.lookalike-symbols-refused")
@pytest.mark.parametrize(
    "symbol",
    [
        "\u0410APL",  # Cyrillic А
        "AAP\u0406",  # Cyrillic І
        "\uff21\uff21\uff30\uff2c",  # fullwidth ＡＡＰＬ
        "\u212a",  # KELVIN SIGN, which IGNORECASE would match as "k"
        "stra\u00dfe",  # ß upper-cases to SS
        "\ufb01",  # the fi ligature upper-cases to FI
        "BRK-B",
        "BRK/B",
        "BRK_B",
        "BRK..B",
        "A.B.C",
        ".SPY",
        "SPY.",
        "S PY",
        "1SPY",
        "",
        "   ",
        "AAPL\n",
        "\u00a0AAPL",  # no-break space is not "surrounding space"
        "\u3000AAPL",  # nor is the ideographic space
        "TOOLONGTICKER",
        "AAPL\u200b",  # zero-width space
    ],
)
def test_a_symbol_that_is_not_a_plain_ticker_is_refused_at_load(symbol: str) -> None:
    with pytest.raises(ConfigError) as caught:
        policy_from_mapping({"symbols": {"allow": ["SPY", symbol]}})
    assert caught.value.key == "symbols.allow[1]"
    with pytest.raises(ConfigError) as caught:
        policy_from_mapping({"symbols": {"deny": [symbol]}})
    assert caught.value.key == "symbols.deny[0]"


def test_a_policy_file_loads_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('approval = "never"\n[symbols]\nallow = ["SPY"]\n', encoding="utf-8")
    policy = load_policy(path)
    assert policy.approval == Approval(ApprovalKind.NEVER)
    assert policy.allow == frozenset({"SPY"})


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"max_order_usd": D(0)}, "limits.max_order_usd"),
        ({"min_cash_usd": D(-1)}, "limits.min_cash_usd"),
        ({"max_daily_usd": 5}, "limits.max_daily_usd"),
        ({"daily_loss_halt_usd": D("NaN")}, "limits.daily_loss_halt_usd"),
        ({"max_position_pct": D(101)}, "limits.max_position_pct"),
        ({"max_positions": True}, "limits.max_positions"),
        ({"max_open_orders": 0}, "limits.max_open_orders"),
        ({"price_collar_bps": 20_000}, "limits.price_collar_bps"),
        ({"duplicate_window_s": -1}, "limits.duplicate_window_s"),
        ({"duplicate_window_s": 86_401}, "limits.duplicate_window_s"),
        ({"max_orders_per_minute": 0}, "limits.max_orders_per_minute"),
        ({"max_account_orders_per_minute": 0}, "limits.max_account_orders_per_minute"),
        ({"halt_cancels_open": 1}, "limits.halt_cancels_open"),
        ({"max_adv_pct": D(0)}, "limits.max_adv_pct"),
        ({"cooldown_minutes": -1}, "cooldown.minutes"),
        ({"cooldown_minutes": 7 * 24 * 60 + 1}, "cooldown.minutes"),
        ({"cooldown_minutes": True}, "cooldown.minutes"),
        ({"loss_streak": -1}, "cooldown.loss_streak"),
        ({"loss_streak": 101}, "cooldown.loss_streak"),
        ({"loss_window_minutes": 0}, "cooldown.loss_window_minutes"),
        ({"max_adv_pct": D("100.01")}, "limits.max_adv_pct"),
        ({"max_adv_pct": D("Infinity")}, "limits.max_adv_pct"),
        ({"order_types": frozenset()}, "orders.types"),
        ({"sessions": frozenset()}, "orders.sessions"),
        ({"allow": frozenset({"aapl"})}, "symbols.allow"),
        ({"deny": frozenset({"\u0410APL"})}, "symbols.deny"),
    ],
)
def test_a_config_built_directly_is_validated_too(changes: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        PolicyConfig(**changes)
    assert caught.value.key == key


def test_approval_thresholds_and_their_text() -> None:
    above = Approval(ApprovalKind.ABOVE, D(250))
    assert str(above) == "above:250"
    assert str(Approval(ApprovalKind.NEVER)) == "never"
    assert above.requires(None)
    assert not above.requires(D(250)) and above.requires(D("250.01"))
    assert not Approval(ApprovalKind.NEVER).requires(None)
    assert parse_policy('approval = " Above:250 "').approval == above


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("real_money = 1", "real_money"),
        ("approval_ttl_s = 0", "approval_ttl_s"),
        ('approval_ttl_s = "900"', "approval_ttl_s"),
        ('approval_slippage_pct = "-1"', "approval_slippage_pct"),
        ('approval_slippage_pct = "101"', "approval_slippage_pct"),
        ("approval_slippage_pct = 2.5", "approval_slippage_pct"),
        ('approval_slippage_pct = "NaN"', "approval_slippage_pct"),
        ('[paper]\nstarting_cash_usd = "0"', "paper.starting_cash_usd"),
        ("[paper]\nstarting_cash_usd = 1.5", "paper.starting_cash_usd"),
        ("[paper]\nslippage_bps = -1", "paper.slippage_bps"),
        ("[paper]\nslippage_bps = 10001", "paper.slippage_bps"),
        ("[paper]\ncash = 5", "paper.cash"),
        ('[paper]\naccount_type = "ira"', "paper.account_type"),
        ("[paper]\naccount_type = 1", "paper.account_type"),
        ("[paper]\noption_level = 4", "paper.option_level"),
        ("[paper]\noption_level = 0", "paper.option_level"),
        ('[paper]\noption_level = "3"', "paper.option_level"),
    ],
)
def test_the_live_consent_approval_lifetime_and_paper_keys_are_checked_by_key(
    text: str, key: str
) -> None:
    assert refused(text).key == key


def test_real_money_paper_cash_and_slippage_are_read() -> None:
    policy = parse_policy(
        'real_money = true\napproval_ttl_s = 60\n[paper]\nstarting_cash_usd = "2500.50"\n'
        "slippage_bps = 5\n"
    )
    assert policy.real_money is True
    assert policy.approval_ttl_s == 60
    assert policy.paper_cash_usd == Decimal("2500.50")
    assert policy.paper_slippage_bps == 5


def test_the_paper_books_account_type_and_option_level_are_read_else_left_to_the_upstream() -> None:
    policy = parse_policy('[paper]\naccount_type = " Margin "\noption_level = 3\n')
    assert (policy.paper_account_type, policy.paper_option_level) == ("margin", 3)
    assert (DEFAULTS.paper_account_type, DEFAULTS.paper_option_level) == (None, None)


def test_halt_cancels_open_must_be_a_toml_boolean() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_policy('[limits]\nhalt_cancels_open = "yes"')
    assert caught.value.key == "limits.halt_cancels_open"


def test_the_cooldown_table_sets_its_minutes_and_refuses_unknown_keys() -> None:
    policy = parse_policy("[cooldown]\nminutes = 45")
    assert policy.cooldown_minutes == 45 and policy.cooldown.total_seconds() == 45 * 60
    streak = parse_policy("[cooldown]\nloss_streak = 3\nloss_window_minutes = 90")
    assert (streak.loss_streak, streak.loss_window.total_seconds()) == (3, 90 * 60)
    with pytest.raises(ConfigError) as caught:
        parse_policy("[cooldown]\nstreak = 3")
    assert caught.value.key == "cooldown.streak"
    with pytest.raises(ConfigError) as caught:
        parse_policy('[cooldown]\nminutes = "45"')
    assert caught.value.key == "cooldown.minutes"

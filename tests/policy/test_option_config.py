"""The policy file's [options] table: absent is off, keys as the issue names them, unknown keys
and bad values refused by name, and every loosening of it named for the owner."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from ordergate.core import ConfigError
from ordergate.policy import (
    DEFAULT_POLICY_TOML,
    DEFAULTS,
    changed_keys,
    loosened_keys,
    parse_policy,
)
from ordergate.policy.options import OptionsPolicy, Strategy

D = Decimal

FULL = """
[options]
underlyings = ["spy", " QQQ "]
strategies = ["long_call", "iron_condor", "credit_vertical"]
max_contracts = 3
max_premium_usd = "250"
max_daily_premium_usd = "1000.50"
max_loss_usd = 600
undefined_risk = false
min_days_to_expiry = 2
max_days_to_expiry = 45
no_open_last_minutes = 15
price_collar_bps = 800
split_daily_budget = true
"""


def test_a_policy_without_options_has_none() -> None:
    assert parse_policy("").options is None
    assert DEFAULTS.options is None


def test_every_options_key_is_read_as_the_issue_names_it() -> None:
    options = parse_policy(FULL).options
    assert options == OptionsPolicy(
        underlyings=frozenset({"SPY", "QQQ"}),
        strategies=frozenset({Strategy.LONG_CALL, Strategy.IRON_CONDOR, Strategy.CREDIT_VERTICAL}),
        max_contracts=3,
        max_premium_usd=D(250),
        max_daily_premium_usd=D("1000.50"),
        max_loss_usd=D(600),
        undefined_risk=False,
        min_days_to_expiry=2,
        max_days_to_expiry=45,
        no_open_last_minutes=15,
        price_collar_bps=800,
        split_daily_budget=True,
    )


@pytest.mark.req("policy.defaults-conservative")
def test_an_empty_options_table_enables_nothing_but_the_defaults() -> None:
    options = parse_policy("[options]\n").options
    assert options == OptionsPolicy()
    assert options.underlyings == frozenset()
    assert not options.undefined_risk
    assert Strategy.NAKED_CALL not in options.strategies
    assert Strategy.CLOSING in options.strategies


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[options]\nmax_premium = '5'\n", "options.max_premium"),
        ("[options]\nmax_premium_usd = 5.0\n", "options.max_premium_usd"),
        ("[options]\nmax_premium_usd = '0'\n", "options.max_premium_usd"),
        ("[options]\nmax_loss_usd = 'lots'\n", "options.max_loss_usd"),
        ("[options]\nmax_contracts = 0\n", "options.max_contracts"),
        ("[options]\nmax_contracts = '2'\n", "options.max_contracts"),
        ("[options]\nundefined_risk = 'yes'\n", "options.undefined_risk"),
        ("[options]\nunderlyings = 'SPY'\n", "options.underlyings"),
        ("[options]\nunderlyings = ['S-PY']\n", "options.underlyings[0]"),
        ("[options]\nstrategies = ['covered']\n", "options.strategies[0]"),
        ("[options]\nstrategies = 'long_call'\n", "options.strategies"),
        ("[options]\nmin_days_to_expiry = -1\n", "options.min_days_to_expiry"),
        (
            "[options]\nmin_days_to_expiry = 10\nmax_days_to_expiry = 9\n",
            "options.max_days_to_expiry",
        ),
        ("[options]\nno_open_last_minutes = 391\n", "options.no_open_last_minutes"),
        ("[options]\nprice_collar_bps = 10001\n", "options.price_collar_bps"),
        ("options = 1\n", "options"),
    ],
)
@pytest.mark.req("policy.bad-value-names-key")
def test_a_bad_options_value_is_refused_naming_its_key(text: str, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_policy(text)
    assert caught.value.key == key


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"underlyings": frozenset({"spy"})}, "options.underlyings"),
        ({"strategies": frozenset({"long_call"})}, "options.strategies"),
        ({"max_loss_usd": 5}, "options.max_loss_usd"),
        ({"max_loss_usd": D("NaN")}, "options.max_loss_usd"),
        ({"undefined_risk": 1}, "options.undefined_risk"),
        ({"price_collar_bps": True}, "options.price_collar_bps"),
    ],
)
def test_options_built_directly_are_checked_too(changes: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        OptionsPolicy(**changes)
    assert caught.value.key == key


def test_a_policy_config_refuses_options_that_are_not_an_options_policy() -> None:
    with pytest.raises(ConfigError) as caught:
        replace(DEFAULTS, options={"underlyings": ["SPY"]})  # type: ignore[arg-type]
    assert caught.value.key == "options"


BASE = parse_policy(FULL)


@pytest.mark.req("owner.policy.loosening-named")
@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"underlyings": frozenset({"SPY", "QQQ", "IWM"})}, "options.underlyings"),
        ({"strategies": frozenset(Strategy)}, "options.strategies"),
        ({"max_contracts": 4}, "options.max_contracts"),
        ({"max_premium_usd": D("250.01")}, "options.max_premium_usd"),
        ({"max_daily_premium_usd": D(2000)}, "options.max_daily_premium_usd"),
        ({"max_loss_usd": D(601)}, "options.max_loss_usd"),
        ({"undefined_risk": True}, "options.undefined_risk"),
        ({"min_days_to_expiry": 1}, "options.min_days_to_expiry"),
        ({"max_days_to_expiry": 46}, "options.max_days_to_expiry"),
        ({"no_open_last_minutes": 14}, "options.no_open_last_minutes"),
        ({"price_collar_bps": 801}, "options.price_collar_bps"),
    ],
)
def test_each_loosening_of_options_is_named(changes: dict[str, Any], key: str) -> None:
    assert BASE.options is not None
    looser = replace(BASE, options=replace(BASE.options, **changes))
    assert loosened_keys(BASE, looser) == (key,)
    assert loosened_keys(looser, BASE) == ()
    assert changed_keys(BASE, looser) == (key,)


def test_splitting_the_daily_budget_loosens_and_joining_it_tightens() -> None:
    assert BASE.options is not None
    joined = replace(BASE, options=replace(BASE.options, split_daily_budget=False))
    assert loosened_keys(joined, BASE) == ("options.split_daily_budget",)
    assert loosened_keys(BASE, joined) == ()


def test_enabling_options_loosens_and_removing_them_tightens() -> None:
    assert loosened_keys(DEFAULTS, BASE) == ("options",)
    assert loosened_keys(BASE, DEFAULTS) == ()
    assert changed_keys(BASE, DEFAULTS) == ("options",)
    assert changed_keys(BASE, BASE) == ()


def test_the_default_files_commented_options_say_what_omitting_them_does() -> None:
    lines = DEFAULT_POLICY_TOML.split("# [options]", 1)[1].split("\n\n", 1)[0].splitlines()
    settings = [
        line.removeprefix("# ").split("  #", 1)[0]
        for line in lines[1:]
        if line.startswith("# ") and "=" in line.split("#")[1]
    ]
    options = parse_policy("[options]\n" + "\n".join(settings)).options
    assert options == OptionsPolicy(underlyings=frozenset({"SPY"}))

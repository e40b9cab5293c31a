"""The agent's TOML configuration: validated, and every error names its field."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from ordergate.agent import AgentConfigError, load_agent_config, parse_agent_config


def test_without_a_file_the_defaults_trade_the_regular_session_only() -> None:
    config = load_agent_config(None)
    assert config.sessions == frozenset({"regular"})
    assert config.rebalance.targets == {"SPY": Decimal(60), "VTI": Decimal(30)}


def test_a_file_is_read_with_decimal_weights_and_upper_cased_tickers(tmp_path: Path) -> None:
    path = tmp_path / "agent.toml"
    path.write_text(
        'identity = "mine"\nsessions = ["regular", "extended"]\n'
        '[rebalance]\nmin_trade_usd = "2.50"\n[rebalance.targets]\nspy = "40"\n'
    )
    config = load_agent_config(path)
    assert config.identity == "mine"
    assert config.rebalance.targets == {"SPY": Decimal(40)}
    assert config.rebalance.min_trade_usd == Decimal("2.50")


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"rebalance": {"targets": {"SPY": 50.0}}}, "rebalance.targets", "floats"),
        ({"rebalance": {"targets": {}}}, "rebalance.targets", "at least one"),
        ({"rebalance": {"targets": {"SPY": "70", "VTI": "40"}}}, "rebalance.targets", "100"),
        ({"rebalance": {"targets": {"SPY": "0"}}}, "rebalance.targets", "(0, 100]"),
        ({"rebalance": {"targets": {"S P": "5"}}}, "rebalance.targets", "plain ticker"),
        ({"rebalance": {"targets": {"SPY": "x"}}}, "rebalance.targets", "not a decimal"),
        ({"rebalance": {"targets": {"SPY": "NaN"}}}, "rebalance.targets", "finite"),
        ({"rebalance": {"targets": {"SPY": "5"}, "band_pct": "0"}}, "rebalance.band_pct", "band"),
        (
            {"rebalance": {"targets": {"SPY": "5"}, "min_trade_usd": "0.5"}},
            "rebalance.min_trade_usd",
            "$1",
        ),
        ({"identity": " padded"}, "identity", "printable"),
        ({"sessions": ["weekend"]}, "sessions.0", ""),
        ({"tick_seconds": 0}, "tick_seconds", ""),
        ({"surprise": 1}, "surprise", ""),
        ({"llm": {"symbols": []}}, "llm.symbols", "at least one"),
        ({"llm": {"symbols": ["B AD"]}}, "llm.symbols", "plain ticker"),
        ({"llm": {"provider": "gemini"}}, "llm.provider", ""),
    ],
)
def test_an_invalid_config_names_the_bad_field(
    data: dict[str, object], field: str, words: str
) -> None:
    with pytest.raises(AgentConfigError) as caught:
        parse_agent_config(data)
    assert caught.value.field == field
    assert words in caught.value.reason


def test_an_unreadable_or_malformed_file_is_an_error_on_the_config_option(tmp_path: Path) -> None:
    with pytest.raises(AgentConfigError) as missing:
        load_agent_config(tmp_path / "absent.toml")
    assert missing.value.field == "--config" and "cannot read" in missing.value.reason
    bad = tmp_path / "bad.toml"
    bad.write_text("identity = ")
    with pytest.raises(AgentConfigError) as malformed:
        load_agent_config(bad)
    assert malformed.value.field == "--config" and "not TOML" in malformed.value.reason

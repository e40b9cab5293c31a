"""``AgentConfig``: what an agent run is told in its TOML file, validated with pydantic.

::

    identity = "rebalancer"          # who its filings are recorded under
    sessions = ["regular"]           # when it may trade: regular, extended, overnight
    tick_seconds = 300               # how far the market clock moves between ticks
    max_ticks = 100                  # a run never loops more than this

    [rebalance]
    band_pct = "5"                   # trade a symbol only when its weight drifts this far
    min_trade_usd = "5"              # smaller trades are not worth a filing ($1 is the floor)
    [rebalance.targets]              # target weights, % of equity (the rest stays cash)
    SPY = "60"
    VTI = "30"

    [llm]                            # for --strategy llm
    provider = "anthropic"           # anthropic | openai (optional extras) | scripted
    model = "claude-sonnet-4-5"
    symbols = ["SPY", "VTI"]         # the only symbols it may propose

Money and weights are Decimal strings; floats are refused. Errors name the bad field
(``AgentConfigError(field, reason)``).
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ordergate.core import OrdergateError

__all__ = [
    "AgentConfig",
    "AgentConfigError",
    "LlmConfig",
    "RebalanceConfig",
    "load_agent_config",
    "parse_agent_config",
]

AgentSession = Literal["regular", "extended", "overnight"]

MINIMUM_ORDER_USD = Decimal(1)
"""Robinhood's floor for a fractional (dollar) order."""


class AgentConfigError(OrdergateError):
    """The agent's configuration is unusable; ``field`` names the bad key."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def _decimal(value: Any) -> Decimal:
    if isinstance(value, (bool, float)):
        raise ValueError("write money and weights as strings, not floats")
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise ValueError("not a decimal number") from None
    if not number.is_finite():
        raise ValueError("not a finite number")
    return number


StrictDecimal = Annotated[Decimal, Field()]


class RebalanceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    targets: dict[str, StrictDecimal]
    band_pct: StrictDecimal = Decimal(5)
    min_trade_usd: StrictDecimal = Decimal(5)

    @field_validator("band_pct", "min_trade_usd", mode="before")
    @classmethod
    def _money(cls, value: Any) -> Decimal:
        return _decimal(value)

    @field_validator("targets", mode="before")
    @classmethod
    def _weights(cls, value: Any) -> dict[str, Decimal]:
        if not isinstance(value, dict) or not value:
            raise ValueError("give at least one symbol's target weight")
        weights: dict[str, Decimal] = {}
        for symbol, weight in value.items():
            ticker = str(symbol)
            if not ticker.isascii() or not ticker.replace(".", "").isalnum():
                raise ValueError(f"{ticker!r} is not a plain ticker")
            number = _decimal(weight)
            if number <= 0 or number > 100:
                raise ValueError(f"{ticker}: a weight is a percentage in (0, 100]")
            weights[ticker.upper()] = number
        if sum(weights.values()) > 100:
            raise ValueError("the weights add up to more than 100 %")
        return weights

    @field_validator("band_pct")
    @classmethod
    def _band(cls, value: Decimal) -> Decimal:
        if value <= 0 or value >= 100:
            raise ValueError("a band is a percentage in (0, 100)")
        return value

    @field_validator("min_trade_usd")
    @classmethod
    def _minimum(cls, value: Decimal) -> Decimal:
        if value < MINIMUM_ORDER_USD:
            raise ValueError(f"at least ${MINIMUM_ORDER_USD} (the fractional-order minimum)")
        return value


class LlmConfig(BaseModel):
    """``[llm]``: which provider's model proposes, over which symbols. ``scripted`` answers
    ``replies`` in turn (a demonstration or a test; no provider, no key)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: Literal["anthropic", "openai", "scripted"] = "scripted"
    model: str = ""
    symbols: tuple[str, ...] = ("SPY", "VTI")
    replies: tuple[str, ...] = ('{"action": "hold", "symbol": "SPY", "rationale": "demo"}',)

    @field_validator("symbols")
    @classmethod
    def _universe(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("give at least one symbol")
        for ticker in value:
            if not ticker.isascii() or not ticker.replace(".", "").isalnum():
                raise ValueError(f"{ticker!r} is not a plain ticker")
        return tuple(ticker.upper() for ticker in value)


class AgentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    identity: str = "agent"
    sessions: frozenset[AgentSession] = frozenset({"regular"})
    tick_seconds: int = Field(default=300, gt=0)
    max_ticks: int = Field(default=100, gt=0, le=100_000)
    rebalance: RebalanceConfig = RebalanceConfig(targets={"SPY": Decimal(60), "VTI": Decimal(30)})
    llm: LlmConfig = LlmConfig()

    @field_validator("identity")
    @classmethod
    def _identity(cls, value: str) -> str:
        if not value or len(value) > 100 or not value.isprintable() or value != value.strip():
            raise ValueError("a short printable name without space around it")
        return value


def parse_agent_config(data: dict[str, Any]) -> AgentConfig:
    """Validate ``data`` (a parsed TOML table). Raises ``AgentConfigError``."""
    try:
        return AgentConfig.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "config"
        reason = str(first["msg"]).removeprefix("Value error, ")
        raise AgentConfigError(field, reason) from None


def load_agent_config(path: Path | None) -> AgentConfig:
    """The configuration in ``path`` (the defaults when ``None``). Raises
    ``AgentConfigError`` for an unreadable, malformed or invalid file."""
    if path is None:
        return AgentConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise AgentConfigError("--config", f"cannot read {path}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise AgentConfigError("--config", f"not TOML: {error}") from None
    return parse_agent_config(data)

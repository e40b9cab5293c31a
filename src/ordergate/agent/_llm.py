"""``LlmStrategist``: a language model proposes, the wall disposes.

The model is given the tick's snapshot as JSON (quotes, positions, cash, buying power,
equity, the session — never a token or an account number) and no tools, and answers JSON: one
``ProposedAction`` or a list of them::

    {"action": "buy" | "sell" | "hold", "symbol": "SPY", "size_usd": "25", "rationale": "…"}

Each action is validated with pydantic; anything else (not JSON, an unknown key, a float
amount, a symbol outside the configured universe, under the $1 fractional minimum, a buy
while the agent is reducing) is dropped with the reason, and the runner journals it. What
survives becomes dollar-amount intents, sells first, each submitted through the guard.

``Model`` is the one interface: ``ScriptedModel`` (deterministic replies, for tests and
demos), ``AnthropicModel`` and ``OpenAIModel`` (the provider SDKs, installed as the optional
extras ``ordergate[anthropic]`` / ``ordergate[openai]``; their API keys come from the
provider's usual environment variable and are never logged).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ordergate.agent._config import MINIMUM_ORDER_USD, AgentConfigError
from ordergate.agent._intent import Intent, Plan
from ordergate.agent._snapshot import Snapshot
from ordergate.core import Side

__all__ = [
    "AnthropicModel",
    "LlmStrategist",
    "Model",
    "OpenAIModel",
    "ProposedAction",
    "ScriptedModel",
    "read_actions",
]

INSTRUCTIONS = """\
You manage a small equity portfolio. You see one snapshot of the account as JSON.
Answer with JSON only: a list of actions, each
{"action": "buy"|"sell"|"hold", "symbol": TICKER, "size_usd": "DOLLARS", "rationale": WHY}.
Dollar amounts are strings. Trade only these symbols: %s. Every order is checked by a policy
you cannot see or change; a refused order is simply not placed."""


class ProposedAction(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["buy", "sell", "hold"]
    symbol: str
    size_usd: Decimal = Decimal(0)
    rationale: str

    @field_validator("size_usd", mode="before")
    @classmethod
    def _amount(cls, value: Any) -> Any:
        if isinstance(value, (bool, float, int)):
            raise ValueError("a dollar amount is a string")
        return value

    @field_validator("rationale")
    @classmethod
    def _why(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("say why")
        return value[:500]


class Model(Protocol):
    """One completion: the prompt in, the model's text out. No tools."""

    name: str

    async def complete(self, prompt: str) -> str: ...


class ScriptedModel:
    """Answers its ``replies`` in turn (the last one again once they run out) and keeps
    every prompt it was given."""

    name = "scripted"

    def __init__(self, replies: Sequence[str]) -> None:
        if not replies:
            raise ValueError("a scripted model needs at least one reply")
        self._replies = list(replies)
        self.prompts: list[str] = []

    async def complete(self, prompt: str) -> str:
        self.prompts.append(prompt)
        index = min(len(self.prompts) - 1, len(self._replies) - 1)
        return self._replies[index]


def require_sdk(provider: str) -> None:
    """Raise ``AgentConfigError`` (``llm.provider``) when ``provider``'s SDK is not installed,
    naming the command that installs it; nothing for ``scripted``, which needs none."""
    import importlib.util

    if provider == "scripted" or importlib.util.find_spec(provider) is not None:
        return
    raise AgentConfigError(
        "llm.provider",
        f"the {provider} model needs its SDK, which is not installed: run "
        f"`scripts/uv sync --extra {provider}` (installed with pip: "
        f"`pip install 'ordergate[{provider}]'`)",
    )


def _sdk(module: str) -> Any:
    import importlib

    require_sdk(module)
    return importlib.import_module(module)


class AnthropicModel:
    """Claude through the ``anthropic`` SDK (``ANTHROPIC_API_KEY``)."""

    name = "anthropic"

    def __init__(self, model: str, *, max_tokens: int = 1024) -> None:
        self._client = _sdk("anthropic").AsyncAnthropic()
        self._model = model
        self._max_tokens = max_tokens

    async def complete(self, prompt: str) -> str:  # pragma: no cover - needs the provider
        reply = await self._client.messages.create(
            model=self._model,
            max_tokens=self._max_tokens,
            messages=[{"role": "user", "content": prompt}],
        )
        return "".join(getattr(block, "text", "") for block in reply.content)


class OpenAIModel:
    """A GPT model through the ``openai`` SDK (``OPENAI_API_KEY``)."""

    name = "openai"

    def __init__(self, model: str) -> None:
        self._client = _sdk("openai").AsyncOpenAI()
        self._model = model

    async def complete(self, prompt: str) -> str:  # pragma: no cover - needs the provider
        reply = await self._client.chat.completions.create(
            model=self._model, messages=[{"role": "user", "content": prompt}]
        )
        return reply.choices[0].message.content or ""


def read_actions(text: str) -> tuple[list[ProposedAction], list[str]]:
    """The valid actions in the model's ``text`` and a reason for each thing dropped."""
    try:
        data = json.loads(text)  # a JSON number stays a number, so size_usd refuses it
    except ValueError:
        return [], [f"model output is not JSON: {text[:80]!r}"]
    items = data if isinstance(data, list) else [data]
    actions: list[ProposedAction] = []
    dropped: list[str] = []
    for index, item in enumerate(items):
        try:
            actions.append(ProposedAction.model_validate(item))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "action"
            reason = str(first["msg"]).removeprefix("Value error, ")
            dropped.append(f"action {index} dropped: {where}: {reason}")
    return actions, dropped


class LlmStrategist:
    name = "llm"

    def __init__(self, model: Model, *, symbols: Iterable[str]) -> None:
        self._model = model
        self._symbols = tuple(sorted({symbol.upper() for symbol in symbols}))
        if not self._symbols:
            raise ValueError("the LLM strategist needs a universe of symbols")

    @property
    def symbols(self) -> tuple[str, ...]:
        return self._symbols

    def prompt(self, snapshot: Snapshot) -> str:
        body = json.dumps(snapshot.as_json(), sort_keys=True)
        return INSTRUCTIONS % ", ".join(self._symbols) + "\n\nSnapshot:\n" + body

    async def decide(self, snapshot: Snapshot, *, sells_only: bool = False) -> Plan:
        text = await self._model.complete(self.prompt(snapshot))
        actions, dropped = read_actions(text)
        sells: list[Intent] = []
        buys: list[Intent] = []
        holds: list[str] = []
        for action in actions:
            symbol = action.symbol.upper()
            if action.action == "hold":
                holds.append(f"{symbol}: {action.rationale}")
                continue
            if symbol not in self._symbols:
                dropped.append(f"{action.action} {symbol} dropped: not in the universe")
                continue
            if action.size_usd < MINIMUM_ORDER_USD:
                dropped.append(
                    f"{action.action} {symbol} dropped: size_usd under ${MINIMUM_ORDER_USD}"
                )
                continue
            if action.action == "buy" and sells_only:
                dropped.append(f"buy {symbol} dropped: buying is stopped (reducing)")
                continue
            side = Side.BUY if action.action == "buy" else Side.SELL
            intent = Intent(side, symbol, action.rationale, notional=action.size_usd)
            (buys if side is Side.BUY else sells).append(intent)
        intents = tuple(sells + buys)
        if not intents:
            why = "; ".join(holds) or (
                f"nothing the model proposed could be placed ({len(dropped)} dropped)"
                if dropped
                else "the model proposed no order"
            )
            return Plan(f"hold: {why}", (), tuple(dropped))
        sides = ", ".join(f"{i.side.value} {i.symbol}" for i in intents)
        return Plan(f"llm ({self._model.name}): {sides}", intents, tuple(dropped))

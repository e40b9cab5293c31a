"""The LLM strategist: a scripted model proposes JSON; anything malformed is dropped and
journalled; the rest goes through the guard. The model never sees a token or the account."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from agent_kit import agent_on_sandbox, settle, status

from ordergate.agent import (
    DROPPED,
    ORDER,
    AgentConfigError,
    LlmConfig,
    LlmStrategist,
    ScriptedModel,
    model_for,
    read_actions,
)
from ordergate.core import Side
from ordergate.ledger import FilingStatus

OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)

GOOD = '[{"action": "buy", "symbol": "SPY", "size_usd": "25", "rationale": "cheap"}]'
MALFORMED = (
    '[{"action": "buy", "symbol": "SPY", "size_usd": 25.5, "rationale": "float"},'
    ' {"action": "yolo", "symbol": "SPY", "rationale": "?"},'
    ' {"action": "buy", "symbol": "TSLA", "size_usd": "10", "rationale": "not ours"},'
    ' {"action": "sell", "symbol": "VTI", "size_usd": "0.5", "rationale": "dust"},'
    ' {"action": "hold", "symbol": "VTI", "rationale": "fine"}]'
)


def test_read_actions_keeps_valid_actions_and_says_why_each_other_is_dropped() -> None:
    actions, dropped = read_actions(MALFORMED)
    assert [(a.action, a.symbol) for a in actions] == [
        ("buy", "TSLA"),
        ("sell", "VTI"),
        ("hold", "VTI"),
    ]
    assert dropped == [
        "action 0 dropped: size_usd: a dollar amount is a string",
        "action 1 dropped: action: Input should be 'buy', 'sell' or 'hold'",
    ]
    assert read_actions("Sure! Buy SPY.") == ([], ["model output is not JSON: 'Sure! Buy SPY.'"])
    single, _ = read_actions('{"action": "hold", "symbol": "SPY", "rationale": " "}')
    assert single == []


def test_a_provider_without_its_sdk_says_which_extra_to_install() -> None:
    for provider in ("anthropic", "openai"):
        with pytest.raises(AgentConfigError) as missing:
            model_for(LlmConfig(provider=provider))
        assert missing.value.field == "llm.provider"
    assert model_for(LlmConfig()).name == "scripted"
    with pytest.raises(ValueError):
        ScriptedModel([])
    with pytest.raises(ValueError):
        LlmStrategist(ScriptedModel(["{}"]), symbols=[])


@pytest.mark.anyio
async def test_a_scripted_model_buys_through_the_guard_and_never_sees_the_account(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([GOOD])
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, strategy="llm", model=model) as run:
        tick = await run.agent.tick()
        ((intent, outcome),) = tick.orders
        assert intent.side is Side.BUY and intent.notional == Decimal(25)
        assert outcome.status is FilingStatus.SUBMITTED
        await settle(run)
        assert status(run, outcome) is FilingStatus.FILLED
        (prompt,) = model.prompts
        assert run.running.guard.account not in prompt
        assert "token" not in prompt.lower() and '"equity"' in prompt
        (entry,) = [e for e in run.running.guard.ledger.journal.entries() if e.kind == ORDER]
        assert entry.why == "cheap" and entry.filing_id == outcome.filing_id


@pytest.mark.anyio
@pytest.mark.req("agent.llm-dropped")
async def test_malformed_model_output_is_dropped_and_journalled_and_nothing_is_filed(
    tmp_path: Path,
) -> None:
    model = ScriptedModel([MALFORMED, "not json at all"])
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, strategy="llm", model=model) as run:
        first = await run.agent.tick()
        second = await run.agent.tick()
        assert first.orders == () and second.orders == ()
        assert first.plan.rationale == "hold: VTI: fine"
        dropped = [e.why for e in run.running.guard.ledger.journal.entries() if e.kind == DROPPED]
        assert dropped == [
            "action 0 dropped: size_usd: a dollar amount is a string",
            "action 1 dropped: action: Input should be 'buy', 'sell' or 'hold'",
            "buy TSLA dropped: not in the universe",
            "sell VTI dropped: size_usd under $1",
            "model output is not JSON: 'not json at all'",
        ]
        assert run.running.guard.ledger.open_filings() == []


@pytest.mark.anyio
async def test_through_thanksgiving_the_llm_agent_orders_only_in_regular_hours(
    tmp_path: Path,
) -> None:
    from datetime import timedelta

    from ordergate.agent import AgentSession

    wednesday = datetime(2026, 11, 25, 14, 30, tzinfo=UTC)
    model = ScriptedModel([GOOD])
    async with agent_on_sandbox(
        tmp_path / "home", start=wednesday, strategy="llm", model=model
    ) as run:

        async def advance(delta: timedelta) -> None:
            run.clock.advance(delta)

        ticks = await run.agent.run(max_ticks=24, tick=timedelta(hours=3), wait=advance)
        traded = [tick for tick in ticks if tick.orders]
        assert traded
        for tick in ticks:
            regular = tick.signal.session is AgentSession.REGULAR
            assert bool(tick.orders) == regular, tick.signal
            assert tick.signal.at.date() != datetime(2026, 11, 26).date() or not regular
        outcomes = [outcome for tick in traded for _, outcome in tick.orders]
        assert {outcome.status for outcome in outcomes} == {FilingStatus.SUBMITTED}
        # Each fills when a later tick reads the book, on its placement's price: those placed
        # half an hour before Wednesday's close and Friday's early one too, read after it.
        assert {status(run, outcome) for outcome in outcomes} == {FilingStatus.FILLED}
        assert run.running.guard.ledger.open_filings() == []
        # The model is asked only when a trade could follow.
        assert len(model.prompts) == len(
            [t for t in ticks if t.signal.session is AgentSession.REGULAR]
        )

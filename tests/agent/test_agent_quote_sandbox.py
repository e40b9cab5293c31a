"""The wall's quote checks through the agent runtime: the rebalancer's market orders on the
embedded sandbox venue, through the guard, on a stepped clock, on paper and live. A quote exactly
``max_quote_age_s`` old passes and one a second older is refused ``stale_quote`` (the venue's
feed held behind its clock by the ``quote_lag_s`` fault). The agent files market orders, so
the collar weighs each one's estimate (the ask) against the mid: a collar that reaches the ask
passes it, one a basis point tighter (the key's smallest step) refuses it ``price_collar``.
Nothing refused reaches the venue."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import ROUND_CEILING, Decimal
from pathlib import Path

import pytest
from agent_kit import POLICY, AgentRun, agent_on_sandbox
from venue_testkit import VenueClient

from ordergate.agent import Tick
from ordergate.execution import Outcome
from ordergate.ledger import FilingStatus, UnknownFilingError

pytestmark = pytest.mark.anyio

# Tuesday 2026-12-01, 10:00 in New York: the regular session is open.
OPEN = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)
# $100 an order: each tick buys $100 of SPY and of VTI, far from their targets.
SMALL_ORDERS = POLICY.replace('max_order_usd = "3000"', 'max_order_usd = "100"')
MODES = {"paper": 'mode = "paper"', "live": 'mode = "live"\nreal_money = true'}


def _limits(extra: str, mode: str = "paper") -> str:
    policy = SMALL_ORDERS.replace("[limits]\n", f"[limits]\n{extra}\n")
    return policy.replace('mode = "paper"', MODES[mode])


def _venue(run: AgentRun) -> VenueClient:
    """The embedded venue's loopback admin, reached as an outside client reaches it."""
    url = run.running.upstream.url
    assert url is not None and url.endswith("/mcp/trading")
    return VenueClient(url.removesuffix("/mcp/trading"))


def _outcomes(tick: Tick) -> dict[str, Outcome]:
    assert [intent.symbol for intent, _ in tick.orders] == ["SPY", "VTI"], tick.plan.rationale
    return {intent.symbol: outcome for intent, outcome in tick.orders}


def _never_sent(run: AgentRun, outcome: Outcome) -> None:
    assert outcome.status is FilingStatus.REFUSED and outcome.order_id is None
    with pytest.raises(UnknownFilingError):
        run.running.guard.ledger.orders.get(outcome.filing_id)


@pytest.mark.req("wall.stale-quote")
@pytest.mark.parametrize("mode", list(MODES))
async def test_the_agents_order_on_a_quote_a_second_past_max_quote_age_is_refused_stale_quote(
    tmp_path: Path, mode: str
) -> None:
    policy = _limits("max_quote_age_s = 15", mode)
    async with agent_on_sandbox(tmp_path / "home", start=OPEN, policy=policy) as run:
        with _venue(run) as venue:
            venue.faults(quote_lag_s={"SPY": 16, "VTI": 15})
            outcomes = _outcomes(await run.agent.tick())
        spy, vti = outcomes["SPY"], outcomes["VTI"]
        assert spy.reasons == ("stale_quote",)
        assert "stale_quote: the quote is 16 s old (limits.max_quote_age_s = 15)" in spy.message
        _never_sent(run, spy)
        # On paper it fills at once; live, the venue fills it after the tick.
        assert vti.status is not FilingStatus.REFUSED, vti
        assert run.running.arming.live is (mode == "live")


def _half_spread_bps(message: str) -> Decimal:
    """The ask's distance from the mid, in basis points, from a price_collar figure."""
    found = re.search(r"bid \$([0-9.]+), ask \$([0-9.]+)", message)
    assert found is not None, message
    bid, ask = Decimal(found[1]), Decimal(found[2])
    return (ask - bid) * 10000 / (ask + bid)


# SNAP trades a cent wide at under $10: its ask is some 13 bps from the mid, room enough for a
# collar a basis point short of it (SPY's ask is under one basis point away).
SNAP_ONLY = {
    "identity": "rebalancer",
    "sessions": ["regular"],
    "rebalance": {"band_pct": "3", "min_trade_usd": "5", "targets": {"SNAP": "50"}},
}


async def _snap_buy(home: Path, collar_bps: int, mode: str) -> Outcome:
    policy = _limits(f"price_collar_bps = {collar_bps}", mode).replace(
        'allow = ["SPY", "VTI", "QQQ"]', 'allow = ["SNAP"]'
    )
    async with agent_on_sandbox(home, start=OPEN, policy=policy, config=SNAP_ONLY) as run:
        tick = await run.agent.tick()
        assert [intent.symbol for intent, _ in tick.orders] == ["SNAP"], tick.plan.rationale
        outcome = tick.orders[0][1]
        if outcome.status is FilingStatus.REFUSED:
            _never_sent(run, outcome)
        return outcome


@pytest.mark.req("wall.limit-collar")
@pytest.mark.parametrize("mode", list(MODES))
async def test_the_agents_market_order_a_basis_point_past_the_collar_is_refused_price_collar(
    tmp_path: Path, mode: str
) -> None:
    # The tightest collar refuses the order, naming the quote it weighed.
    probe = await _snap_buy(tmp_path / "probe", 1, mode)
    assert probe.reasons == ("price_collar",)
    reach = int(_half_spread_bps(probe.message).to_integral_value(ROUND_CEILING))
    assert reach > 1, reach
    refused = await _snap_buy(tmp_path / "tight", reach - 1, mode)
    assert refused.reasons == ("price_collar",)
    assert f"(limits.price_collar_bps = {reach - 1})" in refused.message
    accepted = await _snap_buy(tmp_path / "wide", reach, mode)
    assert accepted.status is not FilingStatus.REFUSED, accepted

"""``gate_record`` carries the caller's own grades and track record over MCP, never another's."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from mcp_gateway_kit import gateway

from ordergate.calendar import NyseCalendar
from ordergate.core import Side
from ordergate.policy import Proposal
from ordergate.record import Grader, MarketCloses, public_id

pytestmark = [pytest.mark.anyio, pytest.mark.req("record.own-only")]

# Wednesday 2026-12-02 16:00 in New York: the close that grades Tuesday's fills.
WEDNESDAY_CLOSE = datetime(2026, 12, 2, 21, 0, tzinfo=UTC)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_gate_record_shows_the_callers_own_grades_and_never_anothers(
    tmp_path: Path,
) -> None:
    async with gateway(tmp_path) as gw:
        mine = await gw.call(
            "place_equity_order",
            {"account_number": gw.account, "symbol": "SPY", "side": "buy", "type": "market",
             "quantity": "1"},
        )  # fmt: skip
        other = await gw.guard.submit(
            Proposal(symbol="AAPL", side=Side.BUY, quantity=Decimal(1)), identity="someone-else"
        )
        await gw.settle()  # both placed; filled once the venue's delay has passed
        closes = MarketCloses(gw.backend.rh.market, calendar=NyseCalendar(), clock=gw.clock)
        grader = Grader(gw.ledger, closes, clock=gw.clock)
        await grader.run_once()
        before = (await gw.call("gate_record"))["structuredContent"]["data"]
        gw.clock.advance(WEDNESDAY_CLOSE - gw.clock.now())
        assert (await grader.run_once()).graded == 2
        result = await gw.call("gate_record")
    mine_id = mine["structuredContent"]["data"]["filing_id"]
    assert [(g["filing_id"], g["state"]) for g in before["grades"]] == [(mine_id, "pending")]
    data = result["structuredContent"]["data"]
    (grade,) = data["grades"]
    assert grade["filing_id"] == mine_id and grade["state"] == "graded"
    assert grade["symbol"] == "SPY" and grade["grading_day"] == "2026-12-02"
    # The excess is the return less SPY's, each rounded on its own (so within 0.01 bps).
    difference = Decimal(grade["return_bps"]) - Decimal(grade["spy_bps"])
    assert abs(Decimal(grade["excess_bps"]) - difference) <= Decimal("0.01")
    track = data["track_record"]
    assert track["graded"] == 1 and track["rank"] is None and track["ranked_after"] == 30
    text = result["content"][0]["text"]
    assert str(other.filing_id) not in text and "someone-else" not in text
    assert public_id("someone-else") not in text and "AAPL" not in text

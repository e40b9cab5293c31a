"""``PaperVenue``: the paper book behind the port. Its equity lane reads a decision's view
in two halves (the market's before the worker thread, the book's inside it), places with the
caller's record in the book's own transaction, and lets an agent read the account through
the gateway's paper answers."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import anyio
import pytest
from paper_kit import ACCOUNT, START, Market, ticket

from ordergate.core import Side, SteppedClock
from ordergate.ledger import Ledger, open_ledger
from ordergate.venues import BrokerOrder, EquityLane, QuotesNeeded, Venue
from ordergate.venues.paper import PaperAnswerReader, PaperBook, PaperVenue

pytestmark = pytest.mark.anyio
BOUND_S = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def paper(ledger: Ledger, clock: SteppedClock, market: Market) -> PaperVenue:
    book = PaperBook(ledger.engine, clock=clock, starting_cash=Decimal(10_000))
    return PaperVenue(book, market, session=market.session, clock=clock)


def opened(tmp_path: Path, clock: SteppedClock) -> Ledger:
    return open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=clock)


async def test_the_paper_venue_is_a_paper_venue_with_an_equity_lane(tmp_path: Path) -> None:
    clock = SteppedClock(start=START)
    with opened(tmp_path, clock) as ledger:
        venue = paper(ledger, clock, Market(clock))
        assert isinstance(venue, Venue)
        assert isinstance(venue.equity, EquityLane)
        assert venue.paper is True
        assert isinstance(venue.equity.answers_for(ledger, "agent"), PaperAnswerReader)


async def test_the_paper_lane_records_with_the_placement_and_asks_for_a_holdings_quote(
    tmp_path: Path,
) -> None:
    clock = SteppedClock(start=START)
    market = Market(clock)
    market.set("AAPL", "99.00", "100.00")
    market.set("SPY", "499.00", "500.00")
    with opened(tmp_path, clock) as ledger:
        lane: EquityLane = paper(ledger, clock, market).equity
        buy = ticket("AAPL", Side.BUY, quantity="2")
        recorded: list[BrokerOrder] = []

        def record(order: BrokerOrder) -> str:
            recorded.append(order)
            return "recorded"

        with anyio.fail_after(BOUND_S):
            placement, answer = await lane.place_and_record(buy, record, looked=lane.look(buy))
            sighting = await lane.sight(ACCOUNT, "SPY")
        assert answer == "recorded" and recorded == [placement.order]
        assert sighting.whole is None and set(sighting.quotes) == {"SPY"}
        with pytest.raises(QuotesNeeded) as needed:
            lane.view(sighting, final=False)
        assert needed.value.symbols == {"AAPL"}
        unpriced = lane.view(sighting, final=True)
        assert unpriced.equity is None and unpriced.cash == Decimal(10_000) - Decimal(200)
        with anyio.fail_after(BOUND_S):
            priced = lane.view(await lane.more_quotes(sighting, needed.value.symbols), final=False)
        assert priced.equity == Decimal(10_000) - Decimal(200) + 2 * Decimal("99.00")


async def test_the_paper_lane_refuses_a_look_it_did_not_answer(tmp_path: Path) -> None:
    clock = SteppedClock(start=START)
    with opened(tmp_path, clock) as ledger:
        lane = paper(ledger, clock, Market(clock)).equity
        with pytest.raises(TypeError):
            await lane.place_and_record(ticket("AAPL", Side.BUY, quantity="1"), None, looked="x")

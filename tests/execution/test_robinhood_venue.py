"""``RobinhoodVenue``: Robinhood behind the port, against the sandbox venue over loopback.

Its equity lane answers every capability of the port with the broker's own answers: the
decision's whole view is read before the worker thread (``sight``) and handed back by
``view``; placing records nothing in the broker's transaction; an agent reads the account
as the guard does.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from uuid import uuid4

import anyio
import pytest
from venue_testkit import START

from ordergate.client import Robinhood
from ordergate.core import Side, SteppedClock
from ordergate.ledger import open_ledger
from ordergate.policy import Proposal
from ordergate.venues import BrokerOrder, EquityLane, Ticket, Venue
from ordergate.venues.robinhood import RobinhoodVenue

BOUND_S = 30


def robinhood(rh: Robinhood) -> RobinhoodVenue:
    return RobinhoodVenue.through(rh, clock=SteppedClock(start=START))


@pytest.mark.anyio
async def test_the_robinhood_venue_is_a_live_venue_with_an_equity_lane(rh: Robinhood) -> None:
    venue = robinhood(rh)
    assert isinstance(venue, Venue)
    assert isinstance(venue.equity, EquityLane)
    assert venue.paper is False


@pytest.mark.anyio
async def test_the_robinhood_lane_reads_the_whole_view_before_the_worker_thread(
    rh: Robinhood, account: str
) -> None:
    lane = robinhood(rh).equity
    with anyio.fail_after(BOUND_S):
        sighting = await lane.sight(account, "AAPL")
        more = await lane.more_quotes(sighting, ["MSFT"])
    whole = sighting.whole
    assert whole is not None
    assert whole.quote is not None and whole.quote.symbol == "AAPL"
    assert whole.cash is not None and whole.tradable is True
    assert sighting.quotes == {"AAPL": whole.quote}
    assert more is sighting
    assert lane.view(sighting, final=False) is whole


@pytest.mark.anyio
async def test_the_robinhood_lane_places_at_the_broker_and_leaves_the_record_to_the_caller(
    rh: Robinhood, account: str
) -> None:
    lane: EquityLane = robinhood(rh).equity
    ticket = Ticket(uuid4(), account, Proposal(symbol="AAPL", side=Side.BUY, quantity=Decimal(1)))
    recorded: list[BrokerOrder] = []
    assert lane.look(ticket) is None
    with anyio.fail_after(BOUND_S):
        placement, answer = await lane.place_and_record(ticket, recorded.append)
    assert answer is None and recorded == []
    assert placement.order is not None and placement.order.ref_id == ticket.ref_id


@pytest.mark.anyio
async def test_an_agent_reads_the_robinhood_account_as_the_guard_does(
    rh: Robinhood, tmp_path: Path
) -> None:
    lane = robinhood(rh).equity
    ledger = open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}", clock=SteppedClock(start=START))
    try:
        assert lane.answers_for(ledger, "agent") is lane.account
    finally:
        ledger.close()

"""``ClientAccountReader`` and ``ClientQuoteSource`` against the sandbox venue over loopback
(and, for positions the venue always values, against scripted answers): every field read
from the broker, and a failed part leaving only its own fields unknown."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from decimal import Decimal
from typing import Any
from uuid import uuid4

import anyio
import pytest
from client_testkit import ScriptedCaller, wrapped_venue
from venue_testkit import START, VenueClient

from ordergate.client import Robinhood, ToolError
from ordergate.client.equity import EquityPositionsPage
from ordergate.core import OrderState, OrderType, Side, SteppedClock, TimeInForce
from ordergate.policy import Position, Proposal
from ordergate.venues import AccountReader, AccountView, QuoteSource, Ticket
from ordergate.venues.robinhood import (
    BookParts,
    ClientAccountReader,
    ClientQuoteSource,
    LiveExecutor,
)

BOUND_S = 30
MCP_PATH = "/mcp/trading"
Connect = Callable[[VenueClient], AbstractAsyncContextManager[Robinhood]]

# Which fields each part of a read fills.
PART_FIELDS = {
    "get_portfolio": ("portfolio", ("equity", "cash", "buying_power")),
    "get_equity_positions": ("positions", ("positions",)),
    "get_equity_orders": ("open_orders", ("open_orders",)),
    "get_equity_quotes": ("quote", ("quote",)),
    "get_equity_tradability": ("tradable", ("tradable",)),
}
EVERY_FIELD = tuple(name for _, fields in PART_FIELDS.values() for name in fields)


def reader(rh: Robinhood) -> ClientAccountReader:
    return ClientAccountReader(rh, clock=SteppedClock(start=START))


async def hold_and_rest(rh: Robinhood, sandbox: VenueClient, account: str) -> Ticket:
    """Buy 2 AAPL (filled) and leave a MSFT limit buy resting; the resting ticket."""
    executor = LiveExecutor(rh)
    bought = Ticket(uuid4(), account, Proposal("AAPL", Side.BUY, quantity=Decimal(2)))
    resting = Ticket(
        uuid4(),
        account,
        Proposal(
            "MSFT",
            Side.BUY,
            quantity=Decimal(1),
            order_type=OrderType.LIMIT,
            limit_price=Decimal("100.00"),
            time_in_force=TimeInForce.GTC,
        ),
    )
    await executor.place(bought)
    sandbox.step(5)
    await executor.place(resting)
    return resting


class FailTool:
    """ASGI wrapper: every ``tools/call`` of ``tool`` answers HTTP 503; the rest pass."""

    def __init__(self, app: Any, tool: str) -> None:
        self.app = app
        self.tool = tool
        self.failed = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        request = json.loads(body)
        if request.get("method") == "tools/call" and request["params"]["name"] == self.tool:
            self.failed += 1
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b"down"})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


# -- the whole account -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_reader_fills_every_field_from_the_venue(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    with anyio.fail_after(BOUND_S):
        resting = await hold_and_rest(rh, sandbox, account)
        view = await reader(rh).read(account, "AAPL")
    assert isinstance(reader(rh), AccountReader)
    portfolio = sandbox.data("get_portfolio", {"account_number": account})
    held = sandbox.data("get_equity_positions", {"account_number": account})["positions"]
    quote = sandbox.data("get_equity_quotes", {"symbols": ["AAPL"]})["results"][0]["quote"]
    assert view.notes == ()
    assert view.equity == Decimal(portfolio["total_value"])
    assert view.cash == Decimal(portfolio["cash"])
    assert view.buying_power == Decimal(portfolio["buying_power"]["buying_power"])
    assert view.positions == {
        "AAPL": Position(quantity=Decimal(2), market_value=Decimal(held[0]["market_value"]))
    }
    assert view.open_orders is not None and len(view.open_orders) == 1
    (order,) = view.open_orders
    assert (order.ref_id, order.symbol, order.state) == (resting.ref_id, "MSFT", OrderState.QUEUED)
    assert view.quote is not None
    assert (view.quote.bid, view.quote.ask) == (
        Decimal(quote["bid_price"]),
        Decimal(quote["ask_price"]),
    )
    assert view.quote.last == Decimal(quote["last_trade_price"])
    assert view.quote.as_of is not None and view.quote.as_of > START
    assert view.tradable is True


@pytest.mark.anyio
async def test_a_read_without_a_symbol_reads_the_account_and_no_market(
    rh: Robinhood, account: str
) -> None:
    with anyio.fail_after(BOUND_S):
        view = await reader(rh).read(account, None)
    assert view.equity == view.cash == view.buying_power == Decimal("100000.00")
    assert (view.positions, view.open_orders) == ({}, ())
    assert (view.quote, view.tradable, view.notes) == (None, None, ())


@pytest.mark.anyio
async def test_a_symbol_the_venue_does_not_list_is_unquoted_and_untradable(
    rh: Robinhood, account: str
) -> None:
    with anyio.fail_after(BOUND_S):
        view = await reader(rh).read(account, "ZZZZ")
    assert (view.quote, view.tradable) == (None, False)
    assert view.notes == ("quote: unavailable (get_equity_quotes: NOT_FOUND)",)
    assert view.equity is not None and view.positions == {}


# -- failures --------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("tool", sorted(PART_FIELDS))
async def test_a_failing_tool_leaves_only_its_fields_unknown_with_a_note(
    tool: str, connect_to: Connect
) -> None:
    part, missing = PART_FIELDS[tool]
    with wrapped_venue(lambda app: FailTool(app, tool)) as (sandbox, failing):
        account = str(sandbox.agentic_account()["account_number"])
        async with connect_to(sandbox) as rh:
            with anyio.fail_after(BOUND_S):
                view = await reader(rh).read(account, "AAPL")
    assert failing.failed == 1
    assert view.notes == (f"{part}: unavailable ({tool}: http_status 503)",)
    for name in EVERY_FIELD:
        value = getattr(view, name)
        assert (value is None) == (name in missing), name
    assert sandbox.token is not None and sandbox.token not in " ".join(view.notes)


@pytest.mark.anyio
async def test_when_every_read_fails_the_reader_still_answers_with_everything_unknown(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    sandbox.faults(http_errors=len(PART_FIELDS))
    with anyio.fail_after(BOUND_S):
        view = await reader(rh).read(account, "AAPL")
    assert view == AccountView(notes=view.notes)
    assert sorted(note.split(":")[0] for note in view.notes) == sorted(
        part for part, _ in PART_FIELDS.values()
    )


# -- positions the venue always values (scripted) --------------------------------------------

ACCOUNT = "5PY78241"


def account_answers(*positions: dict[str, Any]) -> dict[str, Any]:
    """Scripted answers of the three account tools, holding ``positions``."""
    return {
        "get_portfolio": {
            "total_value": "1000",
            "equity_value": "0",
            "options_value": "0",
            "crypto_value": "0",
            "cash": "1000",
        },
        "get_equity_positions": {"positions": list(positions), "next": None},
        "get_equity_orders": {"orders": [], "next": None},
    }


def scripted_positions(*positions: dict[str, Any]) -> ClientAccountReader:
    return reader(Robinhood(ScriptedCaller(account_answers(*positions))))


@pytest.mark.anyio
async def test_parts_read_together_are_read_once_and_each_fails_on_its_own() -> None:
    """A venue that reads the portfolio, positions and open orders together is asked once
    for the three; a part it could not read leaves only its fields unknown, and positions
    on more than one page are walked as without it."""
    answers = account_answers({"symbol": "AAPL", "quantity": "3", "market_value": "30"})
    caller = ScriptedCaller(answers)
    asked: list[str] = []

    async def book(account: str) -> BookParts:
        asked.append(account)
        first = EquityPositionsPage.model_validate({"positions": [], "next": "page-2"})
        return BookParts(ToolError("down", tool="get_portfolio", code="E1"), first, [])

    view = await ClientAccountReader(
        Robinhood(caller), clock=SteppedClock(start=START), book=book
    ).read(ACCOUNT, None)
    assert asked == [ACCOUNT]
    assert (view.equity, view.cash, view.buying_power) == (None, None, None)
    assert len(view.notes) == 1 and view.notes[0].startswith("portfolio: unavailable")
    assert view.positions == {"AAPL": Position(quantity=Decimal(3), market_value=Decimal(30))}
    assert view.open_orders == ()
    assert [name for name, _ in caller.calls] == ["get_equity_positions"]


@pytest.mark.anyio
async def test_a_position_without_a_market_value_is_valued_at_its_last_price() -> None:
    view = await scripted_positions(
        {"symbol": "AAPL", "quantity": "3", "market_value": None, "last_trade_price": "10.50"},
        {"symbol": "MSFT", "quantity": "-1", "market_value": "-20.00", "last_trade_price": "21"},
    ).read(ACCOUNT, None)
    assert view.positions == {
        "AAPL": Position(quantity=Decimal(3), market_value=Decimal("31.50")),
        "MSFT": Position(quantity=Decimal(-1), market_value=Decimal("-20.00")),
    }
    assert (view.equity, view.buying_power, view.notes) == (Decimal(1000), None, ())


@pytest.mark.anyio
async def test_a_position_that_cannot_be_valued_leaves_every_position_unknown() -> None:
    view = await scripted_positions(
        {"symbol": "AAPL", "quantity": "3", "market_value": "30"},
        {"symbol": "MSFT", "quantity": "1"},
    ).read(ACCOUNT, None)
    assert view.positions is None
    assert view.notes == ("positions: no market value or last price for MSFT",)
    assert view.equity == Decimal(1000) and view.open_orders == ()


@pytest.mark.anyio
async def test_a_symbol_listed_twice_leaves_every_position_unknown() -> None:
    twice = {"symbol": "AAPL", "quantity": "3", "market_value": "30"}
    view = await scripted_positions(twice, twice).read(ACCOUNT, None)
    assert view.positions is None
    assert view.notes == ("positions: AAPL is listed twice",)


@pytest.mark.anyio
async def test_quotes_for_nothing_or_for_another_symbol_are_no_quote() -> None:
    other = {
        "symbol": "MSFT",
        "last_trade_price": "10",
        "venue_last_trade_time": "2026-12-01T15:00:00Z",
        "adjusted_previous_close": "10",
        "previous_close": "10",
        "bid_price": "9",
        "venue_bid_time": "2026-12-01T15:00:00Z",
        "ask_price": "11",
        "venue_ask_time": "2026-12-01T15:00:00Z",
        "has_traded": True,
        "state": "active",
    }
    answers: dict[str, Any] = {
        **account_answers(),
        "get_equity_quotes": {"results": [None, {"quote": None}, {"quote": other}]},
        "get_equity_tradability": {"results": [], "not_found": []},
    }
    rh = Robinhood(ScriptedCaller(answers))
    source = ClientQuoteSource(rh)
    assert (await source.quote("AAPL"), await source.tradable(ACCOUNT, "AAPL")) == (None, False)
    view = await reader(rh).read(ACCOUNT, "AAPL")
    assert (view.quote, view.tradable) == (None, False)
    assert view.notes == ("quote: no quote for AAPL",)


def test_a_listing_bound_below_one_page_is_refused() -> None:
    with pytest.raises(ValueError, match="max_pages"):
        ClientAccountReader(
            Robinhood(ScriptedCaller({})), clock=SteppedClock(start=START), max_pages=0
        )


# -- the quote source ------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_quote_source_answers_the_readers_quote_and_tradability(
    rh: Robinhood, account: str
) -> None:
    source = ClientQuoteSource(rh)
    assert isinstance(source, QuoteSource)
    with anyio.fail_after(BOUND_S):
        quote = await source.quote("AAPL")
        tradable = await source.tradable(account, "AAPL")
        view = await reader(rh).read(account, "AAPL")
        unknown = (await source.quote("ZZZZ"), await source.tradable(account, "ZZZZ"))
    assert quote is not None and quote == view.quote
    assert tradable is True
    assert unknown == (None, False)


@pytest.mark.anyio
async def test_the_quote_source_answers_none_when_the_venue_does_not_answer(
    rh: Robinhood, sandbox: VenueClient, account: str
) -> None:
    source = ClientQuoteSource(rh)
    sandbox.faults(drop_before=2)
    with anyio.fail_after(BOUND_S):
        answers = (await source.quote("AAPL"), await source.tradable(account, "AAPL"))
    assert answers == (None, None)

"""``PaperCaller``'s options: the engine's options desk answers the option order tools on the
paper book and prices only contracts it was handed from the upstream. Until option quotes are
observed, an option order on paper is refused by the engine: never sent to the upstream,
never priced on the sandbox's seeded market."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import anyio
import pytest
from client_testkit import account_number
from guard_kit import desk

from ordergate.client import BusinessError, Robinhood
from ordergate.venues.paper import PaperCaller

pytestmark = pytest.mark.anyio
BOUND_S = 10


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Counting:
    """The real upstream, with the tools it was asked for counted."""

    def __init__(self, upstream: Robinhood) -> None:
        self.upstream = upstream
        self.asked: Counter[str] = Counter()

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        self.asked[name] += 1
        return await self.upstream.call(name, arguments)


async def _call_contract(d: Any) -> str:
    chains = await d.rh.call("get_option_chains", {"underlying_symbol": "AAPL"})
    day = chains["chains"][0]["expiration_dates"][0]
    found = await d.rh.call(
        "get_option_instruments", {"chain_symbol": "AAPL", "expiration_dates": day, "type": "call"}
    )
    instruments = sorted(found["instruments"], key=lambda i: Decimal(i["strike_price"]))
    option_id: str = instruments[len(instruments) // 2]["id"]
    return option_id


def _order(number: str, option_id: str, price: str) -> dict[str, Any]:
    return {
        "account_number": number,
        "legs": [{"option_id": option_id, "side": "buy", "position_effect": "open",
                  "ratio_quantity": 1}],
        "quantity": "1", "type": "limit", "price": price, "direction": "debit",
    }  # fmt: skip


async def test_a_paper_long_call_fills_on_the_upstreams_ask_in_the_paper_book(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        number = account_number(d.venue)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        with anyio.fail_after(BOUND_S):
            option_id = await _call_contract(d)
            quotes = await d.rh.call("get_option_quotes", {"instrument_ids": [option_id]})
            ask = Decimal(quotes["results"][0]["quote"]["ask_price"])
            order = _order(number, option_id, str(ask + 1))
            review = await caller.call("review_option_order", order)
            placed = await caller.call("place_option_order", order)
        assert review
        assert upstream.asked["get_option_instruments"] == 1  # listed on first sight
        assert upstream.asked["get_option_quotes"] == 1  # reused within the window
        assert not {"review_option_order", "place_option_order"} & set(upstream.asked)
        d.step(2)
        d.step(2)
        with anyio.fail_after(BOUND_S):
            orders = await caller.call(
                "get_option_orders", {"account_number": number, "order_id": placed["order"]["id"]}
            )
            positions = await caller.call("get_option_positions", {"account_number": number})
        assert orders["orders"][0]["state"] == "filled"
        assert [p["option_id"] for p in positions["positions"]] == [option_id]
        upstream_positions = await d.rh.call("get_option_positions", {"account_number": number})
        assert upstream_positions["positions"] == []


async def test_an_option_the_upstream_does_not_list_is_refused_by_the_engine(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        number = account_number(d.venue)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        unknown = "00000000-0000-4000-8000-000000000000"
        with pytest.raises(BusinessError) as caught, anyio.fail_after(BOUND_S):
            await caller.call("place_option_order", _order(number, unknown, "1.00"))
        assert caught.value.code == "NOT_FOUND"  # no contract listed, none invented
        assert caller.option_prices.instrument(unknown) is None
        assert "place_option_order" not in upstream.asked


class Failing(Counting):
    """The real upstream, with ``get_option_quotes`` refused or answered unreadably."""

    def __init__(self, upstream: Robinhood, answer: Any) -> None:
        super().__init__(upstream)
        self.answer = answer

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        if name == "get_option_quotes":
            self.asked[name] += 1
            if self.answer is None:
                raise BusinessError("no quotes now", tool=name, code="UNAVAILABLE")
            return self.answer
        return await super().call(name, arguments)


@pytest.mark.parametrize("answer", [None, {"results": "not a list"}])
async def test_without_readable_option_quotes_nothing_is_priced_and_the_order_is_refused(
    tmp_path: Path, answer: Any
) -> None:
    async with desk(tmp_path) as d:
        upstream = Failing(d.rh, answer)
        number = account_number(d.venue)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        with anyio.fail_after(BOUND_S):
            option_id = await _call_contract(d)
            with pytest.raises(BusinessError) as caught:
                await caller.call("place_option_order", _order(number, option_id, "100.00"))
        assert caught.value.code == "UNAVAILABLE"  # listed, but no quote: none invented
        assert caller.option_prices.instrument(option_id) is not None
        assert upstream.asked["get_option_quotes"] == 1
        assert "place_option_order" not in upstream.asked


@pytest.mark.parametrize(
    "tool", ["exercise_option", "cancel_option_exercise", "place_advanced_order"]
)
async def test_acts_the_engine_does_not_carry_are_refused_on_paper_and_never_sent_upstream(
    tmp_path: Path, tool: str
) -> None:
    async with desk(tmp_path) as d:
        upstream = Counting(d.rh)
        number = account_number(d.venue)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        with pytest.raises(BusinessError) as caught, anyio.fail_after(BOUND_S):
            option_id = await _call_contract(d)
            await caller.call(tool, {"account_number": number, "option_id": option_id})
        assert caught.value.code == "NOT_ON_PAPER"
        assert upstream.asked == Counter()  # nothing at all reached the real account

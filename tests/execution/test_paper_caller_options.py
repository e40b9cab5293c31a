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


async def test_an_option_order_on_paper_without_observed_contracts_is_refused_not_sent(
    tmp_path: Path,
) -> None:
    async with desk(tmp_path, engine=True) as d:
        upstream = Counting(d.rh)
        number = account_number(d.venue)
        caller = PaperCaller(upstream, d.ledger.engine, clock=d.clock, cash=Decimal(100_000))
        with anyio.fail_after(BOUND_S):
            chains = await d.rh.call("get_option_chains", {"underlying_symbol": "AAPL"})
            day = chains["chains"][0]["expiration_dates"][0]
            found = await d.rh.call(
                "get_option_instruments",
                {"chain_symbol": "AAPL", "expiration_dates": day, "type": "call"},
            )
            option_id = found["instruments"][0]["id"]
            order = {
                "account_number": number,
                "legs": [{"option_id": option_id, "side": "buy", "position_effect": "open",
                          "ratio_quantity": 1}],
                "quantity": "1", "type": "limit", "price": "1.00", "direction": "debit",
            }  # fmt: skip
            for tool in ("review_option_order", "place_option_order"):
                with pytest.raises(BusinessError) as caught:
                    await caller.call(tool, order)
                assert caught.value.code == "NOT_FOUND"  # no contract listed, none invented
            positions = await caller.call("get_option_positions", {"account_number": number})
        assert positions["positions"] == []
        assert not {"review_option_order", "place_option_order"} & set(upstream.asked)
